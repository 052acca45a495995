/* eventual.h: eventuals, the engine's side (eventual.c: waiting, setting; the API's entries:
 * api/eventual.c): a value set once, awaited by any number of callers.
 *
 * State under the object's spinlock: whether it is ready, and the wait list of those blocked
 * (wait.h: ULTs park, the main ULT included; external threads sleep on a futex). A set copies
 * the value into the eventual's own buffer, marks it ready and wakes every waiter; a reset makes
 * it unready again. The buffer never moves while the eventual lives, so a waiter reads its
 * address without the lock.
 *
 * Static memory (ABT_eventual_memory, all zero) is an eventual without a buffer (nbytes 0), as
 * in Argobots; it needs no runtime, so it works from plain pthreads before ABT_init and after
 * ABT_finalize. A created one has its buffer inline when it fits the object's size class (256
 * bytes at most), malloc'd otherwise.
 */
#ifndef GOABT_ENGINE_EVENTUAL_H
#define GOABT_ENGINE_EVENTUAL_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"
#include "wait.h"

struct ABT_eventual_opaque {
    uint32_t flags;
    uint32_t magic;
    int lock;               /* spinlock over ready and waiters */
    int ready;              /* atomic reads (test) */
    int nbytes;             /* size of the buffer; 0 for static memory */
    void *value;            /* the buffer: inline_value, malloc'd, or NULL when nbytes is 0 */
    goabt_waitlist waiters; /* blocked in wait or timedwait */
    unsigned char inline_value[]; /* the buffer when it fits */
};
typedef struct ABT_eventual_opaque goabt_eventual;

_Static_assert(sizeof(goabt_eventual) <= sizeof(ABT_eventual_memory),
               "an eventual must fit in ABT_eventual_memory");
/* Argobots promises a buffer aligned for any type: object blocks are aligned to their size
 * class, so an inline buffer is if its offset is. (No _Alignas on the struct: static memory is
 * an int array, only 4-byte aligned by its type.) */
_Static_assert(offsetof(goabt_eventual, inline_value) % _Alignof(max_align_t) == 0,
               "the inline buffer must be aligned for any type");

#define EVENTUAL_OBJECT_MAX 256 /* the largest object size class (object.c) */
#define EVENTUAL_INLINE_MAX ((int)(EVENTUAL_OBJECT_MAX - offsetof(goabt_eventual, inline_value)))

/* The size goabt_object_new is given for an eventual of nbytes bytes. */
static inline size_t goabt_eventual_size(int nbytes)
{
    if (nbytes > 0 && nbytes <= EVENTUAL_INLINE_MAX) {
        return offsetof(goabt_eventual, inline_value) + (size_t)nbytes;
    }
    return sizeof(goabt_eventual);
}

/* Gives a new eventual (goabt_eventual_size(nbytes) bytes, all zero) its buffer: ABT_SUCCESS,
 * or ABT_ERR_MEM (the caller then deletes it). */
int goabt_eventual_init(goabt_eventual *e, int nbytes) GOABT_HIDDEN;
/* Whether anyone waits on e (ABT_eventual_free refuses it then). Taking the lock also waits out
 * a set still releasing it. */
int goabt_eventual_waited(goabt_eventual *e) GOABT_HIDDEN;
/* Frees e's buffer if it was malloc'd (before the object itself goes). */
void goabt_eventual_free_buffer(goabt_eventual *e) GOABT_HIDDEN;

/* The slow path of goabt_eventual_wait (eventual.c): e did not look ready. */
int goabt_eventual_wait_queued(goabt_eventual *e, void **value, uint64_t deadline) GOABT_HIDDEN;

/* Waits until e is set, or (deadline != 0) the deadline: ABT_SUCCESS (*value, if value is not
 * NULL, the buffer) or ABT_ERR_COND_TIMEDOUT. */
static inline int goabt_eventual_wait(goabt_eventual *e, void **value, uint64_t deadline)
{
    /* Ready already: no locked instruction (acquire pairs with the set's release; the buffer
     * is filled). The setter may still hold the lock, claiming waiters: once it lets go it no
     * longer touches e, which the caller may then let go (an eventual on its stack). */
    if (__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE)) {
        for (unsigned spins = 0; __atomic_load_n(&e->lock, __ATOMIC_ACQUIRE) != 0; spins++) {
            goabt_backoff(spins);
        }
        if (value != NULL) *value = e->value;
        return ABT_SUCCESS;
    }
    return goabt_eventual_wait_queued(e, value, deadline);
}

/* Whether e is set, and then (value not NULL) *value its buffer; *value is left alone while it
 * is not. Acquire: pairs with the set's release, so the buffer's contents are visible. */
static inline int goabt_eventual_test(goabt_eventual *e, void **value)
{
    int ready = __atomic_load_n(&e->ready, __ATOMIC_ACQUIRE);
    if (ready && value != NULL) *value = e->value;
    return ready;
}

/* Sets e (nbytes bytes of value, nbytes <= e->nbytes) and wakes every waiter: ABT_SUCCESS, or
 * ABT_ERR_EVENTUAL if it is set already (set once only: the value stays). */
int goabt_eventual_set(goabt_eventual *e, void *value, int nbytes) GOABT_HIDDEN;

/* Makes e unready again. One store, no lock: waiters can only be there while it is unready
 * (they keep waiting for the next set), and a set it races with is either before it (the reset
 * undoes it) or after (the set finds it unready, as a set under the lock would). */
static inline void goabt_eventual_reset(goabt_eventual *e)
{
    if (__atomic_load_n(&e->ready, __ATOMIC_RELAXED)) __atomic_store_n(&e->ready, 0, __ATOMIC_RELAXED);
}

/* How many callers wait on e. */
int goabt_eventual_num_queued(goabt_eventual *e) GOABT_HIDDEN;

#endif /* GOABT_ENGINE_EVENTUAL_H */
