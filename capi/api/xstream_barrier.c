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
#include "engine/barrier.h"
#include "engine/handles.h"
#include "engine/object.h"

struct ABT_xstream_barrier_opaque {
    uint32_t flags;
    uint32_t magic;
    goabt_barrier_round round;
};
typedef struct ABT_xstream_barrier_opaque goabt_xbarrier;

#define RESOLVE_XBARRIER(var, h)                                                              \
    GOABT_RESOLVE_OBJECT(goabt_xbarrier, var, h, GOABT_MAGIC_XSTREAM_BARRIER, 0,              \
                         ABT_ERR_INV_XSTREAM_BARRIER)

int ABT_xstream_barrier_create(uint32_t num_waiters, ABT_xstream_barrier *newbarrier)
{
    if (newbarrier != NULL) *newbarrier = ABT_XSTREAM_BARRIER_NULL; /* as Argobots 1.x on error */
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newbarrier);
    if (num_waiters == 0) return ABT_ERR_INV_ARG;
    goabt_xbarrier *b = goabt_object_new(sizeof *b, GOABT_MAGIC_XSTREAM_BARRIER);
    if (b == NULL) return ABT_ERR_MEM;
    b->round.num_waiters = num_waiters;
    *newbarrier = b;
    return ABT_SUCCESS;
}

int ABT_xstream_barrier_free(ABT_xstream_barrier *barrier)
{
    GOABT_CHECK_OUT(barrier);
    RESOLVE_XBARRIER(b, *barrier);
    /* Its waiters would never wake (undefined in Argobots). */
    if (goabt_barrier_round_busy(&b->round)) return ABT_ERR_XSTREAM_BARRIER;
    goabt_object_delete(b, sizeof *b);
    *barrier = ABT_XSTREAM_BARRIER_NULL;
    return ABT_SUCCESS;
}

int ABT_xstream_barrier_wait(ABT_xstream_barrier barrier)
{
    RESOLVE_XBARRIER(b, barrier);
    goabt_barrier_round_wait(&b->round, 1); /* the stream must not run others meanwhile */
    return ABT_SUCCESS;
}
