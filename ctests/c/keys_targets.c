/* ABT_thread_set_specific / ABT_thread_get_specific (and the ABT_task_* names) on work units other
 * than the caller, in every state: not started (in a pool no stream serves, and in the primary
 * pool before the main ULT gives up the processor), running on another stream (ULT and tasklet),
 * yielded (READY after running), blocked in ABT_thread_join, finished but not freed, the caller
 * itself (ULT, tasklet) and the main ULT; called from the main ULT, ULTs and tasklets of other
 * streams and a plain pthread. What is set from outside is what the unit reads with ABT_key_get,
 * and what it sets with ABT_key_set is what get_specific returns; destructors run once at free
 * (at ABT_finalize for the main ULT) with the last value, also for values set after the unit
 * finished. Error codes: ABT_THREAD_NULL, ABT_TASK_NULL, a freed and a wrong-kind handle
 * (ABT_ERR_INV_THREAD, before the key), ABT_KEY_NULL (ABT_ERR_INV_KEY), a NULL value pointer
 * (ABT_ERR_INV_ARG), from the main ULT, a ULT, a tasklet and a pthread. */
// ctest-leaks: it frees its keys after ABT_finalize (allowed: keys outlive the runtime), which the check, made at ABT_finalize, counts as leaks
#include <pthread.h>
#include <stdint.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
static ABT_xstream streams[NSTREAMS]; /* [0] is the primary */
static ABT_pool pools[NSTREAMS];      /* their main pools */
static ABT_thread main_ult;

/* ---- Values and destructors --------------------------------------------------------------- */

struct cell {
    int destroyed; /* destructor calls on this cell */
    int by;        /* the key (1..4) whose destructor destroyed it last */
};

#define NKEYS 4
static ABT_key keys[NKEYS + 1]; /* keys[1..4], each with destructor dtorN */
static int dtor_calls[NKEYS + 1];

static void destroy(int which, void *v)
{
    struct cell *c = v;
    __atomic_add_fetch(&c->destroyed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&c->by, which, __ATOMIC_RELAXED);
    __atomic_add_fetch(&dtor_calls[which], 1, __ATOMIC_RELEASE);
}
static void dtor1(void *v) { destroy(1, v); }
static void dtor2(void *v) { destroy(2, v); }
static void dtor3(void *v) { destroy(3, v); }
static void dtor4(void *v) { destroy(4, v); }

static int total_calls(void)
{
    int n = 0;
    for (int k = 1; k <= NKEYS; k++) n += __atomic_load_n(&dtor_calls[k], __ATOMIC_ACQUIRE);
    return n;
}

/* 1 if c was destroyed exactly once, by key k's destructor. */
static int once_by(struct cell *c, int k)
{
    return __atomic_load_n(&c->destroyed, __ATOMIC_ACQUIRE) == 1 && c->by == k;
}

static int untouched(struct cell *c) { return __atomic_load_n(&c->destroyed, __ATOMIC_ACQUIRE) == 0; }

/* t's value for keys[k]; &get_failed if the call failed. */
static char get_failed;
static void *get(ABT_thread t, int k)
{
    void *v = &v;
    if (ABT_thread_get_specific(t, keys[k], &v) != ABT_SUCCESS) return &get_failed;
    return v;
}

/* ---- A probe: a unit that reads what was set for it and sets its own value ---------------- */

struct probe {
    int started, go, done; /* handshakes with the test (atomic) */
    int rc;                /* OR of its own return codes */
    void *seen[NKEYS + 1]; /* what ABT_key_get returned for keys[1..4] when it read them */
    struct cell own;       /* the value it sets for keys[4] itself */
};

static void probe_read_and_set(struct probe *p)
{
    for (int k = 1; k <= NKEYS; k++) {
        p->seen[k] = &p->seen;
        p->rc |= ABT_key_get(keys[k], &p->seen[k]);
    }
    p->rc |= ABT_key_set(keys[4], &p->own);
}

/* Runs once: reads, sets its own value. */
static void probe_once(void *arg) { probe_read_and_set(arg); }

/* ---- Not started -------------------------------------------------------------------------- */

static ABT_thread ns_ult;
static ABT_task ns_task;
static struct cell ns_cells[8];

static void ult_sets_other(void *arg)
{
    int *rc = arg;
    *rc |= ABT_thread_set_specific(ns_ult, keys[2], &ns_cells[2]);
}

static void task_sets_other(void *arg)
{
    int *rc = arg;
    *rc |= ABT_task_set_specific(ns_task, keys[2], &ns_cells[3]);
}

static void *pthread_sets_others(void *arg)
{
    int *rc = arg;
    *rc |= ABT_thread_set_specific(ns_ult, keys[3], &ns_cells[4]);
    *rc |= ABT_task_set_specific(ns_task, keys[3], &ns_cells[5]);
    void *v = NULL;
    *rc |= ABT_thread_get_specific(ns_ult, keys[1], &v);
    if (v != &ns_cells[0]) *rc |= 0x1000;
    return NULL;
}

static void test_not_started(void)
{
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &idle), ABT_SUCCESS);
    static struct probe pu, pt;
    CHECK_INT(ABT_thread_create(idle, probe_once, &pu, ABT_THREAD_ATTR_NULL, &ns_ult), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(idle, probe_once, &pt, &ns_task), ABT_SUCCESS);
    ABT_thread_state st = ABT_THREAD_STATE_TERMINATED;
    CHECK_INT(ABT_thread_get_state(ns_ult, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_READY);
    /* Unset keys read NULL on a unit that has no values at all. */
    CHECK(get(ns_ult, 1) == NULL);
    CHECK(get(ns_task, 4) == NULL);
    /* From the main ULT. */
    CHECK_INT(ABT_thread_set_specific(ns_ult, keys[1], &ns_cells[0]), ABT_SUCCESS);
    CHECK_INT(ABT_task_set_specific(ns_task, keys[1], &ns_cells[1]), ABT_SUCCESS);
    CHECK(get(ns_ult, 1) == &ns_cells[0]);
    CHECK(get(ns_task, 1) == &ns_cells[1]);
    CHECK(get(ns_ult, 2) == NULL);
    /* From a ULT on another stream, and from a tasklet. */
    int ult_rc = 0, task_rc = 0;
    ABT_thread setter;
    ABT_task task_setter;
    CHECK_INT(ABT_thread_create(pools[1], ult_sets_other, &ult_rc, ABT_THREAD_ATTR_NULL, &setter), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pools[2], task_sets_other, &task_rc, &task_setter), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&setter), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&task_setter), ABT_SUCCESS);
    CHECK_INT(ult_rc, ABT_SUCCESS);
    CHECK_INT(task_rc, ABT_SUCCESS);
    /* From an external thread. */
    int ext_rc = 0;
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, pthread_sets_others, &ext_rc), 0);
    CHECK_INT(pthread_join(th, NULL), 0);
    CHECK_INT(ext_rc, ABT_SUCCESS);
    CHECK(get(ns_ult, 2) == &ns_cells[2] && get(ns_ult, 3) == &ns_cells[4]);
    CHECK(get(ns_task, 2) == &ns_cells[3] && get(ns_task, 3) == &ns_cells[5]);
    /* Overwrite one before it runs: no destructor for the old value. */
    CHECK_INT(ABT_task_set_specific(ns_task, keys[1], &ns_cells[6]), ABT_SUCCESS);
    CHECK_INT(total_calls(), 0);

    /* Now they run and read what was set for them. */
    ABT_xstream drain;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &idle, ABT_SCHED_CONFIG_NULL, &drain), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(ns_ult), ABT_SUCCESS);
    CHECK_INT(ABT_task_join(ns_task), ABT_SUCCESS);
    CHECK_INT(pu.rc, ABT_SUCCESS);
    CHECK_INT(pt.rc, ABT_SUCCESS);
    CHECK(pu.seen[1] == &ns_cells[0] && pu.seen[2] == &ns_cells[2] && pu.seen[3] == &ns_cells[4]);
    CHECK(pu.seen[4] == NULL);
    CHECK(pt.seen[1] == &ns_cells[6] && pt.seen[2] == &ns_cells[3] && pt.seen[3] == &ns_cells[5]);
    CHECK(pt.seen[4] == NULL);
    /* ... and what they set themselves is visible from here. */
    CHECK(get(ns_ult, 4) == &pu.own);
    CHECK(get(ns_task, 4) == &pt.own);
    CHECK_INT(total_calls(), 0);
    CHECK_INT(ABT_thread_free(&ns_ult), ABT_SUCCESS);
    CHECK_INT(total_calls(), 4);
    CHECK(once_by(&ns_cells[0], 1) && once_by(&ns_cells[2], 2) && once_by(&ns_cells[4], 3));
    CHECK(once_by(&pu.own, 4));
    CHECK_INT(ABT_task_free(&ns_task), ABT_SUCCESS);
    CHECK_INT(total_calls(), 8);
    CHECK(once_by(&ns_cells[6], 1) && once_by(&ns_cells[3], 2) && once_by(&ns_cells[5], 3));
    CHECK(once_by(&pt.own, 4));
    CHECK(untouched(&ns_cells[1]));
    CHECK_INT(ABT_xstream_free(&drain), ABT_SUCCESS);

    /* Not started in the primary pool: the main ULT has not yielded since creating it. */
    static struct probe pp;
    static struct cell pc;
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pools[0], probe_once, &pp, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_set_specific(t, keys[1], &pc), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK(pp.rc == ABT_SUCCESS && pp.seen[1] == &pc && pp.seen[2] == NULL);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK(once_by(&pc, 1) && once_by(&pp.own, 4));
    CHECK_INT(total_calls(), 10);
}

/* ---- Running on another stream ------------------------------------------------------------ */

/* Spins (no yield: it stays RUNNING) until keys[1] has a value, reports it, sets keys[2] itself
 * and spins again until the test has read it. */
struct runner {
    struct probe p;
    struct cell mine;
    int timed_out;
};

static int spin_until(int *flag)
{
    double end = ABT_get_wtime() + 10.0;
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
        if (ABT_get_wtime() > end) return 0;
    }
    return 1;
}

static void running_body(void *arg)
{
    struct runner *r = arg;
    __atomic_store_n(&r->p.started, 1, __ATOMIC_RELEASE);
    void *v = NULL;
    double end = ABT_get_wtime() + 10.0;
    while (v == NULL && ABT_get_wtime() < end) r->p.rc |= ABT_key_get(keys[1], &v);
    r->p.seen[1] = v;
    r->p.rc |= ABT_key_set(keys[2], &r->mine);
    __atomic_store_n(&r->p.done, 1, __ATOMIC_RELEASE);
    if (!spin_until(&r->p.go)) r->timed_out = 1;
}

/* The test side: wait for a running unit, set keys[1] on it, read its keys[2]. */
struct running_check {
    int started, running_at_set, set_rc, done, got_own, running_at_get;
};

static void drive_runner(ABT_thread t, struct runner *r, struct cell *value, int tasklet,
                         struct running_check *c)
{
    c->started = spin_until(&r->p.started);
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    ABT_task_state tst = ABT_TASK_STATE_READY;
    if (tasklet) {
        c->running_at_set = ABT_task_get_state(t, &tst) == ABT_SUCCESS && tst == ABT_TASK_STATE_RUNNING;
        c->set_rc = ABT_task_set_specific(t, keys[1], value);
    } else {
        c->running_at_set = ABT_thread_get_state(t, &st) == ABT_SUCCESS && st == ABT_THREAD_STATE_RUNNING;
        c->set_rc = ABT_thread_set_specific(t, keys[1], value);
    }
    c->done = spin_until(&r->p.done);
    void *v = NULL;
    c->got_own = ABT_thread_get_specific(t, keys[2], &v) == ABT_SUCCESS && v == &r->mine;
    if (tasklet) {
        c->running_at_get = ABT_task_get_state(t, &tst) == ABT_SUCCESS && tst == ABT_TASK_STATE_RUNNING;
    } else {
        c->running_at_get = ABT_thread_get_state(t, &st) == ABT_SUCCESS && st == ABT_THREAD_STATE_RUNNING;
    }
    __atomic_store_n(&r->p.go, 1, __ATOMIC_RELEASE);
}

static void check_running(struct running_check *c)
{
    CHECK(c->started);
    CHECK(c->running_at_set);
    CHECK_INT(c->set_rc, ABT_SUCCESS);
    CHECK(c->done);
    CHECK(c->got_own);
    CHECK(c->running_at_get);
}

struct remote_driver {
    ABT_thread target;
    struct runner *r;
    struct cell *value;
    struct running_check c;
};

static void ult_drives(void *arg)
{
    struct remote_driver *d = arg;
    drive_runner(d->target, d->r, d->value, 0, &d->c);
}

static void *pthread_drives(void *arg)
{
    struct remote_driver *d = arg;
    drive_runner(d->target, d->r, d->value, 0, &d->c);
    return NULL;
}

static void test_running(void)
{
    int before = total_calls();
    static struct runner r1, r2, r3, r4;
    static struct cell v1, v2, v3, v4;
    struct running_check c1, c2;

    /* A ULT running on stream 1, driven by the main ULT. */
    ABT_thread t1;
    CHECK_INT(ABT_thread_create(pools[1], running_body, &r1, ABT_THREAD_ATTR_NULL, &t1), ABT_SUCCESS);
    drive_runner(t1, &r1, &v1, 0, &c1);
    check_running(&c1);
    CHECK_INT(ABT_thread_join(t1), ABT_SUCCESS);
    CHECK(r1.p.rc == ABT_SUCCESS && !r1.timed_out && r1.p.seen[1] == &v1);

    /* A tasklet running on stream 2, driven by the main ULT (ABT_task_* names). */
    ABT_task t2;
    CHECK_INT(ABT_task_create(pools[2], running_body, &r2, &t2), ABT_SUCCESS);
    drive_runner(t2, &r2, &v2, 1, &c2);
    check_running(&c2);
    CHECK_INT(ABT_task_join(t2), ABT_SUCCESS);
    CHECK(r2.p.rc == ABT_SUCCESS && !r2.timed_out && r2.p.seen[1] == &v2);

    /* A ULT running on stream 3, driven by a ULT on stream 1. */
    ABT_thread t3, driver;
    struct remote_driver d3 = {ABT_THREAD_NULL, &r3, &v3, {0, 0, -1, 0, 0, 0}};
    CHECK_INT(ABT_thread_create(pools[3], running_body, &r3, ABT_THREAD_ATTR_NULL, &t3), ABT_SUCCESS);
    d3.target = t3;
    CHECK_INT(ABT_thread_create(pools[1], ult_drives, &d3, ABT_THREAD_ATTR_NULL, &driver), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&driver), ABT_SUCCESS);
    check_running(&d3.c);
    CHECK_INT(ABT_thread_join(t3), ABT_SUCCESS);
    CHECK(r3.p.rc == ABT_SUCCESS && !r3.timed_out && r3.p.seen[1] == &v3);

    /* A ULT running on stream 2, driven by an external thread. */
    ABT_thread t4;
    struct remote_driver d4 = {ABT_THREAD_NULL, &r4, &v4, {0, 0, -1, 0, 0, 0}};
    CHECK_INT(ABT_thread_create(pools[2], running_body, &r4, ABT_THREAD_ATTR_NULL, &t4), ABT_SUCCESS);
    d4.target = t4;
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, pthread_drives, &d4), 0);
    CHECK_INT(pthread_join(th, NULL), 0);
    check_running(&d4.c);
    CHECK_INT(ABT_thread_join(t4), ABT_SUCCESS);
    CHECK(r4.p.rc == ABT_SUCCESS && !r4.timed_out && r4.p.seen[1] == &v4);

    CHECK_INT(total_calls(), before);
    CHECK_INT(ABT_thread_free(&t1), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t2), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t3), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t4), ABT_SUCCESS);
    CHECK_INT(total_calls(), before + 8);
    CHECK(once_by(&v1, 1) && once_by(&v2, 1) && once_by(&v3, 1) && once_by(&v4, 1));
    CHECK(once_by(&r1.mine, 2) && once_by(&r2.mine, 2) && once_by(&r3.mine, 2) && once_by(&r4.mine, 2));
}

/* ---- Yielded ------------------------------------------------------------------------------ */

static void yielding_body(void *arg)
{
    struct probe *p = arg;
    p->rc |= ABT_key_set(keys[2], &p->own); /* before its first yield */
    __atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
    double end = ABT_get_wtime() + 10.0;
    while (!__atomic_load_n(&p->go, __ATOMIC_ACQUIRE) && ABT_get_wtime() < end) ABT_thread_yield();
    for (int k = 1; k <= NKEYS; k++) {
        p->seen[k] = &p->seen;
        p->rc |= ABT_key_get(keys[k], &p->seen[k]);
    }
}

static void test_yielded(void)
{
    int before = total_calls();
    static struct probe p;
    static struct cell v;
    ABT_thread t;
    /* The primary pool runs it only while the main ULT yields: when the main ULT is back, the
     * ULT has yielded and waits in the pool. */
    CHECK_INT(ABT_thread_create(pools[0], yielding_body, &p, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK(wait_for(&p.started, 1));
    ABT_thread_state st = ABT_THREAD_STATE_RUNNING;
    CHECK_INT(ABT_thread_get_state(t, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_READY);
    CHECK(get(t, 2) == &p.own);
    CHECK_INT(ABT_thread_set_specific(t, keys[1], &v), ABT_SUCCESS);
    CHECK(get(t, 1) == &v);
    /* It yields on: still READY, the value still there. */
    ABT_thread_yield();
    CHECK_INT(ABT_thread_get_state(t, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_READY);
    CHECK(get(t, 1) == &v);
    __atomic_store_n(&p.go, 1, __ATOMIC_RELEASE);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(p.rc, ABT_SUCCESS);
    CHECK(p.seen[1] == &v && p.seen[2] == &p.own && p.seen[3] == NULL && p.seen[4] == NULL);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(total_calls(), before + 2);
    CHECK(once_by(&v, 1) && once_by(&p.own, 2));
}

/* ---- Blocked in ABT_thread_join ----------------------------------------------------------- */

struct joiner {
    struct probe p;
    ABT_thread target;
    int join_rc;
};

static void joining_body(void *arg)
{
    struct joiner *j = arg;
    j->p.rc |= ABT_key_set(keys[1], &j->p.own);
    j->join_rc = ABT_thread_join(j->target); /* blocks: the target is in a pool nobody serves */
    for (int k = 1; k <= NKEYS; k++) {
        j->p.seen[k] = &j->p.seen;
        j->p.rc |= ABT_key_get(keys[k], &j->p.seen[k]);
    }
}

static struct cell blocked_ext_value;
static void *pthread_sets_blocked(void *arg)
{
    ABT_thread t = *(ABT_thread *)arg;
    int rc = ABT_thread_set_specific(t, keys[3], &blocked_ext_value);
    return (void *)(intptr_t)rc;
}

static void test_blocked(void)
{
    int before = total_calls();
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &idle), ABT_SUCCESS);
    static struct probe target_probe;
    static struct joiner j;
    static struct cell v2, vt;
    CHECK_INT(ABT_thread_create(idle, probe_once, &target_probe, ABT_THREAD_ATTR_NULL, &j.target), ABT_SUCCESS);
    ABT_thread b;
    CHECK_INT(ABT_thread_create(pools[1], joining_body, &j, ABT_THREAD_ATTR_NULL, &b), ABT_SUCCESS);
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    double end = ABT_get_wtime() + 10.0;
    while (ABT_thread_get_state(b, &st) == ABT_SUCCESS && st != ABT_THREAD_STATE_BLOCKED && ABT_get_wtime() < end) {
        ABT_thread_yield();
    }
    CHECK_INT(st, ABT_THREAD_STATE_BLOCKED);
    /* What it set before blocking; values set while it is blocked, from here and a pthread. */
    CHECK(get(b, 1) == &j.p.own);
    CHECK_INT(ABT_thread_set_specific(b, keys[2], &v2), ABT_SUCCESS);
    pthread_t th;
    void *ext_rc = (void *)(intptr_t)-1;
    CHECK_INT(pthread_create(&th, NULL, pthread_sets_blocked, &b), 0);
    CHECK_INT(pthread_join(th, &ext_rc), 0);
    CHECK_INT((intptr_t)ext_rc, ABT_SUCCESS);
    CHECK(get(b, 2) == &v2 && get(b, 3) == &blocked_ext_value);
    CHECK_INT(ABT_thread_get_state(b, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_BLOCKED);
    /* And on the target it waits for, not started. */
    CHECK_INT(ABT_thread_set_specific(j.target, keys[1], &vt), ABT_SUCCESS);
    /* Run the target: the joiner wakes and reads its values. */
    ABT_xstream drain;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &idle, ABT_SCHED_CONFIG_NULL, &drain), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(b), ABT_SUCCESS);
    CHECK_INT(j.join_rc, ABT_SUCCESS);
    CHECK_INT(j.p.rc, ABT_SUCCESS);
    CHECK(j.p.seen[1] == &j.p.own && j.p.seen[2] == &v2 && j.p.seen[3] == &blocked_ext_value);
    CHECK(j.p.seen[4] == NULL);
    CHECK(target_probe.rc == ABT_SUCCESS && target_probe.seen[1] == &vt);
    CHECK_INT(total_calls(), before);
    CHECK_INT(ABT_thread_free(&b), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&j.target), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&drain), ABT_SUCCESS);
    CHECK_INT(total_calls(), before + 5);
    CHECK(once_by(&j.p.own, 1) && once_by(&v2, 2) && once_by(&blocked_ext_value, 3));
    CHECK(once_by(&vt, 1) && once_by(&target_probe.own, 4));
}

/* ---- Finished, not freed ------------------------------------------------------------------ */

static void test_finished(void)
{
    int before = total_calls();
    static struct probe pu, pt;
    static struct cell a, b, c, d, e;
    ABT_thread u;
    ABT_task t;
    CHECK_INT(ABT_thread_create(pools[2], probe_once, &pu, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pools[3], probe_once, &pt, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(u), ABT_SUCCESS);
    CHECK_INT(ABT_task_join(t), ABT_SUCCESS);
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    CHECK_INT(ABT_thread_get_state(u, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_TERMINATED);
    /* What they set while running. */
    CHECK(get(u, 4) == &pu.own);
    CHECK(get(t, 4) == &pt.own);
    CHECK(get(u, 1) == NULL);
    /* Set after they finished; overwrite their own value (not destroyed); set one to NULL. */
    CHECK_INT(ABT_thread_set_specific(u, keys[1], &a), ABT_SUCCESS);
    CHECK_INT(ABT_thread_set_specific(u, keys[4], &b), ABT_SUCCESS);
    CHECK_INT(ABT_task_set_specific(t, keys[2], &c), ABT_SUCCESS);
    CHECK_INT(ABT_task_set_specific(t, keys[3], &d), ABT_SUCCESS);
    CHECK_INT(ABT_task_set_specific(t, keys[3], NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_set_specific(u, keys[2], &e), ABT_SUCCESS);
    CHECK(get(u, 1) == &a && get(u, 4) == &b && get(u, 2) == &e);
    void *v = &v;
    CHECK_INT(ABT_task_get_specific(t, keys[2], &v), ABT_SUCCESS);
    CHECK(v == &c);
    CHECK_INT(ABT_task_get_specific(t, keys[3], &v), ABT_SUCCESS);
    CHECK(v == NULL);
    CHECK_INT(total_calls(), before);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(total_calls(), before + 5);
    CHECK(once_by(&a, 1) && once_by(&b, 4) && once_by(&e, 2));
    CHECK(once_by(&c, 2) && once_by(&pt.own, 4));
    CHECK(untouched(&pu.own) && untouched(&d));
}

/* ---- Itself ------------------------------------------------------------------------------- */

struct self_report {
    int rc, set_then_key_get, key_set_then_get, via_self_get_thread;
    struct cell x, y, z;
};

static void self_body_ult(void *arg)
{
    struct self_report *r = arg;
    ABT_thread me = ABT_THREAD_NULL, me2 = ABT_THREAD_NULL;
    void *v = NULL;
    r->rc |= ABT_thread_self(&me);
    r->rc |= ABT_self_get_thread(&me2);
    r->rc |= ABT_thread_set_specific(me, keys[1], &r->x);
    r->set_then_key_get = ABT_key_get(keys[1], &v) == ABT_SUCCESS && v == &r->x;
    r->rc |= ABT_key_set(keys[2], &r->y);
    r->key_set_then_get = ABT_thread_get_specific(me, keys[2], &v) == ABT_SUCCESS && v == &r->y;
    r->rc |= ABT_thread_set_specific(me2, keys[3], &r->z);
    r->via_self_get_thread = ABT_self_get_specific(keys[3], &v) == ABT_SUCCESS && v == &r->z &&
                             ABT_thread_get_specific(me2, keys[1], &v) == ABT_SUCCESS && v == &r->x;
}

static void self_body_task(void *arg)
{
    struct self_report *r = arg;
    ABT_task me = ABT_TASK_NULL;
    ABT_thread me2 = ABT_THREAD_NULL;
    void *v = NULL;
    r->rc |= ABT_task_self(&me);
    r->rc |= ABT_self_get_thread(&me2);
    r->rc |= ABT_task_set_specific(me, keys[1], &r->x);
    r->set_then_key_get = ABT_key_get(keys[1], &v) == ABT_SUCCESS && v == &r->x;
    r->rc |= ABT_key_set(keys[2], &r->y);
    r->key_set_then_get = ABT_task_get_specific(me, keys[2], &v) == ABT_SUCCESS && v == &r->y;
    r->rc |= ABT_thread_set_specific(me2, keys[3], &r->z);
    r->via_self_get_thread = ABT_self_get_specific(keys[3], &v) == ABT_SUCCESS && v == &r->z &&
                             ABT_thread_get_specific(me2, keys[1], &v) == ABT_SUCCESS && v == &r->x;
}

static void check_self(struct self_report *r)
{
    CHECK_INT(r->rc, ABT_SUCCESS);
    CHECK(r->set_then_key_get);
    CHECK(r->key_set_then_get);
    CHECK(r->via_self_get_thread);
    CHECK(once_by(&r->x, 1) && once_by(&r->y, 2) && once_by(&r->z, 3));
}

static void test_self(void)
{
    int before = total_calls();
    static struct self_report ru, rt, rp;
    ABT_thread u;
    ABT_task t;
    CHECK_INT(ABT_thread_create(pools[3], self_body_ult, &ru, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pools[1], self_body_task, &rt, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    /* On the primary stream too. */
    CHECK_INT(ABT_thread_create(pools[0], self_body_ult, &rp, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    check_self(&ru);
    check_self(&rt);
    check_self(&rp);
    CHECK_INT(total_calls(), before + 9);
}

/* ---- The main ULT ------------------------------------------------------------------------- */

/* Values on the main ULT, destroyed at ABT_finalize: [1] from a ULT, [2] from a tasklet, [3] from
 * a pthread, [4] by the main ULT itself (read by the others). */
static struct cell main_values[NKEYS + 1];

struct main_visitor {
    int key;
    int rc, saw_main_own;
};

static void visit_main(void *arg)
{
    struct main_visitor *m = arg;
    void *v = NULL;
    m->rc |= ABT_thread_set_specific(main_ult, keys[m->key], &main_values[m->key]);
    m->saw_main_own = ABT_thread_get_specific(main_ult, keys[4], &v) == ABT_SUCCESS && v == &main_values[4];
    m->rc |= ABT_thread_get_specific(main_ult, keys[m->key], &v);
    if (v != &main_values[m->key]) m->rc |= 0x1000;
}

static void *pthread_visits_main(void *arg)
{
    visit_main(arg);
    return NULL;
}

static void test_main_ult(void)
{
    int before = total_calls();
    void *v = &v;
    for (int k = 1; k <= NKEYS; k++) {
        CHECK_INT(ABT_key_get(keys[k], &v), ABT_SUCCESS);
        CHECK(v == NULL);
    }
    CHECK_INT(ABT_key_set(keys[4], &main_values[4]), ABT_SUCCESS);
    struct main_visitor mu = {1, 0, 0}, mt = {2, 0, 0}, mp = {3, 0, 0};
    ABT_thread u;
    ABT_task t;
    CHECK_INT(ABT_thread_create(pools[1], visit_main, &mu, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pools[2], visit_main, &mt, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, pthread_visits_main, &mp), 0);
    CHECK_INT(pthread_join(th, NULL), 0);
    CHECK(mu.rc == ABT_SUCCESS && mu.saw_main_own);
    CHECK(mt.rc == ABT_SUCCESS && mt.saw_main_own);
    CHECK(mp.rc == ABT_SUCCESS && mp.saw_main_own);
    /* The main ULT reads what the others set for it. */
    for (int k = 1; k <= NKEYS; k++) {
        CHECK_INT(ABT_key_get(keys[k], &v), ABT_SUCCESS);
        CHECK(v == &main_values[k]);
        CHECK_INT(ABT_self_get_specific(keys[k], &v), ABT_SUCCESS);
        CHECK(v == &main_values[k]);
    }
    /* Freeing the visitors did not touch the main ULT's values. */
    CHECK_INT(total_calls(), before);
}

/* ---- Errors ------------------------------------------------------------------------------- */

struct error_report {
    int null_thread, null_task, null_thread_null_key, null_thread_null_ptr, null_task_get;
    int null_key, null_key_get, null_ptr, null_key_null_ptr, wrong_kind;
};

static ABT_thread errors_target;

static void collect_errors(struct error_report *e)
{
    void *v = &v;
    e->null_thread = ABT_thread_set_specific(ABT_THREAD_NULL, keys[1], &v);
    e->null_task = ABT_task_set_specific(ABT_TASK_NULL, keys[1], &v);
    e->null_thread_null_key = ABT_thread_set_specific(ABT_THREAD_NULL, ABT_KEY_NULL, &v);
    e->null_thread_null_ptr = ABT_thread_get_specific(ABT_THREAD_NULL, keys[1], NULL);
    e->null_task_get = ABT_task_get_specific(ABT_TASK_NULL, ABT_KEY_NULL, &v);
    e->null_key = ABT_thread_set_specific(errors_target, ABT_KEY_NULL, &v);
    e->null_key_get = ABT_task_get_specific(errors_target, ABT_KEY_NULL, &v);
    e->null_ptr = ABT_thread_get_specific(errors_target, keys[1], NULL);
    e->null_key_null_ptr = ABT_thread_get_specific(errors_target, ABT_KEY_NULL, NULL);
    e->wrong_kind = ABT_thread_set_specific((ABT_thread)pools[1], keys[1], &v);
}

static void check_errors(struct error_report *e)
{
    CHECK_INT(e->null_thread, ABT_ERR_INV_THREAD);
    CHECK_INT(e->null_task, ABT_ERR_INV_THREAD);
    CHECK_INT(e->null_thread_null_key, ABT_ERR_INV_THREAD);
    CHECK_INT(e->null_thread_null_ptr, ABT_ERR_INV_THREAD);
    CHECK_INT(e->null_task_get, ABT_ERR_INV_THREAD);
    CHECK_INT(e->null_key, ABT_ERR_INV_KEY);
    CHECK_INT(e->null_key_get, ABT_ERR_INV_KEY);
    CHECK_INT(e->null_ptr, ABT_ERR_INV_ARG);
    CHECK_INT(e->null_key_null_ptr, ABT_ERR_INV_KEY);
    CHECK_INT(e->wrong_kind, ABT_ERR_INV_THREAD);
}

static void errors_in_unit(void *arg) { collect_errors(arg); }
static void *errors_in_pthread(void *arg)
{
    collect_errors(arg);
    return NULL;
}

static void nothing(void *arg) { (void)arg; }

static void test_errors(void)
{
    int before = total_calls();
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &idle), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(idle, nothing, NULL, ABT_THREAD_ATTR_NULL, &errors_target), ABT_SUCCESS);
    struct error_report em, eu, et, ep;
    collect_errors(&em);
    ABT_thread u;
    ABT_task t;
    CHECK_INT(ABT_thread_create(pools[1], errors_in_unit, &eu, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pools[2], errors_in_unit, &et, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, errors_in_pthread, &ep), 0);
    CHECK_INT(pthread_join(th, NULL), 0);
    check_errors(&em);
    check_errors(&eu);
    check_errors(&et);
    check_errors(&ep);
    /* Nothing was set by the failed calls. */
    CHECK(get(errors_target, 1) == NULL);
    ABT_xstream drain;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &idle, ABT_SCHED_CONFIG_NULL, &drain), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&errors_target), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&drain), ABT_SUCCESS);

    /* A freed unit's handle is refused while its memory was not reused (nothing created since). */
    static struct cell sv;
    ABT_thread s;
    CHECK_INT(ABT_thread_create(pools[1], nothing, NULL, ABT_THREAD_ATTR_NULL, &s), ABT_SUCCESS);
    ABT_thread stale = s;
    CHECK_INT(ABT_thread_set_specific(s, keys[1], &sv), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&s), ABT_SUCCESS);
    CHECK(once_by(&sv, 1));
    void *v = &v;
    CHECK_INT(ABT_thread_set_specific(stale, keys[1], &sv), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_get_specific(stale, keys[1], &v), ABT_ERR_INV_THREAD);
    CHECK_INT(total_calls(), before + 1);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_self(&main_ult), ABT_SUCCESS);
    int rc = start_streams(NSTREAMS, streams, pools);
    void (*dtors[NKEYS + 1])(void *) = {NULL, dtor1, dtor2, dtor3, dtor4};
    for (int k = 1; k <= NKEYS; k++) rc |= ABT_key_create(dtors[k], &keys[k]);
    CHECK_INT(rc, ABT_SUCCESS);

    test_not_started();
    test_running();
    test_yielded();
    test_blocked();
    test_finished();
    test_self();
    test_main_ult();
    test_errors();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    int before = total_calls();
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    /* The main ULT's four values, each once by its key's destructor. */
    CHECK_INT(total_calls(), before + NKEYS);
    for (int k = 1; k <= NKEYS; k++) CHECK(once_by(&main_values[k], k));
    for (int k = 1; k <= NKEYS; k++) CHECK_INT(ABT_key_free(&keys[k]), ABT_SUCCESS);
    return check_summary();
}
