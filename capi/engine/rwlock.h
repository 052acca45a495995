/* rwlock.h: readers-writer locks, the engine's side (rwlock.c: granting, waiting; the API's
 * entries: api/rwlock.c).
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
#ifndef GOABT_ENGINE_RWLOCK_H
#define GOABT_ENGINE_RWLOCK_H

#include <stdint.h>
#include "common.h"
#include "wait.h"

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

/* Takes l as a writer (writer 1) or a reader, waiting as long as it takes. */
void goabt_rwlock_acquire(goabt_rwlock *l, int writer) GOABT_HIDDEN;
/* Gives up one hold of l (the writer's, or a reader's) and grants it on if it is free:
 * ABT_SUCCESS, or ABT_ERR_RWLOCK if nobody holds it. */
int goabt_rwlock_unlock(goabt_rwlock *l) GOABT_HIDDEN;
/* Whether anyone waits for l (ABT_rwlock_free refuses it then: they would never wake). */
int goabt_rwlock_waited(goabt_rwlock *l) GOABT_HIDDEN;

#endif /* GOABT_ENGINE_RWLOCK_H */
