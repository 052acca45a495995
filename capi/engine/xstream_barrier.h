/* xstream_barrier.h: barriers of execution streams, the engine's side (the rounds: barrier.h
 * and barrier.c; the API's entries: api/xstream_barrier.c).
 *
 * Like a work-unit barrier (barrier.h), with one difference: a waiter blocks its whole stream.
 * Whoever waits, ULT (the main ULT included), tasklet or external thread, sleeps as an OS thread
 * on its waiter's futex word instead of parking, so the stream runs nothing else until the
 * barrier opens; that is what Argobots 1.2 does (a pthread barrier) and what callers of it rely
 * on, e.g. to keep every stream out of its scheduler at once. The last arrival of a round wakes
 * every waiter and starts the next round.
 */
#ifndef GOABT_ENGINE_XSTREAM_BARRIER_H
#define GOABT_ENGINE_XSTREAM_BARRIER_H

#include <stdint.h>
#include "barrier.h"
#include "common.h"

struct ABT_xstream_barrier_opaque {
    uint32_t flags;
    uint32_t magic;
    goabt_barrier_round round;
};
typedef struct ABT_xstream_barrier_opaque goabt_xbarrier;

/* Arrives at b and waits, as an OS thread, for the round's last arrival: the stream must not
 * run others meanwhile. */
static inline void goabt_xstream_barrier_wait(goabt_xbarrier *b)
{
    goabt_barrier_round_wait(&b->round, 1);
}

/* Whether a round is under way (ABT_xstream_barrier_free refuses it then: its waiters would
 * never wake). */
static inline int goabt_xstream_barrier_busy(goabt_xbarrier *b)
{
    return goabt_barrier_round_busy(&b->round);
}

#endif /* GOABT_ENGINE_XSTREAM_BARRIER_H */
