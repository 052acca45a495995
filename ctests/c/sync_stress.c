/* Stress: every synchronization object at once, on 4 streams (primary + 3), for 20 rounds. Each
 * round has 16 worker ULTs (4 per stream), 12 tasklets (3 per stream), 2 external pthreads and
 * the main ULT, and every unit yields at random points (a deterministic xorshift PRNG per unit
 * and round). A round:
 *  - the workers wait on an eventual that the main ULT sets with the round's key (checked);
 *  - workers and pthreads increment a counter under a mutex, yielding between the read and the
 *    write (a lost update shows a broken mutex); tasklets and pthreads increment another counter
 *    under a second mutex that nobody holds across a yield (tasklets spin on it);
 *  - barrier (workers, pthreads, main ULT); everyone checks the first counter is complete;
 *  - readers and writers on a rwlock over an 8-entry array: writers add 1 to every entry,
 *    yielding halfway; readers, yielding halfway too, must see all entries equal;
 *  - barrier; everyone checks the array equals the number of writes made; barrier (if the
 *    counter or the array was wrong, the round is failed and the next step skipped);
 *  - producers and consumers (half the workers, one pthread each) pass 12 items each through
 *    a 4-slot ring under a mutex with two condition variables;
 *  - every worker, pthread and tasklet sets one compartment of a future whose callback sums the
 *    values; the main ULT waits on it;
 *  - a last barrier; the main ULT joins everything and checks every count and sum exactly
 *    (counters, writes, items and their sum, the callback's one call and its sum), then frees
 *    the round's mutexes and condition variables and resets the eventual and the future.
 * The barrier, rwlock, eventual and future are created once and reused; the mutexes and
 * condition variables are created for each round. A watchdog fails the program if it hangs. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "sync_util.h"

#define ROUNDS 20
#define NU 16         /* worker ULTs */
#define NT 12         /* tasklets */
#define NP 2          /* external pthreads */
#define NWORK (NU + NP)
#define K (NU + NT + NP) /* future compartments */
#define MUTEX_ITERS 20
#define TASK_ITERS 10
#define EXT_TASK_ITERS 50
#define RW_ITERS 12
#define NARR 8
#define CAP 4
#define PC_ITEMS 12

/* ---- Per-unit PRNG and yields ------------------------------------------------------------- */

struct unit {
    int id, round, ext;
    uint32_t rng;
};

static uint32_t next_rand(struct unit *u)
{
    uint32_t x = u->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return u->rng = x;
}

static void seed(struct unit *u, int round, int id, int ext)
{
    u->id = id;
    u->round = round;
    u->ext = ext;
    u->rng = (uint32_t)(round + 1) * 2654435761u ^ (uint32_t)(id + 1) * 40503u;
    if (u->rng == 0) u->rng = 1;
}

/* Yields with probability 1/n. */
static void maybe_yield(struct unit *u, uint32_t n)
{
    if (next_rand(u) % n != 0) return;
    if (u->ext) {
        sched_yield();
    } else {
        ABT_thread_yield();
    }
}

/* ---- Shared state --------------------------------------------------------------------------- */

static ABT_barrier bar;
static ABT_rwlock rw;
static ABT_eventual ev;
static ABT_future fut;
static ABT_mutex m, mt, qm; /* per round */
static ABT_cond not_empty, not_full;

static long counter;  /* under m */
static long task_sum; /* under mt */
static long arr[NARR]; /* under rw */
static int ring[CAP], head, tail, count; /* under qm */

static long total_writes, consumed_sum, consumed_items;
static int errors; /* error codes and bad observations, per round */
static int abort_pc; /* a check failed before the producer/consumer phase: skip it */
static int cb_calls;
static long cb_sum;

static void future_cb(void **values)
{
    long s = 0;
    for (int i = 0; i < K; i++) s += (long)(intptr_t)values[i];
    cb_sum = s;
    __atomic_add_fetch(&cb_calls, 1, __ATOMIC_RELEASE);
}

static long round_key(int r) { return 1000003L * (r + 1); }

static void fail_if(int bad)
{
    if (bad) __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
}

/* ---- Workers (ULTs and pthreads) ------------------------------------------------------------ */

static void mutex_phase(struct unit *u)
{
    for (int i = 0; i < MUTEX_ITERS; i++) {
        fail_if(ABT_mutex_lock(m) != ABT_SUCCESS);
        long x = counter;
        maybe_yield(u, 4);
        counter = x + 1;
        fail_if(ABT_mutex_unlock(m) != ABT_SUCCESS);
        maybe_yield(u, 3);
    }
    if (u->ext) {
        /* The tasklets' mutex: held briefly, never across a yield. */
        for (int i = 0; i < EXT_TASK_ITERS; i++) {
            fail_if(ABT_mutex_lock(mt) != ABT_SUCCESS);
            task_sum++;
            fail_if(ABT_mutex_unlock(mt) != ABT_SUCCESS);
        }
    }
}

/* On a wrong count the producers and consumers are skipped (a broken mutex could leave them
 * waiting forever); everyone decides after the same barrier. */
static void check_counter(void)
{
    int bad = ABT_mutex_lock(m) != ABT_SUCCESS;
    bad |= counter != (long)NWORK * MUTEX_ITERS;
    bad |= ABT_mutex_unlock(m) != ABT_SUCCESS;
    fail_if(bad);
    if (bad) __atomic_store_n(&abort_pc, 1, __ATOMIC_RELAXED);
}

static void rwlock_phase(struct unit *u)
{
    long writes = 0;
    for (int i = 0; i < RW_ITERS; i++) {
        if (next_rand(u) % 5 == 0) {
            fail_if(ABT_rwlock_wrlock(rw) != ABT_SUCCESS);
            long v = arr[0];
            for (int k = 0; k < NARR; k++) {
                fail_if(arr[k] != v);
                arr[k] = v + 1;
                if (k == NARR / 2) maybe_yield(u, 2);
            }
            writes++;
            fail_if(ABT_rwlock_unlock(rw) != ABT_SUCCESS);
        } else {
            fail_if(ABT_rwlock_rdlock(rw) != ABT_SUCCESS);
            long v = arr[0];
            for (int k = 0; k < NARR; k++) {
                fail_if(arr[k] != v);
                if (k == NARR / 2) maybe_yield(u, 2);
            }
            fail_if(ABT_rwlock_unlock(rw) != ABT_SUCCESS);
        }
        maybe_yield(u, 3);
    }
    __atomic_add_fetch(&total_writes, writes, __ATOMIC_RELAXED);
}

static void check_array(void)
{
    int bad = ABT_rwlock_rdlock(rw) != ABT_SUCCESS;
    long w = __atomic_load_n(&total_writes, __ATOMIC_RELAXED);
    for (int k = 0; k < NARR; k++) bad |= arr[k] != w;
    bad |= ABT_rwlock_unlock(rw) != ABT_SUCCESS;
    fail_if(bad);
    if (bad) __atomic_store_n(&abort_pc, 1, __ATOMIC_RELAXED);
}

static void produce(struct unit *u)
{
    for (int j = 0; j < PC_ITEMS; j++) {
        fail_if(ABT_mutex_lock(qm) != ABT_SUCCESS);
        while (count == CAP) {
            if (ABT_cond_wait(not_full, qm) != ABT_SUCCESS) {
                fail_if(1);
                break;
            }
        }
        ring[tail] = u->id * 1000 + j;
        tail = (tail + 1) % CAP;
        count++;
        fail_if(ABT_cond_signal(not_empty) != ABT_SUCCESS);
        fail_if(ABT_mutex_unlock(qm) != ABT_SUCCESS);
        maybe_yield(u, 3);
    }
}

static void consume(struct unit *u)
{
    long sum = 0;
    for (int j = 0; j < PC_ITEMS; j++) {
        fail_if(ABT_mutex_lock(qm) != ABT_SUCCESS);
        while (count == 0) {
            if (ABT_cond_wait(not_empty, qm) != ABT_SUCCESS) {
                fail_if(1);
                break;
            }
        }
        sum += ring[head];
        head = (head + 1) % CAP;
        count--;
        fail_if(ABT_cond_signal(not_full) != ABT_SUCCESS);
        fail_if(ABT_mutex_unlock(qm) != ABT_SUCCESS);
        maybe_yield(u, 3);
    }
    __atomic_add_fetch(&consumed_sum, sum, __ATOMIC_RELAXED);
    __atomic_add_fetch(&consumed_items, PC_ITEMS, __ATOMIC_RELAXED);
}

/* Worker ids: ULTs 0..NU-1, pthreads NU..NU+NP-1. Producers: even ULTs and pthread NU;
 * consumers: odd ULTs and pthread NU+1. */
static void worker(struct unit *u)
{
    void *v = NULL;
    fail_if(ABT_eventual_wait(ev, &v) != ABT_SUCCESS);
    fail_if(v == NULL || *(long *)v != round_key(u->round));
    maybe_yield(u, 2);

    mutex_phase(u);
    fail_if(ABT_barrier_wait(bar) != ABT_SUCCESS);
    check_counter();

    rwlock_phase(u);
    fail_if(ABT_barrier_wait(bar) != ABT_SUCCESS);
    check_array();
    fail_if(ABT_barrier_wait(bar) != ABT_SUCCESS);

    int producer = u->id < NU ? u->id % 2 == 0 : u->id == NU;
    if (__atomic_load_n(&abort_pc, __ATOMIC_RELAXED)) {
        /* skipped: the round already failed */
    } else if (producer) {
        produce(u);
    } else {
        consume(u);
    }
    fail_if(ABT_future_set(fut, (void *)(intptr_t)(u->id + 1)) != ABT_SUCCESS);
    fail_if(ABT_barrier_wait(bar) != ABT_SUCCESS);
}

static void worker_ult(void *arg) { worker(arg); }
static void *worker_ext(void *arg)
{
    worker(arg);
    return NULL;
}

/* ---- Tasklets --------------------------------------------------------------------------------- */

static void tasklet(void *arg)
{
    struct unit *u = arg;
    for (int i = 0; i < TASK_ITERS; i++) {
        fail_if(ABT_mutex_lock(mt) != ABT_SUCCESS);
        task_sum++;
        fail_if(ABT_mutex_unlock(mt) != ABT_SUCCESS);
    }
    /* May or may not be set yet; if it is, the value is this round's. */
    void *v = NULL;
    ABT_bool ready = ABT_FALSE;
    fail_if(ABT_eventual_test(ev, &v, &ready) != ABT_SUCCESS);
    fail_if(ready && (v == NULL || *(long *)v != round_key(u->round)));
    fail_if(ABT_future_set(fut, (void *)(intptr_t)(1000 + u->id)) != ABT_SUCCESS);
}

/* ---- Rounds ----------------------------------------------------------------------------------- */

static long expected_cb_sum(void)
{
    long s = 0;
    for (int i = 0; i < NWORK; i++) s += i + 1;
    for (int i = 0; i < NT; i++) s += 1000 + i;
    return s;
}

static long expected_items_sum(void)
{
    long s = 0;
    for (int id = 0; id < NWORK; id++) {
        int producer = id < NU ? id % 2 == 0 : id == NU;
        if (!producer) continue;
        for (int j = 0; j < PC_ITEMS; j++) s += id * 1000 + j;
    }
    return s;
}

static int run_round(int r)
{
    int rc = ABT_SUCCESS;
    rc |= ABT_mutex_create(&m);
    rc |= ABT_mutex_create(&mt);
    rc |= ABT_mutex_create(&qm);
    rc |= ABT_cond_create(&not_empty);
    rc |= ABT_cond_create(&not_full);
    if (!CHECK_OK(rc)) return 0;
    counter = task_sum = 0;
    memset(arr, 0, sizeof arr);
    head = tail = count = 0;
    total_writes = consumed_sum = consumed_items = 0;
    errors = abort_pc = 0;

    static struct unit wu[NWORK], tu[NT];
    ABT_thread ults[NU];
    ABT_task tasks[NT];
    pthread_t th[NP];
    for (int i = 0; i < NU; i++) {
        seed(&wu[i], r, i, 0);
        rc |= ABT_thread_create(pools[i % NSTREAMS], worker_ult, &wu[i], ABT_THREAD_ATTR_NULL, &ults[i]);
    }
    for (int i = 0; i < NT; i++) {
        seed(&tu[i], r, i, 0);
        rc |= ABT_task_create(pools[(i + r) % NSTREAMS], tasklet, &tu[i], &tasks[i]);
    }
    for (int i = 0; i < NP; i++) {
        seed(&wu[NU + i], r, NU + i, 1);
        pthread_create(&th[i], NULL, worker_ext, &wu[NU + i]);
    }
    if (!CHECK_OK(rc)) give_up("could not create the round's units");
    for (int i = 0; i < 3; i++) ABT_thread_yield();

    /* Release the workers, then take part in their barriers and wait for the future. */
    long key = round_key(r);
    rc |= ABT_eventual_set(ev, &key, (int)sizeof key);
    rc |= ABT_barrier_wait(bar);
    check_counter();
    rc |= ABT_barrier_wait(bar);
    check_array();
    rc |= ABT_barrier_wait(bar);
    rc |= ABT_future_wait(fut);
    ABT_bool ready = ABT_FALSE;
    rc |= ABT_future_test(fut, &ready);
    fail_if(ready != ABT_TRUE || __atomic_load_n(&cb_calls, __ATOMIC_ACQUIRE) != r + 1);
    rc |= ABT_barrier_wait(bar);

    for (int i = 0; i < NU; i++) rc |= ABT_thread_free(&ults[i]);
    for (int i = 0; i < NT; i++) rc |= ABT_task_free(&tasks[i]);
    for (int i = 0; i < NP; i++) pthread_join(th[i], NULL);

    int ok = 1;
    ok &= rc == ABT_SUCCESS;
    ok &= errors == 0;
    ok &= counter == (long)NWORK * MUTEX_ITERS;
    ok &= task_sum == (long)NT * TASK_ITERS + (long)NP * EXT_TASK_ITERS;
    ok &= arr[0] == total_writes && arr[NARR - 1] == total_writes;
    ok &= consumed_items == (long)(NU / 2 + 1) * PC_ITEMS && count == 0;
    ok &= consumed_sum == expected_items_sum();
    ok &= cb_calls == r + 1 && cb_sum == expected_cb_sum();
    if (!ok) {
        printf("round %d: rc %d, errors %d, counter %ld, task_sum %ld, arr %ld/%ld writes, items %ld "
               "sum %ld (want %ld), left %d, callback calls %d sum %ld (want %ld)\n",
               r, rc, errors, counter, task_sum, arr[0], total_writes, consumed_items, consumed_sum,
               expected_items_sum(), count, cb_calls, cb_sum, expected_cb_sum());
    }

    rc = ABT_SUCCESS;
    rc |= ABT_mutex_free(&m);
    rc |= ABT_mutex_free(&mt);
    rc |= ABT_mutex_free(&qm);
    rc |= ABT_cond_free(&not_empty);
    rc |= ABT_cond_free(&not_full);
    rc |= ABT_eventual_reset(ev);
    rc |= ABT_future_reset(fut);
    ok &= rc == ABT_SUCCESS;
    return ok;
}

/* Every object kind can be created, and a lone ULT can use each one without blocking. */
static int probe(void)
{
    ABT_mutex pm = ABT_MUTEX_NULL;
    ABT_cond pc = ABT_COND_NULL;
    ABT_rwlock prw = ABT_RWLOCK_NULL;
    ABT_eventual pe = ABT_EVENTUAL_NULL;
    ABT_future pf = ABT_FUTURE_NULL;
    ABT_barrier pb = ABT_BARRIER_NULL;
    int ok = 1;
    if (CHECK_OK(ABT_mutex_create(&pm))) {
        ok &= CHECK_OK(ABT_mutex_lock(pm));
        ok &= CHECK_OK(ABT_mutex_unlock(pm));
        if (CHECK_OK(ABT_cond_create(&pc))) {
            ok &= CHECK_OK(ABT_cond_signal(pc));
            ok &= CHECK_OK(ABT_cond_broadcast(pc));
            ok &= CHECK_OK(ABT_cond_free(&pc));
        } else {
            ok = 0;
        }
        ok &= CHECK_OK(ABT_mutex_free(&pm));
    } else {
        ok = 0;
    }
    if (CHECK_OK(ABT_rwlock_create(&prw))) {
        ok &= CHECK_OK(ABT_rwlock_rdlock(prw));
        ok &= CHECK_OK(ABT_rwlock_unlock(prw));
        ok &= CHECK_OK(ABT_rwlock_wrlock(prw));
        ok &= CHECK_OK(ABT_rwlock_unlock(prw));
        ok &= CHECK_OK(ABT_rwlock_free(&prw));
    } else {
        ok = 0;
    }
    if (CHECK_OK(ABT_eventual_create(0, &pe))) {
        ok &= CHECK_OK(ABT_eventual_set(pe, NULL, 0));
        ok &= CHECK_OK(ABT_eventual_wait(pe, NULL));
        ok &= CHECK_OK(ABT_eventual_free(&pe));
    } else {
        ok = 0;
    }
    if (CHECK_OK(ABT_future_create(1, NULL, &pf))) {
        ok &= CHECK_OK(ABT_future_set(pf, NULL));
        ok &= CHECK_OK(ABT_future_wait(pf));
        ok &= CHECK_OK(ABT_future_free(&pf));
    } else {
        ok = 0;
    }
    if (CHECK_OK(ABT_barrier_create(1, &pb))) {
        ok &= CHECK_OK(ABT_barrier_wait(pb));
        ok &= CHECK_OK(ABT_barrier_free(&pb));
    } else {
        ok = 0;
    }
    return ok;
}

int main(void)
{
    start_watchdog("watchdog: still running after 60 s (deadlock or lost wake-up)");
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    int rc = start_streams(NSTREAMS, streams, pools);
    CHECK_INT(rc, ABT_SUCCESS);

    if (probe()) {
        int created = CHECK_OK(ABT_barrier_create(NWORK + 1, &bar));
        created &= CHECK_OK(ABT_rwlock_create(&rw));
        created &= CHECK_OK(ABT_eventual_create((int)sizeof(long), &ev));
        created &= CHECK_OK(ABT_future_create(K, future_cb, &fut));
        if (created) {
            int good = 0;
            double start = ABT_get_wtime();
            for (int r = 0; r < ROUNDS; r++) good += run_round(r);
            printf("%d rounds in %.2f s\n", ROUNDS, ABT_get_wtime() - start);
            CHECK_INT(good, ROUNDS);
            CHECK_INT(cb_calls, ROUNDS);
            CHECK_INT(ABT_barrier_free(&bar), ABT_SUCCESS);
            CHECK_INT(ABT_rwlock_free(&rw), ABT_SUCCESS);
            CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
            CHECK_INT(ABT_future_free(&fut), ABT_SUCCESS);
        }
    } else {
        printf("some synchronization object does not work: skipping the stress rounds\n");
    }

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
