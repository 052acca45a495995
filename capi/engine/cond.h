/* cond.h: condition variables, the engine's side (cond.c: waiting and waking; the API's
 * entries: api/cond.c).
 *
 * A condition variable is 64 bytes that work from all zero (ABT_cond_memory with
 * ABT_COND_INITIALIZER). Waiters queue in a wait list under the spinlock `lock` (wait.h): a ULT
 * parks, an external thread sleeps; a timed wait carries its deadline. A waiter is queued, under
 * the lock, before it releases the mutex, so a signal sent by anyone who then takes the mutex
 * finds it: no wake-up is lost, and none is spurious (a wait returns only when signalled or timed
 * out). All waiters at once must use one mutex, as in Argobots: the cond remembers it while
 * anyone waits. */
#ifndef GOABT_ENGINE_COND_H
#define GOABT_ENGINE_COND_H

#include <stdint.h>
#include "common.h"
#include "mutex.h"
#include "wait.h"

struct ABT_cond_opaque {
    uint32_t flags;
    uint32_t magic; /* GOABT_MAGIC_COND, or in static memory 0 then its static magic */
    int lock;       /* spinlock over the fields below */
    int pad;
    goabt_mutex *mutex;     /* the mutex the current waiters use, NULL when none waits */
    goabt_waitlist waiters; /* FIFO */
};
_Static_assert(sizeof(struct ABT_cond_opaque) <= sizeof(ABT_cond_memory),
               "a condition variable must fit ABT_cond_memory");

typedef struct ABT_cond_opaque goabt_cond;

/* Whether anyone waits on c (ABT_cond_free refuses it then: they would never be woken). */
int goabt_cond_waited(goabt_cond *c) GOABT_HIDDEN;

/* Waits on c with m held by the caller, until signalled or (deadline != 0) the deadline:
 * ABT_SUCCESS, ABT_ERR_COND_TIMEDOUT, or ABT_ERR_INV_MUTEX if other waiters use another mutex.
 * m is held again on return, with its recursive levels. */
int goabt_cond_wait(goabt_cond *c, goabt_mutex *m, uint64_t deadline) GOABT_HIDDEN;

/* The slow path of goabt_cond_wake (cond.c): someone may wait. */
void goabt_cond_wake_queued(goabt_cond *c, int all) GOABT_HIDDEN;

/* Wakes one waiter of c (all of them with all). Nobody waits: nothing to take the lock for. A
 * waiter queues before it releases the mutex, so a signaller that holds the mutex (or took it
 * after the waiter released it) sees it. */
static inline void goabt_cond_wake(goabt_cond *c, int all)
{
    if (__atomic_load_n(&c->waiters.head, __ATOMIC_ACQUIRE) == NULL) return;
    goabt_cond_wake_queued(c, all);
}

#endif /* GOABT_ENGINE_COND_H */
