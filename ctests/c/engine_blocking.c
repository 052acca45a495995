/* The engine's blocking core (park and ready) as joins use it:
 *  - set_main_sched regression: a ULT parked in a join on a secondary stream whose scheduler is
 *    then replaced (its automatic pool goes with the old scheduler) runs again when the join
 *    target ends: it is forwarded to the new scheduler's pool instead of being pushed into the
 *    freed one (it never ran again before);
 *  - the same with units queued in the pool that goes: they move to the new scheduler's pool,
 *    out of the old queue's links, and run;
 *  - several joiners of one ULT at once: two ULTs on the target's own stream (queued ahead of
 *    it), a ULT on another stream, an external pthread and the main ULT all return, and none
 *    spins its stream meanwhile (the stream's other work runs);
 *  - the main ULT joining a ULT or freeing a stream parks: another ULT sees it BLOCKED, and the
 *    primary keeps running other ULTs meanwhile;
 *  - a joiner is counted as parked: ABT_pool_get_total_size counts it, get_size does not.
 * The tests run with the safety timeout off: a lost wake-up hangs and fails. */
#include <pthread.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

static ABT_xstream streams[3];
static ABT_pool pools[3];

/* ---- set_main_sched while a ULT is parked in a join ----------------------------------------
 * The parked ULT keeps the old pool alive (retired, forwarding to the new scheduler's pool). Units
 * queued there when it goes move to the new pool one by one, each out of the old queue's links
 * (the checked build's push asserts it; the release build's push writes a link only when it
 * changes, so a stale one would stay). */

static int release_target, joiner_done, replaced, queued_ran;

static void target_waits(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&release_target, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

static void joiner(void *arg)
{
    ABT_thread t = arg;
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    __atomic_store_n(&joiner_done, 1, __ATOMIC_RELEASE);
}

static void queued_unit(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&queued_ran, 1, __ATOMIC_ACQ_REL);
}

struct replacement {
    ABT_pool new_pool;
    int queued; /* units to leave queued behind the replacer */
};

static void replacer(void *arg)
{
    struct replacement *r = arg;
    ABT_pool own;
    CHECK_INT(ABT_self_get_last_pool(&own), ABT_SUCCESS);
    /* Queued behind this ULT, which does not yield: still queued when the pool goes. */
    for (int i = 0; i < r->queued; i++) {
        CHECK_INT(ABT_thread_create(own, queued_unit, NULL, ABT_THREAD_ATTR_NULL, NULL),
                  ABT_SUCCESS);
    }
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(own, &size), ABT_SUCCESS);
    CHECK_INT((int)size, r->queued);
    CHECK_INT(ABT_xstream_set_main_sched_basic(streams[1], ABT_SCHED_BASIC, 1, &r->new_pool),
              ABT_SUCCESS);
    __atomic_store_n(&replaced, 1, __ATOMIC_RELEASE);
}

static void test_set_main_sched_with_parked_joiner(int queued)
{
    printf("-- set_main_sched, a joiner parked, %d units queued\n", queued);
    release_target = joiner_done = replaced = queued_ran = 0;
    ABT_thread target, j, r;
    /* The target runs on stream 2, the joiner parks on stream 1's automatic pool. */
    CHECK_INT(ABT_thread_create(pools[2], target_waits, NULL, ABT_THREAD_ATTR_NULL, &target),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[1], joiner, target, ABT_THREAD_ATTR_NULL, &j), ABT_SUCCESS);
    CHECK(wait_state(j, ABT_THREAD_STATE_BLOCKED));
    struct replacement rep = {ABT_POOL_NULL, queued};
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &rep.new_pool),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[1], replacer, &rep, ABT_THREAD_ATTR_NULL, &r), ABT_SUCCESS);
    CHECK(wait_for(&replaced, 1));
    CHECK(wait_for(&queued_ran, queued)); /* every queued unit ran, on the new scheduler */
    __atomic_store_n(&release_target, 1, __ATOMIC_RELEASE);
    CHECK(wait_for(&joiner_done, 1)); /* the joiner ran again, on the new scheduler */
    CHECK_INT(ABT_thread_free(&j), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&r), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&target), ABT_SUCCESS);
    /* Stream 1 now serves the new pool, which holds nothing. */
    CHECK_INT(ABT_xstream_get_main_pools(streams[1], 1, &pools[1]), ABT_SUCCESS);
    CHECK(pools[1] == rep.new_pool);
    size_t size = 1;
    CHECK_INT(ABT_pool_get_size(rep.new_pool, &size), ABT_SUCCESS);
    CHECK_INT((int)size, 0);
}

/* ---- Many joiners of one ULT ---------------------------------------------------------------- */

static int release_many, joins_done, side_work;

static void slow_target(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&release_many, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

static void counting_joiner(void *arg)
{
    CHECK_INT(ABT_thread_join((ABT_thread)arg), ABT_SUCCESS);
    __atomic_add_fetch(&joins_done, 1, __ATOMIC_RELEASE);
}

static void side(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&side_work, 1, __ATOMIC_RELEASE);
}

static void *external_joiner(void *arg)
{
    CHECK_INT(ABT_thread_join((ABT_thread)arg), ABT_SUCCESS);
    __atomic_add_fetch(&joins_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_many_joiners(void)
{
    ABT_thread j[3], t;
    /* Two joiners queued on stream 1 before the target itself. */
    CHECK_INT(ABT_thread_create(pools[1], slow_target, NULL, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[1], counting_joiner, t, ABT_THREAD_ATTR_NULL, &j[0]),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[1], counting_joiner, t, ABT_THREAD_ATTR_NULL, &j[1]),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[2], counting_joiner, t, ABT_THREAD_ATTR_NULL, &j[2]),
              ABT_SUCCESS);
    pthread_t ext;
    CHECK_INT(pthread_create(&ext, NULL, external_joiner, t), 0);
    /* While they wait, stream 1 still runs other work: no joiner spins it. */
    ABT_thread s[8];
    for (int i = 0; i < 8; i++) {
        CHECK_INT(ABT_thread_create(pools[1], side, NULL, ABT_THREAD_ATTR_NULL, &s[i]), ABT_SUCCESS);
    }
    CHECK(wait_for(&side_work, 8));
    CHECK_INT(__atomic_load_n(&joins_done, __ATOMIC_ACQUIRE), 0);
    size_t total = 0, queued = 0;
    for (double end = ABT_get_wtime() + 10; ABT_get_wtime() < end && total < 2; ABT_thread_yield()) {
        ABT_pool_get_total_size(pools[1], &total);
    }
    ABT_pool_get_size(pools[1], &queued);
    CHECK(total >= 2); /* the two parked joiners (and the target, queued or running) */
    CHECK(queued <= 1);
    __atomic_store_n(&release_many, 1, __ATOMIC_RELEASE);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS); /* the main ULT is a joiner too */
    CHECK_INT(pthread_join(ext, NULL), 0);
    CHECK(wait_for(&joins_done, 4));
    for (int i = 0; i < 3; i++) CHECK_INT(ABT_thread_free(&j[i]), ABT_SUCCESS);
    for (int i = 0; i < 8; i++) CHECK_INT(ABT_thread_free(&s[i]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
}

/* ---- The main ULT parks in joins ------------------------------------------------------------ */

static ABT_thread main_ult;
static int release_watched, saw_main_blocked, primary_work;

static void watcher(void *arg)
{
    (void)arg;
    /* Runs on the primary while the main ULT waits: it can only run if the main ULT let the
     * primary go, and it must find it BLOCKED, not READY (a yield loop would leave it READY). */
    ABT_thread_state st;
    CHECK_INT(ABT_thread_get_state(main_ult, &st), ABT_SUCCESS);
    if (st == ABT_THREAD_STATE_BLOCKED) __atomic_store_n(&saw_main_blocked, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&release_watched, 1, __ATOMIC_RELEASE);
}

static void watched(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&release_watched, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

static void primary_side(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&primary_work, 1, __ATOMIC_RELEASE);
}

static void test_main_parks(void)
{
    CHECK_INT(ABT_thread_self(&main_ult), ABT_SUCCESS);
    ABT_thread w, t;
    CHECK_INT(ABT_thread_create(pools[2], watched, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[0], watcher, NULL, ABT_THREAD_ATTR_NULL, &w), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(__atomic_load_n(&saw_main_blocked, __ATOMIC_ACQUIRE), 1);
    CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);

    /* Freeing a stream: the stream still has work queued; the primary runs its own meanwhile. */
    __atomic_store_n(&release_watched, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&saw_main_blocked, 0, __ATOMIC_RELEASE);
    CHECK_INT(ABT_thread_create(pools[2], watched, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[0], watcher, NULL, ABT_THREAD_ATTR_NULL, &w), ABT_SUCCESS);
    for (int i = 0; i < 4; i++) {
        CHECK_INT(ABT_thread_create(pools[0], primary_side, NULL, ABT_THREAD_ATTR_NULL, NULL),
                  ABT_SUCCESS);
    }
    CHECK_INT(ABT_xstream_free(&streams[2]), ABT_SUCCESS);
    CHECK_INT(__atomic_load_n(&saw_main_blocked, __ATOMIC_ACQUIRE), 1);
    CHECK_INT(__atomic_load_n(&primary_work, __ATOMIC_ACQUIRE), 4);
    CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(start_streams(3, streams, pools), ABT_SUCCESS);
    test_set_main_sched_with_parked_joiner(0);
    test_set_main_sched_with_parked_joiner(3);
    test_many_joiners();
    test_main_parks();
    CHECK_INT(ABT_xstream_free(&streams[1]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
