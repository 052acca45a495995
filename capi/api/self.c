//go:build goabt_c_engine
/* The calling work unit (ABT_self_*). From an external thread they answer ABT_ERR_INV_XSTREAM,
 * from a tasklet the ULT-only ones answer ABT_ERR_INV_THREAD, as Argobots 1.2 does. From a
 * scheduler's context (a user scheduler's run function, a user pool's functions) the queries
 * and keys answer for the scheduler as a ULT (goabt_stream_sched_self), where Argobots runs
 * it. Nothing below that scheduler would run it again, so what would switch it out (suspend,
 * exit, and the *_to calls) answers ABT_ERR_INV_THREAD, as Argobots refuses its main scheduler's
 * ULT for the *_to calls, and ABT_self_yield returns at once, as in Argobots, whose root
 * scheduler runs its main scheduler again at once; the rest (set_arg ...) answers
 * ABT_ERR_INV_XSTREAM. */
#include "args.h"
#include "engine/handles.h"
#include "engine/pool.h"
#include "engine/pool_member.h"
#include "engine/unit.h"

/* The caller's stream and unit, or the error that the caller's kind gets. */

int ABT_self_get_xstream(ABT_xstream *xstream)
{
    if (xstream != NULL) *xstream = ABT_XSTREAM_NULL;
    GOABT_SELF_STREAM(s);
    GOABT_CHECK_OUT(xstream);
    *xstream = s;
    return ABT_SUCCESS;
}

int ABT_self_get_xstream_rank(int *rank)
{
    GOABT_SELF_STREAM(s);
    GOABT_CHECK_OUT(rank);
    *rank = s->rank;
    return ABT_SUCCESS;
}

int ABT_self_get_thread(ABT_thread *thread)
{
    if (thread != NULL) *thread = ABT_THREAD_NULL;
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_OUT(thread);
    *thread = u;
    return ABT_SUCCESS;
}

int ABT_self_get_thread_id(ABT_unit_id *id)
{
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_OUT(id);
    *id = goabt_unit_id(u);
    return ABT_SUCCESS;
}

int ABT_self_get_type(ABT_unit_type *type)
{
    if (type != NULL) *type = ABT_UNIT_TYPE_EXT;
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_OUT(type);
    *type = u->kind == GOABT_ULT ? ABT_UNIT_TYPE_THREAD : ABT_UNIT_TYPE_TASK;
    return ABT_SUCCESS;
}

int ABT_self_is_primary(ABT_bool *is_primary)
{
    if (is_primary != NULL) *is_primary = ABT_FALSE;
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_TRUE(u->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    GOABT_CHECK_OUT(is_primary);
    *is_primary = (u->flags & GOABT_UNIT_MAIN) ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_self_on_primary_xstream(ABT_bool *on_primary)
{
    if (on_primary != NULL) *on_primary = ABT_FALSE;
    GOABT_SELF_STREAM(s);
    GOABT_CHECK_OUT(on_primary);
    *on_primary = s->is_primary ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_self_is_unnamed(ABT_bool *is_unnamed)
{
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_OUT(is_unnamed);
    *is_unnamed = (u->flags & GOABT_UNIT_NAMED) ? ABT_FALSE : ABT_TRUE;
    return ABT_SUCCESS;
}

int ABT_self_get_last_pool(ABT_pool *pool)
{
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_OUT(pool);
    *pool = u->pool != NULL ? u->pool : ABT_POOL_NULL;
    return ABT_SUCCESS;
}

int ABT_self_get_last_pool_id(int *pool_id)
{
    if (pool_id != NULL) *pool_id = -1;
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_OUT(pool_id);
    *pool_id = u->pool != NULL ? u->pool->id : -1;
    return ABT_SUCCESS;
}

int ABT_self_get_unit(ABT_unit *unit)
{
    GOABT_SELF_OR_SCHED(s, u);
    GOABT_CHECK_OUT(unit);
    /* As ABT_thread_get_unit: a user pool's unit for it, else the work unit itself. */
    *unit = goabt_unit_pool_handle(u);
    return ABT_SUCCESS;
}

/* The calling ULT, for the calls that switch it out (yield, suspend, exit and the *_to calls):
 * ABT_ERR_INV_XSTREAM from an external thread; ABT_ERR_INV_THREAD from a tasklet, and from a
 * scheduler's context (s->current NULL: top of file). */
#define SELF_ULT(s, u)                                                                        \
    GOABT_SELF_STREAM(s);                                                                     \
    goabt_unit *u = s->current;                                                               \
    GOABT_CHECK_TRUE(u != NULL && u->kind == GOABT_ULT, ABT_ERR_INV_THREAD)

int ABT_self_yield(void)
{
    GOABT_SELF_STREAM(s);
    goabt_unit *u = s->current;
    if (u == NULL) return ABT_SUCCESS; /* a scheduler's context: top of file */
    GOABT_CHECK_TRUE(u->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    goabt_unit_yield();
    return ABT_SUCCESS;
}

int ABT_self_yield_to(ABT_thread thread)
{
    SELF_ULT(s, u);
    GOABT_UNIT(t, thread);
    GOABT_CHECK_TRUE(t->kind == GOABT_ULT && t != u, ABT_ERR_INV_THREAD);
    goabt_unit_yield_to(t);
    return ABT_SUCCESS;
}

/* target: a ULT other than self. */
#define OTHER_ULT(t, thread, u)                                                               \
    GOABT_UNIT(t, thread);                                                                    \
    GOABT_CHECK_TRUE(t != u, ABT_ERR_INV_THREAD)

int ABT_self_suspend(void)
{
    SELF_ULT(s, u);
    goabt_unit_suspend(NULL);
    return ABT_SUCCESS;
}

int ABT_self_suspend_to(ABT_thread thread)
{
    SELF_ULT(s, u);
    OTHER_ULT(t, thread, u);
    goabt_unit_suspend(t);
    return ABT_SUCCESS;
}

int ABT_self_exit_to(ABT_thread thread)
{
    SELF_ULT(s, u);
    GOABT_CHECK_TRUE(!(u->flags & GOABT_UNIT_MAIN), ABT_ERR_INV_THREAD);
    OTHER_ULT(t, thread, u);
    goabt_unit_exit_to(t);
}

/* resume_*_to: ABT_ERR_THREAD when thread is not suspended (nothing is done). */
int ABT_self_resume_yield_to(ABT_thread thread)
{
    SELF_ULT(s, u);
    OTHER_ULT(t, thread, u);
    return goabt_unit_resume_to(t, 0) ? ABT_SUCCESS : ABT_ERR_THREAD;
}

int ABT_self_resume_suspend_to(ABT_thread thread)
{
    SELF_ULT(s, u);
    OTHER_ULT(t, thread, u);
    return goabt_unit_resume_to(t, 1) ? ABT_SUCCESS : ABT_ERR_THREAD;
}

int ABT_self_resume_exit_to(ABT_thread thread)
{
    SELF_ULT(s, u);
    GOABT_CHECK_TRUE(!(u->flags & GOABT_UNIT_MAIN), ABT_ERR_INV_THREAD);
    OTHER_ULT(t, thread, u);
    return goabt_unit_resume_to(t, 2) ? ABT_SUCCESS : ABT_ERR_THREAD;
}

int ABT_self_set_associated_pool(ABT_pool pool)
{
    GOABT_SELF(s, u);
    GOABT_POOL(p, pool);
    return goabt_pool_member_set(p, u);
}

int ABT_self_exit(void)
{
    SELF_ULT(s, u);
    GOABT_CHECK_TRUE(!(u->flags & GOABT_UNIT_MAIN), ABT_ERR_INV_THREAD);
    goabt_unit_exit();
}

int ABT_self_set_arg(void *arg)
{
    GOABT_SELF(s, u);
    u->arg = arg;
    return ABT_SUCCESS;
}

int ABT_self_get_arg(void **arg)
{
    if (arg != NULL) *arg = NULL;
    GOABT_SELF(s, u);
    GOABT_CHECK_OUT(arg);
    *arg = u->arg;
    return ABT_SUCCESS;
}

int ABT_self_get_thread_func(void (**thread_func)(void *))
{
    GOABT_SELF(s, u);
    GOABT_CHECK_ARG(thread_func != NULL);
    *thread_func = u->func;
    return ABT_SUCCESS;
}

/* The same as ABT_key_set / ABT_key_get (key.c), under their Argobots 1.2 names. */
int ABT_self_set_specific(ABT_key key, void *value) { return ABT_key_set(key, value); }

int ABT_self_get_specific(ABT_key key, void **value) { return ABT_key_get(key, value); }
