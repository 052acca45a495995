//go:build goabt_c_engine
/* future.c: futures: their values, waiting, setting, completing (the algorithm: future.h; the
 * API's entries: api/future.c). */
#include "future.h"
#include "wait.h"

int goabt_future_init(goabt_future *f, uint32_t num, void (*callback)(void **))
{
    f->num = num;
    f->callback = callback;
    f->ready = num == 0; /* nothing to wait for; the callback never runs */
    if (num > FUTURE_INLINE_MAX) {
        f->values = malloc((size_t)num * sizeof(void *));
        if (f->values == NULL) return ABT_ERR_MEM;
    } else {
        f->values = f->inline_values;
    }
    return ABT_SUCCESS;
}

int goabt_future_busy(goabt_future *f)
{
    goabt_spin_lock(&f->lock);
    int busy = !goabt_waitlist_empty(&f->waiters) || f->completing;
    goabt_spin_unlock(&f->lock);
    return busy;
}

void goabt_future_free_values(goabt_future *f)
{
    if (f->values != f->inline_values) free(f->values);
}

void goabt_future_wait(goabt_future *f)
{
    goabt_spin_lock(&f->lock);
    if (f->ready) {
        goabt_spin_unlock(&f->lock);
        return;
    }
    goabt_waiter w;
    goabt_waiter_init(&w, 0, 0);
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_FUTURE, f);
    goabt_waitlist_push(&f->waiters, &w);
    goabt_wait(&w, &f->lock);
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

int goabt_future_set(goabt_future *f, void *value)
{
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

void goabt_future_reset(goabt_future *f)
{
    goabt_spin_lock(&f->lock);
    if (f->completing) {
        f->reset_pending = 1; /* applied once the callback's set has completed */
    } else if (f->num > 0) {  /* a future without compartments stays ready */
        /* Waiters can only be there while it is unready: they wait for the refilled future. */
        f->count = 0;
        __atomic_store_n(&f->ready, 0, __ATOMIC_RELAXED);
    }
    goabt_spin_unlock(&f->lock);
}
