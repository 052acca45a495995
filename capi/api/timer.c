//go:build goabt_c_engine
/* Timers: C, because a Go call (about 50 ns) would cost more than reading the clock. None of
 * these functions needs ABT_init. A timer is an object (object.h): its memory stays readable
 * once freed, so a freed handle is refused by its magic like every other kind's, and so are
 * NULL handles of any kind (every ABT_*_NULL is below 4096), and every handle in a forked
 * child, where timers are refused like everything else (runtime.h, goabt_forked). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/wait.h"

struct ABT_timer_opaque {
    uint32_t flags;
    uint32_t magic;
    struct timespec start;
    struct timespec stop;
};

/* timer_valid reports whether timer is a handle to a live timer. */
static inline int timer_valid(ABT_timer timer)
{
    return goabt_object_of(timer, GOABT_MAGIC_TIMER, 0) != NULL;
}

static inline double timer_elapsed(const struct ABT_timer_opaque *t)
{
    return (double)(t->stop.tv_sec - t->start.tv_sec) +
           (double)(t->stop.tv_nsec - t->start.tv_nsec) * 1.0e-9;
}

double ABT_get_wtime(void) { return goabt_wtime(); }

int ABT_timer_create(ABT_timer *newtimer)
{
    GOABT_CHECK_NOT_FORKED();
    GOABT_CHECK_OUT(newtimer);
    struct ABT_timer_opaque *t = goabt_object_new(sizeof *t, GOABT_MAGIC_TIMER);
    if (t == NULL) {
        *newtimer = ABT_TIMER_NULL;
        return ABT_ERR_MEM;
    }
    *newtimer = t;
    return ABT_SUCCESS;
}

int ABT_timer_dup(ABT_timer timer, ABT_timer *newtimer)
{
    GOABT_CHECK_OUT(newtimer);
    *newtimer = ABT_TIMER_NULL;
    GOABT_CHECK_TRUE(timer_valid(timer), ABT_ERR_INV_TIMER);
    struct ABT_timer_opaque *t = goabt_object_new(sizeof *t, GOABT_MAGIC_TIMER);
    if (t == NULL) return ABT_ERR_MEM;
    t->start = timer->start;
    t->stop = timer->stop;
    *newtimer = t;
    return ABT_SUCCESS;
}

int ABT_timer_free(ABT_timer *timer)
{
    GOABT_CHECK_TRUE(timer != NULL && timer_valid(*timer), ABT_ERR_INV_TIMER);
    goabt_object_delete(*timer, sizeof **timer);
    *timer = ABT_TIMER_NULL;
    return ABT_SUCCESS;
}

int ABT_timer_start(ABT_timer timer)
{
    GOABT_CHECK_TRUE(timer_valid(timer), ABT_ERR_INV_TIMER);
    clock_gettime(CLOCK_MONOTONIC, &timer->start);
    return ABT_SUCCESS;
}

int ABT_timer_stop(ABT_timer timer)
{
    GOABT_CHECK_TRUE(timer_valid(timer), ABT_ERR_INV_TIMER);
    clock_gettime(CLOCK_MONOTONIC, &timer->stop);
    return ABT_SUCCESS;
}

int ABT_timer_read(ABT_timer timer, double *secs)
{
    GOABT_CHECK_TRUE(timer_valid(timer), ABT_ERR_INV_TIMER);
    GOABT_CHECK_OUT(secs);
    *secs = timer_elapsed(timer);
    return ABT_SUCCESS;
}

int ABT_timer_stop_and_read(ABT_timer timer, double *secs)
{
    GOABT_CHECK_TRUE(timer_valid(timer), ABT_ERR_INV_TIMER);
    GOABT_CHECK_OUT(secs);
    clock_gettime(CLOCK_MONOTONIC, &timer->stop);
    *secs = timer_elapsed(timer);
    return ABT_SUCCESS;
}

int ABT_timer_stop_and_add(ABT_timer timer, double *secs)
{
    GOABT_CHECK_TRUE(timer_valid(timer), ABT_ERR_INV_TIMER);
    GOABT_CHECK_OUT(secs);
    clock_gettime(CLOCK_MONOTONIC, &timer->stop);
    *secs += timer_elapsed(timer);
    return ABT_SUCCESS;
}

/* OVERHEAD_ITERATIONS start/stop/read cycles are timed as a whole and averaged. */
#define OVERHEAD_ITERATIONS 5000

int ABT_timer_get_overhead(double *overhead)
{
    GOABT_CHECK_NOT_FORKED();
    GOABT_CHECK_OUT(overhead);
    struct ABT_timer_opaque t = {.magic = GOABT_MAGIC_TIMER};
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
