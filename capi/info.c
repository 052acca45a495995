//go:build goabt_c_engine
/* ABT_info_query_config and ABT_info_print_config: what this build of goabt does, in the
 * types Argobots 1.2 defines for each query. Features goabt does not have report ABT_FALSE. */
#include <pthread.h>
#include "engine.h"

/* The stack a stream's scheduler gets: the default pthread stack. */
static size_t sched_stacksize(void)
{
    pthread_attr_t a;
    size_t size = 0;
    if (pthread_attr_init(&a) == 0) {
        pthread_attr_getstacksize(&a, &size);
        pthread_attr_destroy(&a);
    }
    return size;
}

int ABT_info_query_config(ABT_info_query_kind query_kind, void *val)
{
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    if ((int)query_kind < 0 || query_kind > ABT_INFO_QUERY_KIND_ENABLED_LAZY_STACK_ALLOC) {
        return ABT_ERR_INV_QUERY_KIND;
    }
    if (val == NULL) return ABT_ERR_INV_ARG;
    switch (query_kind) {
    case ABT_INFO_QUERY_KIND_ENABLED_CHECK_ERROR:
    case ABT_INFO_QUERY_KIND_ENABLED_PRESERVE_FPU:   /* the switch saves MXCSR/x87 CW, FPCR */
    case ABT_INFO_QUERY_KIND_ENABLED_EXTERNAL_THREAD:
    case ABT_INFO_QUERY_KIND_FCONTEXT:               /* goabt's own assembly switch */
        *(ABT_bool *)val = ABT_TRUE;
        break;
    case ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS:
        *(unsigned int *)val = (unsigned int)goabt_rt.max_xstreams;
        break;
    case ABT_INFO_QUERY_KIND_DEFAULT_THREAD_STACKSIZE:
        *(size_t *)val = goabt_rt.thread_stacksize;
        break;
    case ABT_INFO_QUERY_KIND_DEFAULT_SCHED_STACKSIZE:
        *(size_t *)val = sched_stacksize();
        break;
    case ABT_INFO_QUERY_KIND_DEFAULT_SCHED_EVENT_FREQ:
        *(uint64_t *)val = 50;
        break;
    case ABT_INFO_QUERY_KIND_DEFAULT_SCHED_SLEEP_NSEC:
        *(uint64_t *)val = 100;
        break;
    case ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK:
        /* ABT_STACK_OVERFLOW_CHECK at ABT_init: 0 none, 1 canary, 2 mprotect (the default),
         * 3 mprotect_strict, as Argobots reports them (stackcheck.c says what each does). */
        *(int *)val = goabt_rt.stack_check;
        break;
    case ABT_INFO_QUERY_KIND_ENABLED_AFFINITY:
        *(ABT_bool *)val = goabt_rt.affinity ? ABT_TRUE : ABT_FALSE;
        break;
    case ABT_INFO_QUERY_KIND_WAIT_POLICY:
        *(int *)val = 0; /* passive: idle streams sleep */
        break;
    default:
        /* Debug, logging, valgrind, pool checks, cancellation, migration, stackable schedulers,
         * sched sleep, print config, tools, dynamic promotion, stack unwinding, lazy
         * stacks: not in goabt. */
        *(ABT_bool *)val = ABT_FALSE;
        break;
    }
    return ABT_SUCCESS;
}

int ABT_info_print_config(FILE *fp)
{
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    if (fp == NULL) return ABT_ERR_INV_ARG;
    fprintf(fp, "goabt configuration (Argobots %s API)\n", ABT_VERSION);
    fprintf(fp, " default ULT stack size: %zu\n", goabt_rt.thread_stacksize);
    fprintf(fp, " scheduler stack size: %zu\n", sched_stacksize());
    fprintf(fp, " max execution streams: %d\n", goabt_rt.max_xstreams);
    fprintf(fp, " execution streams now: %d\n", __atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED));
    static const char *const checks[] = {"none", "canary", "mprotect", "mprotect_strict"};
    fprintf(fp, " stack overflow check: %s; FP control preserved: yes; external threads: yes\n",
            checks[goabt_rt.stack_check & 3]);
    fflush(fp);
    return ABT_SUCCESS;
}
