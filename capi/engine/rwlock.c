//go:build goabt_c_engine
/* rwlock.c: readers-writer locks: granting the lock on, waiting for it (the algorithm:
 * rwlock.h; the API's entries: api/rwlock.c). */
#include "rwlock.h"
#include "wait.h"

/* The lock has just become free: grants it to the first waiter if that is a writer, else to
 * every waiting reader, and wakes them. Called with l->lock held. No wait here has a deadline,
 * so goabt_wake always succeeds. */
static void rwlock_grant(goabt_rwlock *l)
{
    GOABT_ASSERT_LOCKED(&l->lock);
    GOABT_ASSERT_MSG(!l->writer && l->readers == 0, "granted only when free");
    goabt_waiter *w = l->waiters.head;
    if (w == NULL) return;
    GOABT_ASSERT(w->tag == RW_WRITER || w->tag == RW_READER);
    if (w->tag == RW_WRITER) {
        goabt_waitlist_remove(&l->waiters, w);
        l->writer = 1;
        goabt_wake(w);
        return;
    }
    while (w != NULL) {
        goabt_waiter *next = w->next; /* w may be gone once woken */
        if (w->tag == RW_READER) {
            goabt_waitlist_remove(&l->waiters, w);
            l->readers++;
            goabt_wake(w);
        }
        w = next;
    }
}

/* Gives up one hold of l (the writer's, or a reader's) and grants it on if it is free. With
 * l->lock held; ABT_ERR_RWLOCK if nobody holds it. */
static int rwlock_release(goabt_rwlock *l)
{
    GOABT_ASSERT_LOCKED(&l->lock);
    GOABT_ASSERT_MSG(!(l->writer && l->readers != 0), "a writer holds the lock alone");
    /* Waiting readers are only ever behind a writer that holds the lock (rwlock.h). */
    GOABT_ASSERT(l->writer || l->waiters.head == NULL || l->waiters.head->tag == RW_WRITER);
    if (l->writer) {
        l->writer = 0;
    } else if (l->readers > 0) {
        l->readers--;
    } else {
        return ABT_ERR_RWLOCK; /* undefined in Argobots (its reader count would go negative) */
    }
    if (!l->writer && l->readers == 0) rwlock_grant(l);
    return ABT_SUCCESS;
}

/* A woken waiter, granted l (no wait here has a deadline), is cancelled before it returns
 * (goabt_wait_cancelled): its hold is given up, as its unlock would have. */
static void rwlock_waiter_cancelled(goabt_waiter *w)
{
    goabt_rwlock *l = w->sync;
    GOABT_ASSERT(__atomic_load_n(&w->status, __ATOMIC_RELAXED) == GOABT_WAIT_WOKEN);
    goabt_spin_lock(&l->lock);
    GOABT_ASSERT_MSG(w->tag == RW_WRITER ? l->writer : l->readers > 0,
                     "a granted waiter holds the lock");
    rwlock_release(l);
    goabt_spin_unlock(&l->lock);
}

void goabt_rwlock_acquire(goabt_rwlock *l, int writer)
{
    goabt_spin_lock(&l->lock);
    if (!l->writer && (!writer || l->readers == 0)) {
        if (writer) {
            l->writer = 1;
        } else {
            l->readers++;
        }
        GOABT_ASSERT(!(l->writer && l->readers != 0));
        goabt_spin_unlock(&l->lock);
        return;
    }
    GOABT_ASSERT_MSG(l->writer || (writer && l->readers > 0), "a waiter waits for a holder");
    goabt_waiter w;
    goabt_waiter_init(&w, writer ? RW_WRITER : RW_READER, 0);
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_RWLOCK, l);
    w.cancelled = rwlock_waiter_cancelled;
    goabt_waitlist_push(&l->waiters, &w);
    goabt_wait(&w, &l->lock); /* woken only by rwlock_grant, which made us a holder */
    GOABT_ASSERT(w.status == GOABT_WAIT_WOKEN);
    GOABT_ASSERT_MSG(writer ? __atomic_load_n(&l->writer, __ATOMIC_RELAXED)
                            : __atomic_load_n(&l->readers, __ATOMIC_RELAXED) > 0,
                     "a woken waiter holds the lock already");
}

int goabt_rwlock_unlock(goabt_rwlock *l)
{
    goabt_spin_lock(&l->lock);
    int rc = rwlock_release(l);
    goabt_spin_unlock(&l->lock);
    return rc;
}

int goabt_rwlock_waited(goabt_rwlock *l)
{
    goabt_spin_lock(&l->lock);
    int busy = !goabt_waitlist_empty(&l->waiters);
    goabt_spin_unlock(&l->lock);
    return busy;
}
