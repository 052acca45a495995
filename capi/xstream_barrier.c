//go:build goabt_c_engine
/* xstream_barrier.c: barriers of execution streams (ABT_xstream_barrier_*).
 *
 * Like a work-unit barrier (barrier.c), with one difference: a waiter blocks its whole stream.
 * Whoever waits, ULT (the main ULT included), tasklet or external thread, sleeps as an OS thread
 * on its waiter's futex word instead of parking, so the stream runs nothing else until the
 * barrier opens; that is what Argobots 1.2 does (a pthread barrier) and what callers of it rely
 * on, e.g. to keep every stream out of its scheduler at once. The last arrival of a round wakes
 * every waiter and starts the next round.
 */
#include "args.h"
#include "engine.h"
#include "object.h"
#include "wait.h"

struct ABT_xstream_barrier_opaque {
    uint32_t flags;
    uint32_t magic;
    int lock;                /* spinlock over the fields below */
    uint32_t num_waiters;    /* arrivals that open the barrier, > 0 */
    uint32_t arrived;        /* arrivals in the current round, < num_waiters */
    goabt_waitlist waiters;  /* the arrived ones, asleep */
};
typedef struct ABT_xstream_barrier_opaque goabt_xbarrier;

#define RESOLVE_XBARRIER(var, h)                                                              \
    GOABT_RESOLVE_OBJECT(goabt_xbarrier, var, h, GOABT_MAGIC_XSTREAM_BARRIER, 0,              \
                         ABT_ERR_INV_XSTREAM_BARRIER)

int ABT_xstream_barrier_create(uint32_t num_waiters, ABT_xstream_barrier *newbarrier)
{
    if (newbarrier != NULL) *newbarrier = ABT_XSTREAM_BARRIER_NULL; /* as Argobots 1.x on error */
    GOABT_CHECK_INIT();
    GOABT_CHECK_OUT(newbarrier);
    if (num_waiters == 0) return ABT_ERR_INV_ARG;
    goabt_xbarrier *b = goabt_object_new(sizeof *b, GOABT_MAGIC_XSTREAM_BARRIER);
    if (b == NULL) return ABT_ERR_MEM;
    b->num_waiters = num_waiters;
    *newbarrier = b;
    return ABT_SUCCESS;
}

int ABT_xstream_barrier_free(ABT_xstream_barrier *barrier)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_OUT(barrier);
    RESOLVE_XBARRIER(b, *barrier);
    goabt_spin_lock(&b->lock);
    int busy = b->arrived != 0; /* its waiters would never wake (undefined in Argobots) */
    goabt_spin_unlock(&b->lock);
    if (busy) return ABT_ERR_XSTREAM_BARRIER;
    goabt_object_delete(b, sizeof *b);
    *barrier = ABT_XSTREAM_BARRIER_NULL;
    return ABT_SUCCESS;
}

int ABT_xstream_barrier_wait(ABT_xstream_barrier barrier)
{
    GOABT_CHECK_INIT();
    RESOLVE_XBARRIER(b, barrier);
    goabt_spin_lock(&b->lock);
    if (++b->arrived < b->num_waiters) {
        goabt_waiter w;
        goabt_waiter_init(&w, 0, 0);
        w.unit = NULL; /* sleep as an OS thread, even on a ULT: the stream must not run others */
        goabt_waitlist_push(&b->waiters, &w);
        goabt_wait(&w, &b->lock);
        return ABT_SUCCESS;
    }
    b->arrived = 0;
    /* Woken after the lock is released: they run (on other streams too) without spinning on it. */
    goabt_waiter *claimed = goabt_waitlist_claim(&b->waiters, 1);
    goabt_spin_unlock(&b->lock);
    goabt_wake_claimed(claimed);
    return ABT_SUCCESS;
}
