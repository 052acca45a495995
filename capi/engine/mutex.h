/* mutex.h: mutexes, the engine's side (mutex.c: the slow paths; the API's entries:
 * api/mutex.c).
 *
 * A mutex is 64 bytes that work from all zero, so that ABT_mutex_memory initialized with
 * ABT_MUTEX_INITIALIZER is a mutex as it is (ABT_RECURSIVE_MUTEX_INITIALIZER sets the first int,
 * our flags, to GOABT_MUTEX_RECURSIVE). `locked` is 0 (free), 1 (held) or 2 (held, and someone
 * may be queued): the uncontended lock and unlock are one compare-and-swap each (0 -> 1 -> 0),
 * with no call and no other lock. A ULT that finds it held by a holder nobody waits for first
 * yields and looks again, a few times (lock only; lock_high and lock_low queue at once). A
 * caller that finds it held then takes the spinlock `lock`, marks it 2 with one exchange (and
 * owns it if that found it free) and waits in a wait list (wait.h): a ULT parks, an external
 * thread or a tasklet sleeps. An unlock that finds 2 takes the
 * spinlock, frees the mutex and wakes the first waiter: waiters of lock_high first, then lock
 * and spinlock waiters in arrival order, then those of lock_low. The woken waiter tries again,
 * and a running caller may have taken the mutex first (it then waits again at the front of its
 * class); one that has been losing that race for a millisecond is handed the mutex instead, so
 * nobody starves.
 *
 * Callers that cannot park and hold a stream's thread while they sleep (a tasklet, a
 * scheduler's own context) must never wait for a ULT that only their stream can run, or their
 * stream stops for good. So they are served first: an unlock wakes (or hands the mutex to) such
 * a waiter before any other (MUTEX_STREAM; the flag MUTEX_HAS_STREAM says one may be queued),
 * and one that finds the mutex handed to a ULT that has not run since takes the hand-over for
 * itself: a hand-over to a ULT leaves `owner` marked (the waiter's address | 1) until the ULT
 * claims it when it runs, and a ULT that finds its hand-over taken waits again, first in line.
 * External threads hold no stream: they wait in line like ULTs.
 *
 * The owner is the calling unit, or the calling OS thread outside ULTs and tasklets: a
 * recursive mutex counts its owner's extra locks in `nesting`; ownership belongs to the unit,
 * whichever stream it runs on. */
#ifndef GOABT_ENGINE_MUTEX_H
#define GOABT_ENGINE_MUTEX_H

#include <stdint.h>
#include "common.h"
#include "object.h"
#include "unit.h"
#include "wait.h"

typedef struct ABT_mutex_opaque goabt_mutex;

/* flags: GOABT_MUTEX_RECURSIVE from the attribute; MUTEX_HAS_STREAM, set while a waiter that
 * holds a stream's thread may be queued (changed under `lock`, atomically: the fast paths read
 * the word without it). */
enum { GOABT_MUTEX_RECURSIVE = 0x1, MUTEX_HAS_STREAM = 0x100 };

/* A waiter's tag (wait.h): what lock_* it waits in, and three marks: it has waited long enough
 * to be handed the mutex (set by the waiter), it was (set by the unlock that did), and it was
 * woken with others still queued, whom it must mark the mutex for again (set by that unlock). */
enum { MUTEX_NORMAL = 0, MUTEX_HIGH = 1, MUTEX_LOW = 2, MUTEX_PRIO = 3 };
enum { MUTEX_STARVING = 4, MUTEX_HANDED = 8, MUTEX_OTHERS = 16, MUTEX_STREAM = 32 };

struct ABT_mutex_opaque {
    uint32_t flags; /* GOABT_MUTEX_RECURSIVE, MUTEX_HAS_STREAM (atomic) */
    uint32_t magic; /* GOABT_MAGIC_MUTEX, or in static memory 0 then its static magic */
    int locked;     /* 0 free, 1 held, 2 held and maybe waited for (atomic) */
    int lock;       /* spinlock over the wait lists; taken only when locked is 2 */
    uintptr_t owner; /* the holder (caller_id), written by the holder only; or a hand-over to a
                      * ULT not yet claimed: its waiter's address | 1 (CAS) */
    int nesting;     /* a recursive holder's locks beyond the first */
    int yielders;    /* ULTs in yield_for: not queued, yet waiting (atomic) */
    goabt_waitlist waiters; /* lock_high at the front, lock at the back */
    goabt_waitlist low;     /* lock_low, served when waiters is empty */
};
_Static_assert(sizeof(struct ABT_mutex_opaque) <= sizeof(ABT_mutex_memory),
               "a mutex must fit ABT_mutex_memory");


/* ---- Owners ------------------------------------------------------------------------------ */

/* Its address names an OS thread that is not a unit (mutex.c defines it). */
extern __thread char goabt_mutex_thread_marker GOABT_HIDDEN;

/* The caller's id as a mutex owner: its unit, or its OS thread outside ULTs and tasklets. */
static inline uintptr_t goabt_mutex_caller_id(void)
{
    goabt_unit *u = goabt_self_unit();
    return u != NULL ? (uintptr_t)u : (uintptr_t)&goabt_mutex_thread_marker;
}

/* The owner is read without the lock by callers checking whether it is themselves: only the
 * owner can have stored its own id there. */
static inline void goabt_mutex_set_owner(goabt_mutex *m, uintptr_t who)
{
    /* An owner is a caller's id (aligned) or 0: odd values are hand-over marks (mutex.c). */
    GOABT_ASSERT((who & 1) == 0);
    GOABT_ASSERT_MSG(who == 0 || __atomic_load_n(&m->locked, __ATOMIC_RELAXED) != 0,
                     "only a holder names itself owner");
    __atomic_store_n(&m->owner, who, __ATOMIC_RELAXED);
}
static inline int goabt_mutex_owned_by(goabt_mutex *m, uintptr_t me)
{
    return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == me;
}
static inline uint32_t goabt_mutex_flags(goabt_mutex *m)
{
    return __atomic_load_n(&m->flags, __ATOMIC_RELAXED);
}

/* ---- The fast paths ------------------------------------------------------------------------ */

/* Takes m if it is free: 1 if it did. */
static inline int goabt_mutex_try_take(goabt_mutex *m, uintptr_t me)
{
    int free_ = 0;
    /* No look at the word first: a plain load of it just before the compare-and-swap costs
     * the uncontended lock ~6 ns on x86-64 (a load and a locked instruction on the same word,
     * back to back). Loops that look again and again (the slow path, ABT_mutex_spinlock) look
     * first themselves. */
    if (__atomic_compare_exchange_n(&m->locked, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        goabt_mutex_set_owner(m, me);
        return 1;
    }
    return 0;
}

/* The slow paths (mutex.c): m was held; m is marked 2 (returns whether a waiter was woken). */
void goabt_mutex_lock_slow(goabt_mutex *m, int prio, uintptr_t me) GOABT_HIDDEN;
int goabt_mutex_release_slow(goabt_mutex *m) GOABT_HIDDEN;

/* Locks m at priority prio (MUTEX_NORMAL, MUTEX_HIGH, MUTEX_LOW), waiting as long as it takes. */
static inline void goabt_mutex_lock(goabt_mutex *m, int prio)
{
    uintptr_t me = goabt_mutex_caller_id();
    if (!goabt_mutex_try_take(m, me)) goabt_mutex_lock_slow(m, prio, me);
}

/* Gives m up; returns whether a waiter was woken. The caller held it (a recursive one at its
 * last unlock). */
static inline int goabt_mutex_release(goabt_mutex *m)
{
    goabt_mutex_set_owner(m, 0);
    int held = __atomic_load_n(&m->locked, __ATOMIC_RELAXED);
    if (held == 1 && __atomic_compare_exchange_n(&m->locked, &held, 0, 0, __ATOMIC_RELEASE,
                                                 __ATOMIC_RELAXED)) {
        return 0; /* nobody marked it: nobody waits */
    }
    return goabt_mutex_release_slow(m);
}

/* Unlocks m; *woke says whether a waiter was woken. Argobots leaves unlocking a mutex the
 * caller does not hold undefined: goabt refuses one nobody holds (ABT_ERR_MUTEX) and otherwise
 * unlocks, whoever calls (a plain mutex may be unlocked by another unit than its locker). */
static inline int goabt_mutex_unlock(goabt_mutex *m, int *woke)
{
    *woke = 0;
    if (!(goabt_mutex_flags(m) & GOABT_MUTEX_RECURSIVE)) {
        /* Owner cleared first: once the mutex is free, the next holder writes its own. (An
         * unlock of a free mutex clears an owner that is 0 already.) No look at the word
         * before the compare-and-swap, as in try_take: it finds 0 (not held) or 2 itself. */
        goabt_mutex_set_owner(m, 0);
        int held = 1;
        if (__atomic_compare_exchange_n(&m->locked, &held, 0, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
            return ABT_SUCCESS;
        }
        if (held == 0) return ABT_ERR_MUTEX;
        *woke = goabt_mutex_release_slow(m);
        return ABT_SUCCESS;
    }
    if (__atomic_load_n(&m->locked, __ATOMIC_ACQUIRE) == 0) return ABT_ERR_MUTEX;
    if (m->nesting > 0 && goabt_mutex_owned_by(m, goabt_mutex_caller_id())) {
        m->nesting--;
        return ABT_SUCCESS;
    }
    GOABT_ASSERT(m->nesting >= 0);
    *woke = goabt_mutex_release(m);
    return ABT_SUCCESS;
}

/* ---- The rest (mutex.c) --------------------------------------------------------------------- */

/* ABT_mutex_trylock: ABT_SUCCESS, or ABT_ERR_MUTEX_LOCKED. */
int goabt_mutex_trylock(goabt_mutex *m) GOABT_HIDDEN;
/* ABT_mutex_spinlock: spins a while, then waits as a lock does. */
void goabt_mutex_spinlock(goabt_mutex *m) GOABT_HIDDEN;
/* Whether anyone waits for m (ABT_mutex_free refuses it then). */
int goabt_mutex_waited(goabt_mutex *m) GOABT_HIDDEN;
/* How many callers are queued on m. */
int goabt_mutex_num_queued(goabt_mutex *m) GOABT_HIDDEN;
/* For condition variables (cond.c): whether the calling unit (or OS thread) holds m; release
 * gives m up whole, all recursive levels, and returns how many extra levels it had; retake locks
 * it again (waiting if needed) and restores them. */
int goabt_mutex_held_by_caller(goabt_mutex *m) GOABT_HIDDEN;
int goabt_mutex_release_all(goabt_mutex *m) GOABT_HIDDEN;
void goabt_mutex_retake(goabt_mutex *m, int nesting) GOABT_HIDDEN;

#endif /* GOABT_ENGINE_MUTEX_H */
