/* Condition variables (ABT_cond_*), against Argobots 1.2's documented semantics:
 *  - create (before ABT_init too), free, signal and broadcast with nobody
 *    waiting (no effect: a later waiter still times out); static conds (ABT_cond_memory,
 *    ABT_COND_INITIALIZER, ABT_COND_MEMORY_GET_HANDLE) with static mutexes;
 *  - ping-pong between two ULTs on different streams (500 rounds) and between a ULT and an
 *    external pthread (300 rounds, static cond and mutex): every value seen in order, and no
 *    wait returns unless signaled (Argobots: "a spurious wakeup never occurs");
 *  - broadcast wakes all of 1000 waiter ULTs spread over 4 streams, each after one wait;
 *  - signal wakes exactly one waiter at a time (6 ULTs and 2 pthreads waiting), also when the
 *    signaler does not hold the mutex;
 *  - timedwait with an absolute CLOCK_REALTIME deadline: ABT_ERR_COND_TIMEDOUT from the main ULT,
 *    a ULT, an external pthread and a tasklet, not before the deadline (50 ms: >= 45 ms, < 10 s),
 *    at once for a past deadline, always with the mutex held again; ABT_SUCCESS when signaled
 *    first (20 s deadline), while the waiting ULT's stream goes on running other ULTs;
 *  - bad input: ABT_COND_NULL / ABT_MUTEX_NULL, NULL pointers, freed and wrong-kind handles give
 *    ABT_ERR_INV_COND, ABT_ERR_INV_MUTEX or ABT_ERR_INV_ARG and leave the mutex held; freeing a
 *    cond somebody waits on gives ABT_ERR_COND and keeps it usable; ABT_cond_wait from a tasklet
 *    gives ABT_ERR_COND (Argobots 1.x), the mutex still held.
 * Every wait is bounded: when one expires the program reports it and exits. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "sync_util.h"

/* ---- Helpers ----------------------------------------------------------------------------- */

/* Whether m is locked, without changing it: a fresh pthread's trylock (unlocked again at once if
 * it got it); -1 if the pthread could not be started. */
static int is_locked(ABT_mutex m)
{
    int rc = probe_trylock(m);
    return rc == PROBE_NO_THREAD ? -1 : rc == ABT_ERR_MUTEX_LOCKED;
}

static ABT_mutex_memory s_mutex_mem = ABT_MUTEX_INITIALIZER;
static ABT_cond_memory s_cond_mem = ABT_COND_INITIALIZER;
#define S_MUTEX ABT_MUTEX_MEMORY_GET_HANDLE(&s_mutex_mem)
#define S_COND ABT_COND_MEMORY_GET_HANDLE(&s_cond_mem)

/* ---- Timed waits -------------------------------------------------------------------------- */

/* One timed wait: lock, wait until secs from now, then check the mutex is held again. */
struct tw {
    ABT_cond c;
    ABT_mutex m;
    double secs;
    int lock_rc, rc, held_after, unlock_rc, done;
    double elapsed;
};

static void timed_wait_body(struct tw *t)
{
    t->lock_rc = ABT_mutex_lock(t->m);
    struct timespec ts = deadline_in(t->secs);
    double t0 = ABT_get_wtime();
    t->rc = ABT_cond_timedwait(t->c, t->m, &ts);
    t->elapsed = ABT_get_wtime() - t0;
    /* Held again: the (non-recursive) holder's own trylock is refused. */
    int again = ABT_mutex_trylock(t->m);
    t->held_after = again == ABT_ERR_MUTEX_LOCKED;
    t->unlock_rc = ABT_mutex_unlock(t->m);
    store(&t->done, 1);
}

/* Should a timed wait never end by itself, this wakes it after 10 s (it then reports success
 * instead of a timeout). */
static void *watchdog(void *arg)
{
    struct tw *t = arg;
    double end = ABT_get_wtime() + 10.0;
    while (!load(&t->done)) {
        if (ABT_get_wtime() > end) ABT_cond_broadcast(t->c);
        usleep(1000);
    }
    return NULL;
}

static void timed_wait(struct tw *t)
{
    pthread_t wd;
    pthread_create(&wd, NULL, watchdog, t);
    timed_wait_body(t);
    pthread_join(wd, NULL);
}

static void timed_wait_unit(void *arg) { timed_wait(arg); }
static void *timed_wait_pthread(void *arg)
{
    timed_wait(arg);
    return NULL;
}

static void check_timeout(struct tw *t, const char *who)
{
    printf("timedwait of %.0f ms expiring on %s (took %.1f ms):\n", t->secs * 1000, who, t->elapsed * 1000);
    CHECK_INT(t->lock_rc, ABT_SUCCESS);
    CHECK_INT(t->rc, ABT_ERR_COND_TIMEDOUT);
    if (t->secs > 0) {
        CHECK(t->elapsed >= t->secs - 0.005); /* never early */
        CHECK(t->elapsed < 10.0);
    }
    CHECK(t->held_after);
    CHECK_INT(t->unlock_rc, ABT_SUCCESS);
    CHECK(!is_locked(t->m));
}

static void test_timeouts(ABT_cond c, ABT_mutex m)
{
    /* From the main ULT. */
    struct tw a = { c, m, 0.05, -1, -1, 0, -1, 0, 0 };
    timed_wait(&a);
    check_timeout(&a, "the main ULT");

    /* From a ULT on another stream. */
    struct tw b = { c, m, 0.05, -1, -1, 0, -1, 0, 0 };
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pools[1], timed_wait_unit, &b, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    MUST(until(&b.done, 1));
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    check_timeout(&b, "a ULT");

    /* From an external pthread, the static cond and mutex. */
    struct tw e = { S_COND, S_MUTEX, 0.05, -1, -1, 0, -1, 0, 0 };
    pthread_t p;
    pthread_create(&p, NULL, timed_wait_pthread, &e);
    MUST(until(&e.done, 1));
    pthread_join(p, NULL);
    check_timeout(&e, "an external pthread");

    /* A deadline already past, on a ULT and on a tasklet (Argobots allows timedwait anywhere). */
    struct tw f = { c, m, -1.0, -1, -1, 0, -1, 0, 0 }, g = { c, m, -0.5, -1, -1, 0, -1, 0, 0 };
    CHECK_INT(ABT_thread_create(pools[2], timed_wait_unit, &f, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    MUST(until(&f.done, 1));
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    check_timeout(&f, "a ULT, deadline past");
    ABT_task k;
    CHECK_INT(ABT_task_create(pools[3], timed_wait_unit, &g, &k), ABT_SUCCESS);
    MUST(until(&g.done, 1));
    CHECK_INT(ABT_task_free(&k), ABT_SUCCESS);
    check_timeout(&g, "a tasklet, deadline past");

    /* The epoch itself (a zeroed timespec) is long past too. */
    struct timespec epoch = {0, 0};
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_timedwait(c, m, &epoch), ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
}

/* ---- Signaled before the deadline --------------------------------------------------------- */

static ABT_cond sg_c;
static ABT_mutex sg_m;
static int sg_pred, sg_ready, sg_done, sg_rc, sg_waits, sg_lock_rc, sg_held_after, sg_co_ran;

static void sg_waiter(void)
{
    sg_lock_rc = ABT_mutex_lock(sg_m);
    store(&sg_ready, 1);
    struct timespec ts = deadline_in(20.0);
    int rc = ABT_SUCCESS;
    while (!sg_pred && rc == ABT_SUCCESS) {
        rc = ABT_cond_timedwait(sg_c, sg_m, &ts);
        sg_waits++;
    }
    sg_rc = rc;
    sg_held_after = ABT_mutex_trylock(sg_m) == ABT_ERR_MUTEX_LOCKED;
    ABT_mutex_unlock(sg_m);
    store(&sg_done, 1);
}
static void sg_waiter_ult(void *arg)
{
    (void)arg;
    sg_waiter();
}
static void *sg_waiter_pthread(void *arg)
{
    (void)arg;
    sg_waiter();
    return NULL;
}
static void sg_co_runner(void *arg)
{
    (void)arg;
    store(&sg_co_ran, 1);
}

static void signaled_round(int on_pthread)
{
    sg_pred = sg_ready = sg_done = sg_waits = sg_co_ran = sg_held_after = 0;
    sg_rc = sg_lock_rc = -1;
    ABT_thread w = ABT_THREAD_NULL, co = ABT_THREAD_NULL;
    pthread_t p;
    if (on_pthread) {
        pthread_create(&p, NULL, sg_waiter_pthread, NULL);
    } else {
        CHECK_INT(ABT_thread_create(pools[1], sg_waiter_ult, NULL, ABT_THREAD_ATTR_NULL, &w), ABT_SUCCESS);
    }
    MUST(until(&sg_ready, 1));
    int co_ok = 1;
    if (!on_pthread) {
        /* The waiting ULT must not hold up its stream. */
        CHECK_INT(ABT_thread_create(pools[1], sg_co_runner, NULL, ABT_THREAD_ATTR_NULL, &co), ABT_SUCCESS);
        co_ok = until(&sg_co_ran, 1);
    }
    /* The waiter released the mutex in its wait: the signaler can take it. */
    CHECK_INT(ABT_mutex_lock(sg_m), ABT_SUCCESS);
    sg_pred = 1;
    CHECK_INT(ABT_cond_signal(sg_c), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(sg_m), ABT_SUCCESS);
    MUST(until(&sg_done, 1));
    if (on_pthread) {
        pthread_join(p, NULL);
    } else {
        CHECK_INT(ABT_thread_free(&w), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&co), ABT_SUCCESS);
    }
    printf("timedwait (20 s) signaled on %s:\n", on_pthread ? "an external pthread" : "a ULT");
    CHECK(co_ok);
    CHECK_INT(sg_lock_rc, ABT_SUCCESS);
    CHECK_INT(sg_rc, ABT_SUCCESS);
    CHECK_INT(sg_waits, 1);
    CHECK(sg_held_after);
}

static void test_signaled(ABT_cond c, ABT_mutex m)
{
    sg_c = c;
    sg_m = m;
    signaled_round(0);
    signaled_round(1);
}

/* ---- Ping-pong ---------------------------------------------------------------------------- */

static ABT_cond pp_c;
static ABT_mutex pp_m;
static int pp_turn, pp_abort, pp_done, pp_rounds;
static long pp_value;
static int pp_bad, pp_spurious, pp_errors;

/* Player me (0 or 1) moves pp_value from 2i + me to 2i + me + 1 in its round i. */
static void pp_player(int me)
{
    int bad = 0, spurious = 0, errors = 0;
    for (int i = 0; i < pp_rounds && !load(&pp_abort); i++) {
        errors += ABT_mutex_lock(pp_m) != ABT_SUCCESS;
        int waited = 0;
        while (pp_turn != me && !load(&pp_abort)) {
            /* Each signal follows a change of turn, so a wait never returns to the same turn. */
            spurious += waited++;
            int rc = ABT_cond_wait(pp_c, pp_m);
            if (rc != ABT_SUCCESS) {
                errors++;
                store(&pp_abort, 1);
            }
        }
        if (pp_turn == me) {
            bad += pp_value != 2L * i + me;
            pp_value++;
            pp_turn = 1 - me;
        }
        errors += ABT_cond_signal(pp_c) != ABT_SUCCESS;
        errors += ABT_mutex_unlock(pp_m) != ABT_SUCCESS;
    }
    __atomic_add_fetch(&pp_bad, bad, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pp_spurious, spurious, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pp_errors, errors, __ATOMIC_RELAXED);
    inc(&pp_done);
}
static void pp_ult(void *arg) { pp_player((int)(intptr_t)arg); }
static void *pp_pthread(void *arg)
{
    pp_player((int)(intptr_t)arg);
    return NULL;
}

/* Waits for both players; if they are stuck, wakes them for good and reports it. */
static int pp_finish(void)
{
    if (until(&pp_done, 2)) return 1;
    store(&pp_abort, 1);
    for (int k = 0; k < 100 && load(&pp_done) < 2; k++) {
        ABT_cond_broadcast(pp_c);
        pause_for(0.01);
    }
    MUST(until(&pp_done, 2));
    return 0;
}

static void ping_pong(ABT_cond c, ABT_mutex m, int rounds, int with_pthread)
{
    pp_c = c;
    pp_m = m;
    pp_rounds = rounds;
    pp_turn = pp_abort = pp_done = pp_bad = pp_spurious = pp_errors = 0;
    pp_value = 0;
    ABT_thread a, b = ABT_THREAD_NULL;
    pthread_t p;
    double t0 = ABT_get_wtime();
    CHECK_INT(ABT_thread_create(pools[1], pp_ult, (void *)(intptr_t)0, ABT_THREAD_ATTR_NULL, &a), ABT_SUCCESS);
    if (with_pthread) {
        pthread_create(&p, NULL, pp_pthread, (void *)(intptr_t)1);
    } else {
        CHECK_INT(ABT_thread_create(pools[2], pp_ult, (void *)(intptr_t)1, ABT_THREAD_ATTR_NULL, &b), ABT_SUCCESS);
    }
    int finished = pp_finish();
    CHECK_INT(ABT_thread_free(&a), ABT_SUCCESS);
    if (with_pthread) {
        pthread_join(p, NULL);
    } else {
        CHECK_INT(ABT_thread_free(&b), ABT_SUCCESS);
    }
    printf("ping-pong, %d rounds, ULT and %s (%.2f s):\n", rounds, with_pthread ? "external pthread" : "ULT on another stream",
           ABT_get_wtime() - t0);
    CHECK(finished);
    CHECK_INT(pp_errors, 0);
    CHECK_INT(pp_value, 2L * rounds);
    CHECK_INT(pp_bad, 0);
    CHECK_INT(pp_spurious, 0);
}

/* ---- Broadcast to 1000 waiters ------------------------------------------------------------ */

#define NBC 1000
static ABT_cond bc_c;
static ABT_mutex bc_m;
static int bc_go, bc_ready, bc_woke, bc_waits, bc_errors;

static void bc_waiter(void *arg)
{
    (void)arg;
    int errors = ABT_mutex_lock(bc_m) != ABT_SUCCESS;
    bc_ready++; /* under the mutex: once the main ULT holds it, every ready waiter is waiting */
    while (!bc_go) {
        bc_waits++;
        if (ABT_cond_wait(bc_c, bc_m) != ABT_SUCCESS) {
            errors++;
            break;
        }
    }
    bc_woke++;
    errors += ABT_mutex_unlock(bc_m) != ABT_SUCCESS;
    __atomic_add_fetch(&bc_errors, errors, __ATOMIC_RELAXED);
}

static int locked_read(int *v)
{
    ABT_mutex_lock(bc_m);
    int x = *v;
    ABT_mutex_unlock(bc_m);
    return x;
}

static int locked_until(int *v, int want)
{
    double end = ABT_get_wtime() + 10.0;
    while (locked_read(v) < want) {
        if (ABT_get_wtime() > end) return 0;
        ABT_thread_yield();
    }
    return 1;
}

static void test_broadcast(ABT_cond c, ABT_mutex m)
{
    bc_c = c;
    bc_m = m;
    bc_go = bc_ready = bc_woke = bc_waits = bc_errors = 0;
    static ABT_thread t[NBC];
    int rc = 0;
    double t0 = ABT_get_wtime();
    for (int i = 0; i < NBC; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], bc_waiter, NULL, ABT_THREAD_ATTR_NULL, &t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    int ready = locked_until(&bc_ready, NBC);
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    int woke_early = bc_woke, waits_before = bc_waits;
    bc_go = 1;
    CHECK_INT(ABT_cond_broadcast(c), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    if (!locked_until(&bc_woke, NBC)) {
        /* Some never woke: wake them for good so that they can be freed. */
        for (int k = 0; k < 100 && locked_read(&bc_woke) < NBC; k++) {
            ABT_cond_broadcast(c);
            pause_for(0.01);
        }
    }
    MUST(locked_until(&bc_woke, NBC));
    for (int i = 0; i < NBC; i++) rc |= ABT_thread_free(&t[i]);
    printf("broadcast to %d waiting ULTs on %d streams (%.2f s):\n", NBC, NSTREAMS, ABT_get_wtime() - t0);
    CHECK(ready);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(woke_early, 0);
    CHECK_INT(waits_before, NBC);
    CHECK_INT(bc_waits, NBC); /* one wait each: one broadcast woke them all, nothing spurious */
    CHECK_INT(bc_woke, NBC);
    CHECK_INT(bc_errors, 0);
}

/* ---- Signal wakes one --------------------------------------------------------------------- */

#define NSIG_ULTS 6
#define NSIG_EXT 2
#define NSIG (NSIG_ULTS + NSIG_EXT)
static int sig_ready, sig_woke, sig_errors;

static void sig_waiter(void)
{
    int errors = ABT_mutex_lock(bc_m) != ABT_SUCCESS;
    sig_ready++;
    /* No predicate: without spurious wakeups, one return is one signal. */
    errors += ABT_cond_wait(bc_c, bc_m) != ABT_SUCCESS;
    inc(&sig_woke);
    errors += ABT_mutex_unlock(bc_m) != ABT_SUCCESS;
    __atomic_add_fetch(&sig_errors, errors, __ATOMIC_RELAXED);
}
static void sig_ult(void *arg)
{
    (void)arg;
    sig_waiter();
}
static void *sig_pthread(void *arg)
{
    (void)arg;
    sig_waiter();
    return NULL;
}

static void test_signal_one(ABT_cond c, ABT_mutex m)
{
    bc_c = c;
    bc_m = m;
    sig_ready = sig_woke = sig_errors = 0;
    ABT_thread t[NSIG_ULTS];
    pthread_t p[NSIG_EXT];
    int rc = 0;
    for (int i = 0; i < NSIG_ULTS; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], sig_ult, NULL, ABT_THREAD_ATTR_NULL, &t[i]);
    for (int i = 0; i < NSIG_EXT; i++) pthread_create(&p[i], NULL, sig_pthread, NULL);
    int ready = locked_until(&sig_ready, NSIG);
    int extra = 0, missing = 0;
    for (int k = 1; k <= NSIG; k++) {
        /* The signaler need not hold the mutex. */
        rc |= ABT_cond_signal(c);
        missing += !until(&sig_woke, k);
        pause_for(0.005);
        extra += load(&sig_woke) > k;
    }
    for (int k = 0; k < 100 && load(&sig_woke) < NSIG; k++) {
        ABT_cond_broadcast(c);
        pause_for(0.01);
    }
    MUST(until(&sig_woke, NSIG));
    for (int i = 0; i < NSIG_ULTS; i++) rc |= ABT_thread_free(&t[i]);
    for (int i = 0; i < NSIG_EXT; i++) pthread_join(p[i], NULL);
    printf("signal wakes one of %d waiters (%d ULTs, %d pthreads) at a time:\n", NSIG, NSIG_ULTS, NSIG_EXT);
    CHECK(ready);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(missing, 0);
    CHECK_INT(extra, 0);
    CHECK_INT(sig_errors, 0);
}

/* ---- Basics and static conds -------------------------------------------------------------- */

static void test_basic(ABT_mutex m)
{
    printf("basics:\n");
    ABT_cond c = ABT_COND_NULL;
    CHECK_INT(ABT_cond_create(&c), ABT_SUCCESS);
    CHECK(c != ABT_COND_NULL);
    if (c == ABT_COND_NULL) return;
    /* Nobody waits: no effect, nothing is remembered for a later waiter. */
    CHECK_INT(ABT_cond_signal(c), ABT_SUCCESS);
    CHECK_INT(ABT_cond_broadcast(c), ABT_SUCCESS);
    struct tw t = { c, m, 0.05, -1, -1, 0, -1, 0, 0 };
    timed_wait(&t);
    check_timeout(&t, "the main ULT after a signal and a broadcast to nobody");
    CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
    CHECK(c == ABT_COND_NULL);

    /* Static cond with a dynamic mutex and a static mutex. */
    CHECK_INT(ABT_cond_signal(S_COND), ABT_SUCCESS);
    CHECK_INT(ABT_cond_broadcast(S_COND), ABT_SUCCESS);
    struct tw s1 = { S_COND, m, -1.0, -1, -1, 0, -1, 0, 0 }, s2 = { S_COND, S_MUTEX, -1.0, -1, -1, 0, -1, 0, 0 };
    timed_wait(&s1);
    check_timeout(&s1, "the main ULT, static cond, deadline past");
    timed_wait(&s2);
    check_timeout(&s2, "the main ULT, static cond and mutex, deadline past");
}

/* ---- Bad input ---------------------------------------------------------------------------- */

static ABT_cond fw_c;
static ABT_mutex fw_m;
static int fw_ready, fw_pred, fw_rc, fw_done;
static void fw_waiter(void *arg)
{
    (void)arg;
    int rc = ABT_mutex_lock(fw_m);
    store(&fw_ready, 1);
    while (!fw_pred && rc == ABT_SUCCESS) rc = ABT_cond_wait(fw_c, fw_m);
    rc |= ABT_mutex_unlock(fw_m);
    fw_rc = rc;
    store(&fw_done, 1);
}

static int tk_lock_rc, tk_wait_rc, tk_held_after, tk_unlock_rc, tk_done;
static void tk_wait(void *arg)
{
    (void)arg;
    tk_lock_rc = ABT_mutex_lock(fw_m);
    tk_wait_rc = ABT_cond_wait(fw_c, fw_m);
    tk_held_after = ABT_mutex_trylock(fw_m) == ABT_ERR_MUTEX_LOCKED;
    tk_unlock_rc = ABT_mutex_unlock(fw_m);
    store(&tk_done, 1);
}

/* Every cond function on a handle that is not a live cond; m is valid and the caller holds it
 * throughout. */
static void refuse_cond_body(ABT_cond h, ABT_mutex m)
{
    struct timespec ts = deadline_in(-1.0);
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_signal(h), ABT_ERR_INV_COND);
    CHECK_INT(ABT_cond_broadcast(h), ABT_ERR_INV_COND);
    CHECK_INT(ABT_cond_timedwait(h, m, &ts), ABT_ERR_INV_COND);
    CHECK_INT(ABT_cond_wait(h, m), ABT_ERR_INV_COND);
    ABT_cond copy = h;
    CHECK_INT(ABT_cond_free(&copy), ABT_ERR_INV_COND);
    CHECK(copy == h);
    CHECK(is_locked(m)); /* the mutex was left held */
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
}

/* Waits on a live cond with a handle that is not a live mutex. */
static void refuse_wait_mutex_body(ABT_cond c, ABT_mutex h)
{
    struct timespec ts = deadline_in(-1.0);
    CHECK_INT(ABT_cond_timedwait(c, h, &ts), ABT_ERR_INV_MUTEX);
    CHECK_INT(ABT_cond_wait(c, h), ABT_ERR_INV_MUTEX);
}

/* The refusals run on a ULT that the main ULT waits for with a bound: a wait wrongly accepted
 * would never return. */
struct refusal {
    int wait_mutex;
    ABT_cond c;
    ABT_mutex m;
    int done;
};
static void refusal_ult(void *arg)
{
    struct refusal *r = arg;
    if (r->wait_mutex) {
        refuse_wait_mutex_body(r->c, r->m);
    } else {
        refuse_cond_body(r->c, r->m);
    }
    store(&r->done, 1);
}
static void run_refusal(int wait_mutex, ABT_cond c, ABT_mutex m, const char *what)
{
    printf("%s: %s\n", wait_mutex ? "not a mutex for a wait" : "not a condition variable", what);
    struct refusal r = { wait_mutex, c, m, 0 };
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pools[1], refusal_ult, &r, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    MUST(until(&r.done, 1));
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
}
static void refuse_cond(ABT_cond h, ABT_mutex m, const char *what) { run_refusal(0, h, m, what); }
static void refuse_wait_mutex(ABT_cond c, ABT_mutex h, const char *what) { run_refusal(1, c, h, what); }

static void test_bad_input(ABT_mutex m)
{
    printf("bad input:\n");
    int rc;
    CHECK_INT(ABT_cond_create(NULL), ABT_ERR_INV_ARG);
    rc = ABT_cond_free(NULL);
    CHECK(rc == ABT_ERR_INV_COND || rc == ABT_ERR_INV_ARG);
    ABT_cond c = ABT_COND_NULL;
    CHECK_INT(ABT_cond_create(&c), ABT_SUCCESS);
    if (c == ABT_COND_NULL) return;

    refuse_cond(ABT_COND_NULL, m, "ABT_COND_NULL");
    refuse_cond((ABT_cond)m, m, "a mutex handle");
    refuse_wait_mutex(c, ABT_MUTEX_NULL, "ABT_MUTEX_NULL");
    refuse_wait_mutex(c, (ABT_mutex)c, "a cond handle");
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_timedwait(c, m, NULL), ABT_ERR_INV_ARG);
    CHECK(is_locked(m));
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    /* The stale handle of a freed cond, checked before anything else is created. */
    ABT_cond stale = ABT_COND_NULL;
    CHECK_INT(ABT_cond_create(&stale), ABT_SUCCESS);
    ABT_cond freed = stale;
    CHECK_INT(ABT_cond_free(&stale), ABT_SUCCESS);
    refuse_cond(freed, m, "a freed cond");
    ABT_rwlock rw = ABT_RWLOCK_NULL;
    if (ABT_rwlock_create(&rw) == ABT_SUCCESS) {
        refuse_cond((ABT_cond)rw, m, "a readers-writer lock");
        refuse_wait_mutex(c, (ABT_mutex)rw, "a readers-writer lock");
        CHECK_INT(ABT_rwlock_free(&rw), ABT_SUCCESS);
    } else {
        printf("(no ABT_rwlock: wrong-kind check skipped)\n");
    }
    ABT_eventual ev = ABT_EVENTUAL_NULL;
    if (ABT_eventual_create(0, &ev) == ABT_SUCCESS) {
        refuse_cond((ABT_cond)ev, m, "an eventual");
        refuse_wait_mutex(c, (ABT_mutex)ev, "an eventual");
        CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
    } else {
        printf("(no ABT_eventual: wrong-kind check skipped)\n");
    }
    refuse_cond((ABT_cond)pools[1], m, "a pool");
    CHECK(!is_locked(m));

    /* Freeing a cond that a ULT waits on: ABT_ERR_COND in Argobots 1.x, the cond still works. */
    printf("freeing a cond with a waiter:\n");
    fw_c = c;
    fw_m = m;
    fw_ready = fw_pred = fw_done = 0;
    fw_rc = -1;
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pools[1], fw_waiter, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    MUST(until(&fw_ready, 1));
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS); /* now the waiter waits */
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    ABT_cond keep = c;
    CHECK_INT(ABT_cond_free(&c), ABT_ERR_COND);
    CHECK(c == keep);
    c = keep;
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    fw_pred = 1;
    CHECK_INT(ABT_cond_signal(c), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    MUST(until(&fw_done, 1));
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(fw_rc, ABT_SUCCESS);

    /* ABT_cond_wait from a tasklet: ABT_ERR_COND in Argobots 1.x, the mutex still held. */
    printf("ABT_cond_wait from a tasklet:\n");
    tk_lock_rc = tk_wait_rc = tk_unlock_rc = -1;
    tk_held_after = tk_done = 0;
    ABT_task k;
    CHECK_INT(ABT_task_create(pools[2], tk_wait, NULL, &k), ABT_SUCCESS);
    if (!until(&tk_done, 1)) {
        /* The tasklet really waits: wake it (it then reports success instead of ABT_ERR_COND). */
        for (int i = 0; i < 1000 && !load(&tk_done); i++) {
            ABT_cond_broadcast(c);
            pause_for(0.01);
        }
    }
    MUST(until(&tk_done, 1));
    CHECK_INT(ABT_task_free(&k), ABT_SUCCESS);
    CHECK_INT(tk_lock_rc, ABT_SUCCESS);
    CHECK_INT(tk_wait_rc, ABT_ERR_COND);
    CHECK(tk_held_after);
    CHECK_INT(tk_unlock_rc, ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
    CHECK(!is_locked(m));
}

int main(void)
{
    ABT_cond c0 = ABT_COND_NULL;
    CHECK_INT(ABT_cond_create(&c0), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&c0), ABT_SUCCESS);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(start_streams(NSTREAMS, streams, pools), ABT_SUCCESS);
    ABT_mutex m = ABT_MUTEX_NULL;
    ABT_cond c = ABT_COND_NULL;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&c), ABT_SUCCESS);
    if (m != ABT_MUTEX_NULL && c != ABT_COND_NULL) {
        test_basic(m);
        test_timeouts(c, m);
        test_signaled(c, m);
        ping_pong(c, m, 500, 0);
        ping_pong(S_COND, S_MUTEX, 300, 1);
        test_broadcast(c, m);
        test_signal_one(c, m);
        test_bad_input(m);
        CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
        CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    } else {
        printf("no mutex or cond: the rest is skipped\n");
    }
    int rc = 0;
    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
