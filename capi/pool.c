//go:build goabt_c_engine
/* pool.c: pools: FIFO queues of ready units under a spinlock (ABT_POOL_FIFO, ABT_POOL_FIFO_WAIT),
 * and the idle streams asleep on each. Access modes are hints, as in Argobots 1.2: every pool is
 * safe for any producer and consumer. */
#include <sched.h>
#include <stdlib.h>
#include "engine.h"

#define spin_lock goabt_spin_lock
#define spin_unlock goabt_spin_unlock

goabt_pool *goabt_pool_new(int kind, int access, int automatic)
{
    goabt_pool *p = goabt_alloc_lines(sizeof *p);
    if (!p) return NULL;
    p->kind = kind;
    p->access = access;
    p->automatic = automatic;
    p->id = __atomic_fetch_add(&goabt_rt.next_pool_id, 1, __ATOMIC_RELAXED);
    pthread_mutex_init(&p->wait_mutex, NULL);
    pthread_cond_init(&p->wait_cond, NULL);
    p->magic = GOABT_MAGIC_POOL;
    return p;
}

void goabt_pool_delete(goabt_pool *p)
{
    /* A push may still be signalling this pool's FIFO_WAIT waiters. */
    for (unsigned spins = 0; __atomic_load_n(&p->pushers, __ATOMIC_ACQUIRE) != 0; spins++) {
        goabt_backoff(spins);
    }
    p->magic = GOABT_MAGIC_FREED;
    pthread_mutex_destroy(&p->wait_mutex);
    pthread_cond_destroy(&p->wait_cond);
    free(p);
}

void goabt_pool_release(goabt_pool *p)
{
    if (__atomic_sub_fetch(&p->num_scheds, 1, __ATOMIC_ACQ_REL) == 0 && p->automatic) {
        goabt_pool_delete(p);
    }
}

static void pool_push(goabt_pool *p, goabt_unit *u, int unparked)
{
    spin_lock(&p->lock);
    if (unparked) {
        /* Uncounted with the push: a stream asked to finish sees the unit either counted as
         * blocked or queued, never neither (a retired pool is in no scheduler any more). */
        __atomic_store_n(&p->num_unparked, p->num_unparked + 1, __ATOMIC_RELEASE);
    }
    while (p->forward != NULL) { /* retired: its units live on elsewhere */
        goabt_pool *to = p->forward;
        spin_unlock(&p->lock);
        p = to;
        spin_lock(&p->lock);
    }
    u->pool = p;
    u->next = NULL;
    u->prev = p->tail;
    if (p->tail) {
        p->tail->next = u;
    } else {
        p->head = u;
    }
    p->tail = u;
    __atomic_store_n(&p->size, p->size + 1, __ATOMIC_RELAXED);
    /* Sleepers register under this lock (goabt_pool_sleeper_add), so no fence is needed: a
     * stream listed before this push is seen here, one listed after it sees the unit when it
     * takes its last look. One is woken: one unit needs one stream. A listed stream may have
     * woken already (by another push, or by itself) and not yet taken its nodes off: only the
     * one whose sleep word this push turns from 0 to 1 counts, else the next is tried. (A
     * stream between listing itself and its last look still counts: it will find this unit,
     * but may run another pool's first.) */
    goabt_stream *wake = NULL;
    goabt_sleeper *n;
    while (wake == NULL && (n = p->sleepers) != NULL) {
        p->sleepers = n->next;
        if (n->next) n->next->prev = NULL;
        n->linked = 0;
        if (__atomic_exchange_n(&n->stream->sleep_word, 1, __ATOMIC_SEQ_CST) == 0) {
            wake = n->stream;
            __atomic_add_fetch(&wake->wakers, 1, __ATOMIC_ACQ_REL); /* keeps it from being freed */
        }
    }
    /* What is done after the lock is released must not read p once it could be freed (its
     * last unit may run and its stream go meanwhile): the pool is held while it is. */
    int signal_waiters = p->kind == ABT_POOL_FIFO_WAIT;
    if (signal_waiters) __atomic_add_fetch(&p->pushers, 1, __ATOMIC_ACQ_REL);
    spin_unlock(&p->lock);
    if (wake != NULL) {
        goabt_futex_wake(&wake->sleep_word, 1);
        __atomic_sub_fetch(&wake->wakers, 1, __ATOMIC_RELEASE);
    }
    if (signal_waiters) {
        pthread_mutex_lock(&p->wait_mutex);
        pthread_cond_signal(&p->wait_cond);
        pthread_mutex_unlock(&p->wait_mutex);
        __atomic_sub_fetch(&p->pushers, 1, __ATOMIC_RELEASE);
    }
}

void goabt_pool_push(goabt_pool *p, goabt_unit *u) { pool_push(p, u, 0); }
void goabt_pool_push_unparked(goabt_pool *p, goabt_unit *u) { pool_push(p, u, 1); }

void goabt_pool_sleeper_add(goabt_pool *p, goabt_sleeper *n)
{
    n->stream = goabt_self_stream();
    spin_lock(&p->lock);
    n->prev = NULL;
    n->next = p->sleepers;
    if (n->next) n->next->prev = n;
    p->sleepers = n;
    n->linked = 1;
    spin_unlock(&p->lock);
}

void goabt_pool_sleeper_remove(goabt_pool *p, goabt_sleeper *n)
{
    spin_lock(&p->lock);
    if (n->linked) { /* else a push took it off to wake it */
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

/* Retired pools, kept until finalize: a parked ULT may still name one (goabt_pool_retire). */
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static goabt_pool **retired;
static int num_retired, cap_retired;

void goabt_pool_retire(goabt_pool *p, goabt_pool *to)
{
    p->magic = GOABT_MAGIC_FREED; /* no longer a pool the program may use */
    spin_lock(&p->lock);
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

size_t goabt_pool_size_locked(goabt_pool *p)
{
    spin_lock(&p->lock);
    size_t n = p->size;
    spin_unlock(&p->lock);
    return n;
}

goabt_unit *goabt_pool_pop(goabt_pool *p)
{
    if (__atomic_load_n(&p->size, __ATOMIC_RELAXED) == 0) return NULL;
    spin_lock(&p->lock);
    goabt_unit *u = p->head;
    if (u) {
        p->head = u->next;
        if (p->head) {
            p->head->prev = NULL;
        } else {
            p->tail = NULL;
        }
        __atomic_store_n(&p->size, p->size - 1, __ATOMIC_RELAXED);
        u->next = u->prev = NULL;
    }
    spin_unlock(&p->lock);
    return u;
}

int goabt_pool_remove(goabt_pool *p, goabt_unit *u)
{
    int queued = 0;
    spin_lock(&p->lock);
    if (u->pool == p && (u->prev != NULL || p->head == u)) {
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
    spin_unlock(&p->lock);
    return queued;
}
