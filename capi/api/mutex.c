//go:build goabt_c_engine
/* mutex.c: mutexes (ABT_mutex_*) and their attributes (ABT_mutex_attr_*).
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
#include <time.h>
#include "args.h"
#include "goabt.h"
#include "mutex.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/runtime.h"
#include "engine/stream.h"
#include "engine/unit.h"
#include "engine/wait.h"

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

struct ABT_mutex_attr_opaque {
    uint32_t flags; /* GOABT_MUTEX_RECURSIVE */
    uint32_t magic;
};


#define RESOLVE_MUTEX(m, h)                                                                   \
    GOABT_RESOLVE_OBJECT(goabt_mutex, m, h, GOABT_MAGIC_MUTEX, 1, ABT_ERR_INV_MUTEX)
#define RESOLVE_ATTR(a, h)                                                                    \
    GOABT_RESOLVE_OBJECT(struct ABT_mutex_attr_opaque, a, h, GOABT_MAGIC_MUTEX_ATTR, 0,       \
                         ABT_ERR_INV_MUTEX_ATTR)

/* ---- Owners ------------------------------------------------------------------------------ */

static __thread char thread_marker; /* its address names an OS thread that is not a unit */

static uintptr_t caller_id(void)
{
    goabt_unit *u = goabt_self_unit();
    return u != NULL ? (uintptr_t)u : (uintptr_t)&thread_marker;
}

/* ---- Locking (also cond.c's) ---------------------------------------------------------------- */

/* The owner is read without the lock by callers checking whether it is themselves: only the
 * owner can have stored its own id there. */
static void set_owner(goabt_mutex *m, uintptr_t who)
{
    /* An owner is a caller's id (aligned) or 0: odd values are hand-over marks (handed_mark). */
    GOABT_ASSERT((who & 1) == 0);
    GOABT_ASSERT_MSG(who == 0 || __atomic_load_n(&m->locked, __ATOMIC_RELAXED) != 0,
                     "only a holder names itself owner");
    __atomic_store_n(&m->owner, who, __ATOMIC_RELAXED);
}
static int owned_by(goabt_mutex *m, uintptr_t me) { return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == me; }
static uint32_t mutex_flags(goabt_mutex *m) { return __atomic_load_n(&m->flags, __ATOMIC_RELAXED); }

/* The mark of a hand-over to the ULT waiting in w, not yet claimed. */
static uintptr_t handed_mark(goabt_waiter *w) { return (uintptr_t)w | 1; }

/* Takes the hand-over marked in m's owner for `who` (the ULT handed m, when it runs; or a
 * stream-holding waiter taking it from that ULT): 1 if it got it. */
static int claim_handed(goabt_mutex *m, uintptr_t mark, uintptr_t who)
{
    GOABT_ASSERT((mark & 1) && (who & 1) == 0);
    GOABT_ASSERT_MSG(__atomic_load_n(&m->locked, __ATOMIC_RELAXED) != 0,
                     "a handed mutex stays held until claimed");
    return __atomic_compare_exchange_n(&m->owner, &mark, who, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* Whether the caller holds a stream's thread and cannot park: a tasklet, or code running on a
 * stream's own context (a scheduler). */
static int caller_holds_stream(void) { return !goabt_caller_parks() && goabt_self_stream() != NULL; }

static inline int try_take(goabt_mutex *m, uintptr_t me)
{
    int free_ = 0;
    /* No look at the word first: a plain load of it just before the compare-and-swap costs
     * the uncontended lock ~6 ns on x86-64 (a load and a locked instruction on the same word,
     * back to back). Loops that look again and again (the slow path, ABT_mutex_spinlock) look
     * first themselves. */
    if (__atomic_compare_exchange_n(&m->locked, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        set_owner(m, me);
        return 1;
    }
    return 0;
}

/* A woken waiter that keeps losing the mutex to running callers asks for it to be handed over
 * once it has waited this long (Go's sync.Mutex starvation mode uses the same bound). */
#define STARVING_NS 1000000ull

static uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Before it queues, a ULT that finds m held by a holder nobody waits for yields and looks
 * again, up to YIELD_TRIES times: the other units of its stream run meanwhile, as they would
 * while it waited, and a holder that unlocks in between (a short critical section, or one
 * that yields inside it) frees m without a wake-up, nobody being queued. What a park and a
 * wake-up cost (two switches' worth of locked queue operations) is paid once per YIELD_TRIES
 * lost races instead of every time. Once someone is queued (m marked 2) it queues too, behind
 * them; lock_high and lock_low always queue, so that their order holds. Returns whether it took
 * m. */
#define YIELD_TRIES 16

static void yielder_cancelled(goabt_waiter *w) /* a yield_for waiter, in no list */
{
    goabt_mutex *m = w->sync;
    __atomic_sub_fetch(&m->yielders, 1, __ATOMIC_RELAXED);
}

static int yield_for(goabt_mutex *m, uintptr_t me)
{
    /* Counted, so that ABT_mutex_free refuses a mutex they wait for, as one with queued
     * waiters; a yielder cancelled at one of its yields ends there, and its waiter, in no
     * list, says what to undo (goabt_wait_cancelled). */
    __atomic_add_fetch(&m->yielders, 1, __ATOMIC_RELAXED);
    goabt_unit *self = goabt_self_unit();
    goabt_waiter w;
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_MUTEX, m); /* what the hang report reads */
    w.deadline = 0;
    w.cancelled = yielder_cancelled;
    self->waiting = &w;
    int took = 0;
    for (int i = 0; i < YIELD_TRIES && !took; i++) {
        int held = __atomic_load_n(&m->locked, __ATOMIC_RELAXED);
        if (held == 2) break;
        if (held == 0 && try_take(m, me)) took = 1;
        if (!took) goabt_unit_yield();
    }
    if (!took) took = try_take(m, me);
    self->waiting = NULL;
    __atomic_sub_fetch(&m->yielders, 1, __ATOMIC_RELAXED);
    return took;
}

/* Queues w by priority: a first-time waiter behind those of its class, one woken that lost the
 * race at the front of its class (it has waited longest). */
static void queue_waiter(goabt_mutex *m, goabt_waiter *w, int prio, int again)
{
    GOABT_ASSERT_LOCKED(&m->lock);
    GOABT_ASSERT_MSG(__atomic_load_n(&m->locked, __ATOMIC_RELAXED) == 2,
                     "a mutex with waiters is marked 2, so that its unlock wakes them");
    GOABT_ASSERT((int)(w->tag & MUTEX_PRIO) == prio);
    if (prio == MUTEX_LOW) {
        if (again) {
            goabt_waitlist_push_front(&m->low, w);
        } else {
            goabt_waitlist_push(&m->low, w);
        }
        return;
    }
    if (prio == MUTEX_NORMAL && !again) {
        goabt_waitlist_push(&m->waiters, w);
        return;
    }
    /* High: behind earlier high ones unless again; normal again: behind every high one (a rare
     * path: walk them). */
    goabt_waiter *after = NULL;
    if (prio == MUTEX_NORMAL || !again) {
        for (goabt_waiter *q = m->waiters.head; q != NULL && (q->tag & MUTEX_PRIO) == MUTEX_HIGH;
             q = q->next) {
            after = q;
        }
    }
    goabt_waitlist_insert_after(&m->waiters, after, w);
}

static void mutex_waiter_cancelled(goabt_waiter *w);

/* The slow path of a lock: m was held. The caller waits until an unlock wakes it, then tries
 * again; a running caller may have taken m in between (barging, as Argobots, pthread and Go
 * mutexes allow: a woken waiter takes a while to run, and keeping m free meanwhile is what
 * makes a contended mutex fast). One that has waited STARVING_NS is handed m directly. */
static __attribute__((noinline)) void mutex_lock_slow(goabt_mutex *m, int prio, uintptr_t me)
{
    if ((mutex_flags(m) & GOABT_MUTEX_RECURSIVE) && owned_by(m, me)) {
        GOABT_ASSERT(m->nesting >= 0 && __atomic_load_n(&m->locked, __ATOMIC_RELAXED) != 0);
        m->nesting++;
        return;
    }
    GOABT_ASSERT_MSG(!owned_by(m, me), "a plain mutex locked again by its holder deadlocks");
    uint64_t since = 0;
    unsigned retries = 0;
    int starving = 0;
    int yields = prio == MUTEX_NORMAL && goabt_caller_parks();
    int holds_stream = caller_holds_stream();
    int others = 0; /* woken with others queued: it marks m for them before anything else */
    for (int again = 0;; again = 1) {
        if (yields && !starving && !others && yield_for(m, me)) {
            set_owner(m, me);
            return;
        }
        goabt_spin_lock(&m->lock);
        /* Marked "maybe waited for" before queueing: the holder's unlock then comes this way.
         * If the mutex was free meanwhile, the mark makes it ours (its unlock finds whoever
         * queued since). */
        if (__atomic_exchange_n(&m->locked, 2, __ATOMIC_ACQUIRE) == 0) {
            goabt_spin_unlock(&m->lock);
            set_owner(m, me);
            return;
        }
        /* Handed to a ULT that has not run since: ours instead (it waits again when it runs). */
        uintptr_t owner = __atomic_load_n(&m->owner, __ATOMIC_ACQUIRE);
        if (holds_stream && (owner & 1) && claim_handed(m, owner, me)) {
            goabt_spin_unlock(&m->lock);
            return;
        }
        uintptr_t tag = (uintptr_t)prio;
        if (holds_stream) {
            tag |= MUTEX_STREAM;
            __atomic_or_fetch(&m->flags, MUTEX_HAS_STREAM, __ATOMIC_RELAXED);
        }
        /* The clock is read every 16th retry only: a retry costs about 100 ns. */
        if (again && (++retries & 15) == 1) {
            uint64_t now = monotonic_ns();
            if (since == 0) since = now;
            if (now - since >= STARVING_NS) starving = 1;
        }
        if (starving) tag |= MUTEX_STARVING;
        goabt_waiter w;
        goabt_waiter_init(&w, tag, 0);
        goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_MUTEX, m);
        w.cancelled = mutex_waiter_cancelled;
        queue_waiter(m, &w, prio, again);
        goabt_wait(&w, &m->lock);
        GOABT_ASSERT_MSG(w.status == GOABT_WAIT_WOKEN && !w.linked, "lock waits have no deadline");
        /* Handed m: `locked` was never released in between. A ULT claims it first: a waiter
         * holding a stream may have taken it (then this one waits again, first in line). */
        if (w.tag & MUTEX_HANDED) {
            if (w.unit == NULL) break;
            if (claim_handed(m, handed_mark(&w), me)) return;
            others = 0;
            continue;
        }
        others = (w.tag & MUTEX_OTHERS) != 0;
    }
    set_owner(m, me);
}

static inline void mutex_lock(goabt_mutex *m, int prio)
{
    uintptr_t me = caller_id();
    if (!try_take(m, me)) mutex_lock_slow(m, prio, me);
}

/* The slow path of a release: m is marked 2, so waiters may be queued. They queue under the
 * spinlock, so with it held the list is complete, and no fast locker can take m meanwhile (it
 * is not 0). The first waiter is woken with m free (it races running callers for it), or,
 * if it is starving, handed m still held. Returns whether a waiter was woken. */
/* The first queued waiter that holds a stream's thread, taken out of its list; NULL (and the
 * flag cleared) if there is none. m->lock is held. */
static goabt_waiter *pop_stream_waiter(goabt_mutex *m)
{
    goabt_waitlist *lists[2] = {&m->waiters, &m->low};
    for (int i = 0; i < 2; i++) {
        for (goabt_waiter *q = lists[i]->head; q != NULL; q = q->next) {
            if (q->tag & MUTEX_STREAM) {
                goabt_waitlist_remove(lists[i], q);
                return q;
            }
        }
    }
    __atomic_and_fetch(&m->flags, ~(uint32_t)MUTEX_HAS_STREAM, __ATOMIC_RELAXED);
    return NULL;
}

static __attribute__((noinline)) int mutex_release_slow(goabt_mutex *m)
{
    goabt_spin_lock(&m->lock);
    /* Only its holder's unlock takes a mutex off 2 (lockers only mark it 2). */
    GOABT_ASSERT_MSG(__atomic_load_n(&m->locked, __ATOMIC_RELAXED) == 2,
                     "the slow release of a mutex marked %d", m->locked);
    GOABT_ASSERT((__atomic_load_n(&m->owner, __ATOMIC_RELAXED) & 1) == 0);
    goabt_waiter *w = NULL;
    if (mutex_flags(m) & MUTEX_HAS_STREAM) w = pop_stream_waiter(m);
    if (w == NULL) w = goabt_waitlist_pop(&m->waiters);
    if (w == NULL) w = goabt_waitlist_pop(&m->low);
    if (w == NULL) {
        __atomic_store_n(&m->locked, 0, __ATOMIC_RELEASE);
        goabt_spin_unlock(&m->lock);
        return 0;
    }
    int more = !goabt_waitlist_empty(&m->waiters) || !goabt_waitlist_empty(&m->low);
    GOABT_ASSERT(!(w->tag & (MUTEX_HANDED | MUTEX_OTHERS)) && !w->linked);
    if (w->tag & MUTEX_STARVING) {
        /* Still held: 2 if more wait, 1 if w was the last. A ULT's hand-over is marked in
         * owner until it claims it (a waiter holding a stream may take it meanwhile). */
        __atomic_store_n(&m->locked, more ? 2 : 1, __ATOMIC_RELAXED);
        if (w->unit != NULL) __atomic_store_n(&m->owner, handed_mark(w), __ATOMIC_RELEASE);
        w->tag |= MUTEX_HANDED;
    } else {
        /* Free: if others wait, w marks it 2 again when it retries (at once, without yielding
         * first), so whoever holds it next wakes the rest. */
        if (more) w->tag |= MUTEX_OTHERS;
        __atomic_store_n(&m->locked, 0, __ATOMIC_RELEASE);
    }
    goabt_spin_unlock(&m->lock);
    /* Mutex waits have no deadline, so the wake-up always lands. */
    goabt_wake(w);
    return 1;
}

/* Gives m up; returns whether a waiter was woken. The caller held it (a recursive one at its
 * last unlock). */
static inline int mutex_release(goabt_mutex *m)
{
    set_owner(m, 0);
    int held = __atomic_load_n(&m->locked, __ATOMIC_RELAXED);
    if (held == 1 && __atomic_compare_exchange_n(&m->locked, &held, 0, 0, __ATOMIC_RELEASE,
                                                 __ATOMIC_RELAXED)) {
        return 0; /* nobody marked it: nobody waits */
    }
    return mutex_release_slow(m);
}

/* A woken lock waiter (lock waits have no deadline) is cancelled before it retries
 * (goabt_wait_cancelled): what its wake gave it goes on. Handed m, it releases m; woken with
 * others queued, it marks m for them as its retry would have (and releases m if that found it
 * free, which wakes the next). */
static void mutex_waiter_cancelled(goabt_waiter *w)
{
    goabt_mutex *m = w->sync;
    GOABT_ASSERT(__atomic_load_n(&w->status, __ATOMIC_RELAXED) == GOABT_WAIT_WOKEN);
    if (w->tag & MUTEX_HANDED) {
        /* Unless a waiter holding a stream took the hand-over meanwhile. */
        if (w->unit == NULL || claim_handed(m, handed_mark(w), 0)) mutex_release(m);
    } else if ((w->tag & MUTEX_OTHERS) && __atomic_exchange_n(&m->locked, 2, __ATOMIC_ACQUIRE) == 0) {
        mutex_release_slow(m);
    }
}

/* Unlocks m; *woke says whether a waiter was woken. Argobots leaves unlocking a mutex the
 * caller does not hold undefined: goabt refuses one nobody holds (ABT_ERR_MUTEX) and otherwise
 * unlocks, whoever calls (a plain mutex may be unlocked by another unit than its locker). */
static inline int mutex_unlock(goabt_mutex *m, int *woke)
{
    *woke = 0;
    if (!(mutex_flags(m) & GOABT_MUTEX_RECURSIVE)) {
        /* Owner cleared first: once the mutex is free, the next holder writes its own. (An
         * unlock of a free mutex clears an owner that is 0 already.) No look at the word
         * before the compare-and-swap, as in try_take: it finds 0 (not held) or 2 itself. */
        set_owner(m, 0);
        int held = 1;
        if (__atomic_compare_exchange_n(&m->locked, &held, 0, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
            return ABT_SUCCESS;
        }
        if (held == 0) return ABT_ERR_MUTEX;
        *woke = mutex_release_slow(m);
        return ABT_SUCCESS;
    }
    if (__atomic_load_n(&m->locked, __ATOMIC_ACQUIRE) == 0) return ABT_ERR_MUTEX;
    if (m->nesting > 0 && owned_by(m, caller_id())) {
        m->nesting--;
        return ABT_SUCCESS;
    }
    GOABT_ASSERT(m->nesting >= 0);
    *woke = mutex_release(m);
    return ABT_SUCCESS;
}

int goabt_mutex_get_num_waiters(ABT_mutex mutex, int *num)
{
    goabt_mutex *m = goabt_object_of(mutex, GOABT_MAGIC_MUTEX, 1);
    if (m == NULL) return ABT_ERR_INV_MUTEX;
    if (num == NULL) return ABT_ERR_INV_ARG;
    goabt_spin_lock(&m->lock);
    int n = goabt_waitlist_count(&m->waiters) + goabt_waitlist_count(&m->low);
    goabt_spin_unlock(&m->lock);
    *num = n;
    return ABT_SUCCESS;
}

/* ---- For condition variables (mutex.h) ---------------------------------------------------- */

goabt_mutex *goabt_mutex_of(ABT_mutex h)
{
    return goabt_object_of(h, GOABT_MAGIC_MUTEX, 1);
}

int goabt_mutex_held_by_caller(goabt_mutex *m)
{
    return __atomic_load_n(&m->locked, __ATOMIC_ACQUIRE) && owned_by(m, caller_id());
}

int goabt_mutex_release_all(goabt_mutex *m)
{
    GOABT_ASSERT_MSG(goabt_mutex_held_by_caller(m), "a cond waiter holds its mutex");
    int nesting = m->nesting;
    m->nesting = 0;
    mutex_release(m);
    return nesting;
}

void goabt_mutex_retake(goabt_mutex *m, int nesting)
{
    mutex_lock(m, MUTEX_NORMAL);
    GOABT_ASSERT(goabt_mutex_held_by_caller(m) && m->nesting == 0 && nesting >= 0);
    m->nesting = nesting;
}

/* ---- The API ------------------------------------------------------------------------------- */

int ABT_mutex_create(ABT_mutex *newmutex)
{
    if (newmutex != NULL) *newmutex = ABT_MUTEX_NULL;
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newmutex);
    goabt_mutex *m = goabt_object_new(sizeof *m, GOABT_MAGIC_MUTEX);
    if (m == NULL) return ABT_ERR_MEM;
    *newmutex = m;
    return ABT_SUCCESS;
}

int ABT_mutex_create_with_attr(ABT_mutex_attr attr, ABT_mutex *newmutex)
{
    if (newmutex != NULL) *newmutex = ABT_MUTEX_NULL;
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    uint32_t flags = 0;
    if (attr != ABT_MUTEX_ATTR_NULL) {
        RESOLVE_ATTR(a, attr);
        flags = a->flags;
    }
    GOABT_CHECK_OUT(newmutex);
    goabt_mutex *m = goabt_object_new(sizeof *m, GOABT_MAGIC_MUTEX);
    if (m == NULL) return ABT_ERR_MEM;
    m->flags = flags;
    *newmutex = m;
    return ABT_SUCCESS;
}

int ABT_mutex_free(ABT_mutex *mutex)
{
    GOABT_CHECK_OUT(mutex);
    goabt_mutex *m = goabt_object_of(*mutex, GOABT_MAGIC_MUTEX, 0);
    if (m == NULL) return ABT_ERR_INV_MUTEX; /* static memory is not freed */
    goabt_spin_lock(&m->lock);
    int waited = !goabt_waitlist_empty(&m->waiters) || !goabt_waitlist_empty(&m->low) ||
                 __atomic_load_n(&m->yielders, __ATOMIC_RELAXED) != 0;
    goabt_spin_unlock(&m->lock);
    if (waited) return ABT_ERR_MUTEX; /* they would wait on freed memory forever */
    goabt_object_delete(m, sizeof *m);
    *mutex = ABT_MUTEX_NULL;
    return ABT_SUCCESS;
}

int ABT_mutex_lock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    mutex_lock(m, MUTEX_NORMAL);
    return ABT_SUCCESS;
}

int ABT_mutex_lock_high(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    mutex_lock(m, MUTEX_HIGH);
    return ABT_SUCCESS;
}

int ABT_mutex_lock_low(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    mutex_lock(m, MUTEX_LOW);
    return ABT_SUCCESS;
}

int ABT_mutex_trylock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    uintptr_t me = caller_id();
    if (try_take(m, me)) return ABT_SUCCESS;
    if ((mutex_flags(m) & GOABT_MUTEX_RECURSIVE) && owned_by(m, me)) {
        m->nesting++;
        return ABT_SUCCESS;
    }
    goabt_give_way_to_main();
    return ABT_ERR_MUTEX_LOCKED;
}

int ABT_mutex_spinlock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    uintptr_t me = caller_id();
    if ((mutex_flags(m) & GOABT_MUTEX_RECURSIVE) && owned_by(m, me) &&
        __atomic_load_n(&m->locked, __ATOMIC_ACQUIRE)) {
        m->nesting++;
        return ABT_SUCCESS;
    }
    /* Spins without yielding, as its name says; after a while it waits like ABT_mutex_lock (a
     * ULT yields a few times, then queues) rather than burn the CPU its holder may need (the
     * holder may share this stream). */
    for (unsigned spins = 0; spins < 4096; spins++) {
        if (__atomic_load_n(&m->locked, __ATOMIC_RELAXED) == 0 && try_take(m, me)) {
            return ABT_SUCCESS;
        }
        cpu_relax();
    }
    mutex_lock(m, MUTEX_NORMAL);
    return ABT_SUCCESS;
}

/* The unlocks and a failed trylock give way to the main ULT where it waits for the primary
 * (unit.h, goabt_give_way_to_main). */
int ABT_mutex_unlock(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    int woke;
    int rc = mutex_unlock(m, &woke);
    goabt_give_way_to_main();
    return rc;
}

int ABT_mutex_unlock_se(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    int woke;
    int rc = mutex_unlock(m, &woke);
    /* Let the woken waiter run soon: a ULT caller yields. */
    if (rc == ABT_SUCCESS && woke && goabt_caller_parks()) {
        goabt_unit_yield();
    } else {
        goabt_give_way_to_main();
    }
    return rc;
}

int ABT_mutex_unlock_de(ABT_mutex mutex)
{
    RESOLVE_MUTEX(m, mutex);
    int woke;
    int rc = mutex_unlock(m, &woke);
    goabt_give_way_to_main();
    return rc;
}

int ABT_mutex_equal(ABT_mutex mutex1, ABT_mutex mutex2, ABT_bool *result)
{
    GOABT_CHECK_OUT(result);
    *result = mutex1 == mutex2 ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_mutex_get_attr(ABT_mutex mutex, ABT_mutex_attr *attr)
{
    RESOLVE_MUTEX(m, mutex);
    GOABT_CHECK_OUT(attr);
    struct ABT_mutex_attr_opaque *a = goabt_object_new(sizeof *a, GOABT_MAGIC_MUTEX_ATTR);
    if (a == NULL) return ABT_ERR_MEM;
    a->flags = mutex_flags(m) & GOABT_MUTEX_RECURSIVE;
    *attr = a;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_create(ABT_mutex_attr *newattr)
{
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newattr);
    struct ABT_mutex_attr_opaque *a = goabt_object_new(sizeof *a, GOABT_MAGIC_MUTEX_ATTR);
    if (a == NULL) return ABT_ERR_MEM;
    *newattr = a;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_free(ABT_mutex_attr *attr)
{
    GOABT_CHECK_OUT(attr);
    RESOLVE_ATTR(a, *attr);
    goabt_object_delete(a, sizeof *a);
    *attr = ABT_MUTEX_ATTR_NULL;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_set_recursive(ABT_mutex_attr attr, ABT_bool recursive)
{
    RESOLVE_ATTR(a, attr);
    a->flags = recursive ? GOABT_MUTEX_RECURSIVE : 0;
    return ABT_SUCCESS;
}

int ABT_mutex_attr_get_recursive(ABT_mutex_attr attr, ABT_bool *recursive)
{
    RESOLVE_ATTR(a, attr);
    GOABT_CHECK_OUT(recursive);
    *recursive = (a->flags & GOABT_MUTEX_RECURSIVE) ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}
