/* Barriers of work units (ABT_barrier_*) and of execution streams (ABT_xstream_barrier_*), on 4
 * streams (primary + 3):
 *  - create, get_num_waiters, reinit (to a larger, a smaller and the same count), free (the
 *    handle becomes ABT_BARRIER_NULL);
 *  - a barrier of 1 returns at once (1000 times, from a ULT and from the main ULT);
 *  - barriers of 2 and 64 ULTs spread over the 4 streams' pools, reused round after round
 *    (1000 rounds each for 1, 2 and 64 ULTs):
 *    per-round arrival and departure counters show that nobody leaves round r before all have
 *    arrived at it, and nobody arrives at round r before all have left round r - 2;
 *  - the main ULT and 2 external pthreads taking part with 6 ULTs (300 rounds);
 *  - reinit between uses, to 5 and then 2 waiters, each count then used for rounds;
 *  - a tasklet calling ABT_barrier_wait gets ABT_ERR_BARRIER (Argobots 1.x) and does not count
 *    as an arrival;
 *  - bad input: 0 waiters (create and reinit: ABT_ERR_INV_ARG, create leaves
 *    ABT_BARRIER_NULL), ABT_BARRIER_NULL, a freed handle and handles of other kinds
 *    (ABT_ERR_INV_BARRIER), NULL pointers (ABT_ERR_INV_ARG); both kinds of barrier may be
 *    created before ABT_init, as in Argobots (objects_before_init uses them then);
 *  - misuse, undefined in Argobots, refused by goabt: reinit and free while a ULT waits give
 *    ABT_ERR_BARRIER and change nothing; a tasklet may read the number of waiters;
 *  - execution-stream barriers: a barrier of 1 (main ULT, ULT, tasklet); the main ULT and ULTs
 *    on the 3 other streams passing 500 rounds together with per-round counters; 2 ULTs and an
 *    external pthread (200 rounds); a tasklet taking part; a waiting ULT blocks its whole
 *    stream (a ULT pushed to that stream does not run until the barrier opens); bad input
 *    (0 waiters: ABT_ERR_INV_ARG and ABT_XSTREAM_BARRIER_NULL; NULL, freed and wrong-kind
 *    handles: ABT_ERR_INV_XSTREAM_BARRIER).
 * A watchdog ends the program with a failure if some waiter never wakes. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "sync_util.h"

/* wait_for with a longer bound (30 s), for the long runs of rounds. */
static int wait_long(int *flag, int want)
{
    for (int i = 0; i < 3; i++) {
        if (wait_for(flag, want)) return 1;
    }
    return 0;
}

/* Yields (ULT) or sched_yields (external thread) a few times, varying arrival orders. */
static void jitter(int ext, unsigned k)
{
    for (unsigned i = 0; i < k % 4; i++) {
        if (ext) {
            sched_yield();
        } else {
            ABT_thread_yield();
        }
    }
}

/* ---- Rounds of a barrier ------------------------------------------------------------------ */

/* Rounds on a work-unit barrier b or, if xstream, an execution-stream barrier xb. */
struct rounds {
    ABT_barrier b;
    ABT_xstream_barrier xb;
    int xstream;
    int total;  /* waiters per round */
    int nrounds;
    int *arrived, *left; /* per round */
    int early;  /* someone left before all arrived, or arrived before all left round r - 2 */
    int rc;     /* error bits of the waits */
    int done;   /* participants finished */
};

struct participant {
    struct rounds *R;
    int id, ext;
};

/* One waiter's way through all of R's rounds; p, if not NULL, varies its arrival times. */
static void pass_rounds(struct rounds *R, const struct participant *p)
{
    int early = 0, rc = ABT_SUCCESS;
    for (int r = 0; r < R->nrounds; r++) {
        if (p) jitter(p->ext, (unsigned)(r * 7 + p->id * 3));
        /* To arrive at r one must have left r - 1, which opened only once all had left r - 2. */
        if (r >= 2 && __atomic_load_n(&R->left[r - 2], __ATOMIC_ACQUIRE) != R->total) early++;
        __atomic_add_fetch(&R->arrived[r], 1, __ATOMIC_ACQ_REL);
        int w = R->xstream ? ABT_xstream_barrier_wait(R->xb) : ABT_barrier_wait(R->b);
        if (w != ABT_SUCCESS) {
            rc = w;
            break;
        }
        if (__atomic_load_n(&R->arrived[r], __ATOMIC_ACQUIRE) != R->total) early++;
        if (r >= 1 && __atomic_load_n(&R->left[r - 1], __ATOMIC_ACQUIRE) != R->total) early++;
        __atomic_add_fetch(&R->left[r], 1, __ATOMIC_ACQ_REL);
    }
    __atomic_or_fetch(&R->rc, rc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&R->early, early, __ATOMIC_RELAXED);
    __atomic_add_fetch(&R->done, 1, __ATOMIC_RELEASE);
}

static void run_participant(struct participant *p) { pass_rounds(p->R, p); }

/* Sets R up for nrounds rounds of total waiters (per-round counters zeroed). */
static void alloc_rounds(struct rounds *R, int total, int nrounds)
{
    R->total = total;
    R->nrounds = nrounds;
    R->arrived = calloc((size_t)nrounds, sizeof(int));
    R->left = calloc((size_t)nrounds, sizeof(int));
}

/* Once every waiter is done: no wait failed, nobody was early, every round counted every waiter;
 * frees the per-round counters. */
static void check_rounds(struct rounds *R)
{
    CHECK_INT(R->rc, ABT_SUCCESS);
    CHECK_INT(R->early, 0);
    int counts_ok = 1;
    for (int r = 0; r < R->nrounds; r++) counts_ok &= R->arrived[r] == R->total && R->left[r] == R->total;
    CHECK(counts_ok);
    free(R->arrived);
    free(R->left);
}

static void ult_participant(void *arg) { run_participant(arg); }
static void *ext_participant(void *arg)
{
    run_participant(arg);
    return NULL;
}

/* Runs nrounds rounds on b with nults ULTs (spread over the 4 pools), the main ULT if with_main,
 * and next external pthreads; b must have been made for exactly that many waiters. */
static void run_rounds(ABT_barrier b, int nults, int with_main, int next, int nrounds, const char *what)
{
    struct rounds R = {0};
    R.b = b;
    alloc_rounds(&R, nults + with_main + next, nrounds);
    struct participant *parts = calloc((size_t)R.total, sizeof *parts);
    ABT_thread *t = calloc((size_t)(nults + 1), sizeof *t);
    pthread_t th[8];
    int rc = ABT_SUCCESS, k = 0;
    printf("%s: %d waiters (%d ULTs%s, %d pthreads), %d rounds\n", what, R.total, nults,
           with_main ? " + main ULT" : "", next, nrounds);
    for (int i = 0; i < nults; i++, k++) {
        parts[k] = (struct participant){&R, k, 0};
        rc |= ABT_thread_create(pools[i % NSTREAMS], ult_participant, &parts[k], ABT_THREAD_ATTR_NULL, &t[i]);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    if (rc != ABT_SUCCESS) give_up("could not create the ULTs");
    for (int e = 0; e < next; e++, k++) {
        parts[k] = (struct participant){&R, k, 1};
        pthread_create(&th[e], NULL, ext_participant, &parts[k]);
    }
    if (with_main) {
        parts[k] = (struct participant){&R, k, 0};
        run_participant(&parts[k]);
    }
    if (!wait_long(&R.done, R.total)) give_up("barrier rounds did not finish within 30 s");
    for (int i = 0; i < nults; i++) rc |= ABT_thread_free(&t[i]);
    for (int e = 0; e < next; e++) pthread_join(th[e], NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    check_rounds(&R);
    free(parts);
    free(t);
}

/* ---- Basic API ------------------------------------------------------------------------------ */

static int barrier_works; /* create, wait and free worked in test_basic */

struct waits {
    ABT_barrier b;
    int rc;
};

static void wait_1000(void *arg)
{
    struct waits *w = arg;
    for (int i = 0; i < 1000; i++) w->rc |= ABT_barrier_wait(w->b);
}

static void test_basic(void)
{
    ABT_barrier b = ABT_BARRIER_NULL;
    uint32_t n = 0;
    if (!CHECK_OK(ABT_barrier_create(5, &b))) return;
    CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
    CHECK_INT(n, 5);
    CHECK_INT(ABT_barrier_reinit(b, 9), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
    CHECK_INT(n, 9);
    CHECK_INT(ABT_barrier_reinit(b, 3), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
    CHECK_INT(n, 3);
    CHECK_INT(ABT_barrier_reinit(b, 3), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
    CHECK_INT(n, 3);

    /* A barrier of 1 never blocks: the main ULT, then a ULT on another stream. */
    CHECK_INT(ABT_barrier_reinit(b, 1), ABT_SUCCESS);
    int rc = ABT_SUCCESS;
    for (int i = 0; i < 1000; i++) rc |= ABT_barrier_wait(b);
    CHECK_INT(rc, ABT_SUCCESS);
    struct waits ult_arg = {b, ABT_SUCCESS};
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pools[2], wait_1000, &ult_arg, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ult_arg.rc, ABT_SUCCESS);

    CHECK_INT(ABT_barrier_free(&b), ABT_SUCCESS);
    CHECK(b == ABT_BARRIER_NULL);
    barrier_works = rc == ABT_SUCCESS && ult_arg.rc == ABT_SUCCESS && b == ABT_BARRIER_NULL;
}

/* ---- Rounds ----------------------------------------------------------------------------------- */

static void test_rounds(void)
{
    static const struct {
        int nults, with_main, next, rounds;
        const char *what;
    } cases[] = {
        {1, 0, 0, 1000, "barrier of 1 ULT"},
        {2, 0, 0, 1000, "barrier of 2 ULTs"},
        {64, 0, 0, 1000, "barrier of 64 ULTs"},
        {6, 1, 2, 300, "ULTs, the main ULT and external threads"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ABT_barrier b = ABT_BARRIER_NULL;
        uint32_t total = (uint32_t)(cases[c].nults + cases[c].with_main + cases[c].next);
        if (!CHECK_OK(ABT_barrier_create(total, &b))) continue;
        run_rounds(b, cases[c].nults, cases[c].with_main, cases[c].next, cases[c].rounds, cases[c].what);
        CHECK_INT(ABT_barrier_free(&b), ABT_SUCCESS);
    }
}

static void test_reinit_rounds(void)
{
    ABT_barrier b = ABT_BARRIER_NULL;
    uint32_t n = 0;
    if (!CHECK_OK(ABT_barrier_create(3, &b))) return;
    run_rounds(b, 3, 0, 0, 50, "3 waiters before reinit");
    CHECK_INT(ABT_barrier_reinit(b, 5), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
    CHECK_INT(n, 5);
    run_rounds(b, 4, 1, 0, 50, "reinit to 5");
    CHECK_INT(ABT_barrier_reinit(b, 2), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
    CHECK_INT(n, 2);
    run_rounds(b, 1, 0, 1, 50, "reinit to 2");
    CHECK_INT(ABT_barrier_free(&b), ABT_SUCCESS);
}

/* ---- A tasklet may not wait on a barrier (Argobots 1.x) ------------------------------------ */

static ABT_barrier task_barrier;
static int task_wait_rc = -1, task_done;
static void tasklet_waits(void *arg)
{
    (void)arg;
    task_wait_rc = ABT_barrier_wait(task_barrier);
    __atomic_store_n(&task_done, 1, __ATOMIC_RELEASE);
}

static uint32_t task_num;
static void tasklet_reads(void *arg)
{
    (void)arg;
    task_wait_rc = ABT_barrier_get_num_waiters(task_barrier, &task_num);
}

static void test_tasklet(void)
{
    task_barrier = ABT_BARRIER_NULL;
    if (!CHECK_OK(ABT_barrier_create(2, &task_barrier))) return;
    ABT_task t;
    CHECK_INT(ABT_task_create(pools[1], tasklet_waits, NULL, &t), ABT_SUCCESS);
    /* Refused at once, without blocking (if it blocks, the main ULT's arrival releases it). */
    if (!CHECK(wait_for(&task_done, 1))) {
        CHECK_INT(ABT_barrier_wait(task_barrier), ABT_SUCCESS);
    }
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(task_wait_rc, ABT_ERR_BARRIER);
    /* Reading the count is allowed on a tasklet. */
    task_done = 0;
    CHECK_INT(ABT_task_create(pools[1], tasklet_reads, NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(task_wait_rc, ABT_SUCCESS);
    CHECK_INT(task_num, 2);
    /* The refused call did not count: two waiters still make each round. */
    run_rounds(task_barrier, 2, 0, 0, 20, "after a tasklet's refused wait");
    CHECK_INT(ABT_barrier_free(&task_barrier), ABT_SUCCESS);
}

/* ---- Misuse while a ULT waits ------------------------------------------------------------- */

static int mw_started, mw_rc;
static void mw_waiter(void *arg)
{
    __atomic_store_n(&mw_started, 1, __ATOMIC_RELEASE);
    mw_rc = ABT_barrier_wait((ABT_barrier)arg);
}

static void test_misuse_with_waiter(void)
{
    ABT_barrier b = ABT_BARRIER_NULL;
    uint32_t n = 0;
    if (!CHECK_OK(ABT_barrier_create(2, &b))) return;
    printf("reinit and free while a ULT waits:\n");
    mw_started = 0;
    mw_rc = -1;
    ABT_thread t;
    /* On the primary stream's pool: the main ULT's yield returns only once the waiter has run
     * and blocked in the barrier. */
    CHECK_INT(ABT_thread_create(pools[0], mw_waiter, b, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    if (!wait_for(&mw_started, 1)) give_up("the waiter never started");
    CHECK_INT(ABT_barrier_reinit(b, 3), ABT_ERR_BARRIER);
    ABT_barrier copy = b;
    CHECK_INT(ABT_barrier_free(&copy), ABT_ERR_BARRIER);
    CHECK(copy == b);
    CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
    CHECK_INT(n, 2);
    CHECK_INT(ABT_barrier_wait(b), ABT_SUCCESS); /* the second arrival opens it */
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(mw_rc, ABT_SUCCESS);
    CHECK_INT(ABT_barrier_reinit(b, 3), ABT_SUCCESS); /* nobody waits any more */
    CHECK_INT(ABT_barrier_free(&b), ABT_SUCCESS);
}

/* ---- Bad input ---------------------------------------------------------------------------------- */

/* get_num_waiters goes first: it only reads, and when it accepts the handle the other calls
 * are skipped (on another object's memory they could write or block). */
static void check_invalid(ABT_barrier b, const char *what)
{
    uint32_t n = 77;
    ABT_barrier copy = b;
    printf("invalid barrier handle: %s\n", what);
    int rc = ABT_barrier_get_num_waiters(b, &n);
    CHECK_INT(rc, ABT_ERR_INV_BARRIER);
    if (rc != ABT_ERR_INV_BARRIER) return;
    CHECK_INT(ABT_barrier_reinit(b, 2), ABT_ERR_INV_BARRIER);
    CHECK_INT(ABT_barrier_wait(b), ABT_ERR_INV_BARRIER);
    CHECK_INT(ABT_barrier_free(&copy), ABT_ERR_INV_BARRIER);
    CHECK(copy == b);
}

static void test_bad_input(void)
{
    ABT_barrier b = (ABT_barrier)&b;
    uint32_t n = 77;
    CHECK_INT(ABT_barrier_create(0, &b), ABT_ERR_INV_ARG);
    CHECK(b == ABT_BARRIER_NULL); /* Argobots 1.x sets the handle to NULL on error */
    CHECK_INT(ABT_barrier_create(2, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_barrier_free(NULL), ABT_ERR_INV_ARG);

    check_invalid(ABT_BARRIER_NULL, "ABT_BARRIER_NULL");
    if (CHECK_OK(ABT_barrier_create(4, &b))) {
        /* reinit to 0 is refused and changes nothing. */
        CHECK_INT(ABT_barrier_reinit(b, 0), ABT_ERR_INV_ARG);
        CHECK_INT(ABT_barrier_get_num_waiters(b, &n), ABT_SUCCESS);
        CHECK_INT(n, 4);
        CHECK_INT(ABT_barrier_get_num_waiters(b, NULL), ABT_ERR_INV_ARG);
        ABT_barrier stale = b;
        CHECK_INT(ABT_barrier_free(&b), ABT_SUCCESS);
        CHECK(b == ABT_BARRIER_NULL);
        check_invalid(stale, "freed (nothing created since)");
    }
    check_invalid((ABT_barrier)pools[1], "a pool");
    check_invalid((ABT_barrier)streams[2], "an execution stream");
    ABT_xstream_barrier xb = ABT_XSTREAM_BARRIER_NULL;
    if (ABT_xstream_barrier_create(2, &xb) == ABT_SUCCESS) {
        check_invalid((ABT_barrier)xb, "an execution-stream barrier");
        CHECK_INT(ABT_xstream_barrier_free(&xb), ABT_SUCCESS);
    }
}

/* ---- Execution-stream barriers ------------------------------------------------------------ */

/* A waiter of execution-stream barrier rounds: pass_rounds without jitter. */
static void xround_body(struct rounds *R) { pass_rounds(R, NULL); }

static void xround_ult(void *arg) { xround_body(arg); }
static void *xround_ext(void *arg)
{
    xround_body(arg);
    return NULL;
}

/* Each waiter is on its own OS thread: the main ULT (primary stream) if with_main, one ULT on
 * each of streams first..first+nults-1, and next pthreads. */
static void run_xrounds(int with_main, int first, int nults, int next, int nrounds, const char *what)
{
    struct rounds R = {0};
    R.xstream = 1;
    R.total = with_main + nults + next;
    if (!CHECK_OK(ABT_xstream_barrier_create((uint32_t)R.total, &R.xb))) return;
    alloc_rounds(&R, R.total, nrounds);
    printf("xstream barrier, %s: %d waiters, %d rounds\n", what, R.total, nrounds);
    ABT_thread t[NSTREAMS];
    pthread_t th[4];
    int rc = ABT_SUCCESS;
    for (int i = 0; i < nults; i++) {
        rc |= ABT_thread_create(pools[first + i], xround_ult, &R, ABT_THREAD_ATTR_NULL, &t[i]);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    if (rc != ABT_SUCCESS) give_up("could not create the ULTs");
    for (int e = 0; e < next; e++) pthread_create(&th[e], NULL, xround_ext, &R);
    if (with_main) xround_body(&R);
    if (!wait_long(&R.done, R.total)) give_up("xstream barrier rounds did not finish within 30 s");
    for (int i = 0; i < nults; i++) rc |= ABT_thread_free(&t[i]);
    for (int e = 0; e < next; e++) pthread_join(th[e], NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    check_rounds(&R);
    CHECK_INT(ABT_xstream_barrier_free(&R.xb), ABT_SUCCESS);
    CHECK(R.xb == ABT_XSTREAM_BARRIER_NULL);
}

static ABT_xstream_barrier xb_shared;
static int xb_unit_rc, xb_arrived, y_ran;

static void xb_wait_100(void *arg)
{
    (void)arg;
    int rc = ABT_SUCCESS;
    for (int i = 0; i < 100; i++) rc |= ABT_xstream_barrier_wait(xb_shared);
    xb_unit_rc = rc;
}

static void xb_arrive_and_wait(void *arg)
{
    (void)arg;
    __atomic_store_n(&xb_arrived, 1, __ATOMIC_RELEASE);
    xb_unit_rc = ABT_xstream_barrier_wait(xb_shared);
}

static void mark_y(void *arg)
{
    (void)arg;
    __atomic_store_n(&y_ran, 1, __ATOMIC_RELEASE);
}

static void test_xstream_barrier(void)
{
    /* A barrier of 1 never blocks, whoever waits: the main ULT, a ULT, a tasklet. */
    xb_shared = ABT_XSTREAM_BARRIER_NULL;
    if (!CHECK_OK(ABT_xstream_barrier_create(1, &xb_shared))) return;
    int rc = ABT_SUCCESS;
    for (int i = 0; i < 100; i++) rc |= ABT_xstream_barrier_wait(xb_shared);
    CHECK_INT(rc, ABT_SUCCESS);
    ABT_thread t;
    xb_unit_rc = -1;
    CHECK_INT(ABT_thread_create(pools[1], xb_wait_100, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(xb_unit_rc, ABT_SUCCESS);
    xb_unit_rc = -1;
    CHECK_INT(ABT_task_create(pools[2], xb_wait_100, NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(xb_unit_rc, ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_free(&xb_shared), ABT_SUCCESS);
    CHECK(xb_shared == ABT_XSTREAM_BARRIER_NULL);
    if (rc != ABT_SUCCESS) return;

    run_xrounds(1, 1, 3, 0, 500, "main ULT + ULTs on streams 1-3");
    run_xrounds(0, 2, 2, 1, 200, "ULTs on streams 2-3 + a pthread");

    /* A waiting ULT blocks its whole stream; then the same with a tasklet as the waiter. */
    for (int kind = 0; kind < 2; kind++) {
        xb_shared = ABT_XSTREAM_BARRIER_NULL;
        if (!CHECK_OK(ABT_xstream_barrier_create(2, &xb_shared))) return;
        xb_arrived = y_ran = 0;
        xb_unit_rc = -1;
        ABT_thread x, y;
        if (kind == 0) {
            CHECK_INT(ABT_thread_create(pools[1], xb_arrive_and_wait, NULL, ABT_THREAD_ATTR_NULL, &x), ABT_SUCCESS);
        } else {
            CHECK_INT(ABT_task_create(pools[1], xb_arrive_and_wait, NULL, &x), ABT_SUCCESS);
        }
        if (!wait_for(&xb_arrived, 1)) give_up("the waiter on stream 1 never started");
        CHECK_INT(ABT_thread_create(pools[1], mark_y, NULL, ABT_THREAD_ATTR_NULL, &y), ABT_SUCCESS);
        /* Stream 1 is stuck in the barrier: y cannot run there, however long we let it. */
        double end = ABT_get_wtime() + 0.05;
        while (ABT_get_wtime() < end) ABT_thread_yield();
        CHECK_INT(__atomic_load_n(&y_ran, __ATOMIC_ACQUIRE), 0);
        CHECK_INT(ABT_xstream_barrier_wait(xb_shared), ABT_SUCCESS);
        CHECK(wait_for(&y_ran, 1));
        if (kind == 0) {
            CHECK_INT(ABT_thread_free(&x), ABT_SUCCESS);
        } else {
            CHECK_INT(ABT_task_free(&x), ABT_SUCCESS);
        }
        CHECK_INT(ABT_thread_free(&y), ABT_SUCCESS);
        CHECK_INT(xb_unit_rc, ABT_SUCCESS);
        CHECK_INT(ABT_xstream_barrier_free(&xb_shared), ABT_SUCCESS);
    }
}

static void test_xstream_barrier_bad_input(void)
{
    ABT_xstream_barrier xb = (ABT_xstream_barrier)&xb;
    CHECK_INT(ABT_xstream_barrier_create(0, &xb), ABT_ERR_INV_ARG);
    CHECK(xb == ABT_XSTREAM_BARRIER_NULL); /* Argobots 1.x sets the handle to NULL on error */
    CHECK_INT(ABT_xstream_barrier_create(2, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_xstream_barrier_free(NULL), ABT_ERR_INV_ARG);
    ABT_xstream_barrier nul = ABT_XSTREAM_BARRIER_NULL;
    CHECK_INT(ABT_xstream_barrier_wait(ABT_XSTREAM_BARRIER_NULL), ABT_ERR_INV_XSTREAM_BARRIER);
    CHECK_INT(ABT_xstream_barrier_free(&nul), ABT_ERR_INV_XSTREAM_BARRIER);
    if (CHECK_OK(ABT_xstream_barrier_create(3, &xb))) {
        ABT_xstream_barrier stale = xb;
        CHECK_INT(ABT_xstream_barrier_free(&xb), ABT_SUCCESS);
        CHECK(xb == ABT_XSTREAM_BARRIER_NULL);
        CHECK_INT(ABT_xstream_barrier_wait(stale), ABT_ERR_INV_XSTREAM_BARRIER);
        CHECK_INT(ABT_xstream_barrier_free(&stale), ABT_ERR_INV_XSTREAM_BARRIER);
    }
    ABT_xstream_barrier pool_as_xb = (ABT_xstream_barrier)pools[1];
    CHECK_INT(ABT_xstream_barrier_wait((ABT_xstream_barrier)pools[1]), ABT_ERR_INV_XSTREAM_BARRIER);
    CHECK_INT(ABT_xstream_barrier_wait((ABT_xstream_barrier)streams[2]), ABT_ERR_INV_XSTREAM_BARRIER);
    CHECK_INT(ABT_xstream_barrier_free(&pool_as_xb), ABT_ERR_INV_XSTREAM_BARRIER);
    ABT_barrier b = ABT_BARRIER_NULL;
    if (ABT_barrier_create(2, &b) == ABT_SUCCESS) {
        ABT_xstream_barrier b_as_xb = (ABT_xstream_barrier)b;
        CHECK_INT(ABT_xstream_barrier_wait(b_as_xb), ABT_ERR_INV_XSTREAM_BARRIER);
        CHECK_INT(ABT_xstream_barrier_free(&b_as_xb), ABT_ERR_INV_XSTREAM_BARRIER);
        CHECK_INT(ABT_barrier_free(&b), ABT_SUCCESS);
    }
}

int main(void)
{
    start_watchdog("watchdog: still running after 60 s (a waiter never woke up)");
    ABT_barrier b0 = (ABT_barrier)&b0;
    ABT_xstream_barrier xb0 = (ABT_xstream_barrier)&xb0;
    CHECK_INT(ABT_barrier_create(2, &b0), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_free(&b0), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_create(2, &xb0), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_free(&xb0), ABT_SUCCESS);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    int rc = start_streams(NSTREAMS, streams, pools);
    CHECK_INT(rc, ABT_SUCCESS);

    test_basic();
    if (barrier_works) {
        test_rounds();
        test_reinit_rounds();
        test_tasklet();
        test_misuse_with_waiter();
    } else {
        printf("ABT_barrier does not work: skipping the rounds\n");
    }
    test_bad_input();
    test_xstream_barrier();
    test_xstream_barrier_bad_input();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
