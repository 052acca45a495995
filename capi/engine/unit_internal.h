/*
 * unit_internal.h: what the unit files (unit.c, unit_stack.c, unit_switch.c, unit_block.c,
 * unit_join.c) share and no other kind may call. Small helpers that every caller had inlined
 * when the unit code was one file are static inline here, so that create, yield and the *_to
 * calls pay no call for them.
 */
#ifndef GOABT_UNIT_INTERNAL_H
#define GOABT_UNIT_INTERNAL_H

#include "pool.h"
#include "unit.h"
#include "valgrind_stacks.h"

/* ---- Stacks (unit_stack.c) ---- */

/* Gives u a stack of at least size usable bytes below its top, with a guard page under it (s:
 * the calling thread's stream, or NULL). Returns the stack's top, or NULL. */
void *goabt_unit_map_stack(goabt_stream *s, goabt_unit *u, size_t size) GOABT_HIDDEN;
/* Takes u's stack off it, into the caches (s: the calling thread's stream, or NULL). */
void goabt_unit_give_mapping(goabt_stream *s, goabt_unit *u) GOABT_HIDDEN;
static inline void goabt_unit_give_stack(goabt_stream *s, goabt_unit *u)
{
    if (u->mapping != NULL) goabt_unit_give_mapping(s, u); /* tasklets and the main ULT: none */
}
/* Gives u's stack back to the Go core (core.Stacks), which keeps it for reuse or unmaps it. */
void goabt_unit_unmap_stack(goabt_unit *u) GOABT_HIDDEN;
/* The stack caches: s's go to the global batches (stream deletion); the global batches go to
 * the Go core (finalize). */
void goabt_unit_stacks_release(goabt_stream *s) GOABT_HIDDEN;
/* How many free stacks s's cache holds. */
int goabt_unit_stacks_cached(goabt_stream *s) GOABT_HIDDEN;
void goabt_unit_stacks_drain(void) GOABT_HIDDEN;

/* Valgrind's view of a program-given stack (valgrind_stacks.h), registered while the unit that
 * runs on it exists; empty outside the valgrind build. */
static inline void goabt_unit_vg_register_user_stack(goabt_unit *u)
{
#ifdef GOABT_VALGRIND
    u->vg_user_stack = goabt_vg_stack_register(u->stack, (char *)u->stack + u->stacksize);
#else
    (void)u;
#endif
}

static inline void goabt_unit_vg_deregister_user_stack(goabt_unit *u)
{
#ifdef GOABT_VALGRIND
    goabt_vg_stack_deregister(u->vg_user_stack);
    u->vg_user_stack = 0;
#else
    (void)u;
#endif
}

/* ---- Descriptors (unit.c) ---- */

/* u has ended (finished, or cancelled) and no longer runs on its stack: wakes its joiners, or
 * frees it if unnamed; s: the calling thread's stream, or NULL. */
void goabt_unit_end(goabt_unit *u, goabt_stream *s) GOABT_HIDDEN;

/* ---- Direct switches and the hand-over (unit_switch.c) ---- */

/* Switches straight from self to target, a ULT that is ready and in no pool (taken out of one
 * by the caller, or a suspended one being resumed), without going through the scheduler;
 * fn(self, arg) runs once self's context is saved. Neither may be the main ULT, which has no
 * scheduler below it to come back to. */
void goabt_unit_switch_to(goabt_stream *s, goabt_unit *self, goabt_unit *target,
                          goabt_after_fn fn, void *arg) GOABT_HIDDEN;
/* self yields straight to target (yield_to, resume_yield_to, create_to, revive_to): a tool
 * hears self yield, and target run (goabt_unit_switch_to); self goes back to its pool, told
 * why. */
void goabt_unit_yield_straight(goabt_stream *s, goabt_unit *self, goabt_unit *target,
                               ABT_pool_context why) GOABT_HIDDEN;
/* Takes target, the ULT a *_to call names, for a direct switch: 1, or 0 if it is neither ready
 * in its pool nor popped by the caller (running, blocked, finished, or queued in a user pool
 * that cannot remove units). */
int goabt_unit_take_target(goabt_unit *target) GOABT_HIDDEN;
/* The ULT to hand the stream to, popped, or NULL: the scheduler takes its round (unit_switch.c,
 * "Hand-over"). back: the pool self goes back to (yield), or NULL (park): the scheduler would
 * pop from it no later than self, so nothing past it counts. park: the pool a parking self is
 * counted in, or NULL; *counted says whether the pop counted it there (goabt_pool_pop_ult).
 * requeued, for a yield: set when the pop queued self in back too, its lock left held (the
 * switch's after function releases it). */
goabt_unit *goabt_unit_direct_next(goabt_stream *s, goabt_unit *self, goabt_pool *back,
                                   goabt_pool *park, int *counted, int *requeued) GOABT_HIDDEN;

/* Whether self may switch straight to target (neither is the main ULT, target is a ULT). */
static inline int goabt_unit_direct(goabt_unit *self, goabt_unit *target)
{
    return !(self->flags & GOABT_UNIT_MAIN) && !(target->flags & GOABT_UNIT_MAIN) &&
           target->kind == GOABT_ULT;
}

/* A taken target that cannot be switched to straight (the main ULT is one side) goes back to
 * its pool, to run in its turn. */
static inline void goabt_unit_give_back(goabt_unit *target)
{
    goabt_pool_push(target->pool, target);
}

/* ---- Requests (unit_join.c) ---- */

/* Clears bit in u's requests: 1 if it was set (the caller now carries the request out). */
static inline int goabt_unit_claim_request(goabt_unit *u, int bit)
{
    return (__atomic_fetch_and(&u->request, ~bit, __ATOMIC_ACQ_REL) & bit) != 0;
}

/* Moves u (ready, held by the caller: in no pool, not running) to its migrate_to pool, runs
 * its migration callback, and queues it there; counted: the pool it parked in, or NULL. A
 * user pool that makes no unit for it keeps it where it was. */
void goabt_unit_migrate_now(goabt_unit *u, goabt_pool *counted) GOABT_HIDDEN;

#endif /* GOABT_UNIT_INTERNAL_H */
