//go:build goabt_c_engine
/* rwlock.c: readers-writer locks (ABT_rwlock_*).
 *
 * State under the object's spinlock: a writer flag, a count of readers inside, and one FIFO wait
 * list whose waiters are tagged reader or writer (wait.h). As in Argobots 1.2 a reader waits
 * only while a writer holds the lock, not while writers queue, so a stream of readers can keep
 * writers out. Waiting readers are therefore only ever behind a writer that holds the lock.
 *
 * The lock is handed over, not raced for: when it becomes free, unlock grants it to the first
 * waiter before waking it: a writer alone, or, if the first waiter is a reader, every waiting
 * reader at once (writers stay queued). A woken waiter owns the lock already and never retries.
 * Nobody is tracked as owner: as in Argobots, any caller may unlock for a holder.
 */
#include "args.h"
#include "engine/handles.h"
#include "engine/unit.h"
#include "engine/object.h"
#include "engine/wait.h"

enum { RW_READER = 1, RW_WRITER = 2 }; /* waiter tags */

struct ABT_rwlock_opaque {
    uint32_t flags;
    uint32_t magic;
    int lock;                /* spinlock over the fields below */
    int writer;              /* 1 while a writer holds the lock */
    uint32_t readers;        /* readers holding the lock */
    goabt_waitlist waiters;  /* RW_READER / RW_WRITER waiters, FIFO */
};
typedef struct ABT_rwlock_opaque goabt_rwlock;

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
    /* Waiting readers are only ever behind a writer that holds the lock (top of the file). */
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

static int rwlock_acquire(ABT_rwlock rwlock, int writer)
{
    GOABT_RESOLVE_OBJECT(goabt_rwlock, l, rwlock, GOABT_MAGIC_RWLOCK, 0, ABT_ERR_INV_RWLOCK);
    if (goabt_caller_is_tasklet()) return ABT_ERR_RWLOCK;
    goabt_spin_lock(&l->lock);
    if (!l->writer && (!writer || l->readers == 0)) {
        if (writer) {
            l->writer = 1;
        } else {
            l->readers++;
        }
        GOABT_ASSERT(!(l->writer && l->readers != 0));
        goabt_spin_unlock(&l->lock);
        return ABT_SUCCESS;
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
    return ABT_SUCCESS;
}

int ABT_rwlock_create(ABT_rwlock *newrwlock)
{
    if (newrwlock != NULL) *newrwlock = ABT_RWLOCK_NULL; /* Argobots 1.x does so on error */
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newrwlock);
    goabt_rwlock *l = goabt_object_new(sizeof *l, GOABT_MAGIC_RWLOCK);
    if (l == NULL) return ABT_ERR_MEM;
    *newrwlock = l;
    return ABT_SUCCESS;
}

int ABT_rwlock_free(ABT_rwlock *rwlock)
{
    GOABT_CHECK_OUT(rwlock);
    GOABT_RESOLVE_OBJECT(goabt_rwlock, l, *rwlock, GOABT_MAGIC_RWLOCK, 0, ABT_ERR_INV_RWLOCK);
    goabt_spin_lock(&l->lock);
    /* A held lock may be freed (Argobots does); one with waiters may not: they would never
     * wake. Argobots leaves that undefined. */
    int busy = !goabt_waitlist_empty(&l->waiters);
    goabt_spin_unlock(&l->lock);
    if (busy) return ABT_ERR_RWLOCK;
    goabt_object_delete(l, sizeof *l);
    *rwlock = ABT_RWLOCK_NULL;
    return ABT_SUCCESS;
}

int ABT_rwlock_rdlock(ABT_rwlock rwlock) { return rwlock_acquire(rwlock, 0); }

int ABT_rwlock_wrlock(ABT_rwlock rwlock) { return rwlock_acquire(rwlock, 1); }

int ABT_rwlock_unlock(ABT_rwlock rwlock)
{
    GOABT_RESOLVE_OBJECT(goabt_rwlock, l, rwlock, GOABT_MAGIC_RWLOCK, 0, ABT_ERR_INV_RWLOCK);
    goabt_spin_lock(&l->lock);
    int rc = rwlock_release(l);
    goabt_spin_unlock(&l->lock);
    goabt_give_way_to_main(); /* unit.h */
    return rc;
}
