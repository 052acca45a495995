/* A ULT that yields or blocks may hand its stream straight to the next ULT
 * (capi/engine/unit_switch.c, "Hand-over"); the order in which units run must stay the
 * scheduler's. On the primary stream, whose pool holds only what this program puts there (the
 * main ULT waits in joins meanwhile), the exact order of runs is recorded and checked:
 *  - three ULTs yielding in turn run round-robin, in creation order;
 *  - a tasklet queued between ULTs runs in its place in the FIFO (a ULT's yield does not jump
 *    over it);
 *  - a ULT that blocks on an eventual (parks) hands over to the next in the FIFO, and runs
 *    again after the ULT that sets it and the units queued before it was made ready;
 *  - under ABT_SCHED_PRIO, a ULT of the first pool that yields runs again before a ULT of the
 *    second pool, until it ends;
 *  - the same round-robin with a tool listening to RUN events (every hand-over then goes
 *    through the scheduler): same order, and one RUN event per run.
 * Each case is run 3 times (the scheduler takes its own round every 64 hand-overs). */
// ctest-env: GOABT_TOOL=1
#include <string.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define MAX_LOG 256
static char run_log[MAX_LOG + 1]; /* one letter per run of a unit: its name */
static int log_len;
static int runs_seen; /* RUN tool events */

static void note(char name)
{
    if (log_len < MAX_LOG) run_log[log_len++] = name;
    run_log[log_len] = '\0';
}

typedef struct {
    char name;
    int yields;
} yielder_t;

static void yielder(void *arg)
{
    yielder_t *y = arg;
    note(y->name);
    for (int i = 0; i < y->yields; i++) {
        ABT_thread_yield();
        note(y->name);
    }
}

static void tasklet(void *arg) { note(*(char *)arg); }

static ABT_eventual ev;
static void waiter(void *arg)
{
    note(*(char *)arg);
    ABT_eventual_wait(ev, NULL);
    note(*(char *)arg);
}

static void setter(void *arg)
{
    note(*(char *)arg);
    ABT_eventual_set(ev, NULL, 0);
    ABT_thread_yield();
    note(*(char *)arg);
}

static void reset_log(void)
{
    log_len = 0;
    run_log[0] = '\0';
}

/* Three yielders of 3 yields each, on pool: ABC ABC ABC ABC. */
static void round_robin(ABT_pool pool)
{
    yielder_t y[3] = {{'A', 3}, {'B', 3}, {'C', 3}};
    ABT_thread t[3];
    reset_log();
    for (int i = 0; i < 3; i++) {
        CHECK_INT(ABT_thread_create(pool, yielder, &y[i], ABT_THREAD_ATTR_NULL, &t[i]), ABT_SUCCESS);
    }
    for (int i = 0; i < 3; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
    CHECK_STR(run_log, "ABCABCABCABC");
}

static void tool_cb(ABT_thread thread, ABT_xstream xstream, uint64_t event, ABT_tool_context ctx,
                    void *arg)
{
    (void)xstream, (void)ctx, (void)arg;
    ABT_bool is_main = ABT_FALSE;
    ABT_thread_is_primary(thread, &is_main);
    /* The yielders' runs; the main ULT's, once it is woken from its join, are not counted. */
    if (event == ABT_TOOL_EVENT_THREAD_RUN && !is_main) runs_seen++;
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool pool;
    CHECK_INT(start_streams(1, &self, &pool), ABT_SUCCESS); /* the primary and its pool */

    for (int round = 0; round < 3; round++) {
        round_robin(pool);

        /* A tasklet between two ULTs: A runs, yields behind T and B; T, B, A. */
        yielder_t a = {'A', 1}, b = {'B', 1};
        char tn = 'T';
        ABT_thread ta, tb;
        ABT_task tt;
        reset_log();
        CHECK_INT(ABT_thread_create(pool, yielder, &a, ABT_THREAD_ATTR_NULL, &ta), ABT_SUCCESS);
        CHECK_INT(ABT_task_create(pool, tasklet, &tn, &tt), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pool, yielder, &b, ABT_THREAD_ATTR_NULL, &tb), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&tb), ABT_SUCCESS);
        CHECK_INT(ABT_task_free(&tt), ABT_SUCCESS);
        CHECK_STR(run_log, "ATBAB");

        /* W waits (parks) with S, T and C queued: S sets (W queued behind T and C), yields
         * behind W: S T C W S. Then W returns from its wait. */
        char wn = 'W', sn = 'S';
        yielder_t c = {'C', 0};
        ABT_thread tw, ts, tc;
        CHECK_INT(ABT_eventual_create(0, &ev), ABT_SUCCESS);
        reset_log();
        CHECK_INT(ABT_thread_create(pool, waiter, &wn, ABT_THREAD_ATTR_NULL, &tw), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pool, setter, &sn, ABT_THREAD_ATTR_NULL, &ts), ABT_SUCCESS);
        CHECK_INT(ABT_task_create(pool, tasklet, &tn, &tt), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pool, yielder, &c, ABT_THREAD_ATTR_NULL, &tc), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&tw), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&ts), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&tc), ABT_SUCCESS);
        CHECK_INT(ABT_task_free(&tt), ABT_SUCCESS);
        CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
        CHECK_STR(run_log, "WSTCWS");
    }

    /* ABT_SCHED_PRIO on a stream of its own: P (first pool) yields 5 times, Q (second pool)
     * runs only once P has ended. Both are queued before the stream starts. */
    ABT_pool q[2];
    for (int i = 0; i < 2; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &q[i]),
                  ABT_SUCCESS);
    }
    for (int round = 0; round < 3; round++) {
        yielder_t p = {'P', 5}, qq = {'Q', 1};
        ABT_thread tp, tq;
        reset_log();
        CHECK_INT(ABT_thread_create(q[0], yielder, &p, ABT_THREAD_ATTR_NULL, &tp), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(q[1], yielder, &qq, ABT_THREAD_ATTR_NULL, &tq), ABT_SUCCESS);
        ABT_sched prio;
        ABT_xstream xs;
        CHECK_INT(ABT_sched_create_basic(ABT_SCHED_PRIO, 2, q, ABT_SCHED_CONFIG_NULL, &prio),
                  ABT_SUCCESS);
        CHECK_INT(ABT_xstream_create(prio, &xs), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&tp), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&tq), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS); /* and prio with it: it is automatic */
        CHECK_STR(run_log, "PPPPPPQQ");
    }
    for (int i = 0; i < 2; i++) CHECK_INT(ABT_pool_free(&q[i]), ABT_SUCCESS);

    /* With a tool: the same order, and every run seen. 3 yielders, 12 runs. */
    CHECK_INT(ABT_tool_register_thread_callback(tool_cb, ABT_TOOL_EVENT_THREAD_RUN, NULL),
              ABT_SUCCESS);
    for (int round = 0; round < 3; round++) {
        runs_seen = 0;
        round_robin(pool);
        CHECK_INT(runs_seen, 12);
    }
    CHECK_INT(ABT_tool_register_thread_callback(NULL, ABT_TOOL_EVENT_THREAD_NONE, NULL),
              ABT_SUCCESS);

    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
