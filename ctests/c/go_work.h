/* go_work.h: what the tests of Go pools and schedulers (go_env.c, go_api.c) run on them. */
#ifndef GOABT_GO_WORK_H
#define GOABT_GO_WORK_H

#include <pthread.h>
#include <stdint.h>
#include <abt.h>
#include "check.h"

#define WORK_ULTS 4000
#define WORK_TASKS 1000
#define WORK_YIELDS 3

static uint64_t work_sum;
static int work_done;
static long work_locked; /* incremented under work_mutex by a read and a later write */
static ABT_mutex work_mutex;

static void work_ult(void *arg)
{
    for (int i = 0; i < WORK_YIELDS; i++) ABT_thread_yield();
    ABT_mutex_lock(work_mutex); /* contended: ULTs park and are woken through their pools */
    long v = work_locked;
    ABT_thread_yield();
    work_locked = v + 1;
    ABT_mutex_unlock(work_mutex);
    __atomic_add_fetch(&work_sum, (uint64_t)(uintptr_t)arg, __ATOMIC_RELAXED);
    __atomic_add_fetch(&work_done, 1, __ATOMIC_RELAXED);
}

static void work_task(void *arg)
{
    __atomic_add_fetch(&work_sum, (uint64_t)(uintptr_t)arg, __ATOMIC_RELAXED);
    __atomic_add_fetch(&work_done, 1, __ATOMIC_RELAXED);
}

static ABT_thread work_units[WORK_ULTS + WORK_TASKS];

/* WORK_ULTS ULTs (each yields, then takes a mutex) and WORK_TASKS tasklets created by the caller
 * round-robin into pools[0 .. n-1], then all freed (joined): every unit ran once, the sum of
 * their arguments is exact, and no update under the mutex was lost. */
static void run_work(const char *what, ABT_pool *pools, int n)
{
    printf("-- %s\n", what);
    CHECK_INT(ABT_mutex_create(&work_mutex), ABT_SUCCESS);
    work_sum = 0;
    work_done = 0;
    work_locked = 0;
    uint64_t want = 0;
    int errors = 0;
    for (int i = 0; i < WORK_ULTS + WORK_TASKS; i++) {
        uintptr_t arg = (uintptr_t)i * 7 + 1;
        want += arg;
        if (i % 5 == 4) {
            errors += ABT_task_create(pools[i % n], work_task, (void *)arg, &work_units[i]) != ABT_SUCCESS;
        } else {
            errors += ABT_thread_create(pools[i % n], work_ult, (void *)arg, ABT_THREAD_ATTR_NULL,
                                        &work_units[i]) != ABT_SUCCESS;
        }
    }
    CHECK_INT(errors, 0);
    for (int i = 0; i < WORK_ULTS + WORK_TASKS; i++) {
        errors += (i % 5 == 4 ? ABT_task_free(&work_units[i]) : ABT_thread_free(&work_units[i])) !=
                  ABT_SUCCESS;
    }
    CHECK_INT(errors, 0);
    CHECK_INT(work_done, WORK_ULTS + WORK_TASKS);
    CHECK(work_sum == want);
    CHECK_INT(work_locked, WORK_ULTS);
    CHECK_INT(ABT_mutex_free(&work_mutex), ABT_SUCCESS);
}

/* ---- Starvation: a ULT that yields forever in a scheduler's first pool ------------------------ */

static int hog_stop, victim_ran, hog_gave_up;

static void hog(void *arg)
{
    (void)arg;
    double start = ABT_get_wtime();
    /* Gives up after 100,000 yields and 0.1 s: a scheduler that always pops the first pool
     * first never lets the victim run before. */
    for (long yields = 0; !__atomic_load_n(&hog_stop, __ATOMIC_ACQUIRE); yields++) {
        if (yields >= 100000 && ABT_get_wtime() - start > 0.1) {
            hog_gave_up = 1;
            return;
        }
        ABT_thread_yield();
    }
}

static void victim(void *arg)
{
    (void)arg;
    victim_ran = 1;
    __atomic_store_n(&hog_stop, 1, __ATOMIC_RELEASE);
}

/* A stream whose scheduler (sched, over pools q[0] and q[1] in that order) finds a hog in q[0]
 * and a victim in q[1] when it starts. Returns 1 if the victim ran before the hog gave up. */
static int run_starvation(ABT_sched sched, ABT_pool *q)
{
    hog_stop = victim_ran = hog_gave_up = 0;
    ABT_thread h, v;
    CHECK_INT(ABT_thread_create(q[0], hog, NULL, ABT_THREAD_ATTR_NULL, &h), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(q[1], victim, NULL, ABT_THREAD_ATTR_NULL, &v), ABT_SUCCESS);
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create(sched, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&h), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&v), ABT_SUCCESS);
    CHECK_INT(victim_ran, 1);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    return !hog_gave_up;
}

#endif
