/* future.h: futures, the engine's side (future.c: waiting, setting, completing; the API's
 * entries: api/future.c): ready once each of their compartments has been set.
 *
 * State under the object's spinlock: how many compartments are set, the values in set order,
 * whether it is ready, and the wait list of those blocked (wait.h: ULTs park, the main ULT
 * included; external threads sleep on a futex). The set that fills the last compartment runs
 * the callback with the values, then marks the future ready and wakes every waiter, so no
 * waiter returns before the callback has run (as in Argobots).
 *
 * The callback is user code: it runs without the spinlock (it may block, yield, or call
 * ABT_future_* on this very future). Meanwhile the future is "completing": every compartment is
 * taken, so a further set fails as on a ready future, and a reset is deferred until the
 * callback's set has made the future ready and woken its waiters (the order Argobots would give,
 * where the reset waits for the set's lock); the values array stays the callback's alone.
 */
#ifndef GOABT_ENGINE_FUTURE_H
#define GOABT_ENGINE_FUTURE_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"
#include "wait.h"

struct ABT_future_opaque {
    uint32_t flags;
    uint32_t magic;
    int lock;                /* spinlock over the fields below */
    int ready;               /* atomic reads (test) */
    uint32_t num;            /* compartments */
    uint32_t count;          /* compartments set, <= num */
    int completing;          /* the last set runs the callback */
    int reset_pending;       /* a reset came while completing */
    void (*callback)(void **);
    void **values;           /* inline_values, or malloc'd when they do not fit */
    goabt_waitlist waiters;  /* blocked in wait */
    void *inline_values[];
};
typedef struct ABT_future_opaque goabt_future;

#define FUTURE_OBJECT_MAX 256 /* the largest object size class (object.c) */
#define FUTURE_INLINE_MAX                                                                     \
    ((uint32_t)((FUTURE_OBJECT_MAX - offsetof(goabt_future, inline_values)) / sizeof(void *)))

/* The size goabt_object_new is given for a future of num compartments. */
static inline size_t goabt_future_size(uint32_t num)
{
    if (num <= FUTURE_INLINE_MAX) {
        return offsetof(goabt_future, inline_values) + (size_t)num * sizeof(void *);
    }
    return sizeof(goabt_future);
}

/* Sets up a new future (goabt_future_size(num) bytes, all zero): ABT_SUCCESS, or ABT_ERR_MEM
 * (the caller then deletes it). */
int goabt_future_init(goabt_future *f, uint32_t num, void (*callback)(void **)) GOABT_HIDDEN;
/* Whether f is in use: waited for, or a set completing it still uses it (ABT_future_free
 * refuses it then). Taking the lock also waits out a set still releasing it. */
int goabt_future_busy(goabt_future *f) GOABT_HIDDEN;
/* Frees f's values array if it was malloc'd (before the object itself goes). */
void goabt_future_free_values(goabt_future *f) GOABT_HIDDEN;

/* Waits until f is ready. */
void goabt_future_wait(goabt_future *f) GOABT_HIDDEN;

/* Whether f is ready (acquire: pairs with its completion). */
static inline int goabt_future_test(goabt_future *f)
{
    return __atomic_load_n(&f->ready, __ATOMIC_ACQUIRE);
}

/* Sets f's next compartment to value; the last one runs the callback and makes f ready:
 * ABT_SUCCESS, or ABT_ERR_FUTURE when every compartment is taken. */
int goabt_future_set(goabt_future *f, void *value) GOABT_HIDDEN;
/* Makes f unready with no compartment set (deferred while a set completes it). */
void goabt_future_reset(goabt_future *f) GOABT_HIDDEN;

#endif /* GOABT_ENGINE_FUTURE_H */
