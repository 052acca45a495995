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

int ABT_xstream_run_unit(ABT_unit unit, ABT_pool pool)
{
    UNUSED(unit); UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

int ABT_xstream_check_events(ABT_sched sched)
{
    UNUSED(sched);
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

int ABT_sched_create(ABT_sched_def *def, int num_pools, ABT_pool *pools, ABT_sched_config config,
                     ABT_sched *newsched)
{
    UNUSED(def); UNUSED(num_pools); UNUSED(pools); UNUSED(config); UNUSED(newsched);
    return ABT_ERR_FEATURE_NA;
}

int ABT_sched_set_data(ABT_sched sched, void *data)
{
    UNUSED(sched); UNUSED(data);
    return ABT_ERR_FEATURE_NA;
}

int ABT_sched_get_data(ABT_sched sched, void **data)
{
    UNUSED(sched); UNUSED(data);
    return ABT_ERR_FEATURE_NA;
}

int ABT_sched_get_size(ABT_sched sched, size_t *size)
{
    UNUSED(sched); UNUSED(size);
    return ABT_ERR_FEATURE_NA;
}

int ABT_sched_get_total_size(ABT_sched sched, size_t *size)
{
    UNUSED(sched); UNUSED(size);
    return ABT_ERR_FEATURE_NA;
}

int ABT_sched_finish(ABT_sched sched)
{
    UNUSED(sched);
    return ABT_ERR_FEATURE_NA;
}

int ABT_sched_exit(ABT_sched sched)
{
    UNUSED(sched);
    return ABT_ERR_FEATURE_NA;
}

int ABT_sched_has_to_stop(ABT_sched sched, ABT_bool *stop)
{
    UNUSED(sched); UNUSED(stop);
    return ABT_ERR_FEATURE_NA;
}

/* Pools */

int ABT_pool_create(ABT_pool_user_def def, ABT_pool_config config, ABT_pool *newpool)
{
    UNUSED(def); UNUSED(config); UNUSED(newpool);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_thread(ABT_pool pool, ABT_thread *thread)
{
    UNUSED(pool); UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_thread_ex(ABT_pool pool, ABT_thread *thread, ABT_pool_context pool_ctx)
{
    UNUSED(pool); UNUSED(thread); UNUSED(pool_ctx);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_threads(ABT_pool pool, ABT_thread *threads, size_t len, size_t *num)
{
    UNUSED(pool); UNUSED(threads); UNUSED(len); UNUSED(num);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_threads_ex(ABT_pool pool, ABT_thread *threads, size_t len, size_t *num,
                            ABT_pool_context pool_ctx)
{
    UNUSED(pool); UNUSED(threads); UNUSED(len); UNUSED(num); UNUSED(pool_ctx);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_push_thread(ABT_pool pool, ABT_thread thread)
{
    UNUSED(pool); UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_push_thread_ex(ABT_pool pool, ABT_thread thread, ABT_pool_context pool_ctx)
{
    UNUSED(pool); UNUSED(thread); UNUSED(pool_ctx);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_push_threads(ABT_pool pool, const ABT_thread *threads, size_t num)
{
    UNUSED(pool); UNUSED(threads); UNUSED(num);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_push_threads_ex(ABT_pool pool, const ABT_thread *threads, size_t num,
                             ABT_pool_context pool_ctx)
{
    UNUSED(pool); UNUSED(threads); UNUSED(num); UNUSED(pool_ctx);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_wait_thread(ABT_pool pool, ABT_thread *thread, double time_secs)
{
    UNUSED(pool); UNUSED(thread); UNUSED(time_secs);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_wait_thread_ex(ABT_pool pool, ABT_thread *thread, double time_secs,
                                ABT_pool_context pool_ctx)
{
    UNUSED(pool); UNUSED(thread); UNUSED(time_secs); UNUSED(pool_ctx);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_print_all_threads(ABT_pool pool, void *arg, void (*print_fn)(void *, ABT_thread))
{
    UNUSED(pool); UNUSED(arg); UNUSED(print_fn);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_set_data(ABT_pool pool, void *data)
{
    UNUSED(pool); UNUSED(data);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_get_data(ABT_pool pool, void **data)
{
    UNUSED(pool); UNUSED(data);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_add_sched(ABT_pool pool, ABT_sched sched)
{
    UNUSED(pool); UNUSED(sched);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop(ABT_pool pool, ABT_unit *unit)
{
    UNUSED(pool); UNUSED(unit);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_wait(ABT_pool pool, ABT_unit *unit, double time_secs)
{
    UNUSED(pool); UNUSED(unit); UNUSED(time_secs);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_pop_timedwait(ABT_pool pool, ABT_unit *unit, double abstime_secs)
{
    UNUSED(pool); UNUSED(unit); UNUSED(abstime_secs);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_remove(ABT_pool pool, ABT_unit unit)
{
    UNUSED(pool); UNUSED(unit);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_push(ABT_pool pool, ABT_unit unit)
{
    UNUSED(pool); UNUSED(unit);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_print_all(ABT_pool pool, void *arg, void (*print_fn)(void *, ABT_unit))
{
    UNUSED(pool); UNUSED(arg); UNUSED(print_fn);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_config_create(ABT_pool_config *config)
{
    UNUSED(config);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_config_free(ABT_pool_config *config)
{
    UNUSED(config);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_config_set(ABT_pool_config config, int key, ABT_pool_config_type type, const void *val)
{
    UNUSED(config); UNUSED(key); UNUSED(type); UNUSED(val);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_config_get(ABT_pool_config config, int key, ABT_pool_config_type *p_type, void *val)
{
    UNUSED(config); UNUSED(key); UNUSED(p_type); UNUSED(val);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_create(ABT_pool_user_create_unit_fn p_create_unit,
                             ABT_pool_user_free_unit_fn p_free_unit,
                             ABT_pool_user_is_empty_fn p_is_empty, ABT_pool_user_pop_fn p_pop,
                             ABT_pool_user_push_fn p_push, ABT_pool_user_def *newdef)
{
    UNUSED(p_create_unit); UNUSED(p_free_unit); UNUSED(p_is_empty); UNUSED(p_pop); UNUSED(p_push);
    UNUSED(newdef);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_free(ABT_pool_user_def *def)
{
    UNUSED(def);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_set_init(ABT_pool_user_def def, ABT_pool_user_init_fn p_init)
{
    UNUSED(def); UNUSED(p_init);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_set_free(ABT_pool_user_def def, ABT_pool_user_free_fn p_free)
{
    UNUSED(def); UNUSED(p_free);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_set_get_size(ABT_pool_user_def def, ABT_pool_user_get_size_fn p_get_size)
{
    UNUSED(def); UNUSED(p_get_size);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_set_pop_wait(ABT_pool_user_def def, ABT_pool_user_pop_wait_fn p_pop_wait)
{
    UNUSED(def); UNUSED(p_pop_wait);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_set_pop_many(ABT_pool_user_def def, ABT_pool_user_pop_many_fn p_pop_many)
{
    UNUSED(def); UNUSED(p_pop_many);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_set_push_many(ABT_pool_user_def def, ABT_pool_user_push_many_fn p_push_many)
{
    UNUSED(def); UNUSED(p_push_many);
    return ABT_ERR_FEATURE_NA;
}

int ABT_pool_user_def_set_print_all(ABT_pool_user_def def, ABT_pool_user_print_all_fn p_print_all)
{
    UNUSED(def); UNUSED(p_print_all);
    return ABT_ERR_FEATURE_NA;
}

/* Pool units */

int ABT_unit_set_associated_pool(ABT_unit unit, ABT_pool pool)
{
    UNUSED(unit); UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

/* ULTs */

int ABT_thread_create_to(ABT_pool pool, void (*thread_func)(void *), void *arg,
                         ABT_thread_attr attr, ABT_thread *newthread)
{
    UNUSED(pool); UNUSED(thread_func); UNUSED(arg); UNUSED(attr); UNUSED(newthread);
    return ABT_ERR_FEATURE_NA;
}

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

int ABT_thread_set_associated_pool(ABT_thread thread, ABT_pool pool)
{
    UNUSED(thread); UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

int ABT_thread_resume(ABT_thread thread)
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

int ABT_self_set_associated_pool(ABT_pool pool)
{
    UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

int ABT_self_resume_yield_to(ABT_thread thread)
{
    UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_self_suspend(void)
{
    return ABT_ERR_FEATURE_NA;
}

int ABT_self_suspend_to(ABT_thread thread)
{
    UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_self_resume_suspend_to(ABT_thread thread)
{
    UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_self_exit_to(ABT_thread thread)
{
    UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_self_resume_exit_to(ABT_thread thread)
{
    UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_self_schedule(ABT_thread thread, ABT_pool pool)
{
    UNUSED(thread); UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

/* Information */

int ABT_info_print_all_xstreams(FILE *fp)
{
    UNUSED(fp);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_xstream(FILE *fp, ABT_xstream xstream)
{
    UNUSED(fp); UNUSED(xstream);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_sched(FILE *fp, ABT_sched sched)
{
    UNUSED(fp); UNUSED(sched);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_pool(FILE *fp, ABT_pool pool)
{
    UNUSED(fp); UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_thread(FILE *fp, ABT_thread thread)
{
    UNUSED(fp); UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_thread_attr(FILE *fp, ABT_thread_attr attr)
{
    UNUSED(fp); UNUSED(attr);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_task(FILE *fp, ABT_task task)
{
    UNUSED(fp); UNUSED(task);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_thread_stack(FILE *fp, ABT_thread thread)
{
    UNUSED(fp); UNUSED(thread);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_print_thread_stacks_in_pool(FILE *fp, ABT_pool pool)
{
    UNUSED(fp); UNUSED(pool);
    return ABT_ERR_FEATURE_NA;
}

int ABT_info_trigger_print_all_thread_stacks(FILE *fp, double timeout,
                                             void (*cb_func)(ABT_bool, void *), void *arg)
{
    UNUSED(fp); UNUSED(timeout); UNUSED(cb_func); UNUSED(arg);
    return ABT_ERR_FEATURE_NA;
}

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
