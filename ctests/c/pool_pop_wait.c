/* ABT_pool_pop_wait* waits as every blocking call does (capi/engine/wait.h): a ULT blocked in it
 * parks, so that its stream runs other units meanwhile; a tasklet and an external thread sleep.
 * On a built-in pool no stream serves (`queue`), with one secondary stream serving `served`:
 *  - a ULT of that stream waits in ABT_pool_pop_wait_thread on queue, which nobody pushes to:
 *    it is BLOCKED and counted by goabt_pool_get_num_idle_streams, and another ULT created on
 *    the same stream runs to completion meanwhile; then a ULT created into queue is what the
 *    waiter gets;
 *  - the timeout path from a ULT: the wait ends after its time with nothing, and a ULT of the
 *    same stream ran while it waited;
 *  - a tasklet's wait ends after its time with nothing; an external thread's gets the unit a
 *    push brings.
 * Every wait is bounded. */
#include <pthread.h>
#include <abt.h>
#include <goabt.h>
#include "check.h"
#include "abt_wait.h"

static ABT_pool queue, served;

/* What a waiter asks and gets. */
struct wait_for_unit {
    double secs;       /* how long to wait */
    ABT_thread got;    /* what the pop gave */
    double elapsed;    /* how long it took, seconds */
    int done;          /* set once it returned */
};

static void pop_waiting(struct wait_for_unit *w)
{
    ABT_thread t = ABT_THREAD_NULL;
    double t0 = ABT_get_wtime();
    CHECK_INT(ABT_pool_pop_wait_thread(queue, &t, w->secs), ABT_SUCCESS);
    w->elapsed = ABT_get_wtime() - t0;
    w->got = t;
    /* What it got runs where a stream serves it. */
    if (t != ABT_THREAD_NULL) CHECK_INT(ABT_pool_push_thread(served, t), ABT_SUCCESS);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

static void waiter_ult(void *arg) { pop_waiting(arg); }
static void waiter_task(void *arg) { pop_waiting(arg); }
static void *waiter_thread(void *arg)
{
    pop_waiting(arg);
    return NULL;
}

/* A ULT of the waiter's stream: it records whether the waiter was still blocked in the pop when
 * it ran. */
static struct wait_for_unit *watched;
static int other_ran, other_saw_waiting;
static void other(void *arg)
{
    (void)arg;
    int n = -1;
    CHECK_INT(goabt_pool_get_num_idle_streams(queue, &n), ABT_SUCCESS);
    other_saw_waiting = n == 1 && !__atomic_load_n(&watched->done, __ATOMIC_ACQUIRE);
    __atomic_store_n(&other_ran, 1, __ATOMIC_RELEASE);
}

static int body_ran;
static void body(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&body_ran, 1, __ATOMIC_RELAXED);
}

/* A ULT waits on queue for a push; another ULT of its stream runs meanwhile; a push releases it. */
static void ult_released_by_push(void)
{
    printf("-- a ULT waits for a push; its stream goes on\n");
    struct wait_for_unit w = {.secs = 30.0 * CTEST_SLOW};
    watched = &w;
    other_ran = other_saw_waiting = body_ran = 0;
    ABT_thread waiter, o, t;
    CHECK_INT(ABT_thread_create(served, waiter_ult, &w, ABT_THREAD_ATTR_NULL, &waiter), ABT_SUCCESS);
    CHECK(wait_idle_streams(queue, 1));
    /* Parked: with the stream's thread asleep in the pop instead, nothing else runs there. */
    CHECK(wait_state(waiter, ABT_THREAD_STATE_BLOCKED));
    CHECK_INT(ABT_thread_create(served, other, NULL, ABT_THREAD_ATTR_NULL, &o), ABT_SUCCESS);
    CHECK(wait_for(&other_ran, 1));
    CHECK(other_saw_waiting);
    /* The push wakes the waiter, which pops the unit. */
    CHECK_INT(ABT_thread_create(queue, body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&waiter), ABT_SUCCESS);
    CHECK(w.got == t);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(body_ran, 1);
    CHECK_INT(ABT_thread_free(&o), ABT_SUCCESS);
    int n = -1;
    CHECK_INT(goabt_pool_get_num_idle_streams(queue, &n), ABT_SUCCESS);
    CHECK_INT(n, 0);
}

/* A ULT's wait times out; another ULT of its stream ran while it waited. */
static void ult_times_out(void)
{
    printf("-- a ULT's wait times out; its stream goes on meanwhile\n");
    struct wait_for_unit w = {.secs = 0.5 * CTEST_SLOW};
    watched = &w;
    other_ran = other_saw_waiting = 0;
    ABT_thread waiter, o;
    CHECK_INT(ABT_thread_create(served, waiter_ult, &w, ABT_THREAD_ATTR_NULL, &waiter), ABT_SUCCESS);
    CHECK(wait_idle_streams(queue, 1));
    CHECK_INT(ABT_thread_create(served, other, NULL, ABT_THREAD_ATTR_NULL, &o), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&waiter), ABT_SUCCESS);
    CHECK(w.got == ABT_THREAD_NULL);
    CHECK(w.elapsed >= 0.9 * w.secs);
    CHECK_INT(ABT_thread_free(&o), ABT_SUCCESS);
    CHECK(other_saw_waiting);
    int n = -1;
    CHECK_INT(goabt_pool_get_num_idle_streams(queue, &n), ABT_SUCCESS);
    CHECK_INT(n, 0);
}

/* A tasklet sleeps through its wait; an external thread sleeps until a push. */
static void tasklet_and_thread(void)
{
    printf("-- a tasklet's wait times out; an external thread's ends with a push\n");
    struct wait_for_unit tw = {.secs = 0.02};
    ABT_task task;
    CHECK_INT(ABT_task_create(served, waiter_task, &tw, &task), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&task), ABT_SUCCESS);
    CHECK(tw.got == ABT_THREAD_NULL);
    CHECK(tw.elapsed >= 0.9 * tw.secs);

    struct wait_for_unit xw = {.secs = 30.0 * CTEST_SLOW};
    body_ran = 0;
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, waiter_thread, &xw), 0);
    CHECK(wait_idle_streams(queue, 1));
    ABT_thread t;
    CHECK_INT(ABT_thread_create(queue, body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(pthread_join(th, NULL), 0);
    CHECK(xw.got == t);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(body_ran, 1);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &queue),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &served),
              ABT_SUCCESS);
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &served, ABT_SCHED_CONFIG_NULL, &xs),
              ABT_SUCCESS);
    ult_released_by_push();
    ult_times_out();
    tasklet_and_thread();
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&queue), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&served), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
