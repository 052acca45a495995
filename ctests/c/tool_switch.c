/* The tool interface is off unless GOABT_TOOL turns it on at ABT_init, as a default native
 * Argobots build (configured without --enable-tool) has none: clients such as Margo start a
 * profiler (one second of calibration per engine start) when the info query says there is one.
 *  - off (GOABT_TOOL unset, or a value that is neither yes nor no: one warning on stderr):
 *    ABT_INFO_QUERY_KIND_ENABLED_TOOL is ABT_FALSE, ABT_tool_register_thread_callback and
 *    ABT_tool_query_thread return ABT_ERR_FEATURE_NA, and no callback ever runs;
 *  - on (GOABT_TOOL=1): ABT_TRUE, the registration succeeds and a ULT's creation reaches the
 *    callback, whose context answers queries;
 *  - the switch is read at each outermost ABT_init: a second runtime round answers the same. */
// ctest-variant: off
// ctest-variant: on GOABT_TOOL=1
// ctest-variant: bad GOABT_TOOL=maybe
#include <stdlib.h>
#include <string.h>
#include <abt.h>
#include "check.h"

static int created, query_result = -1;

static void on_event(ABT_thread thread, ABT_xstream xstream, uint64_t event,
                     ABT_tool_context context, void *arg)
{
    (void)thread;
    (void)xstream;
    (void)arg;
    if (event != ABT_TOOL_EVENT_THREAD_CREATE) return;
    created++;
    ABT_pool pool = ABT_POOL_NULL;
    query_result = ABT_tool_query_thread(context, event, ABT_TOOL_QUERY_KIND_POOL, &pool);
}

static void nothing(void *arg) { (void)arg; }

static void round_of(int on)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_bool enabled = on ? ABT_FALSE : ABT_TRUE;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_TOOL, &enabled), ABT_SUCCESS);
    CHECK_INT(enabled, on ? ABT_TRUE : ABT_FALSE);
    CHECK_INT(ABT_tool_register_thread_callback(on_event, ABT_TOOL_EVENT_THREAD_ALL, NULL),
              on ? ABT_SUCCESS : ABT_ERR_FEATURE_NA);
    if (!on) {
        ABT_pool pool = ABT_POOL_NULL;
        int not_a_context;
        CHECK_INT(ABT_tool_query_thread((ABT_tool_context)&not_a_context,
                                        ABT_TOOL_EVENT_THREAD_CREATE, ABT_TOOL_QUERY_KIND_POOL,
                                        &pool),
                  ABT_ERR_FEATURE_NA);
    }
    created = 0;
    query_result = -1;
    ABT_xstream self;
    ABT_pool main_pool;
    ABT_thread t;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &main_pool), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(main_pool, nothing, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(created, on ? 1 : 0);
    CHECK_INT(query_result, on ? ABT_SUCCESS : -1);
    if (on) {
        CHECK_INT(ABT_tool_register_thread_callback(NULL, ABT_TOOL_EVENT_THREAD_NONE, NULL),
                  ABT_SUCCESS);
    }
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

int main(void)
{
    const char *v = getenv("GOABT_TOOL");
    int on = v != NULL && strcmp(v, "1") == 0;
    printf("GOABT_TOOL=%s: the interface is %s\n", v ? v : "(unset)", on ? "on" : "off");
    round_of(on);
    round_of(on);
    return check_summary();
}
