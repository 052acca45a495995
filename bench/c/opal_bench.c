/*
 * opal_bench.c: the cost of the OPAL object system's hot operations, in ns per operation.
 *
 * The same source is compiled twice by bench/main.go: against goabt's opal_object.h (linked with
 * libgoabt.so) and against Debian's Open MPI header (linked with libopen-pal.so), both through
 * the include line Open MPI programs use. Each operation runs in a calibrated loop (iterations
 * grown until one run takes BENCH_TARGET_NS), then five timed runs; the median is printed as
 *
 *     op=<name> threads=<off|on> ns=<median ns per operation>
 *
 * Usage: opal_bench [-l | OP...]. No argument runs every operation; OP names run only those
 * (exactly as printed); -l lists the names.
 *
 * Keeping the work: the reference counts are volatile in both headers and threads-on updates are
 * atomic, so no compiler may drop them. Objects are reached through a pointer the compiler cannot
 * see through (opaque()), so it cannot prove that a release never reaches zero or that an object
 * is static. Nothing else is forced into memory: the figures measure what a caller's loop costs,
 * as Open MPI's reference figures do. Build with -DBENCH_BARRIER to add a compiler barrier
 * (asm memory clobber) per iteration, which makes every iteration reload everything.
 *
 * Operations (threads off and on unless said otherwise):
 *   int_add              x++ on a volatile int (off) / relaxed atomic add (on): the floor, and
 *                        a check that both builds were compiled alike (header-independent)
 *   retain_release       OBJ_RETAIN + OBJ_RELEASE on one object
 *   new_release          OBJ_NEW + OBJ_RELEASE of a 3-level class, each level with a constructor
 *                        and a destructor doing one store
 *   construct_destruct   OBJ_CONSTRUCT + OBJ_DESTRUCT of that class on the stack
 *   retain_release_2t    two threads, each on its own object in its own cache line (per thread);
 *                        the 2-thread operations' threads each on a CPU of its own (run_once)
 *   static_retain_release       threads on: RETAIN + RELEASE on an OPAL_OBJ_STATIC_INIT object.
 *                               Immortal in goabt (no write at all); an ordinary object in Open
 *                               MPI, which has no immortal objects
 *   static_retain_release_2t    threads on: two threads on ONE such object (per thread). Open
 *                               MPI: the cache-line ping-pong that immortality avoids
 */
#define _GNU_SOURCE
#include "opal/class/opal_object.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include "bench_args.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_TARGET_NS
#define BENCH_TARGET_NS 10000000ULL /* one timed run: 10 ms */
#endif
#define BENCH_RUNS 5

#ifdef BENCH_BARRIER
#define ITER_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define ITER_BARRIER() ((void)0)
#endif

/* Hides where a pointer comes from, so the compiler cannot reason about the object behind it. */
#define opaque(p) __asm__("" : "+r"(p))


/* ---- The 3-level class: opal_object_t <- bench_a_t <- bench_b_t <- bench_c_t ------------- */

typedef struct {
    opal_object_t super;
    int a;
} bench_a_t;
typedef struct {
    bench_a_t super;
    int b;
} bench_b_t;
typedef struct {
    bench_b_t super;
    int c;
} bench_c_t;

static void a_ctor(bench_a_t *o) { o->a = 1; }
static void a_dtor(bench_a_t *o) { o->a = 0; }
static void b_ctor(bench_b_t *o) { o->b = 2; }
static void b_dtor(bench_b_t *o) { o->b = 0; }
static void c_ctor(bench_c_t *o) { o->c = 3; }
static void c_dtor(bench_c_t *o) { o->c = 0; }

OBJ_CLASS_INSTANCE(bench_a_t, opal_object_t, a_ctor, a_dtor);
OBJ_CLASS_INSTANCE(bench_b_t, bench_a_t, b_ctor, b_dtor);
OBJ_CLASS_INSTANCE(bench_c_t, bench_b_t, c_ctor, c_dtor);

/* ---- Objects ------------------------------------------------------------------------------ */

/* A class with no constructor or destructor for the RETAIN/RELEASE objects. (Open MPI's own
 * opal_object_t_class has no constructor arrays until opal_init, so OBJ_CONSTRUCT(x,
 * opal_object_t) crashes there.) */
typedef struct {
    opal_object_t super;
} bench_plain_t;
OBJ_CLASS_INSTANCE(bench_plain_t, opal_object_t, NULL, NULL);

/* One object per cache line, so that two threads never share a line by accident. */
typedef struct {
    _Alignas(64) opal_object_t obj;
    char pad[64 - sizeof(opal_object_t)];
} padded_obj_t;

static padded_obj_t own_objs[2];
/* Made with OPAL_OBJ_STATIC_INIT: immortal in goabt, an ordinary object with count 1 in Open MPI. */
static padded_obj_t static_obj = {.obj = OPAL_OBJ_STATIC_INIT(bench_plain_t)};

static volatile int int_sink;
static int atomic_int;

/* ---- The loops: each does n operations on object o ---------------------------------------- */

/* Each loop starts a cache line of its own, so that an edit elsewhere in this file does not
 * move it: before, with functions 16-byte aligned, an edit to run_once moved the 3-level
 * OBJ_NEW row from 0.93 to 1.08 (both columns moved, in opposite directions). */

typedef void (*loop_fn)(uint64_t n, opal_object_t *o);

static __attribute__((noinline, aligned(64))) void loop_int_add(uint64_t n, opal_object_t *o)
{
    (void)o;
    if (opal_using_threads()) {
        for (uint64_t i = 0; i < n; i++) {
            __atomic_fetch_add(&atomic_int, 1, __ATOMIC_RELAXED);
            ITER_BARRIER();
        }
    } else {
        for (uint64_t i = 0; i < n; i++) {
            int_sink++;
            ITER_BARRIER();
        }
    }
}

static __attribute__((noinline, aligned(64))) void loop_retain_release(uint64_t n, opal_object_t *o)
{
    opaque(o);
    for (uint64_t i = 0; i < n; i++) {
        OBJ_RETAIN(o);
        OBJ_RELEASE(o);
        ITER_BARRIER();
    }
}

static __attribute__((noinline, aligned(64))) void loop_new_release(uint64_t n, opal_object_t *o)
{
    (void)o;
    for (uint64_t i = 0; i < n; i++) {
        bench_c_t *c = OBJ_NEW(bench_c_t);
        OBJ_RELEASE(c);
        ITER_BARRIER();
    }
}

static __attribute__((noinline, aligned(64))) void loop_construct_destruct(uint64_t n, opal_object_t *o)
{
    (void)o;
    for (uint64_t i = 0; i < n; i++) {
        bench_c_t c;
        OBJ_CONSTRUCT(&c, bench_c_t);
        OBJ_DESTRUCT(&c);
        ITER_BARRIER();
    }
}

/* ---- Timing ------------------------------------------------------------------------------- */

typedef struct {
    pthread_barrier_t *start;
    loop_fn fn;
    uint64_t n;
    opal_object_t *obj;
    uint64_t elapsed;
} worker_t;

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    pthread_barrier_wait(w->start);
    uint64_t t0 = now_ns();
    w->fn(w->n, w->obj);
    w->elapsed = now_ns() - t0;
    return NULL;
}

/* One run of n operations on nthreads threads (thread i on objs[i]); returns the ns per operation
 * one thread saw, averaged over the threads, and sets *longest to the longest thread's time. */
static double run_once(loop_fn fn, uint64_t n, int nthreads, opal_object_t **objs,
                       uint64_t *longest)
{
    if (nthreads == 1) {
        uint64_t t0 = now_ns();
        fn(n, objs[0]);
        *longest = now_ns() - t0;
        return (double)*longest / (double)n;
    }
    pthread_barrier_t start;
    pthread_t tids[2];
    worker_t ws[2];
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    /* Each worker on a CPU of its own when the process may use two: a new thread starts beside
     * its creator, and the kernel spread the two apart only some milliseconds into a run, or
     * not at all, so that the 2-thread rows moved by up to 1.5x between rounds in both builds
     * with the placement rather than the objects. */
    cpu_set_t allowed;
    int cpus[2] = {-1, -1};
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) >= nthreads) {
        for (int c = 0, k = 0; c < CPU_SETSIZE && k < nthreads; c++) {
            if (CPU_ISSET(c, &allowed)) cpus[k++] = c;
        }
    }
    for (int i = 0; i < nthreads; i++) {
        ws[i] = (worker_t){.start = &start, .fn = fn, .n = n, .obj = objs[i]};
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (cpus[i] >= 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpus[i], &one);
            pthread_attr_setaffinity_np(&attr, sizeof one, &one);
        }
        int rc = pthread_create(&tids[i], &attr, worker_main, &ws[i]);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    }
    double sum = 0;
    *longest = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(tids[i], NULL);
        sum += (double)ws[i].elapsed / (double)n;
        if (ws[i].elapsed > *longest) {
            *longest = ws[i].elapsed;
        }
    }
    pthread_barrier_destroy(&start);
    return sum / nthreads;
}


static void bench(const char *name, bool threads, loop_fn fn, int nthreads, opal_object_t **objs)
{
    opal_set_using_threads(threads);
    uint64_t n = 1024, longest = 0;
    for (;;) { /* calibrate: the first run also warms caches and branch predictors */
        run_once(fn, n, nthreads, objs, &longest);
        if (longest >= BENCH_TARGET_NS || n >= (1ULL << 40)) {
            break;
        }
        uint64_t grow = longest == 0 ? 16 : (BENCH_TARGET_NS * 5 / 4) / longest + 1;
        n *= grow < 2 ? 2 : (grow > 16 ? 16 : grow);
    }
    double ns[BENCH_RUNS];
    for (int r = 0; r < BENCH_RUNS; r++) {
        ns[r] = run_once(fn, n, nthreads, objs, &longest);
    }
    qsort(ns, BENCH_RUNS, sizeof ns[0], cmp_double);
    opal_set_using_threads(false);
    printf("op=%s threads=%s ns=%.3f\n", name, threads ? "on" : "off", ns[BENCH_RUNS / 2]);
    fflush(stdout);
}

static const struct {
    const char *name;
    loop_fn fn;
    int nthreads;
    bool off, on; /* which thread modes to run */
    bool shared;  /* on static_obj rather than own objects */
} ops[] = {
    {"int_add", loop_int_add, 1, true, true, false},
    {"retain_release", loop_retain_release, 1, true, true, false},
    {"new_release", loop_new_release, 1, true, true, false},
    {"construct_destruct", loop_construct_destruct, 1, true, true, false},
    {"retain_release_2t", loop_retain_release, 2, true, true, false},
    {"static_retain_release", loop_retain_release, 1, false, true, true},
    {"static_retain_release_2t", loop_retain_release, 2, false, true, true},
};
#define NOPS (sizeof ops / sizeof ops[0])

int main(int argc, char **argv)
{
    int want[NOPS];
    int status = bench_select(argc, argv, ops, sizeof ops[0], NOPS, want);
    if (status >= 0) return status;

    /* Let the library settle first, whichever it is. goabt's Go runtime initializes on a thread
     * of its own when the library loads (the first call into Go waits for it), and for about the
     * first 100 ms its threads keep waking up, taking CPU time from the operation's threads. */
    opal_set_using_threads(false);
    nanosleep(&(struct timespec){.tv_nsec = 150000000}, NULL);

    opal_object_t *own[2] = {&own_objs[0].obj, &own_objs[1].obj};
    opal_object_t *shared[2] = {&static_obj.obj, &static_obj.obj};
    for (int i = 0; i < 2; i++) {
        OBJ_CONSTRUCT(own[i], bench_plain_t);
    }
    for (size_t i = 0; i < NOPS; i++) {
        if (!want[i]) {
            continue;
        }
        opal_object_t **objs = ops[i].shared ? shared : own;
        if (ops[i].off) {
            bench(ops[i].name, false, ops[i].fn, ops[i].nthreads, objs);
        }
        if (ops[i].on) {
            bench(ops[i].name, true, ops[i].fn, ops[i].nthreads, objs);
        }
    }
    for (int i = 0; i < 2; i++) {
        OBJ_DESTRUCT(own[i]);
    }
    return 0;
}
