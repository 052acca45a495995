//go:build goabt_c_engine
/* cond.c: condition variables: waiting and waking over a wait list (the algorithm: cond.h;
 * the API's entries: api/cond.c). */
#include "cond.h"
#include "wait.h"

int goabt_cond_waited(goabt_cond *c)
{
    goabt_spin_lock(&c->lock);
    int waited = !goabt_waitlist_empty(&c->waiters);
    goabt_spin_unlock(&c->lock);
    return waited;
}

/* What a timed-out waiter does on its way out: the cond forgets the mutex once nobody waits. */
static void cond_timed_out(goabt_cond *c)
{
    goabt_spin_lock(&c->lock);
    if (goabt_waitlist_empty(&c->waiters)) c->mutex = NULL;
    goabt_spin_unlock(&c->lock);
}

/* A timed-out waiter cancelled before it returns (goabt_wait_cancelled) does it instead. One
 * signalled and cancelled has nothing to do (the waker forgot the mutex if it took the last). */
static void cond_waiter_cancelled(goabt_waiter *w)
{
    if (__atomic_load_n(&w->status, __ATOMIC_ACQUIRE) == GOABT_WAIT_TIMEDOUT) cond_timed_out(w->sync);
}

int goabt_cond_wait(goabt_cond *c, goabt_mutex *m, uint64_t deadline)
{
    goabt_spin_lock(&c->lock);
    if (c->mutex != NULL && c->mutex != m) {
        goabt_spin_unlock(&c->lock);
        return ABT_ERR_INV_MUTEX; /* other waiters use another mutex */
    }
    GOABT_ASSERT_MSG(c->mutex == m || goabt_waitlist_empty(&c->waiters),
                     "a cond's waiters all use one mutex");
    c->mutex = m;
    goabt_waiter w;
    goabt_waiter_init(&w, 0, deadline);
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_COND, c);
    w.cancelled = cond_waiter_cancelled;
    goabt_waitlist_push(&c->waiters, &w);
    /* Queued first, then the mutex goes: a signaller that takes the mutex after this finds w. */
    int nesting = goabt_mutex_release_all(m);
    int status = goabt_wait(&w, &c->lock);
    GOABT_ASSERT(!w.linked && (status == GOABT_WAIT_WOKEN || (deadline != 0 && status == GOABT_WAIT_TIMEDOUT)));
    if (status == GOABT_WAIT_TIMEDOUT) cond_timed_out(c);
    goabt_mutex_retake(m, nesting);
    return status == GOABT_WAIT_TIMEDOUT ? ABT_ERR_COND_TIMEDOUT : ABT_SUCCESS;
}

/* Wakes one waiter (all of them with all), skipping those whose deadline won meanwhile. The
 * waiters are claimed under the lock and woken after it is released: a woken waiter may return
 * and its cond go (a static one on its stack, say) before a waker that still held the lock
 * would release it. */
void goabt_cond_wake_queued(goabt_cond *c, int all)
{
    goabt_spin_lock(&c->lock);
    goabt_waiter *claimed = goabt_waitlist_claim(&c->waiters, all);
    if (goabt_waitlist_empty(&c->waiters)) c->mutex = NULL;
    goabt_spin_unlock(&c->lock);
    goabt_wake_claimed(claimed);
}
