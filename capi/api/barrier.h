/* barrier.h: a barrier's rounds, shared by barriers of work units (barrier.c) and of execution
 * streams (xstream_barrier.c), which differ only in how a waiter waits. */
#ifndef GOABT_BARRIER_H
#define GOABT_BARRIER_H

#include "engine/common.h"
#include "engine/wait.h"

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

#endif /* GOABT_BARRIER_H */
