//go:build goabt_c_engine
/* barrier.c: barriers of work units (ABT_barrier_*).
 *
 * State under the object's spinlock: the number of waiters a round needs, how many have arrived
 * in the current round, and the wait list of those blocked (wait.h: ULTs park, external threads
 * sleep on a futex). The last arrival of a round wakes every waiter, in arrival order, and
 * starts the next round at once: a released waiter may arrive again before the others have run.
 */
#include "args.h"
#include "barrier.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/wait.h"

struct ABT_barrier_opaque {
    uint32_t flags;
    uint32_t magic;
    goabt_barrier_round round;
};
typedef struct ABT_barrier_opaque goabt_barrier;

#define RESOLVE_BARRIER(var, h)                                                               \
    GOABT_RESOLVE_OBJECT(goabt_barrier, var, h, GOABT_MAGIC_BARRIER, 0, ABT_ERR_INV_BARRIER)

int ABT_barrier_create(uint32_t num_waiters, ABT_barrier *newbarrier)
{
    if (newbarrier != NULL) *newbarrier = ABT_BARRIER_NULL; /* Argobots 1.x does so on error */
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newbarrier);
    if (num_waiters == 0) return ABT_ERR_INV_ARG;
    goabt_barrier *b = goabt_object_new(sizeof *b, GOABT_MAGIC_BARRIER);
    if (b == NULL) return ABT_ERR_MEM;
    b->round.num_waiters = num_waiters;
    *newbarrier = b;
    return ABT_SUCCESS;
}

int ABT_barrier_reinit(ABT_barrier barrier, uint32_t num_waiters)
{
    RESOLVE_BARRIER(b, barrier);
    if (num_waiters == 0) return ABT_ERR_INV_ARG;
    goabt_spin_lock(&b->round.lock);
    /* With a round under way the waiters' count would change under them (undefined in
     * Argobots): refused. */
    int busy = b->round.arrived != 0;
    if (!busy) __atomic_store_n(&b->round.num_waiters, num_waiters, __ATOMIC_RELAXED);
    goabt_spin_unlock(&b->round.lock);
    return busy ? ABT_ERR_BARRIER : ABT_SUCCESS;
}

int ABT_barrier_free(ABT_barrier *barrier)
{
    GOABT_CHECK_OUT(barrier);
    RESOLVE_BARRIER(b, *barrier);
    if (goabt_barrier_round_busy(&b->round)) return ABT_ERR_BARRIER;
    goabt_object_delete(b, sizeof *b);
    *barrier = ABT_BARRIER_NULL;
    return ABT_SUCCESS;
}

int ABT_barrier_wait(ABT_barrier barrier)
{
    RESOLVE_BARRIER(b, barrier);
    /* Argobots 1.x refuses tasklets (they cannot be suspended); the call does not arrive. */
    if (goabt_caller_is_tasklet()) return ABT_ERR_BARRIER;
    goabt_barrier_round_wait(&b->round, 0);
    return ABT_SUCCESS;
}

int ABT_barrier_get_num_waiters(ABT_barrier barrier, uint32_t *num_waiters)
{
    RESOLVE_BARRIER(b, barrier);
    GOABT_CHECK_OUT(num_waiters);
    *num_waiters = __atomic_load_n(&b->round.num_waiters, __ATOMIC_RELAXED);
    return ABT_SUCCESS;
}

/* ---- Rounds (barrier.h) ------------------------------------------------------------------ */

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
