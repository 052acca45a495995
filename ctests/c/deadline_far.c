/* Deadlines far in the future wait, they do not time out at once. A deadline past what 64 bits
 * of nanoseconds hold saturates to one that never comes (capi/engine/wait.h): before, the
 * float -> uint64 conversion of ABT_pool_pop_wait*'s time_secs overflowed for INFINITY and
 * 1e12 s (the pop returned at once with nothing), and tv_sec * 1e9 wrapped for the timespecs
 * of ABT_cond_timedwait and ABT_eventual_timedwait (they timed out at once). Each wait here
 * must still be waiting when a thread of the program's sees it blocked, and end by that thread's
 * push, set or signal:
 *   - ABT_pool_pop_wait_thread with INFINITY and 1e12, ABT_pool_pop_wait with INFINITY,
 *     ABT_pool_pop_timedwait with abstime 1e300, on a FIFO_WAIT pool and on a Go pool;
 *   - ABT_eventual_timedwait with tv_sec 18446744074 and 1 << 62;
 *   - ABT_cond_timedwait with tv_sec 18446744074 and 1 << 62. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <abt.h>
#include <goabt.h>
#include "check.h"
// ctest-libs: -lm

/* ---- Pools ---------------------------------------------------------------------------------- */

struct pusher {
    ABT_pool pool;
    int returned; /* the pop returned (atomic): nothing to push for */
};

static void nothing(void *arg) { (void)arg; }

/* Waits until a caller is blocked in a pop_wait on the pool, then pushes a ULT into it; gives
 * up if the pop returns first (it did not wait: the check fails). */
static void *push_when_waited(void *arg)
{
    struct pusher *p = arg;
    for (;;) {
        int n = 0;
        if (goabt_pool_get_num_idle_streams(p->pool, &n) == ABT_SUCCESS && n > 0) break;
        if (__atomic_load_n(&p->returned, __ATOMIC_ACQUIRE)) return NULL;
        sched_yield();
    }
    ABT_thread_create(p->pool, nothing, NULL, ABT_THREAD_ATTR_NULL, NULL);
    return NULL;
}

enum { POP_THREAD, POP_UNIT, POP_TIMED };

/* One pop_wait of the kind `how` with `secs`, while a thread pushes once it waits: the pop
 * must return the pushed ULT. */
static int pop_far(ABT_pool pool, int how, double secs)
{
    struct pusher p = {pool, 0};
    pthread_t t;
    pthread_create(&t, NULL, push_when_waited, &p);
    ABT_thread got = ABT_THREAD_NULL;
    int rc;
    if (how == POP_THREAD) {
        rc = ABT_pool_pop_wait_thread(pool, &got, secs);
    } else {
        ABT_unit unit = ABT_UNIT_NULL;
/* ABT_pool_pop_timedwait is deprecated in Argobots 1.2, and still served. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        rc = how == POP_UNIT ? ABT_pool_pop_wait(pool, &unit, secs) : ABT_pool_pop_timedwait(pool, &unit, secs);
#pragma GCC diagnostic pop
        if (rc == ABT_SUCCESS && unit != ABT_UNIT_NULL) rc = ABT_unit_get_thread(unit, &got);
    }
    __atomic_store_n(&p.returned, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    int ok = rc == ABT_SUCCESS && got != ABT_THREAD_NULL;
    if (got != ABT_THREAD_NULL) {
        /* Run it to its end here, then it is freed (it was created unnamed). */
        ABT_self_schedule(got, ABT_POOL_NULL);
    }
    return ok;
}

static void pools(const char *kind, ABT_pool pool)
{
    printf("-- %s pool\n", kind);
    CHECK(pop_far(pool, POP_THREAD, INFINITY));
    CHECK(pop_far(pool, POP_THREAD, 1e12));
    CHECK(pop_far(pool, POP_UNIT, INFINITY));
    CHECK(pop_far(pool, POP_TIMED, 1e300));
}

/* ---- Eventual and cond ------------------------------------------------------------------- */

struct setter {
    ABT_eventual ev;
    int returned; /* the wait returned (atomic) */
};

/* Sets the eventual once a caller waits on it; gives up if the wait returns first. */
static void *set_when_waited(void *arg)
{
    struct setter *s = arg;
    for (;;) {
        int n = 0;
        if (goabt_eventual_get_num_waiters(s->ev, &n) == ABT_SUCCESS && n > 0) break;
        if (__atomic_load_n(&s->returned, __ATOMIC_ACQUIRE)) return NULL;
        sched_yield();
    }
    ABT_eventual_set(s->ev, NULL, 0);
    return NULL;
}

static int eventual_far(time_t sec)
{
    struct setter s = {ABT_EVENTUAL_NULL, 0};
    ABT_eventual_create(0, &s.ev);
    pthread_t t;
    pthread_create(&t, NULL, set_when_waited, &s);
    struct timespec until = {sec, 0};
    int rc = ABT_eventual_timedwait(s.ev, NULL, &until);
    __atomic_store_n(&s.returned, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    ABT_eventual_free(&s.ev);
    return rc == ABT_SUCCESS;
}

struct condwait {
    ABT_mutex m;
    ABT_cond c;
    time_t sec;
    int done, rc;
};

static void cond_waiter(void *arg)
{
    struct condwait *w = arg;
    struct timespec until = {w->sec, 0};
    ABT_mutex_lock(w->m);
    w->rc = ABT_ERR_OTHER;
    while (!w->done) {
        w->rc = ABT_cond_timedwait(w->c, w->m, &until);
        if (w->rc != ABT_SUCCESS) break;
    }
    ABT_mutex_unlock(w->m);
}

/* A ULT waits on a cond to a far deadline; once it is BLOCKED the main ULT signals it. */
static int cond_far(ABT_pool pool, time_t sec)
{
    struct condwait w = {.sec = sec};
    ABT_mutex_create(&w.m);
    ABT_cond_create(&w.c);
    ABT_thread t;
    ABT_thread_create(pool, cond_waiter, &w, ABT_THREAD_ATTR_NULL, &t);
    for (;;) {
        ABT_thread_state s;
        ABT_thread_get_state(t, &s);
        if (s == ABT_THREAD_STATE_BLOCKED || s == ABT_THREAD_STATE_TERMINATED) break;
        ABT_thread_yield();
    }
    ABT_mutex_lock(w.m);
    w.done = 1;
    ABT_cond_signal(w.c);
    ABT_mutex_unlock(w.m);
    ABT_thread_free(&t);
    ABT_cond_free(&w.c);
    ABT_mutex_free(&w.m);
    return w.rc == ABT_SUCCESS;
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_pool fifo_wait, go_pool;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO_WAIT, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &fifo_wait), ABT_SUCCESS);
    pools("FIFO_WAIT", fifo_wait);
    CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &go_pool), ABT_SUCCESS);
    pools("Go (ws)", go_pool);
    ABT_pool_free(&fifo_wait);
    ABT_pool_free(&go_pool);

    printf("-- eventual\n");
    CHECK(eventual_far((time_t)18446744074LL));
    CHECK(eventual_far((time_t)1 << 62));

    printf("-- cond\n");
    ABT_xstream self;
    ABT_pool main_pool;
    ABT_xstream_self(&self);
    ABT_xstream_get_main_pools(self, 1, &main_pool);
    CHECK(cond_far(main_pool, (time_t)18446744074LL));
    CHECK(cond_far(main_pool, (time_t)1 << 62));

    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
