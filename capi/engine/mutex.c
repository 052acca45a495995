//go:build goabt_c_engine
/* mutex.c: mutexes, their slow paths: waiting, queueing by priority, hand-over to a starving
 * waiter, and what condition variables need (the algorithm: mutex.h; the fast paths are inline
 * there; the API's entries: api/mutex.c). */
#include <time.h>
#include "mutex.h"
#include "object.h"
#include "runtime.h"
#include "stream.h"

__thread char goabt_mutex_thread_marker;

/* The mark of a hand-over to the ULT waiting in w, not yet claimed. */
static uintptr_t handed_mark(goabt_waiter *w) { return (uintptr_t)w | 1; }

/* Takes the hand-over marked in m's owner for `who` (the ULT handed m, when it runs; or a
 * stream-holding waiter taking it from that ULT): 1 if it got it. */
static int claim_handed(goabt_mutex *m, uintptr_t mark, uintptr_t who)
{
    GOABT_ASSERT((mark & 1) && (who & 1) == 0);
    GOABT_ASSERT_MSG(__atomic_load_n(&m->locked, __ATOMIC_RELAXED) != 0,
                     "a handed mutex stays held until claimed");
    return __atomic_compare_exchange_n(&m->owner, &mark, who, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* Whether the caller holds a stream's thread and cannot park: a tasklet, or code running on a
 * stream's own context (a scheduler). */
static int caller_holds_stream(void) { return !goabt_caller_parks() && goabt_self_stream() != NULL; }

/* A woken waiter that keeps losing the mutex to running callers asks for it to be handed over
 * once it has waited this long (Go's sync.Mutex starvation mode uses the same bound). */
#define STARVING_NS 1000000ull

/* Before it queues, a ULT that finds m held by a holder nobody waits for yields and looks
 * again, up to YIELD_TRIES times: the other units of its stream run meanwhile, as they would
 * while it waited, and a holder that unlocks in between (a short critical section, or one
 * that yields inside it) frees m without a wake-up, nobody being queued. What a park and a
 * wake-up cost (two switches' worth of locked queue operations) is paid once per YIELD_TRIES
 * lost races instead of every time. Once someone is queued (m marked 2) it queues too, behind
 * them; lock_high and lock_low always queue, so that their order holds. Returns whether it took
 * m. */
#define YIELD_TRIES 16

static void yielder_cancelled(goabt_waiter *w) /* a yield_for waiter, in no list */
{
    goabt_mutex *m = w->sync;
    __atomic_sub_fetch(&m->yielders, 1, __ATOMIC_RELAXED);
}

static int yield_for(goabt_mutex *m, uintptr_t me)
{
    /* Counted, so that ABT_mutex_free refuses a mutex they wait for, as one with queued
     * waiters; a yielder cancelled at one of its yields ends there, and its waiter, in no
     * list, says what to undo (goabt_wait_cancelled). */
    __atomic_add_fetch(&m->yielders, 1, __ATOMIC_RELAXED);
    goabt_unit *self = goabt_self_unit();
    goabt_waiter w;
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_MUTEX, m); /* what the hang report reads */
    w.deadline = 0;
    w.cancelled = yielder_cancelled;
    self->waiting = &w;
    int took = 0;
    for (int i = 0; i < YIELD_TRIES && !took; i++) {
        int held = __atomic_load_n(&m->locked, __ATOMIC_RELAXED);
        if (held == 2) break;
        if (held == 0 && goabt_mutex_try_take(m, me)) took = 1;
        if (!took) goabt_unit_yield();
    }
    if (!took) took = goabt_mutex_try_take(m, me);
    self->waiting = NULL;
    __atomic_sub_fetch(&m->yielders, 1, __ATOMIC_RELAXED);
    return took;
}

/* Queues w by priority: a first-time waiter behind those of its class, one woken that lost the
 * race at the front of its class (it has waited longest). */
static void queue_waiter(goabt_mutex *m, goabt_waiter *w, int prio, int again)
{
    GOABT_ASSERT_LOCKED(&m->lock);
    GOABT_ASSERT_MSG(__atomic_load_n(&m->locked, __ATOMIC_RELAXED) == 2,
                     "a mutex with waiters is marked 2, so that its unlock wakes them");
    GOABT_ASSERT((int)(w->tag & MUTEX_PRIO) == prio);
    if (prio == MUTEX_LOW) {
        if (again) {
            goabt_waitlist_push_front(&m->low, w);
        } else {
            goabt_waitlist_push(&m->low, w);
        }
        return;
    }
    if (prio == MUTEX_NORMAL && !again) {
        goabt_waitlist_push(&m->waiters, w);
        return;
    }
    /* High: behind earlier high ones unless again; normal again: behind every high one (a rare
     * path: walk them). */
    goabt_waiter *after = NULL;
    if (prio == MUTEX_NORMAL || !again) {
        for (goabt_waiter *q = m->waiters.head; q != NULL && (q->tag & MUTEX_PRIO) == MUTEX_HIGH;
             q = q->next) {
            after = q;
        }
    }
    goabt_waitlist_insert_after(&m->waiters, after, w);
}

static void mutex_waiter_cancelled(goabt_waiter *w);

/* The slow path of a lock: m was held. The caller waits until an unlock wakes it, then tries
 * again; a running caller may have taken m in between (barging, as Argobots, pthread and Go
 * mutexes allow: a woken waiter takes a while to run, and keeping m free meanwhile is what
 * makes a contended mutex fast). One that has waited STARVING_NS is handed m directly. */
__attribute__((noinline)) void goabt_mutex_lock_slow(goabt_mutex *m, int prio, uintptr_t me)
{
    if ((goabt_mutex_flags(m) & GOABT_MUTEX_RECURSIVE) && goabt_mutex_owned_by(m, me)) {
        GOABT_ASSERT(m->nesting >= 0 && __atomic_load_n(&m->locked, __ATOMIC_RELAXED) != 0);
        m->nesting++;
        return;
    }
    GOABT_ASSERT_MSG(!goabt_mutex_owned_by(m, me), "a plain mutex locked again by its holder deadlocks");
    uint64_t since = 0;
    unsigned retries = 0;
    int starving = 0;
    int yields = prio == MUTEX_NORMAL && goabt_caller_parks();
    int holds_stream = caller_holds_stream();
    int others = 0; /* woken with others queued: it marks m for them before anything else */
    for (int again = 0;; again = 1) {
        if (yields && !starving && !others && yield_for(m, me)) {
            goabt_mutex_set_owner(m, me);
            return;
        }
        goabt_spin_lock(&m->lock);
        /* Marked "maybe waited for" before queueing: the holder's unlock then comes this way.
         * If the mutex was free meanwhile, the mark makes it ours (its unlock finds whoever
         * queued since). */
        if (__atomic_exchange_n(&m->locked, 2, __ATOMIC_ACQUIRE) == 0) {
            goabt_spin_unlock(&m->lock);
            goabt_mutex_set_owner(m, me);
            return;
        }
        /* Handed to a ULT that has not run since: ours instead (it waits again when it runs). */
        uintptr_t owner = __atomic_load_n(&m->owner, __ATOMIC_ACQUIRE);
        if (holds_stream && (owner & 1) && claim_handed(m, owner, me)) {
            goabt_spin_unlock(&m->lock);
            return;
        }
        uintptr_t tag = (uintptr_t)prio;
        if (holds_stream) {
            tag |= MUTEX_STREAM;
            __atomic_or_fetch(&m->flags, MUTEX_HAS_STREAM, __ATOMIC_RELAXED);
        }
        /* The clock is read every 16th retry only: a retry costs about 100 ns. */
        if (again && (++retries & 15) == 1) {
            uint64_t now = goabt_monotonic_ns();
            if (since == 0) since = now;
            if (now - since >= STARVING_NS) starving = 1;
        }
        if (starving) tag |= MUTEX_STARVING;
        goabt_waiter w;
        goabt_waiter_init(&w, tag, 0);
        goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_MUTEX, m);
        w.cancelled = mutex_waiter_cancelled;
        queue_waiter(m, &w, prio, again);
        goabt_wait(&w, &m->lock);
        GOABT_ASSERT_MSG(w.status == GOABT_WAIT_WOKEN && !w.linked, "lock waits have no deadline");
        /* Handed m: `locked` was never released in between. A ULT claims it first: a waiter
         * holding a stream may have taken it (then this one waits again, first in line). */
        if (w.tag & MUTEX_HANDED) {
            if (w.unit == NULL) break;
            if (claim_handed(m, handed_mark(&w), me)) return;
            others = 0;
            continue;
        }
        others = (w.tag & MUTEX_OTHERS) != 0;
    }
    goabt_mutex_set_owner(m, me);
}

/* The slow path of a release: m is marked 2, so waiters may be queued. They queue under the
 * spinlock, so with it held the list is complete, and no fast locker can take m meanwhile (it
 * is not 0). The first waiter is woken with m free (it races running callers for it), or,
 * if it is starving, handed m still held. Returns whether a waiter was woken. */
/* The first queued waiter that holds a stream's thread, taken out of its list; NULL (and the
 * flag cleared) if there is none. m->lock is held. */
static goabt_waiter *pop_stream_waiter(goabt_mutex *m)
{
    goabt_waitlist *lists[2] = {&m->waiters, &m->low};
    for (int i = 0; i < 2; i++) {
        for (goabt_waiter *q = lists[i]->head; q != NULL; q = q->next) {
            if (q->tag & MUTEX_STREAM) {
                goabt_waitlist_remove(lists[i], q);
                return q;
            }
        }
    }
    __atomic_and_fetch(&m->flags, ~(uint32_t)MUTEX_HAS_STREAM, __ATOMIC_RELAXED);
    return NULL;
}

__attribute__((noinline)) int goabt_mutex_release_slow(goabt_mutex *m)
{
    goabt_spin_lock(&m->lock);
    /* Only its holder's unlock takes a mutex off 2 (lockers only mark it 2). */
    GOABT_ASSERT_MSG(__atomic_load_n(&m->locked, __ATOMIC_RELAXED) == 2,
                     "the slow release of a mutex marked %d", m->locked);
    GOABT_ASSERT((__atomic_load_n(&m->owner, __ATOMIC_RELAXED) & 1) == 0);
    goabt_waiter *w = NULL;
    if (goabt_mutex_flags(m) & MUTEX_HAS_STREAM) w = pop_stream_waiter(m);
    if (w == NULL) w = goabt_waitlist_pop(&m->waiters);
    if (w == NULL) w = goabt_waitlist_pop(&m->low);
    if (w == NULL) {
        __atomic_store_n(&m->locked, 0, __ATOMIC_RELEASE);
        goabt_spin_unlock(&m->lock);
        return 0;
    }
    int more = !goabt_waitlist_empty(&m->waiters) || !goabt_waitlist_empty(&m->low);
    GOABT_ASSERT(!(w->tag & (MUTEX_HANDED | MUTEX_OTHERS)) && !w->linked);
    if (w->tag & MUTEX_STARVING) {
        /* Still held: 2 if more wait, 1 if w was the last. A ULT's hand-over is marked in
         * owner until it claims it (a waiter holding a stream may take it meanwhile). */
        __atomic_store_n(&m->locked, more ? 2 : 1, __ATOMIC_RELAXED);
        if (w->unit != NULL) __atomic_store_n(&m->owner, handed_mark(w), __ATOMIC_RELEASE);
        w->tag |= MUTEX_HANDED;
    } else {
        /* Free: if others wait, w marks it 2 again when it retries (at once, without yielding
         * first), so whoever holds it next wakes the rest. */
        if (more) w->tag |= MUTEX_OTHERS;
        __atomic_store_n(&m->locked, 0, __ATOMIC_RELEASE);
    }
    goabt_spin_unlock(&m->lock);
    /* Mutex waits have no deadline, so the wake-up always lands. */
    goabt_wake(w);
    return 1;
}

/* A woken lock waiter (lock waits have no deadline) is cancelled before it retries
 * (goabt_wait_cancelled): what its wake gave it goes on. Handed m, it releases m; woken with
 * others queued, it marks m for them as its retry would have (and releases m if that found it
 * free, which wakes the next). */
static void mutex_waiter_cancelled(goabt_waiter *w)
{
    goabt_mutex *m = w->sync;
    GOABT_ASSERT(__atomic_load_n(&w->status, __ATOMIC_RELAXED) == GOABT_WAIT_WOKEN);
    if (w->tag & MUTEX_HANDED) {
        /* Unless a waiter holding a stream took the hand-over meanwhile. */
        if (w->unit == NULL || claim_handed(m, handed_mark(w), 0)) goabt_mutex_release(m);
    } else if ((w->tag & MUTEX_OTHERS) && __atomic_exchange_n(&m->locked, 2, __ATOMIC_ACQUIRE) == 0) {
        goabt_mutex_release_slow(m);
    }
}


int goabt_mutex_trylock(goabt_mutex *m)
{
    uintptr_t me = goabt_mutex_caller_id();
    if (goabt_mutex_try_take(m, me)) return ABT_SUCCESS;
    if ((goabt_mutex_flags(m) & GOABT_MUTEX_RECURSIVE) && goabt_mutex_owned_by(m, me)) {
        m->nesting++;
        return ABT_SUCCESS;
    }
    return ABT_ERR_MUTEX_LOCKED;
}

void goabt_mutex_spinlock(goabt_mutex *m)
{
    uintptr_t me = goabt_mutex_caller_id();
    if ((goabt_mutex_flags(m) & GOABT_MUTEX_RECURSIVE) && goabt_mutex_owned_by(m, me) &&
        __atomic_load_n(&m->locked, __ATOMIC_ACQUIRE)) {
        m->nesting++;
        return;
    }
    /* Spins without yielding, as its name says; after a while it waits like ABT_mutex_lock (a
     * ULT yields a few times, then queues) rather than burn the CPU its holder may need (the
     * holder may share this stream). */
    for (unsigned spins = 0; spins < 4096; spins++) {
        if (__atomic_load_n(&m->locked, __ATOMIC_RELAXED) == 0 && goabt_mutex_try_take(m, me)) return;
        cpu_relax();
    }
    goabt_mutex_lock(m, MUTEX_NORMAL);
}

int goabt_mutex_waited(goabt_mutex *m)
{
    goabt_spin_lock(&m->lock);
    int waited = !goabt_waitlist_empty(&m->waiters) || !goabt_waitlist_empty(&m->low) ||
                 __atomic_load_n(&m->yielders, __ATOMIC_RELAXED) != 0;
    goabt_spin_unlock(&m->lock);
    return waited;
}

int goabt_mutex_num_queued(goabt_mutex *m)
{
    goabt_spin_lock(&m->lock);
    int n = goabt_waitlist_count(&m->waiters) + goabt_waitlist_count(&m->low);
    goabt_spin_unlock(&m->lock);
    return n;
}

/* ---- For condition variables ----------------------------------------------------------------- */

int goabt_mutex_held_by_caller(goabt_mutex *m)
{
    return __atomic_load_n(&m->locked, __ATOMIC_ACQUIRE) && goabt_mutex_owned_by(m, goabt_mutex_caller_id());
}

int goabt_mutex_release_all(goabt_mutex *m)
{
    GOABT_ASSERT_MSG(goabt_mutex_held_by_caller(m), "a cond waiter holds its mutex");
    int nesting = m->nesting;
    m->nesting = 0;
    goabt_mutex_release(m);
    return nesting;
}

void goabt_mutex_retake(goabt_mutex *m, int nesting)
{
    goabt_mutex_lock(m, MUTEX_NORMAL);
    GOABT_ASSERT(goabt_mutex_held_by_caller(m) && m->nesting == 0 && nesting >= 0);
    m->nesting = nesting;
}
