/* sync_util.h: what the synchronization tests (sync_*.c) share on top of check.h and abt_wait.h:
 * the streams and pools, checks that stop the program, atomics on ints, yields and bounded waits,
 * deadlines, a hang watchdog, and a trylock probe from another thread. */
#ifndef GOABT_SYNC_UTIL_H
#define GOABT_SYNC_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

#define NSTREAMS 4
static ABT_xstream streams[NSTREAMS]; /* [0] is the primary */
static ABT_pool pools[NSTREAMS];      /* their main pools */

/* ---- Checks ------------------------------------------------------------------------------- */

/* CHECK_OK(call): like CHECK_INT(call, ABT_SUCCESS), and gives whether it succeeded, so that
 * what depends on the call can be skipped. */
#define CHECK_OK(call) check_ok((call), __FILE__, __LINE__, #call)
static inline int check_ok(int rc, const char *file, int line, const char *what)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s == ABT_SUCCESS (got %d)", what, rc);
    return check_record(rc == ABT_SUCCESS, file, line, buf);
}

/* A bounded wait expired: the steps after it would block forever, so report and stop here. */
#define MUST(cond)                                                                       \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            check_record(0, __FILE__, __LINE__, "bounded wait expired: " #cond);         \
            check_summary();                                                             \
            fflush(stdout);                                                              \
            _exit(1);                                                                    \
        }                                                                                \
    } while (0)

/* give_up(why): records a failure at the caller's line and ends the program at once. */
#define give_up(why) give_up_at(__FILE__, __LINE__, (why))
static inline void give_up_at(const char *file, int line, const char *why)
{
    check_record(0, file, line, why);
    check_summary();
    _exit(1);
}

/* ---- Hang protection ---------------------------------------------------------------------- */

static inline void *hang_watchdog(void *why)
{
    sleep(60 * CTEST_SLOW);
    give_up((const char *)why);
    return NULL;
}

/* Ends the program with a failure, why, if it still runs 60 s from now (CTEST_SLOW times that
 * under valgrind). */
static inline void start_watchdog(const char *why)
{
    pthread_t t;
    pthread_create(&t, NULL, hang_watchdog, (void *)why);
    pthread_detach(t);
}

/* ---- Atomics, yields and bounded waits ---------------------------------------------------- */

static inline int load(int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void store(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline int inc(int *p) { return __atomic_add_fetch(p, 1, __ATOMIC_ACQ_REL); }
static inline int dec(int *p) { return __atomic_sub_fetch(p, 1, __ATOMIC_ACQ_REL); }

/* Lets others run: yields a ULT, or the OS thread of an external caller. */
static inline void relax(void)
{
    if (ABT_thread_yield() != ABT_SUCCESS) sched_yield();
}

/* Waits until *flag >= want, for at most 10 s (CTEST_SLOW times that under valgrind); works on
 * ULTs and external threads. */
static inline int until(int *flag, int want)
{
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    while (load(flag) < want) {
        if (ABT_get_wtime() > end) return 0;
        relax();
    }
    return 1;
}

/* Lets secs pass while others run. */
static inline void pause_for(double secs)
{
    double end = ABT_get_wtime() + secs;
    while (ABT_get_wtime() < end) {
        if (ABT_thread_yield() != ABT_SUCCESS) usleep(1000);
    }
}

/* The CLOCK_REALTIME time secs from now (secs may be negative), to the nearest nanosecond. */
static inline struct timespec deadline_in(double secs)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double add = secs * 1e9;
    long long ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec +
                   (long long)(add < 0 ? add - 0.5 : add + 0.5);
    ts.tv_sec = (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    return ts;
}

/* ---- Trylock probe ------------------------------------------------------------------------ */

/* ABT_mutex_trylock(m) from a fresh external thread, a different owner from everyone else; it
 * unlocks again at once when it got the mutex (-1000 if that unlock failed). */
struct probe {
    ABT_mutex m;
    int rc;
};
static inline void *probe_body(void *arg)
{
    struct probe *p = arg;
    p->rc = ABT_mutex_trylock(p->m);
    if (p->rc == ABT_SUCCESS && ABT_mutex_unlock(p->m) != ABT_SUCCESS) p->rc = -1000;
    return NULL;
}
#define PROBE_NO_THREAD (-2000) /* probe_trylock could not start its thread */
static inline int probe_trylock(ABT_mutex m)
{
    struct probe p = { m, -1 };
    pthread_t t;
    if (pthread_create(&t, NULL, probe_body, &p) != 0) return PROBE_NO_THREAD;
    pthread_join(t, NULL);
    return p.rc;
}

#endif
