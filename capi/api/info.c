//go:build goabt_c_engine
/* ABT_info_query_config and ABT_info_print_config: what this build of goabt does, in the
 * types Argobots 1.2 defines for each query. Features goabt does not have report ABT_FALSE.
 * ABT_PRINT_CONFIG prints the same at ABT_init: C gathers the answers and what the runtime
 * adds, the Go core makes the text (core/info.go, InfoConfigText). The other ABT_info_print_*
 * are info_print.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include "args.h"
#include "engine/info.h"
#include "engine/runtime.h"
#include "engine/stream.h"
#include "gocalls.h"
#include "info_facts.h"



void goabt_info_print_at_init(void)
{
    if (goabt_info_go_config.print_config) ABT_info_print_config(stdout);
}

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
    GOABT_CHECK_INIT();
    GOABT_CHECK_TRUE((int)query_kind >= 0 &&
                         query_kind <= ABT_INFO_QUERY_KIND_ENABLED_LAZY_STACK_ALLOC,
                     ABT_ERR_INV_QUERY_KIND);
    GOABT_CHECK_OUT(val);
    switch (query_kind) {
    case ABT_INFO_QUERY_KIND_ENABLED_CHECK_ERROR:
    case ABT_INFO_QUERY_KIND_ENABLED_PRESERVE_FPU:   /* the switch saves MXCSR/x87 CW, FPCR */
    case ABT_INFO_QUERY_KIND_ENABLED_EXTERNAL_THREAD:
    case ABT_INFO_QUERY_KIND_FCONTEXT:               /* goabt's own assembly switch */
    case ABT_INFO_QUERY_KIND_ENABLED_THREAD_CANCEL:
    case ABT_INFO_QUERY_KIND_ENABLED_TASK_CANCEL:
    case ABT_INFO_QUERY_KIND_ENABLED_MIGRATION:
    case ABT_INFO_QUERY_KIND_ENABLED_STACKABLE_SCHED:
        *(ABT_bool *)val = ABT_TRUE;
        break;
    case ABT_INFO_QUERY_KIND_ENABLED_TOOL:
        *(ABT_bool *)val = goabt_rt.tool ? ABT_TRUE : ABT_FALSE;
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
    case ABT_INFO_QUERY_KIND_ENABLED_PRINT_CONFIG:
        *(ABT_bool *)val = goabt_info_go_config.print_config ? ABT_TRUE : ABT_FALSE;
        break;
    case ABT_INFO_QUERY_KIND_WAIT_POLICY:
        *(int *)val = 0; /* passive: idle streams sleep */
        break;
    default:
        /* Debug, logging, valgrind, pool checks, sched sleep, dynamic promotion, stack
         * unwinding, lazy stacks: not in goabt. */
        *(ABT_bool *)val = ABT_FALSE;
        break;
    }
    return ABT_SUCCESS;
}

int ABT_info_print_config(FILE *fp)
{
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    GOABT_CHECK_ARG(fp != NULL);
    /* Every kind's answer as the bytes it wrote: the Go core knows each kind's name and type. */
    struct goabt_info_query queries[ABT_INFO_QUERY_KIND_ENABLED_LAZY_STACK_ALLOC + 1];
    memset(queries, 0, sizeof queries);
    for (int k = 0; k < (int)(sizeof queries / sizeof queries[0]); k++) {
        queries[k].ok = ABT_info_query_config((ABT_info_query_kind)k, &queries[k].raw) == ABT_SUCCESS;
    }
    struct goabt_info_config f = {
        .version = ABT_VERSION,
        .go_pool = goabt_info_go_config.go_pool,
        .go_sched = goabt_info_go_config.go_sched,
        .num_queries = (int)(sizeof queries / sizeof queries[0]),
        .queries = queries,
        .num_streams = __atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED),
        .cpus = CPU_COUNT(&goabt_rt.cpus),
        .check_leaks = goabt_info_go_config.check_leaks,
        .affinity = goabt_rt.affinity != 0,
        .num_affinity_sets = goabt_rt.num_affinity_sets,
        .safety_ns = goabt_rt.safety_ns,
        .affinity_sets = (const uint64_t(*)[16])goabt_rt.affinity_sets,
    };
    goabt_info_write(fp, GOABT_INFO_TEXT_CONFIG, &f, 0, 0);
    return ABT_SUCCESS;
}
