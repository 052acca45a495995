/* Pools and schedulers: ABT_pool_create_basic (every kind and access mode, a bad kind ->
 * ABT_ERR_INV_POOL_KIND, a bad access -> ABT_ERR_INV_POOL_ACCESS), get_access, pool ids in
 * Argobots' numbering (0 the primary pool, 1 its root pool, 2 ids per ABT_xstream_create),
 * get_size/get_total_size/is_empty on a pool no stream serves, then drained by a stream made
 * with ABT_xstream_create_basic; ABT_pool_free of an unused pool and of ABT_POOL_NULL; a pool
 * shared by two streams outliving the first; ABT_sched_create_basic (pools NULL: BASIC 1 pool,
 * PRIO 3, BASIC_WAIT 1, RANDWS 1; user pools and NULL entries; bad predef ->
 * ABT_ERR_INV_SCHED_PREDEF; negative num_pools -> ABT_ERR_INV_ARG), sched_get_num_pools and
 * sched_get_pools (index and range errors), sched_free of an unused scheduler and of one a
 * stream uses (ABT_ERR_SCHED); streams running several pools in priority order (BASIC and PRIO),
 * a BASIC_WAIT stream woken by new work, and a RANDWS pool. */
#include <unistd.h>
#include <limits.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

/* ---- Units that record the order they ran in ----------------------------------------------- */

#define MAX_ORDER 256
static int order[MAX_ORDER];
static int order_len;

static void record(void *arg)
{
    int i = __atomic_fetch_add(&order_len, 1, __ATOMIC_RELAXED);
    if (i < MAX_ORDER) order[i] = (int)(intptr_t)arg;
}

static ABT_pool spawn_pools[3];
/* Runs from the lowest-priority pool and queues more work in the highest: that work must run
 * before the rest of the low-priority pool. */
static void spawn_high(void *arg)
{
    record(arg);
    ABT_thread_create(spawn_pools[0], record, (void *)(intptr_t)99, ABT_THREAD_ATTR_NULL, NULL);
}

static int counter;
static void add_one(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
}

/* Queues 10 units tagged 100*k+i in pool k for k = 2, 1, 0 (lowest priority first), starts a
 * stream with the given scheduler on the three pools, and checks they ran pool 0 first, then 1,
 * then 2, each in FIFO order. */
static void priority_order(ABT_sched_predef predef)
{
    ABT_pool p[3];
    for (int k = 0; k < 3; k++) CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &p[k]), ABT_SUCCESS);
    int rc = 0;
    for (int k = 2; k >= 0; k--) {
        for (int i = 0; i < 10; i++) rc |= ABT_thread_create(p[k], record, (void *)(intptr_t)(100 * k + i), ABT_THREAD_ATTR_NULL, NULL);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    order_len = 0;
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create_basic(predef, 3, p, ABT_SCHED_CONFIG_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(order_len, 30);
    int in_order = 1;
    for (int n = 0; n < 30 && n < order_len; n++) in_order &= order[n] == 100 * (n / 10) + n % 10;
    if (!in_order) {
        printf("order:");
        for (int n = 0; n < order_len && n < 30; n++) printf(" %d", order[n]);
        printf("\n");
    }
    CHECK(in_order);

    /* Work queued in pool 0 while the stream drains pool 2 runs next. */
    for (int k = 0; k < 3; k++) spawn_pools[k] = p[k];
    for (int i = 0; i < 3; i++) rc |= ABT_thread_create(p[2], spawn_high, (void *)(intptr_t)(200 + i), ABT_THREAD_ATTR_NULL, NULL);
    order_len = 0;
    CHECK_INT(ABT_xstream_create_basic(predef, 3, p, ABT_SCHED_CONFIG_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(order_len, 6);
    CHECK(order[0] == 200 && order[1] == 99 && order[2] == 201 && order[3] == 99 && order[4] == 202 && order[5] == 99);
    for (int k = 0; k < 3; k++) CHECK_INT(ABT_pool_free(&p[k]), ABT_SUCCESS);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);

    /* Pool ids: 0 is the primary's pool, 1 its root pool; each stream made with
     * ABT_xstream_create(ABT_SCHED_NULL) takes two (its pool, then its root pool). */
    ABT_xstream primary;
    ABT_pool primary_pool;
    int id = -1;
    CHECK_INT(ABT_xstream_self(&primary), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(primary, 1, &primary_pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(primary_pool, &id), ABT_SUCCESS);
    CHECK_INT(id, 0);
    ABT_pool a, b, c;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &a), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(a, &id), ABT_SUCCESS);
    CHECK_INT(id, 2);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &b), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(b, &id), ABT_SUCCESS);
    CHECK_INT(id, 3);
    ABT_xstream xs;
    ABT_pool xs_pool;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &xs_pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(xs_pool, &id), ABT_SUCCESS);
    CHECK_INT(id, 4);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &c), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(c, &id), ABT_SUCCESS);
    CHECK_INT(id, 6);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);

    /* Kinds and access modes. */
    ABT_pool p = (ABT_pool)&p;
    CHECK_INT(ABT_pool_create_basic((ABT_pool_kind)99, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &p), ABT_ERR_INV_POOL_KIND);
    CHECK(p == ABT_POOL_NULL);
    p = (ABT_pool)&p;
    CHECK_INT(ABT_pool_create_basic((ABT_pool_kind)-1, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &p), ABT_ERR_INV_POOL_KIND);
    CHECK(p == ABT_POOL_NULL);
    p = (ABT_pool)&p;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, (ABT_pool_access)99, ABT_FALSE, &p), ABT_ERR_INV_POOL_ACCESS);
    CHECK(p == ABT_POOL_NULL);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, (ABT_pool_access)-1, ABT_FALSE, &p), ABT_ERR_INV_POOL_ACCESS);
    const ABT_pool_access modes[] = {ABT_POOL_ACCESS_PRIV, ABT_POOL_ACCESS_SPSC, ABT_POOL_ACCESS_MPSC,
                                     ABT_POOL_ACCESS_SPMC, ABT_POOL_ACCESS_MPMC};
    const ABT_pool_kind kinds[] = {ABT_POOL_FIFO, ABT_POOL_FIFO_WAIT, ABT_POOL_RANDWS};
    int all_ok = 1;
    for (int k = 0; k < 3; k++) {
        for (int m = 0; m < 5; m++) {
            ABT_pool_access got = (ABT_pool_access)-1;
            all_ok &= ABT_pool_create_basic(kinds[k], modes[m], ABT_FALSE, &p) == ABT_SUCCESS;
            all_ok &= ABT_pool_get_access(p, &got) == ABT_SUCCESS && got == modes[m];
            all_ok &= ABT_pool_free(&p) == ABT_SUCCESS && p == ABT_POOL_NULL;
        }
    }
    CHECK(all_ok);

    /* Sizes on a pool no stream serves. */
    size_t size = 99, total = 99;
    ABT_bool empty = ABT_FALSE;
    CHECK_INT(ABT_pool_get_size(a, &size), ABT_SUCCESS);
    CHECK_INT(size, 0);
    CHECK_INT(ABT_pool_is_empty(a, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_TRUE);
    ABT_thread t[10];
    ABT_task k5[5];
    int rc = 0;
    counter = 0;
    for (int i = 0; i < 10; i++) {
        rc |= ABT_thread_create(a, add_one, NULL, ABT_THREAD_ATTR_NULL, &t[i]);
        size_t now = 0;
        rc |= ABT_pool_get_size(a, &now);
        if (now != (size_t)i + 1) rc |= 1000;
    }
    for (int i = 0; i < 5; i++) rc |= ABT_task_create(a, add_one, NULL, &k5[i]);
    for (int i = 0; i < 20; i++) rc |= ABT_thread_create(a, add_one, NULL, ABT_THREAD_ATTR_NULL, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_size(a, &size), ABT_SUCCESS);
    CHECK_INT(size, 35);
    CHECK_INT(ABT_pool_get_total_size(a, &total), ABT_SUCCESS);
    CHECK_INT(total, 35);
    CHECK_INT(ABT_pool_is_empty(a, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_FALSE);
    /* Nobody runs them: the primary's scheduler, given 100 turns, serves only its own pool. */
    for (int i = 0; i < 100; i++) ABT_thread_yield();
    CHECK_INT(counter, 0);
    /* A stream on that pool drains it. */
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &a, ABT_SCHED_CONFIG_NULL, &xs), ABT_SUCCESS);
    for (int i = 0; i < 10; i++) rc |= ABT_thread_free(&t[i]);
    for (int i = 0; i < 5; i++) rc |= ABT_task_free(&k5[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(wait_for(&counter, 35));
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS); /* a is not automatic: it stays */
    CHECK_INT(ABT_pool_get_size(a, &size), ABT_SUCCESS);
    CHECK_INT(size, 0);
    CHECK_INT(ABT_pool_get_total_size(a, &total), ABT_SUCCESS);
    CHECK_INT(total, 0);
    CHECK_INT(ABT_pool_is_empty(a, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_TRUE);

    /* A pool still used by a running stream is not freed (undefined in Argobots; goabt refuses). */
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &a, ABT_SCHED_CONFIG_NULL, &xs), ABT_SUCCESS);
    ABT_pool in_use = a;
    CHECK(ABT_pool_free(&in_use) != ABT_SUCCESS);
    CHECK(in_use == a);
    counter = 0;
    CHECK_INT(ABT_thread_create(a, add_one, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK(wait_for(&counter, 1));
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);

    /* Freeing pools: unused ones, and ABT_POOL_NULL. */
    CHECK_INT(ABT_pool_free(&a), ABT_SUCCESS);
    CHECK(a == ABT_POOL_NULL);
    CHECK_INT(ABT_pool_free(&a), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_free(&b), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&c), ABT_SUCCESS);
    ABT_pool_access acc;
    CHECK_INT(ABT_pool_get_access(ABT_POOL_NULL, &acc), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_get_id(ABT_POOL_NULL, &id), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_get_size(ABT_POOL_NULL, &size), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_get_total_size(ABT_POOL_NULL, &size), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_is_empty(ABT_POOL_NULL, &empty), ABT_ERR_INV_POOL);

    /* An automatic pool shared by two streams lives until the second one is freed. */
    ABT_pool shared;
    ABT_xstream s1, s2;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &shared), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &shared, ABT_SCHED_CONFIG_NULL, &s1), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &shared, ABT_SCHED_CONFIG_NULL, &s2), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&s1), ABT_SUCCESS);
    counter = 0;
    for (int i = 0; i < 100; i++) rc |= ABT_thread_create(shared, add_one, NULL, ABT_THREAD_ATTR_NULL, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(wait_for(&counter, 100));
    CHECK_INT(ABT_pool_get_id(shared, &id), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&s2), ABT_SUCCESS);

    /* Schedulers with their default pools. */
    struct { ABT_sched_predef predef; int pools; } defaults[] = {
        {ABT_SCHED_DEFAULT, 1}, {ABT_SCHED_BASIC, 1}, {ABT_SCHED_PRIO, 3},
        {ABT_SCHED_RANDWS, 1}, {ABT_SCHED_BASIC_WAIT, 1}};
    for (int i = 0; i < 5; i++) {
        ABT_sched s = ABT_SCHED_NULL;
        int n = -1;
        CHECK_INT(ABT_sched_create_basic(defaults[i].predef, 0, NULL, ABT_SCHED_CONFIG_NULL, &s), ABT_SUCCESS);
        CHECK_INT(ABT_sched_get_num_pools(s, &n), ABT_SUCCESS);
        CHECK_INT(n, defaults[i].pools);
        ABT_pool got[3] = {ABT_POOL_NULL, ABT_POOL_NULL, ABT_POOL_NULL};
        CHECK_INT(ABT_sched_get_pools(s, n, 0, got), ABT_SUCCESS);
        int real = 1;
        for (int j = 0; j < n; j++) real &= ABT_pool_get_id(got[j], &id) == ABT_SUCCESS;
        CHECK(real);
        CHECK_INT(ABT_sched_free(&s), ABT_SUCCESS);
        CHECK(s == ABT_SCHED_NULL);
    }
    ABT_sched s = (ABT_sched)&s;
    CHECK_INT(ABT_sched_create_basic((ABT_sched_predef)99, 0, NULL, ABT_SCHED_CONFIG_NULL, &s), ABT_ERR_INV_SCHED_PREDEF);
    CHECK(s == ABT_SCHED_NULL);
    s = (ABT_sched)&s;
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, -1, NULL, ABT_SCHED_CONFIG_NULL, &s), ABT_ERR_INV_ARG);
    CHECK(s == ABT_SCHED_NULL);

    /* User pools, a NULL entry, get_pools ranges. */
    ABT_pool u[3];
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &u[0]), ABT_SUCCESS);
    u[1] = ABT_POOL_NULL;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_SPSC, ABT_FALSE, &u[2]), ABT_SUCCESS);
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_PRIO, 3, u, ABT_SCHED_CONFIG_NULL, &s), ABT_SUCCESS);
    int n = 0;
    CHECK_INT(ABT_sched_get_num_pools(s, &n), ABT_SUCCESS);
    CHECK_INT(n, 3);
    ABT_pool got[3] = {ABT_POOL_NULL, ABT_POOL_NULL, ABT_POOL_NULL};
    CHECK_INT(ABT_sched_get_pools(s, 3, 0, got), ABT_SUCCESS);
    CHECK(got[0] == u[0] && got[2] == u[2]);
    CHECK(got[1] != ABT_POOL_NULL && got[1] != u[0] && got[1] != u[2]); /* a fresh pool */
    ABT_pool_access got_acc;
    CHECK_INT(ABT_pool_get_access(got[1], &got_acc), ABT_SUCCESS);
    CHECK_INT(got_acc, ABT_POOL_ACCESS_MPMC);
    ABT_pool two[2] = {ABT_POOL_NULL, ABT_POOL_NULL};
    CHECK_INT(ABT_sched_get_pools(s, 2, 1, two), ABT_SUCCESS);
    CHECK(two[0] == got[1] && two[1] == got[2]);
    CHECK_INT(ABT_sched_get_pools(s, 2, 2, two), ABT_ERR_SCHED);
    CHECK_INT(ABT_sched_get_pools(s, 4, 0, got), ABT_ERR_SCHED);
    CHECK_INT(ABT_sched_get_pools(s, 1, -1, got), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_sched_get_pools(s, -1, 0, got), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_sched_get_pools(s, 0, 3, got), ABT_SUCCESS);
    /* A predefined scheduler with no pool (an empty array, not NULL) is refused where it is made,
     * for a stream or by itself: it could never run a unit. */
    {
        ABT_sched none = ABT_SCHED_NULL;
        ABT_xstream xnone = ABT_XSTREAM_NULL;
        CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 0, got, ABT_SCHED_CONFIG_NULL, &none), ABT_ERR_INV_ARG);
        CHECK(none == ABT_SCHED_NULL);
        CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_DEFAULT, 0, got, ABT_SCHED_CONFIG_NULL, &xnone), ABT_ERR_INV_ARG);
        CHECK(xnone == ABT_XSTREAM_NULL);
    }
    /* Ranges whose end overflows an int are refused, as native Argobots refuses them. */
    CHECK_INT(ABT_sched_get_pools(s, 1, INT_MAX, got), ABT_ERR_SCHED);
    CHECK_INT(ABT_sched_get_pools(s, INT_MAX, 1, got), ABT_ERR_SCHED);
    CHECK_INT(ABT_sched_get_pools(s, INT_MAX, INT_MAX, got), ABT_ERR_SCHED);
    CHECK_INT(ABT_sched_get_pools(s, 0, 4, got), ABT_ERR_SCHED);

    /* A scheduler a stream uses cannot be freed, nor given to another stream. */
    CHECK_INT(ABT_xstream_create(s, &xs), ABT_SUCCESS);
    ABT_sched main_sched;
    CHECK_INT(ABT_xstream_get_main_sched(xs, &main_sched), ABT_SUCCESS);
    CHECK(main_sched == s);
    ABT_sched busy = s;
    CHECK_INT(ABT_sched_free(&busy), ABT_ERR_SCHED);
    CHECK(busy == s);
    ABT_xstream other;
    CHECK_INT(ABT_xstream_create(s, &other), ABT_ERR_INV_SCHED);
    counter = 0;
    for (int i = 0; i < 3; i++) rc |= ABT_thread_create(got[i], add_one, NULL, ABT_THREAD_ATTR_NULL, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS); /* frees the (automatic) scheduler too */
    CHECK_INT(counter, 3);
    CHECK_INT(ABT_pool_get_id(u[0], &id), ABT_SUCCESS); /* user pools are not automatic */
    CHECK_INT(ABT_pool_free(&u[0]), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&u[2]), ABT_SUCCESS);

    /* An unused scheduler over user pools: freeing it leaves the pools. */
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &u[0]), ABT_SUCCESS);
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, u, ABT_SCHED_CONFIG_NULL, &s), ABT_SUCCESS);
    CHECK_INT(ABT_sched_free(&s), ABT_SUCCESS);
    CHECK(s == ABT_SCHED_NULL);
    CHECK_INT(ABT_pool_get_id(u[0], &id), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&u[0]), ABT_SUCCESS);

    /* ABT_SCHED_NULL everywhere. */
    ABT_sched ns = ABT_SCHED_NULL;
    CHECK_INT(ABT_sched_free(&ns), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_get_num_pools(ABT_SCHED_NULL, &n), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_get_pools(ABT_SCHED_NULL, 1, 0, got), ABT_ERR_INV_SCHED);

    /* Priority order across pools. */
    printf("# BASIC over three pools\n");
    priority_order(ABT_SCHED_BASIC);
    printf("# PRIO over three pools\n");
    priority_order(ABT_SCHED_PRIO);

    /* A BASIC_WAIT stream sleeps when idle and wakes for new work. */
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC_WAIT, 0, NULL, ABT_SCHED_CONFIG_NULL, &xs), ABT_SUCCESS);
    ABT_pool wp;
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &wp), ABT_SUCCESS);
    counter = 0;
    for (int round = 0; round < 5; round++) {
        CHECK(wait_idle_streams(wp, 1)); /* asleep in the pool's waiting pop */
        ABT_thread w;
        rc |= ABT_thread_create(wp, add_one, NULL, ABT_THREAD_ATTR_NULL, &w);
        rc |= ABT_thread_free(&w);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(counter, 5);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);

    /* A RANDWS pool and scheduler run their work too. */
    ABT_pool rp;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_RANDWS, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &rp), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_RANDWS, 1, &rp, ABT_SCHED_CONFIG_NULL, &xs), ABT_SUCCESS);
    counter = 0;
    for (int i = 0; i < 100; i++) rc |= ABT_task_create(rp, add_one, NULL, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(counter, 100);

    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
