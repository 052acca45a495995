/* Handles that are no longer (or never were) what they claim, found by probing as a hard user
 * would; each used to crash or to act on the wrong object:
 *  - the timer functions given every other kind's NULL handle (any value below 4096) and a freed
 *    timer: ABT_ERR_INV_TIMER, not a segfault;
 *  - a ULT handle kept past ABT_finalize (the ULT never freed): refused with ABT_ERR_INV_THREAD
 *    after finalize (its memory used to be unmapped: a segfault) and after a new ABT_init, where
 *    it used to name a new unit (ABT_thread_free(old) freed a live ULT and returned success);
 *  - ABT_pool_free of a pool that a ULT parked in a join still belongs to (its scheduler
 *    replaced): refused with ABT_ERR_POOL; the ULT later runs from it;
 *  - what outlives ABT_finalize when the program does not free it (abt.h, ABT_finalize): a
 *    pool holding a ULT that never ran, and a scheduler, belong to the runtime that made them
 *    and are refused after it, also after a new ABT_init (the pool used to stay usable, its
 *    ULT of the old runtime in it, and ABT_pool_free answered ABT_ERR_POOL for ever); keys,
 *    ULT attributes, configurations, pool definitions and synchronization objects stay valid
 *    until freed, after the new ABT_init too. */
// ctest-leaks: it keeps ULT, pool and scheduler handles past ABT_finalize on purpose, to check that they are refused there
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

static void nothing(void *arg) { (void)arg; }

static void test_timer_handles(void)
{
    double secs = 0;
    ABT_timer dup;
    uintptr_t bad[] = {(uintptr_t)ABT_XSTREAM_NULL, (uintptr_t)ABT_POOL_NULL,
                       (uintptr_t)ABT_THREAD_NULL, (uintptr_t)ABT_MUTEX_NULL,
                       (uintptr_t)ABT_KEY_NULL, (uintptr_t)ABT_TIMER_NULL, 1, 17, 4095};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ABT_timer t = (ABT_timer)bad[i];
        CHECK_INT(ABT_timer_start(t), ABT_ERR_INV_TIMER);
        CHECK_INT(ABT_timer_stop(t), ABT_ERR_INV_TIMER);
        CHECK_INT(ABT_timer_read(t, &secs), ABT_ERR_INV_TIMER);
        CHECK_INT(ABT_timer_stop_and_read(t, &secs), ABT_ERR_INV_TIMER);
        CHECK_INT(ABT_timer_stop_and_add(t, &secs), ABT_ERR_INV_TIMER);
        CHECK_INT(ABT_timer_dup(t, &dup), ABT_ERR_INV_TIMER);
        ABT_timer copy = t;
        CHECK_INT(ABT_timer_free(&copy), ABT_ERR_INV_TIMER);
    }
    ABT_timer t, stale;
    CHECK_INT(ABT_timer_create(&t), ABT_SUCCESS);
    stale = t;
    CHECK_INT(ABT_timer_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_timer_start(stale), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_read(stale, &secs), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_free(&stale), ABT_ERR_INV_TIMER);
}

static void test_handle_across_finalize(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    ABT_thread old;
    CHECK_INT(ABT_thread_create(pool, nothing, NULL, ABT_THREAD_ATTR_NULL, &old), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(old), ABT_SUCCESS); /* joined, never freed */
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    ABT_thread_state st;
    CHECK_INT(ABT_thread_get_state(old, &st), ABT_ERR_INV_THREAD);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    enum { N = 2000 };
    static ABT_thread fresh[N];
    int created = 0;
    for (int i = 0; i < N; i++) {
        created += ABT_thread_create(pool, nothing, NULL, ABT_THREAD_ATTR_NULL, &fresh[i]) ==
                   ABT_SUCCESS;
    }
    CHECK_INT(created, N);
    CHECK_INT(ABT_thread_get_state(old, &st), ABT_ERR_INV_THREAD);
    ABT_thread copy = old;
    CHECK_INT(ABT_thread_free(&copy), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_join(old), ABT_ERR_INV_THREAD);
    int freed = 0;
    for (int i = 0; i < N; i++) freed += ABT_thread_free(&fresh[i]) == ABT_SUCCESS;
    CHECK_INT(freed, N);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

static ABT_unit def_create(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    return (ABT_unit)thread;
}
static void def_free(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    (void)unit;
}
static ABT_bool def_empty(ABT_pool pool)
{
    (void)pool;
    return ABT_TRUE;
}
static ABT_thread def_pop(ABT_pool pool, ABT_pool_context ctx)
{
    (void)pool;
    (void)ctx;
    return ABT_THREAD_NULL;
}
static void def_push(ABT_pool pool, ABT_unit unit, ABT_pool_context ctx)
{
    (void)pool;
    (void)unit;
    (void)ctx;
}

static void test_objects_across_finalize(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_pool pool;
    ABT_sched sched;
    ABT_thread never_ran;
    ABT_key key;
    ABT_thread_attr attr;
    ABT_pool_config pconf;
    ABT_sched_config sconf;
    ABT_pool_user_def def;
    ABT_mutex mutex;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool, nothing, NULL, ABT_THREAD_ATTR_NULL, &never_ran), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(NULL, &key), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_stacksize(attr, 65536), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_create(&pconf), ABT_SUCCESS);
    ABT_sched_config_var var0 = {0, ABT_SCHED_CONFIG_INT};
    CHECK_INT(ABT_sched_config_create(&sconf, var0, 10, ABT_sched_config_var_end), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_create(def_create, def_free, def_empty, def_pop, def_push, &def), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    for (int round = 0; round < 2; round++) { /* after ABT_finalize, then after a new ABT_init */
        if (round == 1) CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
        size_t n;
        int num;
        CHECK_INT(ABT_pool_get_size(pool, &n), ABT_ERR_INV_POOL);
        CHECK_INT(ABT_sched_get_num_pools(sched, &num), ABT_ERR_INV_SCHED);
        ABT_thread t = ABT_THREAD_NULL;
        CHECK_INT(ABT_thread_create(pool, nothing, NULL, ABT_THREAD_ATTR_NULL, &t),
                  round == 0 ? ABT_ERR_UNINITIALIZED : ABT_ERR_INV_POOL);
        ABT_pool pcopy = pool;
        CHECK_INT(ABT_pool_free(&pcopy), ABT_ERR_INV_POOL);
        ABT_sched scopy = sched;
        CHECK_INT(ABT_sched_free(&scopy), ABT_ERR_INV_SCHED);
        ABT_thread_state st;
        CHECK_INT(ABT_thread_get_state(never_ran, &st), ABT_ERR_INV_THREAD);
        size_t size = 0;
        CHECK_INT(ABT_thread_attr_get_stacksize(attr, &size), ABT_SUCCESS);
        CHECK_INT(size, 65536);
        int freq = 0;
        CHECK_INT(ABT_sched_config_read(sconf, 1, &freq), ABT_SUCCESS);
        CHECK_INT(freq, 10);
        CHECK_INT(ABT_mutex_lock(mutex), ABT_SUCCESS);
        CHECK_INT(ABT_mutex_unlock(mutex), ABT_SUCCESS);
    }
    /* In the new runtime the kept ones still work: a pool made from the definition, a ULT made
     * with the attribute, which sets the key. */
    ABT_pool upool;
    CHECK_INT(ABT_pool_create(def, pconf, &upool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&upool), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool main_pool;
    ABT_thread t;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &main_pool), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(main_pool, nothing, NULL, attr, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    void *v = NULL;
    CHECK_INT(ABT_key_set(key, (void *)&v), ABT_SUCCESS);
    CHECK_INT(ABT_key_get(key, &v), ABT_SUCCESS);
    CHECK(v == (void *)&v);
    CHECK_INT(ABT_key_free(&key), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_free(&pconf), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_free(&sconf), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

/* A pool a parked ULT belongs to. */
static int release, joined;

static void waits(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

static void joins(void *arg)
{
    CHECK_INT(ABT_thread_join((ABT_thread)arg), ABT_SUCCESS);
    __atomic_store_n(&joined, 1, __ATOMIC_RELEASE);
}

static ABT_pool replacement;

static void replaces(void *arg)
{
    CHECK_INT(ABT_xstream_set_main_sched_basic((ABT_xstream)arg, ABT_SCHED_BASIC, 1, &replacement),
              ABT_SUCCESS);
}

static void test_pool_free_with_parked_ult(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self, s1, s2;
    ABT_pool primary, p;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &primary), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &p), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &replacement),
              ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &p, ABT_SCHED_CONFIG_NULL, &s1),
              ABT_SUCCESS);
    /* A ULT of p parks joining a ULT of the primary. */
    ABT_thread target, joiner, r;
    CHECK_INT(ABT_thread_create(primary, waits, NULL, ABT_THREAD_ATTR_NULL, &target), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(p, joins, target, ABT_THREAD_ATTR_NULL, &joiner), ABT_SUCCESS);
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    for (double end = ABT_get_wtime() + 10; ABT_get_wtime() < end; ABT_thread_yield()) {
        if (ABT_thread_get_state(joiner, &st) == ABT_SUCCESS && st == ABT_THREAD_STATE_BLOCKED) break;
    }
    CHECK_INT(st, ABT_THREAD_STATE_BLOCKED);
    /* s1 moves to another pool: no scheduler uses p any more, but the joiner belongs to it. */
    CHECK_INT(ABT_thread_create(p, replaces, s1, ABT_THREAD_ATTR_NULL, &r), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&r), ABT_SUCCESS);
    ABT_pool copy = p;
    CHECK_INT(ABT_pool_free(&copy), ABT_ERR_POOL);
    CHECK(copy == p);
    /* The joiner comes back to p when its target ends; a stream serving p runs it. */
    __atomic_store_n(&release, 1, __ATOMIC_RELEASE);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &p, ABT_SCHED_CONFIG_NULL, &s2),
              ABT_SUCCESS);
    CHECK(wait_for(&joined, 1));
    CHECK_INT(ABT_thread_free(&joiner), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&target), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&s2), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&s1), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&p), ABT_SUCCESS); /* nothing belongs to it now */
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

int main(void)
{
    test_timer_handles();
    test_handle_across_finalize();
    test_objects_across_finalize();
    test_pool_free_with_parked_ult();
    return check_summary();
}
