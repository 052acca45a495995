/* abt_wait.h: what several engine tests need on top of check.h. */
#ifndef GOABT_ABT_WAIT_H
#define GOABT_ABT_WAIT_H

#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#include <abt.h>
#include <goabt.h>
#include "check.h"

/* The process's address space now, in bytes (/proc/self/statm's first field, in pages). */
static inline size_t address_space_used(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f != NULL) {
        if (fscanf(f, "%lu", &pages) != 1) pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Waits, yielding, until *flag reaches want or 10 s pass (CTEST_SLOW times that under
 * valgrind); 1 if it did. */
static inline int wait_for(int *flag, int want)
{
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) {
        if (ABT_get_wtime() > end) return 0;
        ABT_thread_yield();
    }
    return 1;
}

/* Waits, yielding, until work unit t is in state want or 10 s pass (CTEST_SLOW times that under
 * valgrind); 1 if it got there. */
static inline int wait_state(ABT_thread t, ABT_thread_state want)
{
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    while (ABT_thread_get_state(t, &st) != ABT_SUCCESS || st != want) {
        if (ABT_get_wtime() > end) return 0;
        ABT_thread_yield();
    }
    return 1;
}

/* Waits, yielding (sched_yield on a thread that is not a ULT), until want streams sleep idle on
 * pool (goabt_pool_get_num_idle_streams) or 10 s pass (CTEST_SLOW times that under valgrind); 1
 * if they did. */
static inline int wait_idle_streams(ABT_pool pool, int want)
{
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    int n = -1;
    while (goabt_pool_get_num_idle_streams(pool, &n) != ABT_SUCCESS || n != want) {
        if (ABT_get_wtime() > end) return 0;
        if (ABT_thread_yield() != ABT_SUCCESS) sched_yield();
    }
    return 1;
}

/* Waits, yielding, until want callers wait in line for mutex (goabt_mutex_get_num_waiters) or
 * 10 s pass (CTEST_SLOW times that under valgrind); 1 if they did. */
static inline int wait_mutex_waiters(ABT_mutex mutex, int want)
{
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    int n = -1;
    while (goabt_mutex_get_num_waiters(mutex, &n) != ABT_SUCCESS || n != want) {
        if (ABT_get_wtime() > end) return 0;
        ABT_thread_yield();
    }
    return 1;
}

/* Frees *sched, a scheduler stacked with ABT_pool_add_sched and not automatic, once it has stopped
 * (ABT_sched_free refuses it with ABT_ERR_SCHED until then), yielding meanwhile; gives up after
 * 10 s (CTEST_SLOW times that under valgrind). ABT_sched_free's last result. */
static inline int free_when_stopped(ABT_sched *sched)
{
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    int rc;
    while ((rc = ABT_sched_free(sched)) == ABT_ERR_SCHED && ABT_get_wtime() < end) {
        ABT_thread_yield();
    }
    return rc;
}

/* Takes the primary stream as streams[0], creates n - 1 more with the default scheduler, and
 * fills pools[i] with each one's main pool; ABT_SUCCESS, or some failed call's error bits. */
static inline int start_streams(int n, ABT_xstream *streams, ABT_pool *pools)
{
    int rc = ABT_xstream_self(&streams[0]);
    for (int i = 1; i < n; i++) rc |= ABT_xstream_create(ABT_SCHED_NULL, &streams[i]);
    for (int i = 0; i < n; i++) rc |= ABT_xstream_get_main_pools(streams[i], 1, &pools[i]);
    return rc;
}

#endif
