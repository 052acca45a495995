/* Synchronization objects outlive the runtime, as in Argobots: a program may create mutexes
 * (and their attributes), condition variables, readers-writer locks, eventuals, futures,
 * barriers and barriers of streams before ABT_init, use them from plain threads then, use them
 * from work units once the runtime is up, keep them across ABT_finalize and a second ABT_init,
 * and free them after the last ABT_finalize. ULT attributes need the runtime
 * (ABT_ERR_UNINITIALIZED before ABT_init, as native Argobots answers).
 *
 * The pattern a Margo test uses: a mutex and a condition variable made first, then a ULT that
 * waits `while (queue empty) ABT_cond_wait(c, m)`. Each cond_wait must succeed: one failing at
 * once would have the loop spin forever (the check stops it at the first failure). */
// ctest-env: GOABT_CHECK_LEAKS=fatal
#include <pthread.h>
#include <time.h>
#include <abt.h>
#include "check.h"

static ABT_mutex m, rec;
static ABT_mutex_attr recursive_attr;
static ABT_cond c;
static ABT_rwlock rw;
static ABT_eventual ev;
static ABT_future fut;
static ABT_barrier bar;
static ABT_xstream_barrier xbar;
static int queue;

/* Waits for an item as the client does; returns how many cond_waits failed. */
static int take_item(void)
{
    int failed = 0;
    ABT_mutex_lock(m);
    while (queue == 0) {
        if (ABT_cond_wait(c, m) != ABT_SUCCESS) {
            failed++;
            break;
        }
    }
    queue--;
    ABT_mutex_unlock(m);
    return failed;
}

static void put_item(void)
{
    ABT_mutex_lock(m);
    queue++;
    ABT_cond_signal(c);
    ABT_mutex_unlock(m);
}

/* ---- Before ABT_init: plain threads ---- */

static void *consumer_thread(void *arg)
{
    *(int *)arg = take_item();
    return NULL;
}

static void plain_threads_round(const char *when)
{
    printf("plain threads %s\n", when);
    pthread_t t;
    int failed = -1;
    CHECK_INT(pthread_create(&t, NULL, consumer_thread, &failed), 0);
    put_item();
    CHECK_INT(pthread_join(t, NULL), 0);
    CHECK_INT(failed, 0);
    CHECK_INT(queue, 0);

    /* Each kind once, by this thread alone. */
    CHECK_INT(ABT_mutex_lock(rec), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(rec), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(rec), ABT_SUCCESS);
    for (int i = 0; i < 3; i++) CHECK_INT(ABT_mutex_unlock(rec), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(m), ABT_SUCCESS);
    struct timespec past = {1, 0};
    CHECK_INT(ABT_cond_timedwait(c, m, &past), ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_rdlock(rw), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_rdlock(rw), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(rw), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(rw), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_wrlock(rw), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(rw), ABT_SUCCESS);
    int v = 42;
    void *got = NULL;
    ABT_bool ready = ABT_TRUE;
    CHECK_INT(ABT_eventual_reset(ev), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_test(ev, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
    CHECK_INT(ABT_eventual_set(ev, &v, sizeof v), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_wait(ev, &got), ABT_SUCCESS);
    CHECK(got != NULL && *(int *)got == 42);
    CHECK_INT(ABT_eventual_reset(ev), ABT_SUCCESS);
    CHECK_INT(ABT_future_reset(fut), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(fut, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(fut, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_future_wait(fut), ABT_SUCCESS);
    CHECK_INT(ABT_future_reset(fut), ABT_SUCCESS);
    /* A barrier of one opens at once. */
    CHECK_INT(ABT_barrier_reinit(bar, 1), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_wait(bar), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_reinit(bar, 2), ABT_SUCCESS);
}

/* ---- Between ABT_init and ABT_finalize: ULTs ---- */

typedef struct {
    int failed;   /* cond_waits that failed */
    int ev_value; /* what the eventual carried */
    int results;  /* ABT_SUCCESS from every other wait, counted */
} ult_outcome;

static void waiter_ult(void *arg)
{
    ult_outcome *o = arg;
    o->failed = take_item();
    void *got = NULL;
    if (ABT_eventual_wait(ev, &got) == ABT_SUCCESS && got != NULL) o->ev_value = *(int *)got;
    o->results += ABT_future_wait(fut) == ABT_SUCCESS;
    o->results += ABT_barrier_wait(bar) == ABT_SUCCESS;
    o->results += ABT_xstream_barrier_wait(xbar) == ABT_SUCCESS;
    o->results += ABT_rwlock_wrlock(rw) == ABT_SUCCESS;
    o->results += ABT_rwlock_unlock(rw) == ABT_SUCCESS;
}

static void ults_round(int round)
{
    printf("ULTs, runtime round %d\n", round);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream xs;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &pool), ABT_SUCCESS);
    ult_outcome o = {-1, 0, 0};
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, waiter_ult, &o, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    /* The main ULT is the other side of each object. */
    put_item();
    int v = 7 + round;
    CHECK_INT(ABT_eventual_set(ev, &v, sizeof v), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_rdlock(rw), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(fut, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(fut, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_wait(bar), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(rw), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_wait(xbar), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(o.failed, 0);
    CHECK_INT(o.ev_value, 7 + round);
    CHECK_INT(o.results, 5);
    CHECK_INT(queue, 0);
    CHECK_INT(ABT_eventual_reset(ev), ABT_SUCCESS);
    CHECK_INT(ABT_future_reset(fut), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

int main(void)
{
    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_mutex_attr_create(&recursive_attr), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_set_recursive(recursive_attr, ABT_TRUE), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create_with_attr(recursive_attr, &rec), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&c), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_create(&rw), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_create(sizeof(int), &ev), ABT_SUCCESS);
    CHECK_INT(ABT_future_create(2, NULL, &fut), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_create(2, &bar), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_create(2, &xbar), ABT_SUCCESS);
    ABT_thread_attr attr = (ABT_thread_attr)(uintptr_t)1;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_ERR_UNINITIALIZED);
    CHECK(attr == ABT_THREAD_ATTR_NULL);

    plain_threads_round("before ABT_init");
    ults_round(1);
    plain_threads_round("between ABT_finalize and a second ABT_init");
    ults_round(2);
    plain_threads_round("after the last ABT_finalize");

    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&rec), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_free(&recursive_attr), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&rw), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
    CHECK_INT(ABT_future_free(&fut), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_free(&bar), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_free(&xbar), ABT_SUCCESS);
    CHECK(m == ABT_MUTEX_NULL && c == ABT_COND_NULL && ev == ABT_EVENTUAL_NULL);
    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);
    return check_summary();
}
