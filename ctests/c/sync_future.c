/* Futures (ABT_future_*), on 4 streams (primary + 3):
 *  - a future of 3 compartments without callback: test is false until the third set, wait
 *    returns, a fourth set is ABT_ERR_FUTURE (still ready), reset makes it unready, it fills
 *    again, free sets the handle to ABT_FUTURE_NULL;
 *  - with a callback: it runs exactly once, when the last compartment is set (not before),
 *    and gets the array of the values set; a set after that is ABT_ERR_FUTURE and does not call
 *    it again; after reset it runs once more with the new values;
 *  - 0 compartments: ready from the start (test, wait), set is ABT_ERR_FUTURE, the callback
 *    never runs, reset changes nothing;
 *  - 8 compartments set by 4 ULTs and 4 tasklets release 40 ULTs on the 4 streams, 2 external
 *    pthreads and the main ULT, none before the last set began and none before the callback
 *    ran; waiters after completion (ULTs, a pthread, the main ULT) return at once;
 *  - 20 rounds of reset and reuse, each set by 3 ULTs and awaited by 4 ULTs and the main ULT,
 *    the callback's values checked each round;
 *  - ABT_future_wait from a tasklet is ABT_ERR_FUTURE (Argobots 1.x), ready or not, and does
 *    not block; tasklets may set;
 *  - bad input: ABT_FUTURE_NULL, a freed handle and handles of other kinds give
 *    ABT_ERR_INV_FUTURE from every function.
 * Added with the implementation: the callback runs without a lock (while it yields, another
 * stream's test says not ready, set is ABT_ERR_FUTURE, reset is deferred until the set
 * completes; the callback itself may test and set); 60 compartments (a malloc'd array) set by
 * ULTs on every stream, tasklets and a pthread, awaited by a pthread and the main ULT; values
 * reach the callback in set order; NULL pointers, free with a blocked waiter (ABT_ERR_FUTURE).
 * A watchdog ends the program with a failure if some waiter never wakes. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "sync_util.h"

/* ---- The callback --------------------------------------------------------------------------- */

#define MAXK 8
static int cb_calls;          /* every call of record_cb */
static int cb_k;              /* compartments of the future being tested */
static void *cb_seen[MAXK];   /* the array the last call got */
static int *cb_waiters_back;  /* if set: waiters already returned when the callback ran */
static int cb_back_at_call;   /* ... its value at the last call */

static void record_cb(void **values)
{
    for (int i = 0; i < cb_k && i < MAXK; i++) cb_seen[i] = values[i];
    cb_back_at_call = cb_waiters_back ? __atomic_load_n(cb_waiters_back, __ATOMIC_ACQUIRE) : 0;
    __atomic_add_fetch(&cb_calls, 1, __ATOMIC_RELEASE);
}

/* 1 if cb_seen[0..k) holds each of want[0..k) exactly once (in any order). */
static int seen_exactly(void **want, int k)
{
    for (int i = 0; i < k; i++) {
        int n = 0;
        for (int j = 0; j < k; j++) n += cb_seen[j] == want[i];
        if (n != 1) return 0;
    }
    return 1;
}

static void start_cb(int k, int *waiters_back)
{
    cb_k = k;
    memset(cb_seen, 0, sizeof cb_seen);
    cb_waiters_back = waiters_back;
    cb_back_at_call = -1;
}

static int ready_of(ABT_future f)
{
    ABT_bool r = 2;
    int rc = ABT_future_test(f, &r);
    return rc == ABT_SUCCESS ? (int)r : -rc;
}

/* ---- Basics --------------------------------------------------------------------------------- */

static int future_works;
static int vals[64];

static void test_basic(void)
{
    ABT_future f = ABT_FUTURE_NULL;
    if (!CHECK_OK(ABT_future_create(3, NULL, &f))) return;
    CHECK_INT(ready_of(f), ABT_FALSE);
    int ok = 1;
    ok &= CHECK_OK(ABT_future_set(f, &vals[0]));
    CHECK_INT(ready_of(f), ABT_FALSE);
    ok &= CHECK_OK(ABT_future_set(f, &vals[1]));
    CHECK_INT(ready_of(f), ABT_FALSE);
    ok &= CHECK_OK(ABT_future_set(f, &vals[2]));
    CHECK_INT(ready_of(f), ABT_TRUE);
    ok &= CHECK_OK(ABT_future_wait(f));
    ok &= CHECK_OK(ABT_future_wait(f));
    /* More sets than compartments. */
    CHECK_INT(ABT_future_set(f, &vals[3]), ABT_ERR_FUTURE);
    CHECK_INT(ready_of(f), ABT_TRUE);
    /* Reset and fill again. */
    ok &= CHECK_OK(ABT_future_reset(f));
    CHECK_INT(ready_of(f), ABT_FALSE);
    ok &= CHECK_OK(ABT_future_reset(f)); /* also when not ready */
    CHECK_INT(ready_of(f), ABT_FALSE);
    for (int i = 0; i < 3; i++) ok &= CHECK_OK(ABT_future_set(f, NULL)); /* NULL is a value too */
    CHECK_INT(ready_of(f), ABT_TRUE);
    ok &= CHECK_OK(ABT_future_wait(f));
    ok &= CHECK_OK(ABT_future_free(&f));
    CHECK(f == ABT_FUTURE_NULL);
    future_works = ok && f == ABT_FUTURE_NULL;
}

static void test_callback(void)
{
    ABT_future f = ABT_FUTURE_NULL;
    cb_calls = 0;
    start_cb(4, NULL);
    if (!CHECK_OK(ABT_future_create(4, record_cb, &f))) return;
    void *want[4] = {&vals[10], &vals[11], NULL, &vals[13]};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(ABT_future_set(f, want[i]), ABT_SUCCESS);
        CHECK_INT(cb_calls, 0);
        CHECK_INT(ready_of(f), ABT_FALSE);
    }
    CHECK_INT(ABT_future_set(f, want[3]), ABT_SUCCESS);
    CHECK_INT(cb_calls, 1);
    CHECK(seen_exactly(want, 4));
    CHECK_INT(ready_of(f), ABT_TRUE);
    CHECK_INT(ABT_future_wait(f), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(f, &vals[14]), ABT_ERR_FUTURE);
    CHECK_INT(cb_calls, 1);

    CHECK_INT(ABT_future_reset(f), ABT_SUCCESS);
    CHECK_INT(cb_calls, 1);
    start_cb(4, NULL);
    void *again[4] = {&vals[20], &vals[21], &vals[22], &vals[23]};
    for (int i = 0; i < 4; i++) CHECK_INT(ABT_future_set(f, again[i]), ABT_SUCCESS);
    CHECK_INT(cb_calls, 2);
    CHECK(seen_exactly(again, 4));
    CHECK_INT(ABT_future_free(&f), ABT_SUCCESS);
    CHECK_INT(cb_calls, 2);
}

static void test_zero_compartments(void)
{
    ABT_future f = ABT_FUTURE_NULL;
    cb_calls = 0;
    start_cb(0, NULL);
    if (!CHECK_OK(ABT_future_create(0, record_cb, &f))) return;
    CHECK_INT(ready_of(f), ABT_TRUE);
    CHECK_INT(ABT_future_wait(f), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(f, &vals[0]), ABT_ERR_FUTURE);
    CHECK_INT(ABT_future_reset(f), ABT_SUCCESS);
    CHECK_INT(ready_of(f), ABT_TRUE);
    CHECK_INT(ABT_future_wait(f), ABT_SUCCESS);
    CHECK_INT(cb_calls, 0);
    CHECK_INT(ABT_future_free(&f), ABT_SUCCESS);
    CHECK(f == ABT_FUTURE_NULL);
}

/* ---- Many waiters ------------------------------------------------------------------------- */

struct crowd {
    ABT_future f;
    int k;           /* compartments */
    int arrived;     /* waiters that called wait */
    int go;          /* setters may set */
    int sets_begun;  /* ABT_future_set calls begun */
    int set_rc;      /* error bits of the sets */
    int done;        /* waiters returned */
    int rc, early, not_ready, cb_missing;
};

static void crowd_wait(struct crowd *c)
{
    __atomic_add_fetch(&c->arrived, 1, __ATOMIC_ACQ_REL);
    int rc = ABT_future_wait(c->f);
    if (rc != ABT_SUCCESS) __atomic_or_fetch(&c->rc, rc, __ATOMIC_RELAXED);
    if (__atomic_load_n(&c->sets_begun, __ATOMIC_ACQUIRE) != c->k) __atomic_add_fetch(&c->early, 1, __ATOMIC_RELAXED);
    if (ready_of(c->f) != ABT_TRUE) __atomic_add_fetch(&c->not_ready, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&cb_calls, __ATOMIC_ACQUIRE) < 1) __atomic_add_fetch(&c->cb_missing, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->done, 1, __ATOMIC_RELEASE);
}

static void crowd_ult(void *arg) { crowd_wait(arg); }
static void *crowd_ext(void *arg)
{
    crowd_wait(arg);
    return NULL;
}

struct setter {
    struct crowd *c;
    int index;
};

static void do_set(struct setter *s)
{
    __atomic_add_fetch(&s->c->sets_begun, 1, __ATOMIC_ACQ_REL);
    int rc = ABT_future_set(s->c->f, &vals[s->index]);
    if (rc != ABT_SUCCESS) __atomic_or_fetch(&s->c->set_rc, rc, __ATOMIC_RELAXED);
}

static void setter_ult(void *arg)
{
    struct setter *s = arg;
    wait_for(&s->c->go, 1);
    for (int i = 0; i < s->index % 3; i++) ABT_thread_yield();
    do_set(s);
}

static void setter_task(void *arg) { do_set(arg); }

/* Waits (bounded) until every waiter is in, then creates the 4 setter tasklets and lets the 4
 * setter ULTs go. */
static int crowd_expected;
static struct setter task_setters[4];
static void coordinator(void *arg)
{
    struct crowd *c = arg;
    wait_for(&c->arrived, crowd_expected);
    for (int i = 0; i < 10; i++) ABT_thread_yield();
    ABT_task t[4];
    int rc = ABT_SUCCESS;
    for (int i = 0; i < 4; i++) {
        task_setters[i] = (struct setter){c, 4 + i};
        rc |= ABT_task_create(pools[1 + i % 3], setter_task, &task_setters[i], &t[i]);
    }
    __atomic_store_n(&c->go, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 4; i++) rc |= ABT_task_free(&t[i]);
    if (rc != ABT_SUCCESS) __atomic_or_fetch(&c->set_rc, rc, __ATOMIC_RELAXED);
}

static void test_many_waiters(void)
{
    enum { NW = 40, NE = 2, K = 8 };
    struct crowd c = {0};
    c.k = K;
    crowd_expected = NW + NE + 1;
    cb_calls = 0;
    start_cb(K, &c.done);
    if (!CHECK_OK(ABT_future_create(K, record_cb, &c.f))) return;
    printf("%d ULTs, %d pthreads and the main ULT wait; 4 ULTs and 4 tasklets set\n", NW, NE);
    ABT_thread w[NW], s[4], coord;
    struct setter setters[4];
    pthread_t th[NE];
    int rc = ABT_SUCCESS;
    for (int i = 0; i < NW; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], crowd_ult, &c, ABT_THREAD_ATTR_NULL, &w[i]);
    for (int i = 0; i < NE; i++) pthread_create(&th[i], NULL, crowd_ext, &c);
    for (int i = 0; i < 4; i++) {
        setters[i] = (struct setter){&c, i};
        rc |= ABT_thread_create(pools[i % NSTREAMS], setter_ult, &setters[i], ABT_THREAD_ATTR_NULL, &s[i]);
    }
    rc |= ABT_thread_create(pools[3], coordinator, &c, ABT_THREAD_ATTR_NULL, &coord);
    CHECK_INT(rc, ABT_SUCCESS);
    if (rc != ABT_SUCCESS) give_up("could not create the ULTs");
    crowd_wait(&c);
    if (!wait_for(&c.done, crowd_expected)) give_up("future waiters not released within 10 s");
    for (int i = 0; i < NW; i++) rc |= ABT_thread_free(&w[i]);
    for (int i = 0; i < 4; i++) rc |= ABT_thread_free(&s[i]);
    rc |= ABT_thread_free(&coord);
    for (int i = 0; i < NE; i++) pthread_join(th[i], NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(c.set_rc, ABT_SUCCESS);
    CHECK_INT(c.arrived, crowd_expected);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.early, 0);
    CHECK_INT(c.not_ready, 0);
    CHECK_INT(c.cb_missing, 0);
    CHECK_INT(cb_calls, 1);
    CHECK_INT(cb_back_at_call, 0); /* the callback ran before any waiter returned */
    void *want[K];
    for (int i = 0; i < K; i++) want[i] = &vals[i];
    CHECK(seen_exactly(want, K));

    /* Latecomers return at once. */
    c.done = 0;
    for (int i = 0; i < 10; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], crowd_ult, &c, ABT_THREAD_ATTR_NULL, &w[i]);
    pthread_create(&th[0], NULL, crowd_ext, &c);
    crowd_wait(&c);
    if (!wait_for(&c.done, 12)) give_up("late future waiters did not return");
    for (int i = 0; i < 10; i++) rc |= ABT_thread_free(&w[i]);
    pthread_join(th[0], NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.not_ready, 0);
    CHECK_INT(cb_calls, 1);
    CHECK_INT(ABT_future_free(&c.f), ABT_SUCCESS);
}

/* ---- Rounds of reset and reuse ---------------------------------------------------------------- */

static void test_rounds(void)
{
    enum { ROUNDS = 20, K = 3, NW = 4 };
    struct crowd c = {0};
    c.k = K;
    cb_calls = 0;
    if (!CHECK_OK(ABT_future_create(K, record_cb, &c.f))) return;
    int rc = ABT_SUCCESS, values_ok = 0, calls_ok = 0, ready_after_reset = 0;
    for (int r = 0; r < ROUNDS; r++) {
        c.arrived = c.done = c.sets_begun = 0;
        c.go = 1;
        start_cb(K, NULL);
        ABT_thread w[NW], s[K];
        struct setter setters[K];
        for (int i = 0; i < NW; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], crowd_ult, &c, ABT_THREAD_ATTR_NULL, &w[i]);
        for (int i = 0; i < K; i++) {
            setters[i] = (struct setter){&c, 30 + r % 10 * 3 + i};
            rc |= ABT_thread_create(pools[1 + i], setter_ult, &setters[i], ABT_THREAD_ATTR_NULL, &s[i]);
        }
        if (rc != ABT_SUCCESS) give_up("could not create the ULTs");
        crowd_wait(&c);
        if (!wait_for(&c.done, NW + 1)) give_up("future round: waiters not released within 10 s");
        for (int i = 0; i < NW; i++) rc |= ABT_thread_free(&w[i]);
        for (int i = 0; i < K; i++) rc |= ABT_thread_free(&s[i]);
        void *want[K];
        for (int i = 0; i < K; i++) want[i] = &vals[30 + r % 10 * 3 + i];
        values_ok += seen_exactly(want, K);
        calls_ok += cb_calls == r + 1;
        rc |= ABT_future_reset(c.f);
        ready_after_reset += ready_of(c.f) != ABT_FALSE;
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(c.set_rc, ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.early, 0);
    CHECK_INT(c.not_ready, 0);
    CHECK_INT(values_ok, ROUNDS);
    CHECK_INT(calls_ok, ROUNDS);
    CHECK_INT(ready_after_reset, 0);
    CHECK_INT(ABT_future_free(&c.f), ABT_SUCCESS);
}

/* ---- Tasklets ------------------------------------------------------------------------------ */

static ABT_future task_f;
static int task_wait_rc, task_done;

static void tasklet_waits(void *arg)
{
    (void)arg;
    task_wait_rc = ABT_future_wait(task_f);
    __atomic_store_n(&task_done, 1, __ATOMIC_RELEASE);
}

static void test_tasklets(void)
{
    task_f = ABT_FUTURE_NULL;
    if (!CHECK_OK(ABT_future_create(1, NULL, &task_f))) return;
    for (int ready = 0; ready < 2; ready++) {
        ABT_task t;
        task_wait_rc = -1;
        task_done = 0;
        CHECK_INT(ABT_task_create(pools[1], tasklet_waits, NULL, &t), ABT_SUCCESS);
        /* Refused at once, not blocking (if it blocks, the set below releases it). */
        CHECK(wait_for(&task_done, 1));
        if (!ready) CHECK_INT(ABT_future_set(task_f, NULL), ABT_SUCCESS);
        CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
        CHECK_INT(task_wait_rc, ABT_ERR_FUTURE);
    }
    CHECK_INT(ABT_future_free(&task_f), ABT_SUCCESS);
}

/* ---- Bad input ---------------------------------------------------------------------------- */

/* test goes first: it only reads, and when it accepts the handle the other calls are skipped
 * (on another object's memory they could write or block). */
static void check_invalid(ABT_future f, const char *what)
{
    ABT_bool ready;
    ABT_future copy = f;
    printf("invalid future handle: %s\n", what);
    int rc = ABT_future_test(f, &ready);
    CHECK_INT(rc, ABT_ERR_INV_FUTURE);
    if (rc != ABT_ERR_INV_FUTURE) return;
    CHECK_INT(ABT_future_wait(f), ABT_ERR_INV_FUTURE);
    CHECK_INT(ABT_future_set(f, NULL), ABT_ERR_INV_FUTURE);
    CHECK_INT(ABT_future_reset(f), ABT_ERR_INV_FUTURE);
    CHECK_INT(ABT_future_free(&copy), ABT_ERR_INV_FUTURE);
    CHECK(copy == f);
}

static void test_bad_input(void)
{
    check_invalid(ABT_FUTURE_NULL, "ABT_FUTURE_NULL");
    ABT_future f = ABT_FUTURE_NULL;
    if (CHECK_OK(ABT_future_create(2, NULL, &f))) {
        ABT_future stale = f;
        CHECK_INT(ABT_future_free(&f), ABT_SUCCESS);
        check_invalid(stale, "freed (nothing created since)");
    }
    check_invalid((ABT_future)pools[1], "a pool");
    check_invalid((ABT_future)streams[2], "an execution stream");
    ABT_eventual e = ABT_EVENTUAL_NULL;
    if (ABT_eventual_create(0, &e) == ABT_SUCCESS) {
        check_invalid((ABT_future)e, "an eventual");
        CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
    }
}

/* ---- More (added with the implementation) --------------------------------------------------- */

/* The callback runs without any lock held: while a ULT's callback waits (yielding) for a ULT on
 * another stream, that one can test (not ready yet), set (ABT_ERR_FUTURE: every compartment is
 * taken) and reset (deferred until the set completes); the callback itself may call test and
 * set. Once the set returns, the waiter was released, and the deferred reset made the future
 * unready again. */
static ABT_future lf;
static int lf_cb_in, lf_other_done, lf_other_test, lf_other_set_rc, lf_other_reset_rc;
static int lf_cb_test_ready = -1, lf_cb_set_rc;

static void lockfree_cb(void **values)
{
    (void)values;
    ABT_bool r = ABT_TRUE;
    ABT_future_test(lf, &r);
    lf_cb_test_ready = (int)r;
    lf_cb_set_rc = ABT_future_set(lf, NULL);
    __atomic_store_n(&lf_cb_in, 1, __ATOMIC_RELEASE);
    wait_for(&lf_other_done, 1); /* yields: the setter is a ULT */
}

static void lockfree_other(void *arg)
{
    (void)arg;
    wait_for(&lf_cb_in, 1);
    lf_other_test = ready_of(lf);
    lf_other_set_rc = ABT_future_set(lf, NULL);
    lf_other_reset_rc = ABT_future_reset(lf);
    __atomic_store_n(&lf_other_done, 1, __ATOMIC_RELEASE);
}

static int lf_last_set_rc = -1;
static void lockfree_setter(void *arg)
{
    (void)arg;
    lf_last_set_rc = ABT_future_set(lf, &vals[1]);
}

static void plain_wait(void *arg)
{
    struct crowd *c = arg;
    crowd_wait(c);
}

static void test_callback_unlocked(void)
{
    lf = ABT_FUTURE_NULL;
    if (!CHECK_OK(ABT_future_create(2, lockfree_cb, &lf))) return;
    printf("the callback runs without the lock: test, set and reset from elsewhere meanwhile\n");
    struct crowd c = {0};
    c.f = lf;
    c.k = 2;
    c.sets_begun = 2;
    cb_calls = 1; /* crowd_wait checks cb_calls >= 1; this callback does not count */
    ABT_thread waiter, other, setter;
    CHECK_INT(ABT_thread_create(pools[1], plain_wait, &c, ABT_THREAD_ATTR_NULL, &waiter), ABT_SUCCESS);
    wait_for(&c.arrived, 1);
    CHECK_INT(ABT_future_set(lf, &vals[0]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[2], lockfree_other, NULL, ABT_THREAD_ATTR_NULL, &other), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[3], lockfree_setter, NULL, ABT_THREAD_ATTR_NULL, &setter), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&setter), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&other), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&waiter), ABT_SUCCESS);
    CHECK_INT(lf_last_set_rc, ABT_SUCCESS);
    CHECK_INT(lf_cb_test_ready, ABT_FALSE);
    CHECK_INT(lf_cb_set_rc, ABT_ERR_FUTURE);
    CHECK_INT(lf_other_test, ABT_FALSE);
    CHECK_INT(lf_other_set_rc, ABT_ERR_FUTURE);
    CHECK_INT(lf_other_reset_rc, ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.done, 1);
    /* The deferred reset: unready, and it fills again. */
    CHECK_INT(ready_of(lf), ABT_FALSE);
    lf_other_done = 1; /* the callback does not wait this time */
    CHECK_INT(ABT_future_set(lf, NULL), ABT_SUCCESS);
    CHECK_INT(ready_of(lf), ABT_FALSE);
    CHECK_INT(ABT_future_set(lf, NULL), ABT_SUCCESS);
    CHECK_INT(ready_of(lf), ABT_TRUE);
    CHECK_INT(ABT_future_free(&lf), ABT_SUCCESS);
}

/* More compartments than fit inline (the array is malloc'd), set by ULTs on every stream,
 * tasklets and a pthread; the last set may come from any of them and runs the callback there;
 * a pthread and the main ULT wait. */
static void set_index(void *arg)
{
    struct setter *s = arg;
    do_set(s);
}
static void *set_index_ext(void *arg)
{
    struct setter *s = arg;
    for (int i = 0; i < 8; i++) do_set(&s[i]);
    return NULL;
}

static void test_many_compartments(void)
{
    enum { K = 60, NT = 26, NX = 8 }; /* 26 ULTs, 26 tasklets, 8 sets from a pthread */
    struct crowd c = {0};
    c.k = K;
    cb_calls = 0;
    start_cb(0, NULL);
    if (!CHECK_OK(ABT_future_create(K, record_cb, &c.f))) return;
    printf("%d compartments set by ULTs, tasklets and a pthread\n", K);
    struct setter s[K];
    for (int i = 0; i < K; i++) s[i] = (struct setter){&c, i};
    pthread_t waiter_th, setter_th;
    pthread_create(&waiter_th, NULL, crowd_ext, &c);
    ABT_thread t[NT];
    ABT_task k[NT];
    int rc = ABT_SUCCESS;
    for (int i = 0; i < NT; i++) {
        rc |= ABT_thread_create(pools[i % NSTREAMS], set_index, &s[i], ABT_THREAD_ATTR_NULL, &t[i]);
        rc |= ABT_task_create(pools[(i + 1) % NSTREAMS], set_index, &s[NT + i], &k[i]);
    }
    pthread_create(&setter_th, NULL, set_index_ext, &s[2 * NT]);
    crowd_wait(&c);
    for (int i = 0; i < NT; i++) rc |= ABT_thread_free(&t[i]) | ABT_task_free(&k[i]);
    pthread_join(waiter_th, NULL);
    pthread_join(setter_th, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(c.set_rc, ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.early, 0);
    CHECK_INT(c.not_ready, 0);
    CHECK_INT(c.cb_missing, 0);
    CHECK_INT(cb_calls, 1);
    CHECK_INT(ABT_future_set(c.f, NULL), ABT_ERR_FUTURE);
    CHECK_INT(ABT_future_free(&c.f), ABT_SUCCESS);
}

/* Each set's value lands in the callback's array in set order (Argobots 1.1 and later). */
static void *order_seen[5];
static void order_cb(void **values)
{
    for (int i = 0; i < 5; i++) order_seen[i] = values[i];
}

/* NULL pointers and misuse: goabt's answers where Argobots leaves it undefined. */
static void test_misuse(void)
{
    ABT_future f = ABT_FUTURE_NULL;
    CHECK_INT(ABT_future_create(2, NULL, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_future_free(NULL), ABT_ERR_INV_FUTURE);
    if (!CHECK_OK(ABT_future_create(5, order_cb, &f))) return;
    CHECK_INT(ABT_future_test(f, NULL), ABT_ERR_INV_ARG);
    for (int i = 0; i < 5; i++) CHECK_INT(ABT_future_set(f, &vals[40 + i]), ABT_SUCCESS);
    int in_order = 1;
    for (int i = 0; i < 5; i++) in_order &= order_seen[i] == &vals[40 + i];
    CHECK(in_order);
    CHECK_INT(ABT_future_reset(f), ABT_SUCCESS);

    /* Free with a blocked waiter: refused, and the future still works. The waiter runs on the
     * main ULT's own stream: once the main ULT sees it arrived, it has blocked. */
    struct crowd c = {0};
    c.f = f;
    c.k = 5;
    cb_calls = 1;
    ABT_thread w;
    CHECK_INT(ABT_thread_create(pools[0], plain_wait, &c, ABT_THREAD_ATTR_NULL, &w), ABT_SUCCESS);
    wait_for(&c.arrived, 1);
    ABT_future copy = f;
    CHECK_INT(ABT_future_free(&copy), ABT_ERR_FUTURE);
    CHECK(copy == f);
    c.sets_begun = 5;
    for (int i = 0; i < 5; i++) CHECK_INT(ABT_future_set(f, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.early, 0);
    CHECK_INT(ABT_future_free(&f), ABT_SUCCESS);
}

int main(void)
{
    start_watchdog("watchdog: still running after 60 s (a waiter never woke up)");
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    int rc = start_streams(NSTREAMS, streams, pools);
    CHECK_INT(rc, ABT_SUCCESS);

    test_basic();
    test_callback();
    test_zero_compartments();
    if (future_works) {
        test_many_waiters();
        test_rounds();
        test_tasklets();
        test_callback_unlocked();
        test_many_compartments();
        test_misuse();
    } else {
        printf("ABT_future does not work: skipping waits\n");
    }
    test_bad_input();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
