/* goconfig.h: the configuration the Go core hands the C engine at every outermost ABT_init
 * (goabt_go_runtime_init), in one struct. Both sides include this header: Go fills the struct
 * as core.EngineConfig, whose layout capi/runtime.go checks against this one at compile time;
 * engine/runtime.c copies it into goabt_rt. Kept free of engine headers so that cgo can include it. */
#ifndef GOABT_GOCONFIG_H
#define GOABT_GOCONFIG_H

#include <stddef.h>

struct goabt_go_config {
    size_t thread_stacksize; /* default ULT stack size (ABT_THREAD_STACKSIZE) */
    long long safety_ns;     /* how long a sleeping stream or thread waits at most; 0: forever */
    int max_xstreams;        /* what ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS reports */
    int affinity;            /* 1: streams are bound to CPUs by rank (ABT_SET_AFFINITY) */
    int go_pool;             /* 1: a Go pool replaces the predefined ones (GOABT_POOL) */
    int go_sched;            /* 1: a Go policy replaces the predefined schedulers' (GOABT_SCHED) */
    int stack_check;         /* ABT_STACK_OVERFLOW_CHECK's mode (core.StackCheck) */
    int tool;                /* 1: the tool interface is on (GOABT_TOOL) */
    int dump_signal;         /* the signal that prints the hang report, or 0 (GOABT_DUMP_SIGNAL) */
    long long watchdog_ns;   /* the hang report's watchdog period, or 0: off (GOABT_WATCHDOG) */
};

#endif
