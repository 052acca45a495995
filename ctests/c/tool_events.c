/* The tool interface (ABT_tool_register_thread_callback, ABT_tool_query_thread), against
 * Argobots 1.2's documented semantics: on one stream, a known workload (10 ULTs that yield once,
 * 5 tasklets, the main ULT yielding once, then freeing them all) fires exactly the events it
 * should, counted per kind; the context of a creation names the pool and the creating ULT (an
 * external thread's creation: no handle, EXT), stack depth 0; cancel and revive events; a mask
 * limits what is reported; unregistering stops the callback; ABT_info_query_config reports the
 * tool interface. Every wait is bounded. */
#include <pthread.h>
#include <stdint.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NULTS 10
#define NTASKS 5

static long counts[12];
static ABT_pool main_pool;
static ABT_thread main_ult;
static int bad_context;
static ABT_exec_entity_type last_create_caller_type;
static void *last_create_caller;

static int bit_index(uint64_t event)
{
    for (int i = 0; i < 12; i++) {
        if (event == (1ull << i)) return i;
    }
    return -1;
}

static void on_event(ABT_thread thread, ABT_xstream xstream, uint64_t event, ABT_tool_context ctx,
                     void *arg)
{
    (void)xstream;
    int i = bit_index(event);
    if (i < 0 || arg != (void *)counts || thread == ABT_THREAD_NULL) {
        __atomic_add_fetch(&bad_context, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_add_fetch(&counts[i], 1, __ATOMIC_RELAXED);
    if (event == ABT_TOOL_EVENT_THREAD_CREATE) {
        ABT_pool pool = ABT_POOL_NULL;
        int depth = -1;
        if (ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_POOL, &pool) != ABT_SUCCESS ||
            pool != main_pool) {
            __atomic_add_fetch(&bad_context, 1, __ATOMIC_RELAXED);
        }
        if (ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_STACK_DEPTH, &depth) !=
                ABT_SUCCESS ||
            depth != 0) {
            __atomic_add_fetch(&bad_context, 1, __ATOMIC_RELAXED);
        }
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_CALLER_TYPE, &last_create_caller_type);
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_CALLER_HANDLE, &last_create_caller);
    }
    if (event == ABT_TOOL_EVENT_THREAD_YIELD) {
        ABT_sync_event_type type = ABT_SYNC_EVENT_TYPE_UNKNOWN;
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_SYNC_OBJECT_TYPE, &type);
        if (type != ABT_SYNC_EVENT_TYPE_USER) __atomic_add_fetch(&bad_context, 1, __ATOMIC_RELAXED);
    }
}

static long count(uint64_t event) { return __atomic_load_n(&counts[bit_index(event)], __ATOMIC_RELAXED); }

static void reset(void)
{
    for (int i = 0; i < 12; i++) counts[i] = 0;
}

static void yield_once(void *arg)
{
    (void)arg;
    ABT_thread_yield();
}

static void nothing(void *arg) { (void)arg; }

static void *external_create(void *arg)
{
    ABT_thread *t = arg;
    CHECK_INT(ABT_thread_create(main_pool, nothing, NULL, ABT_THREAD_ATTR_NULL, t), ABT_SUCCESS);
    return NULL;
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_bool enabled = ABT_FALSE;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_TOOL, &enabled), ABT_SUCCESS);
    CHECK_INT(enabled, ABT_TRUE);
    ABT_xstream self;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &main_pool), ABT_SUCCESS);
    CHECK_INT(ABT_thread_self(&main_ult), ABT_SUCCESS);

    /* The known workload, on the primary stream alone. */
    CHECK_INT(ABT_tool_register_thread_callback(on_event, ABT_TOOL_EVENT_THREAD_ALL, counts),
              ABT_SUCCESS);
    ABT_thread ults[NULTS];
    ABT_task tasks[NTASKS];
    for (int i = 0; i < NULTS; i++) {
        CHECK_INT(ABT_thread_create(main_pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, &ults[i]),
                  ABT_SUCCESS);
    }
    CHECK_INT(last_create_caller_type, ABT_EXEC_ENTITY_TYPE_THREAD);
    CHECK(last_create_caller == (void *)main_ult);
    for (int i = 0; i < NTASKS; i++) {
        CHECK_INT(ABT_task_create(main_pool, nothing, NULL, &tasks[i]), ABT_SUCCESS);
    }
    CHECK_INT(ABT_thread_yield(), ABT_SUCCESS); /* every unit runs once, the ULTs yield */
    for (int i = 0; i < NULTS; i++) CHECK_INT(ABT_thread_free(&ults[i]), ABT_SUCCESS);
    for (int i = 0; i < NTASKS; i++) CHECK_INT(ABT_task_free(&tasks[i]), ABT_SUCCESS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_CREATE), NULTS + NTASKS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_RUN), 2 * NULTS + NTASKS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_YIELD), NULTS + 1); /* the main ULT's one too */
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_FINISH), NULTS + NTASKS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_JOIN), NULTS + NTASKS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_FREE), NULTS + NTASKS);
    /* The main ULT waits for the first ULT once: it blocks and is woken. */
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_SUSPEND), 1);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_RESUME), 1);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_CANCEL), 0);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_REVIVE), 0);
    CHECK_INT(bad_context, 0);

    /* Cancel and revive. */
    reset();
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &idle),
              ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(idle, nothing, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_cancel(t), ABT_SUCCESS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_CANCEL), 1);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_RUN), 0);
    CHECK_INT(ABT_thread_revive(main_pool, nothing, NULL, &t), ABT_SUCCESS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_REVIVE), 1);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_FINISH), 1);
    CHECK_INT(ABT_pool_free(&idle), ABT_SUCCESS);

    /* An external thread's creation: no calling unit. */
    pthread_t ext;
    ABT_thread from_ext = ABT_THREAD_NULL;
    CHECK_INT(pthread_create(&ext, NULL, external_create, &from_ext), 0);
    CHECK_INT(pthread_join(ext, NULL), 0);
    CHECK_INT(last_create_caller_type, ABT_EXEC_ENTITY_TYPE_EXT);
    CHECK(last_create_caller == NULL);
    CHECK_INT(ABT_thread_free(&from_ext), ABT_SUCCESS);

    /* A mask: creations only. */
    reset();
    CHECK_INT(ABT_tool_register_thread_callback(on_event, ABT_TOOL_EVENT_THREAD_CREATE, counts),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(main_pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_CREATE), 1);
    long others = 0;
    for (int i = 1; i < 12; i++) others += counts[i];
    CHECK_INT(others, 0);

    /* Unregistered: nothing more. */
    reset();
    CHECK_INT(ABT_tool_register_thread_callback(NULL, ABT_TOOL_EVENT_THREAD_ALL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(main_pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_CREATE), 0);

    int depth;
    CHECK_INT(ABT_tool_query_thread(ABT_TOOL_CONTEXT_NULL, ABT_TOOL_EVENT_THREAD_CREATE,
                                    ABT_TOOL_QUERY_KIND_STACK_DEPTH, &depth),
              ABT_ERR_INV_TOOL_CONTEXT);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    CHECK_INT(ABT_tool_register_thread_callback(on_event, 1, NULL), ABT_ERR_UNINITIALIZED);
    return check_summary();
}
