/*
 * gopool_bench.c: what pools and schedulers written in Go cost, next to goabt's C FIFO and
 * predefined scheduler, in ns per operation.
 *
 * Compiled by bench/main.go against goabt's abt.h and libgoabt.so; it uses the Argobots 1.2 API
 * only, and selects the Go pool and scheduler the way an unchanged program would: each operation
 * sets GOABT_POOL and GOABT_SCHED (or leaves them unset) before its ABT_init, so every pool and
 * scheduler the runtime makes, the primary's included, is the Go one.
 *
 * Every operation's name starts with gopool_ (go run ./bench -only gopool_ runs them all):
 *   ult_1_<pool>    primary stream only: rounds of 256 ABT_thread_create into the primary's main
 *                   pool, then 256 ABT_thread_free (which joins); ns per ULT (abt_bench's ult_1)
 *   ult_2_<pool>    the same on two streams at once, each forking and joining in its own pool (the
 *                   other stream made by ABT_xstream_create(ABT_SCHED_NULL)); ns per ULT over both
 *   pushpop_<pool>  by hand, from the main ULT: ABT_pool_push_thread then ABT_pool_pop_thread of one
 *                   ready ULT, on a pool of ABT_pool_create_basic that no scheduler serves; ns per
 *                   push + pop
 *   prio_<sched>    ult_1 with the primary's main scheduler an ABT_SCHED_PRIO of two pools
 *                   (ABT_xstream_set_main_sched_basic), the ULTs created into both in turn, so that
 *                   the scheduler chooses between two pools that hold units; ns per ULT
 *   prio2_<sched>   prio on two streams at once, the other stream made by
 *                   ABT_xstream_create_basic(ABT_SCHED_PRIO) with two pools of its own, each stream
 *                   forking into its own two in turn; ns per ULT over both
 * where <pool> is fifo (GOABT_POOL unset: goabt's C FIFO), ws (GOABT_POOL=ws), or a FIFO written
 * here against ABT_pool_user_def, as a program would (the primary's, the second stream's and
 * pushpop's pool): user (a ring of thread handles under a spinlock; its units are the threads'
 * handles, so it allocates nothing) or userlist (a list under a spinlock of units that
 * create_unit allocates with malloc and free_unit frees), and <sched> is
 * basic (GOABT_SCHED unset: goabt's predefined scheduler, first non-empty pool first) or deadline
 * (GOABT_SCHED=deadline). Each line reads
 *
 *     op=<name> threads=<streams> ns=<median ns per operation> pool=<GOABT_POOL> sched=<GOABT_SCHED>
 *
 * Each operation runs in a calibrated loop (the count grown until a run takes 50 ms), then five
 * timed runs, whose median is printed. Every ULT counts its run, and every run checks the counts;
 * pushpop checks that the pop returns the ULT pushed.
 *
 * Usage: gopool_bench [-l | OP...], as abt_bench.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <abt.h>
#include "bench_args.h"

#define BENCH_TARGET_NS 50000000ULL
#define BENCH_RUNS 5
#define BATCH 256




typedef struct {
    _Alignas(64) uint64_t n;
} counter_t;

static counter_t ran[2];
static ABT_pool pools[2];
static int prio; /* the primary's scheduler has two pools, pools[0] and pools[1] */
static ABT_pool extra_pools[2]; /* with prio and 2 streams: the other stream's two */
static ABT_xstream extra;
static int nstreams;

static void unit_body(void *arg) { ((counter_t *)arg)->n++; }

/* ---- Runs: each does n rounds and returns the operations it did ----------------------------- */

typedef struct {
    uint64_t n;
    int stream;
} driver_t;

static void drive(void *arg)
{
    driver_t *d = arg;
    ABT_thread units[BATCH];
    for (uint64_t r = 0; r < d->n; r++) {
        for (int i = 0; i < BATCH; i++) {
            ABT_pool pool = prio ? (d->stream ? extra_pools : pools)[i & 1] : pools[d->stream];
            CHECK(ABT_thread_create(pool, unit_body, &ran[d->stream], ABT_THREAD_ATTR_NULL, &units[i]));
        }
        for (int i = 0; i < BATCH; i++) CHECK(ABT_thread_free(&units[i]));
    }
}

static uint64_t run_ult(uint64_t n)
{
    driver_t drivers[2] = {{n, 0}, {n, 1}};
    ABT_thread other = ABT_THREAD_NULL;
    ABT_pool other_pool = prio ? extra_pools[0] : pools[1];
    if (nstreams == 2) CHECK(ABT_thread_create(other_pool, drive, &drivers[1], ABT_THREAD_ATTR_NULL, &other));
    drive(&drivers[0]);
    if (nstreams == 2) CHECK(ABT_thread_free(&other));
    uint64_t total = n * BATCH * (uint64_t)nstreams;
    if (ran[0].n + ran[1].n != total) {
        fprintf(stderr, "%llu ULTs ran, want %llu\n", (unsigned long long)(ran[0].n + ran[1].n),
                (unsigned long long)total);
        exit(1);
    }
    ran[0].n = ran[1].n = 0;
    return total;
}

static ABT_pool idle_pool;
static ABT_thread parked;

static uint64_t run_pushpop(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        ABT_thread t = ABT_THREAD_NULL;
        CHECK(ABT_pool_push_thread(idle_pool, parked));
        CHECK(ABT_pool_pop_thread(idle_pool, &t));
        if (t != parked) {
            fprintf(stderr, "pushpop: popped %p, pushed %p\n", (void *)t, (void *)parked);
            exit(1);
        }
    }
    return n;
}

/* ---- User-defined FIFO pools, as a program writes one -------------------------------------------- */

/* user: a ring of thread handles. Room for what a stream queues at once (rounds of 256
 * creates) and more; a push that finds it full stops the benchmark. Not larger: the ring's
 * slots are swept in turn, so its size is memory the pool walks through, the pool's own cost
 * and not the engine's. At 65536 slots (512 KB a pool) the 2-stream row paid ~10 ns a ULT
 * more than at 1024 (112 against 100 ns, the C FIFO 85). */
#define RING 1024

typedef struct {
    _Alignas(64) int lock;
    unsigned head, tail; /* atomic reads */
    ABT_thread slots[RING];
} user_ring_t;

static void ring_lock(int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) __builtin_ia32_pause();
    }
}

static user_ring_t *user_ring(ABT_pool pool)
{
    void *q = NULL;
    ABT_pool_get_data(pool, &q);
    return q;
}

static ABT_unit ring_create_unit(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    return (ABT_unit)thread;
}

static void ring_free_unit(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    (void)unit;
}

static ABT_bool ring_is_empty(ABT_pool pool)
{
    user_ring_t *q = user_ring(pool);
    return __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) == __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE)
               ? ABT_TRUE
               : ABT_FALSE;
}

static void ring_push(ABT_pool pool, ABT_unit unit, ABT_pool_context ctx)
{
    (void)ctx;
    user_ring_t *q = user_ring(pool);
    ring_lock(&q->lock);
    if (q->tail - q->head == RING) {
        fprintf(stderr, "user ring pool full\n");
        exit(1);
    }
    q->slots[q->tail % RING] = (ABT_thread)unit;
    __atomic_store_n(&q->tail, q->tail + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&q->lock, 0, __ATOMIC_RELEASE);
}

static ABT_thread ring_pop(ABT_pool pool, ABT_pool_context ctx)
{
    (void)ctx;
    user_ring_t *q = user_ring(pool);
    if (ring_is_empty(pool)) return ABT_THREAD_NULL;
    ring_lock(&q->lock);
    ABT_thread t = ABT_THREAD_NULL;
    if (q->head != q->tail) {
        t = q->slots[q->head % RING];
        __atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&q->lock, 0, __ATOMIC_RELEASE);
    return t;
}

static int ring_init(ABT_pool pool, ABT_pool_config config)
{
    (void)config;
    user_ring_t *q = aligned_alloc(64, sizeof *q);
    if (q == NULL) return ABT_ERR_MEM;
    memset(q, 0, sizeof *q);
    return ABT_pool_set_data(pool, q);
}

/* userlist: a list of allocated units. */

typedef struct user_unit {
    struct user_unit *next;
    ABT_thread thread;
} user_unit_t;

typedef struct {
    _Alignas(64) int lock;
    user_unit_t *head, *tail;
} user_fifo_t;

static void user_lock(user_fifo_t *q)
{
    while (__atomic_exchange_n(&q->lock, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&q->lock, __ATOMIC_RELAXED)) __builtin_ia32_pause();
    }
}

static void user_unlock(user_fifo_t *q) { __atomic_store_n(&q->lock, 0, __ATOMIC_RELEASE); }

static user_fifo_t *user_fifo(ABT_pool pool)
{
    void *q = NULL;
    ABT_pool_get_data(pool, &q);
    return q;
}

static ABT_unit user_create_unit(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    user_unit_t *u = malloc(sizeof *u);
    if (u == NULL) return ABT_UNIT_NULL;
    u->next = NULL;
    u->thread = thread;
    return (ABT_unit)u;
}

static void user_free_unit(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    free(unit);
}

static ABT_bool user_is_empty(ABT_pool pool)
{
    return __atomic_load_n(&user_fifo(pool)->head, __ATOMIC_ACQUIRE) == NULL ? ABT_TRUE : ABT_FALSE;
}

static void user_push(ABT_pool pool, ABT_unit unit, ABT_pool_context ctx)
{
    (void)ctx;
    user_fifo_t *q = user_fifo(pool);
    user_unit_t *u = (user_unit_t *)unit;
    u->next = NULL;
    user_lock(q);
    if (q->tail != NULL) {
        q->tail->next = u;
    } else {
        __atomic_store_n(&q->head, u, __ATOMIC_RELEASE);
    }
    q->tail = u;
    user_unlock(q);
}

static ABT_thread user_pop(ABT_pool pool, ABT_pool_context ctx)
{
    (void)ctx;
    user_fifo_t *q = user_fifo(pool);
    if (__atomic_load_n(&q->head, __ATOMIC_ACQUIRE) == NULL) return ABT_THREAD_NULL;
    user_lock(q);
    user_unit_t *u = q->head;
    if (u != NULL) {
        __atomic_store_n(&q->head, u->next, __ATOMIC_RELEASE);
        if (q->head == NULL) q->tail = NULL;
    }
    user_unlock(q);
    return u != NULL ? u->thread : ABT_THREAD_NULL;
}

static int user_init(ABT_pool pool, ABT_pool_config config)
{
    (void)config;
    user_fifo_t *q = aligned_alloc(64, sizeof *q);
    if (q == NULL) return ABT_ERR_MEM;
    memset(q, 0, sizeof *q);
    return ABT_pool_set_data(pool, q);
}

static void user_free(ABT_pool pool) { free(user_fifo(pool)); }

/* A user pool: userlist's if list, else user's. */
static ABT_pool user_pool_new(int list)
{
    ABT_pool_user_def def;
    ABT_pool pool;
    if (list) {
        CHECK(ABT_pool_user_def_create(user_create_unit, user_free_unit, user_is_empty, user_pop,
                                       user_push, &def));
        CHECK(ABT_pool_user_def_set_init(def, user_init));
    } else {
        CHECK(ABT_pool_user_def_create(ring_create_unit, ring_free_unit, ring_is_empty, ring_pop,
                                       ring_push, &def));
        CHECK(ABT_pool_user_def_set_init(def, ring_init));
    }
    CHECK(ABT_pool_user_def_set_free(def, user_free)); /* both keep their queue in the data */
    CHECK(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &pool));
    CHECK(ABT_pool_user_def_free(&def));
    return pool;
}

/* ---- Set-up --------------------------------------------------------------------------------- */

static void set_env(const char *name, const char *value)
{
    if (value != NULL) {
        setenv(name, value, 1);
    } else {
        unsetenv(name);
    }
}

static void setup(const char *pool, const char *sched, int streams, int pushpop, int two_pools)
{
    int user = pool != NULL && strncmp(pool, "user", 4) == 0;
    int list = user && strcmp(pool, "userlist") == 0;
    set_env("GOABT_POOL", user ? NULL : pool);
    set_env("GOABT_SCHED", sched);
    CHECK(ABT_init(0, NULL));
    ABT_xstream self;
    CHECK(ABT_xstream_self(&self));
    prio = two_pools;
    if (prio) CHECK(ABT_xstream_set_main_sched_basic(self, ABT_SCHED_PRIO, 2, NULL));
    if (user) {
        ABT_pool mine = user_pool_new(list);
        CHECK(ABT_xstream_set_main_sched_basic(self, ABT_SCHED_BASIC, 1, &mine));
    }
    CHECK(ABT_xstream_get_main_pools(self, prio ? 2 : 1, pools));
    nstreams = streams;
    if (streams == 2) {
        if (user) {
            ABT_pool theirs = user_pool_new(list);
            CHECK(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &theirs, ABT_SCHED_CONFIG_NULL,
                                           &extra));
        } else if (prio) {
            CHECK(ABT_xstream_create_basic(ABT_SCHED_PRIO, 2, NULL, ABT_SCHED_CONFIG_NULL, &extra));
            CHECK(ABT_xstream_get_main_pools(extra, 2, extra_pools));
        } else {
            CHECK(ABT_xstream_create(ABT_SCHED_NULL, &extra));
        }
        if (!prio) CHECK(ABT_xstream_get_main_pools(extra, 1, &pools[1]));
    }
    if (pushpop) {
        /* A ULT created into a pool no scheduler serves, taken out: ready, in no pool. */
        if (user) {
            idle_pool = user_pool_new(list);
        } else {
            CHECK(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &idle_pool));
        }
        CHECK(ABT_thread_create(idle_pool, unit_body, &ran[0], ABT_THREAD_ATTR_NULL, &parked));
        ABT_thread t;
        CHECK(ABT_pool_pop_thread(idle_pool, &t));
    }
    /* goabt's Go runtime keeps waking for its first ~100 ms (see opal_bench.c). */
    nanosleep(&(struct timespec){.tv_nsec = 150000000}, NULL);
}

static void teardown(int pushpop)
{
    if (pushpop) {
        CHECK(ABT_pool_push_thread(pools[0], parked)); /* runs, then is freed */
        CHECK(ABT_thread_free(&parked));
        CHECK(ABT_pool_free(&idle_pool));
        ran[0].n = 0;
    }
    if (nstreams == 2) {
        CHECK(ABT_xstream_join(extra));
        CHECK(ABT_xstream_free(&extra));
    }
    CHECK(ABT_finalize());
}

/* ---- Timing --------------------------------------------------------------------------------- */

typedef uint64_t (*run_fn)(uint64_t n);

static double run_once(run_fn fn, uint64_t n, uint64_t *elapsed)
{
    uint64_t t0 = now_ns();
    uint64_t ops = fn(n);
    *elapsed = now_ns() - t0;
    return (double)*elapsed / (double)ops;
}

static double measure(run_fn fn, uint64_t n)
{
    uint64_t elapsed = 0;
    for (;;) { /* calibrate; the first run also warms caches, stacks and free lists */
        run_once(fn, n, &elapsed);
        if (elapsed >= BENCH_TARGET_NS || n >= (1ULL << 40)) break;
        uint64_t grow = elapsed == 0 ? 16 : (BENCH_TARGET_NS * 5 / 4) / elapsed + 1;
        n *= grow < 2 ? 2 : (grow > 16 ? 16 : grow);
    }
    double ns[BENCH_RUNS];
    for (int r = 0; r < BENCH_RUNS; r++) ns[r] = run_once(fn, n, &elapsed);
    qsort(ns, BENCH_RUNS, sizeof ns[0], cmp_double);
    return ns[BENCH_RUNS / 2];
}

/* A row per Go pool (and the C FIFO, and the user FIFO): a new Go pool gets its rows by a line
 * here. */
#define POOLS(op, fn, streams, n0, pushpop)                                                    \
    {op "_fifo", fn, streams, n0, pushpop, 0, NULL, NULL},                                     \
        {op "_ws", fn, streams, n0, pushpop, 0, "ws", NULL},                                   \
        {op "_user", fn, streams, n0, pushpop, 0, "user", NULL},                               \
        {op "_userlist", fn, streams, n0, pushpop, 0, "userlist", NULL}

static const struct {
    const char *name;
    run_fn fn;
    int streams;
    uint64_t n0;
    int pushpop;
    int two_pools;
    const char *pool, *sched; /* GOABT_POOL, GOABT_SCHED; NULL: unset */
} ops[] = {
    POOLS("gopool_ult_1", run_ult, 1, 1, 0),
    POOLS("gopool_ult_2", run_ult, 2, 1, 0),
    POOLS("gopool_pushpop", run_pushpop, 1, 1024, 1),
    {"gopool_prio_basic", run_ult, 1, 1, 0, 1, NULL, NULL},
    {"gopool_prio_deadline", run_ult, 1, 1, 0, 1, NULL, "deadline"},
    {"gopool_prio2_basic", run_ult, 2, 1, 0, 1, NULL, NULL},
    {"gopool_prio2_deadline", run_ult, 2, 1, 0, 1, NULL, "deadline"},
};
#define NOPS (sizeof ops / sizeof ops[0])

int main(int argc, char **argv)
{
    int want[NOPS];
    int status = bench_select(argc, argv, ops, sizeof ops[0], NOPS, want);
    if (status >= 0) return status;
    for (size_t i = 0; i < NOPS; i++) {
        if (!want[i]) continue;
        setup(ops[i].pool, ops[i].sched, ops[i].streams, ops[i].pushpop, ops[i].two_pools);
        double ns = measure(ops[i].fn, ops[i].n0);
        teardown(ops[i].pushpop);
        printf("op=%s threads=%d ns=%.3f pool=%s sched=%s\n", ops[i].name, ops[i].streams, ns,
               ops[i].pool ? ops[i].pool : "-", ops[i].sched ? ops[i].sched : "-");
        fflush(stdout);
    }
    return 0;
}
