/* One mutex shared by ULTs, tasklets and external threads. A tasklet (or a scheduler's own
 * context) that waits for a mutex sleeps on its stream's thread: it must never wait for a ULT
 * that only that stream can run.
 *  - Hand-over: a ULT u on stream 1 waits for m while the main ULT holds it, losing it again
 *    and again (the main ULT unlocks and relocks at once) until it has waited long enough to
 *    be handed m (capi/engine/mutex.c: a waiter that has lost m for 1 ms, which it checks at every
 *    16th loss; each round stops at the 16th loss, past the millisecond, with u queued again);
 *    then a tasklet on stream 1 locks m too, and the main ULT unlocks. While the main ULT
 *    unlocks and locks again, a ULT spinning on stream 1 keeps u from running, so u loses m
 *    every time, on a busy machine too. Before, the
 *    unlock handed m to u, which stream 1 could not run while the tasklet slept on it: neither
 *    ever finished. Now the tasklet is served first, or takes a hand-over u has not claimed
 *    yet. 10 rounds.
 *  - Mixed: 2 external pthreads, 4 ULTs and 100 tasklets on 2 streams lock m, count under it
 *    and unlock; every count adds up. 20 rounds (one mutex of 2 pthreads, 4 ULTs and 100
 *    tasklets used to hang in 8-27% of runs).
 * The safety wake-ups are off (the harness): a lost wake-up hangs; an alarm turns a hang into a
 * failure. */
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

static ABT_mutex m;
static ABT_xstream xs1;
static ABT_pool pool0, pool1;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- Hand-over to a ULT whose stream a sleeping tasklet holds ------------------------------ */

static int u_done, t_entered, t_done;

static void waiting_ult(void *arg)
{
    (void)arg;
    ABT_mutex_lock(m);
    ABT_mutex_unlock(m);
    __atomic_store_n(&u_done, 1, __ATOMIC_RELEASE);
}

static void locking_tasklet(void *arg)
{
    (void)arg;
    __atomic_store_n(&t_entered, 1, __ATOMIC_RELEASE);
    ABT_mutex_lock(m);
    ABT_mutex_unlock(m);
    __atomic_store_n(&t_done, 1, __ATOMIC_RELEASE);
}

/* Keeps stream 1 busy, without yielding, until the main ULT opens it: u, woken behind it in
 * pool 1, cannot take m between the main ULT's unlock and its lock again, however late the
 * machine runs the main thread. */
static int gate_open;
static void gate_ult(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE)) {
    }
}

/* Returns 0 if u won m at some unlock instead of losing it (the round is then void). */
static int handover_round(int losses_wanted)
{
    u_done = t_entered = t_done = 0;
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    ABT_thread u;
    CHECK_INT(ABT_thread_create(pool1, waiting_ult, NULL, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    wait_state(u, ABT_THREAD_STATE_BLOCKED);
    /* u loses m again and again (it is woken, m is taken again before it runs, it queues
     * again: one loss each): past 1 ms since the first loss, its 16th one leaves it queued as
     * starving, and the next unlock hands m over. */
    uint64_t first = 0;
    for (int losses = 1; losses <= losses_wanted; losses++) {
        ABT_thread gate;
        __atomic_store_n(&gate_open, 0, __ATOMIC_RELEASE);
        CHECK_INT(ABT_thread_create(pool1, gate_ult, NULL, ABT_THREAD_ATTR_NULL, &gate), ABT_SUCCESS);
        ABT_mutex_unlock(m);
        ABT_mutex_lock(m);
        __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
        CHECK_INT(ABT_thread_free(&gate), ABT_SUCCESS);
        if (__atomic_load_n(&u_done, __ATOMIC_ACQUIRE)) break; /* u took m in between */
        wait_state(u, ABT_THREAD_STATE_BLOCKED);
        if (losses == 1) {
            first = now_ns();
            while (now_ns() - first < 1500000ull) {
            }
        }
    }
    if (__atomic_load_n(&u_done, __ATOMIC_ACQUIRE)) {
        CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
        return 0;
    }
    ABT_task t;
    CHECK_INT(ABT_task_create(pool1, locking_tasklet, NULL, &t), ABT_SUCCESS);
    while (!__atomic_load_n(&t_entered, __ATOMIC_ACQUIRE)) ABT_thread_yield();
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK(__atomic_load_n(&u_done, __ATOMIC_ACQUIRE) && __atomic_load_n(&t_done, __ATOMIC_ACQUIRE));
    return 1;
}

/* ---- Mixed: pthreads, ULTs, tasklets ------------------------------------------------------- */

#define N_PTHREADS 2
#define N_ULTS 4
#define N_TASKLETS 100
#define LOCKS_EACH 200

static long counter;

static void count_once(void)
{
    ABT_mutex_lock(m);
    counter++;
    ABT_mutex_unlock(m);
}

static void *pthread_locker(void *arg)
{
    (void)arg;
    for (int i = 0; i < LOCKS_EACH; i++) count_once();
    return NULL;
}

static void ult_locker(void *arg)
{
    (void)arg;
    for (int i = 0; i < LOCKS_EACH; i++) {
        count_once();
        if (i % 8 == 0) ABT_thread_yield();
    }
}

static void tasklet_locker(void *arg)
{
    (void)arg;
    count_once();
}

static void mixed_round(void)
{
    counter = 0;
    pthread_t pt[N_PTHREADS];
    ABT_thread ults[N_ULTS];
    ABT_task tasks[N_TASKLETS];
    for (int i = 0; i < N_PTHREADS; i++) CHECK_INT(pthread_create(&pt[i], NULL, pthread_locker, NULL), 0);
    int rc = 0;
    for (int i = 0; i < N_ULTS; i++) {
        rc |= ABT_thread_create(i % 2 ? pool1 : pool0, ult_locker, NULL, ABT_THREAD_ATTR_NULL, &ults[i]);
    }
    for (int i = 0; i < N_TASKLETS; i++) rc |= ABT_task_create(i % 2 ? pool1 : pool0, tasklet_locker, NULL, &tasks[i]);
    count_once(); /* the main ULT too */
    for (int i = 0; i < N_ULTS; i++) rc |= ABT_thread_free(&ults[i]);
    for (int i = 0; i < N_TASKLETS; i++) rc |= ABT_task_free(&tasks[i]);
    for (int i = 0; i < N_PTHREADS; i++) pthread_join(pt[i], NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(counter, (long)(N_PTHREADS + N_ULTS) * LOCKS_EACH + N_TASKLETS + 1);
}

int main(void)
{
    alarm(120 * CTEST_SLOW);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool0), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs1), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs1, 1, &pool1), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    int played = 0;
    for (int r = 0; r < 10; r++) {
        int ok = handover_round(16);
        printf("hand-over round %d: %s\n", r, ok ? "played" : "void: u won m at an unlock");
        played += ok;
    }
    CHECK_INT(played, 10); /* the gate leaves u no unlock to win */
    for (int r = 0; r < 20; r++) {
        printf("mixed round %d\n", r);
        mixed_round();
    }
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs1), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
