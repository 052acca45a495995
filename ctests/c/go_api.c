/* Pools and schedulers written in Go, by name through goabt's own entry points (goabt.h):
 *  - goabt_pool_create_go("ws"): one work-stealing pool shared by 4 streams, each run by a
 *    scheduler of goabt_sched_create_go("deadline") (the primary's set with
 *    ABT_xstream_set_main_sched): 4,000 ULTs that yield and take a contended mutex and 1,000
 *    tasklets, all created by the main ULT into the one pool (so the other streams take them
 *    from the main ULT's queue): exact sum, no lost update; ABT_sched_get_size and the pool's
 *    size while units wait;
 *  - goabt_sched_create_go("deadline") over two Go pools, the first holding a ULT that yields
 *    forever: the second pool's ULT runs within its budget; and with new pools (pools NULL);
 *  - a Go pool in a predefined scheduler (ABT_xstream_create_basic) and with a user-defined
 *    scheduler's pools; pools and schedulers freed by hand and by their streams; a ULT freed
 *    after its Go pool was (it does not touch the pool);
 *  - errors: before ABT_init, NULL and unknown names (a pool's name is no scheduler's and the
 *    other way round), bad access, bad pool counts and handles; outputs set to the null handle.
 */
#include <stdint.h>
#include <stdlib.h>
#include <abt.h>
#include <goabt.h>
#include "check.h"
#include "abt_wait.h"
#include "go_work.h"

#define NSTREAMS 4

static void nothing(void *arg) { (void)arg; }

static void errors_before_init(void)
{
    ABT_pool pool = (ABT_pool)1;
    ABT_sched sched = (ABT_sched)1;
    CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool),
              ABT_ERR_UNINITIALIZED);
    CHECK(pool == ABT_POOL_NULL);
    CHECK_INT(goabt_sched_create_go("deadline", 1, NULL, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_ERR_UNINITIALIZED);
    CHECK(sched == ABT_SCHED_NULL);
}

static void errors(void)
{
    printf("-- errors\n");
    ABT_pool pool = (ABT_pool)1;
    ABT_sched sched = (ABT_sched)1;
    CHECK_INT(goabt_pool_create_go(NULL, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool), ABT_ERR_INV_ARG);
    CHECK(pool == ABT_POOL_NULL);
    pool = (ABT_pool)1;
    CHECK_INT(goabt_pool_create_go("no-such-pool", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool),
              ABT_ERR_INV_ARG);
    CHECK(pool == ABT_POOL_NULL);
    CHECK_INT(goabt_pool_create_go("deadline", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool),
              ABT_ERR_INV_ARG); /* a scheduler's name */
    CHECK_INT(goabt_pool_create_go("ws", (ABT_pool_access)99, ABT_FALSE, &pool),
              ABT_ERR_INV_POOL_ACCESS);
    CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, NULL), ABT_ERR_INV_ARG);

    CHECK_INT(goabt_sched_create_go(NULL, 1, NULL, ABT_SCHED_CONFIG_NULL, &sched), ABT_ERR_INV_ARG);
    CHECK(sched == ABT_SCHED_NULL);
    sched = (ABT_sched)1;
    CHECK_INT(goabt_sched_create_go("no-such-sched", 1, NULL, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_ERR_INV_ARG);
    CHECK(sched == ABT_SCHED_NULL);
    CHECK_INT(goabt_sched_create_go("ws", 1, NULL, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_ERR_INV_ARG); /* a pool's name */
    CHECK_INT(goabt_sched_create_go("deadline", 0, NULL, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_ERR_INV_ARG);
    CHECK_INT(goabt_sched_create_go("deadline", 65, NULL, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_ERR_INV_ARG);
    CHECK_INT(goabt_sched_create_go("deadline", 1, NULL, ABT_SCHED_CONFIG_NULL, NULL),
              ABT_ERR_INV_ARG);
    ABT_pool bad[2] = {ABT_POOL_NULL, (ABT_pool)&bad};
    CHECK_INT(goabt_sched_create_go("deadline", 2, bad, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_ERR_INV_POOL);

    /* A program's pool given to a scheduler that could not be made stays the program's. */
    ABT_pool mine;
    CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_TRUE, &mine), ABT_SUCCESS);
    CHECK_INT(goabt_sched_create_go("no-such-sched", 1, &mine, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_ERR_INV_ARG);
    size_t size = 1;
    CHECK_INT(ABT_pool_get_size(mine, &size), ABT_SUCCESS);
    CHECK_INT(size, 0);
    CHECK_INT(ABT_pool_free(&mine), ABT_SUCCESS);
    CHECK(mine == ABT_POOL_NULL);
}

/* A user-defined scheduler over a Go pool: pops and runs until asked to stop. */
static void user_run(ABT_sched sched)
{
    ABT_pool pool;
    ABT_sched_get_pools(sched, 1, 0, &pool);
    for (unsigned round = 1;; round++) {
        ABT_thread t = ABT_THREAD_NULL;
        ABT_pool_pop_thread(pool, &t);
        if (t != ABT_THREAD_NULL) ABT_self_schedule(t, ABT_POOL_NULL);
        if (round % 16 == 0) {
            ABT_bool stop = ABT_FALSE;
            ABT_sched_has_to_stop(sched, &stop);
            if (stop == ABT_TRUE) break;
        }
    }
}

static ABT_sched_def user_def = {.type = ABT_SCHED_TYPE_ULT, .run = user_run};

int main(void)
{
    errors_before_init();
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    errors();

    /* One work-stealing pool, four deadline schedulers. */
    ABT_pool ws;
    CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &ws), ABT_SUCCESS);
    ABT_sched scheds[NSTREAMS];
    for (int i = 0; i < NSTREAMS; i++) {
        CHECK_INT(goabt_sched_create_go("deadline", 1, &ws, ABT_SCHED_CONFIG_NULL, &scheds[i]),
                  ABT_SUCCESS);
    }
    /* Units wait in the pool until a stream runs it. */
    ABT_thread early;
    CHECK_INT(ABT_thread_create(ws, nothing, NULL, ABT_THREAD_ATTR_NULL, &early), ABT_SUCCESS);
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(ws, &size), ABT_SUCCESS);
    CHECK_INT(size, 1);
    CHECK_INT(ABT_sched_get_size(scheds[2], &size), ABT_SUCCESS);
    CHECK_INT(size, 1);
    ABT_xstream self, xs[NSTREAMS - 1];
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_main_sched(self, scheds[0]), ABT_SUCCESS);
    for (int i = 1; i < NSTREAMS; i++) CHECK_INT(ABT_xstream_create(scheds[i], &xs[i - 1]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&early), ABT_SUCCESS);
    run_work("one Go pool, 4 streams under Go schedulers", &ws, 1);
    for (int i = 0; i < NSTREAMS - 1; i++) CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);

    /* The deadline scheduler over two Go pools: no starvation. */
    printf("-- starvation\n");
    ABT_pool q[2];
    for (int i = 0; i < 2; i++) {
        CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &q[i]), ABT_SUCCESS);
    }
    ABT_sched sched;
    CHECK_INT(goabt_sched_create_go("deadline", 2, q, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(run_starvation(sched, q), 1);
    for (int i = 0; i < 2; i++) CHECK_INT(ABT_pool_free(&q[i]), ABT_SUCCESS);

    /* New pools: pools NULL, and an ABT_POOL_NULL entry. */
    printf("-- new pools\n");
    ABT_pool some[3] = {ABT_POOL_NULL, ws, ABT_POOL_NULL}, got[3];
    CHECK_INT(goabt_sched_create_go("deadline", 3, some, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_sched_get_pools(sched, 3, 0, got), ABT_SUCCESS);
    CHECK(got[0] != ABT_POOL_NULL && got[1] == ws && got[2] != ABT_POOL_NULL && got[0] != got[2]);
    ABT_xstream one;
    CHECK_INT(ABT_xstream_create(sched, &one), ABT_SUCCESS);
    ABT_pool mixed[3] = {got[2], ws, got[0]};
    run_work("a Go scheduler's own pools", mixed, 3);
    CHECK_INT(ABT_xstream_free(&one), ABT_SUCCESS); /* frees the scheduler and its new pools */
    CHECK_INT(goabt_sched_create_go("deadline", 2, NULL, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_sched_free(&sched), ABT_SUCCESS); /* never used: freed by hand */

    /* A Go pool under a predefined scheduler and under a user-defined one. */
    printf("-- other schedulers\n");
    ABT_pool gp[2];
    for (int i = 0; i < 2; i++) {
        CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &gp[i]), ABT_SUCCESS);
    }
    ABT_xstream basic, user;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_PRIO, 1, &gp[0], ABT_SCHED_CONFIG_NULL, &basic),
              ABT_SUCCESS);
    ABT_sched us;
    CHECK_INT(ABT_sched_create(&user_def, 1, &gp[1], ABT_SCHED_CONFIG_NULL, &us), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(us, &user), ABT_SUCCESS);
    run_work("a predefined and a user scheduler", gp, 2);
    CHECK_INT(ABT_xstream_free(&basic), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&user), ABT_SUCCESS);
    CHECK_INT(ABT_sched_free(&us), ABT_SUCCESS);
    for (int i = 0; i < 2; i++) CHECK_INT(ABT_pool_free(&gp[i]), ABT_SUCCESS);

    /* A ULT that outlives its Go pool. */
    ABT_pool lone;
    CHECK_INT(goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &lone), ABT_SUCCESS);
    ABT_xstream x;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &lone, ABT_SCHED_CONFIG_NULL, &x), ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(lone, nothing, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&x), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&lone), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);

    CHECK_INT(ABT_finalize(), ABT_SUCCESS); /* frees the primary's scheduler and ws */
    return check_summary();
}
