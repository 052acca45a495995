/*
 * tool.h: the tool interface's event sites (tool.c): what a registered tool (ABT_tool_*) and the
 * timeline trace (trace.h) hear of work units. Internal.
 */
#ifndef GOABT_TOOL_H
#define GOABT_TOOL_H

#include "common.h"

/* The tool interface (tool.c): the event bits someone listens to (0: nobody, the usual case):
 * the ABT_TOOL_EVENT_THREAD_* bits a registered tool asked for, and, while GOABT_TRACE is set,
 * the timeline trace's (trace.h); and what fires one. Every event site is GOABT_TOOL_EVENT: one
 * load and a branch not taken when nobody listens. Its arguments are evaluated only when the
 * event fires, so a site may compute them (what a unit blocks on, say) at no cost otherwise. */
extern uint64_t goabt_tool_mask GOABT_HIDDEN;
void goabt_tool_fire(goabt_unit *u, uint64_t event, goabt_pool *pool, int sync_type, void *sync)
    GOABT_HIDDEN;
/* No tool: each ABT_init starts without one, whatever the last finalize left. */
void goabt_tool_reset(void) GOABT_HIDDEN;
/* The trace listens (bits, what goabt_tool_mask carries for it) or stops (0): trace.c. */
void goabt_tool_set_trace(uint64_t bits) GOABT_HIDDEN;
/* A direct switch to a unit (unit_switch.c, goabt_unit_switch_to): the trace's own event,
 * outside the ABT_TOOL_EVENT_THREAD_* bits (Argobots has none); a tool that listens to runs
 * hears it as ABT_TOOL_EVENT_THREAD_RUN (tool.c). */
#define GOABT_TRACE_EVENT_SWITCH (1ull << 32)
#define GOABT_TOOL_EVENT_SYNC(u, event, pool, sync_type, sync)                                \
    do {                                                                                      \
        if (__builtin_expect((__atomic_load_n(&goabt_tool_mask, __ATOMIC_RELAXED) & (event)) != 0, 0)) { \
            goabt_tool_fire((u), (event), (pool), (sync_type), (sync));                       \
        }                                                                                     \
    } while (0)
#define GOABT_TOOL_EVENT(u, event, pool, sync_type) GOABT_TOOL_EVENT_SYNC(u, event, pool, sync_type, NULL)

/* ABT_tool_register_thread_callback, the tool interface being on: cb_func (NULL: none) hears
 * the events of event_mask from now on. */
void goabt_tool_register(ABT_tool_thread_callback_fn cb_func, uint64_t event_mask, void *user_arg)
    GOABT_HIDDEN;
/* ABT_tool_query_thread, the tool interface being on: ABT_ERR_INV_TOOL_CONTEXT unless context
 * is that of a callback running on this thread now. */
int goabt_tool_query(ABT_tool_context context, ABT_tool_query_kind query_kind, void *val)
    GOABT_HIDDEN;

#endif /* GOABT_TOOL_H */
