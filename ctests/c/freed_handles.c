/* Freed handles are refused without reading memory the allocator owns. Every kind of handle
 * that is not a work unit lives in memory the Go core hands out and never gives back to malloc
 * (capi/object.c), so a handle kept past its free reads the freed mark there: each call with it
 * returns the kind's ABT_ERR_INV_* code, a second free too, and the next creates return new
 * objects (under jemalloc, a double ABT_thread_attr_free used to succeed and the next two creates
 * returned the same object). Run plainly, under jemalloc (variant jemalloc: LD_PRELOAD), under
 * AddressSanitizer (where the checks used to abort with heap-use-after-free inside goabt) and
 * under valgrind. Kinds: ULT attributes (made and from ABT_thread_get_attr), pools, schedulers,
 * execution streams, pool and scheduler configurations, pool definitions, and, already in
 * object memory before, mutexes, conditions, rwlocks, eventuals, futures, barriers, timers. */
// ctest-variant: default
// ctest-variant: jemalloc LD_PRELOAD=libjemalloc.so.2 FREED_HANDLES_JEMALLOC=1
// ctest-env: GOABT_CHECK_LEAKS=fatal
// ctest-libs: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <abt.h>
#include <goabt.h>
#include "check.h"

static void nothing(void *arg) { (void)arg; }

static ABT_unit u_create(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    return (ABT_unit)thread;
}
static void u_free(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    (void)unit;
}
static ABT_bool u_empty(ABT_pool pool)
{
    (void)pool;
    return ABT_TRUE;
}
static ABT_thread u_pop(ABT_pool pool, ABT_pool_context ctx)
{
    (void)pool;
    (void)ctx;
    return ABT_THREAD_NULL;
}
static void u_push(ABT_pool pool, ABT_unit unit, ABT_pool_context ctx)
{
    (void)pool;
    (void)unit;
    (void)ctx;
}

static void attrs(void)
{
    ABT_thread_attr a, stale;
    size_t size;
    CHECK_INT(ABT_thread_attr_create(&a), ABT_SUCCESS);
    stale = a;
    CHECK_INT(ABT_thread_attr_free(&a), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_get_stacksize(stale, &size), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_set_stacksize(stale, 65536), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_attr_set_migratable(stale, ABT_FALSE), ABT_ERR_INV_THREAD_ATTR);
    ABT_thread_attr copy = stale;
    CHECK_INT(ABT_thread_attr_free(&copy), ABT_ERR_INV_THREAD_ATTR); /* a double free */
    /* The next two creates give two objects. */
    ABT_thread_attr b, c;
    CHECK_INT(ABT_thread_attr_create(&b), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_create(&c), ABT_SUCCESS);
    CHECK(b != c);
    CHECK_INT(ABT_thread_attr_free(&b), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&c), ABT_SUCCESS);

    /* An attribute a ULT's query made. */
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread t;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool, nothing, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_attr(t, &a), ABT_SUCCESS);
    stale = a;
    CHECK_INT(ABT_thread_attr_free(&a), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_get_stacksize(stale, &size), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
}

static void pools_and_scheds(void)
{
    ABT_pool p, stale_p;
    size_t n;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &p), ABT_SUCCESS);
    stale_p = p;
    CHECK_INT(ABT_pool_free(&p), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_size(stale_p, &n), ABT_ERR_INV_POOL);
    int idle = -1;
    CHECK_INT(goabt_pool_get_num_idle_streams(stale_p, &idle), ABT_ERR_INV_POOL);
    CHECK_INT(goabt_pool_get_num_idle_streams(ABT_POOL_NULL, &idle), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_get_total_size(stale_p, &n), ABT_ERR_INV_POOL);
    ABT_thread t = (ABT_thread)(uintptr_t)1;
    CHECK_INT(ABT_thread_create(stale_p, nothing, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_ERR_INV_POOL);
    CHECK(t == ABT_THREAD_NULL);
    ABT_pool copy = stale_p;
    CHECK_INT(ABT_pool_free(&copy), ABT_ERR_INV_POOL);

    ABT_sched s, stale_s;
    int num;
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &s), ABT_SUCCESS);
    stale_s = s;
    CHECK_INT(ABT_sched_free(&s), ABT_SUCCESS);
    CHECK_INT(ABT_sched_get_num_pools(stale_s, &num), ABT_ERR_INV_SCHED);
    ABT_sched scopy = stale_s;
    CHECK_INT(ABT_sched_free(&scopy), ABT_ERR_INV_SCHED);

    ABT_xstream x, stale_x;
    int rank;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &x), ABT_SUCCESS);
    stale_x = x;
    CHECK_INT(ABT_xstream_free(&x), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_rank(stale_x, &rank), ABT_ERR_INV_XSTREAM);
    ABT_xstream xcopy = stale_x;
    CHECK_INT(ABT_xstream_free(&xcopy), ABT_ERR_INV_XSTREAM);
}

static void configs_and_defs(void)
{
    ABT_pool_config pc, stale_pc;
    int v = 7;
    CHECK_INT(ABT_pool_config_create(&pc), ABT_SUCCESS);
    stale_pc = pc;
    CHECK_INT(ABT_pool_config_free(&pc), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_set(stale_pc, 1, ABT_POOL_CONFIG_INT, &v), ABT_ERR_INV_POOL_CONFIG);
    ABT_pool_config pcopy = stale_pc;
    CHECK_INT(ABT_pool_config_free(&pcopy), ABT_ERR_INV_POOL_CONFIG);

    ABT_sched_config sc, stale_sc;
    CHECK_INT(ABT_sched_config_create(&sc, ABT_sched_config_var_end), ABT_SUCCESS);
    stale_sc = sc;
    CHECK_INT(ABT_sched_config_free(&sc), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_read(stale_sc, 0), ABT_ERR_INV_SCHED_CONFIG);
    ABT_sched_config scopy = stale_sc;
    CHECK_INT(ABT_sched_config_free(&scopy), ABT_ERR_INV_SCHED_CONFIG);

    ABT_pool_user_def d, stale_d;
    CHECK_INT(ABT_pool_user_def_create(u_create, u_free, u_empty, u_pop, u_push, &d), ABT_SUCCESS);
    stale_d = d;
    CHECK_INT(ABT_pool_user_def_free(&d), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_init(stale_d, NULL), ABT_ERR_INV_POOL_USER_DEF);
    ABT_pool pool = ABT_POOL_NULL;
    CHECK_INT(ABT_pool_create(stale_d, ABT_POOL_CONFIG_NULL, &pool), ABT_ERR_INV_POOL_USER_DEF);
    ABT_pool_user_def dcopy = stale_d;
    CHECK_INT(ABT_pool_user_def_free(&dcopy), ABT_ERR_INV_POOL_USER_DEF);
}

static void sync_objects(void)
{
    ABT_mutex m, sm;
    ABT_cond c, sc;
    ABT_eventual e, se;
    ABT_rwlock r, sr;
    ABT_timer t, st;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&c), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_create(8, &e), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_create(&r), ABT_SUCCESS);
    CHECK_INT(ABT_timer_create(&t), ABT_SUCCESS);
    sm = m, sc = c, se = e, sr = r, st = t;
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&r), ABT_SUCCESS);
    CHECK_INT(ABT_timer_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(sm), ABT_ERR_INV_MUTEX);
    int waiters = -1;
    CHECK_INT(goabt_mutex_get_num_waiters(sm, &waiters), ABT_ERR_INV_MUTEX);
    CHECK_INT(goabt_mutex_get_num_waiters(ABT_MUTEX_NULL, &waiters), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_cond_signal(sc), ABT_ERR_INV_COND);
    CHECK_INT(ABT_eventual_set(se, NULL, 0), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_rwlock_rdlock(sr), ABT_ERR_INV_RWLOCK);
    CHECK_INT(ABT_timer_start(st), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_mutex_free(&sm), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_cond_free(&sc), ABT_ERR_INV_COND);
}

int main(void)
{
    /* The jemalloc variant runs under jemalloc indeed (a preload the loader cannot find is
     * only a warning): it exports mallctl. */
    if (getenv("FREED_HANDLES_JEMALLOC") != NULL) CHECK(dlsym(RTLD_DEFAULT, "mallctl") != NULL);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    attrs();
    pools_and_scheds();
    configs_and_defs();
    sync_objects();
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
