/* The shape of the hang MPICH's threads tests found (issue "Robustness, third round", item 1),
 * without MPICH: on stream A a ULT spins on ABT_thread_yield (MPI_Iprobe's loop) while a second
 * ULT there hands rounds to a ULT of stream B through a mutex and a condition variable, and
 * waits for each answer on another condition variable; stream B has nothing else to run, so it
 * sleeps idle between rounds. Every round, a signal from A must wake B's stream, and B's answer
 * must reach the ULT parked on A, whose stream never idles (the spinner keeps it busy). A lost
 * wake-up hangs the program (the tests run with GOABT_SAFETY_WAKEUP_MS=off), and the harness's
 * time limit fails it.
 * ctest-variant lines: the predefined pools, FIFO_WAIT pools under BASIC_WAIT schedulers, and a
 * Go pool with its policy. */
// ctest-variant: default
// ctest-variant: wait -DHANDOFF_WAIT_POOLS=1
// ctest-variant: in_go GOABT_POOL=ws GOABT_SCHED=deadline
#include <stdio.h>
#include <abt.h>
#include "check.h"

#define ROUNDS (20000 / CTEST_SLOW)

static ABT_mutex m;
static ABT_cond to_b, to_a;
static int asked, answered, done;

static void spinner(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

static void asker(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ROUNDS; i++) {
        ABT_mutex_lock(m);
        asked = i;
        ABT_cond_signal(to_b);
        while (answered != i) ABT_cond_wait(to_a, m);
        ABT_mutex_unlock(m);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

static void answerer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ROUNDS; i++) {
        ABT_mutex_lock(m);
        while (asked != i) ABT_cond_wait(to_b, m);
        answered = i;
        ABT_cond_signal(to_a);
        ABT_mutex_unlock(m);
    }
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream a, b;
    ABT_pool pa, pb;
#ifdef HANDOFF_WAIT_POOLS
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC_WAIT, 0, NULL, ABT_SCHED_CONFIG_NULL, &a), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC_WAIT, 0, NULL, ABT_SCHED_CONFIG_NULL, &b), ABT_SUCCESS);
#else
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &a), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &b), ABT_SUCCESS);
#endif
    ABT_xstream_get_main_pools(a, 1, &pa);
    ABT_xstream_get_main_pools(b, 1, &pb);
    ABT_mutex_create(&m);
    ABT_cond_create(&to_b);
    ABT_cond_create(&to_a);
    ABT_thread t[3];
    CHECK_INT(ABT_thread_create(pb, answerer, NULL, ABT_THREAD_ATTR_NULL, &t[0]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pa, spinner, NULL, ABT_THREAD_ATTR_NULL, &t[1]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pa, asker, NULL, ABT_THREAD_ATTR_NULL, &t[2]), ABT_SUCCESS);
    for (int i = 0; i < 3; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
    CHECK_INT(answered, ROUNDS);
    ABT_cond_free(&to_a);
    ABT_cond_free(&to_b);
    ABT_mutex_free(&m);
    CHECK_INT(ABT_xstream_free(&a), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&b), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
