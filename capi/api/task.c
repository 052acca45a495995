//go:build goabt_c_engine
/* Tasklets (ABT_task_*). In Argobots 1.2 ABT_task is ABT_thread: the tasklet functions are the
 * unit functions with ABT_ERR_INV_THREAD reported as ABT_ERR_INV_TASK. */
#include "args.h"
#include "engine/handles.h"
#include "engine/pool.h"
#include "engine/runtime.h"
#include "engine/stream.h"
#include "engine/unit.h"

static int as_task_error(int rc) { return rc == ABT_ERR_INV_THREAD ? ABT_ERR_INV_TASK : rc; }

int ABT_task_create(ABT_pool pool, void (*task_func)(void *), void *arg, ABT_task *newtask)
{
    if (newtask != NULL) *newtask = ABT_TASK_NULL;
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG(task_func != NULL);
    return goabt_unit_create(p, GOABT_TASKLET, task_func, arg, NULL, newtask != NULL, newtask);
}

int ABT_task_create_on_xstream(ABT_xstream xstream, void (*task_func)(void *), void *arg,
                               ABT_task *newtask)
{
    if (newtask != NULL) *newtask = ABT_TASK_NULL;
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    return ABT_task_create(s->sched->pools[0], task_func, arg, newtask);
}

int ABT_task_free(ABT_task *task)
{
    GOABT_CHECK_TRUE(task != NULL, ABT_ERR_INV_TASK);
    int rc = as_task_error(ABT_thread_free(task));
    if (rc == ABT_SUCCESS) *task = ABT_TASK_NULL;
    return rc;
}

int ABT_task_join(ABT_task task) { return as_task_error(ABT_thread_join(task)); }

int ABT_task_self(ABT_task *task)
{
    if (task != NULL) *task = ABT_TASK_NULL;
    GOABT_SELF_STREAM(s);
    GOABT_CHECK_TRUE(s->current != NULL && s->current->kind == GOABT_TASKLET, ABT_ERR_INV_TASK);
    GOABT_CHECK_OUT(task);
    *task = s->current;
    return ABT_SUCCESS;
}

int ABT_task_self_id(uint64_t *id)
{
    GOABT_SELF_STREAM(s);
    GOABT_CHECK_TRUE(s->current != NULL && s->current->kind == GOABT_TASKLET, ABT_ERR_INV_TASK);
    GOABT_CHECK_OUT(id);
    *id = goabt_unit_id(s->current);
    return ABT_SUCCESS;
}

int ABT_task_get_xstream(ABT_task task, ABT_xstream *xstream)
{
    return as_task_error(ABT_thread_get_last_xstream(task, xstream));
}

int ABT_task_get_state(ABT_task task, ABT_task_state *state)
{
    GOABT_TASK(u, task);
    GOABT_CHECK_OUT(state);
    switch (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE)) {
    case ABT_THREAD_STATE_READY:
        *state = ABT_TASK_STATE_READY;
        break;
    case ABT_THREAD_STATE_TERMINATED:
        *state = ABT_TASK_STATE_TERMINATED;
        break;
    default:
        *state = ABT_TASK_STATE_RUNNING;
        break;
    }
    return ABT_SUCCESS;
}

int ABT_task_get_last_pool(ABT_task task, ABT_pool *pool)
{
    return as_task_error(ABT_thread_get_last_pool(task, pool));
}

int ABT_task_get_last_pool_id(ABT_task task, int *id)
{
    return as_task_error(ABT_thread_get_last_pool_id(task, id));
}

int ABT_task_set_migratable(ABT_task task, ABT_bool flag)
{
    return as_task_error(ABT_thread_set_migratable(task, flag));
}

int ABT_task_is_migratable(ABT_task task, ABT_bool *flag)
{
    return as_task_error(ABT_thread_is_migratable(task, flag));
}

int ABT_task_equal(ABT_task task1, ABT_task task2, ABT_bool *result)
{
    return ABT_thread_equal(task1, task2, result);
}

int ABT_task_get_id(ABT_task task, uint64_t *task_id)
{
    return as_task_error(ABT_thread_get_id(task, task_id));
}

int ABT_task_get_arg(ABT_task task, void **arg) { return as_task_error(ABT_thread_get_arg(task, arg)); }

int ABT_task_cancel(ABT_task task) { return as_task_error(ABT_thread_cancel(task)); }

int ABT_task_revive(ABT_pool pool, void (*task_func)(void *), void *arg, ABT_task *task)
{
    return as_task_error(goabt_unit_revive_api(pool, task_func, arg, task, GOABT_TASKLET, 0));
}
