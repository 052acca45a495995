/* The tool interface (ABT_tool_register_thread_callback, ABT_tool_query_thread), against
 * Argobots 1.2's documented semantics: on one stream, a known workload (10 ULTs that yield once,
 * 5 tasklets, the main ULT yielding once, then freeing them all) fires exactly the events it
 * should, counted per kind; the context of a creation names the pool and the creating ULT (an
 * external thread's creation: no handle, EXT), stack depth 0; cancel and revive events; a mask
 * limits what is reported; unregistering stops the callback; ABT_info_query_config reports the
 * tool interface. Every unit's events follow its life (created, run, yield or suspend, resume,
 * run again ... finish, join, free), the main ULT's too (running when the tool registers), and
 * unnamed units are reported freed when they end; a ULT joining a tasklet yields, saying so.
 * Every wait is bounded. The interface is
 * turned on by GOABT_TOOL (tool_switch checks it off). */
// ctest-env: GOABT_TOOL=1
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NULTS 10
#define NTASKS 5

static long counts[12];
static ABT_pool main_pool;
static ABT_thread main_ult;
static int bad_context;
static ABT_tool_context kept_context; /* a creation's context, kept past its callback */
static ABT_exec_entity_type last_create_caller_type;
static void *last_create_caller;

static int bit_index(uint64_t event)
{
    for (int i = 0; i < 12; i++) {
        if (event == (1ull << i)) return i;
    }
    return -1;
}

/* Each unit's life as its events tell it; bad_life counts events out of order. */
enum { LIFE_NEW, LIFE_READY, LIFE_RUNNING, LIFE_BLOCKED, LIFE_ENDED, LIFE_JOINED };
#define NLIVES 64
static struct {
    ABT_thread unit;
    int used;
    int state;
} lives[NLIVES];
static pthread_mutex_t lives_lock = PTHREAD_MUTEX_INITIALIZER;
static int bad_life;
static ABT_task join_target; /* the tasklet the main ULT joins, for its yields' sync object */
static long join_yields;      /* yields that said THREAD_JOIN on join_target */

static int *life_of(ABT_thread t)
{
    for (int i = 0; i < NLIVES; i++) {
        if (lives[i].used && lives[i].unit == t) return &lives[i].state;
    }
    for (int i = 0; i < NLIVES; i++) {
        if (!lives[i].used) {
            lives[i].used = 1;
            lives[i].unit = t;
            lives[i].state = LIFE_NEW;
            return &lives[i].state;
        }
    }
    return NULL;
}

/* Moves t from one of the states in `from` (a bit mask) to `to`. */
static void live(ABT_thread t, unsigned from, int to)
{
    pthread_mutex_lock(&lives_lock);
    int *st = life_of(t);
    if (st == NULL || !(from & (1u << *st))) {
        bad_life++;
    } else {
        *st = to;
    }
    pthread_mutex_unlock(&lives_lock);
}

static void forget(ABT_thread t)
{
    pthread_mutex_lock(&lives_lock);
    for (int i = 0; i < NLIVES; i++) {
        if (lives[i].used && lives[i].unit == t) lives[i].used = 0;
    }
    pthread_mutex_unlock(&lives_lock);
}

#define B(x) (1u << (x))
static void follow_life(ABT_thread t, uint64_t event)
{
    ABT_bool unnamed = ABT_FALSE;
    if (ABT_thread_is_unnamed(t, &unnamed) != ABT_SUCCESS) bad_life++;
    switch (event) {
    case ABT_TOOL_EVENT_THREAD_CREATE: live(t, B(LIFE_NEW), LIFE_READY); break;
    case ABT_TOOL_EVENT_THREAD_RUN: live(t, B(LIFE_READY), LIFE_RUNNING); break;
    case ABT_TOOL_EVENT_THREAD_YIELD: live(t, B(LIFE_RUNNING), LIFE_READY); break;
    case ABT_TOOL_EVENT_THREAD_SUSPEND: live(t, B(LIFE_RUNNING), LIFE_BLOCKED); break;
    case ABT_TOOL_EVENT_THREAD_RESUME: live(t, B(LIFE_BLOCKED), LIFE_READY); break;
    case ABT_TOOL_EVENT_THREAD_FINISH: live(t, B(LIFE_RUNNING), LIFE_ENDED); break;
    case ABT_TOOL_EVENT_THREAD_CANCEL: live(t, B(LIFE_READY), LIFE_ENDED); break;
    case ABT_TOOL_EVENT_THREAD_JOIN: live(t, B(LIFE_ENDED) | B(LIFE_JOINED), LIFE_JOINED); break;
    case ABT_TOOL_EVENT_THREAD_REVIVE: live(t, B(LIFE_JOINED), LIFE_READY); break;
    case ABT_TOOL_EVENT_THREAD_FREE:
        /* Named: joined first; unnamed: freed as it ends (or never ran). */
        live(t, unnamed ? B(LIFE_ENDED) | B(LIFE_READY) : B(LIFE_JOINED) | B(LIFE_NEW), LIFE_NEW);
        forget(t);
        break;
    }
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
    follow_life(thread, event);
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
        kept_context = ctx;
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_CALLER_TYPE, &last_create_caller_type);
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_CALLER_HANDLE, &last_create_caller);
    }
    if (event == ABT_TOOL_EVENT_THREAD_YIELD) {
        ABT_sync_event_type type = ABT_SYNC_EVENT_TYPE_UNKNOWN;
        ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_SYNC_OBJECT_TYPE, &type);
        if (type == ABT_SYNC_EVENT_TYPE_THREAD_JOIN) {
            void *object = NULL;
            ABT_tool_query_thread(ctx, event, ABT_TOOL_QUERY_KIND_SYNC_OBJECT_HANDLE, &object);
            if (object == (void *)join_target) {
                __atomic_add_fetch(&join_yields, 1, __ATOMIC_RELAXED);
            } else {
                __atomic_add_fetch(&bad_context, 1, __ATOMIC_RELAXED);
            }
        } else if (type != ABT_SYNC_EVENT_TYPE_USER) {
            __atomic_add_fetch(&bad_context, 1, __ATOMIC_RELAXED);
        }
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

/* Yields straight to the ULT arg points to. */
static void yield_to_other(void *arg)
{
    ABT_thread *other = arg;
    ABT_thread_yield_to(*other);
}

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

    /* The known workload, on the primary stream alone. The main ULT is running. */
    live(main_ult, B(LIFE_NEW), LIFE_RUNNING);
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
    /* The ULTs run twice (before and after their yield), the tasklets once, and the main ULT
     * runs again after its yield and after its wait. */
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_RUN), 2 * NULTS + NTASKS + 2);
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
    CHECK_INT(bad_life, 0);

    /* Unnamed units are reported freed as they end; their descriptors serve the next units,
     * whose lives then start anew. */
    reset();
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < NULTS; i++) {
            CHECK_INT(ABT_thread_create(main_pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, NULL),
                      ABT_SUCCESS);
        }
        CHECK_INT(ABT_task_create(main_pool, nothing, NULL, NULL), ABT_SUCCESS);
        for (int spins = 0; count(ABT_TOOL_EVENT_THREAD_FREE) < (round + 1) * (NULTS + 1) &&
                            spins < 100000;
             spins++) {
            ABT_thread_yield();
        }
    }
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_FREE), 3 * (NULTS + 1));
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_FINISH), 3 * (NULTS + 1));
    CHECK_INT(count(ABT_TOOL_EVENT_THREAD_JOIN), 0);
    CHECK_INT(bad_life, 0);

    /* A direct switch (ABT_thread_yield_to): the caller yields, the target runs. */
    reset();
    {
        ABT_thread a, b;
        CHECK_INT(ABT_thread_create(main_pool, yield_to_other, &b, ABT_THREAD_ATTR_NULL, &a),
                  ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(main_pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, &b),
                  ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&a), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&b), ABT_SUCCESS);
        /* a runs, yields to b, which runs, yields; both run again and finish. */
        CHECK_INT(count(ABT_TOOL_EVENT_THREAD_YIELD), 2);
        CHECK(count(ABT_TOOL_EVENT_THREAD_RUN) >= 4);
        CHECK_INT(count(ABT_TOOL_EVENT_THREAD_FINISH), 2);
        CHECK_INT(bad_life, 0);
    }

    /* A ULT joining a tasklet that has not run yields until it has, as Argobots 1.2 joins a
     * tasklet: each yield says THREAD_JOIN and names the tasklet, and the joiner never
     * suspends. On one stream the main ULT yields once: the tasklet runs meanwhile. */
    reset();
    {
        ABT_task tk;
        CHECK_INT(ABT_task_create(main_pool, nothing, NULL, &tk), ABT_SUCCESS);
        join_target = tk;
        CHECK_INT(ABT_task_join(tk), ABT_SUCCESS);
        CHECK_INT(count(ABT_TOOL_EVENT_THREAD_YIELD), 1);
        CHECK_INT(join_yields, 1);
        CHECK_INT(count(ABT_TOOL_EVENT_THREAD_SUSPEND), 0);
        CHECK_INT(count(ABT_TOOL_EVENT_THREAD_JOIN), 1);
        CHECK_INT(ABT_task_free(&tk), ABT_SUCCESS);
        CHECK_INT(bad_context, 0);
        CHECK_INT(bad_life, 0);
    }

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
    /* Anything but the context of a running callback is refused, unread: a context kept past
     * its callback, a handle of another kind (a mutex once gave a garbage pool, which then
     * crashed ABT_pool_get_size), a pointer to any memory. */
    CHECK(kept_context != NULL);
    ABT_pool pool = ABT_POOL_NULL;
    CHECK_INT(ABT_tool_query_thread(kept_context, ABT_TOOL_EVENT_THREAD_CREATE,
                                    ABT_TOOL_QUERY_KIND_POOL, &pool),
              ABT_ERR_INV_TOOL_CONTEXT);
    ABT_mutex m;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_tool_query_thread((ABT_tool_context)m, ABT_TOOL_EVENT_THREAD_CREATE,
                                    ABT_TOOL_QUERY_KIND_POOL, &pool),
              ABT_ERR_INV_TOOL_CONTEXT);
    CHECK(pool == ABT_POOL_NULL);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    char garbage[64];
    memset(garbage, 0x5a, sizeof garbage);
    CHECK_INT(ABT_tool_query_thread((ABT_tool_context)garbage, ABT_TOOL_EVENT_THREAD_CREATE,
                                    ABT_TOOL_QUERY_KIND_STACK_DEPTH, &depth),
              ABT_ERR_INV_TOOL_CONTEXT);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    CHECK_INT(ABT_tool_register_thread_callback(on_event, 1, NULL), ABT_ERR_UNINITIALIZED);
    return check_summary();
}
