//go:build goabt_c_engine
/*
 * not_implemented.c: a body for every Argobots 1.2 function that goabt does not implement yet, so
 * that libgoabt.so exports the whole API and programs link against it. Each returns
 * ABT_ERR_FEATURE_NA without touching its arguments, as include/abt.h documents. As later issues
 * implement functions (in Go under capi/, or in C beside it), they move out of this file.
 */
#include "abt.h"

#define UNUSED(x) (void)(x)

/* Execution streams */

int ABT_xstream_revive(ABT_xstream xstream)
{
    UNUSED(xstream);
    return ABT_ERR_FEATURE_NA;
}

int ABT_xstream_exit(void)
{
    return ABT_ERR_FEATURE_NA;
}

int ABT_xstream_cancel(ABT_xstream xstream)
{
    UNUSED(xstream);
    return ABT_ERR_FEATURE_NA;
}



int ABT_xstream_set_cpubind(ABT_xstream xstream, int cpuid)
{
    UNUSED(xstream); UNUSED(cpuid);
    return ABT_ERR_FEATURE_NA;
}

int ABT_xstream_get_cpubind(ABT_xstream xstream, int *cpuid)
{
    UNUSED(xstream); UNUSED(cpuid);
    return ABT_ERR_FEATURE_NA;
}

int ABT_xstream_set_affinity(ABT_xstream xstream, int num_cpuids, int *cpuids)
{
    UNUSED(xstream); UNUSED(num_cpuids); UNUSED(cpuids);
    return ABT_ERR_FEATURE_NA;
}

int ABT_xstream_get_affinity(ABT_xstream xstream, int max_cpuids, int *cpuids, int *num_cpuids)
{
    UNUSED(xstream); UNUSED(max_cpuids); UNUSED(cpuids); UNUSED(num_cpuids);
    return ABT_ERR_FEATURE_NA;
}

/* Schedulers */









/* Pools */



































/* Pool units */


/* ULTs */


int ABT_thread_revive(ABT_pool pool, void (*thread_func)(void *), void *arg, ABT_thread *thread)
{
    UNUSED(pool); UNUSED(thread_func); UNUSED(arg); UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_thread_revive_to(ABT_pool pool, void (*thread_func)(void *), void *arg, ABT_thread *thread)
{
    UNUSED(pool); UNUSED(thread_func); UNUSED(arg); UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_thread_cancel(ABT_thread thread)
{
    UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}



int ABT_thread_migrate_to_xstream(ABT_thread thread, ABT_xstream xstream)
{
    UNUSED(thread); UNUSED(xstream);
    return ABT_ERR_FEATURE_NA;
}

int ABT_thread_migrate_to_sched(ABT_thread thread, ABT_sched sched)
{
    UNUSED(thread); UNUSED(sched);
    return ABT_ERR_FEATURE_NA;
}

int ABT_thread_migrate_to_pool(ABT_thread thread, ABT_pool pool)
{
    UNUSED(thread); UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

int ABT_thread_migrate(ABT_thread thread)
{
    UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_thread_set_callback(ABT_thread thread, void (*cb_func)(ABT_thread, void *), void *cb_arg)
{
    UNUSED(thread); UNUSED(cb_func); UNUSED(cb_arg);
    return ABT_ERR_FEATURE_NA;
}

/* Tasklets */

int ABT_task_revive(ABT_pool pool, void (*task_func)(void *), void *arg, ABT_task *task)
{
    UNUSED(pool); UNUSED(task_func); UNUSED(arg); UNUSED(task);
    return ABT_ERR_FEATURE_NA;
}

int ABT_task_cancel(ABT_task task)
{
    UNUSED(task);
    return ABT_ERR_FEATURE_NA;
}

/* The calling work unit */









/* Tool interface */

int ABT_tool_register_thread_callback(ABT_tool_thread_callback_fn cb_func, uint64_t event_mask,
                                      void *user_arg)
{
    UNUSED(cb_func); UNUSED(event_mask); UNUSED(user_arg);
    return ABT_ERR_FEATURE_NA;
}

int ABT_tool_query_thread(ABT_tool_context context, uint64_t event, ABT_tool_query_kind query_kind,
                          void *val)
{
    UNUSED(context); UNUSED(event); UNUSED(query_kind); UNUSED(val);
    return ABT_ERR_FEATURE_NA;
}
