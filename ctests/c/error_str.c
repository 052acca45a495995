/* ABT_error_get_str, ABT_initialized and ABT_get_wtime: the functions that work before ABT_init. */
#include <abt.h>
#include "check.h"

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
    return check_summary();
}
