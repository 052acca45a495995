/* Stacked schedulers (ABT_pool_add_sched) and units run on top of a ULT (ABT_self_schedule,
 * ABT_xstream_run_unit from a ULT), against Argobots 1.2's documented semantics:
 *  - order: one stream, a main scheduler over one pool; a tasklet, a predefined scheduler holding
 *    N tasklets, a tasklet, another one holding N, a tasklet: they run in exactly that order
 *    (a stacked scheduler runs its whole pool, then control goes back to its parent);
 *  - 3 deep on 4 streams: on each stream a user scheduler (run loop with has_to_stop and
 *    check_events) stacked on the stream's pool, a predefined one stacked on the user one's pool,
 *    and 300 ULTs plus 100 tasklets in the innermost pool. The ULTs yield, lock a mutex shared by
 *    all streams (they block), set work-unit-specific data on themselves and create and join a
 *    ULT of their own (both reach the Go core through the gate from 3 levels up): the checksum
 *    is exact, every stacked scheduler stops once its work is done, user ones are freed by hand
 *    after that (ABT_sched_free refuses them while they run), and init and free run once each;
 *  - a stacked scheduler whose pool holds only a blocked ULT steps aside: on one stream, the
 *    ULT that wakes it sits in the parent's pool; two deep (under a user scheduler that calls
 *    ABT_xstream_check_events, and under a predefined one), its parent steps aside in turn, so
 *    the waker may sit in the stream's pool;
 *  - ABT_sched_exit stops a stacked scheduler with units left; added again, it runs them;
 *  - ABT_self_schedule and ABT_xstream_run_unit from a plain ULT and from the main ULT: the unit
 *    runs on top of the caller, which goes on when it yields or ends (also when the unit yields
 *    into the caller's stream's own pool, empty or not); not from a tasklet;
 *  - bad input: invalid handles, a scheduler in use (main, or added already), ABT_sched_free and
 *    ABT_xstream_create with a stacked scheduler.
 * Run also with every pool a Go pool and every predefined scheduler a Go policy (the variant),
 * so that pushes and pops cross into Go from stacked schedulers' ULTs. Every wait is bounded. */
// ctest-variant: default
// ctest-variant: in_go GOABT_POOL=ws GOABT_SCHED=deadline
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
#define NULTS 300
#define NTASKS 100
#define NORDER 8

static ABT_sched_config not_automatic(void)
{
    ABT_sched_config cfg = ABT_SCHED_CONFIG_NULL;
    CHECK_INT(ABT_sched_config_create(&cfg, ABT_sched_config_automatic, 0,
                                      ABT_sched_config_var_end),
              ABT_SUCCESS);
    return cfg;
}

/* ---- Order ---------------------------------------------------------------------------------- */

static long order_next;
static int order_bad;

static void order_task(void *arg)
{
    long want = (long)(intptr_t)arg;
    if (order_next + 1 != want) order_bad++;
    order_next = want;
}

static void test_order(void)
{
    ABT_xstream self;
    ABT_pool main_pool, sub_pools[2];
    ABT_sched main_sched, subs[2];
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_PRIV, ABT_TRUE, &main_pool),
              ABT_SUCCESS);
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &main_pool, ABT_SCHED_CONFIG_NULL,
                                     &main_sched),
              ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_main_sched(self, main_sched), ABT_SUCCESS);
    ABT_sched_config cfg = not_automatic();
    for (int i = 0; i < 2; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_PRIV, ABT_FALSE,
                                        &sub_pools[i]),
                  ABT_SUCCESS);
        /* The first automatic (freed when it stops), the second freed by hand. */
        CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &sub_pools[i],
                                         i == 0 ? ABT_SCHED_CONFIG_NULL : cfg, &subs[i]),
                  ABT_SUCCESS);
    }
    long n = 0;
    order_next = 0;
    CHECK_INT(ABT_task_create(main_pool, order_task, (void *)(intptr_t)++n, NULL), ABT_SUCCESS);
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < NORDER; i++) {
            CHECK_INT(ABT_task_create(sub_pools[s], order_task, (void *)(intptr_t)++n, NULL),
                      ABT_SUCCESS);
        }
        CHECK_INT(ABT_pool_add_sched(main_pool, subs[s]), ABT_SUCCESS);
        CHECK_INT(ABT_task_create(main_pool, order_task, (void *)(intptr_t)++n, NULL),
                  ABT_SUCCESS);
    }
    /* In use until it stops: not freed, not added again, not a stream's scheduler. */
    CHECK_INT(ABT_sched_free(&subs[1]), ABT_ERR_SCHED);
    CHECK_INT(ABT_pool_add_sched(main_pool, subs[1]), ABT_ERR_INV_SCHED);
    ABT_xstream xs = ABT_XSTREAM_NULL;
    CHECK_INT(ABT_xstream_create(subs[1], &xs), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_thread_yield(), ABT_SUCCESS); /* the main ULT goes after all of them */
    CHECK_INT(order_next, 3 + 2 * NORDER);
    CHECK_INT(order_bad, 0);
    CHECK_INT(free_when_stopped(&subs[1]), ABT_SUCCESS);
    CHECK(subs[1] == ABT_SCHED_NULL);
    CHECK_INT(ABT_pool_free(&sub_pools[0]), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&sub_pools[1]), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_free(&cfg), ABT_SUCCESS);
    /* Back to a default scheduler for what follows. */
    CHECK_INT(ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, 0, NULL), ABT_SUCCESS);
}

/* ---- Three deep on four streams --------------------------------------------------------------- */

static int n_init, n_free;
static long n_user_runs;

static int user_init(ABT_sched sched, ABT_sched_config config)
{
    (void)config;
    __atomic_add_fetch(&n_init, 1, __ATOMIC_RELAXED);
    return ABT_sched_set_data(sched, NULL);
}

static int user_free(ABT_sched sched)
{
    (void)sched;
    __atomic_add_fetch(&n_free, 1, __ATOMIC_RELAXED);
    return ABT_SUCCESS;
}

/* A user scheduler's run, as Argobots' documentation shows it: pop and run, and every 16 rounds
 * check events and whether to stop. */
static void user_run(ABT_sched sched)
{
    ABT_pool pool;
    ABT_sched_get_pools(sched, 1, 0, &pool);
    for (unsigned n = 1;; n++) {
        ABT_thread t = ABT_THREAD_NULL;
        ABT_pool_pop_thread(pool, &t);
        if (t != ABT_THREAD_NULL) {
            __atomic_add_fetch(&n_user_runs, 1, __ATOMIC_RELAXED);
            ABT_self_schedule(t, ABT_POOL_NULL);
        }
        if (n % 16 == 0 || t == ABT_THREAD_NULL) {
            ABT_bool stop = ABT_FALSE;
            ABT_sched_has_to_stop(sched, &stop);
            if (stop) break;
            ABT_xstream_check_events(sched);
        }
    }
}

static ABT_sched_def user_def = {.type = ABT_SCHED_TYPE_ULT, .init = user_init, .run = user_run,
                                 .free = user_free};

static ABT_mutex deep_mutex;
static ABT_key deep_key;
static long deep_sum, deep_locked, deep_children, deep_bad;

static void child_body(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&deep_children, 1, __ATOMIC_RELAXED);
}

static void deep_ult(void *arg)
{
    long v = (long)(intptr_t)arg;
    ABT_self_set_specific(deep_key, arg);
    ABT_thread_yield();
    ABT_mutex_lock(deep_mutex);
    deep_locked++; /* under the mutex: plain */
    ABT_thread_yield(); /* others block on the mutex meanwhile */
    ABT_mutex_unlock(deep_mutex);
    ABT_pool pool;
    ABT_thread child;
    ABT_self_get_last_pool(&pool);
    if (ABT_thread_create(pool, child_body, NULL, ABT_THREAD_ATTR_NULL, &child) == ABT_SUCCESS) {
        ABT_thread_free(&child); /* joins it */
    }
    void *got = NULL;
    ABT_self_get_specific(deep_key, &got);
    if (got != arg) __atomic_add_fetch(&deep_bad, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&deep_sum, v, __ATOMIC_RELAXED);
}

static void deep_task(void *arg)
{
    __atomic_add_fetch(&deep_sum, (long)(intptr_t)arg, __ATOMIC_RELAXED);
}

static void test_three_deep(void)
{
    ABT_xstream streams[NSTREAMS];
    ABT_pool base[NSTREAMS], mid[NSTREAMS], inner[NSTREAMS];
    ABT_sched users[NSTREAMS], predefs[NSTREAMS];
    ABT_thread ults[NSTREAMS][NULTS];
    CHECK_INT(ABT_mutex_create(&deep_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(NULL, &deep_key), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_self(&streams[0]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(streams[0], 1, &base[0]), ABT_SUCCESS);
    for (int i = 1; i < NSTREAMS; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &base[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &base[i], ABT_SCHED_CONFIG_NULL,
                                           &streams[i]),
                  ABT_SUCCESS);
    }
    ABT_sched_config cfg = not_automatic();
    long want = 0;
    for (int i = 0; i < NSTREAMS; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &mid[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &inner[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_sched_create(&user_def, 1, &mid[i], ABT_SCHED_CONFIG_NULL, &users[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &inner[i], cfg, &predefs[i]),
                  ABT_SUCCESS);
        for (int k = 0; k < NULTS; k++) {
            long v = 1 + i * NULTS + k;
            want += v;
            CHECK_INT(ABT_thread_create(inner[i], deep_ult, (void *)(intptr_t)v,
                                        ABT_THREAD_ATTR_NULL, &ults[i][k]),
                      ABT_SUCCESS);
        }
        for (int k = 0; k < NTASKS; k++) {
            want += 7;
            CHECK_INT(ABT_task_create(k % 2 ? inner[i] : mid[i], deep_task, (void *)(intptr_t)7,
                                      NULL),
                      ABT_SUCCESS);
        }
        /* predefs[i] runs in users[i]'s pool, users[i] in the stream's. */
        CHECK_INT(ABT_pool_add_sched(mid[i], predefs[i]), ABT_SUCCESS);
        CHECK_INT(ABT_pool_add_sched(base[i], users[i]), ABT_SUCCESS);
    }
    for (int i = 0; i < NSTREAMS; i++) {
        for (int k = 0; k < NULTS; k++) CHECK_INT(ABT_thread_free(&ults[i][k]), ABT_SUCCESS);
    }
    for (int i = 1; i < NSTREAMS; i++) {
        CHECK_INT(ABT_xstream_join(streams[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&streams[i]), ABT_SUCCESS);
    }
    for (int i = 0; i < NSTREAMS; i++) {
        CHECK_INT(free_when_stopped(&users[i]), ABT_SUCCESS);
        CHECK_INT(free_when_stopped(&predefs[i]), ABT_SUCCESS);
        size_t left = 1;
        CHECK_INT(ABT_pool_get_size(inner[i], &left), ABT_SUCCESS);
        CHECK_INT(left, 0);
        CHECK_INT(ABT_pool_free(&inner[i]), ABT_SUCCESS);
        CHECK_INT(ABT_pool_free(&mid[i]), ABT_SUCCESS);
    }
    CHECK_INT(deep_sum, want);
    CHECK_INT(deep_locked, NSTREAMS * NULTS);
    CHECK_INT(deep_children, NSTREAMS * NULTS);
    CHECK_INT(deep_bad, 0);
    CHECK(n_user_runs >= NSTREAMS * (NTASKS / 2 + 1)); /* its tasklets and the stacked one */
    CHECK_INT(n_init, NSTREAMS);
    CHECK_INT(n_free, NSTREAMS);
    CHECK_INT(ABT_sched_config_free(&cfg), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&deep_key), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&deep_mutex), ABT_SUCCESS);
}

/* ---- Blocked units only: the stacked scheduler steps aside ------------------------------------ */

static ABT_eventual ev;
static int waiter_done;

static void waiter(void *arg)
{
    (void)arg;
    ABT_eventual_wait(ev, NULL);
    __atomic_store_n(&waiter_done, 1, __ATOMIC_RELEASE);
}

static void setter(void *arg)
{
    (void)arg;
    ABT_eventual_set(ev, NULL, 0);
}

static void test_steps_aside(void)
{
    ABT_xstream self;
    ABT_pool main_pool, q;
    ABT_sched sub;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &main_pool), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_create(0, &ev), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &q),
              ABT_SUCCESS);
    ABT_sched_config cfg = not_automatic();
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &q, cfg, &sub), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(q, waiter, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_pool_add_sched(main_pool, sub), ABT_SUCCESS);
    /* Behind the stacked scheduler in the parent's pool: it runs only if that one yields. */
    CHECK_INT(ABT_thread_create(main_pool, setter, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK(wait_for(&waiter_done, 1));
    CHECK_INT(free_when_stopped(&sub), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&q), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_free(&cfg), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
}

/* Two deep: a predefined scheduler stacked on a scheduler that is itself stacked on the stream's
 * pool (a user scheduler calling ABT_xstream_check_events, or a predefined one). The waiter
 * blocks in the innermost pool and the setter sits in the stream's pool, behind the stacked
 * schedulers: the inner one steps aside into the middle one's pool, where the middle one finds
 * it again at once; only if the middle one steps aside in turn does the setter run. */
static ABT_sched_def aside_def = {.type = ABT_SCHED_TYPE_ULT, .run = user_run}; /* no init, free */

static void test_steps_aside_two_deep(int user_middle)
{
    ABT_xstream self;
    ABT_pool main_pool, mid, inner;
    ABT_sched middle, sub;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &main_pool), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_create(0, &ev), ABT_SUCCESS);
    waiter_done = 0;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &mid),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &inner),
              ABT_SUCCESS);
    ABT_sched_config cfg = not_automatic();
    if (user_middle) {
        CHECK_INT(ABT_sched_create(&aside_def, 1, &mid, cfg, &middle), ABT_SUCCESS);
    } else {
        CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &mid, cfg, &middle), ABT_SUCCESS);
    }
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &inner, cfg, &sub), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(inner, waiter, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_pool_add_sched(mid, sub), ABT_SUCCESS);
    CHECK_INT(ABT_pool_add_sched(main_pool, middle), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(main_pool, setter, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK(wait_for(&waiter_done, 1));
    CHECK_INT(free_when_stopped(&middle), ABT_SUCCESS);
    CHECK_INT(free_when_stopped(&sub), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&inner), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&mid), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_free(&cfg), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
}

/* ---- Exit, then added again ------------------------------------------------------------------- */

static ABT_sched exit_sched;
static int exit_ran;

static void exit_ult(void *arg)
{
    int k = (int)(intptr_t)arg;
    __atomic_add_fetch(&exit_ran, 1, __ATOMIC_RELAXED);
    if (k == 4) ABT_sched_exit(exit_sched);
}

static void test_exit_and_again(void)
{
    ABT_xstream self;
    ABT_pool main_pool, q;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &main_pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &q),
              ABT_SUCCESS);
    ABT_sched_config cfg = not_automatic();
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &q, cfg, &exit_sched), ABT_SUCCESS);
    for (int k = 0; k < 10; k++) {
        CHECK_INT(ABT_thread_create(q, exit_ult, (void *)(intptr_t)k, ABT_THREAD_ATTR_NULL, NULL),
                  ABT_SUCCESS);
    }
    CHECK_INT(ABT_pool_add_sched(main_pool, exit_sched), ABT_SUCCESS);
    /* Added again as soon as it has stopped (refused while it runs). */
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    int rc;
    while ((rc = ABT_pool_add_sched(main_pool, exit_sched)) == ABT_ERR_INV_SCHED &&
           ABT_get_wtime() < end) {
        ABT_thread_yield();
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(exit_ran, 5); /* one stream: it stopped right after the fifth, 5 units left */
    int all = 10;
    CHECK(wait_for(&exit_ran, all));
    CHECK_INT(free_when_stopped(&exit_sched), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&q), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_free(&cfg), ABT_SUCCESS);
}

/* ---- Units run on top of a ULT ----------------------------------------------------------------- */

static int child_steps;

static void stepping_child(void *arg)
{
    (void)arg;
    child_steps = 1;
    ABT_thread_yield(); /* back to the caller of ABT_self_schedule */
    child_steps = 2;
}

static int tasklet_rc;
static void tasklet_tries(void *arg)
{
    tasklet_rc = ABT_self_schedule((ABT_thread)arg, ABT_POOL_NULL);
}

/* Runs a ULT twice on top of the caller (it yields in between), and a tasklet with
 * ABT_xstream_run_unit; a pool nobody serves holds them in between. */
static void run_on_top(void *arg)
{
    (void)arg;
    ABT_pool nobody;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &nobody),
              ABT_SUCCESS);
    ABT_thread t, got = ABT_THREAD_NULL;
    ABT_thread_state state;
    child_steps = 0;
    CHECK_INT(ABT_thread_create(nobody, stepping_child, NULL, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    CHECK_INT(ABT_self_schedule(t, ABT_POOL_NULL), ABT_ERR_INV_UNIT); /* still in the pool */
    CHECK_INT(ABT_pool_pop_thread(nobody, &got), ABT_SUCCESS);
    CHECK(got == t);
    CHECK_INT(ABT_self_schedule(t, ABT_POOL_NULL), ABT_SUCCESS);
    CHECK_INT(child_steps, 1);
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(nobody, &size), ABT_SUCCESS);
    CHECK_INT(size, 1); /* it yielded back into its pool */
    CHECK_INT(ABT_thread_get_state(t, &state), ABT_SUCCESS);
    CHECK_INT(state, ABT_THREAD_STATE_READY);
    ABT_unit unit = ABT_UNIT_NULL;
    CHECK_INT(ABT_pool_pop(nobody, &unit), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_run_unit(unit, nobody), ABT_SUCCESS);
    CHECK_INT(child_steps, 2);
    CHECK_INT(ABT_thread_get_state(t, &state), ABT_SUCCESS);
    CHECK_INT(state, ABT_THREAD_STATE_TERMINATED);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    /* A tasklet may not run another unit. */
    ABT_thread victim;
    ABT_task task;
    CHECK_INT(ABT_thread_create(nobody, stepping_child, NULL, ABT_THREAD_ATTR_NULL, &victim),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(nobody, &got), ABT_SUCCESS);
    tasklet_rc = -1;
    CHECK_INT(ABT_task_create(nobody, tasklet_tries, victim, &task), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(nobody, &got), ABT_SUCCESS);
    CHECK(got == (ABT_thread)task);
    CHECK_INT(ABT_self_schedule(got, ABT_POOL_NULL), ABT_SUCCESS); /* the tasklet, on top */
    CHECK_INT(tasklet_rc, ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_task_free(&task), ABT_SUCCESS);
    CHECK_INT(ABT_self_schedule(victim, ABT_POOL_NULL), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(nobody, &got), ABT_SUCCESS);
    CHECK_INT(ABT_self_schedule(victim, ABT_POOL_NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&victim), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&nobody), ABT_SUCCESS);
}

/* A ULT stepping and yielding until told to stop. */
static volatile int loopers_stop;
static void looper(void *arg)
{
    volatile int *steps = arg;
    while (!loopers_stop) {
        (*steps)++;
        ABT_thread_yield();
    }
}

static void take_out(ABT_pool pool, ABT_thread t)
{
    ABT_unit unit = ABT_UNIT_NULL;
    CHECK_INT(ABT_thread_get_unit(t, &unit), ABT_SUCCESS);
    CHECK_INT(ABT_pool_remove(pool, unit), ABT_SUCCESS);
}

/* The unit run on top goes back to the caller's own stream's pool when it yields: the caller
 * goes on all the same, whether that pool is empty then or holds another ULT, which does not
 * run before the caller. */
static void run_on_top_own_pool(void)
{
    static volatile int looper_steps, other_steps;
    ABT_xstream self;
    ABT_pool own;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &own), ABT_SUCCESS);
    loopers_stop = 0;
    looper_steps = other_steps = 0;
    ABT_thread l, o;
    CHECK_INT(ABT_thread_create(own, looper, (void *)&looper_steps, ABT_THREAD_ATTR_NULL, &l),
              ABT_SUCCESS);
    take_out(own, l);
    CHECK_INT(ABT_self_schedule(l, ABT_POOL_NULL), ABT_SUCCESS);
    CHECK_INT(looper_steps, 1); /* back at its first yield, its pool empty */
    CHECK_INT(ABT_thread_create(own, looper, (void *)&other_steps, ABT_THREAD_ATTR_NULL, &o),
              ABT_SUCCESS);
    take_out(own, l);
    CHECK_INT(ABT_self_schedule(l, ABT_POOL_NULL), ABT_SUCCESS);
    CHECK_INT(looper_steps, 2);
    CHECK_INT(other_steps, 0); /* not handed the stream at the child's yield */
    loopers_stop = 1;
    CHECK_INT(ABT_thread_free(&l), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&o), ABT_SUCCESS);
}

static int from_ult_done;
static void run_on_top_ult(void *arg)
{
    run_on_top(arg);
    run_on_top_own_pool();
    from_ult_done = 1;
}

static void test_run_on_top(void)
{
    run_on_top(NULL); /* the main ULT */
    run_on_top_own_pool();
    ABT_xstream xs;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &pool), ABT_SUCCESS);
    /* Its checks print: room for them under AddressSanitizer too. */
    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_stacksize(attr, 256 * 1024), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool, run_on_top_ult, NULL, attr, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(from_ult_done, 1);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
}

/* ---- Bad input -------------------------------------------------------------------------------- */

static void test_bad_input(void)
{
    ABT_xstream self;
    ABT_pool pool;
    ABT_sched main_sched, sched;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_sched(self, &main_sched), ABT_SUCCESS);
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_add_sched(ABT_POOL_NULL, sched), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_add_sched(pool, ABT_SCHED_NULL), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_pool_add_sched(pool, main_sched), ABT_ERR_INV_SCHED); /* a stream's */
    CHECK_INT(ABT_sched_free(&sched), ABT_SUCCESS);
    CHECK_INT(ABT_pool_add_sched(pool, sched), ABT_ERR_INV_SCHED); /* freed: NULL now */
}

int main(void)
{
    /* A scheduler that never steps aside keeps the main ULT from its bounded waits: the alarm
     * ends such a hang. */
    alarm(60 * CTEST_SLOW);
    CHECK_INT(ABT_pool_add_sched(ABT_POOL_NULL, ABT_SCHED_NULL), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    test_order();
    test_three_deep();
    test_steps_aside();
    test_steps_aside_two_deep(1);
    test_steps_aside_two_deep(0);
    test_exit_and_again();
    test_run_on_top();
    test_bad_input();
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
