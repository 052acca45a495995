//go:build goabt_c_engine
/* eventual.c: ABT_eventual_* (and goabt_eventual_get_num_waiters): check, resolve, call the
 * engine (engine/eventual.h, where the algorithm is). */
#include "args.h"
#include "engine/eventual.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/unit.h"
#include "engine/wait.h"

#define RESOLVE_EVENTUAL(var, h)                                                              \
    GOABT_RESOLVE_OBJECT(goabt_eventual, var, h, GOABT_MAGIC_EVENTUAL, 1, ABT_ERR_INV_EVENTUAL)

int ABT_eventual_create(int nbytes, ABT_eventual *neweventual)
{
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_ARG(nbytes >= 0);
    GOABT_CHECK_OUT(neweventual);
    goabt_eventual *e = goabt_object_new(goabt_eventual_size(nbytes), GOABT_MAGIC_EVENTUAL);
    if (e == NULL) return ABT_ERR_MEM;
    if (goabt_eventual_init(e, nbytes) != ABT_SUCCESS) {
        goabt_object_delete(e, goabt_eventual_size(nbytes));
        return ABT_ERR_MEM;
    }
    *neweventual = e;
    return ABT_SUCCESS;
}

int ABT_eventual_free(ABT_eventual *eventual)
{
    GOABT_CHECK_TRUE(eventual != NULL, ABT_ERR_INV_EVENTUAL);
    RESOLVE_EVENTUAL(e, *eventual);
    /* Static memory is not ours to free. */
    GOABT_CHECK_TRUE(__atomic_load_n(&e->magic, __ATOMIC_RELAXED) == GOABT_MAGIC_EVENTUAL,
                     ABT_ERR_INV_EVENTUAL);
    /* Blocked waiters would never wake (undefined in Argobots; ABT_cond_free refuses the same
     * way with ABT_ERR_COND). */
    if (goabt_eventual_waited(e)) return ABT_ERR_EVENTUAL;
    goabt_eventual_free_buffer(e);
    goabt_object_delete(e, goabt_eventual_size(e->nbytes));
    *eventual = ABT_EVENTUAL_NULL;
    return ABT_SUCCESS;
}

int ABT_eventual_wait(ABT_eventual eventual, void **value)
{
    RESOLVE_EVENTUAL(e, eventual);
    /* Argobots 1.x refuses tasklets (they cannot be suspended), even on a ready eventual. */
    if (goabt_caller_is_tasklet()) return ABT_ERR_EVENTUAL;
    return goabt_eventual_wait(e, value, 0);
}

int ABT_eventual_timedwait(ABT_eventual eventual, void **value, const struct timespec *abstime)
{
    RESOLVE_EVENTUAL(e, eventual);
    GOABT_CHECK_ARG(abstime != NULL);
    if (goabt_caller_is_tasklet()) return ABT_ERR_EVENTUAL; /* as ABT_eventual_wait */
    return goabt_eventual_wait(e, value, goabt_timespec_ns(abstime));
}

int ABT_eventual_test(ABT_eventual eventual, void **value, ABT_bool *is_ready)
{
    RESOLVE_EVENTUAL(e, eventual);
    GOABT_CHECK_OUT(is_ready);
    int ready = goabt_eventual_test(e, value);
    *is_ready = ready ? ABT_TRUE : ABT_FALSE;
    if (!ready) goabt_give_way_to_main(); /* unit.h: a polling loop */
    return ABT_SUCCESS;
}

int ABT_eventual_set(ABT_eventual eventual, void *value, int nbytes)
{
    RESOLVE_EVENTUAL(e, eventual);
    GOABT_CHECK_ARG(nbytes >= 0);
    GOABT_CHECK_TRUE(nbytes <= e->nbytes, ABT_ERR_INV_EVENTUAL); /* Argobots 1.x (2.0: INV_ARG) */
    GOABT_CHECK_ARG(nbytes == 0 || value != NULL);
    return goabt_eventual_set(e, value, nbytes);
}

int ABT_eventual_reset(ABT_eventual eventual)
{
    RESOLVE_EVENTUAL(e, eventual);
    goabt_eventual_reset(e);
    return ABT_SUCCESS;
}

int goabt_eventual_get_num_waiters(ABT_eventual eventual, int *num)
{
    RESOLVE_EVENTUAL(e, eventual);
    GOABT_CHECK_OUT(num);
    *num = goabt_eventual_num_queued(e);
    return ABT_SUCCESS;
}
