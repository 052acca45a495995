/*
 * pool.h: pools (ABT_pool): goabt's FIFO and the push and pop every engine path goes through
 * (pool.c), user-defined pools (pool_user.c) and pools written in Go (pool_go.c). Internal.
 *
 * A unit is queued in at most one pool at a time, its associated pool (unit->pool), which is
 * where it goes back to when it yields or is made ready. The engine reaches every pool through
 * goabt_pool_push / pop / remove / size: the FIFO inline, a user pool's functions otherwise.
 * A push wakes one idle stream among those asleep on that pool (its sleepers); parked ULTs
 * stay counted in the pool they parked in (goabt_pool_num_blocked).
 */
#ifndef GOABT_POOL_H
#define GOABT_POOL_H

#include "common.h"

/* A pool (ABT_pool): a FIFO queue of ready units under a spinlock. Aligned to a pair of cache
 * lines (handle memory from 256 bytes up is): the adjacent-line prefetcher moves lines in
 * pairs, and two streams' pools must not share one. */
struct __attribute__((aligned(128))) ABT_pool_opaque {
    int kind;        /* ABT_POOL_FIFO or ABT_POOL_FIFO_WAIT */
    uint32_t magic;
    int access;      /* ABT_pool_access (a hint, as in Argobots 1.2) */
    int automatic;   /* freed with the last scheduler that uses it */
    int id;
    int num_scheds;  /* schedulers using it, atomic */
    int lock;        /* spinlock */
    /* A user-defined pool's functions (ABT_pool_create), or NULL for goabt's FIFO, whose queue
     * is head/tail. Every engine path goes through goabt_pool_push/pop/remove/size, which take
     * the FIFO inline and call the user's functions otherwise (pool_user.c). On the line of the
     * queue: every push reads it. */
    struct goabt_pool_user *user;
    goabt_unit *head, *tail;
    int pop_waiters;   /* callers in ABT_pool_pop_wait* on it, under lock: a push signals them */
    size_t size;       /* queued units, atomic reads */
    /* Parked ULTs that belong to this pool are num_parked - num_unparked (goabt_pool_num_blocked):
     * both written under the lock, parking in the locked section of a hand-over's pop when it
     * has one (unit.c) and readying in the one its push takes anyway, so that a park and wake
     * usually cost no locked instruction of their own for the count. */
    long num_parked;   /* written under lock, atomic reads */
    long num_unparked; /* written under lock, atomic reads */
    struct goabt_sleeper *sleepers; /* idle streams asleep on it, under lock: a push wakes one */
    int pushers;       /* atomic: pushes still signalling pop_waiters after its lock */
    /* Set (under lock) when the pool is retired while ULTs parked on it may still come back:
     * pushes go there instead (xstream.c, replace_main_sched). */
    goabt_pool *forward;
    pthread_mutex_t wait_mutex; /* ABT_pool_pop_wait* sleeps here */
    pthread_cond_t wait_cond;
    void *data; /* ABT_pool_set_data */
    /* A Go pool (pool_go.c, a user pool of goabt's own): the id of its core.Pool, and how many
     * units it holds as the engine counts them (atomic; may dip below 0 for an instant), so
     * that emptiness checks never call Go. 0 and 0 for every other pool. */
    int go_id;
    long go_size;
    /* Work units holding a pool unit of this user pool (atomic), and POOL_UNITS_GONE once the
     * pool is freed: a freed pool that finished, not yet freed units still name stays as a
     * record until the last of them lets go (pool_user.c). */
    unsigned long user_units;
};
#define GOABT_POOL_UNITS_GONE (1ul << 62)

/* An idle stream's entry in the sleeper list of one of its scheduler's pools. */
typedef struct goabt_sleeper {
    struct goabt_sleeper *next, *prev;
    goabt_stream *stream;
    int linked;
} goabt_sleeper;

/* Pools (pool.c). */
goabt_pool *goabt_pool_new(int kind, int access, int automatic) GOABT_HIDDEN;
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
/* Pops p's first unit if a ULT may switch to it straight, without a scheduler round (a ULT,
 * not the main ULT, no request pending): that unit. NULL if p is empty, or, with *stop set,
 * if its first unit is for the scheduler to run (or p is a user pool). When park is p, the
 * caller, parking, is counted as blocked in p in the same locked section (*counted set).
 * yielder: the caller, yielding back into p, or NULL. When the popped unit has run before (its
 * context is made: nothing slow happens before the switch), the yielder is queued at p's tail
 * in the same locked section and p's lock is left held (*requeued set): the caller switches to
 * the unit, and releases the lock once its own context is saved (goabt_pool_requeued), so that
 * no stream can pop and run it before. */
/* Whether yielder, yielding back into p, would be popped straight back by the scheduler's
 * round (p's turn having come): p is empty, and queueing yielder there would do no more than
 * queue it (no request of its to take up, p not retired, no thread in ABT_pool_pop_wait on p
 * to hand it to). It then goes on running. */
int goabt_pool_yield_alone(goabt_pool *p, goabt_unit *yielder) GOABT_HIDDEN;
goabt_unit *goabt_pool_pop_ult(goabt_pool *p, int *stop, goabt_pool *park, int *counted,
                               goabt_unit *yielder, int *requeued) GOABT_HIDDEN;
/* Ends a requeue (goabt_pool_pop_ult): u, queued in p, is ready; p's lock is released. */
void goabt_pool_requeued(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* Counts a parking ULT as blocked in p, its pool (undone by the push that readies it). */
void goabt_pool_count_parked(goabt_pool *p) GOABT_HIDDEN;
/* Pops, waiting until the CLOCK_REALTIME deadline (ns) for a unit if p is empty; NULL if none
 * came. Built-in pools only. */
goabt_unit *goabt_pool_pop_wait(goabt_pool *p, uint64_t deadline) GOABT_HIDDEN;
int goabt_pool_remove(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN; /* 1 if u was queued in p */
int goabt_pool_is_queued(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
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
 * them (goabt_pool_size_locked): a user pool's push looks at its sleepers without taking the
 * pool's lock. 1, or 0 if it could not (the caller then sleeps briefly, not for good). */
int goabt_pool_sleepers_fence(goabt_pool **pools, int n) GOABT_HIDDEN;
/* p's size read under its lock (a scheduler's last look before it sleeps). */
size_t goabt_pool_size_locked(goabt_pool *p) GOABT_HIDDEN;
/* p's queued units now (a user pool without get_size: 1 when not empty). */
size_t goabt_pool_size(goabt_pool *p) GOABT_HIDDEN;
/* A parked ULT of p runs again without going through p (a direct switch): uncounted. */
void goabt_pool_uncount_parked(goabt_pool *p) GOABT_HIDDEN;
/* Wakes one stream asleep on p, if any (after a push that did not take p's lock). */
void goabt_pool_wake_sleeper(goabt_pool *p) GOABT_HIDDEN;

/* User-defined pools (pool_user.c): the engine's side of their functions. */
void goabt_user_pool_push(goabt_pool *p, goabt_unit *u, ABT_pool_context ctx) GOABT_HIDDEN;
goabt_unit *goabt_user_pool_pop(goabt_pool *p, ABT_pool_context ctx) GOABT_HIDDEN;
int goabt_user_pool_remove(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN; /* 1 if it was queued */
size_t goabt_user_pool_size(goabt_pool *p) GOABT_HIDDEN;
void goabt_user_pool_free(goabt_pool *p) GOABT_HIDDEN; /* calls the user's free, drops the copy */
/* Pops through the pool's own waiting pop: a definition's pop_wait gets secs, an older one's
 * p_pop_timedwait gets abstime (ABT_get_wtime's clock), each as the caller gave it, the other
 * worked out from it (give the one not known as a negative number). ABT_ERR_POOL in *rc when
 * the pool has no waiting pop. */
goabt_unit *goabt_user_pool_pop_wait(goabt_pool *p, double secs, double abstime,
                                     ABT_pool_context ctx, int *rc) GOABT_HIDDEN;
/* ABT_pool_is_empty of a user pool: its is_empty (a definition), or its size (older ones). */
int goabt_user_pool_is_empty(goabt_pool *p) GOABT_HIDDEN;
/* print_all_threads of a user pool with a definition: the caller's arg and function, as they
 * are. ABT_ERR_POOL when it has no print_all. */
int goabt_user_pool_print_threads(goabt_pool *p, void *arg, void (*fn)(void *, ABT_thread))
    GOABT_HIDDEN;
int goabt_user_pool_can_remove(goabt_pool *p) GOABT_HIDDEN;
/* Through the pool's push_many / pop_many: 0 (nothing done) when it has none. The units pushed
 * have their pool units of p already. */
int goabt_user_pool_push_many(goabt_pool *p, goabt_unit **units, size_t n, ABT_pool_context ctx)
    GOABT_HIDDEN;
int goabt_user_pool_pop_many(goabt_pool *p, goabt_unit **units, size_t len, size_t *num,
                             ABT_pool_context ctx) GOABT_HIDDEN;
int goabt_user_pool_print_all(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                              void (*unit_fn)(void *, ABT_unit)) GOABT_HIDDEN;
/* Gives u a pool unit of p if p is a user pool (ABT_ERR_MEM if its create_unit made none),
 * dropping one of another pool. */
int goabt_pool_associate(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* Whether p can tell its size (built-in pools, user pools with get_size). */
int goabt_user_pool_has_size(goabt_pool *p) GOABT_HIDDEN;

/* Pools and schedulers written in Go (pool_go.c). */
/* A pool goabt makes itself (ABT_pool_create_basic, the pools of predefined, default and user
 * schedulers given none): the Go pool GOABT_POOL names, or a built-in one of kind. NULL when
 * out of memory. */
goabt_pool *goabt_pool_new_predef(int kind, int access, int automatic) GOABT_HIDDEN;
/* A user pool of goabt's own (pool_user.c, for pool_go.c): def's functions, pool units that
 * are the work units themselves (no create_unit, no table), and remove, when not NULL, for
 * ABT_pool_remove and yield_to. NULL when out of memory or def is invalid. */
goabt_pool *goabt_own_pool_new(ABT_pool_user_def def, int (*remove)(ABT_pool, ABT_unit),
                               int access, int automatic) GOABT_HIDDEN;

/* A new Go pool (goabt_pool_create_go): the one registered as name (NULL: GOABT_POOL's).
 * ABT_ERR_INV_ARG if there is none, ABT_ERR_MEM when out of memory. */
int goabt_pool_new_go(const char *name, int access, int automatic, goabt_pool **out) GOABT_HIDDEN;

/* User-defined pools' definitions (pool_user.c; made by api/pool_user.c). */
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

/* A pool's copy of its definition. */
struct goabt_pool_user {
    int old_style;     /* functions in `old`, else in `def` */
    /* A pool of goabt's own (goabt_own_pool_new: Go pools): its pool units are the work units,
     * made and freed by nobody, in no table, and not recorded in pool_unit_of; it may remove
     * units with `remove`. */
    int own;
    int (*remove)(ABT_pool, ABT_unit);
    goabt_pool_user_def def;
    struct ABT_pool_def old;
};

#endif /* GOABT_POOL_H */
