/* The lifecycle of work units and streams beyond create and join, against Argobots 1.2's
 * documented semantics:
 *  - migration: 1000 ULTs on 4 streams, each moving itself 8 times to the next stream
 *    (ABT_thread_migrate_to_xstream, _to_pool, _to_sched, ABT_thread_migrate) and yielding: after
 *    each yield it runs on its target (or, for ABT_thread_migrate, on another stream), and the
 *    migration callback (from the attribute, or ABT_thread_set_callback) ran once per move;
 *    queued ULTs moved by another unit run on their new stream; ULTs blocked on a mutex, moved
 *    meanwhile, wake on the new stream; the errors (not migratable, the main ULT, the same pool,
 *    terminated, invalid handles);
 *  - cancel: queued ULTs and tasklets end without running; a ULT that cancels itself ends at its
 *    next yield; a ULT blocked in an eventual ends when woken, without returning from the wait;
 *    one blocked on a mutex or a readers-writer lock, ahead of another waiter, ends so too, and
 *    passes on what its wake gave it: the other waiter gets the lock; one cancelled while it
 *    yields before queueing on a mutex leaves the mutex free to be freed, one whose cond timedwait
 *    expired leaves the cond free for another mutex; joiners wake; the main ULT cannot be
 *    cancelled;
 *  - revive: one ULT handle revived 1000 times (alternating pools of two streams), a tasklet
 *    1000 times, revive_to running the revived ULT before the caller; not terminated: refused;
 *  - streams: ABT_xstream_cancel stops a stream with units left in its pool, ABT_xstream_exit
 *    ends the calling ULT and its stream, ABT_xstream_revive starts each again, which then runs
 *    what was left; the primary refuses all three.
 * Every wait is bounded. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
#define NMIGRANTS 1000
#define MOVES 8
#define NREVIVE 1000

static ABT_xstream streams[NSTREAMS];
static ABT_pool pools[NSTREAMS];
static ABT_sched scheds[NSTREAMS];

static int my_rank(void)
{
    int rank = -1;
    ABT_xstream_self_rank(&rank);
    return rank;
}

/* The index of the stream the caller runs on, or -1. */
static int my_stream(void)
{
    ABT_xstream self;
    if (ABT_xstream_self(&self) != ABT_SUCCESS) return -1;
    for (int i = 0; i < NSTREAMS; i++) {
        if (streams[i] == self) return i;
    }
    return -1;
}

/* ---- Migration -------------------------------------------------------------------------------- */

static long callbacks, wrong_place, migrate_errors, migrants_done;

static void count_callback(ABT_thread thread, void *arg)
{
    (void)thread;
    __atomic_add_fetch((long *)arg, 1, __ATOMIC_RELAXED);
}

static void migrant(void *arg)
{
    (void)arg;
    ABT_thread self;
    ABT_thread_self(&self);
    for (int m = 0; m < MOVES; m++) {
        int here = my_stream(), there = (here + 1) % NSTREAMS, rc;
        switch (m % 4) {
        case 0: rc = ABT_thread_migrate_to_xstream(self, streams[there]); break;
        case 1: rc = ABT_thread_migrate_to_pool(self, pools[there]); break;
        case 2: rc = ABT_thread_migrate_to_sched(self, scheds[there]); break;
        default: rc = ABT_thread_migrate(self); there = -1; break;
        }
        if (rc != ABT_SUCCESS) __atomic_add_fetch(&migrate_errors, 1, __ATOMIC_RELAXED);
        ABT_thread_yield(); /* the scheduling point: it moves here */
        int now = my_stream();
        if (there >= 0 ? now != there : now == here) {
            __atomic_add_fetch(&wrong_place, 1, __ATOMIC_RELAXED);
        }
    }
    __atomic_add_fetch(&migrants_done, 1, __ATOMIC_RELAXED);
}

static void test_migrating_ults(void)
{
    printf("-- %d ULTs moving %d times each\n", NMIGRANTS, MOVES);
    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_callback(attr, count_callback, &callbacks), ABT_SUCCESS);
    ABT_thread *ts = calloc(NMIGRANTS, sizeof *ts);
    for (int i = 0; i < NMIGRANTS; i++) {
        CHECK_INT(ABT_thread_create(pools[i % NSTREAMS], migrant, NULL, attr, &ts[i]), ABT_SUCCESS);
    }
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    for (int i = 0; i < NMIGRANTS; i++) CHECK_INT(ABT_thread_free(&ts[i]), ABT_SUCCESS);
    free(ts);
    CHECK_INT(migrants_done, NMIGRANTS);
    CHECK_INT(migrate_errors, 0);
    CHECK_INT(wrong_place, 0);
    CHECK_INT(callbacks, NMIGRANTS * MOVES);
}

static int where_ran[64];
static void record_stream(void *arg) { where_ran[(intptr_t)arg] = my_stream(); }

/* Queued ULTs moved by another unit (here the main ULT): they run on the new stream. A pool no
 * stream serves holds them until they are moved. */
static void test_moving_queued(void)
{
    printf("-- queued ULTs moved\n");
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &idle),
              ABT_SUCCESS);
    long cb = 0;
    ABT_thread t[16];
    for (int i = 0; i < 16; i++) {
        where_ran[i] = -1;
        CHECK_INT(ABT_thread_create(idle, record_stream, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL,
                                    &t[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_thread_set_callback(t[i], count_callback, &cb), ABT_SUCCESS);
    }
    for (int i = 0; i < 16; i++) {
        CHECK_INT(ABT_thread_migrate_to_xstream(t[i], streams[1 + i % 3]), ABT_SUCCESS);
    }
    for (int i = 0; i < 16; i++) {
        CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
        CHECK_INT(where_ran[i], 1 + i % 3);
    }
    CHECK_INT(cb, 16);
    CHECK_INT(ABT_pool_free(&idle), ABT_SUCCESS);
}

static ABT_mutex blocked_mutex;
static void lock_and_record(void *arg)
{
    ABT_mutex_lock(blocked_mutex);
    where_ran[(intptr_t)arg] = my_stream();
    ABT_mutex_unlock(blocked_mutex);
}

/* ULTs parked on a mutex the main ULT holds are moved to stream 3: they wake there. */
static void test_moving_blocked(void)
{
    printf("-- blocked ULTs moved\n");
    enum { N = 8 };
    CHECK_INT(ABT_mutex_create(&blocked_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(blocked_mutex), ABT_SUCCESS);
    ABT_thread t[N];
    for (int i = 0; i < N; i++) {
        where_ran[i] = -1;
        CHECK_INT(ABT_thread_create(pools[1], lock_and_record, (void *)(intptr_t)i,
                                    ABT_THREAD_ATTR_NULL, &t[i]),
                  ABT_SUCCESS);
    }
    int blocked = 0;
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    while (blocked < N && ABT_get_wtime() < end) {
        blocked = 0;
        for (int i = 0; i < N; i++) {
            ABT_thread_state st;
            ABT_thread_get_state(t[i], &st);
            blocked += st == ABT_THREAD_STATE_BLOCKED;
        }
        if (blocked < N) ABT_thread_yield();
    }
    CHECK_INT(blocked, N);
    for (int i = 0; i < N; i++) CHECK_INT(ABT_thread_migrate_to_xstream(t[i], streams[3]), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(blocked_mutex), ABT_SUCCESS);
    for (int i = 0; i < N; i++) {
        CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
        CHECK_INT(where_ran[i], 3);
    }
    CHECK_INT(ABT_mutex_free(&blocked_mutex), ABT_SUCCESS);
}

static void nothing(void *arg) { (void)arg; }

static void test_migration_errors(void)
{
    printf("-- migration errors\n");
    ABT_thread self, t;
    CHECK_INT(ABT_thread_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_thread_migrate_to_xstream(self, streams[1]), ABT_ERR_INV_THREAD); /* main ULT */
    CHECK_INT(ABT_thread_migrate(self), ABT_ERR_INV_THREAD);
    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_migratable(attr, ABT_FALSE), ABT_SUCCESS);
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &idle),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(idle, nothing, NULL, attr, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_migrate_to_pool(t, pools[1]), ABT_ERR_INV_THREAD); /* not migratable */
    CHECK_INT(ABT_thread_set_migratable(t, ABT_TRUE), ABT_SUCCESS);
    CHECK_INT(ABT_thread_migrate_to_pool(t, idle), ABT_ERR_MIGRATION_TARGET); /* where it is */
    CHECK_INT(ABT_thread_migrate_to_pool(t, ABT_POOL_NULL), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_thread_migrate_to_xstream(t, ABT_XSTREAM_NULL), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_thread_migrate_to_sched(t, ABT_SCHED_NULL), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_thread_migrate_to_pool(t, pools[0]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_migrate_to_pool(t, pools[1]), ABT_ERR_INV_THREAD); /* terminated */
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_migrate_to_pool(ABT_THREAD_NULL, pools[1]), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_set_callback(ABT_THREAD_NULL, count_callback, NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&idle), ABT_SUCCESS);
}

/* ---- Cancel ------------------------------------------------------------------------------------ */

static int body_ran, after_point;

static void counted_body(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&body_ran, 1, __ATOMIC_RELAXED);
}

static void cancels_itself(void *arg)
{
    (void)arg;
    ABT_thread self;
    ABT_thread_self(&self);
    ABT_thread_cancel(self);
    ABT_thread_yield(); /* ends here */
    after_point = 1;
}

static ABT_eventual cancel_ev;
static void waits_then_more(void *arg)
{
    (void)arg;
    __atomic_store_n(&body_ran, 1, __ATOMIC_RELEASE);
    ABT_eventual_wait(cancel_ev, NULL); /* woken, then cancelled before it runs on */
    after_point = 1;
}

static void test_cancel(void)
{
    printf("-- cancel\n");
    enum { N = 100 };
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &idle),
              ABT_SUCCESS);
    ABT_thread t[N];
    ABT_task k[N];
    body_ran = 0;
    for (int i = 0; i < N; i++) {
        CHECK_INT(ABT_thread_create(idle, counted_body, NULL, ABT_THREAD_ATTR_NULL, &t[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_task_create(idle, counted_body, NULL, &k[i]), ABT_SUCCESS);
    }
    for (int i = 0; i < N; i++) {
        CHECK_INT(ABT_thread_cancel(t[i]), ABT_SUCCESS);
        CHECK_INT(ABT_task_cancel(k[i]), ABT_SUCCESS);
    }
    size_t left = 1;
    CHECK_INT(ABT_pool_get_size(idle, &left), ABT_SUCCESS);
    CHECK_INT(left, 0);
    for (int i = 0; i < N; i++) {
        ABT_thread_state st;
        CHECK_INT(ABT_thread_get_state(t[i], &st), ABT_SUCCESS);
        CHECK_INT(st, ABT_THREAD_STATE_TERMINATED);
        CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
        CHECK_INT(ABT_task_free(&k[i]), ABT_SUCCESS);
    }
    CHECK_INT(body_ran, 0);

    /* Running: it ends at its next scheduling point. */
    ABT_thread self_cancel;
    after_point = 0;
    CHECK_INT(ABT_thread_create(pools[2], cancels_itself, NULL, ABT_THREAD_ATTR_NULL, &self_cancel),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&self_cancel), ABT_SUCCESS);
    CHECK_INT(after_point, 0);

    /* Blocked: cancelled while it waits, it ends once woken. */
    CHECK_INT(ABT_eventual_create(0, &cancel_ev), ABT_SUCCESS);
    ABT_thread waiter;
    body_ran = 0;
    CHECK_INT(ABT_thread_create(pools[1], waits_then_more, NULL, ABT_THREAD_ATTR_NULL, &waiter),
              ABT_SUCCESS);
    CHECK(wait_for(&body_ran, 1));
    CHECK(wait_state(waiter, ABT_THREAD_STATE_BLOCKED));
    CHECK_INT(ABT_thread_cancel(waiter), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_set(cancel_ev, NULL, 0), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&waiter), ABT_SUCCESS);
    CHECK_INT(after_point, 0);
    CHECK_INT(ABT_eventual_free(&cancel_ev), ABT_SUCCESS);

    ABT_thread self;
    CHECK_INT(ABT_thread_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_thread_cancel(self), ABT_ERR_INV_THREAD); /* the main ULT */
    CHECK_INT(ABT_thread_cancel(ABT_THREAD_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_task_cancel(ABT_TASK_NULL), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_pool_free(&idle), ABT_SUCCESS);
}

/* ---- Cancel of a waiter woken by a lock ------------------------------------------------------ */

static ABT_mutex cl_mutex;
static ABT_rwlock cl_rwlock;
static int cl_got[2];

static void cl_mutex_locker(void *arg)
{
    int i = (int)(intptr_t)arg;
    CHECK_INT(ABT_mutex_lock(cl_mutex), ABT_SUCCESS);
    cl_got[i] = 1;
    CHECK_INT(ABT_mutex_unlock(cl_mutex), ABT_SUCCESS);
}

static void cl_rwlock_writer(void *arg)
{
    int i = (int)(intptr_t)arg;
    CHECK_INT(ABT_rwlock_wrlock(cl_rwlock), ABT_SUCCESS);
    cl_got[i] = 1;
    CHECK_INT(ABT_rwlock_unlock(cl_rwlock), ABT_SUCCESS);
}

/* The calling ULT's stream's first pool: ULTs made there run when the caller yields. */
static ABT_pool callers_pool(void)
{
    ABT_xstream self = ABT_XSTREAM_NULL;
    ABT_pool pool = ABT_POOL_NULL;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    return pool;
}

/* The main ULT holds the lock; ULTs 0 and 1 (in the main ULT's pool) block on it in that order;
 * 0 is cancelled; the main ULT unlocks, which wakes 0 (ahead) and gives it the lock (a rwlock)
 * or leaves waking 1 to it (a mutex); 0 ends when it is popped. 1 must get the lock, also after
 * the main ULT took and gave it back once more (a mutex's fast path wakes nobody). */
static void cancel_woken_round(int rwlock)
{
    ABT_pool pool = callers_pool();
    void (*body)(void *) = rwlock ? cl_rwlock_writer : cl_mutex_locker;
    cl_got[0] = cl_got[1] = 0;
    CHECK_INT(rwlock ? ABT_rwlock_wrlock(cl_rwlock) : ABT_mutex_lock(cl_mutex), ABT_SUCCESS);
    ABT_thread t[2];
    for (int i = 0; i < 2; i++) {
        CHECK_INT(ABT_thread_create(pool, body, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &t[i]),
                  ABT_SUCCESS);
        CHECK(wait_state(t[i], ABT_THREAD_STATE_BLOCKED));
    }
    CHECK_INT(ABT_thread_cancel(t[0]), ABT_SUCCESS);
    CHECK_INT(rwlock ? ABT_rwlock_unlock(cl_rwlock) : ABT_mutex_unlock(cl_mutex), ABT_SUCCESS);
    CHECK(wait_state(t[0], ABT_THREAD_STATE_TERMINATED));
    if (rwlock) {
        CHECK_INT(ABT_rwlock_wrlock(cl_rwlock), ABT_SUCCESS);
        CHECK_INT(ABT_rwlock_unlock(cl_rwlock), ABT_SUCCESS);
    } else {
        CHECK_INT(ABT_mutex_lock(cl_mutex), ABT_SUCCESS);
        CHECK_INT(ABT_mutex_unlock(cl_mutex), ABT_SUCCESS);
    }
    CHECK(wait_state(t[1], ABT_THREAD_STATE_TERMINATED));
    CHECK_INT(cl_got[0], 0);
    CHECK_INT(cl_got[1], 1);
    for (int i = 0; i < 2; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
}

/* A ULT calling ABT_mutex_lock on a held mutex yields a few times before it queues (abt.h);
 * cancelled there, it ends at such a yield: the mutex is not left "waited for" (it can be
 * freed, test_cancel_woken's end). */
static void cancel_yielder_round(void)
{
    ABT_pool pool = callers_pool();
    cl_got[0] = 0;
    CHECK_INT(ABT_mutex_lock(cl_mutex), ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, cl_mutex_locker, (void *)(intptr_t)0, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_yield(), ABT_SUCCESS); /* it tries, and yields back */
    ABT_mutex copy = cl_mutex;
    CHECK_INT(ABT_mutex_free(&copy), ABT_ERR_MUTEX); /* waited for */
    CHECK_INT(ABT_thread_cancel(t), ABT_SUCCESS);
    CHECK(wait_state(t, ABT_THREAD_STATE_TERMINATED));
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(cl_mutex), ABT_SUCCESS);
    CHECK_INT(cl_got[0], 0);
}

/* A ULT whose ABT_cond_timedwait expires is cancelled before it returns: the condition
 * variable, with nobody waiting, is free for another mutex again. */
static ABT_cond cl_cond;
static void cl_timed_waiter(void *arg)
{
    (void)arg;
    CHECK_INT(ABT_mutex_lock(cl_mutex), ABT_SUCCESS);
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 20 * 1000000L;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    ABT_cond_timedwait(cl_cond, cl_mutex, &t); /* ends in it */
    cl_got[0] = 1;
}

static void cancel_timed_out_round(void)
{
    ABT_pool pool = callers_pool();
    cl_got[0] = 0;
    CHECK_INT(ABT_cond_create(&cl_cond), ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, cl_timed_waiter, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK(wait_state(t, ABT_THREAD_STATE_BLOCKED));
    CHECK_INT(ABT_thread_cancel(t), ABT_SUCCESS);
    CHECK(wait_state(t, ABT_THREAD_STATE_TERMINATED)); /* once its deadline passed */
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(cl_got[0], 0);
    ABT_mutex other;
    CHECK_INT(ABT_mutex_create(&other), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(other), ABT_SUCCESS);
    struct timespec past = {0, 0};
    CHECK_INT(ABT_cond_timedwait(cl_cond, other, &past), ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(ABT_mutex_unlock(other), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&other), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&cl_cond), ABT_SUCCESS);
}

static void test_cancel_woken(void)
{
    printf("-- cancel of a woken lock waiter\n");
    CHECK_INT(ABT_mutex_create(&cl_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_create(&cl_rwlock), ABT_SUCCESS);
    cancel_woken_round(0);
    cancel_woken_round(1);
    cancel_yielder_round();
    cancel_timed_out_round();
    CHECK_INT(ABT_mutex_free(&cl_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&cl_rwlock), ABT_SUCCESS);
}

/* ---- Revive ------------------------------------------------------------------------------------ */

static long revived_runs;
static void revived_body(void *arg)
{
    __atomic_add_fetch(&revived_runs, (long)(intptr_t)arg, __ATOMIC_RELAXED);
}

static int revive_to_ran;
static void mark_revive_to(void *arg)
{
    (void)arg;
    revive_to_ran = 1;
}

static void revive_to_caller(void *arg)
{
    ABT_thread *t = arg;
    revive_to_ran = 0;
    ABT_pool pool;
    ABT_self_get_last_pool(&pool);
    if (ABT_thread_revive_to(pool, mark_revive_to, NULL, t) == ABT_SUCCESS && revive_to_ran != 1) {
        revive_to_ran = -1; /* the caller came back before the revived ULT ran */
    }
}

static void test_revive(void)
{
    printf("-- revive\n");
    ABT_thread t;
    ABT_pool idle;
    revived_runs = 0;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &idle),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(idle, revived_body, (void *)1, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_revive(pools[1], revived_body, (void *)1, &t), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_migrate_to_pool(t, pools[1]), ABT_SUCCESS); /* now it runs */
    CHECK_INT(ABT_pool_free(&idle), ABT_SUCCESS);
    int rc = ABT_SUCCESS;
    for (int i = 0; i < NREVIVE && rc == ABT_SUCCESS; i++) {
        rc = ABT_thread_join(t);
        if (rc == ABT_SUCCESS) rc = ABT_thread_revive(pools[1 + i % 2], revived_body, (void *)2, &t);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(revived_runs, 1 + 2 * NREVIVE);

    ABT_task k;
    revived_runs = 0;
    CHECK_INT(ABT_task_create(pools[2], revived_body, (void *)1, &k), ABT_SUCCESS);
    rc = ABT_SUCCESS;
    for (int i = 0; i < NREVIVE && rc == ABT_SUCCESS; i++) {
        rc = ABT_task_join(k);
        if (rc == ABT_SUCCESS) rc = ABT_task_revive(pools[2], revived_body, (void *)1, &k);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_task_join(k), ABT_SUCCESS);
    CHECK_INT(revived_runs, 1 + NREVIVE);
    CHECK_INT(ABT_task_revive(pools[2], revived_body, NULL, &t), ABT_ERR_INV_TASK); /* a ULT */
    CHECK_INT(ABT_task_free(&k), ABT_SUCCESS);

    /* revive_to: the revived ULT runs before its reviver goes on. */
    ABT_thread caller;
    CHECK_INT(ABT_thread_create(pools[1], revive_to_caller, &t, ABT_THREAD_ATTR_NULL, &caller),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&caller), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(revive_to_ran, 1);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_revive(pools[1], revived_body, NULL, &t), ABT_ERR_INV_THREAD); /* freed */
    CHECK_INT(ABT_thread_revive(pools[1], revived_body, NULL, NULL), ABT_ERR_INV_THREAD);
}

/* ---- Streams ----------------------------------------------------------------------------------- */

static int spin_release, spinners_done;
static void spinner(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&spin_release, __ATOMIC_ACQUIRE)) ABT_thread_yield();
    __atomic_add_fetch(&spinners_done, 1, __ATOMIC_RELAXED);
}

static int exit_after;
static void exits_stream(void *arg)
{
    (void)arg;
    ABT_xstream_exit();
    exit_after = 1; /* not reached */
}

static void test_streams(void)
{
    printf("-- stream cancel, exit, revive\n");
    ABT_xstream xs;
    ABT_pool q;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &q),
              ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &q, ABT_SCHED_CONFIG_NULL, &xs),
              ABT_SUCCESS);
    spin_release = 0;
    spinners_done = 0;
    for (int i = 0; i < 4; i++) {
        CHECK_INT(ABT_thread_create(q, spinner, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    }
    CHECK_INT(ABT_xstream_revive(xs), ABT_ERR_INV_XSTREAM); /* running */
    CHECK_INT(ABT_xstream_cancel(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS); /* stopped, with units left */
    ABT_xstream_state state;
    CHECK_INT(ABT_xstream_get_state(xs, &state), ABT_SUCCESS);
    CHECK_INT(state, ABT_XSTREAM_STATE_TERMINATED);
    size_t left = 0;
    CHECK_INT(ABT_pool_get_size(q, &left), ABT_SUCCESS);
    CHECK_INT(left, 4);
    CHECK_INT(spinners_done, 0);
    CHECK_INT(ABT_xstream_revive(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_state(xs, &state), ABT_SUCCESS);
    CHECK_INT(state, ABT_XSTREAM_STATE_RUNNING);
    __atomic_store_n(&spin_release, 1, __ATOMIC_RELEASE);
    int four = 4;
    CHECK(wait_for(&spinners_done, four));

    /* ABT_xstream_exit from a ULT of the stream: the ULT and the stream end. */
    exit_after = 0;
    CHECK_INT(ABT_thread_create(q, exits_stream, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(exit_after, 0);
    body_ran = 0;
    CHECK_INT(ABT_thread_create(q, counted_body, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_revive(xs), ABT_SUCCESS);
    CHECK(wait_for(&body_ran, 1));
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&q), ABT_SUCCESS);

    CHECK_INT(ABT_xstream_exit(), ABT_ERR_INV_XSTREAM); /* the primary */
    CHECK_INT(ABT_xstream_cancel(streams[0]), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_revive(streams[0]), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_cancel(ABT_XSTREAM_NULL), ABT_ERR_INV_XSTREAM);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(start_streams(NSTREAMS, streams, pools), ABT_SUCCESS);
    for (int i = 0; i < NSTREAMS; i++) CHECK_INT(ABT_xstream_get_main_sched(streams[i], &scheds[i]), ABT_SUCCESS);
    CHECK_INT(my_rank(), 0);
    test_migrating_ults();
    test_moving_queued();
    test_moving_blocked();
    test_migration_errors();
    test_cancel();
    test_cancel_woken();
    test_revive();
    test_streams();
    for (int i = 1; i < NSTREAMS; i++) {
        CHECK_INT(ABT_xstream_join(streams[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&streams[i]), ABT_SUCCESS);
    }
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
