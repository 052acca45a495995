/*
 * scale_bench.c: the cost of a ULT when many are alive at once, and the memory they take.
 *
 * Compiled by bench/main.go against goabt's abt.h and libgoabt.so; uses only the Argobots 1.2
 * API. Each operation runs in a process of its own, on 4 execution streams (the primary and 3
 * made by ABT_xstream_create with the default scheduler):
 *
 *   scale_1k, scale_10k, scale_100k, scale_1m   one run creates N ULTs (1,000 ... 1,000,000)
 *       from the main ULT, round-robin into the 4 streams' main pools, so that all N are alive
 *       (created and not yet freed; the other streams run them meanwhile), then frees them all
 *       with ABT_thread_free (which joins); ns per ULT = the run's wall time / N.
 *
 * A measurement is back-to-back runs at N, at least 100,000 ULTs in all (one run from 100,000
 * on), timed together. Before its N runs, the process measures N = 1,000 that way (a warm-up
 * run, then the median of five measurements), the base the figure is compared with. Then a
 * first run at N (stacks and descriptors are mapped and touched for the first time: "first"),
 * then three measurements, whose median is the figure. It prints
 *
 *     op=<name> threads=4 ns=<median ns per ULT> live=<N> first=<first run's ns per ULT>
 *         base1k=<ns per ULT at 1,000> rss_mib=<peak resident memory of the process, MiB>
 *
 * on one line. Every ULT increments a counter of its stream: a run checks that all N ran.
 *
 * Usage: scale_bench [-l | OP...], as abt_bench.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <abt.h>
#include "bench_args.h"

#define NSTREAMS 4

typedef struct {
    _Alignas(64) uint64_t n;
} counter_t;

static counter_t ran[NSTREAMS];
static ABT_pool pools[NSTREAMS];
static ABT_thread *units;


static void unit_body(void *arg) { __atomic_add_fetch(&((counter_t *)arg)->n, 1, __ATOMIC_RELAXED); }

/* One run: n ULTs created, all alive, then freed; returns ns per ULT. */
static double run(size_t n)
{
    for (int s = 0; s < NSTREAMS; s++) ran[s].n = 0;
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < n; i++) {
        int s = (int)(i % NSTREAMS);
        CHECK(ABT_thread_create(pools[s], unit_body, &ran[s], ABT_THREAD_ATTR_NULL, &units[i]));
    }
    for (size_t i = 0; i < n; i++) CHECK(ABT_thread_free(&units[i]));
    uint64_t elapsed = now_ns() - t0;
    uint64_t got = 0;
    for (int s = 0; s < NSTREAMS; s++) got += ran[s].n;
    if (got != n) {
        fprintf(stderr, "%zu ULTs created, %llu ran\n", n, (unsigned long long)got);
        exit(1);
    }
    return (double)elapsed / (double)n;
}


/* Runs of n back to back, at least MEASURE_ULTS ULTs in all: ns per ULT. A single run of 1,000
 * takes ~100 us, about what waking three idle streams takes on 2 cores: alone it measured the
 * wake-ups (100 to 340 ns per ULT from one process to the next). */
#define MEASURE_ULTS 100000
static double runs_of(size_t n)
{
    size_t reps = n >= MEASURE_ULTS ? 1 : (MEASURE_ULTS + n - 1) / n;
    double sum = 0;
    for (size_t r = 0; r < reps; r++) sum += run(n);
    return sum / (double)reps;
}

static double median_of(size_t n, int runs)
{
    double ns[8];
    for (int r = 0; r < runs; r++) ns[r] = runs_of(n);
    qsort(ns, (size_t)runs, sizeof ns[0], cmp_double);
    return ns[runs / 2];
}

static void bench(const char *name, size_t n)
{
    CHECK(ABT_init(0, NULL));
    ABT_xstream self, extras[NSTREAMS - 1];
    CHECK(ABT_xstream_self(&self));
    CHECK(ABT_xstream_get_main_pools(self, 1, &pools[0]));
    for (int s = 1; s < NSTREAMS; s++) {
        CHECK(ABT_xstream_create(ABT_SCHED_NULL, &extras[s - 1]));
        CHECK(ABT_xstream_get_main_pools(extras[s - 1], 1, &pools[s]));
    }
    units = malloc(n * sizeof *units);
    if (units == NULL) {
        fprintf(stderr, "no memory for %zu handles\n", n);
        exit(1);
    }
    run(1000);
    double base = median_of(1000, 5);
    double first = run(n);
    double ns = median_of(n, 3);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("op=%s threads=%d ns=%.3f live=%zu first=%.3f base1k=%.3f rss_mib=%ld\n", name,
           NSTREAMS, ns, n, first, base, ru.ru_maxrss / 1024);
    fflush(stdout);
    free(units);
    for (int s = 1; s < NSTREAMS; s++) {
        CHECK(ABT_xstream_join(extras[s - 1]));
        CHECK(ABT_xstream_free(&extras[s - 1]));
    }
    CHECK(ABT_finalize());
}

static const struct {
    const char *name;
    size_t live;
} ops[] = {
    {"scale_1k", 1000},
    {"scale_10k", 10000},
    {"scale_100k", 100000},
    {"scale_1m", 1000000},
};
#define NOPS (sizeof ops / sizeof ops[0])

int main(int argc, char **argv)
{
    int want[NOPS];
    int status = bench_select(argc, argv, ops, sizeof ops[0], NOPS, want);
    if (status >= 0) return status;
    for (size_t i = 0; i < NOPS; i++) {
        if (want[i]) bench(ops[i].name, ops[i].live);
    }
    return 0;
}
