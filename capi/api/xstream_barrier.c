//go:build goabt_c_engine
/* xstream_barrier.c: ABT_xstream_barrier_*: check, resolve, call the engine
 * (engine/xstream_barrier.h, where the algorithm is, over the rounds of engine/barrier.h). */
#include "args.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/xstream_barrier.h"

#define RESOLVE_XBARRIER(var, h)                                                              \
    GOABT_RESOLVE_OBJECT(goabt_xbarrier, var, h, GOABT_MAGIC_XSTREAM_BARRIER, 0,              \
                         ABT_ERR_INV_XSTREAM_BARRIER)

int ABT_xstream_barrier_create(uint32_t num_waiters, ABT_xstream_barrier *newbarrier)
{
    if (newbarrier != NULL) *newbarrier = ABT_XSTREAM_BARRIER_NULL; /* as Argobots 1.x on error */
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newbarrier);
    GOABT_CHECK_ARG(num_waiters != 0);
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
    if (goabt_xstream_barrier_busy(b)) return ABT_ERR_XSTREAM_BARRIER;
    goabt_object_delete(b, sizeof *b);
    *barrier = ABT_XSTREAM_BARRIER_NULL;
    return ABT_SUCCESS;
}

int ABT_xstream_barrier_wait(ABT_xstream_barrier barrier)
{
    RESOLVE_XBARRIER(b, barrier);
    goabt_xstream_barrier_wait(b);
    return ABT_SUCCESS;
}
