//go:build goabt_c_engine
/* eventual.c: eventuals (ABT_eventual_*): a value set once, awaited by any number of callers.
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
#include <stddef.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/unit.h"
#include "engine/object.h"
#include "engine/pool.h"
#include "engine/stream.h"
#include "engine/wait.h"

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

#define RESOLVE_EVENTUAL(var, h)                                                              \
    GOABT_RESOLVE_OBJECT(goabt_eventual, var, h, GOABT_MAGIC_EVENTUAL, 1, ABT_ERR_INV_EVENTUAL)

/* The size goabt_object_new was given for an eventual of nbytes bytes. */
static size_t object_size(int nbytes)
{
    if (nbytes > 0 && nbytes <= EVENTUAL_INLINE_MAX) {
        return offsetof(goabt_eventual, inline_value) + (size_t)nbytes;
    }
    return sizeof(goabt_eventual);
}

int ABT_eventual_create(int nbytes, ABT_eventual *neweventual)
{
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    if (nbytes < 0) return ABT_ERR_INV_ARG;
    GOABT_CHECK_OUT(neweventual);
    goabt_eventual *e = goabt_object_new(object_size(nbytes), GOABT_MAGIC_EVENTUAL);
    if (e == NULL) return ABT_ERR_MEM;
    e->nbytes = nbytes;
    if (nbytes > EVENTUAL_INLINE_MAX) {
        e->value = malloc((size_t)nbytes);
        if (e->value == NULL) {
            goabt_object_delete(e, object_size(nbytes));
            return ABT_ERR_MEM;
        }
    } else if (nbytes > 0) {
        e->value = e->inline_value;
    }
    *neweventual = e;
    return ABT_SUCCESS;
}

int ABT_eventual_free(ABT_eventual *eventual)
{
    if (eventual == NULL) return ABT_ERR_INV_EVENTUAL;
    RESOLVE_EVENTUAL(e, *eventual);
    /* Static memory is not ours to free. */
    if (__atomic_load_n(&e->magic, __ATOMIC_RELAXED) != GOABT_MAGIC_EVENTUAL) return ABT_ERR_INV_EVENTUAL;
    goabt_spin_lock(&e->lock);
    /* Blocked waiters would never wake (undefined in Argobots; ABT_cond_free refuses the same
     * way with ABT_ERR_COND). Taking the lock also waits out a set still releasing it. */
    int busy = !goabt_waitlist_empty(&e->waiters);
    goabt_spin_unlock(&e->lock);
    if (busy) return ABT_ERR_EVENTUAL;
    if (e->value != NULL && e->value != (void *)e->inline_value) free(e->value);
    goabt_object_delete(e, object_size(e->nbytes));
    *eventual = ABT_EVENTUAL_NULL;
    return ABT_SUCCESS;
}

/* wait and timedwait: deadline 0 waits without a limit. */
static int eventual_wait(goabt_eventual *e, void **value, uint64_t deadline)
{
    /* Argobots 1.x refuses tasklets (they cannot be suspended), even on a ready eventual. */
    if (goabt_caller_is_tasklet()) return ABT_ERR_EVENTUAL;
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
    goabt_spin_lock(&e->lock);
    GOABT_ASSERT_MSG(!e->ready || goabt_waitlist_empty(&e->waiters), "a set eventual keeps no waiter");
    if (e->ready) {
        goabt_spin_unlock(&e->lock);
    } else {
        goabt_waiter w;
        goabt_waiter_init(&w, 0, deadline);
        goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_EVENTUAL, e);
        goabt_waitlist_push(&e->waiters, &w);
        if (goabt_wait(&w, &e->lock) == GOABT_WAIT_TIMEDOUT) return ABT_ERR_COND_TIMEDOUT;
        /* The setter released the lock before waking us: the caller may let the eventual's
         * memory go (a stack eventual) as soon as we return. */
    }
    if (value != NULL) *value = e->value;
    return ABT_SUCCESS;
}

int ABT_eventual_wait(ABT_eventual eventual, void **value)
{
    RESOLVE_EVENTUAL(e, eventual);
    return eventual_wait(e, value, 0);
}

int ABT_eventual_timedwait(ABT_eventual eventual, void **value, const struct timespec *abstime)
{
    RESOLVE_EVENTUAL(e, eventual);
    if (abstime == NULL) return ABT_ERR_INV_ARG;
    return eventual_wait(e, value, goabt_timespec_ns(abstime));
}

int ABT_eventual_test(ABT_eventual eventual, void **value, ABT_bool *is_ready)
{
    RESOLVE_EVENTUAL(e, eventual);
    GOABT_CHECK_OUT(is_ready);
    /* Acquire: pairs with the set's release, so the buffer's contents are visible. */
    int ready = __atomic_load_n(&e->ready, __ATOMIC_ACQUIRE);
    if (ready && value != NULL) *value = e->value; /* left alone while not ready */
    *is_ready = ready ? ABT_TRUE : ABT_FALSE;
    if (!ready) goabt_give_way_to_main(); /* unit.h: a polling loop */
    return ABT_SUCCESS;
}

int ABT_eventual_set(ABT_eventual eventual, void *value, int nbytes)
{
    RESOLVE_EVENTUAL(e, eventual);
    if (nbytes < 0) return ABT_ERR_INV_ARG;
    if (nbytes > e->nbytes) return ABT_ERR_INV_EVENTUAL; /* Argobots 1.x (2.0: INV_ARG) */
    if (nbytes > 0 && value == NULL) return ABT_ERR_INV_ARG;
    goabt_spin_lock(&e->lock);
    if (e->ready) {
        goabt_spin_unlock(&e->lock);
        return ABT_ERR_EVENTUAL; /* set once only: the value stays */
    }
    if (nbytes > 0) memcpy(e->value, value, (size_t)nbytes);
    __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
    /* Claimed under the lock (one that timed out meanwhile leaves by itself), woken after it:
     * a woken waiter may free the eventual as soon as it returns. */
    goabt_waiter *claimed = goabt_waitlist_claim(&e->waiters, 1);
    GOABT_ASSERT_MSG(goabt_waitlist_empty(&e->waiters), "a set eventual keeps no waiter");
    goabt_spin_unlock(&e->lock);
    goabt_wake_claimed(claimed);
    return ABT_SUCCESS;
}

int ABT_eventual_reset(ABT_eventual eventual)
{
    RESOLVE_EVENTUAL(e, eventual);
    /* One store, no lock: waiters can only be there while it is unready (they keep waiting for
     * the next set), and a set it races with is either before it (the reset undoes it) or after
     * (the set finds it unready, as a set under the lock would). */
    if (__atomic_load_n(&e->ready, __ATOMIC_RELAXED)) __atomic_store_n(&e->ready, 0, __ATOMIC_RELAXED);
    return ABT_SUCCESS;
}

int goabt_eventual_get_num_waiters(ABT_eventual eventual, int *num)
{
    RESOLVE_EVENTUAL(e, eventual);
    GOABT_CHECK_OUT(num);
    goabt_spin_lock(&e->lock);
    *num = goabt_waitlist_count(&e->waiters);
    goabt_spin_unlock(&e->lock);
    return ABT_SUCCESS;
}
