/* trace_run.c: a known program for the timeline trace (GOABT_TRACE). ctests/trace_test.go runs
 * it with GOABT_TRACE set and checks the trace event by event against the lines this program
 * prints ("trace-unit id=... fn=... rank=..."); run here, it checks its own work, and that a
 * tool registered while the trace listens still sees exactly the events it asked for, and what
 * a blocked ULT waits on (ABT_TOOL_QUERY_KIND_SYNC_OBJECT_TYPE: the mutex, the eventual, the
 * join), which the trace's block instants report too.
 *
 * Three streams, one pool each (FIFO):
 *   stream 1: trace_yielder yields 3 times; trace_mutex_holder locks a mutex and yields until
 *             trace_mutex_waiter (same pool) is blocked on it, then unlocks: a wake from holder
 *             to waiter on stream 1;
 *   stream 2: trace_eventual_waiter waits on an eventual; trace_eventual_setter on stream 1
 *             sets it once the waiter is blocked: a wake from stream 1 to stream 2;
 *   stream 0: trace_tasklet, a tasklet, and trace_joined, a ULT; the main ULT joins
 *             trace_joined first, which cannot have run yet (only the main ULT's stream runs
 *             it): a block on a join, for sure, while the primary runs trace_joined and
 *             the tasklet. Then it joins the rest, which block if they still run.
 */
// ctest-variant: plain
// ctest-variant: traced GOABT_TRACE=trace_run.traced.json
// ctest-env: GOABT_TOOL=1
#include <stdint.h>
#include <abt.h>
#include "check.h"

enum { NUNITS = 8 };

static ABT_mutex mutex;
static ABT_eventual eventual;
static ABT_thread mutex_waiter, eventual_waiter;
static int ranks[NUNITS]; /* the rank each unit ran on, by index */
static int yields_done, mutex_sum, eventual_got;

static void note_rank(int i)
{
    int r = -1;
    ABT_self_get_xstream_rank(&r);
    ranks[i] = r;
}

/* Yields until *t (set by the creator, maybe after the caller started) is blocked. */
static void wait_blocked(ABT_thread *t)
{
    for (;;) {
        ABT_thread_state st = ABT_THREAD_STATE_READY;
        ABT_thread h = __atomic_load_n(t, __ATOMIC_ACQUIRE);
        if (h != ABT_THREAD_NULL) ABT_thread_get_state(h, &st);
        if (st == ABT_THREAD_STATE_BLOCKED) return;
        ABT_thread_yield();
    }
}

static void trace_yielder(void *arg)
{
    for (int i = 0; i < 3; i++) {
        note_rank((int)(intptr_t)arg);
        ABT_thread_yield();
        yields_done++;
    }
}

static void trace_mutex_holder(void *arg)
{
    note_rank((int)(intptr_t)arg);
    ABT_mutex_lock(mutex);
    wait_blocked(&mutex_waiter);
    mutex_sum += 1;
    ABT_mutex_unlock(mutex);
}

static void trace_mutex_waiter(void *arg)
{
    note_rank((int)(intptr_t)arg);
    ABT_mutex_lock(mutex);
    mutex_sum += 10;
    ABT_mutex_unlock(mutex);
}

static void trace_eventual_waiter(void *arg)
{
    note_rank((int)(intptr_t)arg);
    void *v = NULL;
    ABT_eventual_wait(eventual, &v);
    eventual_got = *(int *)v;
}

static void trace_eventual_setter(void *arg)
{
    note_rank((int)(intptr_t)arg);
    wait_blocked(&eventual_waiter);
    int v = 42;
    ABT_eventual_set(eventual, &v, sizeof v);
}

static void trace_tasklet(void *arg) { note_rank((int)(intptr_t)arg); }
static void trace_joined(void *arg) { note_rank((int)(intptr_t)arg); }

/* The tool: counts yields and notes what blocked ULTs waited on. */
static int tool_yields, blocked_on_mutex, blocked_on_eventual, blocked_on_join, tool_other;

static void on_event(ABT_thread thread, ABT_xstream xstream, uint64_t event, ABT_tool_context ctx,
                     void *arg)
{
    (void)thread;
    (void)xstream;
    (void)arg;
    if (event == ABT_TOOL_EVENT_THREAD_YIELD) {
        __atomic_add_fetch(&tool_yields, 1, __ATOMIC_RELAXED);
    } else if (event == ABT_TOOL_EVENT_THREAD_SUSPEND) {
        ABT_sync_event_type type = ABT_SYNC_EVENT_TYPE_UNKNOWN;
        void *obj = NULL;
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_SYNC_OBJECT_TYPE, &type);
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_SYNC_OBJECT_HANDLE, &obj);
        if (type == ABT_SYNC_EVENT_TYPE_MUTEX && obj == (void *)mutex) {
            __atomic_add_fetch(&blocked_on_mutex, 1, __ATOMIC_RELAXED);
        } else if (type == ABT_SYNC_EVENT_TYPE_EVENTUAL && obj == (void *)eventual) {
            __atomic_add_fetch(&blocked_on_eventual, 1, __ATOMIC_RELAXED);
        } else if (type == ABT_SYNC_EVENT_TYPE_THREAD_JOIN) {
            __atomic_add_fetch(&blocked_on_join, 1, __ATOMIC_RELAXED);
        }
    } else {
        __atomic_add_fetch(&tool_other, 1, __ATOMIC_RELAXED); /* asked for none */
    }
}

int main(void)
{
    CHECK(ABT_init(0, NULL) == ABT_SUCCESS);
    CHECK(ABT_tool_register_thread_callback(on_event,
                                            ABT_TOOL_EVENT_THREAD_YIELD | ABT_TOOL_EVENT_THREAD_SUSPEND,
                                            NULL) == ABT_SUCCESS);
    ABT_xstream xs[3];
    ABT_pool pools[3];
    ABT_xstream_self(&xs[0]);
    for (int i = 1; i < 3; i++) CHECK(ABT_xstream_create(ABT_SCHED_NULL, &xs[i]) == ABT_SUCCESS);
    for (int i = 0; i < 3; i++) ABT_xstream_get_main_pools(xs[i], 1, &pools[i]);
    CHECK(ABT_mutex_create(&mutex) == ABT_SUCCESS);
    CHECK(ABT_eventual_create(sizeof(int), &eventual) == ABT_SUCCESS);

    static const char *names[NUNITS] = {"trace_yielder", "trace_mutex_holder",
                                        "trace_mutex_waiter", "trace_eventual_waiter",
                                        "trace_eventual_setter", "trace_tasklet", "trace_yielder",
                                        "trace_joined"};
    static const int want_rank[NUNITS] = {1, 1, 1, 2, 1, 0, 2, 0};
    ABT_thread units[NUNITS];
    ABT_task task;
    /* The waiters first in their pools' order where it matters: the holder runs first. */
    CHECK(ABT_thread_create(pools[1], trace_yielder, (void *)0, ABT_THREAD_ATTR_NULL, &units[0]) == ABT_SUCCESS);
    CHECK(ABT_thread_create(pools[1], trace_mutex_holder, (void *)1, ABT_THREAD_ATTR_NULL, &units[1]) == ABT_SUCCESS);
    CHECK(ABT_thread_create(pools[1], trace_mutex_waiter, (void *)2, ABT_THREAD_ATTR_NULL, &units[2]) == ABT_SUCCESS);
    __atomic_store_n(&mutex_waiter, units[2], __ATOMIC_RELEASE);
    CHECK(ABT_thread_create(pools[2], trace_eventual_waiter, (void *)3, ABT_THREAD_ATTR_NULL, &units[3]) == ABT_SUCCESS);
    __atomic_store_n(&eventual_waiter, units[3], __ATOMIC_RELEASE);
    CHECK(ABT_thread_create(pools[1], trace_eventual_setter, (void *)4, ABT_THREAD_ATTR_NULL, &units[4]) == ABT_SUCCESS);
    CHECK(ABT_task_create(pools[0], trace_tasklet, (void *)5, &task) == ABT_SUCCESS);
    CHECK(ABT_thread_create(pools[2], trace_yielder, (void *)6, ABT_THREAD_ATTR_NULL, &units[6]) == ABT_SUCCESS);
    CHECK(ABT_thread_create(pools[0], trace_joined, (void *)7, ABT_THREAD_ATTR_NULL, &units[7]) == ABT_SUCCESS);
    units[5] = (ABT_thread)task;

    CHECK(ABT_thread_join(units[7]) == ABT_SUCCESS);
    for (int i = 0; i < NUNITS - 1; i++) {
        if (i == 5) {
            CHECK(ABT_task_join(task) == ABT_SUCCESS);
        } else {
            CHECK(ABT_thread_join(units[i]) == ABT_SUCCESS);
        }
    }
    for (int i = 0; i < NUNITS; i++) {
        ABT_unit_id id = 0;
        CHECK(ABT_thread_get_id(units[i], &id) == ABT_SUCCESS);
        CHECK_INT(ranks[i], want_rank[i]);
        printf("trace-unit id=%llu fn=%s rank=%d\n", (unsigned long long)id, names[i], ranks[i]);
    }
    ABT_unit_id main_id = 0;
    ABT_thread self;
    ABT_self_get_thread(&self);
    ABT_thread_get_id(self, &main_id);
    printf("trace-main id=%llu\n", (unsigned long long)main_id);
    CHECK_INT(yields_done, 6);
    CHECK_INT(mutex_sum, 11);
    CHECK_INT(eventual_got, 42);
    CHECK(tool_yields >= 6); /* the yielders', and wait_blocked's */
    CHECK_INT(blocked_on_mutex, 1);
    CHECK_INT(blocked_on_eventual, 1);
    CHECK(blocked_on_join >= 1); /* the main ULT joining trace_joined, at least */
    CHECK_INT(tool_other, 0);
    for (int i = 0; i < NUNITS; i++) {
        if (i == 5) {
            CHECK(ABT_task_free(&task) == ABT_SUCCESS);
        } else {
            CHECK(ABT_thread_free(&units[i]) == ABT_SUCCESS);
        }
    }
    ABT_mutex_free(&mutex);
    ABT_eventual_free(&eventual);
    for (int i = 1; i < 3; i++) CHECK(ABT_xstream_free(&xs[i]) == ABT_SUCCESS);
    CHECK(ABT_finalize() == ABT_SUCCESS);
    return check_summary();
}
