/* ABT_timer_*: create, start/stop/read, stop_and_read, stop_and_add, dup, free, get_overhead and
 * the error codes for invalid timers and NULL outputs. Everything runs without ABT_init. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include <abt.h>
#include "check.h"

/* sleep_10ms sleeps at least 10 ms, resuming after signals. */
static void sleep_10ms(void)
{
    struct timespec req = {0, 10 * 1000 * 1000}, rem;
    while (nanosleep(&req, &rem) != 0)
        req = rem;
}

int main(void)
{
    ABT_timer timer = ABT_TIMER_NULL, copy = ABT_TIMER_NULL;
    double secs = -1.0, copy_secs = -1.0, sum = 0.0, overhead = -1.0;

    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);

    /* create, start, stop, read over a 10 ms sleep. */
    CHECK_INT(ABT_timer_create(&timer), ABT_SUCCESS);
    CHECK(timer != ABT_TIMER_NULL && timer != NULL);
    CHECK_INT(ABT_timer_start(timer), ABT_SUCCESS);
    sleep_10ms();
    CHECK_INT(ABT_timer_stop(timer), ABT_SUCCESS);
    CHECK_INT(ABT_timer_read(timer, &secs), ABT_SUCCESS);
    CHECK(secs > 0.009 && secs < 1.0);

    /* read does not change the interval; stop does. */
    CHECK_INT(ABT_timer_read(timer, &copy_secs), ABT_SUCCESS);
    CHECK(copy_secs == secs);

    /* dup copies the start and stop times. */
    CHECK_INT(ABT_timer_dup(timer, &copy), ABT_SUCCESS);
    CHECK(copy != ABT_TIMER_NULL && copy != NULL && copy != timer);
    copy_secs = -1.0;
    CHECK_INT(ABT_timer_read(copy, &copy_secs), ABT_SUCCESS);
    CHECK(copy_secs == secs);
    /* The copy is independent: restarting it leaves the original alone. */
    CHECK_INT(ABT_timer_start(copy), ABT_SUCCESS);
    CHECK_INT(ABT_timer_stop(copy), ABT_SUCCESS);
    CHECK_INT(ABT_timer_read(copy, &copy_secs), ABT_SUCCESS);
    CHECK(copy_secs >= 0.0);
    CHECK_INT(ABT_timer_read(timer, &copy_secs), ABT_SUCCESS);
    CHECK(copy_secs == secs);

    /* stop_and_read. */
    secs = -1.0;
    CHECK_INT(ABT_timer_start(timer), ABT_SUCCESS);
    sleep_10ms();
    CHECK_INT(ABT_timer_stop_and_read(timer, &secs), ABT_SUCCESS);
    CHECK(secs > 0.009 && secs < 1.0);
    /* It stopped the timer: read gives the same interval. */
    CHECK_INT(ABT_timer_read(timer, &copy_secs), ABT_SUCCESS);
    CHECK(copy_secs == secs);

    /* stop_and_add accumulates over two intervals. */
    CHECK_INT(ABT_timer_start(timer), ABT_SUCCESS);
    sleep_10ms();
    CHECK_INT(ABT_timer_stop_and_add(timer, &sum), ABT_SUCCESS);
    CHECK(sum > 0.009 && sum < 1.0);
    double first = sum;
    CHECK_INT(ABT_timer_read(timer, &secs), ABT_SUCCESS);
    CHECK(secs == first);
    CHECK_INT(ABT_timer_start(timer), ABT_SUCCESS);
    sleep_10ms();
    CHECK_INT(ABT_timer_stop_and_add(timer, &sum), ABT_SUCCESS);
    CHECK_INT(ABT_timer_read(timer, &secs), ABT_SUCCESS);
    CHECK(secs > 0.009 && secs < 1.0);
    CHECK(sum == first + secs);
    CHECK(sum > 0.018 && sum < 2.0);

    /* get_overhead: non-negative and small (the bound, 10 ms a cycle, survives any load). */
    CHECK_INT(ABT_timer_get_overhead(&overhead), ABT_SUCCESS);
    CHECK(overhead >= 0.0 && overhead < 0.01);

    /* free sets the handle to ABT_TIMER_NULL; freeing again is refused. */
    CHECK_INT(ABT_timer_free(&copy), ABT_SUCCESS);
    CHECK(copy == ABT_TIMER_NULL);
    CHECK_INT(ABT_timer_free(&copy), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_free(&timer), ABT_SUCCESS);
    CHECK(timer == ABT_TIMER_NULL);

    /* Every function refuses ABT_TIMER_NULL and NULL timers. */
    secs = 1.5;
    copy = (ABT_timer)&secs; /* garbage, must be overwritten */
    CHECK_INT(ABT_timer_dup(ABT_TIMER_NULL, &copy), ABT_ERR_INV_TIMER);
    CHECK(copy == ABT_TIMER_NULL);
    copy = (ABT_timer)&secs;
    CHECK_INT(ABT_timer_dup(NULL, &copy), ABT_ERR_INV_TIMER);
    CHECK(copy == ABT_TIMER_NULL);
    CHECK_INT(ABT_timer_free(&timer), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_free(NULL), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_start(ABT_TIMER_NULL), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_start(NULL), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_stop(ABT_TIMER_NULL), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_stop(NULL), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_read(ABT_TIMER_NULL, &secs), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_read(NULL, &secs), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_stop_and_read(ABT_TIMER_NULL, &secs), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_stop_and_read(NULL, &secs), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_stop_and_add(ABT_TIMER_NULL, &secs), ABT_ERR_INV_TIMER);
    CHECK_INT(ABT_timer_stop_and_add(NULL, &secs), ABT_ERR_INV_TIMER);
    CHECK(secs == 1.5); /* untouched by the refused calls */

    /* NULL outputs are refused with ABT_ERR_INV_ARG. */
    CHECK_INT(ABT_timer_create(NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_timer_get_overhead(NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_timer_create(&timer), ABT_SUCCESS);
    CHECK_INT(ABT_timer_start(timer), ABT_SUCCESS);
    CHECK_INT(ABT_timer_stop(timer), ABT_SUCCESS);
    CHECK_INT(ABT_timer_dup(timer, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_timer_read(timer, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_timer_stop_and_read(timer, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_timer_stop_and_add(timer, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_timer_free(&timer), ABT_SUCCESS);
    CHECK(timer == ABT_TIMER_NULL);

    /* Still not initialized: none of the above needed ABT_init. */
    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);
    return check_summary();
}
