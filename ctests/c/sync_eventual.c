/* Eventuals (ABT_eventual_*), on 4 streams (primary + 3):
 *  - an eventual without a value (nbytes 0): test before and after set (test leaves *value alone
 *    while not ready; once ready, the value pointer is NULL), wait, a second set
 *    (ABT_ERR_EVENTUAL, still ready), reset (also of an unready one), set again, free (the
 *    handle becomes ABT_EVENTUAL_NULL);
 *  - an eventual with a value: set copies nbytes bytes (the source may change afterwards), wait
 *    and test give the same buffer, a refused second set leaves the value alone, a shorter set,
 *    nbytes larger than created (ABT_ERR_INV_EVENTUAL) or negative (ABT_ERR_INV_ARG) refused
 *    without making it ready, create with nbytes < 0 (ABT_ERR_INV_ARG);
 *  - one set releases 40 ULTs on the 4 streams, 2 external pthreads and the main ULT, all with
 *    the value, none before the set; waiters arriving after the set (ULTs, a pthread, the main
 *    ULT) return at once; reset, then a second round set by an external thread;
 *  - timedwait (absolute CLOCK_REALTIME deadline): a past deadline times out at once
 *    (ABT_ERR_COND_TIMEDOUT); 100 ms deadlines on the main ULT, a ULT and a pthread time out,
 *    none before its deadline; a timed waiter is released by a set that comes from a ULT of its
 *    own stream (so a waiting ULT lets its stream run others); a ready eventual returns at once
 *    even with a past deadline; the eventual works normally after timed-out waiters left;
 *  - static eventuals (ABT_eventual_memory, ABT_EVENTUAL_INITIALIZER,
 *    ABT_EVENTUAL_MEMORY_GET_HANDLE): used by external pthreads BEFORE ABT_init (3 waiters, one
 *    setter, second set refused, reset), then after ABT_init by ULTs, a pthread and the main
 *    ULT for 20 set/reset rounds; eventuals on the stack set by a pthread; a static eventual
 *    carries no value (NULL value pointer; a set with nbytes > 0 is ABT_ERR_INV_EVENTUAL);
 *  - tasklets may test, set and reset, but ABT_eventual_wait from a tasklet is ABT_ERR_EVENTUAL
 *    (Argobots 1.x), even on a ready eventual;
 *  - bad input: ABT_EVENTUAL_NULL, a freed handle and handles of other kinds give
 *    ABT_ERR_INV_EVENTUAL from every function.
 * Added with the implementation: timedwait released by a set (main ULT, ULT, pthread; 10 s
 * deadlines) and refused to tasklets (ABT_ERR_EVENTUAL, as wait); 100 rounds of 0-3 ms
 * deadlines racing a set (no early timeout, no wrong value, no waiter left behind); buffers of
 * 1 to 4096 bytes (inline and malloc'd, 16-byte aligned); NULL pointers (ABT_ERR_INV_ARG /
 * ABT_ERR_INV_EVENTUAL), free with a blocked waiter (ABT_ERR_EVENTUAL), free of static memory
 * (ABT_ERR_INV_EVENTUAL); a static eventual between pthreads after ABT_finalize.
 * A watchdog ends the program with a failure if some waiter never wakes. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "sync_util.h"

/* For plain threads (also before ABT_init): waits with sched_yield until *flag reaches want or
 * 10 s pass; 1 if it did. */
static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int os_wait_for(int *flag, int want)
{
    double end = mono_now() + 10.0;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) {
        if (mono_now() > end) return 0;
        sched_yield();
    }
    return 1;
}

/* On a ULT or a plain thread (also before ABT_init): waits until want callers are blocked in
 * e's wait (goabt_eventual_get_num_waiters) or 10 s pass; 1 if they are. A set that follows
 * then releases blocked waiters, not ones still on their way in. */
static int wait_eventual_waiters(ABT_eventual e, int want)
{
    double end = mono_now() + 10.0 * CTEST_SLOW;
    int n = -1;
    while (goabt_eventual_get_num_waiters(e, &n) != ABT_SUCCESS || n != want) {
        if (mono_now() > end) return 0;
        if (ABT_thread_yield() != ABT_SUCCESS) sched_yield();
    }
    return 1;
}

/* 1 if the CLOCK_REALTIME clock has reached ts. */
static int reached(const struct timespec *ts)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec >= ts->tv_nsec);
}

/* ---- Without a value ---------------------------------------------------------------------- */

static int eventual_works; /* create, set, test, wait, reset and free worked */

static void test_no_value(void)
{
    ABT_eventual e = ABT_EVENTUAL_NULL;
    if (!CHECK_OK(ABT_eventual_create(0, &e))) return;
    int sentinel;
    void *v = &sentinel;
    ABT_bool ready = ABT_TRUE;
    int ok = 1;
    ok &= CHECK_OK(ABT_eventual_test(e, &v, &ready));
    CHECK_INT(ready, ABT_FALSE);
    CHECK(v == &sentinel); /* not ready: *value left alone */
    ok &= CHECK_OK(ABT_eventual_test(e, NULL, &ready));
    CHECK_INT(ready, ABT_FALSE);

    ok &= CHECK_OK(ABT_eventual_set(e, NULL, 0));
    ok &= CHECK_OK(ABT_eventual_test(e, &v, &ready));
    CHECK_INT(ready, ABT_TRUE);
    CHECK(v == NULL); /* nbytes 0: no buffer */
    v = &sentinel;
    ok &= CHECK_OK(ABT_eventual_wait(e, &v));
    CHECK(v == NULL);
    ok &= CHECK_OK(ABT_eventual_wait(e, NULL));

    /* A second set is an error and changes nothing. */
    CHECK_INT(ABT_eventual_set(e, NULL, 0), ABT_ERR_EVENTUAL);
    ok &= CHECK_OK(ABT_eventual_test(e, NULL, &ready));
    CHECK_INT(ready, ABT_TRUE);

    ok &= CHECK_OK(ABT_eventual_reset(e));
    ok &= CHECK_OK(ABT_eventual_test(e, NULL, &ready));
    CHECK_INT(ready, ABT_FALSE);
    ok &= CHECK_OK(ABT_eventual_reset(e)); /* resetting an unready eventual is fine */
    ok &= CHECK_OK(ABT_eventual_test(e, NULL, &ready));
    CHECK_INT(ready, ABT_FALSE);
    ok &= CHECK_OK(ABT_eventual_set(e, NULL, 0));
    ok &= CHECK_OK(ABT_eventual_test(e, NULL, &ready));
    CHECK_INT(ready, ABT_TRUE);
    ok &= CHECK_OK(ABT_eventual_wait(e, NULL));

    ok &= CHECK_OK(ABT_eventual_free(&e));
    CHECK(e == ABT_EVENTUAL_NULL);
    eventual_works = ok && e == ABT_EVENTUAL_NULL;
}

/* ---- With a value ------------------------------------------------------------------------- */

struct payload {
    long a, b, c;
};

static void test_value(void)
{
    ABT_eventual e = ABT_EVENTUAL_NULL;
    CHECK_INT(ABT_eventual_create(-1, &e), ABT_ERR_INV_ARG);
    e = ABT_EVENTUAL_NULL;
    if (!CHECK_OK(ABT_eventual_create((int)sizeof(struct payload), &e))) return;
    struct payload src = {11, 22, 33}, want = {11, 22, 33};
    int sentinel;
    void *v = &sentinel, *v2 = &sentinel;
    ABT_bool ready = ABT_TRUE;
    CHECK_INT(ABT_eventual_test(e, &v, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
    CHECK(v == &sentinel);

    CHECK_INT(ABT_eventual_set(e, &src, (int)sizeof src), ABT_SUCCESS);
    src.a = src.b = src.c = -1; /* the eventual keeps its own copy */
    CHECK_INT(ABT_eventual_wait(e, &v), ABT_SUCCESS);
    CHECK(v != NULL && v != &sentinel && v != (void *)&src);
    CHECK(v != NULL && v != &sentinel && memcmp(v, &want, sizeof want) == 0);
    CHECK_INT(ABT_eventual_test(e, &v2, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_TRUE);
    CHECK(v2 == v);
    void *buffer = v;

    /* A refused second set leaves the value alone. */
    struct payload other = {7, 8, 9};
    CHECK_INT(ABT_eventual_set(e, &other, (int)sizeof other), ABT_ERR_EVENTUAL);
    CHECK_INT(ABT_eventual_wait(e, &v), ABT_SUCCESS);
    CHECK(v == buffer && memcmp(v, &want, sizeof want) == 0);

    /* A shorter set writes its bytes. */
    CHECK_INT(ABT_eventual_reset(e), ABT_SUCCESS);
    long first = 4242;
    CHECK_INT(ABT_eventual_set(e, &first, (int)sizeof first), ABT_SUCCESS);
    v = NULL;
    CHECK_INT(ABT_eventual_wait(e, &v), ABT_SUCCESS);
    CHECK(v == buffer && ((struct payload *)v)->a == 4242);

    /* More bytes than created, or a negative count: refused, and the eventual stays unready. */
    CHECK_INT(ABT_eventual_reset(e), ABT_SUCCESS);
    char big[sizeof(struct payload) + 1];
    memset(big, 1, sizeof big);
    CHECK_INT(ABT_eventual_set(e, big, (int)sizeof big), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_eventual_test(e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
    CHECK_INT(ABT_eventual_set(e, &other, -1), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_eventual_test(e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);

    /* nbytes 0 on an eventual with a buffer: ready, buffer still given. */
    CHECK_INT(ABT_eventual_set(e, NULL, 0), ABT_SUCCESS);
    v = NULL;
    CHECK_INT(ABT_eventual_test(e, &v, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_TRUE);
    CHECK(v == buffer);
    CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
    CHECK(e == ABT_EVENTUAL_NULL);
}

/* ---- Many waiters, one set ----------------------------------------------------------------- */

struct crowd {
    ABT_eventual e;
    long want;      /* the value the setter writes */
    int arrived;    /* waiters that called wait */
    int set_called; /* the setter is about to call (or called) set */
    int done;       /* waiters returned */
    int rc, bad_value, early;
};

static void crowd_wait(struct crowd *c)
{
    __atomic_add_fetch(&c->arrived, 1, __ATOMIC_ACQ_REL);
    void *v = NULL;
    int rc = ABT_eventual_wait(c->e, &v);
    if (rc != ABT_SUCCESS) __atomic_or_fetch(&c->rc, rc, __ATOMIC_RELAXED);
    if (rc == ABT_SUCCESS && (v == NULL || *(long *)v != c->want)) {
        __atomic_add_fetch(&c->bad_value, 1, __ATOMIC_RELAXED);
    }
    if (!__atomic_load_n(&c->set_called, __ATOMIC_ACQUIRE)) __atomic_add_fetch(&c->early, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->done, 1, __ATOMIC_RELEASE);
}

static void crowd_ult(void *arg) { crowd_wait(arg); }
static void *crowd_ext(void *arg)
{
    crowd_wait(arg);
    return NULL;
}

static int crowd_expected; /* waiters the setter waits for */
static int crowd_set_rc;

static void crowd_set(struct crowd *c)
{
    /* All waiters are in (bounded: a failing wait must not keep the setter away). */
    if (!wait_eventual_waiters(c->e, crowd_expected)) {
        check_record(0, __FILE__, __LINE__, "the crowd's waiters did not all block");
    }
    __atomic_store_n(&c->set_called, 1, __ATOMIC_RELEASE);
    crowd_set_rc = ABT_eventual_set(c->e, &c->want, (int)sizeof c->want);
}

static void setter_ult(void *arg) { crowd_set(arg); }
static void *setter_ext(void *arg)
{
    crowd_set(arg);
    return NULL;
}

/* nults ULTs (over the 4 pools), next pthreads and the main ULT wait; a ULT on stream 3 (or a
 * pthread, if ext_setter) sets. Then late waiters: 10 ULTs, a pthread and the main ULT. */
static void crowd_round(ABT_eventual e, long want, int nults, int next, int ext_setter)
{
    struct crowd c = {0};
    c.e = e;
    c.want = want;
    crowd_expected = nults + next + 1;
    crowd_set_rc = -1;
    ABT_thread *t = calloc((size_t)nults + 11, sizeof *t);
    pthread_t th[4], setter_th;
    ABT_thread setter = ABT_THREAD_NULL;
    int rc = ABT_SUCCESS;
    for (int i = 0; i < nults; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], crowd_ult, &c, ABT_THREAD_ATTR_NULL, &t[i]);
    for (int i = 0; i < next; i++) pthread_create(&th[i], NULL, crowd_ext, &c);
    if (ext_setter) {
        pthread_create(&setter_th, NULL, setter_ext, &c);
    } else {
        rc |= ABT_thread_create(pools[3], setter_ult, &c, ABT_THREAD_ATTR_NULL, &setter);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    if (rc != ABT_SUCCESS) give_up("could not create the ULTs");
    crowd_wait(&c); /* the main ULT waits too */
    if (!wait_for(&c.done, crowd_expected)) give_up("waiters not released within 10 s");
    for (int i = 0; i < nults; i++) rc |= ABT_thread_free(&t[i]);
    for (int i = 0; i < next; i++) pthread_join(th[i], NULL);
    if (ext_setter) {
        pthread_join(setter_th, NULL);
    } else {
        rc |= ABT_thread_free(&setter);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(crowd_set_rc, ABT_SUCCESS);
    CHECK_INT(c.arrived, crowd_expected);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.bad_value, 0);
    CHECK_INT(c.early, 0); /* nobody returned before the set */

    /* Latecomers: the eventual is ready, they return at once with the value. */
    c.done = 0;
    for (int i = 0; i < 10; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], crowd_ult, &c, ABT_THREAD_ATTR_NULL, &t[i]);
    pthread_create(&th[0], NULL, crowd_ext, &c);
    crowd_wait(&c);
    if (!wait_for(&c.done, 12)) give_up("late waiters did not return");
    for (int i = 0; i < 10; i++) rc |= ABT_thread_free(&t[i]);
    pthread_join(th[0], NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.bad_value, 0);
    free(t);
}

static void test_many_waiters(void)
{
    ABT_eventual e = ABT_EVENTUAL_NULL;
    if (!CHECK_OK(ABT_eventual_create((int)sizeof(long), &e))) return;
    printf("40 ULTs, 2 pthreads and the main ULT wait; a ULT sets\n");
    crowd_round(e, 4242, 40, 2, 0);
    CHECK_INT(ABT_eventual_reset(e), ABT_SUCCESS);
    ABT_bool ready = ABT_TRUE;
    CHECK_INT(ABT_eventual_test(e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
    printf("after reset: 12 ULTs, a pthread and the main ULT wait; a pthread sets\n");
    crowd_round(e, 777, 12, 1, 1);
    CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
}

/* ---- Timed waits ---------------------------------------------------------------------------- */

struct timed {
    ABT_eventual e;
    long ms;  /* deadline from the start of the wait */
    int rc, early, arrived, done;
    void *value;
};

static void timed_wait(struct timed *w)
{
    struct timespec dl = deadline_in(w->ms * 1e-3);
    __atomic_store_n(&w->arrived, 1, __ATOMIC_RELEASE);
    w->rc = ABT_eventual_timedwait(w->e, &w->value, &dl);
    if (w->rc == ABT_ERR_COND_TIMEDOUT && !reached(&dl)) w->early = 1;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

static void timed_ult(void *arg) { timed_wait(arg); }
static void *timed_ext(void *arg)
{
    timed_wait(arg);
    return NULL;
}

static int same_stream_set_rc;
static long same_stream_value = 31337;
static void set_after_arrival(void *arg)
{
    struct timed *w = arg;
    if (!wait_eventual_waiters(w->e, 1)) check_record(0, __FILE__, __LINE__, "the timed waiter did not block");
    same_stream_set_rc = ABT_eventual_set(w->e, &same_stream_value, (int)sizeof same_stream_value);
}

static void test_timedwait(void)
{
    ABT_eventual e = ABT_EVENTUAL_NULL;
    if (!CHECK_OK(ABT_eventual_create((int)sizeof(long), &e))) return;

    /* A deadline in the past: at once. */
    struct timespec past = deadline_in(-1.0);
    void *v = NULL;
    CHECK_INT(ABT_eventual_timedwait(e, &v, &past), ABT_ERR_COND_TIMEDOUT);
    struct timespec epoch = {0, 0}; /* a zeroed timespec: long past too */
    CHECK_INT(ABT_eventual_timedwait(e, &v, &epoch), ABT_ERR_COND_TIMEDOUT);

    /* 100 ms deadlines on the main ULT, a ULT of stream 1 and a pthread, all at once. */
    struct timed wm = {e, 100, -1, 0, 0, 0, NULL}, wu = wm, we = wm;
    ABT_thread t;
    pthread_t th;
    CHECK_INT(ABT_thread_create(pools[1], timed_ult, &wu, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    pthread_create(&th, NULL, timed_ext, &we);
    timed_wait(&wm);
    if (!wait_for(&wu.done, 1) || !wait_for(&we.done, 1)) give_up("a 100 ms timed wait did not end");
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    pthread_join(th, NULL);
    CHECK_INT(wm.rc, ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(wu.rc, ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(we.rc, ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(wm.early + wu.early + we.early, 0); /* no timeout before its deadline */
    ABT_bool ready = ABT_TRUE;
    CHECK_INT(ABT_eventual_test(e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);

    /* A timed waiter (10 s) released by a ULT of the same stream: the waiting ULT must let
     * its stream run the setter. */
    struct timed wl = {e, 10000, -1, 0, 0, 0, NULL};
    ABT_thread waiter, setter;
    same_stream_set_rc = -1;
    CHECK_INT(ABT_thread_create(pools[2], timed_ult, &wl, ABT_THREAD_ATTR_NULL, &waiter), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pools[2], set_after_arrival, &wl, ABT_THREAD_ATTR_NULL, &setter), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&waiter), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&setter), ABT_SUCCESS);
    CHECK_INT(same_stream_set_rc, ABT_SUCCESS);
    CHECK_INT(wl.rc, ABT_SUCCESS);
    CHECK(wl.value != NULL && *(long *)wl.value == 31337);

    /* Ready: at once, even with a past deadline. */
    v = NULL;
    past = deadline_in(-1.0);
    CHECK_INT(ABT_eventual_timedwait(e, &v, &past), ABT_SUCCESS);
    CHECK(v != NULL && *(long *)v == 31337);
    struct timespec later = deadline_in(10.0);
    v = NULL;
    CHECK_INT(ABT_eventual_timedwait(e, &v, &later), ABT_SUCCESS);
    CHECK(v != NULL && *(long *)v == 31337);

    /* The timed-out waiters left no trace: reset, a ULT waits plainly, the main ULT sets. */
    CHECK_INT(ABT_eventual_reset(e), ABT_SUCCESS);
    struct crowd c = {0};
    c.e = e;
    c.want = 99;
    ABT_thread w;
    CHECK_INT(ABT_thread_create(pools[1], crowd_ult, &c, ABT_THREAD_ATTR_NULL, &w), ABT_SUCCESS);
    wait_for(&c.arrived, 1);
    __atomic_store_n(&c.set_called, 1, __ATOMIC_RELEASE);
    CHECK_INT(ABT_eventual_set(e, &c.want, (int)sizeof c.want), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.bad_value, 0);
    CHECK_INT(c.early, 0);
    CHECK_INT(ABT_eventual_timedwait(ABT_EVENTUAL_NULL, &v, &later), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
}

/* ---- Static eventuals --------------------------------------------------------------------- */

static ABT_eventual_memory static_mem = ABT_EVENTUAL_INITIALIZER;

struct pre {
    ABT_eventual e;
    int arrived, set_called, done;
    int rc, early, non_null;
    int set_rc;
};

static void *pre_waiter(void *arg)
{
    struct pre *p = arg;
    __atomic_add_fetch(&p->arrived, 1, __ATOMIC_ACQ_REL);
    void *v = &v;
    int rc = ABT_eventual_wait(p->e, &v);
    if (rc != ABT_SUCCESS) __atomic_or_fetch(&p->rc, rc, __ATOMIC_RELAXED);
    if (rc == ABT_SUCCESS && v != NULL) __atomic_add_fetch(&p->non_null, 1, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&p->set_called, __ATOMIC_ACQUIRE)) __atomic_add_fetch(&p->early, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&p->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *pre_setter(void *arg)
{
    struct pre *p = arg;
    if (!wait_eventual_waiters(p->e, 3)) {
        check_record(0, __FILE__, __LINE__, "3 pthreads did not block before ABT_init");
    }
    __atomic_store_n(&p->set_called, 1, __ATOMIC_RELEASE);
    p->set_rc = ABT_eventual_set(p->e, NULL, 0);
    return NULL;
}

static int static_works;

/* Before ABT_init: a static eventual needs no runtime (a requirement of goabt; Argobots 1.2
 * documents calls before ABT_init as undefined). */
static void test_static_before_init(void)
{
    struct pre p = {0};
    p.e = ABT_EVENTUAL_MEMORY_GET_HANDLE(&static_mem);
    p.set_rc = -1;
    ABT_bool ready = ABT_TRUE;
    printf("static eventual before ABT_init: 3 pthreads wait, one sets\n");
    CHECK_INT(ABT_eventual_test(p.e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
    pthread_t w[3], s;
    for (int i = 0; i < 3; i++) pthread_create(&w[i], NULL, pre_waiter, &p);
    pthread_create(&s, NULL, pre_setter, &p);
    if (!os_wait_for(&p.done, 3)) give_up("static eventual: pthread waiters not released before ABT_init");
    for (int i = 0; i < 3; i++) pthread_join(w[i], NULL);
    pthread_join(s, NULL);
    CHECK_INT(p.set_rc, ABT_SUCCESS);
    CHECK_INT(p.rc, ABT_SUCCESS);
    CHECK_INT(p.early, 0);
    CHECK_INT(p.non_null, 0);
    CHECK_INT(ABT_eventual_test(p.e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_TRUE);
    CHECK_INT(ABT_eventual_set(p.e, NULL, 0), ABT_ERR_EVENTUAL);
    CHECK_INT(ABT_eventual_reset(p.e), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_test(p.e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
}

struct static_round {
    ABT_eventual e;
    int round, value; /* value is written before the set */
    int arrived, done, bad, rc;
};

static void static_waiter(struct static_round *s)
{
    __atomic_add_fetch(&s->arrived, 1, __ATOMIC_ACQ_REL);
    void *v = &v;
    int rc = ABT_eventual_wait(s->e, &v);
    if (rc != ABT_SUCCESS) __atomic_or_fetch(&s->rc, rc, __ATOMIC_RELAXED);
    /* The setter's plain write before the set is visible after the wait. */
    if (rc == ABT_SUCCESS && (v != NULL || s->value != s->round * 10 + 1)) __atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->done, 1, __ATOMIC_RELEASE);
}

static void static_ult(void *arg) { static_waiter(arg); }
static void *static_ext(void *arg)
{
    static_waiter(arg);
    return NULL;
}

static void *stack_setter(void *arg)
{
    ABT_eventual e = arg;
    if (!wait_eventual_waiters(e, 1)) {
        check_record(0, __FILE__, __LINE__, "the main ULT did not block on a stack eventual");
    }
    if (ABT_eventual_set(e, NULL, 0) != ABT_SUCCESS) {
        check_record(0, __FILE__, __LINE__, "ABT_eventual_set on a stack eventual from a pthread");
    }
    return NULL;
}

static void test_static_after_init(void)
{
    ABT_eventual e = ABT_EVENTUAL_MEMORY_GET_HANDLE(&static_mem);
    ABT_bool ready = ABT_TRUE;
    /* Usable as left before ABT_init (reset). */
    static_works = CHECK_OK(ABT_eventual_test(e, NULL, &ready)) && ready == ABT_FALSE;
    CHECK_INT(ready, ABT_FALSE);
    if (!static_works) return;

    printf("static eventual: 20 rounds of 8 ULTs and a pthread released by the main ULT\n");
    int bad = 0, rcs = 0, rc = ABT_SUCCESS;
    for (int r = 0; r < 20; r++) {
        struct static_round s = {e, r, 0, 0, 0, 0, 0};
        ABT_thread t[8];
        pthread_t th;
        for (int i = 0; i < 8; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], static_ult, &s, ABT_THREAD_ATTR_NULL, &t[i]);
        pthread_create(&th, NULL, static_ext, &s);
        if (!wait_eventual_waiters(e, 9)) give_up("static eventual: waiters did not block");
        s.value = r * 10 + 1;
        rc |= ABT_eventual_set(e, NULL, 0);
        if (!wait_for(&s.done, 9)) give_up("static eventual: waiters not released");
        for (int i = 0; i < 8; i++) rc |= ABT_thread_free(&t[i]);
        pthread_join(th, NULL);
        rc |= ABT_eventual_reset(e);
        bad += s.bad;
        rcs |= s.rc;
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(rcs, ABT_SUCCESS);
    CHECK_INT(bad, 0);

    /* No value: the pointer is NULL, and a set with bytes is refused. */
    int x = 5;
    void *v = &v;
    CHECK_INT(ABT_eventual_set(e, &x, (int)sizeof x), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_eventual_test(e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
    CHECK_INT(ABT_eventual_set(e, NULL, 0), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_wait(e, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    CHECK_INT(ABT_eventual_reset(e), ABT_SUCCESS);

    /* Eventuals on the stack, set by a pthread, waited for by the main ULT, reset before they
     * go out of scope. */
    for (int rep = 0; rep < 5; rep++) {
        ABT_eventual_memory mem = ABT_EVENTUAL_INITIALIZER;
        ABT_eventual se = ABT_EVENTUAL_MEMORY_GET_HANDLE(&mem);
        pthread_t th;
        pthread_create(&th, NULL, stack_setter, se);
        CHECK_INT(ABT_eventual_wait(se, NULL), ABT_SUCCESS);
        CHECK_INT(ABT_eventual_test(se, NULL, &ready), ABT_SUCCESS);
        CHECK_INT(ready, ABT_TRUE);
        CHECK_INT(ABT_eventual_reset(se), ABT_SUCCESS);
        pthread_join(th, NULL);
    }
}

/* ---- Tasklets ----------------------------------------------------------------------------- */

static ABT_eventual task_e;
static int task_test_rc = -1, task_set_rc = -1, task_wait_rc = -1, task_reset_rc = -1;
static ABT_bool task_saw_ready = ABT_TRUE;
static long task_value = 2024;

static void tasklet_sets(void *arg)
{
    (void)arg;
    task_test_rc = ABT_eventual_test(task_e, NULL, &task_saw_ready);
    task_set_rc = ABT_eventual_set(task_e, &task_value, (int)sizeof task_value);
}

static void tasklet_waits(void *arg)
{
    (void)arg;
    void *v = NULL;
    task_wait_rc = ABT_eventual_wait(task_e, &v);
}

static void tasklet_resets(void *arg)
{
    (void)arg;
    task_reset_rc = ABT_eventual_reset(task_e);
}

static void test_tasklets(void)
{
    task_e = ABT_EVENTUAL_NULL;
    if (!CHECK_OK(ABT_eventual_create((int)sizeof(long), &task_e))) return;
    struct crowd c = {0};
    c.e = task_e;
    c.want = 2024;
    c.set_called = 1; /* the tasklet sets; "early" is not measured here */
    ABT_thread w;
    ABT_task t;
    CHECK_INT(ABT_thread_create(pools[1], crowd_ult, &c, ABT_THREAD_ATTR_NULL, &w), ABT_SUCCESS);
    wait_for(&c.arrived, 1);
    CHECK_INT(ABT_task_create(pools[2], tasklet_sets, NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(task_test_rc, ABT_SUCCESS);
    CHECK_INT(task_saw_ready, ABT_FALSE);
    CHECK_INT(task_set_rc, ABT_SUCCESS);
    if (task_set_rc == ABT_SUCCESS) {
        CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
        CHECK_INT(c.rc, ABT_SUCCESS);
        CHECK_INT(c.bad_value, 0);
    }
    /* A tasklet may not wait, even on a ready eventual. */
    CHECK_INT(ABT_task_create(pools[3], tasklet_waits, NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(task_wait_rc, ABT_ERR_EVENTUAL);
    CHECK_INT(ABT_task_create(pools[3], tasklet_resets, NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(task_reset_rc, ABT_SUCCESS);
    ABT_bool ready = ABT_TRUE;
    CHECK_INT(ABT_eventual_test(task_e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);
    CHECK_INT(ABT_eventual_free(&task_e), ABT_SUCCESS);
}

/* ---- Bad input ---------------------------------------------------------------------------- */

/* test goes first: it only reads, and when it accepts the handle the other calls are skipped
 * (on a pool's memory they could write or block). */
static void check_invalid(ABT_eventual e, const char *what)
{
    void *v = NULL;
    ABT_bool ready;
    long x = 1;
    struct timespec dl = deadline_in(0.010);
    ABT_eventual copy = e;
    printf("invalid eventual handle: %s\n", what);
    int rc = ABT_eventual_test(e, &v, &ready);
    CHECK_INT(rc, ABT_ERR_INV_EVENTUAL);
    if (rc != ABT_ERR_INV_EVENTUAL) return;
    CHECK_INT(ABT_eventual_timedwait(e, &v, &dl), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_eventual_wait(e, &v), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_eventual_reset(e), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_eventual_set(e, &x, 0), ABT_ERR_INV_EVENTUAL);
    CHECK_INT(ABT_eventual_free(&copy), ABT_ERR_INV_EVENTUAL);
    CHECK(copy == e);
}

static void test_bad_input(void)
{
    check_invalid(ABT_EVENTUAL_NULL, "ABT_EVENTUAL_NULL");
    ABT_eventual e = ABT_EVENTUAL_NULL;
    if (CHECK_OK(ABT_eventual_create(8, &e))) {
        ABT_eventual stale = e;
        CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
        check_invalid(stale, "freed (nothing created since)");
    }
    check_invalid((ABT_eventual)pools[1], "a pool");
    check_invalid((ABT_eventual)streams[2], "an execution stream");
}

/* ---- More (added with the implementation) --------------------------------------------------- */

/* Timed waits that do not expire: the main ULT, a ULT and a pthread wait with a 10 s deadline
 * and are released by a set from a ULT of another stream; a tasklet may not timedwait. */
static void set_from_ult(void *arg)
{
    struct timed *ws = arg; /* three waiters */
    if (!wait_eventual_waiters(ws[0].e, 3)) check_record(0, __FILE__, __LINE__, "3 timed waiters did not block");
    same_stream_set_rc = ABT_eventual_set(ws[0].e, &same_stream_value, (int)sizeof same_stream_value);
}

static int task_timedwait_rc = -1;
static void tasklet_timedwaits(void *arg)
{
    struct timespec dl = deadline_in(10.0);
    void *v = NULL;
    task_timedwait_rc = ABT_eventual_timedwait((ABT_eventual)arg, &v, &dl);
}

static void test_timedwait_released(void)
{
    ABT_eventual e = ABT_EVENTUAL_NULL;
    if (!CHECK_OK(ABT_eventual_create((int)sizeof(long), &e))) return;
    printf("timedwait (10 s) on the main ULT, a ULT and a pthread, released by a set\n");
    struct timed ws[3];
    for (int i = 0; i < 3; i++) ws[i] = (struct timed){e, 10000, -1, 0, 0, 0, NULL};
    ABT_thread waiter, setter;
    pthread_t th;
    same_stream_set_rc = -1;
    CHECK_INT(ABT_thread_create(pools[1], timed_ult, &ws[1], ABT_THREAD_ATTR_NULL, &waiter), ABT_SUCCESS);
    pthread_create(&th, NULL, timed_ext, &ws[2]);
    CHECK_INT(ABT_thread_create(pools[3], set_from_ult, ws, ABT_THREAD_ATTR_NULL, &setter), ABT_SUCCESS);
    timed_wait(&ws[0]);
    CHECK_INT(ABT_thread_free(&waiter), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&setter), ABT_SUCCESS);
    pthread_join(th, NULL);
    CHECK_INT(same_stream_set_rc, ABT_SUCCESS);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(ws[i].rc, ABT_SUCCESS);
        CHECK(ws[i].value != NULL && *(long *)ws[i].value == 31337);
    }

    /* A tasklet may not timedwait (as ABT_eventual_wait in Argobots 1.x), ready or not. */
    for (int ready = 1; ready >= 0; ready--) {
        if (!ready) CHECK_INT(ABT_eventual_reset(e), ABT_SUCCESS);
        ABT_task t;
        task_timedwait_rc = -1;
        CHECK_INT(ABT_task_create(pools[2], tasklet_timedwaits, e, &t), ABT_SUCCESS);
        CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
        CHECK_INT(task_timedwait_rc, ABT_ERR_EVENTUAL);
    }
    CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
}

/* Deadlines racing a set: each round, 8 ULTs (4 streams), a pthread and the main ULT wait with
 * deadlines 0 to 3 ms away while a ULT sets after about 1.5 ms. Each wait either times out (not
 * before its deadline) or returns the value; nobody hangs, and every waiter left the list (the
 * final free would refuse otherwise). */
struct race {
    ABT_eventual e;
    int arrived, done, bad, early;
    long value;
};
struct racer {
    struct race *r;
    long us; /* deadline */
};

static void race_wait(struct racer *w)
{
    struct race *r = w->r;
    struct timespec dl = deadline_in((double)w->us * 1e-6);
    __atomic_add_fetch(&r->arrived, 1, __ATOMIC_ACQ_REL);
    void *v = NULL;
    int rc = ABT_eventual_timedwait(r->e, &v, &dl);
    if (rc == ABT_ERR_COND_TIMEDOUT) {
        if (!reached(&dl)) __atomic_add_fetch(&r->early, 1, __ATOMIC_RELAXED);
    } else if (rc != ABT_SUCCESS || v == NULL || *(long *)v != r->value) {
        __atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&r->done, 1, __ATOMIC_RELEASE);
}
static void race_ult(void *arg) { race_wait(arg); }
static void *race_ext(void *arg)
{
    race_wait(arg);
    return NULL;
}
static int race_set_rc;
static void race_setter(void *arg)
{
    struct race *r = arg;
    double end = ABT_get_wtime() + 0.0015;
    while (ABT_get_wtime() < end) ABT_thread_yield();
    race_set_rc |= ABT_eventual_set(r->e, &r->value, (int)sizeof r->value);
}

static void test_timeout_race(void)
{
    enum { ROUNDS = 100, NU = 8 };
    ABT_eventual e = ABT_EVENTUAL_NULL;
    if (!CHECK_OK(ABT_eventual_create((int)sizeof(long), &e))) return;
    printf("%d rounds of deadlines racing a set\n", ROUNDS);
    int rc = ABT_SUCCESS, bad = 0, early = 0, hung = 0;
    unsigned seed = 12345;
    race_set_rc = ABT_SUCCESS;
    for (int round = 0; round < ROUNDS && !hung; round++) {
        struct race r = {e, 0, 0, 0, 0, 1000 + round};
        struct racer w[NU + 2];
        for (int i = 0; i < NU + 2; i++) {
            seed = seed * 1103515245u + 12345u;
            w[i] = (struct racer){&r, (long)(seed >> 16) % 3000};
        }
        ABT_thread t[NU], s;
        pthread_t th;
        for (int i = 0; i < NU; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], race_ult, &w[i], ABT_THREAD_ATTR_NULL, &t[i]);
        pthread_create(&th, NULL, race_ext, &w[NU]);
        rc |= ABT_thread_create(pools[round % NSTREAMS], race_setter, &r, ABT_THREAD_ATTR_NULL, &s);
        race_wait(&w[NU + 1]);
        if (!wait_for(&r.done, NU + 2)) hung = 1;
        for (int i = 0; i < NU; i++) rc |= ABT_thread_free(&t[i]);
        rc |= ABT_thread_free(&s);
        pthread_join(th, NULL);
        bad += r.bad;
        early += r.early;
        rc |= ABT_eventual_reset(e);
    }
    CHECK_INT(hung, 0);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(race_set_rc, ABT_SUCCESS);
    CHECK_INT(bad, 0);
    CHECK_INT(early, 0);
    CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS); /* no waiter left behind */
}

/* Buffers inline and malloc'd: the value round-trips, aligned for any type. */
static void test_sizes(void)
{
    int sizes[] = {1, 15, 16, 200, 208, 209, 256, 4096};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        ABT_eventual e = ABT_EVENTUAL_NULL;
        if (!CHECK_OK(ABT_eventual_create(n, &e))) continue;
        unsigned char *src = malloc((size_t)n);
        for (int i = 0; i < n; i++) src[i] = (unsigned char)(i * 7 + n);
        CHECK_INT(ABT_eventual_set(e, src, n), ABT_SUCCESS);
        memset(src, 0, (size_t)n);
        void *v = NULL;
        CHECK_INT(ABT_eventual_wait(e, &v), ABT_SUCCESS);
        int same = v != NULL;
        for (int i = 0; same && i < n; i++) same = ((unsigned char *)v)[i] == (unsigned char)(i * 7 + n);
        CHECK(same);
        CHECK(v != NULL && (uintptr_t)v % 16 == 0);
        CHECK_INT(ABT_eventual_set(e, src, n + 1), ABT_ERR_INV_EVENTUAL);
        CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);
        free(src);
    }
}

/* NULL pointers and misuse: goabt's answers where Argobots leaves it undefined. */
static void ult_waits_plain(void *arg)
{
    struct crowd *c = arg;
    crowd_wait(c);
}

static void test_misuse(void)
{
    ABT_eventual e = ABT_EVENTUAL_NULL;
    CHECK_INT(ABT_eventual_create(4, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_eventual_free(NULL), ABT_ERR_INV_EVENTUAL);
    if (!CHECK_OK(ABT_eventual_create((int)sizeof(long), &e))) return;
    CHECK_INT(ABT_eventual_test(e, NULL, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_eventual_timedwait(e, NULL, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_eventual_set(e, NULL, 4), ABT_ERR_INV_ARG);
    ABT_bool ready = ABT_TRUE;
    CHECK_INT(ABT_eventual_test(e, NULL, &ready), ABT_SUCCESS);
    CHECK_INT(ready, ABT_FALSE);

    /* Free with a blocked waiter: refused, and the eventual still works. The waiter runs on
     * the main ULT's own stream: once the main ULT sees it arrived, it has blocked (nothing
     * else switches a ULT out on that stream). */
    struct crowd c = {0};
    c.e = e;
    c.want = 5;
    ABT_thread w;
    CHECK_INT(ABT_thread_create(pools[0], ult_waits_plain, &c, ABT_THREAD_ATTR_NULL, &w), ABT_SUCCESS);
    wait_for(&c.arrived, 1);
    ABT_eventual copy = e;
    int rc = ABT_eventual_free(&copy);
    CHECK_INT(rc, ABT_ERR_EVENTUAL);
    CHECK(copy == e);
    __atomic_store_n(&c.set_called, 1, __ATOMIC_RELEASE);
    CHECK_INT(ABT_eventual_set(e, &c.want, (int)sizeof c.want), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
    CHECK_INT(c.rc, ABT_SUCCESS);
    CHECK_INT(c.bad_value, 0);
    CHECK_INT(ABT_eventual_free(&e), ABT_SUCCESS);

    /* Static memory is not freed. */
    ABT_eventual_memory mem = ABT_EVENTUAL_INITIALIZER;
    ABT_eventual se = ABT_EVENTUAL_MEMORY_GET_HANDLE(&mem);
    CHECK_INT(ABT_eventual_free(&se), ABT_ERR_INV_EVENTUAL);
    CHECK(se == ABT_EVENTUAL_MEMORY_GET_HANDLE(&mem));
}

/* After ABT_finalize: a static eventual still works between pthreads, timed waits included. */
static void test_static_after_finalize(void)
{
    static ABT_eventual_memory mem = ABT_EVENTUAL_INITIALIZER;
    struct pre p = {0};
    p.e = ABT_EVENTUAL_MEMORY_GET_HANDLE(&mem);
    p.set_rc = -1;
    printf("static eventual after ABT_finalize: 3 pthreads wait, one sets\n");
    struct timespec past = deadline_in(-0.010), soon = deadline_in(0.050);
    CHECK_INT(ABT_eventual_timedwait(p.e, NULL, &past), ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(ABT_eventual_timedwait(p.e, NULL, &soon), ABT_ERR_COND_TIMEDOUT);
    CHECK(reached(&soon));
    pthread_t w[3], s;
    for (int i = 0; i < 3; i++) pthread_create(&w[i], NULL, pre_waiter, &p);
    pthread_create(&s, NULL, pre_setter, &p);
    if (!os_wait_for(&p.done, 3)) give_up("static eventual: pthread waiters not released after ABT_finalize");
    for (int i = 0; i < 3; i++) pthread_join(w[i], NULL);
    pthread_join(s, NULL);
    CHECK_INT(p.set_rc, ABT_SUCCESS);
    CHECK_INT(p.rc, ABT_SUCCESS);
    CHECK_INT(p.early, 0);
    CHECK_INT(p.non_null, 0);
    struct timespec later = deadline_in(10.0);
    CHECK_INT(ABT_eventual_timedwait(p.e, NULL, &later), ABT_SUCCESS);
}

int main(void)
{
    start_watchdog("watchdog: still running after 60 s (a waiter never woke up)");
    test_static_before_init();

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    int rc = start_streams(NSTREAMS, streams, pools);
    CHECK_INT(rc, ABT_SUCCESS);

    test_no_value();
    test_value();
    if (eventual_works) {
        test_many_waiters();
        test_timedwait();
        test_tasklets();
        test_timedwait_released();
        test_timeout_race();
        test_misuse();
    } else {
        printf("ABT_eventual does not work: skipping waits\n");
    }
    test_sizes();
    test_static_after_init();
    test_bad_input();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    test_static_after_finalize();
    return check_summary();
}
