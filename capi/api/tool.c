//go:build goabt_c_engine
/* tool.c: the tool interface's entry points (ABT_tool_*), on when GOABT_TOOL says so at
 * ABT_init (goabt_rt.tool; off, they answer ABT_ERR_FEATURE_NA as a default native build does);
 * the events and their contexts: engine/tool.c. */
#include "args.h"
#include "engine/runtime.h"
#include "engine/tool.h"

int ABT_tool_register_thread_callback(ABT_tool_thread_callback_fn cb_func, uint64_t event_mask,
                                      void *user_arg)
{
    GOABT_CHECK_INIT();
    if (!goabt_rt.tool) return ABT_ERR_FEATURE_NA;
    goabt_tool_register(cb_func, event_mask, user_arg);
    return ABT_SUCCESS;
}

int ABT_tool_query_thread(ABT_tool_context context, uint64_t event, ABT_tool_query_kind query_kind,
                          void *val)
{
    (void)event;
    if (!goabt_rt.tool) return ABT_ERR_FEATURE_NA;
    return goabt_tool_query(context, query_kind, val);
}
