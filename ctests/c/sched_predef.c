/* The predefined schedulers behave as named:
 *  - ABT_SCHED_PRIO takes from its first non-empty pool: with a unit queued in its third pool
 *    and one in its first before its stream starts, the first pool's runs first, 20 times of 20;
 *  - ABT_SCHED_RANDWS takes from its own (first) pool first, and otherwise steals from the others
 *    starting at a random one: with its own pool empty and one unit in each of two others, both
 *    come first in some of 200 trials (a fixed order would fail: 2 x 0.5^200 by chance), and a
 *    unit in its own pool always runs before the others;
 *  - ABT_SCHED_BASIC_WAIT sleeps while its pools are empty and runs a unit pushed later.
 * Every wait is bounded. */
#include <stdint.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

static int first_seen; /* the tag of the first unit run in a trial, 0 before */

static void tagged(void *arg)
{
    int tag = (int)(intptr_t)arg;
    int none = 0;
    __atomic_compare_exchange_n(&first_seen, &none, tag, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* One trial: pools of a new predef scheduler; units tagged 1.. queued in pools by `where`
 * (-1 ends), then the stream starts; returns the tag that ran first. */
static int trial(ABT_sched_predef predef, const int *where)
{
    ABT_pool pools[3];
    for (int i = 0; i < 3; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &pools[i]),
                  ABT_SUCCESS);
    }
    first_seen = 0;
    ABT_thread t[3];
    int n = 0;
    for (; where[n] >= 0; n++) {
        CHECK_INT(ABT_thread_create(pools[where[n]], tagged, (void *)(intptr_t)(n + 1),
                                    ABT_THREAD_ATTR_NULL, &t[n]), ABT_SUCCESS);
    }
    ABT_sched sched;
    CHECK_INT(ABT_sched_create_basic(predef, 3, pools, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create(sched, &xs), ABT_SUCCESS);
    for (int i = 0; i < n; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS); /* its scheduler and pools go with it */
    return first_seen;
}

static int late_ran;
static void late(void *arg) { (void)arg; __atomic_store_n(&late_ran, 1, __ATOMIC_RELEASE); }

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);

    /* PRIO: unit 1 in pool 2, unit 2 in pool 0: unit 2 first. */
    static const int prio_where[] = {2, 0, -1};
    int prio_ok = 0;
    for (int i = 0; i < 20; i++) prio_ok += trial(ABT_SCHED_PRIO, prio_where) == 2;
    CHECK_INT(prio_ok, 20);

    /* RANDWS: own pool empty, units in pools 1 and 2: either may come first. */
    static const int steal_where[] = {1, 2, -1};
    int firsts[3] = {0, 0, 0};
    for (int i = 0; i < 200; i++) firsts[trial(ABT_SCHED_RANDWS, steal_where)]++;
    printf("RANDWS first: unit of pool 1 %d times, of pool 2 %d times\n", firsts[1], firsts[2]);
    CHECK(firsts[1] > 0 && firsts[2] > 0);
    CHECK_INT(firsts[1] + firsts[2], 200);
    /* ... but its own pool first. */
    static const int own_where[] = {2, 1, 0, -1};
    int own_ok = 0;
    for (int i = 0; i < 20; i++) own_ok += trial(ABT_SCHED_RANDWS, own_where) == 3;
    CHECK_INT(own_ok, 20);

    /* BASIC_WAIT: asleep while empty, runs what comes later. */
    ABT_xstream xs;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC_WAIT, 0, NULL, ABT_SCHED_CONFIG_NULL, &xs),
              ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &pool), ABT_SUCCESS);
    CHECK(wait_idle_streams(pool, 1)); /* asleep in the pool's waiting pop */
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, late, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(late_ran, 1);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);

    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
