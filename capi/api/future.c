//go:build goabt_c_engine
/* future.c: ABT_future_*: check, resolve, call the engine (engine/future.h, where the algorithm
 * is). */
#include "args.h"
#include "engine/future.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/unit.h"
#include "engine/wait.h"

#define RESOLVE_FUTURE(var, h)                                                                \
    GOABT_RESOLVE_OBJECT(goabt_future, var, h, GOABT_MAGIC_FUTURE, 0, ABT_ERR_INV_FUTURE)

int ABT_future_create(uint32_t num_compartments, void (*cb_func)(void **), ABT_future *newfuture)
{
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newfuture);
    goabt_future *f = goabt_object_new(goabt_future_size(num_compartments), GOABT_MAGIC_FUTURE);
    if (f == NULL) return ABT_ERR_MEM;
    if (goabt_future_init(f, num_compartments, cb_func) != ABT_SUCCESS) {
        goabt_object_delete(f, goabt_future_size(num_compartments));
        return ABT_ERR_MEM;
    }
    *newfuture = f;
    return ABT_SUCCESS;
}

int ABT_future_free(ABT_future *future)
{
    GOABT_CHECK_TRUE(future != NULL, ABT_ERR_INV_FUTURE);
    RESOLVE_FUTURE(f, *future);
    /* Blocked waiters would never wake, and a completing set still uses the future (both
     * undefined in Argobots; ABT_cond_free refuses waiters the same way with ABT_ERR_COND). */
    if (goabt_future_busy(f)) return ABT_ERR_FUTURE;
    goabt_future_free_values(f);
    goabt_object_delete(f, goabt_future_size(f->num));
    *future = ABT_FUTURE_NULL;
    return ABT_SUCCESS;
}

int ABT_future_wait(ABT_future future)
{
    RESOLVE_FUTURE(f, future);
    /* Argobots 1.x refuses tasklets (they cannot be suspended), ready or not. */
    if (goabt_caller_is_tasklet()) return ABT_ERR_FUTURE;
    goabt_future_wait(f);
    return ABT_SUCCESS;
}

int ABT_future_test(ABT_future future, ABT_bool *is_ready)
{
    RESOLVE_FUTURE(f, future);
    GOABT_CHECK_OUT(is_ready);
    *is_ready = goabt_future_test(f) ? ABT_TRUE : ABT_FALSE;
    if (*is_ready == ABT_FALSE) goabt_give_way_to_main(); /* unit.h: a polling loop */
    return ABT_SUCCESS;
}

int ABT_future_set(ABT_future future, void *value)
{
    RESOLVE_FUTURE(f, future);
    return goabt_future_set(f, value);
}

int ABT_future_reset(ABT_future future)
{
    RESOLVE_FUTURE(f, future);
    goabt_future_reset(f);
    return ABT_SUCCESS;
}
