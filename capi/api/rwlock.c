//go:build goabt_c_engine
/* rwlock.c: ABT_rwlock_*: check, resolve, call the engine (engine/rwlock.h, where the algorithm
 * is). */
#include "args.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/rwlock.h"
#include "engine/unit.h"
#include "engine/wait.h"

#define RESOLVE_RWLOCK(l, h)                                                                  \
    GOABT_RESOLVE_OBJECT(goabt_rwlock, l, h, GOABT_MAGIC_RWLOCK, 0, ABT_ERR_INV_RWLOCK)

int ABT_rwlock_create(ABT_rwlock *newrwlock)
{
    if (newrwlock != NULL) *newrwlock = ABT_RWLOCK_NULL; /* Argobots 1.x does so on error */
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newrwlock);
    goabt_rwlock *l = goabt_object_new(sizeof *l, GOABT_MAGIC_RWLOCK);
    if (l == NULL) return ABT_ERR_MEM;
    *newrwlock = l;
    return ABT_SUCCESS;
}

int ABT_rwlock_free(ABT_rwlock *rwlock)
{
    GOABT_CHECK_OUT(rwlock);
    RESOLVE_RWLOCK(l, *rwlock);
    /* A held lock may be freed (Argobots does); one with waiters may not: they would never
     * wake. Argobots leaves that undefined. */
    if (goabt_rwlock_waited(l)) return ABT_ERR_RWLOCK;
    goabt_object_delete(l, sizeof *l);
    *rwlock = ABT_RWLOCK_NULL;
    return ABT_SUCCESS;
}

static int rwlock_acquire(ABT_rwlock rwlock, int writer)
{
    RESOLVE_RWLOCK(l, rwlock);
    if (goabt_caller_is_tasklet()) return ABT_ERR_RWLOCK;
    goabt_rwlock_acquire(l, writer);
    return ABT_SUCCESS;
}

int ABT_rwlock_rdlock(ABT_rwlock rwlock) { return rwlock_acquire(rwlock, 0); }

int ABT_rwlock_wrlock(ABT_rwlock rwlock) { return rwlock_acquire(rwlock, 1); }

int ABT_rwlock_unlock(ABT_rwlock rwlock)
{
    RESOLVE_RWLOCK(l, rwlock);
    int rc = goabt_rwlock_unlock(l);
    goabt_give_way_to_main(); /* unit.h */
    return rc;
}
