/* wait.h: wait lists, how every blocking operation waits (join, stream join, each
 * synchronization object, ABT_pool_pop_wait* on built-in and Go pools: pool.c,
 * goabt_pool_wait_push), and deadlines.
 *
 * Every block goes through park and wake. A blocked caller is a waiter, usually on its own
 * stack. It is a parked ULT (goabt_unit_park: its stream runs other units meanwhile; the main
 * ULT included) or an OS thread asleep on the waiter's futex word (external threads, tasklets,
 * a scheduler's own context: they have no ULT context of their own to save). ABT_self_suspend
 * is a park too, without a waiter: only a resume readies it (unit_block.c). What blocks
 * otherwise, and why: an idle stream (no unit is blocked: its scheduler found no work) sleeps
 * on its own futex word until a push or a request (sched.c); a join of a tasklet polls its
 * state, as Argobots' does (unit_join.c); a user-defined pool's own
 * pop_wait blocks as its author wrote it; and a few spin-waits for another thread a few
 * instructions from done (goabt_backoff), which are no blocks.
 * An object keeps its waiters in a goabt_waitlist under its own spinlock:
 *
 *     goabt_spin_lock(&obj->lock);
 *     if (can go on) { ...; goabt_spin_unlock(&obj->lock); return; }
 *     goabt_waiter w;
 *     goabt_waiter_init(&w, tag, deadline);
 *     goabt_waitlist_push(&obj->waiters, &w);
 *     int status = goabt_wait(&w, &obj->lock);   // releases the lock: ULTs only once parked
 *
 * and a waker pops a waiter under the same lock and calls goabt_wake on it. A waiter's status
 * moves off WAITING exactly once, by a CAS: to WOKEN by goabt_wake, or to TIMEDOUT at its
 * deadline, so a waker whose waiter timed out meanwhile learns it (goabt_wake returns 0) and
 * passes the wake-up on. A ULT readied from a wait may be cancelled before it returns
 * (ABT_thread_cancel ends it there): a waiter with something left to do after the wait (pass on
 * a mutex its wake handed it ...) carries a `cancelled` hook, which the cancel runs instead.
 * Deadlines are CLOCK_REALTIME nanoseconds (the clock of the absolute timespecs
 * ABT_cond_timedwait and ABT_eventual_timedwait take); a parked ULT with a deadline
 * sits in one timer list that every scheduler checks, and an idle stream sleeps no later than
 * the earliest deadline: no polling.
 */
#ifndef GOABT_WAIT_H
#define GOABT_WAIT_H

#include <limits.h>
#include <stdint.h>
#include <time.h>
#include "common.h"
#include "stream.h"
#include "unit.h"

enum { GOABT_WAIT_WAITING = 0, GOABT_WAIT_WOKEN = 1, GOABT_WAIT_TIMEDOUT = 2 };

struct goabt_waiter {
    goabt_waiter *next, *prev; /* in the object's wait list (or a joiner stack: next only) */
    goabt_unit *unit;          /* the parked ULT, or NULL: an OS thread asleep on `word` */
    int word;                  /* futex word of a sleeping thread: 1 once woken */
    int status;                /* GOABT_WAIT_*, atomic */
    int linked;                /* in `list` (under *lock) */
    int timed;                 /* in the timer list (under the timer lock) */
    uintptr_t tag;             /* the object's: reader or writer, priority, join target ... */
    uint64_t deadline;         /* CLOCK_REALTIME ns, 0 for none */
    int *lock;                 /* the object's spinlock and list: a timeout unlinks w */
    struct goabt_waitlist *list;
    goabt_waiter *tnext, *tprev; /* in the timer list */
    /* What a goabt_wait caller waits on (goabt_waiter_on), for the tool interface and the
     * trace: an ABT_sync_event_type and the object's handle. Set by the synchronization
     * objects, and by goabt_joiners_wait for joins; every park passes them on. */
    int sync_type;
    void *sync;
    /* Set by objects whose waiter has something left to do after the wait (pass on a mutex or
     * lock its wake handed it, tidy up after a timeout): called instead when the readied ULT is
     * cancelled before it runs on (ABT_thread_cancel ends it without returning from the wait);
     * `status` says whether it was woken or timed out. NULL: nothing to do. */
    void (*cancelled)(goabt_waiter *w);
};

/* goabt_waitlist, a FIFO of waiters, is in common.h. */

/* Prepares w for the calling unit or thread: a ULT (the main ULT too) parks, anything else
 * sleeps on a futex. deadline: CLOCK_REALTIME ns, or 0. */
void goabt_waiter_init(goabt_waiter *w, uintptr_t tag, uint64_t deadline) GOABT_HIDDEN;

/* Says what w, about to go to goabt_wait, waits on (ABT_SYNC_EVENT_TYPE_MUTEX and the mutex's
 * handle ...): what a tool's suspend event and the trace's block report. Every caller of
 * goabt_wait sets it. */
static inline void goabt_waiter_on(goabt_waiter *w, int sync_type, void *sync)
{
    w->sync_type = sync_type;
    w->sync = sync;
}


/* u, woken from goabt_wait (or timed out), ends by cancellation before it returns from it:
 * runs its waiter's `cancelled`. unit_join.c, with u held by the canceller. A unit that waits by
 * yielding (mutex.c) sets u->waiting to a waiter of its own, in no list, for the same end. */
void goabt_wait_cancelled(goabt_unit *u) GOABT_HIDDEN;

/* Whether the caller would park (a ULT) rather than sleep as an OS thread. */
int goabt_caller_parks(void) GOABT_HIDDEN;
/* Whether the caller is a tasklet: Argobots 1.x refuses the untimed waits of most objects to
 * tasklets, which cannot be suspended (each object returns its own error code). */
static inline int goabt_caller_is_tasklet(void)
{
    goabt_unit *self = goabt_self_unit();
    return self != NULL && self->kind == GOABT_TASKLET;
}

/* List operations; the caller holds the list's lock. */
void goabt_waitlist_push(goabt_waitlist *l, goabt_waiter *w) GOABT_HIDDEN;
void goabt_waitlist_push_front(goabt_waitlist *l, goabt_waiter *w) GOABT_HIDDEN;
/* Inserts w after `after`, a waiter in l, or at the front when after is NULL. */
void goabt_waitlist_insert_after(goabt_waitlist *l, goabt_waiter *after, goabt_waiter *w)
    GOABT_HIDDEN;
goabt_waiter *goabt_waitlist_pop(goabt_waitlist *l) GOABT_HIDDEN;
void goabt_waitlist_remove(goabt_waitlist *l, goabt_waiter *w) GOABT_HIDDEN;
static inline int goabt_waitlist_empty(const goabt_waitlist *l) { return l->head == NULL; }
/* How many wait in l (under the owner's lock): for the waiting-state queries of goabt.h. */
static inline int goabt_waitlist_count(const goabt_waitlist *l)
{
    int n = 0;
    for (const goabt_waiter *w = l->head; w != NULL; w = w->next) n++;
    return n;
}

/* Blocks the caller until w is woken or its deadline passes. The caller holds *lock and has
 * pushed w on a list that *lock guards; goabt_wait releases the lock (a ULT's only once it is
 * parked, so no wake-up can be missed) and returns without it: GOABT_WAIT_WOKEN or
 * GOABT_WAIT_TIMEDOUT (w is then off the list). */
int goabt_wait(goabt_waiter *w, int *lock) GOABT_HIDDEN;

/* Wakes w, which the caller took off its list: 1 if w was waiting and will now run, 0 if it
 * had already timed out (its waker should wake the next one instead). w may be gone once this
 * returns 1. */
int goabt_wake(goabt_waiter *w) GOABT_HIDDEN;

/* goabt_wake in two halves, for a waker that must release the object's lock before the woken
 * run (a woken waiter may free the object: an eventual on its stack, say). claim, under the
 * lock: 1 if w is now the caller's to wake, 0 if it timed out (skip it; it leaves by itself).
 * finish, after the lock is released: w runs. A claimed waiter stays valid until finished. */
int goabt_wake_claim(goabt_waiter *w) GOABT_HIDDEN;
void goabt_wake_finish(goabt_waiter *w) GOABT_HIDDEN;
/* The same for many: takes the first waiter of l that it can claim (every one with all) off l,
 * under its lock, and returns them linked by `next`; goabt_wake_claimed, after the lock is
 * released, wakes them all. */
goabt_waiter *goabt_waitlist_claim(goabt_waitlist *l, int all) GOABT_HIDDEN;
void goabt_wake_claimed(goabt_waiter *claimed) GOABT_HIDDEN;

/* Joiner stacks (unit and stream joins): w joins *joiners unless it is GOABT_JOIN_DONE, and
 * then waits; returns when the owner called goabt_joiners_finish. sync_type and target: what it
 * joins (ABT_SYNC_EVENT_TYPE_THREAD_JOIN and the unit, or _XSTREAM_JOIN and the stream). */
void goabt_joiners_wait(goabt_waiter **joiners, goabt_waiter *w, int sync_type, void *target)
    GOABT_HIDDEN;
/* Takes every joiner off *joiners, marks it done; wake them with goabt_joiners_wake. */
static inline goabt_waiter *goabt_joiners_take(goabt_waiter **joiners)
{
    return __atomic_exchange_n(joiners, GOABT_JOIN_DONE, __ATOMIC_ACQ_REL);
}
void goabt_joiners_wake(goabt_waiter *list) GOABT_HIDDEN;

/* Time. */
uint64_t goabt_now_ns(void) GOABT_HIDDEN; /* CLOCK_REALTIME */
/* CLOCK_MONOTONIC in ns: for spans (the idle spin, a waiter's starvation), not deadlines. */
static inline uint64_t goabt_monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}
/* ABT_get_wtime's clock: seconds, CLOCK_MONOTONIC. */
static inline double goabt_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1.0e-9;
}
/* Deadlines saturate: one past what 64 bits of nanoseconds hold (the year 2554) is
 * GOABT_DEADLINE_NEVER, a deadline that never comes, never a wrapped one in the past. */
#define GOABT_DEADLINE_NEVER UINT64_MAX
static inline uint64_t goabt_timespec_ns(const struct timespec *t)
{
    /* Never 0, which means "no deadline": the epoch itself, or before it, is long past. */
    if (t->tv_sec < 0) return 1;
    uint64_t nsec = t->tv_nsec > 0 ? (uint64_t)t->tv_nsec : 0;
    if ((uint64_t)t->tv_sec >= (GOABT_DEADLINE_NEVER - nsec) / 1000000000ull) return GOABT_DEADLINE_NEVER;
    uint64_t ns = (uint64_t)t->tv_sec * 1000000000ull + nsec;
    return ns != 0 ? ns : 1;
}
/* The CLOCK_REALTIME deadline secs seconds after now (ns), saturated; now itself for secs <= 0
 * or NaN. INFINITY and anything past 2554 are GOABT_DEADLINE_NEVER. */
static inline uint64_t goabt_deadline_after(uint64_t now, double secs)
{
    if (!(secs > 0)) return now;
    double ns = secs * 1e9;
    if (ns >= (double)(GOABT_DEADLINE_NEVER - now)) return GOABT_DEADLINE_NEVER;
    return now + (uint64_t)ns;
}
/* Nanoseconds from now to deadline (after now), as a long long that does not overflow. */
static inline long long goabt_ns_until(uint64_t deadline, uint64_t now)
{
    uint64_t left = deadline - now;
    return left > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)left;
}

/* The timer list (parked ULTs with a deadline). */
extern uint64_t goabt_timers_earliest GOABT_HIDDEN; /* atomic; 0: no timer */
/* Wakes every parked ULT whose deadline has passed (schedulers call it when earliest is due). */
void goabt_timers_fire(void) GOABT_HIDDEN;
static inline int goabt_timers_due(void)
{
    uint64_t e = __atomic_load_n(&goabt_timers_earliest, __ATOMIC_ACQUIRE);
    return e != 0 && goabt_now_ns() >= e;
}

#endif /* GOABT_WAIT_H */
