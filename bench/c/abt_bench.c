/*
 * abt_bench.c: the cost of Argobots work units (ULTs, tasklets, yield, init), of their keys and of
 * synchronization objects, in ns per operation.
 *
 * Compiled by bench/main.go against goabt's abt.h and libgoabt.so, and, when `make bench
 * NATIVE_ARGOBOTS=...` names a native Argobots, against the same abt.h and that libabt.so.1: the
 * source uses only the Argobots 1.2 API. The driver runs the two binaries alternately, operation
 * by operation, and compares their figures.
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
 *   yield_to       two ULTs in the primary's pool, each calling ABT_thread_yield_to(the other)
 *                  n times, a direct switch that takes the other out of the pool and puts the
 *                  caller back; ns per yield_to (total / 2n)
 *   yield_alone    one ULT in the primary's pool calling ABT_thread_yield n times, nothing else
 *                  ready (the main ULT waits in ABT_thread_free): a polling loop's yield
 *   yield_main     the main ULT calling ABT_thread_yield n times, nothing else ready
 *   migrate_2      one ULT on two streams moving itself to the other stream's pool
 *                  (ABT_thread_migrate_to_pool) and yielding, there and back n times, while the
 *                  main ULT waits in ABT_thread_free; ns per round trip (two moves)
 *   migrate_2_busy the same while as many other processes as there are CPUs spin (forked before
 *                  ABT_init, killed after ABT_finalize): a machine whose CPUs other programs
 *                  want, where an idle stream that sleeps or yields waits for a CPU to get back
 *   init_finalize  ABT_init + ABT_finalize, outside any other initialization; ns per cycle
 *   cold_init      a process's first ABT_init: COLD_RUNS fresh processes (this program run again
 *                  as `abt_bench --cold-child`), each timing its first ABT_init; the median
 *   cold_vsize     the same processes' virtual size (VmSize) right after that ABT_init: in KiB,
 *                  not ns (the address space a runtime reserves is what ulimit -v limits)
 *   cold_first_ult the same processes' first ULT after it: ABT_thread_create into the primary's
 *                  main pool and ABT_thread_free (which joins), timed together; the median
 *
 * Work-unit-specific data (keys), ns per key operation. Each stream forks and joins units in
 * rounds of 256 as ult_2 does (a driver ULT per stream, the main ULT on the primary): the
 * workload is 256 units on 1 stream (ops ending in _1), 2048 per stream in 8 rounds on 2 streams
 * (_2, 4096 in all), repeated as the calibration says. Each unit does a short prologue, then 16
 * accesses to its own data (or another ULT's), then a check (gets: the sum of the values read;
 * sets: one value read back). Each unit times its 16 accesses itself (clock_gettime around the
 * loop), so that creating, switching to, joining and freeing it stay out of the figure: their
 * cost varies from round to round by more than 16 accesses cost, and an earlier version that
 * subtracted whole rounds' wall times read the same ULT code at 2.5 to 6.8 ns from run to run.
 * The rounds come in pairs, one with the 16 accesses and one whose units time an empty loop
 * (which first, by turns); a run's figure is the median over its pairs of (units' time with -
 * units' time without) / (256 x 16), and the printed figure the median of five runs. On 2
 * streams each stream sums its own units, and the figure is the mean of the streams': the cost
 * of one access as its unit sees it. The line also gives base=: ns per unit spent in the empty
 * loop's timing.
 *   key_get_N                   prologue ABT_key_set(k); 16 ABT_key_get(k), values summed and
 *                               checked
 *   key_set_N                   prologue ABT_key_set(k) (so the unit has a value: "later" sets);
 *                               16 ABT_key_set(k)
 *   key_set_first_N             no prologue; 16 ABT_key_set, each into another of 16 keys the
 *                               unit has no value for yet (its first sets: the table is made)
 *   self_get_N, self_set_N,     key_get, key_set, key_set_first with ABT_self_get/set_specific
 *   self_set_first_N
 *   thread_get_self_N,          ABT_thread_get/set_specific on the unit itself, its handle from
 *   thread_set_self_N,          ABT_thread_self (tasklets: ABT_self_get_thread) in the prologue;
 *   thread_set_self_first_N     first: 16 sets into 16 keys it has no value for yet
 *   thread_get_other_N,         ABT_thread_get/set_specific on another ULT: each of the 256 unit
 *   thread_set_other_N          slots of a stream has its own target ULT, created in the
 *                               stream's pool and joined (finished, not freed) before the timing
 *                               starts; the prologue sets the target's value with
 *                               ABT_thread_set_specific
 *   thread_set_other_first_N    no prologue; 16 ABT_thread_set_specific, each into another of 16
 *                               keys, on a target that has no value yet: every round first
 *                               creates and joins a fresh target per unit and frees them after
 *                               the units (the runs without the accesses do the same)
 *   task_<op>                   each of the above with tasklets (ABT_task_create) as the units;
 *                               the targets of task_thread_*_other_* are still ULTs
 * Rounds stay at 256 units per stream, as in ult_2, also on 2 streams: more live ULTs per stream
 * than goabt's per-stream descriptor cache holds (512) send descriptors through the global
 * cache, which costs more per unit than 16 key accesses do, and varies.
 * The keys are made with ABT_key_create (no destructor) before the timing starts.
 *
 * Synchronization objects, ns per operation, on 1 stream but for sync_mutex_4x4. Each run
 * creates its objects, checks them once (a held mutex refuses ABT_mutex_trylock; a read-locked
 * rwlock keeps a writer out while the main ULT yields to it; a future with a callback is ready
 * only after its last set and hands the callback the values in set order), runs its ULTs (forked
 * into the streams' pools; the main ULT waits in ABT_thread_free), frees the objects and checks
 * the counts. Critical sections increment a shared counter by a read and a later write, so a
 * lost update shows in the count.
 *   sync_floor          no Argobots call: n times two atomic exchanges of one word
 *   sync_mutex          one ULT: n times ABT_mutex_lock, counter++, ABT_mutex_unlock
 *   sync_mutex_main     the same in the main ULT
 *   sync_mutex_handoff  two ULTs, n times each: lock, note itself as the holder, ABT_thread_yield
 *                       (the other ULT then waits for the mutex), check that it is still the
 *                       holder, counter++, unlock; ns per lock while both ULTs want the mutex:
 *                       from the start until the first ULT to finish made its last unlock,
 *                       over the locks made by then (once one ULT is done, the other locks
 *                       alone, uncontended: not a hand-off). The line also gives handovers=:
 *                       the times the mutex went from one ULT to the other, per 1000 locks;
 *                       first_end=: when the first ULT to finish did, as a fraction of the
 *                       run; all_ns=: ns per lock over the whole run (2n locks)
 *   sync_cond           two ULTs, n turns each: lock, ABT_cond_wait while it is the other's
 *                       turn, pass the turn, counter++, ABT_cond_signal, unlock; ns per turn (2n)
 *   sync_eventual       one ULT: n times ABT_eventual_create (8 bytes), set to the iteration,
 *                       wait (the value read back and checked), free
 *   sync_eventual_trip  ULT 0 sets eventual 0 to i and waits on eventual 1; ULT 1 waits on
 *                       eventual 0, checks i, resets it and sets eventual 1 to i; ULT 0 checks
 *                       i and resets eventual 1; ns per round trip (n)
 *   sync_barrier        two ULTs, n ABT_barrier_wait each on a barrier of 2; before each a ULT
 *                       notes its pass, after it checks that the other reached the same pass;
 *                       ns per pass (n)
 *   sync_rwlock_rd      one ULT: n times ABT_rwlock_rdlock, read the counter, ABT_rwlock_unlock;
 *                       the values read are summed and checked
 *   sync_future         one ULT: n times ABT_future_create (4 compartments, no callback), 4
 *                       ABT_future_set, ABT_future_wait (ready: returns at once), ABT_future_free
 *   sync_mutex_4x4      4 streams, 4 ULTs in each one's pool: lock, counter++ unless it reached
 *                       n, unlock, until it has; ns per counted lock (n). The line also gives
 *                       share_min= and share_max=: the fewest and the most locks one ULT took,
 *                       over an even share (n / 16)
 * sync_barrier and sync_rwlock_rd first make each of their calls once, untimed: if one returns
 * ABT_ERR_FEATURE_NA (goabt does not provide it yet), the line is
 *
 *     op=<name> threads=1 ns=nan not_implemented=<the call>
 *
 * Every unit's body counts its runs in a counter of its stream's own (no atomics, no shared cache
 * line), and every run checks the counts and every return code: a benchmark of units that did
 * not run fails instead of printing a fast figure. Key operations also check the values read.
 */
#define _GNU_SOURCE
#include <abt.h>

#include <math.h>
#include <stdint.h>
#include "bench_args.h"
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_TARGET_NS
#define BENCH_TARGET_NS 50000000ULL /* one timed run: 50 ms */
#endif
#ifndef KEY_TARGET_NS
#define KEY_TARGET_NS 20000000ULL /* key operations: one run, with and without accesses, 20 ms */
#endif
#define BENCH_RUNS 5
#define BATCH 256 /* work units created before the first is freed */




/* ---- State of one operation's set-up ------------------------------------------------------ */

/* One run counter per stream, each in its own cache line. */
typedef struct {
    _Alignas(64) uint64_t n;
    char pad[64 - sizeof(uint64_t)];
} counter_t;

#define MAX_STREAMS 4

static counter_t ran[2];
static ABT_pool pools[MAX_STREAMS];
static ABT_xstream extras[MAX_STREAMS - 1]; /* the streams beyond the primary */
static int nstreams;

static void unit_body(void *arg) { ((counter_t *)arg)->n++; }

static void settle(void)
{
    /* goabt's Go runtime initializes on a thread of its own when the library loads, and for
     * about the first 100 ms its threads keep waking up (see opal_bench.c); let it settle. */
    nanosleep(&(struct timespec){.tv_nsec = 150000000}, NULL);
}

/* ABT_init, and streams - 1 more execution streams with the default scheduler. */
static void setup(int streams)
{
    CHECK(ABT_init(0, NULL));
    ABT_xstream self;
    CHECK(ABT_xstream_self(&self));
    CHECK(ABT_xstream_get_main_pools(self, 1, &pools[0]));
    nstreams = streams;
    for (int s = 1; s < streams; s++) {
        CHECK(ABT_xstream_create(ABT_SCHED_NULL, &extras[s - 1]));
        CHECK(ABT_xstream_get_main_pools(extras[s - 1], 1, &pools[s]));
    }
    settle();
}

/* Busy operations: one spinning process per CPU, so that every CPU has a thread of another
 * program that wants it for as long as the operation runs. */
#define MAX_SPINNERS 256
static pid_t spinners[MAX_SPINNERS];
static int nspinners;

static void start_spinners(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    nspinners = cpus < 1 ? 1 : (cpus > MAX_SPINNERS ? MAX_SPINNERS : (int)cpus);
    pid_t parent = getpid();
    for (int i = 0; i < nspinners; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            exit(1);
        }
        if (pid == 0) {
            /* Dies with the benchmark, should it end without stopping them. */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(0);
            for (;;) __asm__ volatile("" ::: "memory");
        }
        spinners[i] = pid;
    }
}

static void stop_spinners(void)
{
    for (int i = 0; i < nspinners; i++) kill(spinners[i], SIGKILL);
    for (int i = 0; i < nspinners; i++) waitpid(spinners[i], NULL, 0);
    nspinners = 0;
}

/* Whether op runs beside spinning processes: its name ends in _busy. */
static int is_busy(const char *op)
{
    size_t n = strlen(op);
    return n > 5 && strcmp(op + n - 5, "_busy") == 0;
}

static void teardown(void)
{
    for (int s = 1; s < nstreams; s++) {
        CHECK(ABT_xstream_join(extras[s - 1]));
        CHECK(ABT_xstream_free(&extras[s - 1]));
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

#define MAX_UNITS 16 /* ULTs fork_join runs at once */

/* Creates `units` ULTs running body, unit i in stream i % nstreams's pool with the argument
 * args + i * stride (stride 0: all the same), and frees them all (which joins them). */
static void fork_join(int units, void (*body)(void *), void *args, size_t stride)
{
    ABT_thread t[MAX_UNITS];
    for (int i = 0; i < units; i++) {
        CHECK(ABT_thread_create(pools[i % nstreams], body, (char *)args + (size_t)i * stride,
                                ABT_THREAD_ATTR_NULL, &t[i]));
    }
    for (int i = 0; i < units; i++) CHECK(ABT_thread_free(&t[i]));
}

/* units ULTs in the primary's pool, each yielding n times; yields in all. */
static uint64_t run_yielders(int units, uint64_t n)
{
    yields_each = n;
    fork_join(units, yielder, &ran[0], 0);
    if (yield_failed) {
        fprintf(stderr, "ABT_thread_yield failed\n");
        exit(1);
    }
    check_ran("yielders", units);
    return (uint64_t)units * n;
}

static uint64_t run_yield(uint64_t n) { return run_yielders(2, n); }

/* yield_alone: one ULT yields with nothing else ready on the stream. */
static uint64_t run_yield_alone(uint64_t n) { return run_yielders(1, n); }

/* yield_main: the main ULT yields with nothing else ready. */
static uint64_t run_yield_main(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) CHECK(ABT_thread_yield());
    return n;
}

static ABT_thread yield_to_peers[2];

static void yield_to_peer(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (uint64_t i = 0; i < yields_each; i++) {
        if (ABT_thread_yield_to(yield_to_peers[1 - me]) != ABT_SUCCESS) yield_failed = 1;
    }
    ran[0].n++; /* one stream: no race */
}

static uint64_t run_yield_to(uint64_t n)
{
    yields_each = n;
    /* Both exist before either runs: the main ULT runs on until it waits in the first free. */
    for (int i = 0; i < 2; i++) {
        CHECK(ABT_thread_create(pools[0], yield_to_peer, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL,
                                &yield_to_peers[i]));
    }
    for (int i = 0; i < 2; i++) CHECK(ABT_thread_free(&yield_to_peers[i]));
    if (yield_failed) {
        fprintf(stderr, "ABT_thread_yield_to failed\n");
        exit(1);
    }
    check_ran("yield_to peers", 2);
    return 2 * n;
}

static void migrator(void *arg)
{
    (void)arg;
    ABT_thread self;
    ABT_thread_self(&self);
    for (uint64_t i = 0; i < yields_each; i++) {
        for (int to = 1; to >= 0; to--) {
            if (ABT_thread_migrate_to_pool(self, pools[to]) != ABT_SUCCESS) yield_failed = 1;
            ABT_thread_yield(); /* moves here */
            int rank = -1;
            ABT_xstream_self_rank(&rank);
            if (rank != to) yield_failed = 1;
        }
    }
    ran[0].n++;
}

static uint64_t run_migrate(uint64_t n)
{
    yields_each = n;
    ABT_thread t;
    CHECK(ABT_thread_create(pools[0], migrator, NULL, ABT_THREAD_ATTR_NULL, &t));
    CHECK(ABT_thread_free(&t));
    if (yield_failed) {
        fprintf(stderr, "migrate: a move failed or landed elsewhere\n");
        exit(1);
    }
    check_ran("migrator", 1);
    return n;
}

static uint64_t run_init_finalize(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        CHECK(ABT_init(0, NULL));
        CHECK(ABT_finalize());
    }
    return n;
}

/* ---- Cold start ---------------------------------------------------------------------------- */

#define COLD_RUNS 21

/* The process's virtual size in KiB (VmSize of /proc/self/status), 0 if it cannot be read. */
static unsigned long long vm_size_kib(void)
{
    unsigned long long kib = 0;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "VmSize: %llu kB", &kib) == 1) break;
    }
    fclose(f);
    return kib;
}

/* In a fresh process: times the first ABT_init, reads the virtual size then, times the first ULT
 * (create + free), and prints the three figures (ns, KiB, ns). */
static int cold_child(void)
{
    uint64_t t0 = now_ns();
    CHECK(ABT_init(0, NULL));
    uint64_t t1 = now_ns();
    unsigned long long vsize = vm_size_kib();
    ABT_xstream self;
    ABT_pool pool;
    CHECK(ABT_xstream_self(&self));
    CHECK(ABT_xstream_get_main_pools(self, 1, &pool));
    counter_t c = {0};
    ABT_thread t;
    uint64_t t2 = now_ns();
    CHECK(ABT_thread_create(pool, unit_body, &c, ABT_THREAD_ATTR_NULL, &t));
    CHECK(ABT_thread_free(&t));
    uint64_t t3 = now_ns();
    if (c.n != 1) {
        fprintf(stderr, "cold start: the first ULT ran %llu times\n", (unsigned long long)c.n);
        return 1;
    }
    CHECK(ABT_finalize());
    printf("%llu %llu %llu\n", (unsigned long long)(t1 - t0), vsize, (unsigned long long)(t3 - t2));
    return 0;
}

/* cold_init, cold_vsize and cold_first_ult: COLD_RUNS fresh processes, one after another; prints
 * the median of the figure name asks for. */
static void bench_cold(const char *name)
{
    int which = strcmp(name, "cold_init") == 0 ? 0 : strcmp(name, "cold_vsize") == 0 ? 1 : 2;
    char self_path[4096], cmd[4200];
    ssize_t len = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (len <= 0) {
        fprintf(stderr, "cold start: cannot find this program's path\n");
        exit(1);
    }
    self_path[len] = '\0';
    snprintf(cmd, sizeof cmd, "exec '%s' --cold-child", self_path);
    double ns[COLD_RUNS];
    for (int r = 0; r < COLD_RUNS; r++) {
        FILE *f = popen(cmd, "r");
        unsigned long long fig[3] = {0, 0, 0};
        int got = f != NULL ? fscanf(f, "%llu %llu %llu", &fig[0], &fig[1], &fig[2]) : 0;
        if (f == NULL || pclose(f) != 0 || got != 3) {
            fprintf(stderr, "cold start: run %d of %s failed\n", r, cmd);
            exit(1);
        }
        ns[r] = (double)fig[which];
    }
    qsort(ns, COLD_RUNS, sizeof ns[0], cmp_double);
    printf("op=%s threads=1 ns=%.0f\n", name, ns[COLD_RUNS / 2]);
    fflush(stdout);
}

/* ---- Keys --------------------------------------------------------------------------------- */

#define KEY_OPS 16       /* accesses per unit */
#define KEY_UNITS_2 2048 /* units per stream in the 2-stream workload: 8 rounds of BATCH */

enum key_op {
    KEY_NONE, /* not a key operation */
    KEY_GET,
    KEY_SET,
    KEY_SET_FIRST,
    SELF_GET,
    SELF_SET,
    SELF_SET_FIRST,
    THREAD_GET_SELF,
    THREAD_SET_SELF,
    THREAD_SET_SELF_FIRST,
    THREAD_GET_OTHER,
    THREAD_SET_OTHER,
    THREAD_SET_OTHER_FIRST,
};

/* One unit slot of a stream: the unit's argument. Its address is the unit's value. */
typedef struct {
    ABT_thread target; /* thread_*_other: the ULT whose data the unit accesses */
    int stream;
} key_unit_t;

/* Per stream, in its own cache line: units that ran, and units that read a wrong value. */
typedef struct {
    _Alignas(64) uint64_t n;
    uint64_t bad;
    uint64_t ns; /* time its units spent in their access loops (or in empty ones) */
} key_count_t;

static ABT_key keys[KEY_OPS]; /* keys[0] for the "later" operations, all 16 for "first" */
static enum key_op key_op;
static int key_tasklets;    /* the units are tasklets */
static int key_fresh;       /* fresh targets every round (thread_set_other_first) */
static uint64_t key_rounds; /* rounds of each kind per workload: 1, or KEY_UNITS_2 / BATCH */
static key_count_t key_counts[2];
static key_unit_t key_units[2][BATCH];
static ABT_thread key_handles[2][BATCH];

static int key_other(enum key_op op)
{
    return op == THREAD_GET_OTHER || op == THREAD_SET_OTHER || op == THREAD_SET_OTHER_FIRST;
}

static void target_body(void *arg) { (void)arg; }

/* What a unit does: a prologue, n accesses (KEY_OPS or 0, a constant in each copy below), and a
 * check: the sum of what the gets read, or one value read back after the sets. */
static inline __attribute__((always_inline)) void key_work(key_unit_t *u, const int n)
{
    const uintptr_t mine = (uintptr_t)u;
    const ABT_key k = keys[0];
    ABT_thread me = ABT_THREAD_NULL, other = u->target;
    void *v = NULL;
    uintptr_t got = 0, want = 0;
    key_count_t *c = &key_counts[u->stream];
    uint64_t t0 = 0;
/* Times the access loop from inside the unit: the accesses alone, not the unit's create, switch
 * and join around them (whose cost varies more from round to round than 16 accesses cost). */
#define TIMED(loop)                                                                                \
    do {                                                                                           \
        t0 = now_ns();                                                                             \
        loop;                                                                                      \
        c->ns += now_ns() - t0;                                                                    \
    } while (0)
    switch (key_op) {
    case KEY_GET:
        CHECK(ABT_key_set(k, u));
        TIMED(
            for (int j = 0; j < n; j++) {
                CHECK(ABT_key_get(k, &v));
                got += (uintptr_t)v;
            }
        );
        want = (uintptr_t)n * mine;
        break;
    case KEY_SET:
        CHECK(ABT_key_set(k, u));
        TIMED(for (int j = 1; j <= n; j++) CHECK(ABT_key_set(k, (void *)(mine + j))));
        CHECK(ABT_key_get(k, &v));
        got = (uintptr_t)v, want = mine + n;
        break;
    case KEY_SET_FIRST:
        TIMED(for (int j = 0; j < n; j++) CHECK(ABT_key_set(keys[j], (void *)(mine + j))));
        CHECK(ABT_key_get(keys[KEY_OPS - 1], &v));
        got = (uintptr_t)v, want = n ? mine + KEY_OPS - 1 : 0;
        break;
    case SELF_GET:
        CHECK(ABT_self_set_specific(k, u));
        TIMED(
            for (int j = 0; j < n; j++) {
                CHECK(ABT_self_get_specific(k, &v));
                got += (uintptr_t)v;
            }
        );
        want = (uintptr_t)n * mine;
        break;
    case SELF_SET:
        CHECK(ABT_self_set_specific(k, u));
        TIMED(for (int j = 1; j <= n; j++) CHECK(ABT_self_set_specific(k, (void *)(mine + j))));
        CHECK(ABT_self_get_specific(k, &v));
        got = (uintptr_t)v, want = mine + n;
        break;
    case SELF_SET_FIRST:
        TIMED(for (int j = 0; j < n; j++) CHECK(ABT_self_set_specific(keys[j], (void *)(mine + j))));
        CHECK(ABT_self_get_specific(keys[KEY_OPS - 1], &v));
        got = (uintptr_t)v, want = n ? mine + KEY_OPS - 1 : 0;
        break;
    case THREAD_GET_SELF:
        CHECK(key_tasklets ? ABT_self_get_thread(&me) : ABT_thread_self(&me));
        CHECK(ABT_key_set(k, u));
        TIMED(
            for (int j = 0; j < n; j++) {
                CHECK(ABT_thread_get_specific(me, k, &v));
                got += (uintptr_t)v;
            }
        );
        want = (uintptr_t)n * mine;
        break;
    case THREAD_SET_SELF:
        CHECK(key_tasklets ? ABT_self_get_thread(&me) : ABT_thread_self(&me));
        CHECK(ABT_key_set(k, u));
        TIMED(for (int j = 1; j <= n; j++) CHECK(ABT_thread_set_specific(me, k, (void *)(mine + j))));
        CHECK(ABT_key_get(k, &v));
        got = (uintptr_t)v, want = mine + n;
        break;
    case THREAD_SET_SELF_FIRST:
        CHECK(key_tasklets ? ABT_self_get_thread(&me) : ABT_thread_self(&me));
        TIMED(for (int j = 0; j < n; j++) CHECK(ABT_thread_set_specific(me, keys[j], (void *)(mine + j))));
        CHECK(ABT_key_get(keys[KEY_OPS - 1], &v));
        got = (uintptr_t)v, want = n ? mine + KEY_OPS - 1 : 0;
        break;
    case THREAD_GET_OTHER:
        CHECK(ABT_thread_set_specific(other, k, u));
        TIMED(
            for (int j = 0; j < n; j++) {
                CHECK(ABT_thread_get_specific(other, k, &v));
                got += (uintptr_t)v;
            }
        );
        want = (uintptr_t)n * mine;
        break;
    case THREAD_SET_OTHER:
        CHECK(ABT_thread_set_specific(other, k, u));
        TIMED(
            for (int j = 1; j <= n; j++) {
                CHECK(ABT_thread_set_specific(other, k, (void *)(mine + j)));
            }
        );
        CHECK(ABT_thread_get_specific(other, k, &v));
        got = (uintptr_t)v, want = mine + n;
        break;
    case THREAD_SET_OTHER_FIRST:
        TIMED(
            for (int j = 0; j < n; j++) {
                CHECK(ABT_thread_set_specific(other, keys[j], (void *)(mine + j)));
            }
        );
        CHECK(ABT_thread_get_specific(other, keys[KEY_OPS - 1], &v));
        got = (uintptr_t)v, want = n ? mine + KEY_OPS - 1 : 0;
        break;
    case KEY_NONE:
        break;
    }
#undef TIMED
    c->n++;
    c->bad += got != want;
}

static void key_body_timed(void *arg) { key_work(arg, KEY_OPS); }

static void key_body_base(void *arg) { key_work(arg, 0); }

static void make_targets(int s)
{
    for (int i = 0; i < BATCH; i++) {
        CHECK(ABT_thread_create(pools[s], target_body, NULL, ABT_THREAD_ATTR_NULL,
                                &key_units[s][i].target));
    }
    for (int i = 0; i < BATCH; i++) CHECK(ABT_thread_join(key_units[s][i].target));
}

static void free_targets(int s)
{
    for (int i = 0; i < BATCH; i++) CHECK(ABT_thread_free(&key_units[s][i].target));
}

/* One stream's driver of a key operation. */
typedef struct {
    uint64_t pairs; /* pairs of rounds: one round with the accesses, one without */
    int stream;
    double *with_less_without; /* per pair: ns of the round with minus ns of the round without */
    double *without;           /* per pair: ns of the round without */
} key_driver_t;

/* One round: BATCH units forked into stream s's pool and joined; returns its ns. */
static uint64_t key_round(int s, int with)
{
    void (*body)(void *) = with ? key_body_timed : key_body_base;
    const uint64_t ns0 = key_counts[s].ns;
    if (key_fresh) make_targets(s);
    for (int i = 0; i < BATCH; i++) {
        if (key_tasklets) {
            CHECK(ABT_task_create(pools[s], body, &key_units[s][i], &key_handles[s][i]));
        } else {
            CHECK(ABT_thread_create(pools[s], body, &key_units[s][i], ABT_THREAD_ATTR_NULL,
                                    &key_handles[s][i]));
        }
    }
    for (int i = 0; i < BATCH; i++) {
        ABT_thread *h = &key_handles[s][i];
        CHECK(key_tasklets ? ABT_task_free(h) : ABT_thread_free(h));
    }
    if (key_fresh) free_targets(s);
    return key_counts[s].ns - ns0;
}

/* What one stream's driver does: pairs of rounds, one with and one without the accesses (which
 * first, by turns), each round timed on its own. A pair's two rounds run within a few tens of
 * microseconds of each other, so a change in the machine's speed (a neighbour on the host) lands
 * on both alike; a round that a preemption or a timer interrupt hit makes one pair an outlier,
 * which the median over the pairs ignores. */
static void key_drive(void *arg)
{
    key_driver_t *d = arg;
    for (uint64_t k = 0; k < d->pairs; k++) {
        uint64_t with, without;
        if (k % 2 == 0) {
            with = key_round(d->stream, 1);
            without = key_round(d->stream, 0);
        } else {
            without = key_round(d->stream, 0);
            with = key_round(d->stream, 1);
        }
        d->with_less_without[k] = (double)with - (double)without;
        d->without[k] = (double)without;
    }
}

static double median_of(double *xs, uint64_t n)
{
    qsort(xs, n, sizeof xs[0], cmp_double);
    return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

/* One run: the workload n times with and n times without the accesses on every stream at once,
 * in pairs of rounds. Sets *access to ns per access (the median over the pairs of the two rounds'
 * difference, over BATCH x KEY_OPS) and *unit to ns per unit without accesses (the median
 * round's), both as one stream sees them (the mean of the streams); returns the run's wall time. */
static uint64_t run_keys(uint64_t n, double *access, double *unit)
{
    const uint64_t pairs = n * key_rounds;
    key_driver_t drivers[2];
    for (int s = 0; s < nstreams; s++) {
        double *buf = malloc(2 * pairs * sizeof(double));
        if (buf == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        drivers[s] = (key_driver_t){pairs, s, buf, buf + pairs};
    }
    ABT_thread other = ABT_THREAD_NULL;
    const uint64_t t0 = now_ns();
    if (nstreams == 2) {
        CHECK(ABT_thread_create(pools[1], key_drive, &drivers[1], ABT_THREAD_ATTR_NULL, &other));
    }
    key_drive(&drivers[0]);
    if (nstreams == 2) CHECK(ABT_thread_free(&other));
    const uint64_t elapsed = now_ns() - t0;
    *access = *unit = 0;
    for (int s = 0; s < nstreams; s++) {
        const uint64_t units = 2 * pairs * BATCH;
        if (key_counts[s].n != units || key_counts[s].bad != 0) {
            fprintf(stderr, "keys, stream %d: %llu units ran (want %llu), %llu read wrong values\n",
                    s, (unsigned long long)key_counts[s].n, (unsigned long long)units,
                    (unsigned long long)key_counts[s].bad);
            exit(1);
        }
        key_counts[s].n = 0;
        *access += median_of(drivers[s].with_less_without, pairs) / (BATCH * KEY_OPS);
        *unit += median_of(drivers[s].without, pairs) / BATCH;
        free(drivers[s].with_less_without);
    }
    *access /= nstreams;
    *unit /= nstreams;
    return elapsed;
}

static void key_setup(enum key_op op, int tasklets)
{
    key_op = op;
    key_tasklets = tasklets;
    key_fresh = op == THREAD_SET_OTHER_FIRST;
    key_rounds = nstreams == 1 ? 1 : KEY_UNITS_2 / BATCH;
    for (int j = 0; j < KEY_OPS; j++) CHECK(ABT_key_create(NULL, &keys[j]));
    for (int s = 0; s < nstreams; s++) {
        for (int i = 0; i < BATCH; i++) {
            key_units[s][i] = (key_unit_t){ABT_THREAD_NULL, s};
        }
        if (key_other(op) && !key_fresh) make_targets(s);
    }
}

static void key_teardown(void)
{
    for (int s = 0; s < nstreams; s++) {
        if (key_other(key_op) && !key_fresh) free_targets(s);
    }
    for (int j = 0; j < KEY_OPS; j++) CHECK(ABT_key_free(&keys[j]));
    key_op = KEY_NONE;
}

/* ---- Synchronization ---------------------------------------------------------------------- */

#define FUTURE_PARTS 4 /* compartments of sync_future's futures */

/* One ULT of a synchronization operation, in its own cache line. */
typedef struct {
    _Alignas(64) uint64_t n; /* its operations: locks, turns, creates, passes */
    uint64_t bad;            /* what it found wrong: another holder, a wrong value, an early pass */
    uint64_t takes;          /* sync_mutex_handoff: locks that took the mutex from the other ULT */
    uint64_t end_ns;         /* sync_mutex_handoff: when it made its last unlock */
    uint64_t both;           /* sync_mutex_handoff, the first to end: the locks made until then */
    int id;
} sync_unit_t;

static sync_unit_t sync_units[MAX_UNITS];
static uint64_t sync_n; /* iterations of each ULT in this run (sync_mutex_4x4: locks in all) */
static ABT_mutex sync_mutex;
static ABT_cond sync_cond;
static ABT_eventual sync_ev[2]; /* [0]: unit 0 sets, unit 1 waits; [1] the other way */
static ABT_rwlock sync_rwlock;
static ABT_barrier sync_barrier;
static volatile uint64_t sync_shared;     /* written under the mutex, read under read locks */
static volatile int sync_holder;          /* the unit in the critical section; cond: whose turn */
static volatile uint64_t sync_arrived[2]; /* barrier: the pass each unit last arrived at */

/* What the last run adds to its op= line (sync_mutex_4x4: the spread of the units' locks). */
static char run_note[96];
/* The last run's figure when it is not its wall time over the operations it returned
 * (sync_mutex_handoff: ns per lock while both ULTs wanted the mutex); 0: it is. */
static double run_ns;

static void sync_fail(const char *what, const char *why, unsigned long long got,
                      unsigned long long want)
{
    fprintf(stderr, "%s: %s: %llu, want %llu\n", what, why, got, want);
    exit(1);
}

/* Forks `units` ULTs running body with n iterations each (unit i on stream i % nstreams, its
 * sync_units[i] as argument), joins them, and checks that they counted `want` operations in all
 * and found nothing wrong. */
static void sync_run(const char *what, int units, void (*body)(void *), uint64_t n, uint64_t want)
{
    sync_n = n;
    for (int i = 0; i < units; i++) sync_units[i] = (sync_unit_t){.id = i};
    fork_join(units, body, sync_units, sizeof sync_units[0]);
    uint64_t got = 0, bad = 0;
    for (int i = 0; i < units; i++) {
        got += sync_units[i].n;
        bad += sync_units[i].bad;
    }
    if (got != want) sync_fail(what, "operations counted", got, want);
    if (bad != 0) sync_fail(what, "wrong holders, values or passes seen", bad, 0);
}

/* The counter the critical sections increment (a read and a later write: a lost update shows). */
static void check_shared(const char *what, uint64_t want)
{
    if (sync_shared != want) sync_fail(what, "critical sections counted", sync_shared, want);
}

/* sync_mutex, sync_mutex_main: n uncontended lock + unlock. */
static void mutex_loop(sync_unit_t *u)
{
    for (uint64_t i = 0; i < sync_n; i++) {
        CHECK(ABT_mutex_lock(sync_mutex));
        sync_shared = sync_shared + 1;
        CHECK(ABT_mutex_unlock(sync_mutex));
    }
    u->n += sync_n;
}

static void mutex_body(void *arg) { mutex_loop(arg); }

/* sync_mutex_handoff: lock, yield (to the other unit, which then waits for the mutex), unlock. */
static void mutex_handoff_body(void *arg)
{
    sync_unit_t *u = arg;
    sync_unit_t *other = &sync_units[1 - u->id];
    for (uint64_t i = 0; i < sync_n; i++) {
        CHECK(ABT_mutex_lock(sync_mutex));
        uint64_t v = sync_shared;
        u->takes += sync_holder != u->id;
        sync_holder = u->id;
        CHECK(ABT_thread_yield());
        u->bad += sync_holder != u->id;
        sync_shared = v + 1;
        CHECK(ABT_mutex_unlock(sync_mutex));
        __atomic_store_n(&u->n, i + 1, __ATOMIC_RELAXED); /* the other may read it at its end */
    }
    u->end_ns = now_ns();
    if (__atomic_load_n(&other->end_ns, __ATOMIC_RELAXED) == 0) {
        u->both = sync_n + __atomic_load_n(&other->n, __ATOMIC_RELAXED);
    }
}

/* sync_mutex_4x4: every unit takes the mutex until sync_n locks have been counted in all. */
static void mutex_contend_body(void *arg)
{
    sync_unit_t *u = arg;
    for (int more = 1; more;) {
        CHECK(ABT_mutex_lock(sync_mutex));
        uint64_t v = sync_shared;
        more = v < sync_n;
        if (more) {
            sync_holder = u->id;
            sync_shared = v + 1;
            u->n++;
            u->bad += sync_holder != u->id;
        }
        CHECK(ABT_mutex_unlock(sync_mutex));
    }
}

/* sync_cond: a turn is taking the mutex, waiting until it is the unit's turn, passing the turn
 * to the other unit, signalling it and unlocking. */
static void cond_body(void *arg)
{
    sync_unit_t *u = arg;
    for (uint64_t i = 0; i < sync_n; i++) {
        CHECK(ABT_mutex_lock(sync_mutex));
        while (sync_holder != u->id) CHECK(ABT_cond_wait(sync_cond, sync_mutex));
        sync_holder = 1 - u->id;
        sync_shared = sync_shared + 1;
        u->n++;
        CHECK(ABT_cond_signal(sync_cond));
        CHECK(ABT_mutex_unlock(sync_mutex));
    }
}

/* sync_eventual: create, set, wait (ready: returns at once), check the value, free. */
static void eventual_body(void *arg)
{
    sync_unit_t *u = arg;
    for (uint64_t i = 0; i < sync_n; i++) {
        ABT_eventual ev;
        void *value = NULL;
        CHECK(ABT_eventual_create(sizeof i, &ev));
        CHECK(ABT_eventual_set(ev, &i, sizeof i));
        CHECK(ABT_eventual_wait(ev, &value));
        u->bad += *(uint64_t *)value != i;
        CHECK(ABT_eventual_free(&ev));
    }
    u->n += sync_n;
}

/* sync_eventual_trip: unit 0 sets sync_ev[0] to i and waits for sync_ev[1]; unit 1 waits for
 * sync_ev[0] and answers on sync_ev[1] with the same i. Each resets what it waited for before
 * it sets the other (which is what lets the other set it again). */
static void eventual_trip_body(void *arg)
{
    sync_unit_t *u = arg;
    ABT_eventual out = sync_ev[u->id], in = sync_ev[1 - u->id];
    for (uint64_t i = 0; i < sync_n; i++) {
        void *value = NULL;
        if (u->id == 0) CHECK(ABT_eventual_set(out, &i, sizeof i));
        CHECK(ABT_eventual_wait(in, &value));
        u->bad += *(uint64_t *)value != i;
        CHECK(ABT_eventual_reset(in));
        if (u->id == 1) CHECK(ABT_eventual_set(out, &i, sizeof i));
        u->n++;
    }
}

/* sync_barrier: each pass, a unit notes that it arrived, waits, and checks that the other
 * arrived too. */
static void barrier_body(void *arg)
{
    sync_unit_t *u = arg;
    for (uint64_t pass = 1; pass <= sync_n; pass++) {
        sync_arrived[u->id] = pass;
        CHECK(ABT_barrier_wait(sync_barrier));
        u->bad += sync_arrived[1 - u->id] < pass;
        u->n++;
    }
}

/* sync_rwlock_rd: read lock, read the shared value, unlock; the values read are summed. */
static void rwlock_body(void *arg)
{
    sync_unit_t *u = arg;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < sync_n; i++) {
        CHECK(ABT_rwlock_rdlock(sync_rwlock));
        sum += sync_shared;
        CHECK(ABT_rwlock_unlock(sync_rwlock));
    }
    u->bad += sum != sync_n * sync_shared;
    u->n += sync_n;
}

/* sync_future: create, FUTURE_PARTS sets, wait (ready: returns at once), free; no callback. */
static void *future_parts[FUTURE_PARTS]; /* what the compartments are set to: their addresses */
static void *future_seen[FUTURE_PARTS];  /* what the checking callback was given */

static void future_body(void *arg)
{
    sync_unit_t *u = arg;
    for (uint64_t i = 0; i < sync_n; i++) {
        ABT_future f;
        CHECK(ABT_future_create(FUTURE_PARTS, NULL, &f));
        for (int j = 0; j < FUTURE_PARTS; j++) CHECK(ABT_future_set(f, &future_parts[j]));
        CHECK(ABT_future_wait(f));
        CHECK(ABT_future_free(&f));
        u->bad += f != ABT_FUTURE_NULL;
    }
    u->n += sync_n;
}

static void future_callback(void **values)
{
    memcpy(future_seen, values, sizeof future_seen);
}

/* Once per run, a future that is watched: not ready until its last set, which runs the
 * callback with the values in set order; ready after it. */
static void future_check(void)
{
    ABT_future f;
    ABT_bool ready;
    memset(future_seen, 0, sizeof future_seen);
    CHECK(ABT_future_create(FUTURE_PARTS, future_callback, &f));
    for (int j = 0; j < FUTURE_PARTS; j++) {
        CHECK(ABT_future_test(f, &ready));
        if (ready != ABT_FALSE) sync_fail("future", "ready after this many sets", j, FUTURE_PARTS);
        CHECK(ABT_future_set(f, &future_parts[j]));
    }
    CHECK(ABT_future_wait(f));
    CHECK(ABT_future_test(f, &ready));
    if (ready != ABT_TRUE) sync_fail("future", "not ready after this many sets", FUTURE_PARTS, 0);
    unsigned wrong = 0;
    for (int j = 0; j < FUTURE_PARTS; j++) wrong += future_seen[j] != &future_parts[j];
    if (wrong != 0) sync_fail("future", "values the callback got wrong", wrong, 0);
    CHECK(ABT_future_free(&f));
}

/* Once per run, that the mutex excludes: ABT_mutex_trylock fails while it is held. (An
 * uncontended loop alone would not tell a mutex from a no-op.) */
static void mutex_check(void)
{
    CHECK(ABT_mutex_lock(sync_mutex));
    int rc = ABT_mutex_trylock(sync_mutex);
    if (rc != ABT_ERR_MUTEX_LOCKED) sync_fail("mutex", "trylock of a held mutex returned", rc, 0);
    CHECK(ABT_mutex_unlock(sync_mutex));
    CHECK(ABT_mutex_trylock(sync_mutex));
    CHECK(ABT_mutex_unlock(sync_mutex));
}

static volatile int rwlock_written;

static void rwlock_writer(void *arg)
{
    (void)arg;
    CHECK(ABT_rwlock_wrlock(sync_rwlock));
    rwlock_written = 1;
    CHECK(ABT_rwlock_unlock(sync_rwlock));
}

/* Once per run, that a read lock excludes a writer: one started while the main ULT reads, and
 * yielded to, writes only once the read lock is released. */
static void rwlock_check(void)
{
    ABT_thread writer;
    rwlock_written = 0;
    CHECK(ABT_rwlock_rdlock(sync_rwlock));
    CHECK(ABT_thread_create(pools[0], rwlock_writer, NULL, ABT_THREAD_ATTR_NULL, &writer));
    for (int i = 0; i < 4; i++) CHECK(ABT_thread_yield());
    if (rwlock_written) sync_fail("rwlock", "writes while read-locked", 1, 0);
    CHECK(ABT_rwlock_unlock(sync_rwlock));
    CHECK(ABT_thread_free(&writer));
    if (!rwlock_written) sync_fail("rwlock", "writes once unlocked", 0, 1);
}

/* The runs: each creates its objects, checks them once, runs its ULTs (or the main ULT), frees
 * the objects and checks the counts; it returns the operations the figure is per. */

static uint64_t run_mutex_with(uint64_t n, int units, void (*body)(void *), uint64_t want)
{
    CHECK(ABT_mutex_create(&sync_mutex));
    mutex_check();
    sync_shared = 0;
    if (body != NULL) {
        sync_run("mutex", units, body, n, want);
    } else { /* in the main ULT */
        sync_units[0] = (sync_unit_t){.id = 0};
        sync_n = n;
        mutex_loop(&sync_units[0]);
        if (sync_units[0].n != want) {
            sync_fail("mutex", "operations counted", sync_units[0].n, want);
        }
    }
    CHECK(ABT_mutex_free(&sync_mutex));
    check_shared("mutex", want);
    return want;
}

/* sync_floor: two locked read-modify-writes of one word (exchange to 1, exchange back to 0) in
 * the main thread, no Argobots call: goabt's uncontended lock + unlock makes two such (a
 * compare-and-swap each). */
static uint64_t run_floor(uint64_t n)
{
    static int word;
    for (uint64_t i = 0; i < n; i++) {
        __atomic_exchange_n(&word, 1, __ATOMIC_ACQUIRE);
        __atomic_exchange_n(&word, 0, __ATOMIC_RELEASE);
    }
    return n;
}

static uint64_t run_mutex(uint64_t n) { return run_mutex_with(n, 1, mutex_body, n); }

static uint64_t run_mutex_main(uint64_t n) { return run_mutex_with(n, 0, NULL, n); }

/* Its figure is ns per lock until the first ULT to finish made its last unlock, while both
 * ULTs wanted the mutex. Its note says how the locks went: handovers=, the times per 1000 locks
 * that the mutex went from one ULT to the other; first_end=, when that last unlock came, as a
 * fraction of the run (near 1: they took turns to the end; near 0.5: one made its n locks
 * while the other waited, then the other made its n alone); all_ns=, ns per lock over the
 * whole run, the locks made alone included. */
static uint64_t run_mutex_handoff(uint64_t n)
{
    sync_holder = -1;
    uint64_t t0 = now_ns();
    run_mutex_with(n, 2, mutex_handoff_body, 2 * n);
    uint64_t t1 = now_ns();
    /* The first lock of the run takes it from nobody: not a handover. */
    uint64_t handovers = sync_units[0].takes + sync_units[1].takes - 1;
    uint64_t first = sync_units[0].end_ns < sync_units[1].end_ns ? sync_units[0].end_ns
                                                                 : sync_units[1].end_ns;
    uint64_t both = sync_units[0].both + sync_units[1].both; /* one of them is 0 */
    run_ns = (double)(first - t0) / (double)both;
    snprintf(run_note, sizeof run_note, " handovers=%.3f first_end=%.3f all_ns=%.3f",
             (double)handovers * 1000.0 / (double)(2 * n),
             (double)(first - t0) / (double)(t1 - t0), (double)(t1 - t0) / (double)(2 * n));
    return 2 * n;
}

static uint64_t run_mutex_4x4(uint64_t n)
{
    const int units = 4 * nstreams;
    run_mutex_with(n, units, mutex_contend_body, n);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < units; i++) {
        lo = sync_units[i].n < lo ? sync_units[i].n : lo;
        hi = sync_units[i].n > hi ? sync_units[i].n : hi;
    }
    const double even = (double)n / units;
    snprintf(run_note, sizeof run_note, " share_min=%.3f share_max=%.3f", (double)lo / even,
             (double)hi / even);
    return n;
}

static uint64_t run_cond(uint64_t n)
{
    CHECK(ABT_mutex_create(&sync_mutex));
    CHECK(ABT_cond_create(&sync_cond));
    sync_shared = 0;
    sync_holder = 0;
    sync_run("cond", 2, cond_body, n, 2 * n);
    CHECK(ABT_cond_free(&sync_cond));
    CHECK(ABT_mutex_free(&sync_mutex));
    check_shared("cond", 2 * n);
    return 2 * n;
}

static uint64_t run_eventual(uint64_t n)
{
    sync_run("eventual", 1, eventual_body, n, n);
    return n;
}

static uint64_t run_eventual_trip(uint64_t n)
{
    for (int i = 0; i < 2; i++) CHECK(ABT_eventual_create(sizeof(uint64_t), &sync_ev[i]));
    sync_run("eventual round trip", 2, eventual_trip_body, n, 2 * n);
    for (int i = 0; i < 2; i++) CHECK(ABT_eventual_free(&sync_ev[i]));
    return n;
}

static uint64_t run_barrier(uint64_t n)
{
    CHECK(ABT_barrier_create(2, &sync_barrier));
    sync_arrived[0] = sync_arrived[1] = 0;
    sync_run("barrier", 2, barrier_body, n, 2 * n);
    CHECK(ABT_barrier_free(&sync_barrier));
    return n;
}

static uint64_t run_rwlock(uint64_t n)
{
    CHECK(ABT_rwlock_create(&sync_rwlock));
    rwlock_check();
    sync_shared = 7;
    sync_run("rwlock", 1, rwlock_body, n, n);
    CHECK(ABT_rwlock_free(&sync_rwlock));
    return n;
}

static uint64_t run_future(uint64_t n)
{
    future_check();
    sync_run("future", 1, future_body, n, n);
    return n;
}

/* Operations on objects that goabt may not provide yet: one untimed use of each call the
 * operation makes, before anything is timed. Returns NULL, or the name of the first call that
 * returned ABT_ERR_FEATURE_NA (the driver shows the row as not implemented); any other error
 * ends the program. */
#define PROBE(fn, args)                                                                            \
    do {                                                                                           \
        int probe_rc_ = fn args;                                                                   \
        if (probe_rc_ == ABT_ERR_FEATURE_NA) return #fn;                                           \
        if (probe_rc_ != ABT_SUCCESS) sync_fail(#fn, "returned", (unsigned)probe_rc_, 0);        \
    } while (0)

static const char *probe_rwlock(void)
{
    ABT_rwlock rw;
    PROBE(ABT_rwlock_create, (&rw));
    PROBE(ABT_rwlock_rdlock, (rw));
    PROBE(ABT_rwlock_unlock, (rw));
    PROBE(ABT_rwlock_free, (&rw));
    return NULL;
}

static const char *probe_barrier(void)
{
    ABT_barrier b;
    PROBE(ABT_barrier_create, (1, &b));
    PROBE(ABT_barrier_wait, (b)); /* the only waiter: passes at once */
    PROBE(ABT_barrier_free, (&b));
    return NULL;
}
#undef PROBE

/* ---- Timing ------------------------------------------------------------------------------- */

/* One run of n rounds; returns ns per operation and sets *elapsed. */
static double run_once(run_fn fn, uint64_t n, uint64_t *elapsed)
{
    run_ns = 0;
    uint64_t t0 = now_ns();
    uint64_t ops = fn(n);
    *elapsed = now_ns() - t0;
    return run_ns > 0 ? run_ns : (double)*elapsed / (double)ops;
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
    double ns[BENCH_RUNS], sorted[BENCH_RUNS];
    char notes[BENCH_RUNS][sizeof run_note];
    for (int r = 0; r < BENCH_RUNS; r++) {
        run_note[0] = '\0';
        ns[r] = sorted[r] = run_once(fn, n, &elapsed);
        memcpy(notes[r], run_note, sizeof run_note);
    }
    qsort(sorted, BENCH_RUNS, sizeof sorted[0], cmp_double);
    int median = 0; /* the median run, whose note goes with the figure */
    while (ns[median] != sorted[BENCH_RUNS / 2]) median++;
    printf("op=%s threads=%d ns=%.3f%s\n", name, streams, ns[median], notes[median]);
    fflush(stdout);
}

/* A key operation: the count calibrated until a run takes KEY_TARGET_NS, then BENCH_RUNS runs;
 * prints the median of their ns per access, and as base= their median ns per unit without
 * accesses. */
static void bench_keys(const char *name, int streams, uint64_t n)
{
    double access[BENCH_RUNS], unit[BENCH_RUNS];
    /* The first run, not timed: its units' descriptors, stacks and key tables come from the Go
     * core, a cost that later runs do not pay (and that would end the calibration too early). */
    run_keys(n, &access[0], &unit[0]);
    for (;;) {
        uint64_t elapsed = run_keys(n, &access[0], &unit[0]);
        if (elapsed >= KEY_TARGET_NS || n >= (1ULL << 40)) {
            break;
        }
        uint64_t grow = elapsed == 0 ? 16 : (KEY_TARGET_NS * 5 / 4) / elapsed + 1;
        n *= grow < 2 ? 2 : (grow > 16 ? 16 : grow);
    }
    for (int r = 0; r < BENCH_RUNS; r++) {
        run_keys(n, &access[r], &unit[r]);
    }
    qsort(access, BENCH_RUNS, sizeof access[0], cmp_double);
    qsort(unit, BENCH_RUNS, sizeof unit[0], cmp_double);
    double ns = access[BENCH_RUNS / 2];
    if (!(ns > 0)) {
        /* Noise larger than the accesses: no figure (the driver shows none for this round). */
        fprintf(stderr, "%s: the rounds with the accesses were not slower than those without "
                        "(median %.3f ns per access): no figure\n", name, ns);
        ns = NAN;
    }
    printf("op=%s threads=%d ns=%.3f base=%.1f\n", name, streams, ns, unit[BENCH_RUNS / 2]);
    fflush(stdout);
}

static const struct {
    const char *name;
    run_fn fn; /* NULL for key operations */
    int streams;
    uint64_t n0;     /* first count tried by the calibration */
    int init;        /* run between an ABT_init and an ABT_finalize of its own */
    enum key_op key; /* a key operation, timed by bench_keys; KEY_NONE for the others */
    int tasklets;    /* key operations: the units are tasklets */
    /* NULL, or what tells whether goabt provides the operation's calls (see probe_rwlock) */
    const char *(*probe)(void);
} ops[] = {
    {"ult_1", run_ult, 1, 1, 1, KEY_NONE, 0, NULL},
    {"ult_2", run_ult, 2, 1, 1, KEY_NONE, 0, NULL},
    {"task_1", run_task, 1, 1, 1, KEY_NONE, 0, NULL},
    {"task_2", run_task, 2, 1, 1, KEY_NONE, 0, NULL},
    {"yield", run_yield, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"yield_to", run_yield_to, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"yield_alone", run_yield_alone, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"yield_main", run_yield_main, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"migrate_2", run_migrate, 2, 64, 1, KEY_NONE, 0, NULL},
    {"migrate_2_busy", run_migrate, 2, 64, 1, KEY_NONE, 0, NULL}, /* _busy: start_spinners */
    {"init_finalize", run_init_finalize, 1, 1, 0, KEY_NONE, 0, NULL},
    {"cold_init", NULL, 1, 0, 0, KEY_NONE, 0, NULL}, /* no fn, no key: bench_cold */
    {"cold_vsize", NULL, 1, 0, 0, KEY_NONE, 0, NULL},
    {"cold_first_ult", NULL, 1, 0, 0, KEY_NONE, 0, NULL},
#define KEY_ROWS(name, op)                                                                         \
    {name "_1", NULL, 1, 1, 1, op, 0, NULL}, {name "_2", NULL, 2, 1, 1, op, 0, NULL}
#define TASK_KEY_ROWS(name, op)                                                                    \
    {"task_" name "_1", NULL, 1, 1, 1, op, 1, NULL},                                               \
        {"task_" name "_2", NULL, 2, 1, 1, op, 1, NULL}
#define ALL_KEY_ROWS(ROWS)                                                                         \
    ROWS("key_get", KEY_GET), ROWS("key_set", KEY_SET), ROWS("key_set_first", KEY_SET_FIRST),      \
        ROWS("self_get", SELF_GET), ROWS("self_set", SELF_SET),                                    \
        ROWS("self_set_first", SELF_SET_FIRST), ROWS("thread_get_self", THREAD_GET_SELF),          \
        ROWS("thread_set_self", THREAD_SET_SELF),                                                  \
        ROWS("thread_set_self_first", THREAD_SET_SELF_FIRST),                                      \
        ROWS("thread_get_other", THREAD_GET_OTHER), ROWS("thread_set_other", THREAD_SET_OTHER),    \
        ROWS("thread_set_other_first", THREAD_SET_OTHER_FIRST)
    ALL_KEY_ROWS(KEY_ROWS),
    ALL_KEY_ROWS(TASK_KEY_ROWS),
    {"sync_floor", run_floor, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_mutex", run_mutex, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_mutex_main", run_mutex_main, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_mutex_handoff", run_mutex_handoff, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_cond", run_cond, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_eventual", run_eventual, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_eventual_trip", run_eventual_trip, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_barrier", run_barrier, 1, 1024, 1, KEY_NONE, 0, probe_barrier},
    {"sync_rwlock_rd", run_rwlock, 1, 1024, 1, KEY_NONE, 0, probe_rwlock},
    {"sync_future", run_future, 1, 1024, 1, KEY_NONE, 0, NULL},
    {"sync_mutex_4x4", run_mutex_4x4, 4, 1024, 1, KEY_NONE, 0, NULL},
};
#define NOPS (sizeof ops / sizeof ops[0])

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--cold-child") == 0) return cold_child();
    int want[NOPS];
    int status = bench_select(argc, argv, ops, sizeof ops[0], NOPS, want);
    if (status >= 0) return status;

    for (size_t i = 0; i < NOPS; i++) {
        if (!want[i]) {
            continue;
        }
        if (ops[i].fn == NULL && ops[i].key == KEY_NONE) {
            bench_cold(ops[i].name); /* in processes of their own */
            continue;
        }
        int busy = is_busy(ops[i].name);
        if (busy) start_spinners();
        if (ops[i].init) {
            setup(ops[i].streams);
        } else {
            settle();
        }
        const char *missing = ops[i].probe != NULL ? ops[i].probe() : NULL;
        if (missing != NULL) {
            /* No figure: the driver shows the row as not implemented. */
            printf("op=%s threads=%d ns=nan not_implemented=%s\n", ops[i].name, ops[i].streams,
                   missing);
            fflush(stdout);
        } else if (ops[i].key != KEY_NONE) {
            key_setup(ops[i].key, ops[i].tasklets);
            bench_keys(ops[i].name, ops[i].streams, ops[i].n0);
            key_teardown();
        } else {
            bench(ops[i].name, ops[i].streams, ops[i].fn, ops[i].n0);
        }
        if (ops[i].init) {
            teardown();
        }
        if (busy) stop_spinners();
    }
    return 0;
}
