/* Execution streams (ABT_xstream_*): create/join/free with ABT_SCHED_NULL and work run on each;
 * create_with_rank (ranks n-1..1, a taken rank and a negative one refused with
 * ABT_ERR_INV_XSTREAM_RANK); get_rank, set_rank (free, taken, negative, current, primary) and
 * self_rank; get_num (primary included, decreasing on free); is_primary; equal; xstream_self;
 * get_state RUNNING, then TERMINATED after join; get_main_pools and get_main_sched; create_basic
 * with user pools and with pools NULL (BASIC: 1 pool, PRIO: 3); a scheduler already in use
 * refused; join and free of the primary, of the caller's own stream and of ABT_XSTREAM_NULL
 * refused; xstream_free setting the handle to ABT_XSTREAM_NULL and refusing a second free;
 * streams created and freed from a ULT on another stream; freeing a stream whose ULT waits for
 * the primary pool; a join meeting the stream's end half done, from the main ULT and from a
 * pthread; 8 streams on 2 cores; CPU affinity with ABT_SET_AFFINITY=yes (each stream bound to the rank-th CPU
 * the process may use, modulo their number, rebound by set_rank; the main thread's CPUs given
 * back at finalize; =no, and the default, bind nothing). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <abt.h>
#include "check.h"

/* ---- Units -------------------------------------------------------------------------------- */

static int counter;

static void add_arg(void *arg)
{
    __atomic_add_fetch(&counter, (int)(intptr_t)arg, __ATOMIC_RELAXED);
}

/* What a ULT saw of its stream. */
struct seen {
    int rank_rc, rank;
    ABT_xstream self;
    int join_self_rc, free_self_rc, free_primary_rc, join_primary_rc;
};

static ABT_xstream primary_xs;

static void look_around(void *arg)
{
    struct seen *w = arg;
    w->rank_rc = ABT_xstream_self_rank(&w->rank);
    ABT_xstream_self(&w->self);
    w->join_self_rc = ABT_xstream_join(w->self);
    ABT_xstream me = w->self;
    w->free_self_rc = ABT_xstream_free(&me);
    /* From a secondary stream, the primary is not the caller's own stream: still refused. */
    ABT_xstream p = primary_xs;
    w->free_primary_rc = ABT_xstream_free(&p);
    w->join_primary_rc = ABT_xstream_join(primary_xs);
}

/* Creates two streams, runs a ULT on each, frees them: all from a ULT. */
static int nested_ok;
static void streams_from_ult(void *arg)
{
    (void)arg;
    ABT_xstream xs[2];
    ABT_thread t[2];
    int ok = 1;
    for (int i = 0; i < 2; i++) ok &= ABT_xstream_create(ABT_SCHED_NULL, &xs[i]) == ABT_SUCCESS;
    if (!ok) return;
    for (int i = 0; i < 2; i++) {
        ok &= ABT_thread_create_on_xstream(xs[i], add_arg, (void *)(intptr_t)1000,
                                           ABT_THREAD_ATTR_NULL, &t[i]) == ABT_SUCCESS;
    }
    for (int i = 0; i < 2; i++) ok &= ABT_thread_free(&t[i]) == ABT_SUCCESS;
    for (int i = 0; i < 2; i++) ok &= ABT_xstream_free(&xs[i]) == ABT_SUCCESS;
    ok &= xs[0] == ABT_XSTREAM_NULL && xs[1] == ABT_XSTREAM_NULL;
    nested_ok = ok;
}

/* Runs on a secondary stream and joins a ULT it queued in the primary pool: freeing that stream
 * from the main ULT must keep the primary stream running its pool meanwhile. */
static ABT_pool primary_pool_g;
static int cross_ok;
static void join_on_primary(void *arg)
{
    (void)arg;
    ABT_thread t;
    int before = __atomic_load_n(&counter, __ATOMIC_ACQUIRE);
    int ok = ABT_thread_create(primary_pool_g, add_arg, (void *)(intptr_t)5, ABT_THREAD_ATTR_NULL, &t) == ABT_SUCCESS;
    ok = ok && ABT_thread_free(&t) == ABT_SUCCESS;
    cross_ok = ok && __atomic_load_n(&counter, __ATOMIC_ACQUIRE) == before + 5;
}

/* Joins and frees streams just created, counting those not TERMINATED once joined. */
#define JOINS 50
static void *join_fresh_streams(void *arg)
{
    int *not_terminated = arg;
    for (int i = 0; i < JOINS; i++) {
        ABT_xstream xs;
        ABT_xstream_state st = ABT_XSTREAM_STATE_RUNNING;
        if (ABT_xstream_create(ABT_SCHED_NULL, &xs) != ABT_SUCCESS ||
            ABT_xstream_join(xs) != ABT_SUCCESS || ABT_xstream_get_state(xs, &st) != ABT_SUCCESS ||
            ABT_xstream_free(&xs) != ABT_SUCCESS || st != ABT_XSTREAM_STATE_TERMINATED) {
            (*not_terminated)++;
        }
    }
    return NULL;
}

static void get_last_stream(void *arg)
{
    ABT_self_get_xstream((ABT_xstream *)arg);
}

/* ---- Affinity ---------------------------------------------------------------------------- */

static cpu_set_t initial_cpus;

/* The CPU Argobots' default affinity gives a rank: the (rank mod n)-th allowed CPU. */
static int cpu_for_rank(int rank)
{
    int n = CPU_COUNT(&initial_cpus), want = rank % n;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &initial_cpus) && seen++ == want) return cpu;
    }
    return -1;
}

static void record_affinity(void *arg)
{
    cpu_set_t *set = arg;
    CPU_ZERO(set);
    pthread_getaffinity_np(pthread_self(), sizeof *set, set);
}

/* The CPUs the threads of a stream may run on, seen by a ULT running there. */
static cpu_set_t stream_cpus(ABT_xstream xs)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    ABT_thread t;
    if (ABT_thread_create_on_xstream(xs, record_affinity, &set, ABT_THREAD_ATTR_NULL, &t) == ABT_SUCCESS) {
        ABT_thread_free(&t);
    }
    return set;
}

static int bound_to(cpu_set_t set, int cpu) { return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set); }

static void test_affinity(void)
{
    CHECK_INT(setenv("ABT_SET_AFFINITY", "yes", 1), 0);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream primary, xs[5];
    CHECK_INT(ABT_xstream_self(&primary), ABT_SUCCESS);
    cpu_set_t now;
    pthread_getaffinity_np(pthread_self(), sizeof now, &now);
    CHECK(bound_to(now, cpu_for_rank(0)));
    int bound = 1;
    for (int r = 1; r <= 4; r++) {
        CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, r, &xs[r]), ABT_SUCCESS);
        bound &= bound_to(stream_cpus(xs[r]), cpu_for_rank(r));
    }
    CHECK(bound);
    /* A new rank, a new CPU. */
    CHECK_INT(ABT_xstream_set_rank(xs[1], 6), ABT_SUCCESS);
    CHECK(bound_to(stream_cpus(xs[1]), cpu_for_rank(6)));
    CHECK_INT(ABT_xstream_set_rank(xs[1], 5), ABT_SUCCESS);
    CHECK(bound_to(stream_cpus(xs[1]), cpu_for_rank(5)));
    for (int r = 1; r <= 4; r++) CHECK_INT(ABT_xstream_free(&xs[r]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    pthread_getaffinity_np(pthread_self(), sizeof now, &now);
    CHECK(CPU_EQUAL(&now, &initial_cpus)); /* the main thread gets its CPUs back */

    /* ABT_SET_AFFINITY=no: nothing is bound. */
    CHECK_INT(setenv("ABT_SET_AFFINITY", "no", 1), 0);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    pthread_getaffinity_np(pthread_self(), sizeof now, &now);
    CHECK(CPU_EQUAL(&now, &initial_cpus));
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 1, &xs[1]), ABT_SUCCESS);
    now = stream_cpus(xs[1]);
    CHECK(CPU_EQUAL(&now, &initial_cpus));
    CHECK_INT(ABT_xstream_free(&xs[1]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    unsetenv("ABT_SET_AFFINITY");

    /* By default goabt binds nothing (Argobots does; see core/config.go for why goabt does not). */
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    pthread_getaffinity_np(pthread_self(), sizeof now, &now);
    CHECK(CPU_EQUAL(&now, &initial_cpus));
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 1, &xs[1]), ABT_SUCCESS);
    now = stream_cpus(xs[1]);
    CHECK(CPU_EQUAL(&now, &initial_cpus));
    ABT_bool enabled = ABT_TRUE;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_AFFINITY, &enabled), ABT_SUCCESS);
    CHECK_INT(enabled, ABT_FALSE);
    CHECK_INT(ABT_xstream_free(&xs[1]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

int main(void)
{
    unsetenv("ABT_SET_AFFINITY"); /* the checks choose the affinity setting themselves */
    unsetenv("ABT_ENV_SET_AFFINITY");
    pthread_getaffinity_np(pthread_self(), sizeof initial_cpus, &initial_cpus);
    printf("# %d CPUs allowed\n", CPU_COUNT(&initial_cpus));
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream primary = ABT_XSTREAM_NULL;
    CHECK_INT(ABT_xstream_self(&primary), ABT_SUCCESS);
    CHECK(primary != ABT_XSTREAM_NULL);
    primary_xs = primary;
    int n = -1, rank = -1;
    CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
    CHECK_INT(n, 1);
    CHECK_INT(ABT_xstream_get_rank(primary, &rank), ABT_SUCCESS);
    CHECK_INT(rank, 0);
    ABT_bool b = ABT_FALSE;
    CHECK_INT(ABT_xstream_is_primary(primary, &b), ABT_SUCCESS);
    CHECK_INT(b, ABT_TRUE);
    ABT_xstream_state st = ABT_XSTREAM_STATE_TERMINATED;
    CHECK_INT(ABT_xstream_get_state(primary, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_XSTREAM_STATE_RUNNING);

    /* Create, use, join, free four streams with default schedulers. */
    enum { N = 4 };
    ABT_xstream xs[N];
    int create_rc = 0;
    for (int i = 0; i < N; i++) create_rc |= ABT_xstream_create(ABT_SCHED_NULL, &xs[i]);
    CHECK_INT(create_rc, ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
    CHECK_INT(n, N + 1);
    int ranks_ok = 1, primary_flags_ok = 1, states_ok = 1;
    for (int i = 0; i < N; i++) {
        ranks_ok &= ABT_xstream_get_rank(xs[i], &rank) == ABT_SUCCESS && rank == i + 1;
        primary_flags_ok &= ABT_xstream_is_primary(xs[i], &b) == ABT_SUCCESS && b == ABT_FALSE;
        states_ok &= ABT_xstream_get_state(xs[i], &st) == ABT_SUCCESS && st == ABT_XSTREAM_STATE_RUNNING;
    }
    CHECK(ranks_ok);       /* the lowest free ranks: 1..N */
    CHECK(primary_flags_ok);
    CHECK(states_ok);
    CHECK_INT(ABT_xstream_equal(xs[0], xs[0], &b), ABT_SUCCESS);
    CHECK_INT(b, ABT_TRUE);
    CHECK_INT(ABT_xstream_equal(xs[0], xs[1], &b), ABT_SUCCESS);
    CHECK_INT(b, ABT_FALSE);
    CHECK_INT(ABT_xstream_equal(ABT_XSTREAM_NULL, ABT_XSTREAM_NULL, &b), ABT_SUCCESS);
    CHECK_INT(b, ABT_TRUE);

    /* A ULT on each stream sees that stream and its rank; joining or freeing its own stream is
     * refused. */
    struct seen seen[N];
    ABT_thread t[N];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < N; i++) {
        create_rc |= ABT_thread_create_on_xstream(xs[i], look_around, &seen[i], ABT_THREAD_ATTR_NULL, &t[i]);
    }
    CHECK_INT(create_rc, ABT_SUCCESS);
    for (int i = 0; i < N; i++) ABT_thread_free(&t[i]);
    int seen_ok = 1, refusals_ok = 1;
    for (int i = 0; i < N; i++) {
        seen_ok &= seen[i].rank_rc == ABT_SUCCESS && seen[i].rank == i + 1 && seen[i].self == xs[i];
        refusals_ok &= seen[i].join_self_rc == ABT_ERR_INV_XSTREAM &&
                       seen[i].free_self_rc == ABT_ERR_INV_XSTREAM &&
                       seen[i].free_primary_rc == ABT_ERR_INV_XSTREAM &&
                       seen[i].join_primary_rc == ABT_ERR_INV_XSTREAM;
    }
    CHECK(seen_ok);
    CHECK(refusals_ok);

    /* Work on every stream's main pool runs on that stream. */
    counter = 0;
    int where_ok = 1;
    for (int i = 0; i < N; i++) {
        ABT_pool pool = ABT_POOL_NULL;
        ABT_xstream where = ABT_XSTREAM_NULL, last = ABT_XSTREAM_NULL;
        ABT_thread u;
        where_ok &= ABT_xstream_get_main_pools(xs[i], 1, &pool) == ABT_SUCCESS;
        where_ok &= ABT_thread_create(pool, get_last_stream, &where, ABT_THREAD_ATTR_NULL, &u) == ABT_SUCCESS;
        where_ok &= ABT_thread_join(u) == ABT_SUCCESS;
        where_ok &= ABT_thread_get_last_xstream(u, &last) == ABT_SUCCESS;
        where_ok &= ABT_thread_free(&u) == ABT_SUCCESS;
        where_ok &= where == xs[i] && last == xs[i];
        for (int k = 0; k < 100; k++) {
            where_ok &= ABT_thread_create(pool, add_arg, (void *)(intptr_t)1, ABT_THREAD_ATTR_NULL, NULL) == ABT_SUCCESS;
        }
    }
    CHECK(where_ok);

    /* get_main_pools copies min(num_pools, max_pools) handles and leaves the rest alone. */
    ABT_pool pools[3] = {ABT_POOL_NULL, ABT_POOL_NULL, ABT_POOL_NULL};
    CHECK_INT(ABT_xstream_get_main_pools(xs[0], 3, pools), ABT_SUCCESS);
    CHECK(pools[0] != ABT_POOL_NULL);
    CHECK(pools[1] == ABT_POOL_NULL && pools[2] == ABT_POOL_NULL);
    CHECK_INT(ABT_xstream_get_main_pools(xs[0], -1, pools), ABT_ERR_INV_ARG);
    ABT_sched sched = ABT_SCHED_NULL;
    CHECK_INT(ABT_xstream_get_main_sched(xs[0], &sched), ABT_SUCCESS);
    CHECK(sched != ABT_SCHED_NULL);
    int np = -1;
    CHECK_INT(ABT_sched_get_num_pools(sched, &np), ABT_SUCCESS);
    CHECK_INT(np, 1);
    ABT_pool sp = ABT_POOL_NULL;
    CHECK_INT(ABT_sched_get_pools(sched, 1, 0, &sp), ABT_SUCCESS);
    CHECK(sp == pools[0]);
    /* That scheduler is in use: another stream cannot take it. */
    ABT_xstream extra = (ABT_xstream)&extra;
    CHECK_INT(ABT_xstream_create(sched, &extra), ABT_ERR_INV_SCHED);
    CHECK(extra == ABT_XSTREAM_NULL);
    ABT_sched primary_sched;
    CHECK_INT(ABT_xstream_get_main_sched(primary, &primary_sched), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(primary_sched, &extra), ABT_ERR_INV_SCHED);

    /* Join: the stream finishes its queued work first, then reports TERMINATED. */
    for (int i = 0; i < N; i++) CHECK_INT(ABT_xstream_join(xs[i]), ABT_SUCCESS);
    CHECK_INT(counter, N * 100);
    states_ok = 1;
    for (int i = 0; i < N; i++) {
        states_ok &= ABT_xstream_get_state(xs[i], &st) == ABT_SUCCESS && st == ABT_XSTREAM_STATE_TERMINATED;
    }
    CHECK(states_ok);
    CHECK_INT(ABT_xstream_join(xs[0]), ABT_SUCCESS); /* joining a terminated stream again */
    CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
    CHECK_INT(n, N + 1); /* terminated but not freed streams still count */

    /* Free: the handle becomes ABT_XSTREAM_NULL, the count drops, a second free is refused. */
    for (int i = 0; i < N; i++) {
        CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
        CHECK(xs[i] == ABT_XSTREAM_NULL);
        CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
        CHECK_INT(n, N - i);
    }
    CHECK_INT(ABT_xstream_free(&xs[0]), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_free(NULL), ABT_ERR_INV_XSTREAM);

    /* A running stream is freed directly (implicit join, queued work runs first). */
    ABT_xstream one;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &one), ABT_SUCCESS);
    counter = 0;
    for (int k = 0; k < 50; k++) ABT_thread_create_on_xstream(one, add_arg, (void *)(intptr_t)2, ABT_THREAD_ATTR_NULL, NULL);
    for (int k = 0; k < 50; k++) ABT_task_create_on_xstream(one, add_arg, (void *)(intptr_t)3, NULL);
    CHECK_INT(ABT_xstream_free(&one), ABT_SUCCESS);
    CHECK_INT(counter, 50 * 2 + 50 * 3);
    CHECK(one == ABT_XSTREAM_NULL);

    /* Ranks: create_with_rank with 3, 2, 1; 0 and 2 are taken; negative ranks are refused. */
    ABT_xstream r[4] = {ABT_XSTREAM_NULL, ABT_XSTREAM_NULL, ABT_XSTREAM_NULL, ABT_XSTREAM_NULL};
    for (int k = 3; k >= 1; k--) CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, k, &r[k]), ABT_SUCCESS);
    ranks_ok = 1;
    for (int k = 1; k <= 3; k++) ranks_ok &= ABT_xstream_get_rank(r[k], &rank) == ABT_SUCCESS && rank == k;
    CHECK(ranks_ok);
    extra = (ABT_xstream)&extra;
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 0, &extra), ABT_ERR_INV_XSTREAM_RANK);
    CHECK(extra == ABT_XSTREAM_NULL);
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 2, &extra), ABT_ERR_INV_XSTREAM_RANK);
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, -1, &extra), ABT_ERR_INV_XSTREAM_RANK);
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, -5, &extra), ABT_ERR_INV_XSTREAM_RANK);
    CHECK(extra == ABT_XSTREAM_NULL);
    CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
    CHECK_INT(n, 4); /* failed creations leave nothing behind */
    /* ABT_xstream_create takes the lowest free rank: 4. */
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &extra), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_rank(extra, &rank), ABT_SUCCESS);
    CHECK_INT(rank, 4);
    /* A large rank is fine (Argobots grows its maximum). */
    ABT_xstream big;
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 100, &big), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_rank(big, &rank), ABT_SUCCESS);
    CHECK_INT(rank, 100);
    CHECK_INT(ABT_xstream_free(&big), ABT_SUCCESS);

    /* set_rank: to a free rank, to the current one, to a taken one, negative, on the primary. */
    CHECK_INT(ABT_xstream_set_rank(r[1], 7), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_rank(r[1], &rank), ABT_SUCCESS);
    CHECK_INT(rank, 7);
    struct seen s7;
    memset(&s7, 0, sizeof s7);
    ABT_thread u7;
    CHECK_INT(ABT_thread_create_on_xstream(r[1], look_around, &s7, ABT_THREAD_ATTR_NULL, &u7), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u7), ABT_SUCCESS);
    CHECK_INT(s7.rank_rc, ABT_SUCCESS);
    CHECK_INT(s7.rank, 7);
    CHECK_INT(ABT_xstream_set_rank(r[1], 7), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_rank(r[1], 3), ABT_ERR_INV_XSTREAM_RANK);
    CHECK_INT(ABT_xstream_set_rank(r[1], 0), ABT_ERR_INV_XSTREAM_RANK);
    CHECK_INT(ABT_xstream_set_rank(r[1], -1), ABT_ERR_INV_XSTREAM_RANK);
    CHECK_INT(ABT_xstream_get_rank(r[1], &rank), ABT_SUCCESS);
    CHECK_INT(rank, 7);
    CHECK_INT(ABT_xstream_set_rank(primary, 9), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_rank(primary, &rank), ABT_SUCCESS);
    CHECK_INT(rank, 0);
    /* Rank 1 is free again after the move; 7 is not. */
    ABT_xstream again;
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 7, &again), ABT_ERR_INV_XSTREAM_RANK);
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 1, &again), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&again), ABT_SUCCESS);
    /* A freed stream's rank is free again. */
    CHECK_INT(ABT_xstream_free(&r[2]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 2, &r[2]), ABT_SUCCESS);
    for (int k = 1; k <= 3; k++) CHECK_INT(ABT_xstream_free(&r[k]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&extra), ABT_SUCCESS);

    /* create_basic with user pools: the stream serves them, in the order given. */
    ABT_pool up[2];
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &up[0]), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPSC, ABT_TRUE, &up[1]), ABT_SUCCESS);
    ABT_xstream bx;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 2, up, ABT_SCHED_CONFIG_NULL, &bx), ABT_SUCCESS);
    ABT_pool got[2] = {ABT_POOL_NULL, ABT_POOL_NULL};
    CHECK_INT(ABT_xstream_get_main_pools(bx, 2, got), ABT_SUCCESS);
    CHECK(got[0] == up[0] && got[1] == up[1]);
    CHECK_INT(ABT_xstream_get_main_sched(bx, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_sched_get_num_pools(sched, &np), ABT_SUCCESS);
    CHECK_INT(np, 2);
    ABT_xstream where0 = ABT_XSTREAM_NULL, where1 = ABT_XSTREAM_NULL;
    ABT_thread w0, w1;
    CHECK_INT(ABT_thread_create(up[0], get_last_stream, &where0, ABT_THREAD_ATTR_NULL, &w0), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(up[1], get_last_stream, &where1, ABT_THREAD_ATTR_NULL, &w1), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&w0), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&w1), ABT_SUCCESS);
    CHECK(where0 == bx && where1 == bx);
    CHECK_INT(ABT_xstream_free(&bx), ABT_SUCCESS);

    /* create_basic with pools NULL: the predefined scheduler's own pools. */
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &bx), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_sched(bx, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_sched_get_num_pools(sched, &np), ABT_SUCCESS);
    CHECK_INT(np, 1);
    CHECK_INT(ABT_xstream_free(&bx), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_PRIO, 0, NULL, ABT_SCHED_CONFIG_NULL, &bx), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_sched(bx, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_sched_get_num_pools(sched, &np), ABT_SUCCESS);
    CHECK_INT(np, 3);
    ABT_pool three[3];
    CHECK_INT(ABT_xstream_get_main_pools(bx, 3, three), ABT_SUCCESS);
    counter = 0;
    for (int k = 0; k < 3; k++) ABT_thread_create(three[k], add_arg, (void *)(intptr_t)1, ABT_THREAD_ATTR_NULL, NULL);
    CHECK_INT(ABT_xstream_free(&bx), ABT_SUCCESS);
    CHECK_INT(counter, 3);
    bx = (ABT_xstream)&bx;
    CHECK_INT(ABT_xstream_create_basic((ABT_sched_predef)99, 0, NULL, ABT_SCHED_CONFIG_NULL, &bx),
              ABT_ERR_INV_SCHED_PREDEF);
    CHECK(bx == ABT_XSTREAM_NULL);
    ABT_pool spare;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &spare), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, -1, &spare, ABT_SCHED_CONFIG_NULL, &bx), ABT_ERR_INV_ARG);
    CHECK(bx == ABT_XSTREAM_NULL);
    CHECK_INT(ABT_pool_free(&spare), ABT_SUCCESS); /* a failed creation leaves user pools alone */
    CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
    CHECK_INT(n, 1);

    /* The primary stream cannot be joined or freed. */
    CHECK_INT(ABT_xstream_join(primary), ABT_ERR_INV_XSTREAM);
    ABT_xstream p = primary;
    CHECK_INT(ABT_xstream_free(&p), ABT_ERR_INV_XSTREAM);
    CHECK(p == primary);

    /* ABT_XSTREAM_NULL everywhere. */
    ABT_xstream nul = ABT_XSTREAM_NULL;
    ABT_pool pl;
    CHECK_INT(ABT_xstream_join(ABT_XSTREAM_NULL), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_free(&nul), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_rank(ABT_XSTREAM_NULL, &rank), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_set_rank(ABT_XSTREAM_NULL, 3), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_state(ABT_XSTREAM_NULL, &st), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_is_primary(ABT_XSTREAM_NULL, &b), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_main_pools(ABT_XSTREAM_NULL, 1, &pl), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_main_sched(ABT_XSTREAM_NULL, &sched), ABT_ERR_INV_XSTREAM);
    ABT_thread tn = (ABT_thread)&tn;
    CHECK_INT(ABT_thread_create_on_xstream(ABT_XSTREAM_NULL, add_arg, NULL, ABT_THREAD_ATTR_NULL, &tn),
              ABT_ERR_INV_XSTREAM);
    CHECK(tn == ABT_THREAD_NULL);
    ABT_task kn = (ABT_task)&kn;
    CHECK_INT(ABT_task_create_on_xstream(ABT_XSTREAM_NULL, add_arg, NULL, &kn), ABT_ERR_INV_XSTREAM);
    CHECK(kn == ABT_TASK_NULL);

    /* Streams created, used and freed from a ULT running on another stream. */
    ABT_xstream host;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &host), ABT_SUCCESS);
    counter = 0;
    ABT_thread h;
    CHECK_INT(ABT_thread_create_on_xstream(host, streams_from_ult, NULL, ABT_THREAD_ATTR_NULL, &h), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&h), ABT_SUCCESS);
    CHECK(nested_ok);
    CHECK_INT(counter, 2000);
    CHECK_INT(ABT_xstream_free(&host), ABT_SUCCESS);

    /* Freeing a stream whose ULT waits for work in the primary pool: the main ULT's wait lets
     * the primary stream run it. */
    CHECK_INT(ABT_xstream_get_main_pools(primary, 1, &primary_pool_g), ABT_SUCCESS);
    ABT_xstream waiter;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &waiter), ABT_SUCCESS);
    counter = 0;
    CHECK_INT(ABT_thread_create_on_xstream(waiter, join_on_primary, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&waiter), ABT_SUCCESS);
    CHECK(cross_ok);
    CHECK_INT(counter, 5);

    /* A join that meets the stream's end half done returns once the stream is TERMINATED:
     * from the main ULT (which parks) and from a plain pthread (which sleeps). The checked build
     * stalls the joiner between its look at the state and its wait, and the stream between its
     * two last steps (GOABT_RACE_WINDOW), so that the joiner comes in between those: with the
     * stream's steps the other way round (joiners taken, then TERMINATED), every run of this
     * program fails goabt_stream_join's assertion. */
    int joins_early = 0;
    join_fresh_streams(&joins_early);
    CHECK_INT(joins_early, 0);
    pthread_t joiner_thread;
    joins_early = 0;
    CHECK_INT(pthread_create(&joiner_thread, NULL, join_fresh_streams, &joins_early), 0);
    CHECK_INT(pthread_join(joiner_thread, NULL), 0);
    CHECK_INT(joins_early, 0);

    /* Eight streams on two cores, 1000 units each, freed while busy. */
    enum { M = 8 };
    ABT_xstream many[M];
    create_rc = 0;
    for (int i = 0; i < M; i++) create_rc |= ABT_xstream_create(ABT_SCHED_NULL, &many[i]);
    CHECK_INT(create_rc, ABT_SUCCESS);
    counter = 0;
    for (int i = 0; i < M; i++) {
        for (int k = 0; k < 1000; k++) {
            create_rc |= ABT_thread_create_on_xstream(many[i], add_arg, (void *)(intptr_t)(i + 1),
                                                      ABT_THREAD_ATTR_NULL, NULL);
        }
    }
    CHECK_INT(create_rc, ABT_SUCCESS);
    int free_rc = 0;
    for (int i = 0; i < M; i++) free_rc |= ABT_xstream_free(&many[i]);
    CHECK_INT(free_rc, ABT_SUCCESS);
    CHECK_INT(counter, 1000 * M * (M + 1) / 2);
    CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
    CHECK_INT(n, 1);

    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    /* After finalize, stream functions that check init say so. */
    CHECK_INT(ABT_xstream_get_num(&n), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &extra), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_xstream_self(&extra), ABT_ERR_UNINITIALIZED);
    CHECK(extra == ABT_XSTREAM_NULL);

    test_affinity();
    return check_summary();
}
