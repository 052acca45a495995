/* A deadline outlives the stream that armed it. Streams A and B share pool P, and B has gone to
 * sleep with nothing to wait for. A ULT of P starts a 200 ms timed wait on A (the push wakes A,
 * listed in P ahead of B), which then
 * finishes (ABT_xstream_free: P is shared, so A need not wait for the ULT). B must still wake
 * at the deadline and run the ULT on: it used to sleep on (the safety timeout is off in the
 * tests), found in review. */
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

static ABT_mutex mutex;
static ABT_cond cond;
static int parked, rc = -1, done;

static void timed_waiter(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 200 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    ABT_mutex_lock(mutex);
    __atomic_store_n(&parked, 1, __ATOMIC_RELEASE);
    rc = ABT_cond_timedwait(cond, mutex, &ts);
    ABT_mutex_unlock(mutex);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&cond), ABT_SUCCESS);
    ABT_pool p, a_own;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &p), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &a_own),
              ABT_SUCCESS);
    ABT_xstream a, b;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &p, ABT_SCHED_CONFIG_NULL, &b),
              ABT_SUCCESS);
    CHECK(wait_idle_streams(p, 1)); /* B asleep, with no deadline */
    ABT_pool a_pools[2] = {a_own, p};
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 2, a_pools, ABT_SCHED_CONFIG_NULL, &a),
              ABT_SUCCESS);
    CHECK(wait_idle_streams(p, 2)); /* A asleep too, listed in P ahead of B: the push below wakes A */
    ABT_thread t;
    CHECK_INT(ABT_thread_create(p, timed_waiter, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK(wait_for(&parked, 1));
    CHECK(wait_state(t, ABT_THREAD_STATE_BLOCKED)); /* in its timed wait, armed on A */
    CHECK_INT(ABT_xstream_free(&a), ABT_SUCCESS);
    CHECK(wait_for(&done, 1)); /* B woke at the deadline and ran it on */
    CHECK_INT(rc, ABT_ERR_COND_TIMEDOUT);
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE)) CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&b), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&p), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&a_own), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&cond), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
