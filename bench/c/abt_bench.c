/*
 * abt_bench.c: the cost of Argobots work units (ULTs, tasklets, yield, init), in ns per operation.
 *
 * Compiled by bench/main.go against goabt's abt.h and libgoabt.so. Native Argobots is not
 * installable on the benchmark machine, so the driver compares these figures with native Argobots
 * 1.2 figures recorded earlier on the same machine kind; the source uses only the Argobots 1.2 API
 * and builds unchanged against libabt (gcc -O3 abt_bench.c -labt).
 *
 * Each operation runs in a calibrated loop (the count grown until one run takes BENCH_TARGET_NS),
 * then five timed runs; the median is printed as
 *
 *     op=<name> threads=<execution streams> ns=<median ns per operation>
 *
 * Usage: abt_bench [-l | OP...]. No argument runs every operation; OP names run only those
 * (exactly as printed); -l lists the names. Every operation but init_finalize runs between an
 * ABT_init and an ABT_finalize of its own.
 *
 * Operations:
 *   ult_1          primary stream only: rounds of 256 ABT_thread_create into the primary's main
 *                  pool, then 256 ABT_thread_free (which joins); ns per ULT
 *   ult_2          the same on two streams at once (one more made by
 *                  ABT_xstream_create(ABT_SCHED_NULL, ...)): on each stream a driver ULT (the
 *                  main ULT on the primary) forks and joins rounds of 256 ULTs in its own pool,
 *                  as Argobots' own fork-join benchmarks do; ns per ULT over both streams
 *   task_1, task_2 the same with ABT_task_create / ABT_task_free
 *   yield          two ULTs in the primary's pool, each calling ABT_thread_yield n times while
 *                  the main ULT waits in ABT_thread_free; ns per yield (total / 2n)
 *   init_finalize  ABT_init + ABT_finalize, outside any other initialization; ns per cycle
 *
 * Every unit's body counts its runs in a counter of its stream's own (no atomics, no shared cache
 * line), and every run checks the counts and every return code: a benchmark of units that did
 * not run fails instead of printing a fast figure.
 */
#define _GNU_SOURCE
#include <abt.h>

#include <stdint.h>
#include "bench_args.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_TARGET_NS
#define BENCH_TARGET_NS 50000000ULL /* one timed run: 50 ms */
#endif
#define BENCH_RUNS 5
#define BATCH 256 /* work units created before the first is freed */

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != ABT_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, rc_);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- State of one operation's set-up ------------------------------------------------------ */

/* One run counter per stream, each in its own cache line. */
typedef struct {
    _Alignas(64) uint64_t n;
    char pad[64 - sizeof(uint64_t)];
} counter_t;

static counter_t ran[2];
static ABT_pool pools[2];
static ABT_xstream extra = ABT_XSTREAM_NULL;
static int nstreams;

static void unit_body(void *arg) { ((counter_t *)arg)->n++; }

static void settle(void)
{
    /* goabt's Go runtime initializes on a thread of its own when the library loads, and for
     * about the first 100 ms its threads keep waking up (see opal_bench.c); let it settle. */
    nanosleep(&(struct timespec){.tv_nsec = 150000000}, NULL);
}

/* ABT_init, and with streams == 2 one more execution stream with the default scheduler. */
static void setup(int streams)
{
    CHECK(ABT_init(0, NULL));
    ABT_xstream self;
    CHECK(ABT_xstream_self(&self));
    CHECK(ABT_xstream_get_main_pools(self, 1, &pools[0]));
    nstreams = streams;
    if (streams == 2) {
        CHECK(ABT_xstream_create(ABT_SCHED_NULL, &extra));
        CHECK(ABT_xstream_get_main_pools(extra, 1, &pools[1]));
    }
    settle();
}

static void teardown(void)
{
    if (extra != ABT_XSTREAM_NULL) {
        CHECK(ABT_xstream_join(extra));
        CHECK(ABT_xstream_free(&extra));
    }
    CHECK(ABT_finalize());
}

static void check_ran(const char *what, uint64_t want)
{
    uint64_t got = ran[0].n + ran[1].n;
    if (got != want) {
        fprintf(stderr, "%s: %llu units ran, want %llu\n", what, (unsigned long long)got,
                (unsigned long long)want);
        exit(1);
    }
    ran[0].n = ran[1].n = 0;
}

/* ---- The runs: each does n rounds and returns the operations it did ----------------------- */

typedef uint64_t (*run_fn)(uint64_t n);

/* What one stream's driver does: n rounds of BATCH units forked into its own pool and joined. */
typedef struct {
    uint64_t n;
    int stream;
    int tasklets;
} driver_t;

static void drive(void *arg)
{
    driver_t *d = arg;
    ABT_thread units[BATCH];
    int s = d->stream;
    for (uint64_t r = 0; r < d->n; r++) {
        for (int i = 0; i < BATCH; i++) {
            if (d->tasklets) {
                CHECK(ABT_task_create(pools[s], unit_body, &ran[s], &units[i]));
            } else {
                CHECK(ABT_thread_create(pools[s], unit_body, &ran[s], ABT_THREAD_ATTR_NULL, &units[i]));
            }
        }
        for (int i = 0; i < BATCH; i++) {
            CHECK(d->tasklets ? ABT_task_free(&units[i]) : ABT_thread_free(&units[i]));
        }
    }
}

/* Every stream drives its own fork-join rounds at once: the main ULT on the primary, a driver
 * ULT on the other stream. */
static uint64_t run_units(uint64_t n, int tasklets)
{
    driver_t drivers[2] = {{n, 0, tasklets}, {n, 1, tasklets}};
    ABT_thread other = ABT_THREAD_NULL;
    if (nstreams == 2) {
        CHECK(ABT_thread_create(pools[1], drive, &drivers[1], ABT_THREAD_ATTR_NULL, &other));
    }
    drive(&drivers[0]);
    if (nstreams == 2) CHECK(ABT_thread_free(&other));
    uint64_t total = n * BATCH * (uint64_t)nstreams;
    check_ran(tasklets ? "tasklets" : "ULTs", total);
    return total;
}

static uint64_t run_ult(uint64_t n) { return run_units(n, 0); }

static uint64_t run_task(uint64_t n) { return run_units(n, 1); }

static uint64_t yields_each;
static volatile int yield_failed;

static void yielder(void *arg)
{
    for (uint64_t i = 0; i < yields_each; i++) {
        if (ABT_thread_yield() != ABT_SUCCESS) {
            yield_failed = 1;
        }
    }
    ((counter_t *)arg)->n++;
}

static uint64_t run_yield(uint64_t n)
{
    ABT_thread units[2];
    yields_each = n;
    for (int i = 0; i < 2; i++) {
        CHECK(ABT_thread_create(pools[0], yielder, &ran[0], ABT_THREAD_ATTR_NULL, &units[i]));
    }
    for (int i = 0; i < 2; i++) {
        CHECK(ABT_thread_free(&units[i]));
    }
    if (yield_failed) {
        fprintf(stderr, "ABT_thread_yield failed\n");
        exit(1);
    }
    check_ran("yielders", 2);
    return 2 * n;
}

static uint64_t run_init_finalize(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        CHECK(ABT_init(0, NULL));
        CHECK(ABT_finalize());
    }
    return n;
}

/* ---- Timing ------------------------------------------------------------------------------- */

/* One run of n rounds; returns ns per operation and sets *elapsed. */
static double run_once(run_fn fn, uint64_t n, uint64_t *elapsed)
{
    uint64_t t0 = now_ns();
    uint64_t ops = fn(n);
    *elapsed = now_ns() - t0;
    return (double)*elapsed / (double)ops;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(const char *name, int streams, run_fn fn, uint64_t n)
{
    uint64_t elapsed = 0;
    for (;;) { /* calibrate: the first run also warms caches, stacks and the library's free lists */
        run_once(fn, n, &elapsed);
        if (elapsed >= BENCH_TARGET_NS || n >= (1ULL << 40)) {
            break;
        }
        uint64_t grow = elapsed == 0 ? 16 : (BENCH_TARGET_NS * 5 / 4) / elapsed + 1;
        n *= grow < 2 ? 2 : (grow > 16 ? 16 : grow);
    }
    double ns[BENCH_RUNS];
    for (int r = 0; r < BENCH_RUNS; r++) {
        ns[r] = run_once(fn, n, &elapsed);
    }
    qsort(ns, BENCH_RUNS, sizeof ns[0], cmp_double);
    printf("op=%s threads=%d ns=%.3f\n", name, streams, ns[BENCH_RUNS / 2]);
    fflush(stdout);
}

static const struct {
    const char *name;
    run_fn fn;
    int streams;
    uint64_t n0; /* first count tried by the calibration */
    int init;    /* run between an ABT_init and an ABT_finalize of its own */
} ops[] = {
    {"ult_1", run_ult, 1, 1, 1},
    {"ult_2", run_ult, 2, 1, 1},
    {"task_1", run_task, 1, 1, 1},
    {"task_2", run_task, 2, 1, 1},
    {"yield", run_yield, 1, 1024, 1},
    {"init_finalize", run_init_finalize, 1, 1, 0},
};
#define NOPS (sizeof ops / sizeof ops[0])

int main(int argc, char **argv)
{
    int want[NOPS];
    int status = bench_select(argc, argv, ops, sizeof ops[0], NOPS, want);
    if (status >= 0) return status;

    for (size_t i = 0; i < NOPS; i++) {
        if (!want[i]) {
            continue;
        }
        if (ops[i].init) {
            setup(ops[i].streams);
        } else {
            settle();
        }
        bench(ops[i].name, ops[i].streams, ops[i].fn, ops[i].n0);
        if (ops[i].init) {
            teardown();
        }
    }
    return 0;
}
