//go:build goabt_c_engine
/* barrier.c: barriers' rounds: arriving, waiting, opening (the algorithm: barrier.h; the API's
 * entries: api/barrier.c and api/xstream_barrier.c). */
#include "barrier.h"
#include "wait.h"

int goabt_barrier_reinit(goabt_barrier *b, uint32_t num_waiters)
{
    goabt_spin_lock(&b->round.lock);
    /* With a round under way the waiters' count would change under them (undefined in
     * Argobots): refused. */
    int busy = b->round.arrived != 0;
    if (!busy) __atomic_store_n(&b->round.num_waiters, num_waiters, __ATOMIC_RELAXED);
    goabt_spin_unlock(&b->round.lock);
    return busy ? ABT_ERR_BARRIER : ABT_SUCCESS;
}

void goabt_barrier_round_wait(goabt_barrier_round *r, int as_thread)
{
    goabt_spin_lock(&r->lock);
    GOABT_ASSERT_MSG(r->arrived < r->num_waiters,
                     "a round holds fewer arrivals than its size (%d of %d)", r->arrived,
                     r->num_waiters);
    GOABT_ASSERT((r->arrived == 0) == goabt_waitlist_empty(&r->waiters));
    if (++r->arrived < r->num_waiters) {
        goabt_waiter w;
        goabt_waiter_init(&w, 0, 0);
        goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_BARRIER, NULL);
        if (as_thread) w.unit = NULL;
        goabt_waitlist_push(&r->waiters, &w);
        goabt_wait(&w, &r->lock);
        GOABT_ASSERT_MSG(w.status == GOABT_WAIT_WOKEN, "barrier waits have no deadline");
        return;
    }
    r->arrived = 0;
    /* Woken after the lock is released: they run (on other streams too) without spinning on it. */
    goabt_waiter *claimed = goabt_waitlist_claim(&r->waiters, 1);
    goabt_spin_unlock(&r->lock);
    goabt_wake_claimed(claimed);
}

int goabt_barrier_round_busy(goabt_barrier_round *r)
{
    goabt_spin_lock(&r->lock);
    int busy = r->arrived != 0;
    goabt_spin_unlock(&r->lock);
    return busy;
}
