/* Timers: pure C, because a Go call (about 50 ns) would cost more than reading the clock. None of
 * these functions needs ABT_init. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime even under -std=c99 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "abt.h"

/* TIMER_MAGIC marks a live timer; ABT_timer_free clears it before freeing. Only NULL and
 * ABT_TIMER_NULL handles are caught for sure: a freed timer's memory cannot be read safely, so the
 * magic check only helps while that memory has not been reused or returned. */
#define TIMER_MAGIC 0x74696d6572616274ULL /* "timerabt" */

struct ABT_timer_opaque {
    uint64_t magic;
    struct timespec start;
    struct timespec stop;
};

/* timer_valid reports whether timer is a handle to a live timer. */
static inline int timer_valid(ABT_timer timer)
{
    return timer != NULL && timer != ABT_TIMER_NULL && timer->magic == TIMER_MAGIC;
}

static inline double timer_elapsed(const struct ABT_timer_opaque *t)
{
    return (double)(t->stop.tv_sec - t->start.tv_sec) +
           (double)(t->stop.tv_nsec - t->start.tv_nsec) * 1.0e-9;
}

double ABT_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1.0e-9;
}

int ABT_timer_create(ABT_timer *newtimer)
{
    if (newtimer == NULL)
        return ABT_ERR_INV_ARG;
    struct ABT_timer_opaque *t = malloc(sizeof *t);
    if (t == NULL) {
        *newtimer = ABT_TIMER_NULL;
        return ABT_ERR_MEM;
    }
    t->magic = TIMER_MAGIC;
    t->start.tv_sec = t->stop.tv_sec = 0;
    t->start.tv_nsec = t->stop.tv_nsec = 0;
    *newtimer = t;
    return ABT_SUCCESS;
}

int ABT_timer_dup(ABT_timer timer, ABT_timer *newtimer)
{
    if (newtimer == NULL)
        return ABT_ERR_INV_ARG;
    if (!timer_valid(timer)) {
        *newtimer = ABT_TIMER_NULL;
        return ABT_ERR_INV_TIMER;
    }
    struct ABT_timer_opaque *t = malloc(sizeof *t);
    if (t == NULL) {
        *newtimer = ABT_TIMER_NULL;
        return ABT_ERR_MEM;
    }
    *t = *timer;
    *newtimer = t;
    return ABT_SUCCESS;
}

int ABT_timer_free(ABT_timer *timer)
{
    if (timer == NULL || !timer_valid(*timer))
        return ABT_ERR_INV_TIMER;
    /* "FREE" in the second 32-bit word, which no live object of goabt leaves 0 (object.h). */
    (*timer)->magic = 0x46524545ULL << 32;
    free(*timer);
    *timer = ABT_TIMER_NULL;
    return ABT_SUCCESS;
}

int ABT_timer_start(ABT_timer timer)
{
    if (!timer_valid(timer))
        return ABT_ERR_INV_TIMER;
    clock_gettime(CLOCK_MONOTONIC, &timer->start);
    return ABT_SUCCESS;
}

int ABT_timer_stop(ABT_timer timer)
{
    if (!timer_valid(timer))
        return ABT_ERR_INV_TIMER;
    clock_gettime(CLOCK_MONOTONIC, &timer->stop);
    return ABT_SUCCESS;
}

int ABT_timer_read(ABT_timer timer, double *secs)
{
    if (!timer_valid(timer))
        return ABT_ERR_INV_TIMER;
    if (secs == NULL)
        return ABT_ERR_INV_ARG;
    *secs = timer_elapsed(timer);
    return ABT_SUCCESS;
}

int ABT_timer_stop_and_read(ABT_timer timer, double *secs)
{
    if (!timer_valid(timer))
        return ABT_ERR_INV_TIMER;
    if (secs == NULL)
        return ABT_ERR_INV_ARG;
    clock_gettime(CLOCK_MONOTONIC, &timer->stop);
    *secs = timer_elapsed(timer);
    return ABT_SUCCESS;
}

int ABT_timer_stop_and_add(ABT_timer timer, double *secs)
{
    if (!timer_valid(timer))
        return ABT_ERR_INV_TIMER;
    if (secs == NULL)
        return ABT_ERR_INV_ARG;
    clock_gettime(CLOCK_MONOTONIC, &timer->stop);
    *secs += timer_elapsed(timer);
    return ABT_SUCCESS;
}

/* OVERHEAD_ITERATIONS start/stop/read cycles are timed as a whole and averaged. */
#define OVERHEAD_ITERATIONS 5000

int ABT_timer_get_overhead(double *overhead)
{
    if (overhead == NULL)
        return ABT_ERR_INV_ARG;
    struct ABT_timer_opaque t = {.magic = TIMER_MAGIC};
    volatile double sink = 0.0;
    double secs = 0.0;
    double begin = ABT_get_wtime();
    for (int i = 0; i < OVERHEAD_ITERATIONS; i++) {
        ABT_timer_start(&t);
        ABT_timer_stop(&t);
        ABT_timer_read(&t, &secs);
        sink += secs;
    }
    double avg = (ABT_get_wtime() - begin) / OVERHEAD_ITERATIONS;
    (void)sink;
    *overhead = avg > 0.0 ? avg : 0.0;
    return ABT_SUCCESS;
}
