/* info_facts.h: the plain facts the ABT_info_print_* functions gather in C (info.c,
 * info_print.c) and hand to the Go core, which makes the text (core/info.go, capi/info.go);
 * C writes the text to the program's FILE*. Read by both sides: no engine types here, only
 * numbers and addresses. Addresses cross as uintptr_t (docs/design.md rule 11). Internal. */
#ifndef GOABT_INFO_FACTS_H
#define GOABT_INFO_FACTS_H

#include <stddef.h>
#include <stdint.h>

/* What a pool or a scheduler is (core.PoolKind, core.SchedKind: capi/info.go checks). */
enum {
    GOABT_INFO_POOL_UNKNOWN,
    GOABT_INFO_POOL_FIFO,
    GOABT_INFO_POOL_FIFO_WAIT,
    GOABT_INFO_POOL_RANDWS,
    GOABT_INFO_POOL_USER,
    GOABT_INFO_POOL_GO,
};
enum {
    GOABT_INFO_SCHED_UNKNOWN,
    GOABT_INFO_SCHED_DEFAULT,
    GOABT_INFO_SCHED_BASIC,
    GOABT_INFO_SCHED_PRIO,
    GOABT_INFO_SCHED_RANDWS,
    GOABT_INFO_SCHED_BASIC_WAIT,
    GOABT_INFO_SCHED_USER,
    GOABT_INFO_SCHED_GO,
};

/* A pool (ABT_info_print_pool). */
struct goabt_info_pool {
    uintptr_t addr, data;
    int id, kind, access, automatic;
    int has_size; /* 0: a user pool without get_size */
    int num_scheds;
    size_t size;
    long blocked;
};

/* A scheduler (ABT_info_print_sched), with its pools in priority order. */
struct goabt_info_sched {
    uintptr_t addr, data;
    int kind, used, automatic, finish_req, exit_req;
    int num_pools;
    const struct goabt_info_pool *pools;
};

/* An execution stream (ABT_info_print_xstream); cpus, a cpu_set_t's bits, read if has_cpus. */
struct goabt_info_stream {
    uintptr_t addr, running, sched;
    int rank, primary, terminated, finish_req, has_cpus, sched_kind;
    uint64_t cpus[16];
    int num_pools;
    const int *pool_ids; /* its main scheduler's, if sched */
};

/* A work unit (ABT_info_print_thread, and the stack prints). valid 0: a pool's print_all
 * handed over something that is no unit. words: the stack from sp up, num_words of them, when
 * it was read (at most GOABT_INFO_STACK_MAX bytes; NULL otherwise). */
#define GOABT_INFO_STACK_MAX (32 * 1024)
struct goabt_info_unit {
    uintptr_t addr, func, arg, pool, stack, sp;
    uint64_t id;
    size_t stacksize, used, num_words;
    const uintptr_t *words;
    int valid, tasklet, main, state, last_stream, pool_id;
    int user_stack, mapped, migratable, named;
};

/* A ULT attribute (ABT_info_print_thread_attr). */
struct goabt_info_attr {
    uintptr_t addr, stack, callback, callback_arg;
    size_t stacksize;
    int migratable;
};

/* The units queued in a pool, for the stack prints. */
struct goabt_info_pool_units {
    uintptr_t addr;
    int id;
    int no_print_all; /* a user pool without print_all */
    int num_units;
    const struct goabt_info_unit *units;
};

/* A stream as the stack dump names it. */
struct goabt_info_dump_stream {
    uintptr_t addr, sched;
    int rank, num_pools;
    const int *pool_ids;
};

/* ABT_info_trigger_print_all_thread_stacks's dump: start and end are time(NULL)'s. */
struct goabt_info_dump {
    int timed_out, arrived, running;
    int num_streams, num_pools;
    int64_t start, end;
    const struct goabt_info_dump_stream *streams;
    const struct goabt_info_pool_units *pools;
};

/* ABT_info_print_config: ABT_info_query_config's answer for each kind (ok, and the bytes it
 * wrote), and what it adds. */
struct goabt_info_query {
    uint64_t raw; /* as bytes: the answer's, zero-filled */
    int ok;
};
struct goabt_info_config {
    const char *version, *go_pool, *go_sched;
    int num_queries;
    const struct goabt_info_query *queries;
    int num_streams, cpus, check_leaks, affinity, num_affinity_sets;
    long long safety_ns;
    const uint64_t (*affinity_sets)[16]; /* cpu_set_t bits, num_affinity_sets of them */
};

/* The hang report (api/info_hang.c, core/hang.go): every unit not finished, what each waits
 * on (wait: an ABT_sync_event_type, GOABT_INFO_WAIT_SUSPENDED, or GOABT_INFO_WAIT_NONE; object:
 * the object's handle, or the unit or stream joined; timed: it has a deadline), what each
 * stream runs. watchdog_ns is GOABT_WATCHDOG's period when the watchdog found the hang (then
 * quiet_ns: how long no unit ran), 0 when signal asked for it. */
#define GOABT_INFO_WAIT_NONE (-1)
#define GOABT_INFO_WAIT_SUSPENDED 100
struct goabt_info_hang_unit {
    struct goabt_info_unit unit;
    int wait, timed;
    uintptr_t object;
};
struct goabt_info_hang_stream {
    uint64_t running; /* the id of the unit it runs, if has_unit */
    int rank, primary, has_unit, tasklet;
};
struct goabt_info_hang {
    long long watchdog_ns, quiet_ns;
    int signal, num_streams, num_units;
    const struct goabt_info_hang_stream *streams;
    const struct goabt_info_hang_unit *units;
};

#endif /* GOABT_INFO_FACTS_H */
