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


/* Schedulers */

/* Pools */

/* Pool units */

/* ULTs */

/* Tasklets */

/* The calling work unit */

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

