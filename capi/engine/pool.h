/*
 * pool.h: pools (ABT_pool), and the interface every kind of pool implements (struct
 * goabt_pool_ops). Internal.
 *
 * Kinds of pools. A pool points to its kind's ops; the engine calls a pool only through
 * goabt_pool_push / pop / remove / size ... (pool.c), never a kind's functions by name. The
 * kinds goabt ships are written against the same interface a program extends:
 *   - goabt_fifo_ops (pool.c): the built-in FIFO under a spinlock, ABT_POOL_FIFO, FIFO_WAIT and
 *     RANDWS (one queue serves them all: any order a pool pops in is a valid one);
 *   - goabt_user_pool_ops (pool_user.c): user-defined pools, from an ABT_pool_user_def or the
 *     older struct ABT_pool_def (ABT_pool_create), which keep their units themselves;
 *   - goabt_go_pool_ops (pool_go.c): pools written in Go (core.Pool).
 * The FIFO is the hot one: the engine's wrappers take it inline (`p->ops == &goabt_fifo_ops`)
 * and call the ops of any other kind, so that a FIFO push or pop costs no indirect call. What
 * the engine does around a push (parked counts, waking an idle stream, retired pools that
 * forward) is the engine's: the FIFO does it in the locked section of its push, other kinds
 * end their push with goabt_pool_pushed.
 *
 * To add a kind: write its functions (push, pop, pop_wait, remove, is_queued, size, is_empty,
 * print_all, info_kind; push_many, pop_many, associate and free may be NULL) and its flags
 * (GOABT_POOL_OPS_*) in one ops table in a file of its own, keep what each pool of it needs in
 * p->kind_state, give each pool of it the ops and its capabilities (GOABT_POOL_CAN_*) when it
 * is made (goabt_pool_new), and write a unit's
 * membership only through pool_member.h. Nothing else in the engine asks which kind a pool is:
 * it asks the ops and their flags (the FIFO's own file, pool.c, inlines the FIFO). A kind whose queue is not the FIFO's is never looked
 * into by the engine's hand-over (unit_switch.c): its units go through the scheduler's round.
 *
 * A unit is queued in at most one pool at a time, its associated pool (unit->pool), which is
 * where it goes back to when it yields or is made ready; pool_member.h owns that membership.
 * A push wakes one idle stream among those asleep on that pool (its sleepers) and one caller
 * blocked in ABT_pool_pop_wait* on it (its pop_waiters, a wait list: wait.h); parked ULTs stay
 * counted in the pool they parked in (goabt_pool_num_blocked).
 */
#ifndef GOABT_POOL_H
#define GOABT_POOL_H

#include "common.h"

/* What a kind of pool does (pool.h, top). Every function gets the pool; units are descriptors. */
struct goabt_pool_ops {
    /* Queues u, a ready unit whose membership names p already (pool_member.h), and does what a
     * push owes: counted, when not NULL, is the pool a parked u was counted as blocked in
     * (goabt_pool_count_parked), uncounted now; then one stream asleep on p is woken
     * (goabt_pool_pushed does both). ctx: why (ABT_POOL_CONTEXT_OP_*). Never called on a
     * retired pool: goabt_pool_push forwards. */
    void (*push)(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx);
    /* Takes p's next unit out (pool_member.h), or NULL; ctx: who asks
     * (ABT_POOL_CONTEXT_OWNER_PRIMARY, _SECONDARY for a theft, _OP_POOL_OTHER). */
    goabt_unit *(*pop)(goabt_pool *p, ABT_pool_context ctx);
    /* pop, waiting secs seconds (or, secs negative, until abstime on ABT_get_wtime's clock) if p
     * is empty; NULL if nothing came. ABT_ERR_POOL in *rc when p cannot wait. */
    goabt_unit *(*pop_wait)(goabt_pool *p, double secs, double abstime, ABT_pool_context ctx,
                            int *rc);
    /* Takes u out of p if it is queued there: 1, else 0. Called on GOABT_POOL_CAN_REMOVE pools. */
    int (*remove)(goabt_pool *p, goabt_unit *u);
    /* Whether u is queued in p now. */
    int (*is_queued)(goabt_pool *p, goabt_unit *u);
    /* Units queued now (without GOABT_POOL_CAN_SIZE: 1 when not empty). */
    size_t (*size)(goabt_pool *p);
    int (*is_empty)(goabt_pool *p);
    /* Many at once: 1, or 0 when the kind cannot (the caller goes one by one). May be NULL.
     * push_many's units have their membership of p already. */
    int (*push_many)(goabt_pool *p, goabt_unit **units, size_t n, ABT_pool_context ctx);
    int (*pop_many)(goabt_pool *p, goabt_unit **units, size_t len, size_t *num,
                    ABT_pool_context ctx);
    /* thread_fn(arg, unit), or unit_fn(arg, its pool unit), for every unit queued in p, called
     * outside any lock of p (they may call goabt). ABT_ERR_POOL when p cannot list its units. */
    int (*print_all)(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                     void (*unit_fn)(void *, ABT_unit));
    /* Gives u what p needs of every unit it holds (a user pool's pool unit: ABT_ERR_MEM when
     * none was made), dropping what another pool gave it. NULL: nothing (a pool unit of
     * another pool is dropped). Called by goabt_pool_member_set only. */
    int (*associate)(goabt_pool *p, goabt_unit *u);
    /* Frees what the kind keeps for p (goabt_pool_delete: p is still a pool), or NULL. */
    void (*free)(goabt_pool *p);
    /* What info printing and the leak report call p's kind (GOABT_INFO_POOL_*, info_facts.h). */
    int (*info_kind)(const goabt_pool *p);
    unsigned flags; /* GOABT_POOL_OPS_* */
};
/* Its queue is p->head, tail and size under p->lock, which the engine's own locked sections
 * look into (hand-over, a yield alone, a sleeper's last look without a fence): the FIFO's. */
#define GOABT_POOL_OPS_LOCKED_QUEUE 1u
/* Its pushes order themselves with idle streams by the sleepers' membarrier when the kernel
 * lets us, not by a fence of their own (user C pools; pool.c, pushes_asym). */
#define GOABT_POOL_OPS_ASYM_PUSH 2u
/* The engine counts its units in p->counted (the kind raises it before a push is visible and
 * lowers it as it pops), so that emptiness is known without calling the kind; a push reads the
 * pop waiters' list after raising the count, without the pool's lock (the Go pools, whose
 * every call would cross into Go; pool.c, goabt_pool_wait_push). */
#define GOABT_POOL_OPS_COUNTED 4u

extern const struct goabt_pool_ops goabt_fifo_ops GOABT_HIDDEN;      /* pool.c */
extern const struct goabt_pool_ops goabt_user_pool_ops GOABT_HIDDEN; /* pool_user.c */
extern const struct goabt_pool_ops goabt_go_pool_ops GOABT_HIDDEN;   /* pool_go.c */

/* What one pool can do (p->caps), set when it is made: a user pool's depend on its definition. */
#define GOABT_POOL_CAN_SIZE 1u   /* tell its size (else only emptiness) */
#define GOABT_POOL_CAN_REMOVE 2u /* take out a unit that is not first (ABT_pool_remove, *_to) */
#define GOABT_POOL_CAN_LIST 4u   /* list its units (print_all) */

/* A pool (ABT_pool). Aligned to a pair of cache lines (handle memory from 256 bytes up is): the
 * adjacent-line prefetcher moves lines in pairs, and two streams' pools must not share one.
 * Three lines: what is read on every use and seldom written (the handle check's magic, the
 * kind, a user pool's data), the queue that every push and pop writes, and the rest. A ULT
 * that names a pool another stream pushes to and pops from (ABT_thread_migrate_to_pool,
 * ABT_pool_get_data in a user pool's functions) then reads a line that stays in its cache
 * (docs/performance.md, "pool lines"). */
struct __attribute__((aligned(128))) ABT_pool_opaque {
    /* ---- line 0: read on every use ---- */
    int kind;        /* ABT_POOL_FIFO, FIFO_WAIT or RANDWS (the FIFO's); -1 for other kinds */
    uint32_t magic;
    unsigned caps;   /* GOABT_POOL_CAN_* */
    /* This pool among all the pools the process ever made (never 0; set before the magic): a
     * unit holding a pool unit of a user pool notes it, and when it lets the unit go finds out
     * whether the pool is still the one it was made for (pool_user.c). */
    uint32_t serial;
    /* Its kind. Every push and pop reads it. */
    const struct goabt_pool_ops *ops;
    /* Set (under lock) when the pool is retired while ULTs parked on it may still come back:
     * pushes go there instead (xstream.c, replace_main_sched). */
    goabt_pool *forward;
    void *data; /* ABT_pool_set_data */
    /* What the pool's kind keeps for it, its own to read and write: a user-defined pool's copy
     * of its definition (pool_user.c), a Go pool's core.Pool id (pool_go.c); NULL for the FIFO. */
    void *kind_state;
    /* Callers blocked in ABT_pool_pop_wait* on it (goabt_pool_wait_push), under lock, its head
     * read without it: a push wakes one. */
    goabt_waitlist pop_waiters;
    /* ---- line 1: the queue ---- */
    int lock;        /* spinlock */
    goabt_unit *head, *tail; /* the FIFO's queue */
    size_t size;       /* the FIFO's queued units, atomic reads (0 for other kinds) */
    /* Parked ULTs that belong to this pool are num_parked - num_unparked (goabt_pool_num_blocked):
     * both written under the lock, parking in the locked section of a hand-over's pop when it
     * has one (unit_switch.c) and readying in the one its push takes anyway, so that a park and
     * wake usually cost no locked instruction of their own for the count. */
    long num_parked;   /* written under lock, atomic reads */
    long num_unparked; /* written under lock, atomic reads */
    struct goabt_sleeper *sleepers; /* idle streams asleep on it, under lock: a push wakes one */
    /* With GOABT_POOL_OPS_COUNTED: how many units it holds as the engine counts them (atomic; may
     * dip below 0 for an instant). 0 for other kinds. */
    long counted;
    /* ---- line 2: the rest ---- */
    int access;      /* ABT_pool_access (a hint, as in Argobots 1.2) */
    int automatic;   /* freed with the last scheduler that uses it */
    int id;
    int num_scheds;  /* schedulers using it, atomic */
};
_Static_assert(__builtin_offsetof(struct ABT_pool_opaque, lock) == 64 &&
                   __builtin_offsetof(struct ABT_pool_opaque, access) == 128,
               "a pool's lines as laid out above");

static inline int goabt_pool_can(goabt_pool *p, unsigned cap) { return (p->caps & cap) != 0; }

/* An idle stream's entry in the sleeper list of one of its scheduler's pools. */
typedef struct goabt_sleeper {
    struct goabt_sleeper *next, *prev;
    goabt_stream *stream;
    int linked;
} goabt_sleeper;

/* Pools (pool.c). */
/* A pool of kind ops with capabilities caps (GOABT_POOL_CAN_*); kind: its ABT_pool_kind, or -1.
 * NULL when out of memory. */
goabt_pool *goabt_pool_new(const struct goabt_pool_ops *ops, unsigned caps, int kind, int access,
                           int automatic) GOABT_HIDDEN;
/* A built-in FIFO pool (ABT_POOL_FIFO, FIFO_WAIT or RANDWS). */
goabt_pool *goabt_fifo_new(int kind, int access, int automatic) GOABT_HIDDEN;
void goabt_pool_delete(goabt_pool *p) GOABT_HIDDEN;
/* Queues u in p (or where p forwards to) and wakes one stream asleep on it, if any. */
void goabt_pool_push(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* The same, telling a user pool's push why (ABT_POOL_CONTEXT_OP_*: a creation, a yield ...);
 * goabt_pool_push tells ABT_POOL_CONTEXT_OP_POOL_OTHER. */
void goabt_pool_push_op(goabt_pool *p, goabt_unit *u, ABT_pool_context ctx) GOABT_HIDDEN;
/* The same for a parked ULT made ready again (ABT_POOL_CONTEXT_OP_THREAD_RESUME): it is no
 * longer counted as blocked in `counted`, the pool it parked in (its pool may have changed
 * since). */
void goabt_pool_push_unparked(goabt_pool *p, goabt_unit *u, goabt_pool *counted) GOABT_HIDDEN;
/* Both: a parked unit (counted: where it parked, or NULL) pushed for the reason ctx. */
void goabt_pool_push_from(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx)
    GOABT_HIDDEN;
/* What a push into a pool of a kind other than the FIFO owes once u is queued (its ops' push
 * ends with it): counted (when not NULL) uncounts the parked u, and one stream asleep on p is
 * woken. */
void goabt_pool_pushed(goabt_pool *p, goabt_pool *counted) GOABT_HIDDEN;
/* Parked ULTs that belong to p (they come back to it). */
static inline long goabt_pool_num_blocked(goabt_pool *p)
{
    /* Unparked first: a ULT counted there parked before, so its park is seen too. */
    long unparked = __atomic_load_n(&p->num_unparked, __ATOMIC_ACQUIRE);
    long n = __atomic_load_n(&p->num_parked, __ATOMIC_ACQUIRE) - unparked;
    GOABT_ASSERT_MSG(n >= 0, "pool %d: %ld blocked", p->id, n);
    return n;
}
goabt_unit *goabt_pool_pop(goabt_pool *p) GOABT_HIDDEN;
/* The same, telling a user pool's pop who asks (goabt_pool_pop: ABT_POOL_CONTEXT_OWNER_PRIMARY,
 * a scheduler popping its own pool; a stealer tells ABT_POOL_CONTEXT_OWNER_SECONDARY). */
goabt_unit *goabt_pool_pop_op(goabt_pool *p, ABT_pool_context ctx) GOABT_HIDDEN;
/* Whether yielder, yielding back into p, would be popped straight back by the scheduler's
 * round (p's turn having come): p is empty, and queueing yielder there would do no more than
 * queue it (no request of its to take up, p not retired, no thread in ABT_pool_pop_wait on p
 * to hand it to). It then goes on running. */
int goabt_pool_yield_alone(goabt_pool *p, goabt_unit *yielder) GOABT_HIDDEN;
/* Pops p's first unit if a ULT may switch to it straight, without a scheduler round (a ULT,
 * not the main ULT, no request pending): that unit. NULL if p is empty, or, with *stop set,
 * if its first unit is for the scheduler to run (or p is not a FIFO: only the scheduler pops
 * other kinds). When park is p, the caller, parking, is counted as blocked in p in the same
 * locked section (*counted set). yielder: the caller, yielding back into p, or NULL. When the
 * popped unit has run before (its context is made: nothing slow happens before the switch),
 * the yielder is queued at p's tail in the same locked section and p's lock is left held
 * (*requeued set): the caller switches to the unit, and releases the lock once its own context
 * is saved (goabt_pool_requeued), so that no stream can pop and run it before. */
goabt_unit *goabt_pool_pop_ult(goabt_pool *p, int *stop, goabt_pool *park, int *counted,
                               goabt_unit *yielder, int *requeued) GOABT_HIDDEN;
/* Ends a requeue (goabt_pool_pop_ult): u, queued in p, is ready; p's lock is released. */
void goabt_pool_requeued(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* Counts a parking ULT as blocked in p, its pool (undone by the push that readies it). */
void goabt_pool_count_parked(goabt_pool *p) GOABT_HIDDEN;
/* Pops, waiting until the CLOCK_REALTIME deadline (ns) for a unit if p is empty; NULL if none
 * came. The FIFO's (its ops' pop_wait). */
goabt_unit *goabt_pool_pop_wait(goabt_pool *p, uint64_t deadline) GOABT_HIDDEN;
/* Pops from any pool, waiting secs seconds (or until abstime, ABT_get_wtime's clock, when secs
 * is negative) if it is empty: its ops' pop_wait. NULL with *rc set when p cannot wait. */
goabt_unit *goabt_pool_pop_wait_for(goabt_pool *p, double secs, double abstime,
                                    ABT_pool_context ctx, int *rc) GOABT_HIDDEN;
/* 1 if u was queued in p (and is not now); 0 too when p cannot remove units. */
int goabt_pool_remove(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* The wait of ABT_pool_pop_wait* on p, a built-in or a Go pool, found empty: the caller waits
 * as every blocking caller does (wait.h: a ULT parks, anything else sleeps on its futex) in
 * p's pop_waiters until a push into p wakes it or the CLOCK_REALTIME deadline (ns) passes. 1
 * if woken, or if p was found not empty after all (pop again: another may have taken the
 * unit), 0 if timed out. */
int goabt_pool_wait_push(goabt_pool *p, uint64_t deadline) GOABT_HIDDEN;
/* After a push into p that took none of p's locks (a Go pool's), its count of units raised
 * (sequentially consistent): wakes one caller in goabt_pool_wait_push, if any. */
void goabt_pool_wake_pop_waiter(goabt_pool *p) GOABT_HIDDEN;
int goabt_pool_is_queued(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* ABT_pool_is_empty. */
int goabt_pool_is_empty(goabt_pool *p) GOABT_HIDDEN;
/* Through p's push_many / pop_many: 0 (nothing done) when its kind has none. */
int goabt_pool_push_many(goabt_pool *p, goabt_unit **units, size_t n, ABT_pool_context ctx)
    GOABT_HIDDEN;
int goabt_pool_pop_many(goabt_pool *p, goabt_unit **units, size_t len, size_t *num,
                        ABT_pool_context ctx) GOABT_HIDDEN;
/* thread_fn(arg, unit) (or unit_fn(arg, its pool unit)) for every unit queued in p, outside p's
 * locks. ABT_ERR_POOL when p cannot list them, ABT_ERR_MEM. */
int goabt_pool_print_all(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                         void (*unit_fn)(void *, ABT_unit)) GOABT_HIDDEN;
/* Whether u is ready and queued in no pool: popped by hand (or made held), so that whoever has
 * it may push it or run it. */
int goabt_unit_in_no_pool(goabt_unit *u) GOABT_HIDDEN;
void goabt_pool_release(goabt_pool *p) GOABT_HIDDEN; /* a scheduler stops using p */
/* Retires p (no scheduler uses it any more, ULTs parked on it may still come back): its queued
 * units move to `to`, and so does every later push. p's memory is kept until finalize. */
void goabt_pool_retire(goabt_pool *p, goabt_pool *to) GOABT_HIDDEN;
void goabt_pools_free_retired(void) GOABT_HIDDEN;
/* An idle stream lists itself in p's sleepers, or takes itself off (both under p's lock, which
 * is what lets goabt_pool_push see a sleeper without a fence). */
void goabt_pool_sleeper_add(goabt_pool *p, goabt_sleeper *n) GOABT_HIDDEN;
void goabt_pool_sleeper_remove(goabt_pool *p, goabt_sleeper *n) GOABT_HIDDEN;
/* An idle stream listed in the sleepers of pools[0..n) orders that before its last look at
 * them (goabt_pool_size_locked): a push into a pool other than a FIFO looks at its sleepers
 * without taking the pool's lock. 1, or 0 if it could not (the caller then sleeps briefly,
 * not for good). */
int goabt_pool_sleepers_fence(goabt_pool **pools, int n) GOABT_HIDDEN;
/* p's size read under its lock (a scheduler's last look before it sleeps). */
size_t goabt_pool_size_locked(goabt_pool *p) GOABT_HIDDEN;
/* p's queued units now (without GOABT_POOL_CAN_SIZE: 1 when not empty). */
size_t goabt_pool_size(goabt_pool *p) GOABT_HIDDEN;
/* A parked ULT of p runs again without going through p (a direct switch): uncounted. */
void goabt_pool_uncount_parked(goabt_pool *p) GOABT_HIDDEN;
/* Wakes one stream asleep on p, if any (after a push that did not take p's lock). */
void goabt_pool_wake_sleeper(goabt_pool *p) GOABT_HIDDEN;

/* User-defined pools (pool_user.c). */
struct goabt_pool_user;
/* A new user pool over pu, a copy of its definition that it owns from now on (not yet
 * initialized: ABT_pool_create calls its init). NULL when out of memory (pu is not freed). */
goabt_pool *goabt_user_pool_new(struct goabt_pool_user *pu, int access, int automatic)
    GOABT_HIDDEN;

/* Pools and schedulers written in Go (pool_go.c). */
/* A pool goabt makes itself (ABT_pool_create_basic, the pools of predefined, default and user
 * schedulers given none): the Go pool GOABT_POOL names, or a built-in one of kind. NULL when
 * out of memory. */
goabt_pool *goabt_pool_new_predef(int kind, int access, int automatic) GOABT_HIDDEN;
/* A new Go pool (goabt_pool_create_go): the one registered as name (NULL: GOABT_POOL's).
 * ABT_ERR_INV_ARG if there is none, ABT_ERR_MEM when out of memory. */
int goabt_pool_new_go(const char *name, int access, int automatic, goabt_pool **out) GOABT_HIDDEN;

/* User-defined pools' definitions (pool_user.c). */
/* The first int of an ABT_pool_user_def made by ABT_pool_user_def_create: no ABT_pool_access,
 * which is where an older struct ABT_pool_def has its access. */
#define GOABT_USER_DEF_TAG 0x7fdefde5

/* What ABT_pool_user_def_create makes. */
typedef struct goabt_pool_user_def {
    int tag;        /* GOABT_USER_DEF_TAG */
    uint32_t magic; /* GOABT_MAGIC_POOL_USER_DEF */
    ABT_pool_user_create_unit_fn create_unit;
    ABT_pool_user_free_unit_fn free_unit;
    ABT_pool_user_is_empty_fn is_empty;
    ABT_pool_user_pop_fn pop;
    ABT_pool_user_push_fn push;
    ABT_pool_user_init_fn init;
    ABT_pool_user_free_fn free;
    ABT_pool_user_get_size_fn get_size;
    ABT_pool_user_pop_wait_fn pop_wait;
    ABT_pool_user_pop_many_fn pop_many;
    ABT_pool_user_push_many_fn push_many;
    ABT_pool_user_print_all_fn print_all;
} goabt_pool_user_def;
/* A new definition with these functions and no optional one (ABT_pool_user_def_create), or
 * NULL when out of memory. */
goabt_pool_user_def *goabt_pool_user_def_new(ABT_pool_user_create_unit_fn create_unit,
                                             ABT_pool_user_free_unit_fn free_unit,
                                             ABT_pool_user_is_empty_fn is_empty,
                                             ABT_pool_user_pop_fn pop, ABT_pool_user_push_fn push)
    GOABT_HIDDEN;

/* A pool's copy of its definition. */
struct goabt_pool_user {
    int old_style;     /* functions in `old`, else in `def` */
    goabt_pool_user_def def;
    struct ABT_pool_def old;
};

#endif /* GOABT_POOL_H */
