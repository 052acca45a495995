//go:build goabt_c_engine
/* barrier.c: ABT_barrier_*: check, resolve, call the engine (engine/barrier.h, where the
 * algorithm is). */
#include "args.h"
#include "engine/barrier.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/wait.h"

#define RESOLVE_BARRIER(var, h)                                                               \
    GOABT_RESOLVE_OBJECT(goabt_barrier, var, h, GOABT_MAGIC_BARRIER, 0, ABT_ERR_INV_BARRIER)

int ABT_barrier_create(uint32_t num_waiters, ABT_barrier *newbarrier)
{
    if (newbarrier != NULL) *newbarrier = ABT_BARRIER_NULL; /* Argobots 1.x does so on error */
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newbarrier);
    GOABT_CHECK_ARG(num_waiters != 0);
    goabt_barrier *b = goabt_object_new(sizeof *b, GOABT_MAGIC_BARRIER);
    if (b == NULL) return ABT_ERR_MEM;
    b->round.num_waiters = num_waiters;
    *newbarrier = b;
    return ABT_SUCCESS;
}

int ABT_barrier_reinit(ABT_barrier barrier, uint32_t num_waiters)
{
    RESOLVE_BARRIER(b, barrier);
    GOABT_CHECK_ARG(num_waiters != 0);
    return goabt_barrier_reinit(b, num_waiters);
}

int ABT_barrier_free(ABT_barrier *barrier)
{
    GOABT_CHECK_OUT(barrier);
    RESOLVE_BARRIER(b, *barrier);
    if (goabt_barrier_busy(b)) return ABT_ERR_BARRIER;
    goabt_object_delete(b, sizeof *b);
    *barrier = ABT_BARRIER_NULL;
    return ABT_SUCCESS;
}

int ABT_barrier_wait(ABT_barrier barrier)
{
    RESOLVE_BARRIER(b, barrier);
    /* Argobots 1.x refuses tasklets (they cannot be suspended); the call does not arrive. */
    if (goabt_caller_is_tasklet()) return ABT_ERR_BARRIER;
    goabt_barrier_wait(b);
    return ABT_SUCCESS;
}

int ABT_barrier_get_num_waiters(ABT_barrier barrier, uint32_t *num_waiters)
{
    RESOLVE_BARRIER(b, barrier);
    GOABT_CHECK_OUT(num_waiters);
    *num_waiters = goabt_barrier_num_waiters(b);
    return ABT_SUCCESS;
}
