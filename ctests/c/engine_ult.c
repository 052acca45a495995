/* ULTs (ABT_thread_*) on 4 streams (primary + 3): fork/join of 10k ULTs with a checksum;
 * ULTs yielding 1000 times each on one MPMC pool shared by 3 streams (stack contents survive
 * every yield and migration); nested creation (a tree of ULTs creating and joining ULTs); the
 * main ULT joining ULTs of its own pool; unnamed ULTs; create_on_xstream; create_many,
 * join_many, free_many; states READY, RUNNING, BLOCKED, TERMINATED; get_last_xstream,
 * get_last_pool(_id); get_arg/set_arg/get_thread_func; ids; is_primary/is_unnamed; equal;
 * stack sizes (default 16384, attr 32768, sizes that are not page multiples,
 * ABT_THREAD_STACKSIZE set with setenv before ABT_init) and get_stack/get_attr (the reported
 * stack holds the ULT's frames); user
 * stacks (ABT_thread_attr_set_stack); thread attributes; ABT_thread_exit; the error codes of
 * join/free on ABT_THREAD_NULL, the main ULT and self, and of create on ABT_POOL_NULL; freed
 * and wrong-kind handles; a second stream sharing the primary pool (the main ULT always resumes
 * on the primary stream). */
#include <pthread.h>
#include <stdint.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
static ABT_xstream streams[NSTREAMS]; /* [0] is the primary */
static ABT_pool pools[NSTREAMS];      /* their main pools */
static ABT_thread main_ult;

/* ---- Fork/join with a checksum ------------------------------------------------------------ */

#define NFORK 10000
static long results[NFORK];
static int runs[NFORK];

static long expected_value(long i) { return (i * 7919) % 1000003 + 1; }

static void compute(void *arg)
{
    long i = (long)(intptr_t)arg;
    results[i] = expected_value(i);
    __atomic_add_fetch(&runs[i], 1, __ATOMIC_RELAXED);
}

static void test_fork_join(void)
{
    ABT_thread *t = malloc(sizeof *t * NFORK);
    int create_rc = 0;
    for (long i = 0; i < NFORK; i++) {
        create_rc |= ABT_thread_create(pools[i % NSTREAMS], compute, (void *)(intptr_t)i,
                                       ABT_THREAD_ATTR_NULL, &t[i]);
    }
    CHECK_INT(create_rc, ABT_SUCCESS);
    int join_rc = 0, free_rc = 0, nulled = 1;
    for (long i = 0; i < NFORK; i++) join_rc |= ABT_thread_join(t[i]);
    for (long i = 0; i < NFORK; i++) {
        free_rc |= ABT_thread_free(&t[i]);
        nulled &= t[i] == ABT_THREAD_NULL;
    }
    CHECK_INT(join_rc, ABT_SUCCESS);
    CHECK_INT(free_rc, ABT_SUCCESS);
    CHECK(nulled);
    long sum = 0, want = 0;
    int once = 1;
    for (long i = 0; i < NFORK; i++) {
        sum += results[i];
        want += expected_value(i);
        once &= runs[i] == 1;
    }
    CHECK_INT(sum, want);
    CHECK(once);
    free(t);
}

/* Joins racing with termination: once ABT_thread_join returns, the target is TERMINATED
 * (its owner may free it right away, so the engine must be done with it). */
static void nothing(void *arg) { (void)arg; }

static void test_join_sees_terminated(void)
{
    enum { ROUNDS = 5000, K = 40 };
    int not_terminated = 0, rc = 0;
    for (int r = 0; r < ROUNDS; r++) {
        ABT_thread t[K];
        for (int i = 0; i < K; i++) {
            rc |= ABT_thread_create(pools[1 + i % (NSTREAMS - 1)], nothing, NULL, ABT_THREAD_ATTR_NULL, &t[i]);
        }
        for (int i = 0; i < K; i++) {
            ABT_thread_state st = ABT_THREAD_STATE_READY;
            rc |= ABT_thread_join(t[i]);
            rc |= ABT_thread_get_state(t[i], &st);
            not_terminated += st != ABT_THREAD_STATE_TERMINATED;
            rc |= ABT_thread_free(&t[i]);
        }
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(not_terminated, 0);
}

/* ---- Yields on a pool shared by three streams --------------------------------------------- */

#define NYIELDERS 60
#define NYIELDS 1000
struct yielder {
    int yields, corruptions;
    unsigned ranks_seen; /* bit per rank */
};

static void yielder(void *arg)
{
    struct yielder *y = arg;
    volatile uint32_t pattern[64];
    uint32_t seed = (uint32_t)(uintptr_t)arg;
    for (int i = 0; i < NYIELDS; i++) {
        for (int k = 0; k < 64; k++) pattern[k] = seed ^ (uint32_t)(i * 64 + k);
        int rank = -1;
        if (ABT_xstream_self_rank(&rank) == ABT_SUCCESS && rank >= 0 && rank < 32) {
            y->ranks_seen |= 1u << rank;
        }
        if (ABT_thread_yield() == ABT_SUCCESS) y->yields++;
        for (int k = 0; k < 64; k++) {
            if (pattern[k] != (seed ^ (uint32_t)(i * 64 + k))) y->corruptions++;
        }
    }
}

static void test_shared_pool_yields(void)
{
    ABT_pool shared;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &shared), ABT_SUCCESS);
    ABT_xstream xs[3];
    int rc = 0;
    for (int i = 0; i < 3; i++) rc |= ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &shared, ABT_SCHED_CONFIG_NULL, &xs[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    struct yielder y[NYIELDERS];
    ABT_thread t[NYIELDERS];
    memset(y, 0, sizeof y);
    for (int i = 0; i < NYIELDERS; i++) rc |= ABT_thread_create(shared, yielder, &y[i], ABT_THREAD_ATTR_NULL, &t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    for (int i = 0; i < NYIELDERS; i++) rc |= ABT_thread_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    int yields = 0, corruptions = 0, migrated = 0, only_shared_streams = 1;
    for (int i = 0; i < NYIELDERS; i++) {
        yields += y[i].yields;
        corruptions += y[i].corruptions;
        migrated += __builtin_popcount(y[i].ranks_seen) > 1;
        only_shared_streams &= (y[i].ranks_seen & 1u) == 0; /* never on the primary (rank 0) */
    }
    printf("%d of %d yielding ULTs ran on more than one stream\n", migrated, NYIELDERS);
    CHECK_INT(yields, NYIELDERS * NYIELDS);
    CHECK_INT(corruptions, 0);
    CHECK(only_shared_streams);
    for (int i = 0; i < 3; i++) rc |= ABT_xstream_free(&xs[i]);
    CHECK_INT(rc, ABT_SUCCESS);
}

/* ---- Nested creation: a tree of ULTs ------------------------------------------------------ */

#define FANOUT 4
#define DEPTH 4 /* 1 + 4 + 16 + 64 + 256 = 341 ULTs */
struct node {
    int depth, index;
    long subtree; /* ULTs in this subtree, the node included */
    int errors;
};

static void tree_node(void *arg)
{
    struct node *n = arg;
    n->subtree = 1;
    if (n->depth == DEPTH) return;
    struct node kids[FANOUT];
    ABT_thread t[FANOUT];
    for (int k = 0; k < FANOUT; k++) {
        kids[k] = (struct node){n->depth + 1, k, 0, 0};
        if (ABT_thread_create(pools[(n->index + k) % NSTREAMS], tree_node, &kids[k],
                              ABT_THREAD_ATTR_NULL, &t[k]) != ABT_SUCCESS) {
            n->errors++;
            t[k] = ABT_THREAD_NULL;
        }
    }
    for (int k = 0; k < FANOUT; k++) {
        if (t[k] == ABT_THREAD_NULL) continue;
        if (ABT_thread_join(t[k]) != ABT_SUCCESS || ABT_thread_free(&t[k]) != ABT_SUCCESS) n->errors++;
        n->subtree += kids[k].subtree;
        n->errors += kids[k].errors;
    }
}

static void test_nested(void)
{
    struct node root = {0, 1, 0, 0};
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pools[1], tree_node, &root, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(root.errors, 0);
    CHECK_INT(root.subtree, 1 + 4 + 16 + 64 + 256);
    /* The same tree rooted on the primary stream, run through the main ULT's own pool. */
    root = (struct node){0, 0, 0, 0};
    CHECK_INT(ABT_thread_create(pools[0], tree_node, &root, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(root.subtree, 341);
    CHECK_INT(root.errors, 0);
}

/* ---- The main ULT joins ULTs of its own pool; states; last stream and pool --------------- */

static int self_state_rc = -1;
static ABT_thread_state self_state = ABT_THREAD_STATE_READY;
static void note_self_state(void *arg)
{
    (void)arg;
    ABT_thread me;
    if (ABT_thread_self(&me) == ABT_SUCCESS) self_state_rc = ABT_thread_get_state(me, &self_state);
}

static void test_main_joins_own_pool(void)
{
    enum { K = 100 };
    ABT_thread t[K];
    int rc = 0;
    for (int i = 0; i < K; i++) rc |= ABT_thread_create(pools[0], compute, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    /* Nothing ran yet: the main ULT has not given up the processor. */
    int ready = 1, never_ran = 1, pool_ok = 1;
    for (int i = 0; i < K; i++) {
        ABT_thread_state st = ABT_THREAD_STATE_TERMINATED;
        ABT_xstream last = (ABT_xstream)&last;
        ABT_pool p = ABT_POOL_NULL;
        int id = -2, want_id = -3;
        ready &= ABT_thread_get_state(t[i], &st) == ABT_SUCCESS && st == ABT_THREAD_STATE_READY;
        never_ran &= ABT_thread_get_last_xstream(t[i], &last) == ABT_SUCCESS && last == ABT_XSTREAM_NULL;
        pool_ok &= ABT_thread_get_last_pool(t[i], &p) == ABT_SUCCESS && p == pools[0];
        pool_ok &= ABT_thread_get_last_pool_id(t[i], &id) == ABT_SUCCESS &&
                   ABT_pool_get_id(pools[0], &want_id) == ABT_SUCCESS && id == want_id;
    }
    CHECK(ready);
    CHECK(never_ran);
    CHECK(pool_ok);
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(pools[0], &size), ABT_SUCCESS);
    CHECK_INT(size, K);
    for (int i = 0; i < K; i++) rc |= ABT_thread_join(t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    int terminated = 1, ran_on_primary = 1;
    for (int i = 0; i < K; i++) {
        ABT_thread_state st = ABT_THREAD_STATE_READY;
        ABT_xstream last = ABT_XSTREAM_NULL;
        terminated &= ABT_thread_get_state(t[i], &st) == ABT_SUCCESS && st == ABT_THREAD_STATE_TERMINATED;
        ran_on_primary &= ABT_thread_get_last_xstream(t[i], &last) == ABT_SUCCESS && last == streams[0];
    }
    CHECK(terminated);
    CHECK(ran_on_primary);
    for (int i = 0; i < K; i++) rc |= ABT_thread_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_size(pools[0], &size), ABT_SUCCESS);
    CHECK_INT(size, 0);

    /* A ULT on a secondary stream sees itself RUNNING. */
    ABT_thread s;
    CHECK_INT(ABT_thread_create(pools[2], note_self_state, NULL, ABT_THREAD_ATTR_NULL, &s), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&s), ABT_SUCCESS);
    CHECK_INT(self_state_rc, ABT_SUCCESS);
    CHECK_INT(self_state, ABT_THREAD_STATE_RUNNING);
    ABT_thread_state mst = ABT_THREAD_STATE_READY;
    CHECK_INT(ABT_thread_get_state(main_ult, &mst), ABT_SUCCESS);
    CHECK_INT(mst, ABT_THREAD_STATE_RUNNING);
}

/* ---- A ULT blocked in join is BLOCKED ----------------------------------------------------- */

static ABT_thread blocked_target;
static int blocked_join_rc = -1;
static void join_target(void *arg)
{
    (void)arg;
    blocked_join_rc = ABT_thread_join(blocked_target);
}

static void test_blocked_state(void)
{
    /* The target sits in a pool no stream serves, so its joiner must block. */
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &idle), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(idle, compute, (void *)(intptr_t)5, ABT_THREAD_ATTR_NULL, &blocked_target), ABT_SUCCESS);
    ABT_thread joiner;
    CHECK_INT(ABT_thread_create(pools[1], join_target, NULL, ABT_THREAD_ATTR_NULL, &joiner), ABT_SUCCESS);
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    double end = ABT_get_wtime() + 10.0;
    while (ABT_thread_get_state(joiner, &st) == ABT_SUCCESS && st != ABT_THREAD_STATE_BLOCKED &&
           ABT_get_wtime() < end) {
        ABT_thread_yield();
    }
    CHECK_INT(st, ABT_THREAD_STATE_BLOCKED);
    size_t total = 0, size = 99;
    CHECK_INT(ABT_pool_get_total_size(pools[1], &total), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_size(pools[1], &size), ABT_SUCCESS);
    CHECK_INT(size, 0);
    CHECK_INT(total, 1); /* the blocked joiner counts in its pool's total size */
    /* A stream that serves the idle pool runs the target; the joiner wakes. */
    ABT_xstream drain;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &idle, ABT_SCHED_CONFIG_NULL, &drain), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&joiner), ABT_SUCCESS);
    CHECK_INT(blocked_join_rc, ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_state(blocked_target, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_TERMINATED);
    CHECK_INT(ABT_thread_free(&blocked_target), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&drain), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_total_size(pools[1], &total), ABT_SUCCESS);
    CHECK_INT(total, 0);
}

/* ---- Unnamed ULTs and create_on_xstream --------------------------------------------------- */

static int unnamed_count, unnamed_flag_ok;
static void unnamed_body(void *arg)
{
    (void)arg;
    ABT_thread me;
    ABT_bool unnamed = ABT_FALSE;
    if (ABT_thread_self(&me) == ABT_SUCCESS && ABT_thread_is_unnamed(me, &unnamed) == ABT_SUCCESS &&
        unnamed == ABT_TRUE) {
        __atomic_add_fetch(&unnamed_flag_ok, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&unnamed_count, 1, __ATOMIC_RELEASE);
}

static void where_am_i(void *arg)
{
    ABT_xstream_self((ABT_xstream *)arg);
}

static void test_unnamed_and_on_xstream(void)
{
    enum { U = 2000 };
    int rc = 0;
    for (int i = 0; i < U; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], unnamed_body, NULL, ABT_THREAD_ATTR_NULL, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(wait_for(&unnamed_count, U));
    CHECK_INT(unnamed_flag_ok, U);
    for (int i = 0; i < U; i++) {
        rc |= ABT_thread_create_on_xstream(streams[i % NSTREAMS], unnamed_body, NULL, ABT_THREAD_ATTR_NULL, NULL);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(wait_for(&unnamed_count, 2 * U));

    int on_ok = 1;
    for (int i = 0; i < NSTREAMS; i++) {
        ABT_xstream seen = ABT_XSTREAM_NULL, last = ABT_XSTREAM_NULL;
        ABT_pool p = ABT_POOL_NULL;
        ABT_thread t;
        on_ok &= ABT_thread_create_on_xstream(streams[i], where_am_i, &seen, ABT_THREAD_ATTR_NULL, &t) == ABT_SUCCESS;
        on_ok &= ABT_thread_get_last_pool(t, &p) == ABT_SUCCESS && p == pools[i];
        on_ok &= ABT_thread_join(t) == ABT_SUCCESS;
        on_ok &= ABT_thread_get_last_xstream(t, &last) == ABT_SUCCESS && last == streams[i];
        on_ok &= ABT_thread_free(&t) == ABT_SUCCESS && seen == streams[i];
    }
    CHECK(on_ok);
}

/* ---- create_many, join_many, free_many ---------------------------------------------------- */

static void many_body(void *arg)
{
    if (arg != NULL) __atomic_add_fetch((long *)arg, 1, __ATOMIC_RELAXED);
}

static void test_many(void)
{
    enum { K = 64 };
    ABT_pool pl[K];
    void (*fn[K])(void *);
    void *args[K];
    ABT_thread list[K];
    long hits[K];
    for (int i = 0; i < K; i++) {
        pl[i] = pools[i % NSTREAMS];
        fn[i] = many_body;
        hits[i] = 0;
        args[i] = &hits[i];
    }
    CHECK_INT(ABT_thread_create_many(K, pl, fn, args, ABT_THREAD_ATTR_NULL, list), ABT_SUCCESS);
    int distinct = 1;
    for (int i = 1; i < K; i++) distinct &= list[i] != list[i - 1] && list[i] != ABT_THREAD_NULL;
    CHECK(distinct);
    CHECK_INT(ABT_thread_join_many(K, list), ABT_SUCCESS);
    int all_once = 1;
    for (int i = 0; i < K; i++) all_once &= hits[i] == 1;
    CHECK(all_once);
    CHECK_INT(ABT_thread_free(&list[3]), ABT_SUCCESS); /* free_many skips NULL entries */
    CHECK_INT(ABT_thread_free_many(K, list), ABT_SUCCESS);
    int nulled = 1;
    for (int i = 0; i < K; i++) nulled &= list[i] == ABT_THREAD_NULL;
    CHECK(nulled);

    /* Unnamed (list NULL), and args NULL. */
    long shared_hits = 0;
    for (int i = 0; i < K; i++) args[i] = &shared_hits;
    CHECK_INT(ABT_thread_create_many(K, pl, fn, args, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    double end = ABT_get_wtime() + 10.0;
    while (__atomic_load_n(&shared_hits, __ATOMIC_ACQUIRE) != K && ABT_get_wtime() < end) ABT_thread_yield();
    CHECK_INT(shared_hits, K);
    CHECK_INT(ABT_thread_create_many(K, pl, fn, NULL, ABT_THREAD_ATTR_NULL, list), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free_many(K, list), ABT_SUCCESS);

    /* A NULL pool entry: ABT_ERR_INV_POOL. An attribute with a user stack: INV_THREAD_ATTR. */
    ABT_pool bad[2] = {pools[1], ABT_POOL_NULL};
    ABT_thread two[2] = {ABT_THREAD_NULL, ABT_THREAD_NULL};
    CHECK_INT(ABT_thread_create_many(2, bad, fn, NULL, ABT_THREAD_ATTR_NULL, two), ABT_ERR_INV_POOL);
    CHECK(two[1] == ABT_THREAD_NULL);
    if (two[0] != ABT_THREAD_NULL) CHECK_INT(ABT_thread_free(&two[0]), ABT_SUCCESS);
    ABT_thread_attr attr;
    static char stackbuf[65536] __attribute__((aligned(64)));
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_stack(attr, stackbuf, sizeof stackbuf), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create_many(2, pl, fn, NULL, attr, two), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
}

/* ---- Queries on a ULT --------------------------------------------------------------------- */

static void *arg_seen = (void *)1;
static void record_arg(void *arg) { arg_seen = arg; }

/* The mode the runtime runs in puts the guard page inside the stacks (mprotect, the default,
 * and mprotect_strict), set by main. */
static int guard_inside;

/* Where the guard page is inside, the least stack size goabt reports and runs a ULT on: 8192
 * bytes and two pages (a smaller one is raised to it); elsewhere any size is reported as asked. */
static size_t least_stack(void) { return guard_inside ? 8192 + 2 * 4096 : 0; }

struct stack_probe {
    void *local_addr;
    void *stack;
    size_t size;
    size_t stacksize;
    int rc;
    long recursion_sum;
};

/* Uses about depth KiB of stack. */
static long recurse(int depth)
{
    volatile char frame[1000];
    for (int i = 0; i < (int)sizeof frame; i++) frame[i] = (char)(depth + i);
    long s = frame[depth % 1000];
    if (depth > 0) s += recurse(depth - 1);
    return s + frame[(depth * 7) % 1000];
}

/* How deep recurse() may go on a stack of that size: a quarter of it, at most 40 KiB. */
static int depth_for(size_t stacksize)
{
    size_t d = stacksize / 4096;
    return d > 40 ? 40 : (int)d;
}

static void probe_stack(void *arg)
{
    struct stack_probe *p = arg;
    int local = 0;
    p->local_addr = (void *)&local;
    ABT_thread me;
    p->rc = ABT_thread_self(&me);
    if (p->rc == ABT_SUCCESS) p->rc = ABT_thread_get_stack(me, &p->stack, &p->size);
    if (p->rc == ABT_SUCCESS) p->rc = ABT_thread_get_stacksize(me, &p->stacksize);
    p->recursion_sum = recurse(depth_for(p->stacksize));
    __asm__ __volatile__("" ::"r"(&local) : "memory");
}

static int inside(const struct stack_probe *p)
{
    return (char *)p->local_addr >= (char *)p->stack && (char *)p->local_addr < (char *)p->stack + p->size;
}

static void test_queries(void)
{
    /* Arguments and functions. */
    ABT_thread t;
    int a = 1, b = 2;
    CHECK_INT(ABT_thread_create(pools[0], record_arg, &a, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    void *arg = NULL;
    void (*fn)(void *) = NULL;
    CHECK_INT(ABT_thread_get_arg(t, &arg), ABT_SUCCESS);
    CHECK(arg == &a);
    CHECK_INT(ABT_thread_get_thread_func(t, &fn), ABT_SUCCESS);
    CHECK(fn == record_arg);
    CHECK_INT(ABT_thread_set_arg(t, &b), ABT_SUCCESS); /* before it runs: it gets the new one */
    CHECK_INT(ABT_thread_get_arg(t, &arg), ABT_SUCCESS);
    CHECK(arg == &b);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK(arg_seen == &b);

    /* Ids: distinct across ULTs, stable across queries. */
    ABT_thread u;
    CHECK_INT(ABT_thread_create(pools[0], record_arg, NULL, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    ABT_unit_id id_t1 = 0, id_t2 = 1, id_u = 0, id_m1 = 0, id_m2 = 1;
    CHECK_INT(ABT_thread_get_id(t, &id_t1), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(u, &id_u), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(t, &id_t2), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(main_ult, &id_m1), ABT_SUCCESS);
    CHECK_INT(ABT_thread_self_id(&id_m2), ABT_SUCCESS);
    CHECK(id_t1 == id_t2);
    CHECK(id_t1 != id_u && id_u != id_m1 && id_t1 != id_m1);
    CHECK(id_m1 == id_m2);
    CHECK_INT(ABT_thread_join(u), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(u, &id_t2), ABT_SUCCESS);
    CHECK(id_t2 == id_u);

    /* Primary and unnamed flags; equality. */
    ABT_bool flag = ABT_FALSE;
    CHECK_INT(ABT_thread_is_primary(main_ult, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_TRUE);
    CHECK_INT(ABT_thread_is_unnamed(main_ult, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_TRUE); /* the primary ULT carries no NAMED flag */
    CHECK_INT(ABT_thread_is_primary(t, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_FALSE);
    CHECK_INT(ABT_thread_is_unnamed(t, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_FALSE);
    CHECK_INT(ABT_thread_equal(t, t, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_TRUE);
    CHECK_INT(ABT_thread_equal(t, u, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_FALSE);
    CHECK_INT(ABT_thread_equal(ABT_THREAD_NULL, (ABT_thread)ABT_TASK_NULL, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_TRUE);
    ABT_thread self = ABT_THREAD_NULL;
    CHECK_INT(ABT_thread_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_thread_equal(self, main_ult, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_TRUE);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);

    /* Stack sizes: the main ULT 0, the default (16384, or 24576 in goabt's default mode,
     * mprotect, as in Argobots: two more pages where the guard page is the stack's lowest),
     * an attr's 32768. */
    size_t dflt = 0;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_DEFAULT_THREAD_STACKSIZE, &dflt), ABT_SUCCESS);
    CHECK_INT(dflt, guard_inside ? 16384 + 2 * 4096 : 16384);
    size_t ss = 1;
    CHECK_INT(ABT_thread_get_stacksize(main_ult, &ss), ABT_SUCCESS);
    CHECK_INT(ss, 0);
    void *addr = (void *)1;
    CHECK_INT(ABT_thread_get_stack(main_ult, &addr, &ss), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_stack(main_ult, NULL, NULL), ABT_SUCCESS);
    struct stack_probe p1 = {0}, p2 = {0};
    CHECK_INT(ABT_thread_create(pools[1], probe_stack, &p1, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(p1.rc, ABT_SUCCESS);
    CHECK_INT(p1.stacksize, dflt);
    CHECK_INT(p1.size, dflt);
    CHECK(inside(&p1));
    CHECK_INT(ABT_thread_get_stacksize(t, &ss), ABT_SUCCESS);
    CHECK_INT(ss, dflt);
    /* get_stack equals get_attr + attr_get_stack (Argobots' thread_get_stack test). */
    ABT_thread_attr ta;
    void *a_addr = NULL, *t_addr = NULL;
    size_t a_size = 0, t_size = 0;
    CHECK_INT(ABT_thread_get_attr(t, &ta), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_get_stack(ta, &a_addr, &a_size), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_stack(t, &t_addr, &t_size), ABT_SUCCESS);
    CHECK(a_addr == t_addr && a_addr == p1.stack);
    CHECK_INT(a_size, t_size);
    CHECK_INT(ABT_thread_get_stack(t, NULL, &t_size), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_stack(t, &t_addr, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&ta), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);

    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_stacksize(attr, 32768), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[2], probe_stack, &p2, attr, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS); /* attributes are copied at creation */
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(p2.rc, ABT_SUCCESS);
    CHECK_INT(p2.stacksize, 32768);
    CHECK_INT(p2.size, 32768);
    CHECK(inside(&p2));
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);

    /* Sizes that are not a multiple of the page (ABT_THREAD_STACKSIZE=20000 gives 20032 in
     * Argobots) or below goabt's minimum (raised to it, with a guard page inside the stack:
     * 8192 and two pages): the reported stack still holds the ULT's frames. */
    const size_t odd[] = {20000, 20032, 30000, 4096};
    for (int i = 0; i < 4; i++) {
        struct stack_probe po = {0};
        CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
        CHECK_INT(ABT_thread_attr_set_stacksize(attr, odd[i]), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pools[2], probe_stack, &po, attr, &t), ABT_SUCCESS);
        CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
        CHECK_INT(po.rc, ABT_SUCCESS);
        size_t want = odd[i] < least_stack() ? least_stack() : odd[i];
        CHECK_INT(po.stacksize, want);
        CHECK_INT(po.size, want);
        printf("stack size %zu: local variable at offset %ld of the reported stack\n", odd[i],
               (long)((char *)po.local_addr - (char *)po.stack));
        CHECK(inside(&po));
    }
}

/* The whole reported stack is usable (in the mprotect modes, all of it above its guard page and
 * the colour): goabt moves each ULT's stack top by one of 16 cache-line colours; these ULTs use
 * all of it but 3 KiB, so a colour or guard misplaced would run them into the guard page. 128
 * ULTs cover every colour. */
static void deep_probe(void *arg)
{
    struct stack_probe *p = arg;
    ABT_thread me;
    p->rc = ABT_thread_self(&me);
    if (p->rc == ABT_SUCCESS) p->rc = ABT_thread_get_stack(me, &p->stack, &p->size);
    /* recurse() takes a little over 1 KiB per level; under ASan, whose redzones make frames
     * larger and whose runtime runs on the ULT's stack too, more, with more room left over. */
    /* In the mprotect modes the guard page and the colour (at most 1 KiB) are inside it. */
    size_t usable = guard_inside ? p->size - 4096 - 1024 : p->size;
#ifdef GOABT_CTEST_ASAN
    int depth = (int)((usable - 6144) / 1400);
#else
    int depth = (int)((usable - 3072) / 1100);
#endif
    p->recursion_sum = recurse(depth);
    p->stacksize = (size_t)depth;
}

static void test_whole_stack_usable(void)
{
    enum { N = 128 };
    static struct stack_probe p[N];
    ABT_thread t[N];
    int rc = 0;
    for (int i = 0; i < N; i++) {
        memset(&p[i], 0, sizeof p[i]);
        rc |= ABT_thread_create(pools[i % NSTREAMS], deep_probe, &p[i], ABT_THREAD_ATTR_NULL, &t[i]);
    }
    for (int i = 0; i < N; i++) rc |= ABT_thread_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    int ok = 0;
#ifdef GOABT_CTEST_ASAN
    const size_t min_depth = 7; /* (16384 - 6144) / 1400 */
#else
    const size_t min_depth = 11; /* (16384 - 3072) / 1100 */
#endif
    size_t dflt = guard_inside ? 16384 + 2 * 4096 : 16384;
    for (int i = 0; i < N; i++) {
        ok += p[i].rc == ABT_SUCCESS && p[i].size == dflt && p[i].stacksize >= min_depth;
    }
    CHECK_INT(ok, N);
}

/* ---- User-provided stacks ----------------------------------------------------------------- */

static void test_user_stacks(void)
{
    enum { K = 8, SIZE = 65536 };
    void *bufs[K];
    struct stack_probe p[K];
    ABT_thread t[K];
    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    int rc = 0;
    for (int i = 0; i < K; i++) {
        bufs[i] = malloc(SIZE);
        memset(&p[i], 0, sizeof p[i]);
        rc |= ABT_thread_attr_set_stack(attr, bufs[i], SIZE);
        rc |= ABT_thread_create(pools[i % NSTREAMS], probe_stack, &p[i], attr, &t[i]);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    void *got = NULL;
    size_t got_size = 0;
    CHECK_INT(ABT_thread_attr_get_stack(attr, &got, &got_size), ABT_SUCCESS);
    CHECK(got == bufs[K - 1]);
    CHECK_INT(got_size, SIZE);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    for (int i = 0; i < K; i++) rc |= ABT_thread_join(t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    int in_buffer = 1, sizes = 1, reported = 1;
    long want_sum = recurse(depth_for(SIZE));
    int sums = 1;
    for (int i = 0; i < K; i++) {
        in_buffer &= (char *)p[i].local_addr >= (char *)bufs[i] && (char *)p[i].local_addr < (char *)bufs[i] + SIZE;
        sizes &= p[i].rc == ABT_SUCCESS && p[i].stacksize == SIZE;
        reported &= p[i].stack == bufs[i] && p[i].size == SIZE;
        sums &= p[i].recursion_sum == want_sum;
    }
    CHECK(in_buffer);
    CHECK(sizes);
    CHECK(reported);
    CHECK(sums);
    for (int i = 0; i < K; i++) rc |= ABT_thread_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    for (int i = 0; i < K; i++) free(bufs[i]);
}

/* ---- Attributes ----------------------------------------------------------------------------- */

static void test_attrs(void)
{
    ABT_thread_attr attr = ABT_THREAD_ATTR_NULL;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK(attr != ABT_THREAD_ATTR_NULL);
    size_t size = 0;
    void *addr = (void *)1;
    size_t dflt = guard_inside ? 16384 + 2 * 4096 : 16384;
    CHECK_INT(ABT_thread_attr_get_stacksize(attr, &size), ABT_SUCCESS);
    CHECK_INT(size, dflt);
    CHECK_INT(ABT_thread_attr_get_stack(attr, &addr, &size), ABT_SUCCESS);
    CHECK(addr == NULL);
    CHECK_INT(size, dflt);
    CHECK_INT(ABT_thread_attr_set_stacksize(attr, 40960), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_get_stacksize(attr, &size), ABT_SUCCESS);
    CHECK_INT(size, 40960);
    static char buf[32768] __attribute__((aligned(16)));
    CHECK_INT(ABT_thread_attr_set_stack(attr, buf + 1, 16384), ABT_ERR_INV_ARG); /* misaligned */
    CHECK_INT(ABT_thread_attr_set_stack(attr, buf, sizeof buf), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_get_stack(attr, &addr, &size), ABT_SUCCESS);
    CHECK(addr == buf);
    CHECK_INT(size, sizeof buf);
    CHECK_INT(ABT_thread_attr_set_stacksize(attr, 20000), ABT_SUCCESS); /* keeps the address */
    CHECK_INT(ABT_thread_attr_get_stack(attr, &addr, &size), ABT_SUCCESS);
    CHECK(addr == buf);
    CHECK_INT(size, 20000);
    CHECK_INT(ABT_thread_attr_set_stack(attr, NULL, 24576), ABT_SUCCESS); /* goabt allocates */
    CHECK_INT(ABT_thread_attr_get_stack(attr, &addr, &size), ABT_SUCCESS);
    CHECK(addr == NULL);
    CHECK_INT(size, 24576);
    CHECK_INT(ABT_thread_attr_set_migratable(attr, ABT_FALSE), ABT_SUCCESS);
    ABT_thread t;
    struct stack_probe p = {0};
    CHECK_INT(ABT_thread_create(pools[3], probe_stack, &p, attr, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(p.stacksize, 24576);
    CHECK(inside(&p));
    ABT_bool mig = ABT_TRUE;
    CHECK_INT(ABT_thread_is_migratable(t, &mig), ABT_SUCCESS);
    CHECK_INT(mig, ABT_FALSE);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[3], record_arg, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_is_migratable(t, &mig), ABT_SUCCESS);
    CHECK_INT(mig, ABT_TRUE); /* the default */
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    CHECK(attr == ABT_THREAD_ATTR_NULL);

    /* ABT_THREAD_ATTR_NULL everywhere. */
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_set_stacksize(ABT_THREAD_ATTR_NULL, 16384), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_get_stacksize(ABT_THREAD_ATTR_NULL, &size), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_set_stack(ABT_THREAD_ATTR_NULL, NULL, 16384), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_get_stack(ABT_THREAD_ATTR_NULL, &addr, &size), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_set_migratable(ABT_THREAD_ATTR_NULL, ABT_TRUE), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_set_callback(ABT_THREAD_ATTR_NULL, NULL, NULL), ABT_ERR_INV_THREAD_ATTR);
}

/* ---- ABT_thread_exit ---------------------------------------------------------------------- */

static int before_exit, after_exit, exit_rc_main = -1;

static void exit_deep(int depth)
{
    if (depth == 0) {
        ABT_thread_exit();
        __atomic_add_fetch(&after_exit, 1, __ATOMIC_RELAXED); /* never */
        return;
    }
    exit_deep(depth - 1);
    __atomic_add_fetch(&after_exit, 1, __ATOMIC_RELAXED); /* never */
}

static void exiting(void *arg)
{
    __atomic_add_fetch(&before_exit, 1, __ATOMIC_RELAXED);
    exit_deep((int)(intptr_t)arg);
    __atomic_add_fetch(&after_exit, 1, __ATOMIC_RELAXED); /* never */
}

static void test_exit(void)
{
    enum { K = 40 };
    ABT_thread t[K];
    int rc = 0;
    for (int i = 0; i < K; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], exiting, (void *)(intptr_t)(i % 5), ABT_THREAD_ATTR_NULL, &t[i]);
    for (int i = 0; i < 10; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], exiting, (void *)(intptr_t)3, ABT_THREAD_ATTR_NULL, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    int terminated = 1;
    for (int i = 0; i < K; i++) {
        ABT_thread_state st = ABT_THREAD_STATE_READY;
        rc |= ABT_thread_join(t[i]);
        terminated &= ABT_thread_get_state(t[i], &st) == ABT_SUCCESS && st == ABT_THREAD_STATE_TERMINATED;
        rc |= ABT_thread_free(&t[i]);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(terminated);
    CHECK(wait_for(&before_exit, K + 10));
    CHECK_INT(after_exit, 0);
    exit_rc_main = ABT_thread_exit(); /* the main ULT cannot exit */
    CHECK_INT(exit_rc_main, ABT_ERR_INV_THREAD);
}

/* ---- Error codes -------------------------------------------------------------------------- */

struct self_errors {
    int join_self, free_self, join_main, free_main;
    ABT_thread self_after;
};

static void try_self(void *arg)
{
    struct self_errors *e = arg;
    ABT_thread me = ABT_THREAD_NULL;
    ABT_thread_self(&me);
    e->join_self = ABT_thread_join(me);
    e->free_self = ABT_thread_free(&me);
    e->self_after = me;
    ABT_thread m = main_ult;
    e->join_main = ABT_thread_join(m);
    e->free_main = ABT_thread_free(&m);
}

static void test_errors(void)
{
    ABT_thread nul = ABT_THREAD_NULL;
    CHECK_INT(ABT_thread_join(ABT_THREAD_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_join((ABT_thread)ABT_TASK_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_free(&nul), ABT_ERR_INV_THREAD);
    CHECK(ABT_thread_free(NULL) != ABT_SUCCESS);
    ABT_thread m = main_ult;
    CHECK_INT(ABT_thread_join(main_ult), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_free(&m), ABT_ERR_INV_THREAD);
    CHECK(m == main_ult);

    for (int s = 0; s < 2; s++) {
        struct self_errors e = {0, 0, 0, 0, ABT_THREAD_NULL};
        ABT_thread t;
        CHECK_INT(ABT_thread_create(pools[s * 2], try_self, &e, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
        CHECK_INT(e.join_self, ABT_ERR_INV_THREAD);
        CHECK_INT(e.free_self, ABT_ERR_INV_THREAD);
        CHECK(e.self_after != ABT_THREAD_NULL);
        CHECK_INT(e.join_main, ABT_ERR_INV_THREAD);
        CHECK_INT(e.free_main, ABT_ERR_INV_THREAD);
    }

    ABT_thread out = (ABT_thread)&out;
    CHECK_INT(ABT_thread_create(ABT_POOL_NULL, record_arg, NULL, ABT_THREAD_ATTR_NULL, &out), ABT_ERR_INV_POOL);
    CHECK(out == ABT_THREAD_NULL);
    CHECK_INT(ABT_thread_create(ABT_POOL_NULL, record_arg, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_ERR_INV_POOL);

    /* Queries on ABT_THREAD_NULL. */
    ABT_thread_state st;
    ABT_unit_id id;
    ABT_xstream xs;
    ABT_pool p;
    int pid;
    void *arg;
    size_t sz;
    ABT_bool flag;
    CHECK_INT(ABT_thread_get_state(ABT_THREAD_NULL, &st), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_id(ABT_THREAD_NULL, &id), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_last_xstream(ABT_THREAD_NULL, &xs), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_last_pool(ABT_THREAD_NULL, &p), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_last_pool_id(ABT_THREAD_NULL, &pid), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_arg(ABT_THREAD_NULL, &arg), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_set_arg(ABT_THREAD_NULL, NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_stacksize(ABT_THREAD_NULL, &sz), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_is_primary(ABT_THREAD_NULL, &flag), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_is_unnamed((ABT_thread)ABT_TASK_NULL, &flag), ABT_ERR_INV_THREAD);
}

/* ---- Another stream serving the primary pool ------------------------------------------------ */

/* The main ULT lives on the main thread's stack: when a stream that shares the primary pool
 * pops it (after a yield or a join wake-up), it must still resume on the primary stream. */
static int helper_runs;
static void on_any_stream(void *arg)
{
    (void)arg;
    ABT_thread_yield();
    __atomic_add_fetch(&helper_runs, 1, __ATOMIC_RELAXED);
}

static void test_shared_primary_pool(void)
{
    ABT_xstream helper;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &pools[0], ABT_SCHED_CONFIG_NULL, &helper), ABT_SUCCESS);
    int rc = 0, wrong_stream = 0;
    helper_runs = 0;
    for (int i = 0; i < 2000; i++) {
        ABT_thread t;
        rc |= ABT_thread_create(pools[0], on_any_stream, NULL, ABT_THREAD_ATTR_NULL, &t);
        if (i % 2) {
            rc |= ABT_thread_yield();
        } else {
            rc |= ABT_thread_join(t);
        }
        ABT_xstream now = ABT_XSTREAM_NULL;
        ABT_bool on_primary = ABT_FALSE;
        rc |= ABT_self_get_xstream(&now);
        rc |= ABT_self_on_primary_xstream(&on_primary);
        wrong_stream += now != streams[0] || on_primary != ABT_TRUE;
        rc |= ABT_thread_free(&t);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(wrong_stream, 0);
    CHECK_INT(helper_runs, 2000);
    CHECK_INT(ABT_xstream_free(&helper), ABT_SUCCESS);
    ABT_bool on_primary = ABT_FALSE;
    CHECK_INT(ABT_self_on_primary_xstream(&on_primary), ABT_SUCCESS);
    CHECK_INT(on_primary, ABT_TRUE);
}

/* ---- Freed and wrong-kind handles ----------------------------------------------------------- */

static void test_stale_handles(void)
{
    ABT_thread t, stale;
    CHECK_INT(ABT_thread_create(pools[1], nothing, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    stale = t;
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    ABT_thread_state st;
    /* goabt refuses a freed handle while its memory was not reused (nothing was created since). */
    CHECK_INT(ABT_thread_get_state(stale, &st), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_join(stale), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_free(&stale), ABT_ERR_INV_THREAD);
    /* Handles of another kind. */
    CHECK_INT(ABT_thread_join((ABT_thread)pools[1]), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_state((ABT_thread)streams[1], &st), ABT_ERR_INV_THREAD);
    ABT_thread out = (ABT_thread)&out;
    CHECK_INT(ABT_thread_create((ABT_pool)streams[1], nothing, NULL, ABT_THREAD_ATTR_NULL, &out), ABT_ERR_INV_POOL);
    CHECK(out == ABT_THREAD_NULL);
    CHECK_INT(ABT_thread_create(pools[1], nothing, NULL, (ABT_thread_attr)pools[1], &out), ABT_ERR_INV_THREAD_ATTR);
    CHECK(out == ABT_THREAD_NULL);
    CHECK_INT(ABT_thread_create_on_xstream((ABT_xstream)pools[1], nothing, NULL, ABT_THREAD_ATTR_NULL, &out), ABT_ERR_INV_XSTREAM);
}

/* ---- ABT_THREAD_STACKSIZE ------------------------------------------------------------------- */

static void test_env_stacksize(void)
{
    /* Argobots reads the environment at the first ABT_init, so a program may set it first. */
    CHECK_INT(setenv("ABT_THREAD_STACKSIZE", "65536", 1), 0);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_thread_attr attr;
    size_t size = 0;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_get_stacksize(attr, &size), ABT_SUCCESS);
    CHECK_INT(size, 65536);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread t;
    struct stack_probe p = {0};
    ABT_xstream_self(&self);
    ABT_xstream_get_main_pools(self, 1, &pool);
    CHECK_INT(ABT_thread_create(pool, probe_stack, &p, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(p.stacksize, 65536);
    CHECK(inside(&p));
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    unsetenv("ABT_THREAD_STACKSIZE");
}

int main(void)
{
    /* The checks below assume Argobots' default stack size. */
    unsetenv("ABT_THREAD_STACKSIZE");
    unsetenv("ABT_ENV_THREAD_STACKSIZE");
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_self(&main_ult), ABT_SUCCESS);
    int mode = -1;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK, &mode), ABT_SUCCESS);
    guard_inside = mode == 2 || mode == 3;
    int rc = start_streams(NSTREAMS, streams, pools);
    CHECK_INT(rc, ABT_SUCCESS);

    test_fork_join();
    test_join_sees_terminated();
    test_shared_pool_yields();
    test_nested();
    test_main_joins_own_pool();
    test_blocked_state();
    test_unnamed_and_on_xstream();
    test_many();
    test_queries();
    test_whole_stack_usable();
    test_user_stacks();
    test_attrs();
    test_exit();
    test_errors();
    test_shared_primary_pool();
    test_stale_handles();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    test_env_stacksize();
    return check_summary();
}
