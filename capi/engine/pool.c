//go:build goabt_c_engine
/* pool.c: pools: FIFO queues of ready units under a spinlock (ABT_POOL_FIFO, ABT_POOL_FIFO_WAIT),
 * and the idle streams asleep on each. Access modes are hints, as in Argobots 1.2: every pool is
 * safe for any producer and consumer. A user-defined pool (pool_user.c) keeps its units itself:
 * push, pop, remove and size call its functions, and the sleepers stay here. */
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
#include "pool.h"
#include "runtime.h"
#include "stream.h"
#include "unit.h"

#define spin_lock goabt_spin_lock
#define spin_unlock goabt_spin_unlock

goabt_pool *goabt_pool_new(int kind, int access, int automatic)
{
    goabt_pool *p = goabt_mem_new(sizeof *p);
    if (!p) return NULL;
    p->kind = kind;
    p->access = access;
    p->automatic = automatic;
    p->id = __atomic_fetch_add(&goabt_rt.next_pool_id, 1, __ATOMIC_RELAXED);
    pthread_mutex_init(&p->wait_mutex, NULL);
    pthread_cond_init(&p->wait_cond, NULL);
    p->magic = goabt_runtime_magic(GOABT_MAGIC_POOL);
    return p;
}

/* The queue's ends and size agree (p's lock held). */
#define ASSERT_QUEUE(p)                                                                        \
    GOABT_ASSERT_MSG(((p)->head == NULL) == ((p)->tail == NULL) &&                             \
                         ((p)->head == NULL) == ((p)->size == 0) &&                            \
                         ((p)->head == NULL || ((p)->head->prev == NULL && (p)->tail->next == NULL)), \
                     "pool %d: head %p tail %p size %zu", (p)->id, (void *)(p)->head,          \
                     (void *)(p)->tail, (p)->size)

/* u may be pushed: ready (its pusher holds it) and linked in no queue. A unit a built-in pool
 * holds has links or is that pool's head; a user pool's is user_queued. */
static inline int unit_pushable(goabt_unit *u)
{
    return __atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY &&
           u->next == NULL && u->prev == NULL && !__atomic_load_n(&u->user_queued, __ATOMIC_RELAXED);
}

void goabt_pool_delete(goabt_pool *p)
{
    GOABT_LEAK_FORGET(p);
    /* A retired pool keeps the use its retirement added (goabt_sched_retire). */
    GOABT_ASSERT_MSG(__atomic_load_n(&p->num_scheds, __ATOMIC_RELAXED) == (p->forward != NULL),
                     "pool %d freed while %d schedulers use it", p->id, p->num_scheds);
    GOABT_ASSERT_MSG(p->user != NULL || p->forward != NULL || p->head == NULL,
                     "pool %d freed holding %zu units", p->id, p->size);
    GOABT_ASSERT(p->sleepers == NULL);
    /* A push may still be signalling this pool's pop_wait waiters. */
    for (unsigned spins = 0; __atomic_load_n(&p->pushers, __ATOMIC_ACQUIRE) != 0; spins++) {
        goabt_backoff(spins);
    }
    if (p->user != NULL) goabt_user_pool_free(p); /* still a pool: its free may get its data */
    p->magic = GOABT_MAGIC_FREED;
    pthread_mutex_destroy(&p->wait_mutex);
    pthread_cond_destroy(&p->wait_cond);
    /* Units that ended and are not freed yet keep their pool units until they are freed (as in
     * Argobots, whose free_unit comes with ABT_thread_free): the record stays for them, and
     * the last lets it go (goabt_unit_drop_user_unit). */
    if (__atomic_fetch_or(&p->user_units, GOABT_POOL_UNITS_GONE, __ATOMIC_ACQ_REL) != 0) return;
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
 * fence of their own: user C pools, when the kernel lets us. Go pools keep their fence: their
 * push costs a crossing into Go anyway, and an idle stream over them then spares every other
 * thread the membarrier's interrupt. */
static int pushes_asym(goabt_pool *p)
{
    return p->go_id == 0 && __atomic_load_n(&goabt_rt.asym_fence, __ATOMIC_RELAXED);
}

void goabt_pool_wake_sleeper(goabt_pool *p)
{
    /* After a user pool's push, which took none of our locks: its stores, a fence, then a look
     * at the sleepers; an idle stream lists itself, fences, then looks at the pool
     * (goabt_pool_sleepers_fence). One of the two sees the other. The push's fence is a full
     * one, or, for a user C pool, only the compiler's: the idle stream's membarrier then acts
     * as a full fence in every thread of the process (a push into a user FIFO: 7 ns less). */
    if (pushes_asym(p)) {
        __asm__ __volatile__("" ::: "memory");
    } else {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    if (__atomic_load_n(&p->sleepers, __ATOMIC_RELAXED) == NULL) return;
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

/* A push into a user pool (origin: where a readied unit was counted, or NULL). The user's push
 * runs without our lock; then the count, then the sleepers. */
static __attribute__((noinline)) void user_push(goabt_pool *p, goabt_unit *u, goabt_pool *origin,
                                                ABT_pool_context ctx)
{
    GOABT_ASSERT(p->user != NULL && p->forward == NULL);
    u->pool = p;
    goabt_user_pool_push(p, u, ctx);
    if (origin != NULL) goabt_pool_uncount_parked(origin);
    goabt_pool_wake_sleeper(p);
}

/* Queues u at p's tail; p's lock is held. */
static inline void link_tail(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_LOCKED(&p->lock);
    GOABT_ASSERT_MSG(p->user == NULL && p->forward == NULL, "queued in a pool that has no queue");
    GOABT_ASSERT_MSG(u->next == NULL && u->prev == NULL && p->head != u,
                     "a unit is queued in at most one pool, once");
    ASSERT_QUEUE(p);
    u->pool = p;
    u->popped_by = NULL;
    u->next = NULL;
    u->prev = p->tail;
    if (p->tail) {
        p->tail->next = u;
    } else {
        p->head = u;
    }
    p->tail = u;
    __atomic_store_n(&p->size, p->size + 1, __ATOMIC_RELAXED);
}

/* Pushes u into p; counted: the pool a parked unit was counted as blocked in, uncounted now
 * (NULL for a unit that was not parked); ctx: why, for a user pool's push. */
static void pool_push(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx)
{
    GOABT_ASSERT_MSG(unit_pushable(u), "a unit pushed is READY and in no pool (state %d)",
                     __atomic_load_n(&u->state, __ATOMIC_RELAXED));
    if (__builtin_expect(p->user != NULL, 0) && p->forward == NULL) {
        user_push(p, u, counted, ctx);
        return;
    }
    spin_lock(&p->lock);
    /* Uncounted with the push, in the same locked section, and after it is queued: readers of
     * both counts take no lock (goabt_sched_has_work reads the blocked count, then the size),
     * so one that sees it no longer blocked must see it queued, never neither, or a stacked
     * scheduler stops with it queued (seen: a woken mutex waiter left in a pool nobody ran,
     * its waker preempted between the two stores). */
    int uncount = counted == p && p->user == NULL;
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
    if (__builtin_expect(p->user != NULL, 0)) { /* forwarded to a user pool */
        spin_unlock(&p->lock);
        user_push(p, u, counted, ctx);
        return;
    }
    link_tail(p, u);
    if (uncount) __atomic_store_n(&p->num_unparked, p->num_unparked + 1, __ATOMIC_RELEASE);
    goabt_stream *wake = take_sleeper_locked(p);
    /* What is done after the lock is released must not read p once it could be freed (its
     * last unit may run and its stream go meanwhile): the pool is held while it is. */
    int signal_waiters = p->pop_waiters != 0; /* read under the lock: see goabt_pool_pop_wait */
    if (signal_waiters) __atomic_add_fetch(&p->pushers, 1, __ATOMIC_ACQ_REL);
    spin_unlock(&p->lock);
    if (counted != NULL) goabt_pool_uncount_parked(counted); /* it parked in another pool */
    if (wake != NULL) wake_stream(wake);
    if (signal_waiters) {
        pthread_mutex_lock(&p->wait_mutex);
        pthread_cond_signal(&p->wait_cond);
        pthread_mutex_unlock(&p->wait_mutex);
        __atomic_sub_fetch(&p->pushers, 1, __ATOMIC_RELEASE);
    }
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
    n += p->pop_waiters;
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
        if (pools[i]->user == NULL) continue; /* its lock orders it */
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
    ASSERT_QUEUE(p);
    p->forward = to;
    goabt_unit *queued = p->head;
    p->head = p->tail = NULL;
    __atomic_store_n(&p->size, 0, __ATOMIC_RELAXED);
    spin_unlock(&p->lock);
    while (queued != NULL) {
        goabt_unit *u = queued;
        queued = u->next;
        goabt_pool_push(to, u);
    }
    if (p->user != NULL) {
        goabt_unit *u;
        while ((u = goabt_user_pool_pop(p, ABT_POOL_CONTEXT_OP_POOL_OTHER)) != NULL) {
            goabt_pool_push(to, u);
        }
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

size_t goabt_pool_size(goabt_pool *p)
{
    if (p->user != NULL) return goabt_user_pool_size(p);
    return __atomic_load_n(&p->size, __ATOMIC_ACQUIRE);
}

size_t goabt_pool_size_locked(goabt_pool *p)
{
    /* A user pool's push looks at the sleepers without our lock: the caller fenced after it
     * listed itself (goabt_pool_sleepers_fence). */
    if (p->user != NULL) return goabt_user_pool_size(p);
    spin_lock(&p->lock);
    ASSERT_QUEUE(p);
    size_t n = p->size;
    spin_unlock(&p->lock);
    return n;
}

/* Takes u, p's first unit, off p; p's lock is held. */
static inline void unlink_head(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_LOCKED(&p->lock);
    ASSERT_QUEUE(p);
    /* Its pool is the one it was queued in, but for the main ULT, whose pool goabt_sched_retire
     * (api/xstream.c) moves to the new scheduler's while it may still be queued in the old. */
    GOABT_ASSERT_MSG(u == p->head && (u->pool == p || u == goabt_rt.main_unit),
                     "popped the head of pool %d: %p, its pool %p", p->id, (void *)u,
                     (void *)u->pool);
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY,
                     "a queued unit is READY (state %d)", u->state);
    GOABT_ASSERT_MSG(u->popped_by == NULL, "a queued unit has no popper");
    p->head = u->next;
    if (p->head) {
        p->head->prev = NULL;
    } else {
        p->tail = NULL;
    }
    __atomic_store_n(&p->size, p->size - 1, __ATOMIC_RELAXED);
    u->next = u->prev = NULL;
}

goabt_unit *goabt_pool_pop(goabt_pool *p) { return goabt_pool_pop_op(p, ABT_POOL_CONTEXT_OWNER_PRIMARY); }

goabt_unit *goabt_pool_pop_op(goabt_pool *p, ABT_pool_context ctx)
{
    if (__atomic_load_n(&p->size, __ATOMIC_RELAXED) == 0) {
        return p->user == NULL ? NULL : goabt_user_pool_pop(p, ctx);
    }
    spin_lock(&p->lock);
    goabt_unit *u = p->head;
    if (u) unlink_head(p, u);
    ASSERT_QUEUE(p);
    spin_unlock(&p->lock);
    return u;
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
    return p->forward == NULL && __atomic_load_n(&p->pop_waiters, __ATOMIC_RELAXED) == 0 &&
           __atomic_load_n(&yielder->request, __ATOMIC_ACQUIRE) == 0;
}

int goabt_pool_yield_alone(goabt_pool *p, goabt_unit *yielder)
{
    return p->user == NULL && __atomic_load_n(&p->size, __ATOMIC_RELAXED) == 0 &&
           push_only_queues(p, yielder);
}

goabt_unit *goabt_pool_pop_ult(goabt_pool *p, int *stop, goabt_pool *park, int *counted,
                               goabt_unit *yielder, int *requeued)
{
    if (p->user != NULL) {
        *stop = 1; /* its units are the user pool's to hand out, to the scheduler */
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
    unlink_head(p, u);
    /* The yielder goes where after_yield's push would put it, in this locked section, when that
     * push would only queue it. The pool keeps its size: no sleeper is owed a wake-up. */
    if (yielder != NULL && u->ctx != NULL && push_only_queues(p, yielder)) {
        GOABT_ASSERT_MSG(yielder->pool == p && yielder != u &&
                             __atomic_load_n(&yielder->state, __ATOMIC_RELAXED) ==
                                 ABT_THREAD_STATE_RUNNING,
                         "a requeued yielder runs, and goes back to its own pool");
        link_tail(p, yielder);
        *requeued = 1;
        return u; /* p's lock stays held: goabt_pool_requeued */
    }
    spin_unlock(&p->lock);
    return u;
}

void goabt_pool_requeued(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_LOCKED(&p->lock); /* held since goabt_pool_pop_ult */
    GOABT_ASSERT_MSG(u->pool == p && (u->prev != NULL || p->head == u),
                     "a requeued unit waits queued in its pool");
    GOABT_ASSERT(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_RUNNING);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    spin_unlock(&p->lock);
}

goabt_unit *goabt_pool_pop_wait(goabt_pool *p, uint64_t deadline)
{
    for (;;) {
        goabt_unit *u = goabt_pool_pop(p);
        if (u != NULL) return u;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
        if (now_ns >= deadline) return NULL;
        /* Counted, then a last look under the pool's lock: a push either comes after that look
         * and finds the count (it reads it under the same lock), or before, and is seen. */
        pthread_mutex_lock(&p->wait_mutex);
        __atomic_add_fetch(&p->pop_waiters, 1, __ATOMIC_SEQ_CST);
        if (goabt_pool_size_locked(p) == 0) {
            struct timespec until = {(time_t)(deadline / 1000000000ull),
                                     (long)(deadline % 1000000000ull)};
            pthread_cond_timedwait(&p->wait_cond, &p->wait_mutex, &until);
        }
        __atomic_sub_fetch(&p->pop_waiters, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&p->wait_mutex);
    }
}

int goabt_pool_is_queued(goabt_pool *p, goabt_unit *u)
{
    if (p->user != NULL) return __atomic_load_n(&u->user_queued, __ATOMIC_RELAXED);
    spin_lock(&p->lock);
    int queued = u->pool == p && (u->prev != NULL || p->head == u);
    GOABT_ASSERT(queued || (u->next == NULL && u->prev == NULL) || u->pool != p);
    spin_unlock(&p->lock);
    return queued;
}

int goabt_unit_in_no_pool(goabt_unit *u)
{
    return __atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_READY &&
           (u->pool == NULL || !goabt_pool_is_queued(u->pool, u));
}

int goabt_pool_remove(goabt_pool *p, goabt_unit *u)
{
    if (p->user != NULL) return goabt_user_pool_remove(p, u);
    int queued = 0;
    spin_lock(&p->lock);
    if (u->pool == p && (u->prev != NULL || p->head == u)) {
        GOABT_ASSERT(u->prev == NULL || u->prev->next == u);
        GOABT_ASSERT(u->next != NULL ? u->next->prev == u : p->tail == u);
        GOABT_ASSERT_MSG(p->size > 0, "pool %d: removing from an empty queue", p->id);
        if (u->prev) {
            u->prev->next = u->next;
        } else {
            p->head = u->next;
        }
        if (u->next) {
            u->next->prev = u->prev;
        } else {
            p->tail = u->prev;
        }
        u->next = u->prev = NULL;
        __atomic_store_n(&p->size, p->size - 1, __ATOMIC_RELAXED);
        queued = 1;
    }
    ASSERT_QUEUE(p);
    spin_unlock(&p->lock);
    return queued;
}
