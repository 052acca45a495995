/* Timers: pure C, because a Go call (about 50 ns) would cost more than reading the clock. */
#include <time.h>
#include "abt.h"

double ABT_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1.0e-9;
}
