/* barrier.h: barriers of work units, the engine's side (barrier.c: rounds, waiting; the API's
 * entries: api/barrier.c), and a barrier's rounds, shared with barriers of execution streams
 * (xstream_barrier.h), which differ only in how a waiter waits.
 *
 * State under the object's spinlock: the number of waiters a round needs, how many have arrived
 * in the current round, and the wait list of those blocked (wait.h: ULTs park, external threads
 * sleep on a futex). The last arrival of a round wakes every waiter, in arrival order, and
 * starts the next round at once: a released waiter may arrive again before the others have run.
 */
#ifndef GOABT_ENGINE_BARRIER_H
#define GOABT_ENGINE_BARRIER_H

#include <stdint.h>
#include "common.h"
#include "wait.h"

typedef struct goabt_barrier_round {
    int lock;                /* spinlock over the fields below */
    uint32_t num_waiters;    /* arrivals that open the barrier, > 0; atomic reads */
    uint32_t arrived;        /* arrivals in the current round, < num_waiters */
    goabt_waitlist waiters;  /* the arrived ones, blocked */
} goabt_barrier_round;

/* Arrives at r and waits until the round's last arrival, which wakes everyone (in arrival
 * order) and starts the next round at once. as_thread: wait as an OS thread even on a ULT, so
 * that the stream runs nothing else meanwhile. */
void goabt_barrier_round_wait(goabt_barrier_round *r, int as_thread) GOABT_HIDDEN;
/* Whether a round is under way (some arrived and wait): then it may not be freed or changed. */
int goabt_barrier_round_busy(goabt_barrier_round *r) GOABT_HIDDEN;

struct ABT_barrier_opaque {
    uint32_t flags;
    uint32_t magic;
    goabt_barrier_round round;
};
typedef struct ABT_barrier_opaque goabt_barrier;

/* Sets the number of waiters a round of b needs: ABT_SUCCESS, or ABT_ERR_BARRIER with a round
 * under way (the waiters' count would change under them; undefined in Argobots). */
int goabt_barrier_reinit(goabt_barrier *b, uint32_t num_waiters) GOABT_HIDDEN;

/* Arrives at b and waits for the round's last arrival (a ULT parks). */
static inline void goabt_barrier_wait(goabt_barrier *b)
{
    goabt_barrier_round_wait(&b->round, 0);
}

/* Whether a round of b is under way (ABT_barrier_free refuses it then). */
static inline int goabt_barrier_busy(goabt_barrier *b)
{
    return goabt_barrier_round_busy(&b->round);
}

static inline uint32_t goabt_barrier_num_waiters(goabt_barrier *b)
{
    return __atomic_load_n(&b->round.num_waiters, __ATOMIC_RELAXED);
}

#endif /* GOABT_ENGINE_BARRIER_H */
