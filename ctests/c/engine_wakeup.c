/* Exact wake-ups between idle streams that share a pool. Stream T serves pool P; stream S
 * serves Q then P, and sleeps listed in both. A unit pushed to Q wakes S; a unit pushed to P
 * right after must wake T, not S again (S is awake and still listed in P until it takes itself
 * off): S runs the Q unit, which waits for the P unit, so if T is not woken nobody runs it
 * (the safety timeout is off in the tests: it would be a hang, found in review). Five rounds,
 * with both streams asleep before each. */
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

static int flag, seen;

static void waits_for_flag(void *arg)
{
    (void)arg;
    double end = ABT_get_wtime() + 10.0;
    while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE) && ABT_get_wtime() < end) {
    }
    __atomic_store_n(&seen, __atomic_load_n(&flag, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
}

static void sets_flag(void *arg)
{
    (void)arg;
    __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_pool q, p;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &q), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &p), ABT_SUCCESS);
    ABT_xstream t, s;
    ABT_pool both[2] = {q, p};
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &p, ABT_SCHED_CONFIG_NULL, &t),
              ABT_SUCCESS);
    CHECK(wait_idle_streams(p, 1)); /* T asleep on P */
    /* Created second, S is listed first in P's sleepers. */
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 2, both, ABT_SCHED_CONFIG_NULL, &s),
              ABT_SUCCESS);
    for (int round = 0; round < 5; round++) {
        CHECK(wait_idle_streams(p, 2) && wait_idle_streams(q, 1)); /* both streams asleep */
        __atomic_store_n(&flag, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&seen, 0, __ATOMIC_RELEASE);
        ABT_thread a, b;
        CHECK_INT(ABT_thread_create(q, waits_for_flag, NULL, ABT_THREAD_ATTR_NULL, &a),
                  ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(p, sets_flag, NULL, ABT_THREAD_ATTR_NULL, &b), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&a), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&b), ABT_SUCCESS);
        CHECK_INT(__atomic_load_n(&seen, __ATOMIC_ACQUIRE), 1);
    }
    CHECK_INT(ABT_xstream_free(&s), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
