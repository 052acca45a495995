//go:build goabt_c_engine
/* wait.c: wait lists, blocking and waking (parked ULTs and sleeping OS threads alike), joiner
 * stacks, and the timer list of parked ULTs with deadlines. The design is at the top of wait.h. */
#define _GNU_SOURCE
#include <time.h>
#include <stddef.h>
#include "object.h"
#include "info.h"
#include "runtime.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"

/* ---- Waiters and lists ------------------------------------------------------------------- */

int goabt_caller_parks(void)
{
    goabt_unit *self = goabt_self_unit();
    return self != NULL && self->kind == GOABT_ULT;
}

void goabt_waiter_init(goabt_waiter *w, uintptr_t tag, uint64_t deadline)
{
    /* Field by field: the links are set when w is queued, the timer ones only when armed. */
    goabt_unit *self = goabt_self_unit();
    w->unit = self != NULL && self->kind == GOABT_ULT ? self : NULL;
    w->word = 0;
    w->status = GOABT_WAIT_WAITING;
    w->linked = 0;
    w->timed = 0;
    w->tag = tag;
    w->deadline = deadline;
    w->cancelled = NULL;
    w->next = w->prev = NULL;
}

/* l's ends agree: both NULL (empty) or both set, the head first, the tail last. */
#define ASSERT_LIST_ENDS(l)                                                                   \
    GOABT_ASSERT(((l)->head == NULL) == ((l)->tail == NULL) &&                                \
                 ((l)->head == NULL || ((l)->head->prev == NULL && (l)->tail->next == NULL)))

void goabt_waitlist_push(goabt_waitlist *l, goabt_waiter *w)
{
    GOABT_ASSERT_MSG(!w->linked, "a waiter is on at most one wait list");
    GOABT_ASSERT(w->status == GOABT_WAIT_WAITING);
    ASSERT_LIST_ENDS(l);
    w->next = NULL;
    w->prev = l->tail;
    if (l->tail) {
        l->tail->next = w;
    } else {
        l->head = w;
    }
    l->tail = w;
    w->list = l;
    w->linked = 1;
}

void goabt_waitlist_push_front(goabt_waitlist *l, goabt_waiter *w)
{
    GOABT_ASSERT_MSG(!w->linked, "a waiter is on at most one wait list");
    GOABT_ASSERT(w->status == GOABT_WAIT_WAITING);
    ASSERT_LIST_ENDS(l);
    w->prev = NULL;
    w->next = l->head;
    if (l->head) {
        l->head->prev = w;
    } else {
        l->tail = w;
    }
    l->head = w;
    w->list = l;
    w->linked = 1;
}

void goabt_waitlist_insert_after(goabt_waitlist *l, goabt_waiter *after, goabt_waiter *w)
{
    if (after == NULL) {
        goabt_waitlist_push_front(l, w);
        return;
    }
    GOABT_ASSERT_MSG(!w->linked, "a waiter is on at most one wait list");
    GOABT_ASSERT_MSG(after->linked && after->list == l, "inserted after a waiter of another list");
    w->prev = after;
    w->next = after->next;
    if (after->next) {
        after->next->prev = w;
    } else {
        l->tail = w;
    }
    after->next = w;
    w->list = l;
    w->linked = 1;
}

void goabt_waitlist_remove(goabt_waitlist *l, goabt_waiter *w)
{
    GOABT_ASSERT_MSG(w->linked && w->list == l, "removing a waiter that is not on this list");
    GOABT_ASSERT(w->prev != NULL ? w->prev->next == w : l->head == w);
    GOABT_ASSERT(w->next != NULL ? w->next->prev == w : l->tail == w);
    if (w->prev) {
        w->prev->next = w->next;
    } else {
        l->head = w->next;
    }
    if (w->next) {
        w->next->prev = w->prev;
    } else {
        l->tail = w->prev;
    }
    w->next = w->prev = NULL;
    w->linked = 0;
}

goabt_waiter *goabt_waitlist_pop(goabt_waitlist *l)
{
    goabt_waiter *w = l->head;
    ASSERT_LIST_ENDS(l);
    if (w != NULL) goabt_waitlist_remove(l, w);
    return w;
}

/* ---- Time and the timer list ------------------------------------------------------------- */

uint64_t goabt_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return goabt_timespec_ns(&t);
}

uint64_t goabt_timers_earliest;
static int timers_lock;
static goabt_waiter *timers; /* sorted by deadline, earliest first */

/* Under timers_lock. A pending stack dump request (info.h) keeps the word due: the trigger
 * sets its state, then the word; here the word is stored, then the state read, all seq_cst, so
 * either this sees the request or the trigger's store comes last. */
static void timers_update_earliest(void)
{
    GOABT_ASSERT_LOCKED(&timers_lock);
    GOABT_ASSERT(timers == NULL || timers->tprev == NULL);
    __atomic_store_n(&goabt_timers_earliest, timers ? timers->deadline : 0, __ATOMIC_SEQ_CST);
    if (goabt_info_stacks_pending()) __atomic_store_n(&goabt_timers_earliest, 1, __ATOMIC_SEQ_CST);
}

static void timer_arm(goabt_waiter *w)
{
    /* Only a parked ULT is timed: a sleeping thread watches its own deadline. */
    GOABT_ASSERT(w->unit != NULL && w->deadline != 0);
    GOABT_ASSERT_MSG(!w->timed, "a waiter is in the timer list at most once");
    goabt_spin_lock(&timers_lock);
    goabt_waiter **at = &timers, *prev = NULL;
    while (*at != NULL && (*at)->deadline <= w->deadline) {
        prev = *at;
        at = &(*at)->tnext;
    }
    w->tnext = *at;
    w->tprev = prev;
    if (*at) (*at)->tprev = w;
    *at = w;
    w->timed = 1;
    timers_update_earliest();
    goabt_spin_unlock(&timers_lock);
}

static void timer_unlink(goabt_waiter *w)
{
    GOABT_ASSERT_LOCKED(&timers_lock);
    GOABT_ASSERT_MSG(w->timed, "unlinking a waiter that is not in the timer list");
    GOABT_ASSERT(w->tprev != NULL ? w->tprev->tnext == w : timers == w);
    GOABT_ASSERT(w->tnext == NULL || (w->tnext->tprev == w && w->tnext->deadline >= w->deadline));
    if (w->tprev) {
        w->tprev->tnext = w->tnext;
    } else {
        timers = w->tnext;
    }
    if (w->tnext) w->tnext->tprev = w->tprev;
    w->tnext = w->tprev = NULL;
    w->timed = 0;
}

static void timer_disarm(goabt_waiter *w)
{
    goabt_spin_lock(&timers_lock);
    if (w->timed) {
        timer_unlink(w);
        timers_update_earliest();
    }
    goabt_spin_unlock(&timers_lock);
}

/* A waiter that timed out leaves its object's list (if a waker has not taken it already). */
static void waiter_leave_list(goabt_waiter *w)
{
    GOABT_ASSERT(__atomic_load_n(&w->status, __ATOMIC_RELAXED) == GOABT_WAIT_TIMEDOUT);
    goabt_spin_lock(w->lock);
    if (w->linked) goabt_waitlist_remove(w->list, w);
    goabt_spin_unlock(w->lock);
}

void goabt_timers_fire(void)
{
    /* ABT_info_trigger_print_all_thread_stacks made the timers look due (info.h). */
    if (goabt_info_stacks_pending()) goabt_info_stacks_at_sched_point();
    uint64_t now = goabt_now_ns();
    goabt_waiter *expired = NULL;
    /* The timer lock is taken inside object locks (wait_parked), never around them: expired
     * waiters are collected here and handled after it is released. */
    goabt_spin_lock(&timers_lock);
    while (timers != NULL && timers->deadline <= now) {
        goabt_waiter *w = timers;
        timer_unlink(w);
        int waiting = GOABT_WAIT_WAITING;
        if (__atomic_compare_exchange_n(&w->status, &waiting, GOABT_WAIT_TIMEDOUT, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            w->tnext = expired; /* ours now: its unit stays parked until we ready it */
            expired = w;
        }
    }
    timers_update_earliest();
    goabt_spin_unlock(&timers_lock);
    while (expired != NULL) {
        goabt_waiter *w = expired;
        expired = w->tnext;
        GOABT_ASSERT(!w->timed);
        waiter_leave_list(w);
        goabt_unit_ready(w->unit);
    }
}

/* ---- Blocking and waking ----------------------------------------------------------------- */

/* Runs on the scheduler once the waiting ULT's context is saved: from here a waker may see it. */
static void wait_parked(goabt_unit *u, void *arg)
{
    (void)u;
    goabt_waiter *w = arg;
    GOABT_ASSERT(u == w->unit);
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_BLOCKED,
                     "a parked unit is BLOCKED until its waker readies it");
    GOABT_ASSERT_LOCKED(w->lock); /* its waker cannot see it yet */
    if (w->deadline != 0) timer_arm(w);
    goabt_spin_unlock(w->lock);
}

/* How long a sleeping thread waits before it looks again: until its deadline, at most the
 * safety timeout; 0 for no limit. -1 if the deadline has passed. */
static long long thread_sleep_ns(uint64_t deadline)
{
    long long limit = goabt_rt.safety_ns;
    if (deadline == 0) return limit;
    uint64_t now = goabt_now_ns();
    if (now >= deadline) return -1;
    long long left = goabt_ns_until(deadline, now);
    return limit == 0 || left < limit ? left : limit;
}

/* goabt_wait for an OS thread: below. */
static int thread_wait(goabt_waiter *w);

int goabt_wait(goabt_waiter *w, int *lock)
{
    GOABT_ASSERT_LOCKED(lock);
    GOABT_ASSERT_MSG(w->linked && w->list != NULL, "a waiter waits on the list it was pushed on");
    GOABT_ASSERT(w->status == GOABT_WAIT_WAITING && !w->timed);
    GOABT_ASSERT_MSG(w->unit == NULL || w->unit == goabt_self_unit(),
                     "a waiter is the calling ULT's (goabt_waiter_init)");
    w->lock = lock;
    if (w->deadline != 0 && goabt_now_ns() >= w->deadline) {
        goabt_waitlist_remove(w->list, w);
        goabt_spin_unlock(lock);
        return GOABT_WAIT_TIMEDOUT;
    }
    if (w->unit != NULL) {
        w->unit->waiting = w;
        goabt_unit_park(wait_parked, w, w->sync_type, w->sync);
        w->unit->waiting = NULL;
        /* Woken (a waker readied it) or timed out (goabt_timers_fire did, after unlinking). */
        GOABT_ASSERT_MSG(__atomic_load_n(&w->status, __ATOMIC_ACQUIRE) != GOABT_WAIT_WAITING,
                         "a parked waiter runs again only once woken or timed out");
        GOABT_ASSERT_MSG(!w->linked, "a readied waiter is off its list");
        if (w->deadline != 0) timer_disarm(w);
        return __atomic_load_n(&w->status, __ATOMIC_ACQUIRE);
    }
    goabt_spin_unlock(lock);
    /* A tasklet asleep here says so too, for the hang report (it cannot be cancelled while it
     * runs, so goabt_wait_cancelled never sees this). */
    goabt_unit *self = goabt_self_unit();
    if (self != NULL) self->waiting = w;
    int status = thread_wait(w);
    if (self != NULL) self->waiting = NULL;
    return status;
}

/* goabt_wait for an OS thread (w->unit NULL): sleeps on w's futex word until woken or its
 * deadline passes. */
static int thread_wait(goabt_waiter *w)
{
    for (;;) {
        if (__atomic_load_n(&w->word, __ATOMIC_ACQUIRE)) return GOABT_WAIT_WOKEN;
        long long ns = thread_sleep_ns(w->deadline);
        if (ns < 0) {
            int waiting = GOABT_WAIT_WAITING;
            if (__atomic_compare_exchange_n(&w->status, &waiting, GOABT_WAIT_TIMEDOUT, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                waiter_leave_list(w);
                return GOABT_WAIT_TIMEDOUT;
            }
            /* A waker got there first: its word store is a few instructions away. */
            for (unsigned spins = 0; !__atomic_load_n(&w->word, __ATOMIC_ACQUIRE); spins++) {
                goabt_backoff(spins);
            }
            return GOABT_WAIT_WOKEN;
        }
        goabt_futex_wait(&w->word, 0, ns);
    }
}

void goabt_wait_cancelled(goabt_unit *u)
{
    goabt_waiter *w = u->waiting;
    u->waiting = NULL;
    /* Its waker or the timer took it out of the timer list before readying it. */
    if (w->cancelled != NULL) w->cancelled(w);
}

int goabt_wake_claim(goabt_waiter *w)
{
    GOABT_ASSERT_MSG(!w->linked, "a waiter is taken off its list before it is woken");
    if (w->deadline == 0) {
        /* Nothing else can end this wait: a plain store, no compare-and-swap. */
        GOABT_ASSERT_MSG(__atomic_load_n(&w->status, __ATOMIC_RELAXED) == GOABT_WAIT_WAITING,
                         "a waiter without a deadline is woken once");
        __atomic_store_n(&w->status, GOABT_WAIT_WOKEN, __ATOMIC_RELEASE);
        return 1;
    }
    int waiting = GOABT_WAIT_WAITING;
    return __atomic_compare_exchange_n(&w->status, &waiting, GOABT_WAIT_WOKEN, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void goabt_wake_finish(goabt_waiter *w)
{
    goabt_unit *u = w->unit;
    GOABT_ASSERT(__atomic_load_n(&w->status, __ATOMIC_RELAXED) == GOABT_WAIT_WOKEN);
    if (u != NULL) {
        /* Out of the timer list before it runs again: a ULT cancelled once woken (it ends
         * without returning here, goabt_unit_take_request) must leave no entry on its stack. */
        if (w->deadline != 0) timer_disarm(w);
        goabt_unit_ready(u);
    } else {
        /* The thread may return as soon as the word is set, and its stack with w go: the wake
         * is a syscall on the address only, harmless if it is reused (the sleeper re-checks). */
        __atomic_store_n(&w->word, 1, __ATOMIC_RELEASE);
        goabt_futex_wake(&w->word, 1);
    }
}

goabt_waiter *goabt_waitlist_claim(goabt_waitlist *l, int all)
{
    goabt_waiter *claimed = NULL, **tail = &claimed, *w;
    while ((w = goabt_waitlist_pop(l)) != NULL) {
        if (!goabt_wake_claim(w)) continue; /* timed out: it leaves by itself */
        *tail = w; /* the list links are free once popped */
        tail = &w->next;
        if (!all) break;
    }
    *tail = NULL;
    return claimed;
}

void goabt_wake_claimed(goabt_waiter *claimed)
{
    while (claimed != NULL) {
        goabt_waiter *w = claimed;
        claimed = w->next; /* read before the wake: w may be gone after it */
        goabt_wake_finish(w);
    }
}

int goabt_wake(goabt_waiter *w)
{
    if (!goabt_wake_claim(w)) return 0;
    goabt_wake_finish(w);
    return 1;
}

/* ---- Joiner stacks ------------------------------------------------------------------------ */

static void join_parked(goabt_unit *u, void *arg);
static void joiners_wait(goabt_waiter **joiners, goabt_waiter *w);

/* A ULT joining: pushed once its context is saved; if the target finished meanwhile, it is
 * ready again at once. */
static void join_parked(goabt_unit *u, void *arg)
{
    goabt_waiter *w = arg;
    goabt_waiter **joiners = (goabt_waiter **)w->tag;
    GOABT_ASSERT(u == w->unit && !w->linked && w->status == GOABT_WAIT_WAITING);
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_BLOCKED,
                     "a parked joiner is BLOCKED until its target ends");
    goabt_waiter *head = __atomic_load_n(joiners, __ATOMIC_ACQUIRE);
    do {
        if (head == GOABT_JOIN_DONE) {
            w->status = GOABT_WAIT_WOKEN;
            goabt_unit_ready(u);
            return;
        }
        w->next = head;
    } while (!__atomic_compare_exchange_n(joiners, &head, w, 1, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
}

void goabt_joiners_wait(goabt_waiter **joiners, goabt_waiter *w, int sync_type, void *target)
{
    w->tag = (uintptr_t)joiners;
    GOABT_ASSERT(w->status == GOABT_WAIT_WAITING && !w->linked && w->deadline == 0);
    GOABT_ASSERT(sync_type == ABT_SYNC_EVENT_TYPE_THREAD_JOIN ||
                 sync_type == ABT_SYNC_EVENT_TYPE_XSTREAM_JOIN);
    /* What the park, a tool and the hang report name (goabt_waiter_on's fields, which a join
     * uses for nothing else). A cancel of the readied joiner finds it as u->waiting and runs no
     * hook (none). */
    w->sync_type = sync_type;
    w->sync = target;
    goabt_unit *self = goabt_self_unit();
    if (self != NULL) self->waiting = w;
    joiners_wait(joiners, w);
    if (self != NULL) self->waiting = NULL;
}

static void joiners_wait(goabt_waiter **joiners, goabt_waiter *w)
{
    if (w->unit != NULL) {
        goabt_unit_park(join_parked, w, w->sync_type, w->sync);
        GOABT_ASSERT_MSG(__atomic_load_n(&w->status, __ATOMIC_ACQUIRE) == GOABT_WAIT_WOKEN,
                         "a joiner runs again only once its target ended");
        return;
    }
    goabt_waiter *head = __atomic_load_n(joiners, __ATOMIC_ACQUIRE);
    do {
        if (head == GOABT_JOIN_DONE) return;
        w->next = head;
    } while (!__atomic_compare_exchange_n(joiners, &head, w, 1, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    while (!__atomic_load_n(&w->word, __ATOMIC_ACQUIRE)) {
        goabt_futex_wait(&w->word, 0, goabt_rt.safety_ns);
    }
}

void goabt_joiners_wake(goabt_waiter *list)
{
    while (list != NULL && list != GOABT_JOIN_DONE) {
        goabt_waiter *w = list;
        list = w->next; /* read before the wake: w may be gone after it */
        GOABT_ASSERT(w->deadline == 0 && !w->linked);
        goabt_wake(w);
    }
}
