//go:build goabt_c_engine
/* future.c: futures (ABT_future_*): ready once each of their compartments has been set.
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
#include <stddef.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/unit.h"
#include "engine/object.h"
#include "engine/wait.h"

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

#define RESOLVE_FUTURE(var, h)                                                                \
    GOABT_RESOLVE_OBJECT(goabt_future, var, h, GOABT_MAGIC_FUTURE, 0, ABT_ERR_INV_FUTURE)

/* The size goabt_object_new was given for a future of num compartments. */
static size_t object_size(uint32_t num)
{
    if (num <= FUTURE_INLINE_MAX) {
        return offsetof(goabt_future, inline_values) + (size_t)num * sizeof(void *);
    }
    return sizeof(goabt_future);
}

int ABT_future_create(uint32_t num_compartments, void (*cb_func)(void **), ABT_future *newfuture)
{
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newfuture);
    goabt_future *f = goabt_object_new(object_size(num_compartments), GOABT_MAGIC_FUTURE);
    if (f == NULL) return ABT_ERR_MEM;
    f->num = num_compartments;
    f->callback = cb_func;
    f->ready = num_compartments == 0; /* nothing to wait for; the callback never runs */
    if (num_compartments > FUTURE_INLINE_MAX) {
        f->values = malloc((size_t)num_compartments * sizeof(void *));
        if (f->values == NULL) {
            goabt_object_delete(f, object_size(num_compartments));
            return ABT_ERR_MEM;
        }
    } else {
        f->values = f->inline_values;
    }
    *newfuture = f;
    return ABT_SUCCESS;
}

int ABT_future_free(ABT_future *future)
{
    if (future == NULL) return ABT_ERR_INV_FUTURE;
    RESOLVE_FUTURE(f, *future);
    goabt_spin_lock(&f->lock);
    /* Blocked waiters would never wake, and a completing set still uses the future (both
     * undefined in Argobots; ABT_cond_free refuses waiters the same way with ABT_ERR_COND).
     * Taking the lock also waits out a set still releasing it. */
    int busy = !goabt_waitlist_empty(&f->waiters) || f->completing;
    goabt_spin_unlock(&f->lock);
    if (busy) return ABT_ERR_FUTURE;
    if (f->values != f->inline_values) free(f->values);
    goabt_object_delete(f, object_size(f->num));
    *future = ABT_FUTURE_NULL;
    return ABT_SUCCESS;
}

int ABT_future_wait(ABT_future future)
{
    RESOLVE_FUTURE(f, future);
    /* Argobots 1.x refuses tasklets (they cannot be suspended), ready or not. */
    if (goabt_caller_is_tasklet()) return ABT_ERR_FUTURE;
    goabt_spin_lock(&f->lock);
    if (f->ready) {
        goabt_spin_unlock(&f->lock);
        return ABT_SUCCESS;
    }
    goabt_waiter w;
    goabt_waiter_init(&w, 0, 0);
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_FUTURE, f);
    goabt_waitlist_push(&f->waiters, &w);
    goabt_wait(&w, &f->lock);
    return ABT_SUCCESS;
}

int ABT_future_test(ABT_future future, ABT_bool *is_ready)
{
    RESOLVE_FUTURE(f, future);
    GOABT_CHECK_OUT(is_ready);
    *is_ready = __atomic_load_n(&f->ready, __ATOMIC_ACQUIRE) ? ABT_TRUE : ABT_FALSE;
    if (*is_ready == ABT_FALSE) goabt_give_way_to_main(); /* unit.h: a polling loop */
    return ABT_SUCCESS;
}

/* Under the lock: ready, every waiter woken, and a reset deferred meanwhile applied. */
static void future_complete(goabt_future *f)
{
    __atomic_store_n(&f->ready, 1, __ATOMIC_RELEASE);
    /* Woken under the lock, as wait.h requires: a waiter never returns before its wake. */
    goabt_waiter *w;
    while ((w = goabt_waitlist_pop(&f->waiters)) != NULL) goabt_wake(w);
    if (f->reset_pending) {
        f->reset_pending = 0;
        f->count = 0;
        __atomic_store_n(&f->ready, 0, __ATOMIC_RELAXED);
    }
}

int ABT_future_set(ABT_future future, void *value)
{
    RESOLVE_FUTURE(f, future);
    goabt_spin_lock(&f->lock);
    if (f->count >= f->num) { /* ready, completing, or no compartment at all */
        goabt_spin_unlock(&f->lock);
        return ABT_ERR_FUTURE;
    }
    f->values[f->count++] = value;
    if (f->count < f->num) {
        goabt_spin_unlock(&f->lock);
        return ABT_SUCCESS;
    }
    if (f->callback != NULL) {
        f->completing = 1;
        goabt_spin_unlock(&f->lock);
        f->callback(f->values);
        goabt_spin_lock(&f->lock);
        f->completing = 0;
    }
    future_complete(f);
    goabt_spin_unlock(&f->lock);
    return ABT_SUCCESS;
}

int ABT_future_reset(ABT_future future)
{
    RESOLVE_FUTURE(f, future);
    goabt_spin_lock(&f->lock);
    if (f->completing) {
        f->reset_pending = 1; /* applied once the callback's set has completed */
    } else if (f->num > 0) {  /* a future without compartments stays ready */
        /* Waiters can only be there while it is unready: they wait for the refilled future. */
        f->count = 0;
        __atomic_store_n(&f->ready, 0, __ATOMIC_RELAXED);
    }
    goabt_spin_unlock(&f->lock);
    return ABT_SUCCESS;
}
