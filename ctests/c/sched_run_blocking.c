/* A user scheduler's run function blocks on synchronization objects, as a ULT may (Argobots 1.2
 * runs schedulers on ULTs). 4 streams, each with a main scheduler made from an ABT_sched_def
 * (of type ABT_SCHED_TYPE_ULT, and in the second variant ABT_SCHED_TYPE_TASK: Argobots ignores
 * the type). The primary's is set with ABT_xstream_set_main_sched once the other 3 streams run,
 * and the main ULT then joins them. Each run function, the primary's included:
 *  - yields (ABT_thread_yield, ABT_self_yield: nothing below a scheduler to yield to);
 *  - waits 5 times on one ABT_barrier of the 4 (every round: all 4 arrived before any leaves);
 *  - locks one ABT_mutex that scheduler 0 holds until the 3 others try it, then locks and
 *    unlocks it 10 times around a plain increment (no update lost);
 *  - waits on one ABT_cond until scheduler 0, holding the mutex, sees the 3 others waiting and
 *    broadcasts;
 *  - read-locks one ABT_rwlock that scheduler 0 write-holds until the 3 others try it, then
 *    all 4 hold it for reading across a barrier round (readers share it);
 *  - waits on an ABT_eventual in a ring: 0 sets 1's, each sets the next one's once its own was
 *    set, and 0 waits for 3's (the order is checked);
 *  - sets and waits on one ABT_future of 4 compartments;
 *  - joins a ULT: 1..3 each one pushed to scheduler 0's pool, which 0 runs (ABT_pool_pop and
 *    ABT_xstream_run_unit), 0 one pushed to scheduler 1's pool before that;
 *  - then schedules normally (ABT_pool_pop, ABT_xstream_run_unit, ABT_sched_has_to_stop,
 *    ABT_xstream_check_events every 16 rounds) the 40 ULTs per pool the main ULT made (a mutex
 *    and yields in each) until it has to stop.
 * On the primary the run function runs the main ULT (woken from each ABT_xstream_join) from
 * ABT_xstream_run_unit: it must go on where it left off when the main ULT blocks again, not
 * start afresh (it would wait on the barrier a sixth time, alone: the hang this test was written
 * for). Checked: each run function was entered once and returned once; every phase's result;
 * every ULT ran. Two rounds of ABT_init: in the first the main ULT gives the primary a basic
 * scheduler back before ABT_finalize (the replaced run returns first, as in Argobots), in the
 * second the user scheduler is still the primary's at ABT_finalize (its run returns, then its
 * free function runs). The safety wake-ups are off (as in every ctest): a lost wake-up hangs,
 * and an alarm then ends the program, saying where each scheduler was. */
// ctest-variant: ult -DSCHED_TYPE=ABT_SCHED_TYPE_ULT
// ctest-variant: task -DSCHED_TYPE=ABT_SCHED_TYPE_TASK
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

#define N 4          /* streams, schedulers */
#define ROUNDS 5     /* barrier rounds */
#define LOCKS 10     /* mutex lock/unlock per scheduler */
#define WORKERS 40   /* ULTs per pool, run by the schedulers' loops */
#define WORK_LOCKS 3 /* mutex sections per worker */

static ABT_barrier barrier;
static ABT_mutex mutex;
static ABT_cond cond;
static ABT_rwlock rwlock;
static ABT_eventual ring[N];
static ABT_future future;
static ABT_pool pools[N];

static int bad; /* failed calls anywhere (atomic) */
#define GOOD(call)                                                                            \
    do {                                                                                      \
        if ((call) != ABT_SUCCESS) __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);             \
    } while (0)

/* What each scheduler did, by its index (scheduler 0 is the primary's). */
typedef struct {
    int k;
    int entered, returned;   /* run calls started and returned */
    const char *phase;       /* where it is, for the alarm */
    int barrier_bad;         /* rounds it left before all 4 had arrived */
    int ring_pos;            /* when its ring eventual came, in order of all (0 is first) */
    int future_bad;
    long ran;                /* units its loop ran */
} sched_data;

static sched_data data[N];
static int freed[N];

/* Shared state of the phases. */
static int round_arrived[2 * ROUNDS + 1]; /* barrier arrivals per round (atomic) */
static int trying;                        /* schedulers about to take what 0 holds (atomic) */
static long counter;                      /* under mutex */
static int cond_waiting, cond_go, cond_waits; /* under mutex */
static int readers;                       /* holding rwlock for reading (atomic) */
static int readers_together;              /* readers seen at the shared barrier round */
static int ring_next;                     /* ring order (atomic) */
static int targets_run;                   /* join targets run (atomic) */
static int workers_done;                  /* (atomic) */
static long work_counter;                 /* under mutex */

static void set_phase(sched_data *d, const char *phase)
{
    __atomic_store_n(&d->phase, phase, __ATOMIC_RELEASE);
}

/* Every scheduler's barrier wait, counted: round r's arrivals before, all 4 after. */
static void barrier_round(sched_data *d, int r)
{
    __atomic_add_fetch(&round_arrived[r], 1, __ATOMIC_ACQ_REL);
    GOOD(ABT_barrier_wait(barrier));
    if (__atomic_load_n(&round_arrived[r], __ATOMIC_ACQUIRE) != N) d->barrier_bad++;
}

/* Scheduler 0 waits (holding something) until the 3 others are about to take it; a scheduler
 * has nothing to yield to, so it gives its CPU away meanwhile. */
static void wait_for_trying(int want)
{
    while (__atomic_load_n(&trying, __ATOMIC_ACQUIRE) < want) sched_yield();
}

static void join_target(void *arg)
{
    (void)arg;
    ABT_thread_yield();
    __atomic_add_fetch(&targets_run, 1, __ATOMIC_ACQ_REL);
}

static void worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < WORK_LOCKS; i++) {
        GOOD(ABT_mutex_lock(mutex));
        long v = work_counter;
        ABT_thread_yield();
        work_counter = v + 1;
        GOOD(ABT_mutex_unlock(mutex));
    }
    __atomic_add_fetch(&workers_done, 1, __ATOMIC_RELAXED);
}

static void run(ABT_sched sched)
{
    sched_data *d = NULL;
    GOOD(ABT_sched_get_data(sched, (void **)&d));
    int k = d->k;
    ABT_pool pool = ABT_POOL_NULL;
    GOOD(ABT_sched_get_pools(sched, 1, 0, &pool));
    __atomic_add_fetch(&d->entered, 1, __ATOMIC_RELAXED);

    set_phase(d, "yield");
    for (int i = 0; i < 3; i++) GOOD(ABT_thread_yield());
    GOOD(ABT_self_yield());

    set_phase(d, "barrier");
    for (int r = 0; r < ROUNDS; r++) barrier_round(d, r);

    set_phase(d, "mutex");
    if (k == 0) GOOD(ABT_mutex_lock(mutex));
    barrier_round(d, ROUNDS); /* 0 holds it */
    if (k == 0) {
        wait_for_trying(N - 1);
        counter += 1000; /* nobody else got in meanwhile: checked at the end */
        GOOD(ABT_mutex_unlock(mutex));
    } else {
        __atomic_add_fetch(&trying, 1, __ATOMIC_ACQ_REL);
        GOOD(ABT_mutex_lock(mutex)); /* blocks until 0 unlocks */
        GOOD(ABT_mutex_unlock(mutex));
    }
    for (int i = 0; i < LOCKS; i++) {
        GOOD(ABT_mutex_lock(mutex));
        long v = counter;
        if (i % 3 == 0) sched_yield(); /* a window for a lost update */
        counter = v + 1;
        GOOD(ABT_mutex_unlock(mutex));
    }
    barrier_round(d, ROUNDS + 1);
    __atomic_store_n(&trying, 0, __ATOMIC_RELEASE); /* every one passed the round above */
    barrier_round(d, ROUNDS + 2);

    set_phase(d, "cond");
    if (k == 0) {
        for (;;) { /* the 3 others wait in ABT_cond_wait once counted under the mutex */
            GOOD(ABT_mutex_lock(mutex));
            if (cond_waiting == N - 1) break;
            GOOD(ABT_mutex_unlock(mutex));
            sched_yield();
        }
        cond_go = 1;
        GOOD(ABT_cond_broadcast(cond));
        GOOD(ABT_mutex_unlock(mutex));
    } else {
        GOOD(ABT_mutex_lock(mutex));
        cond_waiting++;
        while (!cond_go) {
            cond_waits++;
            GOOD(ABT_cond_wait(cond, mutex));
        }
        GOOD(ABT_mutex_unlock(mutex));
    }

    set_phase(d, "rwlock");
    if (k == 0) GOOD(ABT_rwlock_wrlock(rwlock));
    barrier_round(d, ROUNDS + 3); /* 0 holds it for writing */
    if (k == 0) {
        wait_for_trying(N - 1);
        GOOD(ABT_rwlock_unlock(rwlock));
    } else {
        __atomic_add_fetch(&trying, 1, __ATOMIC_ACQ_REL);
    }
    GOOD(ABT_rwlock_rdlock(rwlock)); /* 1..3 block until 0 unlocks */
    __atomic_add_fetch(&readers, 1, __ATOMIC_ACQ_REL);
    barrier_round(d, ROUNDS + 4); /* all 4 read at once */
    if (k == 0) readers_together = __atomic_load_n(&readers, __ATOMIC_ACQUIRE);
    barrier_round(d, ROUNDS + 5);
    GOOD(ABT_rwlock_unlock(rwlock));

    set_phase(d, "eventual");
    if (k == 0) GOOD(ABT_eventual_set(ring[1], NULL, 0));
    GOOD(ABT_eventual_wait(ring[k], NULL));
    d->ring_pos = __atomic_fetch_add(&ring_next, 1, __ATOMIC_ACQ_REL);
    if (k != 0) GOOD(ABT_eventual_set(ring[(k + 1) % N], NULL, 0));

    set_phase(d, "future");
    GOOD(ABT_future_set(future, (void *)(uintptr_t)(k + 1)));
    GOOD(ABT_future_wait(future));
    ABT_bool ready = ABT_FALSE;
    GOOD(ABT_future_test(future, &ready));
    if (ready != ABT_TRUE) d->future_bad++;

    set_phase(d, "join");
    ABT_thread target = ABT_THREAD_NULL;
    /* 0's target goes to 1's pool before 1 can be done with its own join (0 runs that one):
     * stream 1 cannot have stopped yet. */
    GOOD(ABT_thread_create(k == 0 ? pools[1] : pools[0], join_target, NULL,
                           ABT_THREAD_ATTR_NULL, &target));
    if (k == 0) {
        while (__atomic_load_n(&targets_run, __ATOMIC_ACQUIRE) < N - 1) {
            ABT_unit unit = ABT_UNIT_NULL;
            GOOD(ABT_pool_pop(pool, &unit));
            if (unit != ABT_UNIT_NULL) {
                GOOD(ABT_xstream_run_unit(unit, pool));
                d->ran++;
            } else {
                sched_yield();
            }
        }
    }
    GOOD(ABT_thread_free(&target)); /* joins it */

    set_phase(d, "loop");
    for (unsigned n = 1;; n++) {
        ABT_unit unit = ABT_UNIT_NULL;
        GOOD(ABT_pool_pop(pool, &unit));
        if (unit != ABT_UNIT_NULL) {
            GOOD(ABT_xstream_run_unit(unit, pool));
            d->ran++;
        } else {
            sched_yield(); /* 2 cores, 4 streams */
        }
        if (n % 16 == 0) {
            GOOD(ABT_xstream_check_events(sched));
            ABT_bool stop = ABT_FALSE;
            GOOD(ABT_sched_has_to_stop(sched, &stop));
            if (stop == ABT_TRUE) break;
        }
    }
    set_phase(d, "returned");
    __atomic_add_fetch(&d->returned, 1, __ATOMIC_RELAXED);
}

static int sched_free_fn(ABT_sched sched)
{
    sched_data *d = NULL;
    if (ABT_sched_get_data(sched, (void **)&d) == ABT_SUCCESS && d != NULL) {
        __atomic_add_fetch(&freed[d->k], 1, __ATOMIC_RELAXED);
    }
    return ABT_SUCCESS;
}

static ABT_sched_def def = {.type = SCHED_TYPE, .run = run, .free = sched_free_fn};

static void on_alarm(int sig)
{
    (void)sig;
    char line[160];
    for (int k = 0; k < N; k++) {
        const char *phase = __atomic_load_n(&data[k].phase, __ATOMIC_ACQUIRE);
        int n = snprintf(line, sizeof line,
                         "FAIL hang: scheduler %d (%s) in phase %s, run entered %d times\n", k,
                         k == 0 ? "primary" : "secondary", phase ? phase : "(not started)",
                         __atomic_load_n(&data[k].entered, __ATOMIC_RELAXED));
        if (n > 0) (void)!write(1, line, (size_t)n);
    }
    _exit(2);
}

static void reset(void)
{
    memset(data, 0, sizeof data);
    memset(freed, 0, sizeof freed);
    memset(round_arrived, 0, sizeof round_arrived);
    trying = 0;
    counter = cond_waiting = cond_go = cond_waits = 0;
    readers = readers_together = ring_next = targets_run = workers_done = 0;
    work_counter = 0;
}

/* One round of ABT_init; give_back: the main ULT gives the primary a basic scheduler before
 * ABT_finalize, else the user scheduler is the primary's at ABT_finalize. */
static void one_round(int give_back)
{
    reset();
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_create(N, &barrier), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&cond), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_create(&rwlock), ABT_SUCCESS);
    for (int k = 0; k < N; k++) CHECK_INT(ABT_eventual_create(0, &ring[k]), ABT_SUCCESS);
    CHECK_INT(ABT_future_create(N, NULL, &future), ABT_SUCCESS);

    ABT_xstream xs[N];
    CHECK_INT(ABT_xstream_self(&xs[0]), ABT_SUCCESS);
    /* The primary's user scheduler takes over its main pool, where the main ULT is. */
    CHECK_INT(ABT_xstream_get_main_pools(xs[0], 1, &pools[0]), ABT_SUCCESS);
    for (int k = 1; k < N; k++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &pools[k]),
                  ABT_SUCCESS);
    }
    ABT_sched scheds[N];
    for (int k = 0; k < N; k++) {
        data[k].k = k;
        CHECK_INT(ABT_sched_create(&def, 1, &pools[k], ABT_SCHED_CONFIG_NULL, &scheds[k]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_sched_set_data(scheds[k], &data[k]), ABT_SUCCESS);
    }
    for (int k = 1; k < N; k++) CHECK_INT(ABT_xstream_create(scheds[k], &xs[k]), ABT_SUCCESS);
    ABT_thread workers[N * WORKERS];
    for (int i = 0; i < N * WORKERS; i++) {
        CHECK_INT(ABT_thread_create(pools[i % N], worker, NULL, ABT_THREAD_ATTR_NULL, &workers[i]),
                  ABT_SUCCESS);
    }
    CHECK_INT(ABT_xstream_set_main_sched(xs[0], scheds[0]), ABT_SUCCESS);
    /* The main ULT blocks in each join: the primary's run function runs meanwhile, and runs
     * the main ULT again (from ABT_xstream_run_unit) once a join is done. */
    for (int k = 1; k < N; k++) CHECK_INT(ABT_xstream_join(xs[k]), ABT_SUCCESS);
    for (int k = 1; k < N; k++) CHECK_INT(ABT_xstream_free(&xs[k]), ABT_SUCCESS);
    for (int i = 0; i < N * WORKERS; i++) CHECK_INT(ABT_thread_free(&workers[i]), ABT_SUCCESS);
    CHECK_INT(data[0].returned, 0); /* the primary's run is still live: it ran the main ULT */
    if (give_back) {
        /* The replaced run sees it has to stop and returns before this returns. */
        CHECK_INT(ABT_xstream_set_main_sched_basic(xs[0], ABT_SCHED_DEFAULT, 1, &pools[0]),
                  ABT_SUCCESS);
        CHECK_INT(data[0].returned, 1);
        CHECK_INT(ABT_sched_free(&scheds[0]), ABT_SUCCESS);
        CHECK_INT(freed[0], 1);
    }
    for (int k = 1; k < N; k++) CHECK_INT(ABT_sched_free(&scheds[k]), ABT_SUCCESS);

    CHECK_INT(ABT_future_free(&future), ABT_SUCCESS);
    for (int k = 0; k < N; k++) CHECK_INT(ABT_eventual_free(&ring[k]), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&rwlock), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&cond), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_free(&barrier), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS); /* without give_back: the primary's run returns */

    long ran = 0;
    for (int k = 0; k < N; k++) {
        printf("round %d, scheduler %d: entered %d, returned %d, ring %d, ran %ld\n",
               give_back ? 0 : 1, k, data[k].entered, data[k].returned, data[k].ring_pos,
               data[k].ran);
        CHECK_INT(data[k].entered, 1);
        CHECK_INT(data[k].returned, 1);
        CHECK_INT(freed[k], 1);
        CHECK_INT(data[k].barrier_bad, 0);
        CHECK_INT(data[k].ring_pos, (k + N - 1) % N); /* 1, 2, 3, then 0 */
        CHECK_INT(data[k].future_bad, 0);
        ran += data[k].ran;
    }
    CHECK_INT(counter, 1000 + N * LOCKS);
    CHECK_INT(readers_together, N);
    CHECK_INT(targets_run, N);
    CHECK_INT(workers_done, N * WORKERS);
    CHECK_INT(work_counter, N * WORKERS * WORK_LOCKS);
    CHECK(ran >= N * WORKERS + (N - 1)); /* the workers and the join targets, main's runs too */
    CHECK_INT(bad, 0);
    printf("round %d: %d condition waits\n", give_back ? 0 : 1, cond_waits);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    alarm(60 * CTEST_SLOW); /* a hang (deadlock or lost wake-up) ends the program */
    one_round(1);
    one_round(0);
    return check_summary();
}
