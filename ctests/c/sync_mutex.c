/* Mutexes (ABT_mutex_*, ABT_mutex_attr_*), against Argobots 1.2's documented semantics:
 *  - static mutexes (ABT_mutex_memory, ABT_MUTEX_INITIALIZER, ABT_RECURSIVE_MUTEX_INITIALIZER,
 *    ABT_MUTEX_MEMORY_GET_HANDLE) used before ABT_init, while initialized and after ABT_finalize,
 *    from the main thread and plain pthreads as well as ULTs; their counters add up exactly over
 *    the whole program; created mutexes and attributes work outside init too, as in Argobots
 *    (more in objects_before_init);
 *  - every lock function (lock, lock_high, lock_low, trylock, spinlock) really locks, every unlock
 *    function (unlock, unlock_se, unlock_de) really unlocks; trylock on a held mutex gives
 *    ABT_ERR_MUTEX_LOCKED (also from the holder of a non-recursive mutex); equal; get_attr; free
 *    of a locked mutex succeeds;
 *  - attributes: default not recursive, set/get_recursive, create_with_attr copies the attribute
 *    (changing or freeing the attribute afterwards does not change the mutex), ABT_MUTEX_ATTR_NULL
 *    gives a default mutex;
 *  - recursive mutexes: locked N times by one ULT (with different lock functions), a second ULT
 *    on the SAME stream, a ULT on another stream and a pthread stay blocked until the N-th
 *    unlock, then get it one at a time; ownership belongs to the work unit, not the stream;
 *  - 4 streams x 64 ULTs incrementing one counter (read, sometimes yield, write) under one mutex,
 *    with every lock/unlock variant; a second round (64 ULTs) without yields in the critical
 *    section that also uses spinlock, on the static plain and recursive mutexes; exact counts;
 *  - 64 ULTs on 4 streams and 2 external pthreads on one mutex at once (dynamic plain and static
 *    recursive); exact counts;
 *  - lock_high and lock_low waiters queued behind a held mutex: Argobots 1.2 documents that a
 *    program relying on mutex priorities is non-conforming, so only "every waiter gets it, one at
 *    a time" is asserted; the order is printed;
 *  - bad input: ABT_MUTEX_NULL / ABT_MUTEX_ATTR_NULL, NULL pointers, freed handles, handles of
 *    another kind (cond, rwlock, eventual, attr <-> mutex) give ABT_ERR_INV_MUTEX,
 *    ABT_ERR_INV_MUTEX_ATTR or ABT_ERR_INV_ARG and harm nothing.
 * Every wait is bounded: when one expires the program reports it and exits. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "sync_util.h"

/* ---- Helpers ----------------------------------------------------------------------------- */

/* Lock kinds: 0 lock, 1 lock_high, 2 lock_low, 3 trylock until it succeeds, 4 spinlock. */
static int lock_by(int kind, ABT_mutex m)
{
    switch (kind) {
    case 0: return ABT_mutex_lock(m);
    case 1: return ABT_mutex_lock_high(m);
    case 2: return ABT_mutex_lock_low(m);
    case 3: {
        int rc;
        while ((rc = ABT_mutex_trylock(m)) == ABT_ERR_MUTEX_LOCKED) relax();
        return rc;
    }
    default: return ABT_mutex_spinlock(m);
    }
}

/* Unlock kinds: 0 unlock, 1 unlock_se, 2 unlock_de. */
static int unlock_by(int kind, ABT_mutex m)
{
    switch (kind) {
    case 0: return ABT_mutex_unlock(m);
    case 1: return ABT_mutex_unlock_se(m);
    default: return ABT_mutex_unlock_de(m);
    }
}

/* probe_trylock (sync_util.h) run by a ULT. */
static void probe_ult(void *arg) { probe_body(arg); }

/* ---- Counting jobs ------------------------------------------------------------------------ */

/* A job increments *count iters times under m: it locks depth times (depth > 1: recursive
 * mutex), reads the counter, sometimes yields (yield_in_cs), writes it back plus one, unlocks
 * depth times. Lock and unlock functions rotate with the iteration; kinds is 4 (no spinlock: a
 * spinning ULT would starve a holder that yielded on its stream) or 5. */
struct job {
    ABT_mutex m;
    long *count;
    int iters, depth, yield_in_cs, kinds, seed;
    int *errors, *done;
    int *keep_going, keep_want; /* if set: go on past iters until *keep_going >= keep_want */
    long ran;                   /* iterations done */
};

static void run_job(struct job *j)
{
    int errors = 0, i;
    for (i = 0; i < j->iters || (j->keep_going && load(j->keep_going) < j->keep_want); i++) {
        int lk = (i + j->seed) % j->kinds, ul = (i / j->kinds + j->seed) % 3, got = 0, rc = ABT_SUCCESS;
        for (int d = 0; d < j->depth; d++) {
            /* Nested levels use another lock function than the first. */
            rc = lock_by((lk + d) % j->kinds, j->m);
            if (rc != ABT_SUCCESS) break;
            got++;
        }
        if (rc == ABT_SUCCESS) {
            long v = *j->count;
            if (j->yield_in_cs && (i + j->seed) % 8 == 0) relax();
            *j->count = v + 1;
        } else {
            errors++;
        }
        for (int d = 0; d < got; d++) errors += unlock_by((ul + d) % 3, j->m) != ABT_SUCCESS;
        /* Going on for as long as others run: give them a chance at the mutex. */
        if (j->keep_going) relax();
    }
    j->ran = i;
    __atomic_add_fetch(j->errors, errors, __ATOMIC_RELAXED);
    inc(j->done);
}
static void job_ult(void *arg) { run_job(arg); }
static void *job_pthread(void *arg)
{
    run_job(arg);
    return NULL;
}

/* Runs nthreads pthreads on one job description each (seeds differ); returns when all ended. */
static void run_pthreads(int nthreads, struct job *proto, int *done)
{
    pthread_t t[8];
    struct job jobs[8];
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = *proto;
        jobs[i].seed = i;
        pthread_create(&t[i], NULL, job_pthread, &jobs[i]);
    }
    MUST(until(done, nthreads));
    for (int i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
}

/* ---- Static mutexes ----------------------------------------------------------------------- */

static ABT_mutex_memory s_plain_mem = ABT_MUTEX_INITIALIZER;
static ABT_mutex_memory s_rec_mem = ABT_RECURSIVE_MUTEX_INITIALIZER;
#define S_PLAIN ABT_MUTEX_MEMORY_GET_HANDLE(&s_plain_mem)
#define S_REC ABT_MUTEX_MEMORY_GET_HANDLE(&s_rec_mem)
static long s_plain_count, s_rec_count;       /* guarded by their static mutex */
static long s_plain_expected, s_rec_expected; /* increments done on them so far */

/* 4 pthreads count on both static mutexes (depth 3 on the recursive one). */
static void static_pthread_round(const char *when)
{
    int errors = 0, done = 0;
    struct job j = { S_PLAIN, &s_plain_count, 2000, 1, 1, 5, 0, &errors, &done, NULL, 0, 0 };
    run_pthreads(4, &j, &done);
    done = 0;
    struct job r = { S_REC, &s_rec_count, 2000, 3, 1, 5, 0, &errors, &done, NULL, 0, 0 };
    run_pthreads(4, &r, &done);
    s_plain_expected += 4 * 2000;
    s_rec_expected += 4 * 2000;
    printf("static mutexes, 4 pthreads, %s:\n", when);
    CHECK_INT(errors, 0);
    CHECK_INT(s_plain_count, s_plain_expected);
    CHECK_INT(s_rec_count, s_rec_expected);
}

/* r is held depth levels deep by the caller: unlocks it level by level (rotating the unlock
 * functions), checking that another thread is refused before each unlock and gets it after the
 * last. */
static void unwind_refused(ABT_mutex r, int depth)
{
    int refused = 0, rc = 0;
    for (int k = 0; k < depth; k++) {
        refused += probe_trylock(r) == ABT_ERR_MUTEX_LOCKED;
        rc |= unlock_by(k % 3, r);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(refused, depth);
    CHECK_INT(probe_trylock(r), ABT_SUCCESS);
}

/* An external thread locks the static recursive mutex six levels deep with every lock function;
 * another thread is refused until the sixth unlock. */
static int ext_nest_done;
static void *ext_nest(void *arg)
{
    (void)arg;
    ABT_mutex r = S_REC;
    CHECK_INT(ABT_mutex_lock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_spinlock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock_low(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock_high(r), ABT_SUCCESS);
    unwind_refused(r, 6);
    store(&ext_nest_done, 1);
    return NULL;
}

/* The calling thread (not a ULT: before ABT_init or after ABT_finalize) on the static mutexes. */
static void static_mutexes_from_external(const char *when)
{
    printf("static mutexes from the main thread, %s:\n", when);
    ABT_mutex m = S_PLAIN, r = S_REC;
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(m), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(probe_trylock(m), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(probe_trylock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock_se(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_spinlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(m), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock_de(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock_high(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock_low(m), ABT_SUCCESS);
    CHECK_INT(probe_trylock(m), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(probe_trylock(m), ABT_SUCCESS);

    /* Recursive: two levels by this thread (the second by trylock, which cannot hang on a
     * broken mutex); another thread is refused until the second unlock. */
    CHECK_INT(ABT_mutex_lock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(r), ABT_SUCCESS);
    CHECK_INT(probe_trylock(r), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock(r), ABT_SUCCESS);
    CHECK_INT(probe_trylock(r), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock(r), ABT_SUCCESS);
    CHECK_INT(probe_trylock(r), ABT_SUCCESS);

    /* Six levels with every lock function, on a pthread (bounded, should it hang). */
    ext_nest_done = 0;
    pthread_t t;
    pthread_create(&t, NULL, ext_nest, NULL);
    MUST(until(&ext_nest_done, 1));
    pthread_join(t, NULL);
}

/* ---- Before ABT_init ---------------------------------------------------------------------- */

static void test_before_init(void)
{
    ABT_mutex m = ABT_MUTEX_NULL;
    ABT_mutex_attr a = ABT_MUTEX_ATTR_NULL;
    CHECK_INT(ABT_mutex_attr_create(&a), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create_with_attr(a, &m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_free(&a), ABT_SUCCESS);
    static_mutexes_from_external("before ABT_init");
    static_pthread_round("before ABT_init");
}

/* ---- Basic API on the main ULT ------------------------------------------------------------ */

static void test_basic(void)
{
    printf("basic API:\n");
    ABT_mutex m = ABT_MUTEX_NULL, m2 = ABT_MUTEX_NULL;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&m2), ABT_SUCCESS);
    CHECK(m != ABT_MUTEX_NULL && m2 != ABT_MUTEX_NULL && m != m2);
    if (m == ABT_MUTEX_NULL || m2 == ABT_MUTEX_NULL) return;

    /* Each lock function locks: the holder's own trylock and another thread's are refused (the
     * mutex is not recursive); each unlock function unlocks. */
    for (int kind = 0; kind < 5; kind++) {
        CHECK_INT(lock_by(kind, m), ABT_SUCCESS);
        CHECK_INT(ABT_mutex_trylock(m), ABT_ERR_MUTEX_LOCKED);
        CHECK_INT(probe_trylock(m), ABT_ERR_MUTEX_LOCKED);
        CHECK_INT(ABT_mutex_trylock(m2), ABT_SUCCESS); /* another mutex is independent */
        CHECK_INT(ABT_mutex_unlock(m2), ABT_SUCCESS);
        CHECK_INT(unlock_by(kind % 3, m), ABT_SUCCESS);
        CHECK_INT(probe_trylock(m), ABT_SUCCESS);
    }
    CHECK_INT(ABT_mutex_trylock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);

    ABT_bool eq = ABT_FALSE;
    CHECK_INT(ABT_mutex_equal(m, m, &eq), ABT_SUCCESS);
    CHECK_INT(eq, ABT_TRUE);
    CHECK_INT(ABT_mutex_equal(m, m2, &eq), ABT_SUCCESS);
    CHECK_INT(eq, ABT_FALSE);
    CHECK_INT(ABT_mutex_equal(m, S_PLAIN, &eq), ABT_SUCCESS);
    CHECK_INT(eq, ABT_FALSE);
    CHECK_INT(ABT_mutex_equal(S_REC, S_REC, &eq), ABT_SUCCESS);
    CHECK_INT(eq, ABT_TRUE);
    CHECK_INT(ABT_mutex_equal(ABT_MUTEX_NULL, ABT_MUTEX_NULL, &eq), ABT_SUCCESS);
    CHECK_INT(eq, ABT_TRUE);

    /* get_attr: a new attribute object describing the mutex. */
    ABT_mutex_attr a = ABT_MUTEX_ATTR_NULL;
    ABT_bool rec = ABT_TRUE;
    CHECK_INT(ABT_mutex_get_attr(m, &a), ABT_SUCCESS);
    CHECK(a != ABT_MUTEX_ATTR_NULL);
    CHECK_INT(ABT_mutex_attr_get_recursive(a, &rec), ABT_SUCCESS);
    CHECK_INT(rec, ABT_FALSE);
    CHECK_INT(ABT_mutex_attr_free(&a), ABT_SUCCESS);
    CHECK(a == ABT_MUTEX_ATTR_NULL);

    /* A mutex may be freed while locked. */
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    CHECK(m == ABT_MUTEX_NULL);
    CHECK_INT(ABT_mutex_free(&m2), ABT_SUCCESS);
    CHECK(m2 == ABT_MUTEX_NULL);
}

/* ---- Attributes --------------------------------------------------------------------------- */

static void test_attr(void)
{
    printf("attributes:\n");
    ABT_mutex_attr a = ABT_MUTEX_ATTR_NULL;
    ABT_bool rec = ABT_TRUE;
    CHECK_INT(ABT_mutex_attr_create(&a), ABT_SUCCESS);
    if (a == ABT_MUTEX_ATTR_NULL) return;
    CHECK_INT(ABT_mutex_attr_get_recursive(a, &rec), ABT_SUCCESS);
    CHECK_INT(rec, ABT_FALSE);
    CHECK_INT(ABT_mutex_attr_set_recursive(a, ABT_TRUE), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_get_recursive(a, &rec), ABT_SUCCESS);
    CHECK_INT(rec, ABT_TRUE);
    CHECK_INT(ABT_mutex_attr_set_recursive(a, ABT_FALSE), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_get_recursive(a, &rec), ABT_SUCCESS);
    CHECK_INT(rec, ABT_FALSE);
    CHECK_INT(ABT_mutex_attr_set_recursive(a, ABT_TRUE), ABT_SUCCESS);

    ABT_mutex r = ABT_MUTEX_NULL, p = ABT_MUTEX_NULL, d = ABT_MUTEX_NULL;
    CHECK_INT(ABT_mutex_create_with_attr(a, &r), ABT_SUCCESS);
    /* The mutex copied the attribute: changing and freeing it leaves r recursive. */
    CHECK_INT(ABT_mutex_attr_set_recursive(a, ABT_FALSE), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create_with_attr(a, &p), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_free(&a), ABT_SUCCESS);
    CHECK(a == ABT_MUTEX_ATTR_NULL);
    CHECK_INT(ABT_mutex_create_with_attr(ABT_MUTEX_ATTR_NULL, &d), ABT_SUCCESS);
    if (r == ABT_MUTEX_NULL || p == ABT_MUTEX_NULL || d == ABT_MUTEX_NULL) return;

    /* r: four levels (the nested ones by trylock, which cannot hang on a broken mutex; nested
     * blocking locks are in test_recursive); refused to others until the fourth unlock. */
    CHECK_INT(ABT_mutex_lock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(r), ABT_SUCCESS);
    unwind_refused(r, 4);

    /* p and d are not recursive: the holder's trylock is refused. */
    CHECK_INT(ABT_mutex_lock(p), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(p), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock(p), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(d), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(d), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock(d), ABT_SUCCESS);

    /* get_attr reports the property of each mutex, static ones included. */
    ABT_mutex ms[5] = { r, p, d, S_REC, S_PLAIN };
    ABT_bool want[5] = { ABT_TRUE, ABT_FALSE, ABT_FALSE, ABT_TRUE, ABT_FALSE };
    for (int i = 0; i < 5; i++) {
        ABT_mutex_attr g = ABT_MUTEX_ATTR_NULL;
        rec = !want[i];
        CHECK_INT(ABT_mutex_get_attr(ms[i], &g), ABT_SUCCESS);
        CHECK_INT(ABT_mutex_attr_get_recursive(g, &rec), ABT_SUCCESS);
        CHECK_INT(rec, want[i]);
        CHECK_INT(ABT_mutex_attr_free(&g), ABT_SUCCESS);
    }
    /* A mutex created from get_attr's result has the same property. */
    ABT_mutex_attr g = ABT_MUTEX_ATTR_NULL;
    ABT_mutex r2 = ABT_MUTEX_NULL;
    CHECK_INT(ABT_mutex_get_attr(r, &g), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create_with_attr(g, &r2), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_free(&g), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(r2), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(r2), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(r2), ABT_SUCCESS);
    CHECK_INT(probe_trylock(r2), ABT_ERR_MUTEX_LOCKED);
    CHECK_INT(ABT_mutex_unlock(r2), ABT_SUCCESS);
    CHECK_INT(probe_trylock(r2), ABT_SUCCESS);

    CHECK_INT(ABT_mutex_free(&r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&p), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&d), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&r2), ABT_SUCCESS);
}

/* ---- Recursive mutexes across work units -------------------------------------------------- */

#define REC_DEPTH 4
#define REC_WAITERS 3 /* a ULT on the holder's stream, a ULT on another stream, a pthread */
static ABT_mutex rec_m;
static int rec_held, rec_step, rec_released, rec_trying, rec_got, rec_done, rec_inside;
static int rec_holder_rc, rec_refused, rec_waiter_rc, rec_overlap;

static void rec_holder(void *arg)
{
    (void)arg;
    int rc = 0;
    /* The first level blocks normally; the nested ones use the other lock functions. */
    for (int d = 0; d < REC_DEPTH; d++) rc |= lock_by(d == 0 ? 0 : d, rec_m);
    store(&rec_held, 1);
    for (int k = 1; k <= REC_DEPTH; k++) {
        /* Yields while holding: the waiter on this stream runs meanwhile. */
        if (!until(&rec_step, k)) rc |= -1;
        rc |= unlock_by(k % 3, rec_m);
        store(&rec_released, k);
    }
    rec_holder_rc = rc;
}

/* kind: the lock function of this waiter. */
static void rec_waiter(int kind)
{
    int rc = 0;
    if (!until(&rec_held, 1)) rc |= -1;
    /* Another work unit: refused even though the mutex is recursive. */
    if (ABT_mutex_trylock(rec_m) == ABT_ERR_MUTEX_LOCKED) inc(&rec_refused);
    inc(&rec_trying);
    rc |= lock_by(kind, rec_m);
    inc(&rec_got);
    if (inc(&rec_inside) != 1) inc(&rec_overlap);
    /* Now this unit owns it: two more levels of its own. */
    rc |= ABT_mutex_lock(rec_m);
    rc |= ABT_mutex_trylock(rec_m);
    relax();
    if (load(&rec_inside) != 1) inc(&rec_overlap);
    dec(&rec_inside);
    for (int k = 0; k < 3; k++) rc |= unlock_by(k, rec_m);
    __atomic_or_fetch(&rec_waiter_rc, rc, __ATOMIC_RELAXED);
    inc(&rec_done);
}
static void rec_waiter_ult(void *arg) { rec_waiter((int)(intptr_t)arg); }
static void *rec_waiter_pthread(void *arg)
{
    rec_waiter((int)(intptr_t)arg);
    return NULL;
}

static void recursive_round(ABT_mutex m, const char *name)
{
    rec_m = m;
    rec_held = rec_step = rec_released = rec_trying = rec_got = rec_done = rec_inside = 0;
    rec_holder_rc = rec_refused = rec_waiter_rc = rec_overlap = 0;
    ABT_thread h, w1, w2;
    pthread_t p;
    int rc = ABT_thread_create(pools[1], rec_holder, NULL, ABT_THREAD_ATTR_NULL, &h);
    rc |= ABT_thread_create(pools[1], rec_waiter_ult, (void *)(intptr_t)0, ABT_THREAD_ATTR_NULL, &w1);
    rc |= ABT_thread_create(pools[2], rec_waiter_ult, (void *)(intptr_t)2, ABT_THREAD_ATTR_NULL, &w2);
    CHECK_INT(rc, ABT_SUCCESS);
    pthread_create(&p, NULL, rec_waiter_pthread, (void *)(intptr_t)1);
    MUST(until(&rec_trying, REC_WAITERS));
    int early = 0;
    for (int k = 1; k <= REC_DEPTH; k++) {
        store(&rec_step, k);
        MUST(until(&rec_released, k));
        if (k < REC_DEPTH) {
            /* Still held at depth REC_DEPTH - k: nobody may get in. */
            pause_for(0.01);
            early += load(&rec_got);
        }
    }
    MUST(until(&rec_done, REC_WAITERS));
    pthread_join(p, NULL);
    rc = ABT_thread_free(&h) | ABT_thread_free(&w1) | ABT_thread_free(&w2);
    printf("recursive %s mutex, held %d deep by a ULT:\n", name, REC_DEPTH);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(rec_holder_rc, ABT_SUCCESS);
    CHECK_INT(rec_refused, REC_WAITERS);
    CHECK_INT(early, 0);
    CHECK_INT(rec_got, REC_WAITERS);
    CHECK_INT(rec_overlap, 0);
    CHECK_INT(rec_waiter_rc, ABT_SUCCESS);
    CHECK_INT(probe_trylock(m), ABT_SUCCESS); /* fully unlocked at the end */
}

static void test_recursive(void)
{
    ABT_mutex_attr a = ABT_MUTEX_ATTR_NULL;
    ABT_mutex r = ABT_MUTEX_NULL;
    CHECK_INT(ABT_mutex_attr_create(&a), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_set_recursive(a, ABT_TRUE), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create_with_attr(a, &r), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_free(&a), ABT_SUCCESS);
    if (r != ABT_MUTEX_NULL) {
        recursive_round(r, "dynamic");
        CHECK_INT(ABT_mutex_free(&r), ABT_SUCCESS);
    }
    recursive_round(S_REC, "static");

    /* The main ULT as owner: a ULT on its own stream, one on another stream and a pthread are
     * refused until its second unlock. */
    CHECK_INT(ABT_mutex_lock(S_REC), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(S_REC), ABT_SUCCESS);
    for (int k = 0; k < 2; k++) {
        struct probe p0 = { S_REC, -1 }, p1 = { S_REC, -1 };
        ABT_thread t0, t1;
        CHECK_INT(ABT_thread_create(pools[0], probe_ult, &p0, ABT_THREAD_ATTR_NULL, &t0), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pools[1], probe_ult, &p1, ABT_THREAD_ATTR_NULL, &t1), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&t0), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&t1), ABT_SUCCESS);
        CHECK_INT(p0.rc, ABT_ERR_MUTEX_LOCKED);
        CHECK_INT(p1.rc, ABT_ERR_MUTEX_LOCKED);
        CHECK_INT(probe_trylock(S_REC), ABT_ERR_MUTEX_LOCKED);
        CHECK_INT(ABT_mutex_unlock(S_REC), ABT_SUCCESS);
    }
    CHECK_INT(probe_trylock(S_REC), ABT_SUCCESS);
}

/* ---- 4 streams x 64 ULTs on one counter --------------------------------------------------- */

#define PER_STREAM 64
#define NULTS (NSTREAMS * PER_STREAM)
static struct job ult_jobs[NULTS];

/* Runs n ULTs spread over the streams, each a copy of proto with its own seed. */
static void run_ults(int n, struct job *proto, int *done)
{
    static ABT_thread t[NULTS];
    int rc = 0;
    for (int i = 0; i < n; i++) {
        ult_jobs[i] = *proto;
        ult_jobs[i].seed = i;
        rc |= ABT_thread_create(pools[i % NSTREAMS], job_ult, &ult_jobs[i], ABT_THREAD_ATTR_NULL, &t[i]);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    MUST(until(done, n));
    for (int i = 0; i < n; i++) rc |= ABT_thread_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
}

static void test_counter(void)
{
    ABT_mutex m = ABT_MUTEX_NULL;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    if (m == ABT_MUTEX_NULL) return;
    long count = 0;
    int errors = 0, done = 0;
    double t0 = ABT_get_wtime();
    /* Yields inside the critical section now and then; no spinlock. */
    struct job j = { m, &count, 100, 1, 1, 4, 0, &errors, &done, NULL, 0, 0 };
    run_ults(NULTS, &j, &done);
    printf("%d ULTs on %d streams, yielding in the critical section (%.2f s):\n", NULTS, NSTREAMS, ABT_get_wtime() - t0);
    CHECK_INT(errors, 0);
    CHECK_INT(count, NULTS * 100);
    CHECK_INT(probe_trylock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);

    /* No yields inside; every lock function, spinlock included (a spinning ULT holds up its
     * stream: fewer ULTs); the static mutexes. */
    errors = done = 0;
    t0 = ABT_get_wtime();
    struct job p = { S_PLAIN, &s_plain_count, 50, 1, 0, 5, 0, &errors, &done, NULL, 0, 0 };
    run_ults(NULTS / 4, &p, &done);
    s_plain_expected += NULTS / 4 * 50;
    done = 0;
    struct job r = { S_REC, &s_rec_count, 50, 2, 0, 5, 0, &errors, &done, NULL, 0, 0 };
    run_ults(NULTS / 4, &r, &done);
    s_rec_expected += NULTS / 4 * 50;
    printf("%d ULTs on %d streams, static mutexes, spinlock too (%.2f s):\n", NULTS / 4, NSTREAMS, ABT_get_wtime() - t0);
    CHECK_INT(errors, 0);
    CHECK_INT(s_plain_count, s_plain_expected);
    CHECK_INT(s_rec_count, s_rec_expected);
}

/* ---- ULTs and external pthreads at once --------------------------------------------------- */

static void mixed_round(ABT_mutex m, long *count, int depth, long *expected, const char *name)
{
    int errors = 0, ult_done = 0, ext_done = 0;
    double t0 = ABT_get_wtime();
    pthread_t t[2];
    struct job ext[2];
    for (int i = 0; i < 2; i++) {
        /* The pthreads use every lock function (spinning only holds up their own OS thread) and
         * go on for as long as the ULTs run. */
        ext[i] = (struct job){ m, count, 1000, depth, 0, 5, 100 + i, &errors, &ext_done, &ult_done, 64, 0 };
        pthread_create(&t[i], NULL, job_pthread, &ext[i]);
    }
    struct job j = { m, count, 50, depth, 1, 4, 0, &errors, &ult_done, NULL, 0, 0 };
    run_ults(64, &j, &ult_done);
    MUST(until(&ext_done, 2));
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    *expected += 64 * 50 + ext[0].ran + ext[1].ran;
    printf("64 ULTs on %d streams and 2 pthreads (%ld and %ld rounds) on one %s mutex (%.2f s):\n", NSTREAMS,
           ext[0].ran, ext[1].ran, name, ABT_get_wtime() - t0);
    CHECK_INT(errors, 0);
    CHECK_INT(*count, *expected);
}

static void test_mixed(void)
{
    ABT_mutex m = ABT_MUTEX_NULL;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    if (m != ABT_MUTEX_NULL) {
        long count = 0, expected = 0;
        mixed_round(m, &count, 1, &expected, "dynamic");
        CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    }
    mixed_round(S_REC, &s_rec_count, 3, &s_rec_expected, "static recursive");
}

/* ---- lock_high and lock_low waiters ------------------------------------------------------- */

#define NLOW 6
static ABT_mutex pr_m;
static int pr_ready, pr_done, pr_seq, pr_inside, pr_overlap, pr_refused, pr_rc;
static int pr_order[NLOW + 1]; /* [NLOW]: the high waiter; value: 1 + place in which it got in */

static void pr_waiter(void *arg)
{
    int i = (int)(intptr_t)arg, rc = 0;
    if (ABT_mutex_trylock(pr_m) == ABT_ERR_MUTEX_LOCKED) inc(&pr_refused);
    inc(&pr_ready);
    rc |= i == NLOW ? ABT_mutex_lock_high(pr_m) : ABT_mutex_lock_low(pr_m);
    pr_order[i] = inc(&pr_seq);
    if (inc(&pr_inside) != 1) inc(&pr_overlap);
    relax();
    dec(&pr_inside);
    rc |= ABT_mutex_unlock(pr_m);
    __atomic_or_fetch(&pr_rc, rc, __ATOMIC_RELAXED);
    inc(&pr_done);
}

static void test_priority(void)
{
    CHECK_INT(ABT_mutex_create(&pr_m), ABT_SUCCESS);
    if (pr_m == ABT_MUTEX_NULL) return;
    CHECK_INT(ABT_mutex_lock(pr_m), ABT_SUCCESS);
    ABT_thread t[NLOW + 1];
    int rc = 0;
    for (int i = 0; i < NLOW; i++) {
        rc |= ABT_thread_create(pools[1 + i % (NSTREAMS - 1)], pr_waiter, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &t[i]);
    }
    MUST(until(&pr_ready, NLOW));
    pause_for(0.02); /* let the low waiters queue up */
    rc |= ABT_thread_create(pools[1], pr_waiter, (void *)(intptr_t)NLOW, ABT_THREAD_ATTR_NULL, &t[NLOW]);
    MUST(until(&pr_ready, NLOW + 1));
    pause_for(0.02);
    int early = load(&pr_seq);
    CHECK_INT(ABT_mutex_unlock(pr_m), ABT_SUCCESS);
    MUST(until(&pr_done, NLOW + 1));
    for (int i = 0; i <= NLOW; i++) rc |= ABT_thread_free(&t[i]);
    printf("lock_high waiter got the mutex in place %d of %d (priorities are a hint in Argobots 1.2):\n",
           pr_order[NLOW], NLOW + 1);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(early, 0);
    CHECK_INT(pr_refused, NLOW + 1);
    CHECK_INT(pr_seq, NLOW + 1);
    CHECK_INT(pr_overlap, 0);
    CHECK_INT(pr_rc, ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&pr_m), ABT_SUCCESS);
}

/* ---- Bad input ---------------------------------------------------------------------------- */

/* Every mutex function on a handle that is not a live mutex; h is left alone. */
static void refuse_mutex(ABT_mutex h, const char *what)
{
    printf("not a mutex: %s\n", what);
    ABT_mutex_attr a = ABT_MUTEX_ATTR_NULL;
    ABT_bool eq = ABT_FALSE;
    /* Each lock is followed by an unlock: were a lock wrongly accepted, the next one would not
     * block forever. */
    CHECK_INT(ABT_mutex_lock(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_unlock(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_lock_high(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_unlock_se(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_lock_low(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_unlock_de(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_spinlock(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_unlock(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_trylock(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_unlock(h), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_mutex_get_attr(h, &a), ABT_ERR_INV_MUTEX);
    ABT_mutex copy = h;
    CHECK_INT(ABT_mutex_free(&copy), ABT_ERR_INV_MUTEX);
    CHECK(copy == h);
    /* equal does not check its handles. */
    CHECK_INT(ABT_mutex_equal(h, h, &eq), ABT_SUCCESS);
    CHECK_INT(eq, ABT_TRUE);
}

static void refuse_attr(ABT_mutex_attr h, const char *what)
{
    printf("not a mutex attribute: %s\n", what);
    ABT_bool rec = ABT_FALSE;
    ABT_mutex out = (ABT_mutex)&out;
    CHECK_INT(ABT_mutex_attr_set_recursive(h, ABT_TRUE), ABT_ERR_INV_MUTEX_ATTR);
    CHECK_INT(ABT_mutex_attr_get_recursive(h, &rec), ABT_ERR_INV_MUTEX_ATTR);
    ABT_mutex_attr copy = h;
    CHECK_INT(ABT_mutex_attr_free(&copy), ABT_ERR_INV_MUTEX_ATTR);
    CHECK(copy == h);
    if (h != ABT_MUTEX_ATTR_NULL) {
        /* ABT_MUTEX_ATTR_NULL means "defaults" here; anything else invalid is refused, and
         * Argobots 1.x sets the output to ABT_MUTEX_NULL on error. */
        CHECK_INT(ABT_mutex_create_with_attr(h, &out), ABT_ERR_INV_MUTEX_ATTR);
        CHECK(out == ABT_MUTEX_NULL);
    }
}

static void test_bad_input(void)
{
    printf("bad input:\n");
    refuse_mutex(ABT_MUTEX_NULL, "ABT_MUTEX_NULL");
    refuse_attr(ABT_MUTEX_ATTR_NULL, "ABT_MUTEX_ATTR_NULL");

    /* NULL pointers. */
    ABT_mutex m = ABT_MUTEX_NULL;
    ABT_mutex_attr a = ABT_MUTEX_ATTR_NULL;
    int rc;
    CHECK_INT(ABT_mutex_create(NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_mutex_create_with_attr(ABT_MUTEX_ATTR_NULL, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_mutex_attr_create(NULL), ABT_ERR_INV_ARG);
    rc = ABT_mutex_free(NULL);
    CHECK(rc == ABT_ERR_INV_MUTEX || rc == ABT_ERR_INV_ARG);
    rc = ABT_mutex_attr_free(NULL);
    CHECK(rc == ABT_ERR_INV_MUTEX_ATTR || rc == ABT_ERR_INV_ARG);
    CHECK_INT(ABT_mutex_equal(S_PLAIN, S_PLAIN, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_create(&a), ABT_SUCCESS);
    if (m == ABT_MUTEX_NULL || a == ABT_MUTEX_ATTR_NULL) return;
    CHECK_INT(ABT_mutex_get_attr(m, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_mutex_attr_get_recursive(a, NULL), ABT_ERR_INV_ARG);

    /* A mutex handle used as an attribute and the other way round: refused, both unharmed. */
    refuse_attr((ABT_mutex_attr)m, "a mutex handle");
    refuse_mutex((ABT_mutex)a, "a mutex attribute handle");
    ABT_bool rec = ABT_TRUE;
    CHECK_INT(ABT_mutex_attr_get_recursive(a, &rec), ABT_SUCCESS);
    CHECK_INT(rec, ABT_FALSE);
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(m), ABT_ERR_MUTEX_LOCKED); /* still not recursive */
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);

    /* Freed handles, checked before anything else is created (their memory is not reused). */
    ABT_mutex stale_m = m;
    ABT_mutex_attr stale_a = a;
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_free(&a), ABT_SUCCESS);
    refuse_mutex(stale_m, "a freed mutex");
    refuse_attr(stale_a, "a freed attribute");

    /* Handles of other kinds. */
    ABT_cond c = ABT_COND_NULL;
    ABT_rwlock rw = ABT_RWLOCK_NULL;
    ABT_eventual ev = ABT_EVENTUAL_NULL;
    if (ABT_cond_create(&c) == ABT_SUCCESS) {
        refuse_mutex((ABT_mutex)c, "a condition variable");
        CHECK_INT(ABT_cond_signal(c), ABT_SUCCESS); /* unharmed */
        CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
    } else {
        printf("(no ABT_cond: wrong-kind check skipped)\n");
    }
    if (ABT_rwlock_create(&rw) == ABT_SUCCESS) {
        refuse_mutex((ABT_mutex)rw, "a readers-writer lock");
        CHECK_INT(ABT_rwlock_wrlock(rw), ABT_SUCCESS); /* unharmed */
        CHECK_INT(ABT_rwlock_unlock(rw), ABT_SUCCESS);
        CHECK_INT(ABT_rwlock_free(&rw), ABT_SUCCESS);
    } else {
        printf("(no ABT_rwlock: wrong-kind check skipped)\n");
    }
    if (ABT_eventual_create(0, &ev) == ABT_SUCCESS) {
        refuse_mutex((ABT_mutex)ev, "an eventual");
        refuse_attr((ABT_mutex_attr)ev, "an eventual");
        CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
    } else {
        printf("(no ABT_eventual: wrong-kind check skipped)\n");
    }
    refuse_mutex((ABT_mutex)pools[1], "a pool");
    refuse_mutex((ABT_mutex)streams[1], "an execution stream");

    /* The static mutexes came through unharmed. */
    CHECK_INT(probe_trylock(S_PLAIN), ABT_SUCCESS);
    CHECK_INT(probe_trylock(S_REC), ABT_SUCCESS);
}

int main(void)
{
    test_before_init();

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(start_streams(NSTREAMS, streams, pools), ABT_SUCCESS);
    test_basic();
    test_attr();
    test_recursive();
    test_counter();
    test_mixed();
    test_priority();
    test_bad_input();
    /* The static mutexes from pthreads while the library is initialized. */
    static_pthread_round("while initialized");
    int rc = 0;
    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    /* After ABT_finalize: static and created mutexes still work. */
    ABT_mutex m = ABT_MUTEX_NULL;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_trylock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    static_mutexes_from_external("after ABT_finalize");
    static_pthread_round("after ABT_finalize");
    return check_summary();
}
