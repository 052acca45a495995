//go:build goabt_c_engine
/* eventual.c: eventuals: their buffer, waiting, setting (the algorithm: eventual.h, with the
 * ready fast paths inline; the API's entries: api/eventual.c). */
#include "eventual.h"
#include "wait.h"

int goabt_eventual_init(goabt_eventual *e, int nbytes)
{
    e->nbytes = nbytes;
    if (nbytes > EVENTUAL_INLINE_MAX) {
        e->value = malloc((size_t)nbytes);
        if (e->value == NULL) return ABT_ERR_MEM;
    } else if (nbytes > 0) {
        e->value = e->inline_value;
    }
    return ABT_SUCCESS;
}

int goabt_eventual_waited(goabt_eventual *e)
{
    goabt_spin_lock(&e->lock);
    int busy = !goabt_waitlist_empty(&e->waiters);
    goabt_spin_unlock(&e->lock);
    return busy;
}

void goabt_eventual_free_buffer(goabt_eventual *e)
{
    if (e->value != NULL && e->value != (void *)e->inline_value) free(e->value);
}

int goabt_eventual_wait_queued(goabt_eventual *e, void **value, uint64_t deadline)
{
    goabt_spin_lock(&e->lock);
    GOABT_ASSERT_MSG(!e->ready || goabt_waitlist_empty(&e->waiters), "a set eventual keeps no waiter");
    if (e->ready) {
        goabt_spin_unlock(&e->lock);
    } else {
        goabt_waiter w;
        goabt_waiter_init(&w, 0, deadline);
        goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_EVENTUAL, e);
        goabt_waitlist_push(&e->waiters, &w);
        if (goabt_wait(&w, &e->lock) == GOABT_WAIT_TIMEDOUT) return ABT_ERR_COND_TIMEDOUT;
        /* The setter released the lock before waking us: the caller may let the eventual's
         * memory go (a stack eventual) as soon as we return. */
    }
    if (value != NULL) *value = e->value;
    return ABT_SUCCESS;
}

int goabt_eventual_set(goabt_eventual *e, void *value, int nbytes)
{
    goabt_spin_lock(&e->lock);
    if (e->ready) {
        goabt_spin_unlock(&e->lock);
        return ABT_ERR_EVENTUAL; /* set once only: the value stays */
    }
    if (nbytes > 0) memcpy(e->value, value, (size_t)nbytes);
    __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
    /* Claimed under the lock (one that timed out meanwhile leaves by itself), woken after it:
     * a woken waiter may free the eventual as soon as it returns. */
    goabt_waiter *claimed = goabt_waitlist_claim(&e->waiters, 1);
    GOABT_ASSERT_MSG(goabt_waitlist_empty(&e->waiters), "a set eventual keeps no waiter");
    goabt_spin_unlock(&e->lock);
    goabt_wake_claimed(claimed);
    return ABT_SUCCESS;
}

int goabt_eventual_num_queued(goabt_eventual *e)
{
    goabt_spin_lock(&e->lock);
    int n = goabt_waitlist_count(&e->waiters);
    goabt_spin_unlock(&e->lock);
    return n;
}
