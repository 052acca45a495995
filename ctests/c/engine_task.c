/* Tasklets (ABT_task_*, and ABT_thread_* on tasklets): tasklets mixed with ULTs on 4 streams
 * with counts and a checksum; create, join, free, get_state (READY before running, TERMINATED
 * after), get_id, get_arg, get_xstream, get_last_pool(_id), equal; task_free setting
 * ABT_TASK_NULL; ABT_task_self inside a tasklet (its handle) and inside a ULT or the main ULT
 * (ABT_ERR_INV_TASK); ABT_thread_self inside a tasklet (ABT_ERR_INV_THREAD); stack size 0 and
 * no stack; get_attr refused; unnamed tasklets; tasklets creating units; a tasklet joining a
 * tasklet on another stream; a tasklet creating and freeing a stream; ABT_TASK_NULL and
 * ABT_POOL_NULL errors. */
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
static ABT_xstream streams[NSTREAMS];
static ABT_pool pools[NSTREAMS];

/* ---- Mixed tasklets and ULTs ------------------------------------------------------------ */

#define NMIX 8000
static long mix_values[NMIX];
static int task_runs, ult_runs;

static void task_body(void *arg)
{
    long i = (long)(intptr_t)arg;
    mix_values[i] = i * 3 + 1;
    __atomic_add_fetch(&task_runs, 1, __ATOMIC_RELAXED);
}

static void ult_body(void *arg)
{
    long i = (long)(intptr_t)arg;
    ABT_thread_yield();
    mix_values[i] = i * 3 + 1;
    __atomic_add_fetch(&ult_runs, 1, __ATOMIC_RELAXED);
}

static void test_mixed(void)
{
    ABT_thread *h = malloc(sizeof *h * NMIX);
    int rc = 0;
    for (long i = 0; i < NMIX; i++) {
        ABT_pool p = pools[i % NSTREAMS];
        if (i % 2 == 0) {
            rc |= ABT_task_create(p, task_body, (void *)(intptr_t)i, &h[i]);
        } else {
            rc |= ABT_thread_create(p, ult_body, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &h[i]);
        }
    }
    CHECK_INT(rc, ABT_SUCCESS);
    for (long i = 0; i < NMIX; i++) {
        if (i % 2 == 0) {
            rc |= ABT_task_join(h[i]);
            rc |= ABT_task_free(&h[i]);
        } else {
            rc |= ABT_thread_free(&h[i]);
        }
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(task_runs, NMIX / 2);
    CHECK_INT(ult_runs, NMIX / 2);
    long sum = 0, want = 0;
    for (long i = 0; i < NMIX; i++) {
        sum += mix_values[i];
        want += i * 3 + 1;
    }
    CHECK_INT(sum, want);
    int nulled = 1;
    for (long i = 0; i < NMIX; i++) nulled &= h[i] == ABT_TASK_NULL || h[i] == ABT_THREAD_NULL;
    CHECK(nulled);
    free(h);
}

/* ---- One tasklet, every query ------------------------------------------------------------ */

struct inside {
    int task_self_rc, thread_self_rc, self_id_rc;
    ABT_task task_self;
    ABT_thread thread_self;
    uint64_t self_id;
    ABT_xstream xs;
    int yield_rc, state_rc;
    ABT_task_state state;
};

static void introspect(void *arg)
{
    struct inside *in = arg;
    in->thread_self = (ABT_thread)&in->thread_self;
    in->task_self_rc = ABT_task_self(&in->task_self);
    in->thread_self_rc = ABT_thread_self(&in->thread_self);
    in->self_id_rc = ABT_task_self_id(&in->self_id);
    ABT_xstream_self(&in->xs);
    in->yield_rc = ABT_thread_yield(); /* a no-op in a tasklet */
    in->state_rc = ABT_task_get_state(in->task_self, &in->state);
}

static void test_queries(void)
{
    struct inside in;
    memset(&in, 0, sizeof in);
    ABT_task t = ABT_TASK_NULL;
    CHECK_INT(ABT_task_create(pools[0], introspect, &in, &t), ABT_SUCCESS);
    CHECK(t != ABT_TASK_NULL);

    /* Queued on the primary pool: the main ULT has not yielded, so it has not run. */
    ABT_task_state ts = ABT_TASK_STATE_TERMINATED;
    ABT_thread_state th = ABT_THREAD_STATE_TERMINATED;
    CHECK_INT(ABT_task_get_state(t, &ts), ABT_SUCCESS);
    CHECK_INT(ts, ABT_TASK_STATE_READY);
    CHECK_INT(ABT_thread_get_state(t, &th), ABT_SUCCESS);
    CHECK_INT(th, ABT_THREAD_STATE_READY);
    ABT_xstream xs = (ABT_xstream)&xs;
    CHECK_INT(ABT_task_get_xstream(t, &xs), ABT_SUCCESS);
    CHECK(xs == ABT_XSTREAM_NULL);
    void *arg = NULL;
    CHECK_INT(ABT_task_get_arg(t, &arg), ABT_SUCCESS);
    CHECK(arg == &in);
    ABT_pool lp = ABT_POOL_NULL;
    int lpid = -5, want_pid = -6;
    CHECK_INT(ABT_task_get_last_pool(t, &lp), ABT_SUCCESS);
    CHECK(lp == pools[0]);
    CHECK_INT(ABT_task_get_last_pool_id(t, &lpid), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(pools[0], &want_pid), ABT_SUCCESS);
    CHECK_INT(lpid, want_pid);
    uint64_t id1 = 1, id2 = 2;
    CHECK_INT(ABT_task_get_id(t, &id1), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(t, &id2), ABT_SUCCESS);
    CHECK(id1 == id2);
    ABT_bool flag = ABT_TRUE;
    CHECK_INT(ABT_task_equal(t, t, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_TRUE);
    CHECK_INT(ABT_task_equal(t, ABT_TASK_NULL, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_FALSE);
    CHECK_INT(ABT_task_equal(ABT_TASK_NULL, ABT_TASK_NULL, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_TRUE);
    CHECK_INT(ABT_thread_is_primary(t, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_FALSE);
    CHECK_INT(ABT_thread_is_unnamed(t, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_FALSE);
    size_t ss = 1;
    void *stack = (void *)1;
    CHECK_INT(ABT_thread_get_stacksize(t, &ss), ABT_SUCCESS);
    CHECK_INT(ss, 0);
    ss = 1;
    CHECK_INT(ABT_thread_get_stack(t, &stack, &ss), ABT_SUCCESS);
    CHECK(stack == NULL);
    CHECK_INT(ss, 0);
    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_get_attr(t, &attr), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_task_set_migratable(t, ABT_FALSE), ABT_SUCCESS);
    CHECK_INT(ABT_task_is_migratable(t, &flag), ABT_SUCCESS);
    CHECK_INT(flag, ABT_FALSE);

    /* Run it: the main ULT joins (and blocks, so the primary stream runs it). */
    CHECK_INT(ABT_task_join(t), ABT_SUCCESS);
    CHECK_INT(ABT_task_get_state(t, &ts), ABT_SUCCESS);
    CHECK_INT(ts, ABT_TASK_STATE_TERMINATED);
    CHECK_INT(ABT_thread_get_state(t, &th), ABT_SUCCESS);
    CHECK_INT(th, ABT_THREAD_STATE_TERMINATED);
    CHECK_INT(ABT_task_get_xstream(t, &xs), ABT_SUCCESS);
    CHECK(xs == streams[0]);
    CHECK_INT(in.task_self_rc, ABT_SUCCESS);
    CHECK(in.task_self == t);
    CHECK_INT(in.thread_self_rc, ABT_ERR_INV_THREAD);
    CHECK(in.thread_self == ABT_THREAD_NULL);
    CHECK_INT(in.self_id_rc, ABT_SUCCESS);
    CHECK(in.self_id == id1);
    CHECK(in.xs == streams[0]);
    CHECK_INT(in.yield_rc, ABT_SUCCESS);
    CHECK_INT(in.state_rc, ABT_SUCCESS);
    CHECK_INT(in.state, ABT_TASK_STATE_RUNNING);
    CHECK_INT(ABT_task_get_id(t, &id2), ABT_SUCCESS);
    CHECK(id2 == id1);

    /* Free: the handle becomes ABT_TASK_NULL; freeing it again is refused. */
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK(t == ABT_TASK_NULL);
    CHECK_INT(ABT_task_free(&t), ABT_ERR_INV_TASK);

    /* A tasklet on a secondary stream, freed without a join; ABT_thread_free works too. */
    memset(&in, 0, sizeof in);
    CHECK_INT(ABT_task_create_on_xstream(streams[2], introspect, &in, &t), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK(in.xs == streams[2]);
    CHECK_INT(in.task_self_rc, ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pools[3], introspect, &in, &t), ABT_SUCCESS);
    ABT_thread as_thread = t;
    CHECK_INT(ABT_thread_join(as_thread), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&as_thread), ABT_SUCCESS);
    CHECK(in.xs == streams[3]);
}

/* ---- ABT_task_self in ULTs ---------------------------------------------------------------- */

static int ult_task_self_rc = -1;
static ABT_task ult_task_self_out;
static void ult_asks_task_self(void *arg)
{
    (void)arg;
    ult_task_self_out = (ABT_task)&ult_task_self_out;
    ult_task_self_rc = ABT_task_self(&ult_task_self_out);
}

static void test_task_self_in_ults(void)
{
    ABT_thread u;
    CHECK_INT(ABT_thread_create(pools[1], ult_asks_task_self, NULL, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    CHECK_INT(ult_task_self_rc, ABT_ERR_INV_TASK);
    CHECK(ult_task_self_out == ABT_TASK_NULL);
    ABT_task t = (ABT_task)&t;
    CHECK_INT(ABT_task_self(&t), ABT_ERR_INV_TASK); /* the main ULT is a ULT */
    CHECK(t == ABT_TASK_NULL);
    uint64_t id;
    CHECK_INT(ABT_task_self_id(&id), ABT_ERR_INV_TASK);
    /* ABT_task_* on a ULT handle work (in 1.2 a tasklet is a thread). */
    ABT_task_state ts = ABT_TASK_STATE_READY;
    CHECK_INT(ABT_thread_create(pools[0], ult_asks_task_self, NULL, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_task_get_state(u, &ts), ABT_SUCCESS);
    CHECK_INT(ts, ABT_TASK_STATE_READY);
    CHECK_INT(ABT_task_join(u), ABT_SUCCESS);
    CHECK_INT(ABT_task_get_state(u, &ts), ABT_SUCCESS);
    CHECK_INT(ts, ABT_TASK_STATE_TERMINATED);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
}

/* ---- Unnamed tasklets; tasklets creating units; tasklet joining a tasklet ----------------- */

static int unnamed_runs;
static void count_one(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&unnamed_runs, 1, __ATOMIC_RELEASE);
}

static void spawner(void *arg)
{
    int k = (int)(intptr_t)arg;
    ABT_pool p;
    if (ABT_self_get_last_pool(&p) != ABT_SUCCESS) return;
    for (int i = 0; i < k; i++) {
        ABT_task_create(p, count_one, NULL, NULL);
        ABT_thread_create(pools[i % NSTREAMS], count_one, NULL, ABT_THREAD_ATTR_NULL, NULL);
    }
}

static ABT_task far_task;
static int far_join_rc = -1, far_done;
static void slow_task(void *arg)
{
    (void)arg;
    double end = ABT_get_wtime() + 0.05;
    while (ABT_get_wtime() < end) {
    }
    __atomic_store_n(&far_done, 1, __ATOMIC_RELEASE);
}
static void joining_task(void *arg)
{
    (void)arg;
    far_join_rc = ABT_task_join(far_task);
    if (__atomic_load_n(&far_done, __ATOMIC_ACQUIRE) != 1) far_join_rc = -2;
}

/* A tasklet may create a stream, run work on it and free it (it waits as a thread would). */
static int stream_from_task_ok;
static void stream_from_task(void *arg)
{
    (void)arg;
    ABT_xstream xs;
    ABT_thread t;
    int before = __atomic_load_n(&unnamed_runs, __ATOMIC_ACQUIRE);
    int ok = ABT_xstream_create(ABT_SCHED_NULL, &xs) == ABT_SUCCESS;
    ok = ok && ABT_thread_create_on_xstream(xs, count_one, NULL, ABT_THREAD_ATTR_NULL, &t) == ABT_SUCCESS;
    ok = ok && ABT_thread_free(&t) == ABT_SUCCESS;
    ok = ok && ABT_task_create_on_xstream(xs, count_one, NULL, NULL) == ABT_SUCCESS;
    ok = ok && ABT_xstream_free(&xs) == ABT_SUCCESS && xs == ABT_XSTREAM_NULL;
    ok = ok && __atomic_load_n(&unnamed_runs, __ATOMIC_ACQUIRE) == before + 2;
    stream_from_task_ok = ok;
}

static void test_unnamed_and_nested(void)
{
    int rc = 0;
    for (int i = 0; i < 4000; i++) rc |= ABT_task_create(pools[i % NSTREAMS], count_one, NULL, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(wait_for(&unnamed_runs, 4000));
    for (int i = 0; i < 40; i++) rc |= ABT_task_create(pools[i % NSTREAMS], spawner, (void *)(intptr_t)25, NULL);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(wait_for(&unnamed_runs, 4000 + 40 * 50));

    CHECK_INT(ABT_task_create(pools[2], slow_task, NULL, &far_task), ABT_SUCCESS);
    ABT_task j;
    CHECK_INT(ABT_task_create(pools[1], joining_task, NULL, &j), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&j), ABT_SUCCESS);
    CHECK_INT(far_join_rc, ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&far_task), ABT_SUCCESS);

    ABT_task st;
    CHECK_INT(ABT_task_create(pools[3], stream_from_task, NULL, &st), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&st), ABT_SUCCESS);
    CHECK(stream_from_task_ok);
}

/* ---- Errors ------------------------------------------------------------------------------- */

static void test_errors(void)
{
    ABT_task t = (ABT_task)&t;
    CHECK_INT(ABT_task_create(ABT_POOL_NULL, count_one, NULL, &t), ABT_ERR_INV_POOL);
    CHECK(t == ABT_TASK_NULL);
    CHECK_INT(ABT_task_create(ABT_POOL_NULL, count_one, NULL, NULL), ABT_ERR_INV_POOL);
    ABT_task n = ABT_TASK_NULL;
    ABT_task_state ts;
    uint64_t id;
    void *arg;
    ABT_xstream xs;
    ABT_pool p;
    int pid;
    ABT_bool flag;
    CHECK_INT(ABT_task_join(ABT_TASK_NULL), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_free(&n), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_get_state(ABT_TASK_NULL, &ts), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_get_id(ABT_TASK_NULL, &id), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_get_arg(ABT_TASK_NULL, &arg), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_get_xstream(ABT_TASK_NULL, &xs), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_get_last_pool(ABT_TASK_NULL, &p), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_get_last_pool_id(ABT_TASK_NULL, &pid), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_set_migratable(ABT_TASK_NULL, ABT_TRUE), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_task_is_migratable(ABT_TASK_NULL, &flag), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_thread_join((ABT_thread)ABT_TASK_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_task_create_on_xstream(ABT_XSTREAM_NULL, count_one, NULL, &t), ABT_ERR_INV_XSTREAM);
    CHECK(t == ABT_TASK_NULL);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_self(&streams[0]), ABT_SUCCESS);
    int rc = 0;
    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_create(ABT_SCHED_NULL, &streams[i]);
    for (int i = 0; i < NSTREAMS; i++) rc |= ABT_xstream_get_main_pools(streams[i], 1, &pools[i]);
    CHECK_INT(rc, ABT_SUCCESS);

    test_mixed();
    test_queries();
    test_task_self_in_ults();
    test_unnamed_and_nested();
    test_errors();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
