/*
 * unit.h: work units (ABT_thread, ABT_task): descriptors and stacks, create, run, yield, join,
 * park and ready. Internal. The code, by concern:
 *   unit.c          descriptors: their caches, create, revive, end, free, ids
 *   unit_stack.c    ULT stacks: their caches, mapping one at a ULT's first run, none to be had
 *   unit_switch.c   switching out and in, the main ULT, run_child, direct switches (*_to),
 *                   the hand-over, yield, exit
 *   unit_block.c    park and ready; suspend and resume
 *   unit_join.c     requests (cancel, migration) and join
 *   unit_internal.h what those files share and no other kind calls
 *
 * Switching out. A unit that gives up the processor (yield, park, terminate) records in its
 * stream what the scheduler must do with it once its context is saved (stream->after_fn), then
 * switches to the scheduler, which runs that callback first thing (docs/design.md rule 4: before the
 * context is saved, handing the unit to a pool or a wait list would let another stream resume it
 * twice). When the scheduler would only pop the next ULT of a built-in pool, the unit pops it
 * itself and switches straight to it, where the callback runs instead (unit_switch.c,
 * "Hand-over"): one switch instead of two; a yield that the round would answer with the yielder
 * itself does not switch at all. No Go frame is ever live across a switch.
 *
 * Blocking. There is one way to block a ULT and one way to wake it (unit_block.c):
 *   goabt_unit_park(fn, arg, sync_type, sync)
 *                              the calling ULT becomes BLOCKED, counted as blocked in its
 *                              pool, heard by a tool and the trace as waiting on sync (an
 *                              ABT_SYNC_EVENT_TYPE_* and its object, or NULL), and fn(unit, arg) runs
 *                              after its context is saved: fn publishes the unit where its
 *                              waker will find it (typically it releases the spinlock of the
 *                              wait list the unit is on);
 *   goabt_unit_ready(unit)     makes a parked unit READY on the pool it belongs to, taking up
 *                              a migration asked meanwhile (a cancel is taken up where it is
 *                              next run).
 * Join, stream join, every synchronization object and ABT_pool_pop_wait* are built on these two
 * through wait lists (wait.h), which also block OS threads and handle deadlines; only a join of
 * a tasklet polls instead, as in Argobots (unit_join.c), so that a tasklet's end is one store.
 * ABT_self_suspend (and suspend_to, resume_suspend_to) is the same park, whose after function
 * marks it suspended, and a resume its ready; a resume_*_to that switches straight to the
 * resumed ULT readies it in place (uncounted, heard), unless it has a request pending, which
 * only the ready's way carries out. Wake-ups are exact: a push
 * wakes one idle stream among those asleep on that pool, a request wakes the stream it is for,
 * and a safety timeout (GOABT_SAFETY_WAKEUP_MS, off in the tests) is never what correctness
 * rests on.
 *
 * Memory layout keeps streams apart: a stream refills its descriptor cache with a run of
 * descriptors on pages of their own (core.Blocks.GetRun), trades them with the global cache in
 * batches, ULT stack tops are spread over 16 cache-line colours, and stream and pool structs sit
 * on lines of their own. Two streams forking and joining side by side ran at 2-3x the cost of
 * one without this (goabt_unit_map_stack in unit_stack.c and go_take_batch in unit.c say what
 * each part bought).
 */
#ifndef GOABT_UNIT_H
#define GOABT_UNIT_H

#include "common.h"
#include "context.h"
#include "runtime.h"
#include "stream.h"
#include "tool.h"

/* Unit kinds and flags. */
enum { GOABT_ULT = 1, GOABT_TASKLET = 2 };
enum {
    GOABT_UNIT_NAMED = 0x1,      /* created with a handle: the user joins and frees it */
    GOABT_UNIT_MAIN = 0x2,       /* the main ULT (ABT_thread_is_primary) */
    GOABT_UNIT_USER_STACK = 0x4, /* the stack belongs to the user (ABT_thread_attr_set_stack) */
    GOABT_UNIT_MIGRATABLE = 0x8,
    GOABT_UNIT_MIGRATE_CB = 0x10, /* migrate_cb is set (ABT_thread_set_callback, the attribute) */
    GOABT_UNIT_NO_STACK = 0x20,   /* it ended without running: no stack could be mapped for it */
};

/* Stacks of this many bytes and more are mapped when their ULT is created (unit.c), not when it
 * first runs: few programs make many, and out of memory is refused there. */
#define GOABT_EAGER_STACK ((size_t)1 << 20)

/* Requests to a unit (unit->request bits), taken up at its next scheduling point. */
enum {
    GOABT_UNIT_REQ_CANCEL = 0x1,  /* ABT_thread_cancel: end it instead of running it */
    GOABT_UNIT_REQ_MIGRATE = 0x2, /* ABT_thread_migrate*: move it to migrate_to */
};

/* A ULT attribute (ABT_thread_attr). */
struct ABT_thread_attr_opaque {
    ABT_bool migratable;
    uint32_t magic;
    void *stack;      /* user-provided stack, or NULL: goabt allocates one */
    size_t stacksize; /* bytes */
    void (*callback)(ABT_thread, void *);
    void *callback_arg;
};

/* A work unit: what ABT_thread (and ABT_task) points to.
 *
 * Laid out by who touches what, in 64-byte lines (descriptors are 256-byte blocks, 64-aligned):
 * a tasklet's create, run, join and free touch lines 0 and 1 only, a ULT's line 2 as well, and
 * line 3 holds what only some units use. A stream cycles through hundreds of descriptors (256
 * units forked, then joined): two lines each stay in L1 where four did not (docs/design.md,
 * "Choices since", has the figures). A unit that runs on one stream, then another (it migrates,
 * or is woken or stolen there) has its lines written on one and read on the other: what a unit
 * already made writes when it is queued, run, switched out or moved is in line 0 and its
 * context in line 2, and line 1 is only read then (the queue's links are written only when
 * they change), so that such a hand-over moves two lines of it between CPUs, not three
 * (docs/performance.md, "unit lines"). */
struct ABT_thread_opaque {
    /* ---- line 0: run, queued, switched out, moved; create, join, get_specific ---- */
    uint16_t kind;  /* GOABT_ULT or GOABT_TASKLET */
    uint16_t flags; /* GOABT_UNIT_* */
    uint32_t magic;
    int state;      /* ABT_THREAD_STATE_*, atomic */
    /* GOABT_UNIT_REQ_* bits, atomic: read where a unit is about to run, yields or is made
     * ready (unit_join.c, goabt_unit_take_request); in the word next to state, which those
     * write. */
    int request;
    /* Work-unit-specific data (keys.h), NULL until first set; atomic. Next to magic: a
     * get_specific on another unit then reads one line of its descriptor, not two. */
    goabt_keytable *keys;
    goabt_stream *last_stream;
    /* atomic: who waits in join, or GOABT_JOIN_DONE once it ended (a tasklet's joiners poll
     * its state: it only ever holds DONE). At this offset so that a stream's magic, read
     * through a joiner's tag, is this unit's request word (wait.c). */
    goabt_waiter *joiners;
    goabt_pool *pool;        /* the pool it was pushed to last (its associated pool) */
    goabt_unit *next;        /* links while queued in a pool */
    /* Where a migration moves it (read only with GOABT_UNIT_REQ_MIGRATE set). */
    goabt_pool *migrate_to;
    /* ---- line 1: create, first run and free; read when queued ---- */
    goabt_unit *prev;
    /* The ULT that took it out of a pool through the pool API (ABT_pool_pop*, ABT_pool_remove),
     * NULL once it is pushed again or run: whom the *_to calls let switch to it (unit_switch.c,
     * goabt_unit_take_target). Every push clears it. */
    goabt_unit *popped_by;
    /* Its waiter while in goabt_wait (wait.c: a tasklet's too), a join, or mutex.c's yields:
     * what a cancel passes on, and what the hang report (api/info_hang.c) says it waits on. */
    goabt_waiter *waiting;
    void (*func)(void *);
    void *arg;
    goabt_unit *free_next;  /* link in a cache of free descriptors */
    void *mapping;          /* mmap'd stack region, guard page included, or NULL */
    /* The pool unit a user-defined pool made for it (pool_user.c), or NULL: for which pool. */
    goabt_pool *pool_unit_of;
    /* ---- line 2: ULTs ---- */
    goabt_ctx ctx;          /* saved context while the ULT is not running; NULL before it first runs */
    void *top;              /* where its context starts, before it first runs */
    void *stack;            /* lowest usable stack address (ULT) */
    size_t stacksize;       /* usable bytes (0 for tasklets and the main ULT) */
    size_t mapping_size;
    goabt_keytable *keys_spare; /* an emptied table kept with the cached descriptor, or NULL */
    goabt_pool *parked_in;  /* the pool it was counted in when it last parked */
    /* Queued in a pool that keeps its queue itself (a user or Go pool: pushed, not yet popped or
     * removed). It, pool, popped_by and the links are written by pool_member.h only. */
    int user_queued;
    int suspend;            /* ABT_self_suspend's state (unit_block.c), atomic */
    /* ---- line 3: the rest ---- */
    goabt_unit *batch_next; /* first unit of a batch in the global cache: the next batch */
    int batch_len;          /* ... and how many descriptors its batch holds */
    uint32_t pool_unit_serial; /* pool_unit_of's serial when it made pool_unit */
    ABT_unit pool_unit;     /* the pool unit a user-defined pool made for it (pool_unit_of) */
    uint64_t id;            /* assigned on first query; 0 means not yet */
    /* The callback run once it has moved (read only with GOABT_UNIT_MIGRATE_CB set). */
    void (*migrate_cb)(ABT_thread, void *);
    void *migrate_cb_arg;
    /* The page of a program-given stack made read-only while the ULT has it (mprotect modes:
     * goabt_user_stack_guard), or NULL; read only with GOABT_UNIT_USER_STACK. */
    void *user_guard;
#ifdef GOABT_VALGRIND
    /* Valgrind's ids of its stacks (valgrind_stacks.h), 0 for none: the mapping's, and a user
     * stack's while the unit has one. Only in the valgrind build of the library. */
    unsigned vg_mapping_stack;
    unsigned vg_user_stack;
#endif
};
_Static_assert(__builtin_offsetof(struct ABT_thread_opaque, prev) == 64 &&
                   __builtin_offsetof(struct ABT_thread_opaque, joiners) -
                           __builtin_offsetof(struct ABT_thread_opaque, request) ==
                       __builtin_offsetof(struct ABT_xstream_opaque, joiners) -
                           __builtin_offsetof(struct ABT_xstream_opaque, magic) &&
                   __builtin_offsetof(struct ABT_thread_opaque, ctx) == 128 &&
                   __builtin_offsetof(struct ABT_thread_opaque, batch_next) == 192,
               "a unit's lines as laid out above");

/* u leaves the user pool it had a pool unit for (it is freed, or moves to another pool). */
void goabt_unit_drop_user_unit(goabt_unit *u) GOABT_HIDDEN;
static inline void goabt_unit_drop_pool_unit(goabt_unit *u)
{
    if (u->pool_unit_of != NULL) goabt_unit_drop_user_unit(u); /* built-in pools make none */
}
/* u's pool unit as the API hands it out: a user pool's unit for it, else the work unit itself
 * (the FIFO's and Go pools' units are the work units). */
static inline ABT_unit goabt_unit_pool_handle(goabt_unit *u)
{
    return u->pool_unit_of != NULL ? u->pool_unit : (ABT_unit)u;
}

/* For invariant checks (GOABT_ASSERT) only: u is running nowhere, its context saved or never
 * made: the live stream it last ran on (if any) runs another unit, or none. Its stream clears
 * current before it runs the after function that publishes u (unit.h, top: "Switching out"), so
 * anyone who can see u as parked, ready or ended sees that. Read without a lock. */
int goabt_unit_not_running(goabt_unit *u) GOABT_HIDDEN; /* unit_switch.c, checked build only */
/* For checks only: u is in no pool's queue (pool_member.h: "out"). */
static inline int goabt_unit_out_of_queues(goabt_unit *u)
{
    return u->next == NULL && u->prev == NULL && !__atomic_load_n(&u->user_queued, __ATOMIC_RELAXED);
}

/* Units (unit.c, unit_switch.c, unit_block.c, unit_join.c). */
int goabt_unit_create(goabt_pool *pool, int kind, void (*func)(void *), void *arg,
                      goabt_attr *attr, int named, goabt_unit **out) GOABT_HIDDEN;
/* Or'ed into goabt_unit_create's `named`: the unit is not pushed; *out (required) gets it, and
 * the caller starts it with goabt_unit_start_to. */
#define GOABT_CREATE_HELD 0x2
/* Runs u, just made (held) or revived, right away: the calling ULT switches straight to it and
 * goes back to its pool; anyone else pushes it into its pool (the main ULT then yields). why:
 * what a user pool's push is told (ABT_POOL_CONTEXT_OP_THREAD_CREATE_TO or _REVIVE_TO). */
void goabt_unit_start_to(goabt_unit *u, ABT_pool_context why) GOABT_HIDDEN;
void goabt_unit_free(goabt_unit *u) GOABT_HIDDEN;
/* Runs the terminated unit u again, func(arg) in pool p: queued there, or (to) switched to
 * straight from the calling ULT as ABT_thread_create_to does. ABT_ERR_MEM when a user pool
 * makes no unit for it. */
int goabt_unit_revive(goabt_unit *u, goabt_pool *p, void (*func)(void *), void *arg, int to)
    GOABT_HIDDEN;
/* ABT_thread_revive(_to) and ABT_task_revive (thread.c): kind 0 takes any unit. */
int goabt_unit_revive_api(ABT_pool pool, void (*func)(void *), void *arg, ABT_thread *thread,
                          int kind, int to) GOABT_HIDDEN;
int goabt_unit_join(goabt_unit *u) GOABT_HIDDEN;
/* The calling ULT yields; the tool's yield event says what it waits for (USER for
 * ABT_thread_yield, THREAD_JOIN on a tasklet for a join's polling). */
void goabt_unit_yield_sync(int sync_type, void *sync) GOABT_HIDDEN;
static inline void goabt_unit_yield(void) { goabt_unit_yield_sync(ABT_SYNC_EVENT_TYPE_USER, NULL); }
void goabt_unit_yield_to(goabt_unit *target) GOABT_HIDDEN;
/* Gives way to the main ULT. Another stream that pops the main ULT cannot run it: the main ULT
 * never leaves the main thread (docs/design.md rule 1), so it hands it to the primary stream
 * (goabt_unit_hand_main), which resumes it at its next scheduling point. A ULT on the primary
 * that polls without ever reaching one kept it waiting for ever, where Argobots runs the main
 * ULT on the stream that popped it: MPICH's ULTs poll MPI_Iprobe, which takes and releases
 * MPICH's global mutex, and their main ULT never ran again (mt_iprobe_sendrecv hung 1 run in
 * 6). So the calls such a loop makes (a mutex's unlock and trylock, a readers-writer lock's
 * unlock, ABT_eventual_test, ABT_future_test, ABT_thread_get_state) yield on the primary while
 * the main ULT waits there: one load of the stream's flag otherwise. */
static inline void goabt_give_way_to_main(void)
{
    goabt_stream *s = goabt_self_stream();
    if (__builtin_expect(s != NULL && s->is_primary &&
                             __atomic_load_n(&s->main_handoff, __ATOMIC_RELAXED), 0) &&
        s->current != NULL && s->current->kind == GOABT_ULT) {
        goabt_unit_yield();
    }
}
/* Suspends the calling ULT until goabt_unit_resume; with a target (a ready ULT in a pool), it
 * switches straight to it. */
void goabt_unit_suspend(goabt_unit *target) GOABT_HIDDEN;
/* Resumes u, suspended: 1, or 0 if it is not (and nothing is done). */
int goabt_unit_resume(goabt_unit *u) GOABT_HIDDEN;
/* Resumes target and switches straight to it; the caller then yields (0), suspends (1) or
 * exits (2, no return). 0 if target is not suspended (nothing is done). */
int goabt_unit_resume_to(goabt_unit *target, int then) GOABT_HIDDEN;
/* Ends the calling ULT, switching straight to target (a ready ULT in a pool) if it can. */
void goabt_unit_exit_to(goabt_unit *target) __attribute__((noreturn)) GOABT_HIDDEN;
void goabt_unit_exit(void) __attribute__((noreturn)) GOABT_HIDDEN;
uint64_t goabt_unit_id(goabt_unit *u) GOABT_HIDDEN;
/* Blocking (unit.h, top): park the calling ULT (the main ULT included), ready a parked one. */
void goabt_unit_park(goabt_after_fn fn, void *arg, int sync_type, void *sync) GOABT_HIDDEN;
void goabt_unit_ready(goabt_unit *u) GOABT_HIDDEN;
/* Gives the processor to s's scheduler, which runs fn(self, arg) first; returns when self
 * runs again (possibly on another stream). */
void goabt_unit_switch_out(goabt_stream *s, goabt_unit *self, goabt_after_fn fn, void *arg)
    GOABT_HIDDEN;
/* u finished (an after-switch callback; arg is the stream it ran on): wakes its joiners, or
 * frees it if unnamed. */
void goabt_unit_terminated(goabt_unit *u, void *arg) GOABT_HIDDEN;
/* A ULT's first code (unit_switch.c); it starts with goabt_ult_after_resume, as must any other
 * (stackcheck.c's in mode canary): it runs what the unit switched from asked. */
void goabt_ult_entry(void *arg) GOABT_HIDDEN;
void goabt_ult_after_resume(void) GOABT_HIDDEN;

/* The context to resume u with: made now (on a stack taken now) if u never ran. Under
 * AddressSanitizer the stack is unpoisoned first: the ULT that used it before ended with its
 * frames still poisoned (a ULT ends by switching away, not by returning), and ASan's own code
 * running on the new frames (its noreturn hook, say) would report them. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define GOABT_UNPOISON(lo, hi) ASAN_UNPOISON_MEMORY_REGION((lo), (char *)(hi) - (char *)(lo))
#else
#define GOABT_UNPOISON(lo, hi) ((void)0)
#endif
#define GOABT_UNPOISON_STACK(u) GOABT_UNPOISON((u)->stack, (u)->top)
/* Gives u, about to run for the first time on s (the calling thread's stream), a stack of
 * u->stacksize usable bytes, from s's caches if it can (unit_stack.c); 0, or -1 when none can be
 * mapped (out of memory). */
int goabt_unit_take_stack(goabt_stream *s, goabt_unit *u) GOABT_HIDDEN;
/* u, about to run for the first time, got no stack: it ends there without running (its joiners
 * are woken; ABT_thread_join and ABT_thread_free on it return ABT_ERR_MEM), said once on
 * stderr. Called by s's scheduler, no lock held. */
void goabt_unit_no_stack(goabt_unit *u, goabt_stream *s) GOABT_HIDDEN;
/* The context to resume u with (made now if u never ran), or NULL when u never ran and no
 * stack could be mapped for it. */
static inline goabt_ctx goabt_unit_context(goabt_stream *s, goabt_unit *u)
{
    if (__builtin_expect(u->ctx == NULL, 0)) {
        if (u->top == NULL && goabt_unit_take_stack(s, u) != 0) return NULL;
        GOABT_UNPOISON_STACK(u);
        u->ctx = goabt_ctx_make(u->top, goabt_rt.ult_entry, u);
    }
    return u->ctx;
}

/* Takes up u's requests (GOABT_UNIT_REQ_*) at a scheduling point, u being ready and in no
 * pool, its context saved: 1 if u was ended (cancel) or moved (migration), so that the caller
 * must not run or queue it; 0 if nothing was asked. */
int goabt_unit_take_request(goabt_unit *u) GOABT_HIDDEN;
/* Asks u to move to pool `to` (ABT_thread_migrate*), at once if it waits in a pool that can
 * give it back, else at its next scheduling point. */
void goabt_unit_request_migration(goabt_unit *u, goabt_pool *to) GOABT_HIDDEN;
/* Asks u to end (ABT_thread_cancel), at once if it waits in a pool that can give it back. */
void goabt_unit_request_cancel(goabt_unit *u) GOABT_HIDDEN;

/* Runs u (popped from a pool) on s until it switches back, and then what it asked for. Inline:
 * it is the scheduler loop's body (sched.c), where a call cost the yield round trip ~15 ns. */
static inline void goabt_unit_run(goabt_stream *s, goabt_unit *u)
{
    if (__builtin_expect(__atomic_load_n(&u->request, __ATOMIC_ACQUIRE) != 0, 0) &&
        goabt_unit_take_request(u)) {
        return;
    }
    /* run -> RUNNING: from READY, popped (in no queue), not the main ULT (goabt_unit_hand_main
     * resumes that), and running nowhere else. */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY,
                     "a unit is run from READY (state %d)", u->state);
    GOABT_ASSERT(!(u->flags & GOABT_UNIT_MAIN) && goabt_unit_out_of_queues(u));
    GOABT_ASSERT_MSG(goabt_unit_not_running(u), "unit %p run on stream %d while it runs on %d",
                     (void *)u, s->rank, u->last_stream->rank);
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_RUN, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    u->last_stream = s;
    goabt_stream_count_run(s);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    if (u->kind == GOABT_TASKLET) {
        s->current = u;
        u->func(u->arg);
        if (goabt_forked()) goabt_forked_unit_returned(); /* forked inside it: runtime.h */
        s->current = NULL;
        goabt_unit_terminated(u, s);
        return;
    }
    /* The context first: a ULT's first run may take a stack from the Go core, a gated call that
     * must see the caller's stack, not u's (s->current). */
    goabt_ctx ctx = goabt_unit_context(s, u);
    if (__builtin_expect(ctx == NULL, 0)) {
        goabt_unit_no_stack(u, s);
        return;
    }
    /* The frames above its saved registers, which it returns through: fetched beside the
     * switch's own loads, not one after the other (another stream may have written them). */
    __builtin_prefetch((char *)ctx + 64, 0);
    __builtin_prefetch((char *)ctx + 128, 0);
    s->current = u;
    goabt_ctx_switch(&s->sched_ctx, ctx);
    s->current = NULL;
    goabt_sched_after_switch(s);
}
/* Runs u (ready, in no pool, not the main ULT) as a child of the caller and returns once u
 * switches back (yields, blocks, ends): from a scheduler's context as goabt_unit_run does; from
 * a ULT (a stacked scheduler's, or any ULT calling ABT_self_schedule) on top of it, the caller's
 * context standing in for the scheduler's meanwhile. Not from a tasklet. */
void goabt_unit_run_child(goabt_unit *u) GOABT_HIDDEN;
/* The main ULT, ready and in no pool, was taken on s to be run. It lives on the main thread's
 * stack: the primary's own scheduler (s primary, no unit running) resumes it at once (no
 * return, but to a user scheduler's run: goabt_unit_resume_main); anyone else hands it to that
 * scheduler, and a ULT on the primary steps aside (yields) for the scheduler below it to
 * notice. */
void goabt_unit_hand_main(goabt_stream *s) GOABT_HIDDEN;
/* Resumes the main ULT on the primary stream s, from its scheduler's context. No return, but
 * from a user scheduler's run on its own stack (s->run_live): the run waits, and this returns
 * once the main ULT has stepped aside again (sched_user.c). */
void goabt_unit_resume_main(goabt_stream *s) GOABT_HIDDEN;
/* Descriptor and stack caches: s's go to the global ones (stream deletion); the global ones go
 * to the Go core (finalize). */
void goabt_units_cache_release(goabt_stream *s) GOABT_HIDDEN;
/* Fills s's caches with a batch of descriptors and a stack of the default size, at ABT_init, so
 * that a process's first ULT does not wait for the Go core's first allocations (s: the primary,
 * on its own thread, which runs no ULT yet). */
void goabt_units_warm(goabt_stream *s) GOABT_HIDDEN;
void goabt_units_cache_drain(void) GOABT_HIDDEN;

#endif /* GOABT_UNIT_H */
