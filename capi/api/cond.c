//go:build goabt_c_engine
/* cond.c: condition variables (ABT_cond_*).
 *
 * A condition variable is 64 bytes that work from all zero (ABT_cond_memory with
 * ABT_COND_INITIALIZER). Waiters queue in a wait list under the spinlock `lock` (wait.h): a ULT
 * parks, an external thread sleeps; a timed wait carries its deadline. A waiter is queued, under
 * the lock, before it releases the mutex, so a signal sent by anyone who then takes the mutex
 * finds it: no wake-up is lost, and none is spurious (a wait returns only when signalled or timed
 * out). All waiters at once must use one mutex, as in Argobots: the cond remembers it while
 * anyone waits. */
#include "args.h"
#include "engine/mutex.h"
#include "engine/handles.h"
#include "engine/object.h"
#include "engine/wait.h"

struct ABT_cond_opaque {
    uint32_t flags;
    uint32_t magic; /* GOABT_MAGIC_COND, or in static memory 0 then its static magic */
    int lock;       /* spinlock over the fields below */
    int pad;
    goabt_mutex *mutex;     /* the mutex the current waiters use, NULL when none waits */
    goabt_waitlist waiters; /* FIFO */
};
_Static_assert(sizeof(struct ABT_cond_opaque) <= sizeof(ABT_cond_memory),
               "a condition variable must fit ABT_cond_memory");

typedef struct ABT_cond_opaque goabt_cond;

#define RESOLVE_COND(c, h)                                                                    \
    GOABT_RESOLVE_OBJECT(goabt_cond, c, h, GOABT_MAGIC_COND, 1, ABT_ERR_INV_COND)

int ABT_cond_create(ABT_cond *newcond)
{
    if (newcond != NULL) *newcond = ABT_COND_NULL;
    GOABT_CHECK_NOT_FORKED(); /* a child forked after use: every call errs */
    GOABT_CHECK_OUT(newcond);
    goabt_cond *c = goabt_object_new(sizeof *c, GOABT_MAGIC_COND);
    if (c == NULL) return ABT_ERR_MEM;
    *newcond = c;
    return ABT_SUCCESS;
}

int ABT_cond_free(ABT_cond *cond)
{
    GOABT_CHECK_OUT(cond);
    goabt_cond *c = goabt_object_of(*cond, GOABT_MAGIC_COND, 0);
    if (c == NULL) return ABT_ERR_INV_COND; /* static memory is not freed */
    goabt_spin_lock(&c->lock);
    int waited = !goabt_waitlist_empty(&c->waiters);
    goabt_spin_unlock(&c->lock);
    if (waited) return ABT_ERR_COND; /* its waiters would never be woken */
    goabt_object_delete(c, sizeof *c);
    *cond = ABT_COND_NULL;
    return ABT_SUCCESS;
}

/* What a timed-out waiter does on its way out: the cond forgets the mutex once nobody waits. */
static void cond_timed_out(goabt_cond *c)
{
    goabt_spin_lock(&c->lock);
    if (goabt_waitlist_empty(&c->waiters)) c->mutex = NULL;
    goabt_spin_unlock(&c->lock);
}

/* A timed-out waiter cancelled before it returns (goabt_wait_cancelled) does it instead. One
 * signalled and cancelled has nothing to do (the waker forgot the mutex if it took the last). */
static void cond_waiter_cancelled(goabt_waiter *w)
{
    if (__atomic_load_n(&w->status, __ATOMIC_ACQUIRE) == GOABT_WAIT_TIMEDOUT) cond_timed_out(w->sync);
}

/* Waits on c with m held, until signalled or (deadline != 0) the deadline. */
static int cond_wait(ABT_cond cond, ABT_mutex mutex, uint64_t deadline)
{
    RESOLVE_COND(c, cond);
    goabt_mutex *m = goabt_mutex_of(mutex);
    if (m == NULL) return ABT_ERR_INV_MUTEX;
    if (!goabt_mutex_held_by_caller(m)) return ABT_ERR_INV_MUTEX;
    /* Argobots 1.x refuses an untimed wait from a tasklet: it would block its whole stream
     * with no end in sight. A timed wait is allowed (the stream's thread sleeps). */
    if (deadline == 0 && goabt_caller_is_tasklet()) return ABT_ERR_COND;
    goabt_spin_lock(&c->lock);
    if (c->mutex != NULL && c->mutex != m) {
        goabt_spin_unlock(&c->lock);
        return ABT_ERR_INV_MUTEX; /* other waiters use another mutex */
    }
    GOABT_ASSERT_MSG(c->mutex == m || goabt_waitlist_empty(&c->waiters),
                     "a cond's waiters all use one mutex");
    c->mutex = m;
    goabt_waiter w;
    goabt_waiter_init(&w, 0, deadline);
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_COND, c);
    w.cancelled = cond_waiter_cancelled;
    goabt_waitlist_push(&c->waiters, &w);
    /* Queued first, then the mutex goes: a signaller that takes the mutex after this finds w. */
    int nesting = goabt_mutex_release_all(m);
    int status = goabt_wait(&w, &c->lock);
    GOABT_ASSERT(!w.linked && (status == GOABT_WAIT_WOKEN || (deadline != 0 && status == GOABT_WAIT_TIMEDOUT)));
    if (status == GOABT_WAIT_TIMEDOUT) cond_timed_out(c);
    goabt_mutex_retake(m, nesting);
    return status == GOABT_WAIT_TIMEDOUT ? ABT_ERR_COND_TIMEDOUT : ABT_SUCCESS;
}

int ABT_cond_wait(ABT_cond cond, ABT_mutex mutex)
{
    return cond_wait(cond, mutex, 0);
}

int ABT_cond_timedwait(ABT_cond cond, ABT_mutex mutex, const struct timespec *abstime)
{
    if (abstime == NULL) return ABT_ERR_INV_ARG;
    return cond_wait(cond, mutex, goabt_timespec_ns(abstime));
}

/* Wakes one waiter (all of them with all), skipping those whose deadline won meanwhile. The
 * waiters are claimed under the lock and woken after it is released: a woken waiter may return
 * and its cond go (a static one on its stack, say) before a waker that still held the lock
 * would release it. */
static int cond_wake(ABT_cond cond, int all)
{
    RESOLVE_COND(c, cond);
    /* Nobody waits: nothing to take the lock for. A waiter queues before it releases the mutex,
     * so a signaller that holds the mutex (or took it after the waiter released it) sees it. */
    if (__atomic_load_n(&c->waiters.head, __ATOMIC_ACQUIRE) == NULL) return ABT_SUCCESS;
    goabt_spin_lock(&c->lock);
    goabt_waiter *claimed = goabt_waitlist_claim(&c->waiters, all);
    if (goabt_waitlist_empty(&c->waiters)) c->mutex = NULL;
    goabt_spin_unlock(&c->lock);
    goabt_wake_claimed(claimed);
    return ABT_SUCCESS;
}

int ABT_cond_signal(ABT_cond cond)
{
    return cond_wake(cond, 0);
}

int ABT_cond_broadcast(ABT_cond cond)
{
    return cond_wake(cond, 1);
}
