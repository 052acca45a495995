//go:build goabt_c_engine
/* mutex.c: ABT_mutex_* and ABT_mutex_attr_*: check, resolve, call the engine (engine/mutex.h,
 * where the algorithm is). */
#include "args.h"
#include "goabt.h"
#include "engine/handles.h"
#include "engine/mutex.h"
#include "engine/object.h"
#include "engine/runtime.h"
#include "engine/unit.h"

struct ABT_mutex_attr_opaque {
    uint32_t flags; /* GOABT_MUTEX_RECURSIVE */
    uint32_t magic;
};

#define RESOLVE_MUTEX(m, h)                                                                   \
    GOABT_RESOLVE_OBJECT(goabt_mutex, m, h, GOABT_MAGIC_MUTEX, 1, ABT_ERR_INV_MUTEX)
#define RESOLVE_ATTR(a, h)                                                                    \
    GOABT_RESOLVE_OBJECT(struct ABT_mutex_attr_opaque, a, h, GOABT_MAGIC_MUTEX_ATTR, 0,       \
                         ABT_ERR_INV_MUTEX_ATTR)

int goabt_mutex_get_num_waiters(ABT_mutex mutex, int *num)
{
    RESOLVE_MUTEX(m, mutex);
    GOABT_CHECK_OUT(num);
    *num = goabt_mutex_num_queued(m);
    return ABT_SUCCESS;
}

/* ---- The API ------------------------------------------------------------------------------- */

int ABT_mutex_create(ABT_mutex *newmutex)
{
    if (newmutex != NULL) *newmutex = ABT_MUTEX_NULL;
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newmutex);
    goabt_mutex *m = goabt_object_new(sizeof *m, GOABT_MAGIC_MUTEX);
    if (m == NULL) return ABT_ERR_MEM;
    *newmutex = m;
    return ABT_SUCCESS;
}

int ABT_mutex_create_with_attr(ABT_mutex_attr attr, ABT_mutex *newmutex)
{
    if (newmutex != NULL) *newmutex = ABT_MUTEX_NULL;
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    uint32_t flags = 0;
    if (attr != ABT_MUTEX_ATTR_NULL) {
        RESOLVE_ATTR(a, attr);
        flags = a->flags;
    }
    GOABT_CHECK_OUT(newmutex);
    goabt_mutex *m = goabt_object_new(sizeof *m, GOABT_MAGIC_MUTEX);
    if (m == NULL) return ABT_ERR_MEM;
    m->flags = flags;
    *newmutex = m;
    return ABT_SUCCESS;
}

int ABT_mutex_free(ABT_mutex *mutex)
{
    GOABT_CHECK_OUT(mutex);
    /* statics 0: static memory is not freed */
    GOABT_RESOLVE_OBJECT(goabt_mutex, m, *mutex, GOABT_MAGIC_MUTEX, 0, ABT_ERR_INV_MUTEX);
    if (goabt_mutex_waited(m)) return ABT_ERR_MUTEX; /* they would wait on freed memory forever */
    goabt_object_delete(m, sizeof *m);
    *mutex = ABT_MUTEX_NULL;
    return ABT_SUCCESS;
}

int ABT_mutex_lock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    goabt_mutex_lock(m, MUTEX_NORMAL);
    return ABT_SUCCESS;
}

int ABT_mutex_lock_high(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    goabt_mutex_lock(m, MUTEX_HIGH);
    return ABT_SUCCESS;
}

int ABT_mutex_lock_low(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    goabt_mutex_lock(m, MUTEX_LOW);
    return ABT_SUCCESS;
}

int ABT_mutex_trylock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    int rc = goabt_mutex_trylock(m);
    if (rc != ABT_SUCCESS) goabt_give_way_to_main();
    return rc;
}

int ABT_mutex_spinlock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    goabt_mutex_spinlock(m);
    return ABT_SUCCESS;
}

/* The unlocks and a failed trylock give way to the main ULT where it waits for the primary
 * (unit.h, goabt_give_way_to_main). */
int ABT_mutex_unlock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    int woke;
    int rc = goabt_mutex_unlock(m, &woke);
    goabt_give_way_to_main();
    return rc;
}

int ABT_mutex_unlock_se(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    int woke;
    int rc = goabt_mutex_unlock(m, &woke);
    /* Let the woken waiter run soon: a ULT caller yields. */
    if (rc == ABT_SUCCESS && woke && goabt_caller_parks()) {
        goabt_unit_yield();
    } else {
        goabt_give_way_to_main();
    }
    return rc;
}

int ABT_mutex_unlock_de(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    int woke;
    int rc = goabt_mutex_unlock(m, &woke);
    goabt_give_way_to_main();
    return rc;
}

int ABT_mutex_equal(ABT_mutex mutex1, ABT_mutex mutex2, ABT_bool *result)
{
    GOABT_CHECK_OUT(result);
    *result = mutex1 == mutex2 ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_mutex_get_attr(ABT_mutex mutex, ABT_mutex_attr *attr)
{
    RESOLVE_MUTEX(m, mutex);
    GOABT_CHECK_OUT(attr);
    struct ABT_mutex_attr_opaque *a = goabt_object_new(sizeof *a, GOABT_MAGIC_MUTEX_ATTR);
    if (a == NULL) return ABT_ERR_MEM;
    a->flags = goabt_mutex_flags(m) & GOABT_MUTEX_RECURSIVE;
    *attr = a;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_create(ABT_mutex_attr *newattr)
{
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newattr);
    struct ABT_mutex_attr_opaque *a = goabt_object_new(sizeof *a, GOABT_MAGIC_MUTEX_ATTR);
    if (a == NULL) return ABT_ERR_MEM;
    *newattr = a;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_free(ABT_mutex_attr *attr)
{
    GOABT_CHECK_OUT(attr);
    RESOLVE_ATTR(a, *attr);
    goabt_object_delete(a, sizeof *a);
    *attr = ABT_MUTEX_ATTR_NULL;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_set_recursive(ABT_mutex_attr attr, ABT_bool recursive)
{
    RESOLVE_ATTR(a, attr);
    a->flags = recursive ? GOABT_MUTEX_RECURSIVE : 0;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_get_recursive(ABT_mutex_attr attr, ABT_bool *recursive)
{
    RESOLVE_ATTR(a, attr);
    GOABT_CHECK_OUT(recursive);
    *recursive = (a->flags & GOABT_MUTEX_RECURSIVE) ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}
