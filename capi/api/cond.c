//go:build goabt_c_engine
/* cond.c: ABT_cond_*: check, resolve, call the engine (engine/cond.h, where the algorithm is). */
#include "args.h"
#include "engine/cond.h"
#include "engine/handles.h"
#include "engine/mutex.h"
#include "engine/object.h"
#include "engine/wait.h"

#define RESOLVE_COND(c, h)                                                                    \
    GOABT_RESOLVE_OBJECT(goabt_cond, c, h, GOABT_MAGIC_COND, 1, ABT_ERR_INV_COND)

int ABT_cond_create(ABT_cond *newcond)
{
    if (newcond != NULL) *newcond = ABT_COND_NULL;
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newcond);
    goabt_cond *c = goabt_object_new(sizeof *c, GOABT_MAGIC_COND);
    if (c == NULL) return ABT_ERR_MEM;
    *newcond = c;
    return ABT_SUCCESS;
}

int ABT_cond_free(ABT_cond *cond)
{
    GOABT_CHECK_OUT(cond);
    goabt_cond *c = goabt_object_of(*cond, GOABT_MAGIC_COND, 0);
    if (c == NULL) return ABT_ERR_INV_COND; /* static memory is not freed */
    if (goabt_cond_waited(c)) return ABT_ERR_COND; /* its waiters would never be woken */
    goabt_object_delete(c, sizeof *c);
    *cond = ABT_COND_NULL;
    return ABT_SUCCESS;
}

/* Waits on cond with mutex held, until signalled or (deadline != 0) the deadline. */
static int cond_wait(ABT_cond cond, ABT_mutex mutex, uint64_t deadline)
{
    RESOLVE_COND(c, cond);
    goabt_mutex *m = goabt_mutex_of(mutex);
    GOABT_CHECK_TRUE(m != NULL && goabt_mutex_held_by_caller(m), ABT_ERR_INV_MUTEX);
    /* Argobots 1.x refuses an untimed wait from a tasklet: it would block its whole stream
     * with no end in sight. A timed wait is allowed (the stream's thread sleeps). */
    if (deadline == 0 && goabt_caller_is_tasklet()) return ABT_ERR_COND;
    return goabt_cond_wait(c, m, deadline);
}

int ABT_cond_wait(ABT_cond cond, ABT_mutex mutex)
{
    return cond_wait(cond, mutex, 0);
}

int ABT_cond_timedwait(ABT_cond cond, ABT_mutex mutex, const struct timespec *abstime)
{
    GOABT_CHECK_ARG(abstime != NULL);
    return cond_wait(cond, mutex, goabt_timespec_ns(abstime));
}

int ABT_cond_signal(ABT_cond cond)
{
    RESOLVE_COND(c, cond);
    goabt_cond_wake(c, 0);
    return ABT_SUCCESS;
}

int ABT_cond_broadcast(ABT_cond cond)
{
    RESOLVE_COND(c, cond);
    goabt_cond_wake(c, 1);
    return ABT_SUCCESS;
}
