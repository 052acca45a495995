//go:build goabt_c_engine
/* ABT_info_query_config and ABT_info_print_config: what this build of goabt does, in the
 * types Argobots 1.2 defines for each query. Features goabt does not have report ABT_FALSE.
 * ABT_PRINT_CONFIG prints the same at ABT_init. The other ABT_info_print_* are info_print.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include "gocalls.h"
#include "engine/info.h"
#include "engine/runtime.h"
#include "engine/stream.h"

/* What the Go core's configuration adds (goabt_info_at_init), read at every outermost
 * ABT_init: the names of the Go pool and policy replacing the predefined ones ("" for none). */
static struct {
    int print_config; /* ABT_PRINT_CONFIG */
    int check_leaks;  /* GOABT_CHECK_LEAKS: 0 off, 1 on, 2 fatal */
    char go_pool[64];
    char go_sched[64];
} config;

int goabt_info_at_init(void)
{
    int flags = goabt_go.config_info(config.go_pool, sizeof config.go_pool, config.go_sched,
                                     sizeof config.go_sched);
    config.print_config = (flags & 1) != 0;
    config.check_leaks = (flags & 2) != 0 ? ((flags & 4) != 0 ? 2 : 1) : 0;
    return config.print_config;
}

void goabt_info_print_at_init(void)
{
    if (config.print_config) ABT_info_print_config(stdout);
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
        *(ABT_bool *)val = config.print_config ? ABT_TRUE : ABT_FALSE;
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

/* Every kind ABT_info_query_config answers, in enum order, with the type it writes. */
static const struct {
    const char *name;
    char type; /* b ABT_bool, u unsigned int, z size_t, q uint64_t, i int */
} query_kinds[] = {
    {"debug", 'b'},
    {"print errno", 'b'},
    {"logging", 'b'},
    {"valgrind support", 'b'},
    {"error checks", 'b'},
    {"pool producer check", 'b'},
    {"pool consumer check", 'b'},
    {"FP control preserved", 'b'},
    {"ULT cancellation", 'b'},
    {"tasklet cancellation", 'b'},
    {"migration", 'b'},
    {"stackable schedulers", 'b'},
    {"external threads", 'b'},
    {"scheduler sleep", 'b'},
    {"print config at init (ABT_PRINT_CONFIG)", 'b'},
    {"stream affinity (ABT_SET_AFFINITY)", 'b'},
    {"max execution streams (ABT_MAX_NUM_XSTREAMS)", 'u'},
    {"default ULT stack size (ABT_THREAD_STACKSIZE)", 'z'},
    {"default scheduler stack size", 'z'},
    {"default scheduler event frequency", 'q'},
    {"default scheduler sleep ns", 'q'},
    {"tool interface", 'b'},
    {"fcontext", 'b'},
    {"dynamic promotion", 'b'},
    {"stack unwinding", 'b'},
    {"stack overflow check (0 none, 1 canary, 2-3 guard page)", 'i'},
    {"wait policy (0 passive, 1 active)", 'i'},
    {"lazy stack allocation", 'b'},
};
_Static_assert(sizeof query_kinds / sizeof query_kinds[0] ==
                   ABT_INFO_QUERY_KIND_ENABLED_LAZY_STACK_ALLOC + 1,
               "one line per query kind");

int ABT_info_print_config(FILE *fp)
{
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    if (fp == NULL) return ABT_ERR_INV_ARG;
    fprintf(fp, "goabt configuration (Argobots %s API)\n", ABT_VERSION);
    for (int k = 0; k < (int)(sizeof query_kinds / sizeof query_kinds[0]); k++) {
        union {
            ABT_bool b;
            unsigned int u;
            size_t z;
            uint64_t q;
            int i;
        } v;
        memset(&v, 0, sizeof v);
        if (ABT_info_query_config((ABT_info_query_kind)k, &v) != ABT_SUCCESS) continue;
        fprintf(fp, " - %s: ", query_kinds[k].name);
        switch (query_kinds[k].type) {
        case 'b': fprintf(fp, "%s\n", v.b ? "yes" : "no"); break;
        case 'u': fprintf(fp, "%u\n", v.u); break;
        case 'z': fprintf(fp, "%zu\n", v.z); break;
        case 'q': fprintf(fp, "%" PRIu64 "\n", v.q); break;
        default: fprintf(fp, "%d\n", v.i); break;
        }
    }
    fprintf(fp, " - execution streams now: %d\n",
            __atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED));
    fprintf(fp, " - CPUs the process may use: %d\n", CPU_COUNT(&goabt_rt.cpus));
    if (goabt_rt.safety_ns == 0) {
        fprintf(fp, " - safety wake-up (GOABT_SAFETY_WAKEUP_MS): off\n");
    } else {
        fprintf(fp, " - safety wake-up (GOABT_SAFETY_WAKEUP_MS): %lld ms\n",
                goabt_rt.safety_ns / 1000000);
    }
    fprintf(fp, " - Go pool replacing predefined pools (GOABT_POOL): %s\n",
            config.go_pool[0] ? config.go_pool : "none");
    fprintf(fp, " - Go policy replacing predefined schedulers (GOABT_SCHED): %s\n",
            config.go_sched[0] ? config.go_sched : "none");
    fprintf(fp, " - leak report at finalize (GOABT_CHECK_LEAKS): %s\n",
            config.check_leaks == 2 ? "fatal" : config.check_leaks ? "yes" : "no");
    goabt_affinity_print(fp);
    fflush(fp);
    return ABT_SUCCESS;
}
