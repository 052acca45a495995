//go:build goabt_c_engine
/* pool.c: what every pool has, whatever its kind (pool.h, top): the engine's push, pop, remove
 * and size, which take the FIFO inline and call other kinds' ops; retired pools that forward;
 * parked counts; the idle streams asleep on each pool. And the built-in kind, goabt_fifo_ops:
 * FIFO queues of ready units under a spinlock (ABT_POOL_FIFO, FIFO_WAIT, RANDWS). Access modes
 * are hints, as in Argobots 1.2: every pool is safe for any producer and consumer. */
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "goabt.h"
#include "handles.h"
#include "leaks.h"
#include "object.h"
#include "info_facts.h"
#include "pool.h"
#include "pool_member.h"
#include "runtime.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"

#define spin_lock goabt_spin_lock
#define spin_unlock goabt_spin_unlock

static inline int is_fifo(goabt_pool *p) { return p->ops == &goabt_fifo_ops; }

goabt_pool *goabt_pool_new(const struct goabt_pool_ops *ops, unsigned caps, int kind, int access,
                           int automatic)
{
    goabt_pool *p = goabt_mem_new(sizeof *p);
    if (!p) return NULL;
    p->ops = ops;
    p->caps = caps;
    p->kind = kind;
    p->access = access;
    p->automatic = automatic;
    p->id = __atomic_fetch_add(&goabt_rt.next_pool_id, 1, __ATOMIC_RELAXED);
    static uint32_t last_serial; /* process-wide: pool ids start again at each ABT_init */
    uint32_t serial;
    do {
        serial = __atomic_add_fetch(&last_serial, 1, __ATOMIC_RELAXED);
    } while (serial == 0);
    p->serial = serial;
    __atomic_store_n(&p->magic, goabt_runtime_magic(GOABT_MAGIC_POOL), __ATOMIC_RELEASE);
    return p;
}

goabt_pool *goabt_fifo_new(int kind, int access, int automatic)
{
    return goabt_pool_new(&goabt_fifo_ops,
                          GOABT_POOL_CAN_SIZE | GOABT_POOL_CAN_REMOVE | GOABT_POOL_CAN_LIST, kind,
                          access, automatic);
}

/* u may be pushed: ready (its pusher holds it) and in no queue: no links in a FIFO, not queued
 * in a pool of another kind (pool_member.h). */
static inline int unit_pushable(goabt_unit *u)
{
    return __atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY &&
           u->next == NULL && u->prev == NULL && !goabt_pool_member_queued_outside(u);
}

void goabt_pool_delete(goabt_pool *p)
{
    GOABT_LEAK_FORGET(p);
    /* A retired pool keeps the use its retirement added (goabt_sched_retire). */
    GOABT_ASSERT_MSG(__atomic_load_n(&p->num_scheds, __ATOMIC_RELAXED) == (p->forward != NULL),
                     "pool %d freed while %d schedulers use it", p->id, p->num_scheds);
    /* Other kinds keep no units in head (their free drops theirs); a retired FIFO gave its
     * queue away. */
    GOABT_ASSERT_MSG(p->head == NULL, "pool %d freed holding %zu units", p->id, p->size);
    GOABT_ASSERT(p->sleepers == NULL);
    GOABT_ASSERT_MSG(goabt_waitlist_empty(&p->pop_waiters),
                     "pool %d freed while callers wait in ABT_pool_pop_wait on it", p->id);
    if (p->ops->free != NULL) p->ops->free(p); /* still a pool: a user's free may get its data */
    /* Units that ended and are not freed yet may still name it as the pool of their pool units
     * (Argobots' free_unit comes with ABT_thread_free): they read its memory, which stays
     * readable, and find it freed or another object (goabt_unit_drop_user_unit). */
    goabt_mem_delete(p, sizeof *p);
}

void goabt_pool_release(goabt_pool *p)
{
    int left = __atomic_sub_fetch(&p->num_scheds, 1, __ATOMIC_ACQ_REL);
    GOABT_ASSERT_MSG(left >= 0, "pool %d released by more schedulers than used it", p->id);
    if (left == 0 && p->automatic) goabt_pool_delete(p);
}

/* Takes off p's sleepers the first stream that this call wakes (its sleep word turns from 0 to
 * 1), holding it against being freed; p's lock is held. Sleepers register under this lock
 * (goabt_pool_sleeper_add), so no fence is needed: a stream listed before a push is seen here,
 * one listed after it sees the unit when it takes its last look. One is woken: one unit needs
 * one stream. A listed stream may have woken already (by another push, or by itself) and not
 * yet taken its nodes off: only the one whose sleep word this push turns from 0 to 1 counts,
 * else the next is tried. (A stream between listing itself and its last look still counts: it
 * will find this unit, but may run another pool's first.) */
static goabt_stream *take_sleeper_slow(goabt_pool *p)
{
    goabt_stream *wake = NULL;
    goabt_sleeper *n;
    GOABT_ASSERT_LOCKED(&p->lock);
    while (wake == NULL && (n = p->sleepers) != NULL) {
        GOABT_ASSERT(n->linked && n->prev == NULL && n->stream != NULL);
        p->sleepers = n->next;
        if (n->next) n->next->prev = NULL;
        n->linked = 0;
        if (__atomic_exchange_n(&n->stream->sleep_word, 1, __ATOMIC_SEQ_CST) == 0) {
            wake = n->stream;
            __atomic_add_fetch(&wake->wakers, 1, __ATOMIC_ACQ_REL); /* keeps it from being freed */
            goabt_stream_note_waker(wake);
        }
    }
    return wake;
}

static inline goabt_stream *take_sleeper_locked(goabt_pool *p)
{
    return p->sleepers == NULL ? NULL : take_sleeper_slow(p);
}

static void wake_stream(goabt_stream *wake)
{
    if (wake != NULL) {
        goabt_futex_wake(&wake->sleep_word, 1);
        __atomic_sub_fetch(&wake->wakers, 1, __ATOMIC_RELEASE);
    }
}

/* Whether pushes into p order themselves with idle streams by the sleepers' membarrier, not a
 * fence of their own: user C pools (GOABT_POOL_OPS_ASYM_PUSH), when the kernel lets us. Go
 * pools keep their fence: their push costs a crossing into Go anyway, and an idle stream over
 * them then spares every other thread the membarrier's interrupt. */
static int pushes_asym(goabt_pool *p)
{
    return (p->ops->flags & GOABT_POOL_OPS_ASYM_PUSH) &&
           __atomic_load_n(&goabt_rt.asym_fence, __ATOMIC_RELAXED);
}

void goabt_pool_wake_sleeper(goabt_pool *p)
{
    /* After a push into a kind other than the FIFO, which took none of our locks: its stores, a fence, then a look
     * at the sleepers; an idle stream lists itself, fences, then looks at the pool
     * (goabt_pool_sleepers_fence). One of the two sees the other. The push's fence is a full
     * one, or, for a user C pool, only the compiler's: the idle stream's membarrier then acts
     * as a full fence in every thread of the process (a push into a user FIFO: 7 ns less). */
    if (p->ops->flags & GOABT_POOL_OPS_COUNTED) {
        /* A Go pool's push raised its count with a sequentially consistent read-modify-write
         * (go_push), a full fence already: the look below is sequentially consistent too. */
    } else if (pushes_asym(p)) {
        __asm__ __volatile__("" ::: "memory");
    } else {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    if (__atomic_load_n(&p->sleepers, __ATOMIC_SEQ_CST) == NULL) return;
    spin_lock(&p->lock);
    goabt_stream *wake = take_sleeper_locked(p);
    spin_unlock(&p->lock);
    wake_stream(wake);
}

/* A parked unit of `origin` made ready is no longer counted as blocked there. */
void goabt_pool_uncount_parked(goabt_pool *origin)
{
    spin_lock(&origin->lock);
    GOABT_ASSERT_MSG(origin->num_unparked < origin->num_parked,
                     "pool %d: a unit uncounted that was not counted as parked", origin->id);
    __atomic_store_n(&origin->num_unparked, origin->num_unparked + 1, __ATOMIC_RELEASE);
    spin_unlock(&origin->lock);
}

void goabt_pool_pushed(goabt_pool *p, goabt_pool *counted)
{
    if (counted != NULL) goabt_pool_uncount_parked(counted);
    goabt_pool_wake_sleeper(p);
}

/* A push into a pool of another kind, whose ops do it (out of line: the FIFO's push stays
 * small). */
static __attribute__((noinline)) void other_push(goabt_pool *p, goabt_unit *u, goabt_pool *counted,
                                                 ABT_pool_context ctx)
{
    GOABT_ASSERT(!is_fifo(p) && p->forward == NULL);
    p->ops->push(p, u, counted, ctx);
}

/* Pushes u into p; counted: the pool a parked unit was counted as blocked in, uncounted now
 * (NULL for a unit that was not parked); ctx: why, for a user pool's push. The FIFO's push
 * (its ops' push), taken inline; it is also where a retired pool of any kind forwards. */
static void pool_push(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx)
{
    GOABT_ASSERT_MSG(unit_pushable(u), "a unit pushed is READY and in no pool (state %d)",
                     __atomic_load_n(&u->state, __ATOMIC_RELAXED));
    if (__builtin_expect(!is_fifo(p), 0) && p->forward == NULL) {
        other_push(p, u, counted, ctx);
        return;
    }
    spin_lock(&p->lock);
    /* Uncounted with the push, in the same locked section, and after it is queued: readers of
     * both counts take no lock (goabt_sched_has_work reads the blocked count, then the size),
     * so one that sees it no longer blocked must see it queued, never neither, or a stacked
     * scheduler stops with it queued (seen: a woken mutex waiter left in a pool nobody ran,
     * its waker preempted between the two stores). */
    int uncount = counted == p && is_fifo(p);
    if (uncount) counted = NULL;
    GOABT_ASSERT(!uncount || p->num_unparked < p->num_parked);
    if (uncount && p->forward != NULL) {
        /* Retired: in no scheduler any more, so the order does not matter there. */
        __atomic_store_n(&p->num_unparked, p->num_unparked + 1, __ATOMIC_RELEASE);
        uncount = 0;
    }
    while (p->forward != NULL) { /* retired: its units live on elsewhere */
        goabt_pool *to = p->forward;
        GOABT_ASSERT(to != p && p->head == NULL);
        spin_unlock(&p->lock);
        p = to;
        spin_lock(&p->lock);
    }
    if (__builtin_expect(!is_fifo(p), 0)) { /* forwarded to a pool of another kind */
        spin_unlock(&p->lock);
        other_push(p, u, counted, ctx);
        return;
    }
    goabt_pool_member_link_tail(p, u);
    if (uncount) __atomic_store_n(&p->num_unparked, p->num_unparked + 1, __ATOMIC_RELEASE);
    goabt_stream *wake = take_sleeper_locked(p);
    /* One caller in ABT_pool_pop_wait* is claimed here and woken after the lock is released;
     * nothing done then reads p, which may be freed by then (its last unit may run and its
     * stream go meanwhile): a claimed waiter stays valid until woken (wait.h). */
    goabt_waiter *popper = NULL;
    if (__builtin_expect(!goabt_waitlist_empty(&p->pop_waiters), 0)) {
        popper = goabt_waitlist_claim(&p->pop_waiters, 0);
    }
    spin_unlock(&p->lock);
    if (counted != NULL) goabt_pool_uncount_parked(counted); /* it parked in another pool */
    if (wake != NULL) wake_stream(wake);
    if (popper != NULL) goabt_wake_finish(popper);
}

void goabt_pool_push(goabt_pool *p, goabt_unit *u) { pool_push(p, u, NULL, ABT_POOL_CONTEXT_OP_POOL_OTHER); }
void goabt_pool_push_op(goabt_pool *p, goabt_unit *u, ABT_pool_context ctx)
{
    pool_push(p, u, NULL, ctx);
}
void goabt_pool_push_unparked(goabt_pool *p, goabt_unit *u, goabt_pool *counted)
{
    pool_push(p, u, counted, ABT_POOL_CONTEXT_OP_THREAD_RESUME);
}
void goabt_pool_push_from(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx)
{
    pool_push(p, u, counted, ctx);
}

void goabt_pool_sleeper_add(goabt_pool *p, goabt_sleeper *n)
{
    n->stream = goabt_self_stream();
    GOABT_ASSERT_MSG(n->stream != NULL && n->stream->current == NULL,
                     "only a stream's own scheduler sleeps on its pools");
    spin_lock(&p->lock);
    GOABT_ASSERT_MSG(!n->linked && p->sleepers != n, "a sleeper is listed once");
    n->prev = NULL;
    n->next = p->sleepers;
    if (n->next) n->next->prev = n;
    p->sleepers = n;
    n->linked = 1;
    spin_unlock(&p->lock);
}

int goabt_pool_get_num_idle_streams(ABT_pool pool, int *num)
{
    goabt_pool *p = goabt_pool_of(pool);
    if (p == NULL) return ABT_ERR_INV_POOL;
    if (num == NULL) return ABT_ERR_INV_ARG;
    int n = 0;
    spin_lock(&p->lock);
    for (goabt_sleeper *s = p->sleepers; s != NULL; s = s->next) n++;
    n += goabt_waitlist_count(&p->pop_waiters);
    spin_unlock(&p->lock);
    *num = n;
    return ABT_SUCCESS;
}

void goabt_pool_sleeper_remove(goabt_pool *p, goabt_sleeper *n)
{
    spin_lock(&p->lock);
    GOABT_ASSERT(n->stream == goabt_self_stream());
    if (n->linked) { /* else a push took it off to wake it */
        GOABT_ASSERT(n->prev != NULL ? n->prev->next == n : p->sleepers == n);
        GOABT_ASSERT(n->next == NULL || n->next->prev == n);
        if (n->prev) {
            n->prev->next = n->next;
        } else {
            p->sleepers = n->next;
        }
        if (n->next) n->next->prev = n->prev;
        n->linked = 0;
    }
    spin_unlock(&p->lock);
}

int goabt_pool_sleepers_fence(goabt_pool **pools, int n)
{
    int heavy = 0, light = 0;
    for (int i = 0; i < n; i++) {
        if (pools[i]->ops->flags & GOABT_POOL_OPS_LOCKED_QUEUE) continue; /* its lock orders it */
        if (pushes_asym(pools[i])) {
            heavy = 1;
        } else {
            light = 1;
        }
    }
    if (heavy) {
        /* A full fence in every running thread of the process, this one included. */
        if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return 1;
        /* Refused after all: pushes fence from now on, and this sleep is short. */
        __atomic_store_n(&goabt_rt.asym_fence, 0, __ATOMIC_SEQ_CST);
        return 0;
    }
    if (light) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 1;
}

/* Retired pools, kept until finalize: a parked ULT may still name one (goabt_pool_retire). */
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static goabt_pool **retired;
static int num_retired, cap_retired;

void goabt_pool_retire(goabt_pool *p, goabt_pool *to)
{
    GOABT_ASSERT_MSG(p->forward == NULL && to != p && to->forward == NULL,
                     "a pool is retired once, to a live pool");
    p->magic = GOABT_MAGIC_FREED; /* no longer a pool the program may use */
    GOABT_LEAK_FORGET(p);
    spin_lock(&p->lock);
    GOABT_ASSERT_FIFO_QUEUE(p);
    p->forward = to;
    goabt_unit *queued = p->head;
    p->head = p->tail = NULL;
    __atomic_store_n(&p->size, 0, __ATOMIC_RELAXED);
    spin_unlock(&p->lock);
    while (queued != NULL) { /* each out of the old queue's links first, as a pop leaves it */
        goabt_unit *u = queued;
        queued = u->next;
        u->next = u->prev = NULL;
        goabt_pool_push(to, u);
    }
    if (!is_fifo(p)) { /* a kind that keeps its units itself */
        goabt_unit *u;
        while ((u = p->ops->pop(p, ABT_POOL_CONTEXT_OP_POOL_OTHER)) != NULL) goabt_pool_push(to, u);
    }
    pthread_mutex_lock(&retired_lock);
    if (num_retired == cap_retired) {
        int cap = cap_retired ? 2 * cap_retired : 8;
        goabt_pool **grown = realloc(retired, (size_t)cap * sizeof *grown);
        if (grown != NULL) {
            retired = grown;
            cap_retired = cap;
        }
    }
    if (num_retired < cap_retired) retired[num_retired++] = p; /* else leaked, never freed */
    pthread_mutex_unlock(&retired_lock);
}

void goabt_pools_free_retired(void)
{
    pthread_mutex_lock(&retired_lock);
    for (int i = 0; i < num_retired; i++) goabt_pool_delete(retired[i]);
    num_retired = 0;
    pthread_mutex_unlock(&retired_lock);
}

static size_t fifo_size(goabt_pool *p) { return __atomic_load_n(&p->size, __ATOMIC_ACQUIRE); }

size_t goabt_pool_size(goabt_pool *p)
{
    if (!is_fifo(p)) return p->ops->size(p);
    return fifo_size(p);
}

size_t goabt_pool_size_locked(goabt_pool *p)
{
    /* Another kind's push looks at the sleepers without our lock: the caller fenced after it
     * listed itself (goabt_pool_sleepers_fence). */
    if (!is_fifo(p)) return p->ops->size(p);
    spin_lock(&p->lock);
    GOABT_ASSERT_FIFO_QUEUE(p);
    size_t n = p->size;
    spin_unlock(&p->lock);
    return n;
}

/* The FIFO's pop: its first unit, or NULL. */
static inline goabt_unit *fifo_pop_first(goabt_pool *p)
{
    spin_lock(&p->lock);
    goabt_unit *u = p->head;
    if (u) {
        /* Its context's line, which the run reads next: fetched meanwhile (unit.h, "unit
         * lines"). */
        __builtin_prefetch((char *)u + 128, 0);
        goabt_pool_member_unlink_head(p, u);
    }
    GOABT_ASSERT_FIFO_QUEUE(p);
    spin_unlock(&p->lock);
    return u;
}

static goabt_unit *fifo_pop(goabt_pool *p, ABT_pool_context ctx)
{
    (void)ctx;
    if (__atomic_load_n(&p->size, __ATOMIC_RELAXED) == 0) return NULL;
    return fifo_pop_first(p);
}

goabt_unit *goabt_pool_pop(goabt_pool *p) { return goabt_pool_pop_op(p, ABT_POOL_CONTEXT_OWNER_PRIMARY); }

goabt_unit *goabt_pool_pop_op(goabt_pool *p, ABT_pool_context ctx)
{
    /* Other kinds keep p->size 0: one load tells an empty FIFO and any other kind. */
    if (__atomic_load_n(&p->size, __ATOMIC_RELAXED) == 0) {
        return is_fifo(p) ? NULL : p->ops->pop(p, ctx);
    }
    return fifo_pop_first(p);
}

void goabt_pool_count_parked(goabt_pool *p)
{
    spin_lock(&p->lock);
    __atomic_store_n(&p->num_parked, p->num_parked + 1, __ATOMIC_RELEASE);
    spin_unlock(&p->lock);
}

/* Whether after_yield's push of yielder into p would do no more than queue it: no request of
 * the yielder's to take up, p not retired, no thread in goabt_pool_pop_wait to signal. */
static inline int push_only_queues(goabt_pool *p, goabt_unit *yielder)
{
    return p->forward == NULL && __atomic_load_n(&p->pop_waiters.head, __ATOMIC_RELAXED) == NULL &&
           __atomic_load_n(&yielder->request, __ATOMIC_ACQUIRE) == 0;
}

int goabt_pool_yield_alone(goabt_pool *p, goabt_unit *yielder)
{
    return is_fifo(p) && __atomic_load_n(&p->size, __ATOMIC_RELAXED) == 0 &&
           push_only_queues(p, yielder);
}

goabt_unit *goabt_pool_pop_ult(goabt_pool *p, int *stop, goabt_pool *park, int *counted,
                               goabt_unit *yielder, int *requeued)
{
    if (!(p->ops->flags & GOABT_POOL_OPS_LOCKED_QUEUE)) {
        *stop = 1; /* its units are its kind's to hand out, to the scheduler */
        return NULL;
    }
    if (__atomic_load_n(&p->size, __ATOMIC_RELAXED) == 0) return NULL;
    spin_lock(&p->lock);
    GOABT_ASSERT(yielder == NULL || park == NULL);
    if (park == p) { /* one locked section for the pop and the count */
        GOABT_ASSERT(p->num_parked >= p->num_unparked);
        __atomic_store_n(&p->num_parked, p->num_parked + 1, __ATOMIC_RELEASE);
        *counted = 1;
    }
    goabt_unit *u = p->head;
    if (u != NULL && (u->kind != GOABT_ULT || (u->flags & GOABT_UNIT_MAIN) ||
                      __atomic_load_n(&u->request, __ATOMIC_ACQUIRE) != 0)) {
        *stop = 1;
        u = NULL;
    }
    if (u == NULL) {
        spin_unlock(&p->lock);
        return NULL;
    }
    goabt_pool_member_unlink_head(p, u);
    /* The yielder goes where after_yield's push would put it, in this locked section, when that
     * push would only queue it. The pool keeps its size: no sleeper is owed a wake-up. */
    if (yielder != NULL && u->ctx != NULL && push_only_queues(p, yielder)) {
        GOABT_ASSERT_MSG(yielder->pool == p && yielder != u &&
                             __atomic_load_n(&yielder->state, __ATOMIC_RELAXED) ==
                                 ABT_THREAD_STATE_RUNNING,
                         "a requeued yielder runs, and goes back to its own pool");
        goabt_pool_member_link_tail(p, yielder);
        *requeued = 1;
        return u; /* p's lock stays held: goabt_pool_requeued */
    }
    spin_unlock(&p->lock);
    return u;
}

void goabt_pool_requeued(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_LOCKED(&p->lock); /* held since goabt_pool_pop_ult */
    GOABT_ASSERT_MSG(goabt_pool_member_linked(p, u), "a requeued unit waits queued in its pool");
    GOABT_ASSERT(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_RUNNING);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    spin_unlock(&p->lock);
}

/* ---- ABT_pool_pop_wait*: waiting for a push ---------------------------------------------------
 *
 * A caller that finds the pool empty waits in its pop_waiters as every blocking caller waits
 * (wait.h): a ULT parks, and its stream runs other units meanwhile; an external thread, a
 * tasklet or a scheduler's context (a user scheduler's run, a BASIC_WAIT-like loop) sleeps on
 * its waiter's futex word; a deadline is the timer list's (ULTs) or the futex's (threads). A
 * push claims one waiter under the pool's lock and wakes it after; the waiter pops again, and
 * waits again if another popper took the unit first. */

static int pool_has_units(goabt_pool *p)
{
    /* A Go pool counts its units in C (pool_go.c); a built-in pool's size is read under its
     * lock, which the caller holds. */
    if (p->ops->flags & GOABT_POOL_OPS_COUNTED) return __atomic_load_n(&p->counted, __ATOMIC_SEQ_CST) > 0;
    return p->size != 0;
}

/* A ULT a push woke from goabt_pool_wait_push is cancelled before it pops: the wake-up is
 * passed on to another waiter, so that the unit it was for does not wait for the next push. */
static void pop_waiter_cancelled(goabt_waiter *w)
{
    if (__atomic_load_n(&w->status, __ATOMIC_ACQUIRE) != GOABT_WAIT_WOKEN) return;
    goabt_pool_wake_pop_waiter(w->sync);
}

int goabt_pool_wait_push(goabt_pool *p, uint64_t deadline)
{
    goabt_waiter w;
    goabt_waiter_init(&w, 0, deadline);
    goabt_waiter_on(&w, ABT_SYNC_EVENT_TYPE_OTHER, p);
    w.cancelled = pop_waiter_cancelled;
    spin_lock(&p->lock);
    goabt_waitlist_push(&p->pop_waiters, &w);
    /* Listed, then a last look: a built-in pool's push reads the list under this lock; a Go
     * pool's raises its count, then reads the list's head without it (goabt_pool_wake_pop_waiter),
     * so the listing is ordered before the look by a fence. One of the two sees the other. */
    if (p->ops->flags & GOABT_POOL_OPS_COUNTED) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (pool_has_units(p)) {
        goabt_waitlist_remove(&p->pop_waiters, &w);
        spin_unlock(&p->lock);
        return 1;
    }
    return goabt_wait(&w, &p->lock) == GOABT_WAIT_WOKEN;
}

void goabt_pool_wake_pop_waiter(goabt_pool *p)
{
    if (__atomic_load_n(&p->pop_waiters.head, __ATOMIC_SEQ_CST) == NULL) return;
    spin_lock(&p->lock);
    goabt_waiter *popper = goabt_waitlist_claim(&p->pop_waiters, 0);
    spin_unlock(&p->lock);
    if (popper != NULL) goabt_wake_finish(popper);
}

goabt_unit *goabt_pool_pop_wait(goabt_pool *p, uint64_t deadline)
{
    for (;;) {
        goabt_unit *u = goabt_pool_pop(p);
        if (u != NULL) return u;
        if (goabt_now_ns() >= deadline) return NULL;
        goabt_pool_wait_push(p, deadline);
    }
}

/* ---- The FIFO's other ops, and the engine's calls for any kind ------------------------------- */

/* ABT_pool_pop_wait on a FIFO: its condition variable (goabt_pool_pop_wait), to a CLOCK_REALTIME
 * deadline worked out from the caller's figure. */
static goabt_unit *fifo_pop_wait(goabt_pool *p, double secs, double abstime, ABT_pool_context ctx,
                                 int *rc)
{
    (void)ctx;
    (void)rc;
    if (secs < 0) secs = abstime - goabt_wtime();
    uint64_t now = goabt_now_ns();
    return goabt_pool_pop_wait(p, goabt_deadline_after(now, secs));
}

goabt_unit *goabt_pool_pop_wait_for(goabt_pool *p, double secs, double abstime,
                                    ABT_pool_context ctx, int *rc)
{
    return p->ops->pop_wait(p, secs, abstime, ctx, rc);
}

static int fifo_is_queued(goabt_pool *p, goabt_unit *u)
{
    spin_lock(&p->lock);
    int queued = goabt_pool_member_linked(p, u);
    GOABT_ASSERT(queued || (u->next == NULL && u->prev == NULL) || u->pool != p);
    spin_unlock(&p->lock);
    return queued;
}

int goabt_pool_is_queued(goabt_pool *p, goabt_unit *u)
{
    if (!is_fifo(p)) return p->ops->is_queued(p, u);
    return fifo_is_queued(p, u);
}

int goabt_unit_in_no_pool(goabt_unit *u)
{
    return __atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_READY &&
           (u->pool == NULL || !goabt_pool_is_queued(u->pool, u));
}

static int fifo_remove(goabt_pool *p, goabt_unit *u)
{
    int queued = 0;
    spin_lock(&p->lock);
    if (goabt_pool_member_linked(p, u)) {
        goabt_pool_member_unlink(p, u);
        queued = 1;
    }
    GOABT_ASSERT_FIFO_QUEUE(p);
    spin_unlock(&p->lock);
    return queued;
}

int goabt_pool_remove(goabt_pool *p, goabt_unit *u)
{
    if (is_fifo(p)) return fifo_remove(p, u);
    return goabt_pool_can(p, GOABT_POOL_CAN_REMOVE) ? p->ops->remove(p, u) : 0;
}

static int fifo_is_empty(goabt_pool *p) { return fifo_size(p) == 0; }

int goabt_pool_is_empty(goabt_pool *p) { return p->ops->is_empty(p); }

int goabt_pool_push_many(goabt_pool *p, goabt_unit **units, size_t n, ABT_pool_context ctx)
{
    return p->ops->push_many != NULL && p->ops->push_many(p, units, n, ctx);
}

int goabt_pool_pop_many(goabt_pool *p, goabt_unit **units, size_t len, size_t *num,
                        ABT_pool_context ctx)
{
    return p->ops->pop_many != NULL && p->ops->pop_many(p, units, len, num, ctx);
}

/* A snapshot under the lock, the functions called after it. */
static int fifo_print_all(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                          void (*unit_fn)(void *, ABT_unit))
{
    spin_lock(&p->lock);
    size_t n = p->size, i = 0;
    goabt_unit **all = malloc((n ? n : 1) * sizeof *all);
    if (all != NULL) {
        for (goabt_unit *u = p->head; u != NULL && i < n; u = u->next) all[i++] = u;
    }
    spin_unlock(&p->lock);
    if (all == NULL) return ABT_ERR_MEM;
    for (size_t j = 0; j < i; j++) {
        if (thread_fn != NULL) {
            thread_fn(arg, all[j]);
        } else {
            unit_fn(arg, (ABT_unit)all[j]); /* a FIFO's pool unit is the work unit */
        }
    }
    free(all);
    return ABT_SUCCESS;
}

int goabt_pool_print_all(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                         void (*unit_fn)(void *, ABT_unit))
{
    return p->ops->print_all(p, arg, thread_fn, unit_fn);
}

static int fifo_info_kind(const goabt_pool *p)
{
    switch (p->kind) {
    case ABT_POOL_FIFO: return GOABT_INFO_POOL_FIFO;
    case ABT_POOL_FIFO_WAIT: return GOABT_INFO_POOL_FIFO_WAIT;
    case ABT_POOL_RANDWS: return GOABT_INFO_POOL_RANDWS;
    }
    return GOABT_INFO_POOL_UNKNOWN;
}

/* The built-in kind. Its pool units are the work units (no associate), and it keeps nothing
 * beside the pool (no free). */
const struct goabt_pool_ops goabt_fifo_ops = {
    .info_kind = fifo_info_kind,
    .push = pool_push,
    .pop = fifo_pop,
    .pop_wait = fifo_pop_wait,
    .remove = fifo_remove,
    .is_queued = fifo_is_queued,
    .size = fifo_size,
    .is_empty = fifo_is_empty,
    .print_all = fifo_print_all,
    .flags = GOABT_POOL_OPS_LOCKED_QUEUE,
};
