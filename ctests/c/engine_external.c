/* External threads: 4 plain pthreads (not execution streams) at once create ULTs and tasklets
 * on the pools of 4 streams (the primary's included, while the main ULT yields), join and free
 * them (joins sleep as OS threads), with checksums; each also creates its own stream, runs
 * yielding ULTs on it, joins and frees it; streams are counted right throughout. Argobots'
 * ext_thread test does the same with one pthread. */
#include <pthread.h>
#include <abt.h>
#include "check.h"

#define NSTREAMS 4
#define NEXT 4
#define PER_EXT 1000

static ABT_pool pools[NSTREAMS];
static long values[NEXT][PER_EXT];
static int ext_done;

static long expected(int e, int i) { return (long)e * 100003 + (long)i * 31 + 7; }

static void compute_ult(void *arg)
{
    long code = (long)(intptr_t)arg;
    int e = (int)(code / PER_EXT), i = (int)(code % PER_EXT);
    if (i % 3 == 0) ABT_thread_yield();
    values[e][i] = expected(e, i);
}

static void compute_task(void *arg)
{
    long code = (long)(intptr_t)arg;
    int e = (int)(code / PER_EXT), i = (int)(code % PER_EXT);
    values[e][i] = expected(e, i);
}

static int own_stream_runs;
static void yield_a_bit(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++) ABT_thread_yield();
    __atomic_add_fetch(&own_stream_runs, 1, __ATOMIC_RELAXED);
}

struct ext_result {
    int create_errors, join_errors, free_errors, nulled;
    int stream_errors, self_rc;
};

static void *external(void *arg)
{
    int e = (int)(intptr_t)arg;
    static struct ext_result results[NEXT];
    struct ext_result *r = &results[e];
    ABT_xstream me;
    r->self_rc = ABT_xstream_self(&me);

    /* Units on every stream, the primary's included. */
    ABT_thread *h = malloc(sizeof *h * PER_EXT);
    for (int i = 0; i < PER_EXT; i++) {
        void *code = (void *)(intptr_t)((long)e * PER_EXT + i);
        ABT_pool p = pools[(i + e) % NSTREAMS];
        if (i % 2 == 0) {
            r->create_errors += ABT_thread_create(p, compute_ult, code, ABT_THREAD_ATTR_NULL, &h[i]) != ABT_SUCCESS;
        } else {
            r->create_errors += ABT_task_create(p, compute_task, code, &h[i]) != ABT_SUCCESS;
        }
    }
    /* Join half explicitly, free everything (free joins the rest). */
    for (int i = 0; i < PER_EXT; i += 2) r->join_errors += ABT_thread_join(h[i]) != ABT_SUCCESS;
    r->nulled = 1;
    for (int i = 0; i < PER_EXT; i++) {
        if (i % 2 == 0) {
            r->free_errors += ABT_thread_free(&h[i]) != ABT_SUCCESS;
            r->nulled &= h[i] == ABT_THREAD_NULL;
        } else {
            r->free_errors += ABT_task_free(&h[i]) != ABT_SUCCESS;
            r->nulled &= h[i] == ABT_TASK_NULL;
        }
    }
    free(h);

    /* A stream of its own. */
    ABT_xstream xs;
    ABT_thread t[20];
    r->stream_errors += ABT_xstream_create(ABT_SCHED_NULL, &xs) != ABT_SUCCESS;
    for (int i = 0; i < 20; i++) {
        r->stream_errors += ABT_thread_create_on_xstream(xs, yield_a_bit, NULL, ABT_THREAD_ATTR_NULL, &t[i]) != ABT_SUCCESS;
    }
    for (int i = 0; i < 20; i++) r->stream_errors += ABT_thread_free(&t[i]) != ABT_SUCCESS;
    for (int i = 0; i < 20; i++) {
        r->stream_errors += ABT_thread_create_on_xstream(xs, yield_a_bit, NULL, ABT_THREAD_ATTR_NULL, NULL) != ABT_SUCCESS;
    }
    r->stream_errors += ABT_xstream_join(xs) != ABT_SUCCESS;
    ABT_xstream_state st = ABT_XSTREAM_STATE_RUNNING;
    r->stream_errors += ABT_xstream_get_state(xs, &st) != ABT_SUCCESS || st != ABT_XSTREAM_STATE_TERMINATED;
    r->stream_errors += ABT_xstream_free(&xs) != ABT_SUCCESS || xs != ABT_XSTREAM_NULL;

    __atomic_add_fetch(&ext_done, 1, __ATOMIC_RELEASE);
    return r;
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream streams[NSTREAMS];
    int rc = ABT_xstream_self(&streams[0]);
    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_create(ABT_SCHED_NULL, &streams[i]);
    for (int i = 0; i < NSTREAMS; i++) rc |= ABT_xstream_get_main_pools(streams[i], 1, &pools[i]);
    CHECK_INT(rc, ABT_SUCCESS);

    pthread_t th[NEXT];
    for (int e = 0; e < NEXT; e++) pthread_create(&th[e], NULL, external, (void *)(intptr_t)e);
    /* The primary stream runs its pool only while the main ULT yields. */
    double end = ABT_get_wtime() + 60.0;
    while (__atomic_load_n(&ext_done, __ATOMIC_ACQUIRE) < NEXT && ABT_get_wtime() < end) ABT_thread_yield();
    CHECK_INT(ext_done, NEXT);
    struct ext_result *res[NEXT];
    for (int e = 0; e < NEXT; e++) pthread_join(th[e], (void **)&res[e]);

    int self_ok = 1, creates = 0, joins = 0, frees = 0, nulled = 1, stream_errors = 0;
    for (int e = 0; e < NEXT; e++) {
        self_ok &= res[e]->self_rc == ABT_ERR_INV_XSTREAM;
        creates += res[e]->create_errors;
        joins += res[e]->join_errors;
        frees += res[e]->free_errors;
        nulled &= res[e]->nulled;
        stream_errors += res[e]->stream_errors;
    }
    CHECK(self_ok);
    CHECK_INT(creates, 0);
    CHECK_INT(joins, 0);
    CHECK_INT(frees, 0);
    CHECK(nulled);
    CHECK_INT(stream_errors, 0);
    long sum = 0, want = 0;
    for (int e = 0; e < NEXT; e++) {
        for (int i = 0; i < PER_EXT; i++) {
            sum += values[e][i];
            want += expected(e, i);
        }
    }
    CHECK_INT(sum, want);
    CHECK_INT(own_stream_runs, NEXT * 40);
    int n = 0;
    CHECK_INT(ABT_xstream_get_num(&n), ABT_SUCCESS);
    CHECK_INT(n, NSTREAMS);

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
