/* The order in which a mutex passes to its waiters, as goabt documents it (abt.h: an unlock
 * wakes the longest waiter: lock_high waiters first, then lock and spinlock waiters in arrival
 * order, then lock_low waiters). Argobots only says priorities "might" be honoured;
 * this is goabt's promise. One stream, so the arrival order is the creation order: the main ULT
 * holds the mutex while ULTs queue with lock_low, lock, lock_high, lock, lock_low, lock_high,
 * then unlocks; the order they got the mutex in is checked, for a dynamic and a static mutex, and
 * again with an external pthread queued (with lock) between them.
 *
 * A woken waiter retakes the mutex itself, and a running caller may take it first (abt.h); the
 * promise that nobody starves is checked against a barger: a ULT on a second stream that holds
 * the mutex for 20 us at a time and relocks it at once, so that a woken waiter never finds it
 * free. A ULT on
 * the primary stream, then an external pthread, must each get the mutex while the barger runs
 * (it gives up after 10 s and the test fails).
 *
 * A ULT calling ABT_mutex_lock on a mutex nobody waits for yields and looks again a few times
 * before it waits in line: that the mutex cannot be freed meanwhile, that it does end up waiting
 * (BLOCKED), and gets the mutex at the unlock, is checked first. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

enum { LOW, NORMAL, HIGH };
#define N 6
static const int kinds[N] = {LOW, NORMAL, HIGH, NORMAL, LOW, HIGH};
/* The expected order of ids: highs by arrival, normals, lows. */
static const int expected[N] = {2, 5, 1, 3, 0, 4};

static ABT_mutex mutex;
static int order[N + 1], got;
static int ids[N + 1];

static void locker(void *arg)
{
    int id = *(int *)arg;
    int k = id < N ? kinds[id] : NORMAL;
    int rc = k == LOW ? ABT_mutex_lock_low(mutex)
           : k == HIGH ? ABT_mutex_lock_high(mutex) : ABT_mutex_lock(mutex);
    CHECK_INT(rc, ABT_SUCCESS);
    order[got++] = id;
    CHECK_INT(ABT_mutex_unlock(mutex), ABT_SUCCESS);
}

static void *external_locker(void *arg)
{
    locker(arg);
    return NULL;
}

/* Whether m is free: trylock takes it (and it is given back). */
static int probe_free(ABT_mutex m)
{
    if (ABT_mutex_trylock(m) != ABT_SUCCESS) return 0;
    return ABT_mutex_unlock(m) == ABT_SUCCESS;
}

static void lone_locker_round(ABT_mutex m, ABT_pool pool)
{
    mutex = m;
    got = 0;
    ids[N] = N; /* a plain ABT_mutex_lock caller */
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, locker, &ids[N], ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    /* Once it has tried (it yields back), the mutex is waited for: not freed, queued or not. */
    CHECK_INT(ABT_thread_yield(), ABT_SUCCESS);
    ABT_mutex copy = m;
    CHECK_INT(ABT_mutex_free(&copy), ABT_ERR_MUTEX);
    CHECK(wait_state(t, ABT_THREAD_STATE_BLOCKED));
    CHECK_INT(got, 0);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(got, 1);
    CHECK_INT(probe_free(m), 1);
}

static void round_with(ABT_mutex m, ABT_pool pool, int with_external)
{
    mutex = m;
    got = 0;
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    ABT_thread t[N];
    pthread_t ext;
    for (int i = 0; i < N; i++) {
        ids[i] = i;
        CHECK_INT(ABT_thread_create(pool, locker, &ids[i], ABT_THREAD_ATTR_NULL, &t[i]), ABT_SUCCESS);
        CHECK(wait_state(t[i], ABT_THREAD_STATE_BLOCKED));
        if (with_external && i == 1) {
            /* A pthread queues with lock between ids 1 and 3: after 1 among the normals. */
            ids[N] = N;
            CHECK_INT(pthread_create(&ext, NULL, external_locker, &ids[N]), 0);
            CHECK(wait_mutex_waiters(m, 3)); /* queued behind ids 0 and 1 */
        }
    }
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    for (int i = 0; i < N; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
    if (with_external) CHECK_INT(pthread_join(ext, NULL), 0);
    CHECK_INT(got, N + (with_external ? 1 : 0));
    int want[N + 1], n = 0;
    for (int i = 0; i < N; i++) {
        want[n++] = expected[i];
        if (with_external && expected[i] == 1) want[n++] = N;
    }
    for (int i = 0; i < n; i++) CHECK_INT(order[i], want[i]);
}

/* ---- Starvation ----------------------------------------------------------------------------- */

static volatile int barger_stop, barger_gave_up;

static void barger(void *arg)
{
    ABT_mutex m = arg;
    double end = ABT_get_wtime() + 10;
    long rounds = 0, errors = 0;
    while (!barger_stop) {
        errors += ABT_mutex_lock(m) != ABT_SUCCESS;
        errors += ABT_thread_yield() != ABT_SUCCESS;
        errors += ABT_mutex_unlock(m) != ABT_SUCCESS;
        if ((++rounds & 1023) == 0 && ABT_get_wtime() > end) {
            barger_gave_up = 1;
            break;
        }
    }
    CHECK_INT(errors, 0);
}

static void starved_waiter(void *arg)
{
    ABT_mutex m = arg;
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    barger_stop = 1;
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
}

static void *starved_thread(void *arg)
{
    starved_waiter(arg);
    return NULL;
}

static void starvation_round(ABT_pool pool, int external)
{
    ABT_mutex m;
    ABT_thread b, w;
    pthread_t t;
    barger_stop = barger_gave_up = 0;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool, barger, m, ABT_THREAD_ATTR_NULL, &b), ABT_SUCCESS);
    if (external) {
        CHECK_INT(pthread_create(&t, NULL, starved_thread, m), 0);
    } else {
        CHECK_INT(ABT_thread_create(pool, starved_waiter, m, ABT_THREAD_ATTR_NULL, &w),
                  ABT_SUCCESS);
    }
    CHECK_INT(ABT_thread_free(&b), ABT_SUCCESS);
    if (external) {
        CHECK_INT(pthread_join(t, NULL), 0);
    } else {
        CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
    }
    if (barger_gave_up) {
        fprintf(stderr, "%s waiter starved: the barger ran 10 s without it getting the mutex\n",
                external ? "an external" : "a ULT");
    }
    CHECK(!barger_gave_up);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    ABT_mutex m;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    lone_locker_round(m, pool);
    round_with(m, pool, 0);
    round_with(m, pool, 1);
    static ABT_mutex_memory mem = ABT_MUTEX_INITIALIZER;
    round_with(ABT_MUTEX_MEMORY_GET_HANDLE(&mem), pool, 0);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    starvation_round(pool, 0);
    starvation_round(pool, 1);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
