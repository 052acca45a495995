//go:build goabt_c_engine
/* tool.c: the tool interface's engine (the entries, ABT_tool_*, are api/tool.c): a tool's
 * callback sees work-unit events, and asks about each one through its context. It is off unless GOABT_TOOL says yes at ABT_init
 * (goabt_rt.tool): a default native build has none, and clients that see one start profilers.
 *
 * Every event site tests one word, goabt_tool_mask, the events a tool asked for (tool.h,
 * GOABT_TOOL_EVENT): 0 when no tool is registered, so that a program without a tool pays one
 * load and a branch that is never taken per event. A fired event builds its context on the
 * firing thread's stack; it is valid only during the callback. The caller is the unit running
 * on the firing thread (a creator, a joiner, the parent of a unit run on top of a ULT), or an
 * external thread, or, for events the scheduler itself fires (run, and what a unit asked for
 * when it switched out: yield, finish), nobody: ABT_EXEC_ENTITY_TYPE_EXT with no handle, since
 * goabt's schedulers are no work units.
 *
 * The timeline trace (GOABT_TRACE, trace.h) listens at the same sites: goabt_tool_mask is the
 * tool's bits or'ed with the trace's, and a fired event is recorded for the trace (if it asked)
 * before the tool's callback runs (if the tool asked). */
#include "pool.h"
#include "runtime.h"
#include "stream.h"
#include "tool.h"
#include "trace.h"
#include "unit.h"

uint64_t goabt_tool_mask;
/* What each listener asked for; the mask is their union (written under tool_lock). */
static uint64_t tool_bits;
static uint64_t trace_bits;

/* The contexts of the callbacks running on this thread, innermost first (a callback that
 * creates a unit fires an event inside its own): a callback runs on the thread that fired its
 * event and must not switch, so the list is the thread's own. */
static __thread struct ABT_tool_context_opaque *live_contexts;

/* The registered callback and its argument, under tool_lock for writers; readers read them
 * after the mask (a callback replaced while events fire may see the old argument once). */
static int tool_lock;
static ABT_tool_thread_callback_fn tool_cb;
static void *tool_arg;

struct ABT_tool_context_opaque {
    struct ABT_tool_context_opaque *outer; /* the context of the callback this one fired in */
    goabt_pool *pool;
    goabt_unit *caller; /* NULL: an external thread or a scheduler */
    int depth;          /* child runs in progress on the firing stream */
    int sync_type;      /* ABT_sync_event_type */
    void *sync;         /* the object's handle, or NULL */
};

void goabt_tool_fire(goabt_unit *u, uint64_t event, goabt_pool *pool, int sync_type, void *sync)
{
    if (__atomic_load_n(&trace_bits, __ATOMIC_RELAXED) & event) {
        goabt_trace_event(u, event, sync_type, sync);
    }
    if (!(__atomic_load_n(&tool_bits, __ATOMIC_RELAXED) & event)) return;
    if (event == GOABT_TRACE_EVENT_SWITCH) event = ABT_TOOL_EVENT_THREAD_RUN; /* for a tool */
    ABT_tool_thread_callback_fn cb = __atomic_load_n(&tool_cb, __ATOMIC_ACQUIRE);
    void *arg = __atomic_load_n(&tool_arg, __ATOMIC_ACQUIRE);
    if (cb == NULL) return;
    goabt_stream *s = goabt_self_stream();
    struct ABT_tool_context_opaque ctx = {
        .pool = pool,
        .caller = s != NULL ? s->current : NULL,
        .depth = s != NULL ? s->nested : 0,
        .sync_type = sync_type,
        .sync = sync,
    };
    if (ctx.caller == u) ctx.caller = NULL; /* the unit itself reports: its scheduler fired it */
    ctx.outer = live_contexts;
    live_contexts = &ctx;
    cb(u, s != NULL ? s : ABT_XSTREAM_NULL, event, &ctx, arg);
    live_contexts = ctx.outer;
}

/* Whether c is the context of a callback running on this thread now. Contexts are found by
 * address, never read before they are found: a stale one, or any other pointer (a handle of
 * another kind, garbage), is refused without touching the memory it points to. */
static int context_live(const struct ABT_tool_context_opaque *c)
{
    for (const struct ABT_tool_context_opaque *l = live_contexts; l != NULL; l = l->outer) {
        if (l == c) return 1;
    }
    return 0;
}

void goabt_tool_reset(void)
{
    goabt_spin_lock(&tool_lock);
    __atomic_store_n(&tool_bits, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&goabt_tool_mask, trace_bits, __ATOMIC_RELEASE);
    __atomic_store_n(&tool_cb, NULL, __ATOMIC_RELEASE);
    goabt_spin_unlock(&tool_lock);
}

void goabt_tool_set_trace(uint64_t bits)
{
    goabt_spin_lock(&tool_lock);
    __atomic_store_n(&trace_bits, bits, __ATOMIC_RELAXED);
    __atomic_store_n(&goabt_tool_mask, tool_bits | bits, __ATOMIC_RELEASE);
    goabt_spin_unlock(&tool_lock);
}

void goabt_tool_register(ABT_tool_thread_callback_fn cb_func, uint64_t event_mask, void *user_arg)
{
    goabt_spin_lock(&tool_lock);
    if (cb_func == NULL) {
        __atomic_store_n(&tool_bits, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&goabt_tool_mask, trace_bits, __ATOMIC_RELEASE);
        __atomic_store_n(&tool_cb, NULL, __ATOMIC_RELEASE);
    } else {
        uint64_t bits = event_mask & ABT_TOOL_EVENT_THREAD_ALL;
        /* A direct switch (yield_to, resume_to, create_to ...) runs its target: a tool that
         * listens to runs hears of it as a run. */
        if (bits & ABT_TOOL_EVENT_THREAD_RUN) bits |= GOABT_TRACE_EVENT_SWITCH;
        __atomic_store_n(&tool_arg, user_arg, __ATOMIC_RELEASE);
        __atomic_store_n(&tool_cb, cb_func, __ATOMIC_RELEASE);
        __atomic_store_n(&tool_bits, bits, __ATOMIC_RELAXED);
        __atomic_store_n(&goabt_tool_mask, bits | trace_bits, __ATOMIC_RELEASE);
    }
    goabt_spin_unlock(&tool_lock);
}

int goabt_tool_query(ABT_tool_context context, ABT_tool_query_kind query_kind, void *val)
{
    struct ABT_tool_context_opaque *c = context;
    /* In a forked child no callback runs: a context there is one of the parent's. */
    if ((uintptr_t)context < 4096 || goabt_forked() || !context_live(c)) {
        return ABT_ERR_INV_TOOL_CONTEXT;
    }
    if (val == NULL) return ABT_ERR_INV_ARG;
    switch (query_kind) {
    case ABT_TOOL_QUERY_KIND_POOL:
        *(ABT_pool *)val = c->pool != NULL ? c->pool : ABT_POOL_NULL;
        break;
    case ABT_TOOL_QUERY_KIND_STACK_DEPTH:
        *(int *)val = c->depth;
        break;
    case ABT_TOOL_QUERY_KIND_CALLER_TYPE:
        *(ABT_exec_entity_type *)val =
            c->caller != NULL ? ABT_EXEC_ENTITY_TYPE_THREAD : ABT_EXEC_ENTITY_TYPE_EXT;
        break;
    case ABT_TOOL_QUERY_KIND_CALLER_HANDLE:
        if (c->caller != NULL) {
            *(ABT_thread *)val = c->caller;
        } else {
            *(void **)val = NULL;
        }
        break;
    case ABT_TOOL_QUERY_KIND_SYNC_OBJECT_TYPE:
        *(ABT_sync_event_type *)val = (ABT_sync_event_type)c->sync_type;
        break;
    case ABT_TOOL_QUERY_KIND_SYNC_OBJECT_HANDLE:
        *(void **)val = c->sync;
        break;
    default:
        return ABT_ERR_INV_QUERY_KIND;
    }
    return ABT_SUCCESS;
}
