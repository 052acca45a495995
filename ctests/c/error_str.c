/* ABT_error_get_str, ABT_initialized and ABT_get_wtime: the functions that work before ABT_init;
 * then ABT_error_get_str from ULTs on two streams (the names come from Go, reached through the
 * gate from a ULT's stack). */
#include <abt.h>
#include "check.h"

static int names_right;

static void ask_names(void *arg)
{
    (void)arg;
    char buf[64];
    for (int i = 0; i < 500; i++) {
        if (ABT_error_get_str(ABT_ERR_INV_KEY, buf, NULL) == ABT_SUCCESS &&
            strcmp(buf, "ABT_ERR_INV_KEY") == 0) {
            __atomic_add_fetch(&names_right, 1, __ATOMIC_RELAXED);
        }
        if (i % 100 == 0) ABT_thread_yield();
    }
}

int main(void)
{
    char buf[64];
    size_t len = 0;

    CHECK_INT(ABT_error_get_str(ABT_SUCCESS, buf, &len), ABT_SUCCESS);
    CHECK_STR(buf, "ABT_SUCCESS");
    CHECK_INT(len, strlen("ABT_SUCCESS"));

    CHECK_INT(ABT_error_get_str(ABT_ERR_FEATURE_NA, buf, &len), ABT_SUCCESS);
    CHECK_STR(buf, "ABT_ERR_FEATURE_NA");
    CHECK_INT(len, strlen("ABT_ERR_FEATURE_NA"));

    /* Only the length: str may be NULL. */
    len = 0;
    CHECK_INT(ABT_error_get_str(ABT_ERR_INV_ARG, NULL, &len), ABT_SUCCESS);
    CHECK_INT(len, strlen("ABT_ERR_INV_ARG"));

    /* Only the string: len may be NULL. */
    CHECK_INT(ABT_error_get_str(ABT_ERR_UNINITIALIZED, buf, NULL), ABT_SUCCESS);
    CHECK_STR(buf, "ABT_ERR_UNINITIALIZED");

    /* Unknown codes are refused and the buffer is left alone. */
    strcpy(buf, "untouched");
    len = 7;
    CHECK_INT(ABT_error_get_str(-1, buf, &len), ABT_ERR_OTHER);
    CHECK_INT(ABT_error_get_str(58, buf, &len), ABT_ERR_OTHER);
    CHECK_STR(buf, "untouched");
    CHECK_INT(len, 7);

    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);

    double t0 = ABT_get_wtime();
    double t1 = ABT_get_wtime();
    CHECK(t0 > 0.0);
    CHECK(t1 >= t0);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream xs[2];
    ABT_pool pools[2];
    CHECK_INT(ABT_xstream_self(&xs[0]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs[1]), ABT_SUCCESS);
    ABT_thread ults[4];
    for (int i = 0; i < 2; i++) ABT_xstream_get_main_pools(xs[i], 1, &pools[i]);
    for (int i = 0; i < 4; i++) {
        CHECK_INT(ABT_thread_create(pools[i % 2], ask_names, NULL, ABT_THREAD_ATTR_NULL, &ults[i]),
                  ABT_SUCCESS);
    }
    for (int i = 0; i < 4; i++) CHECK_INT(ABT_thread_free(&ults[i]), ABT_SUCCESS);
    CHECK_INT(names_right, 4 * 500);
    CHECK_INT(ABT_xstream_free(&xs[1]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
