/* Pools: FIFO queues of ready units under a spinlock (ABT_POOL_FIFO, ABT_POOL_FIFO_WAIT).
 * Access modes are hints, as in Argobots 1.2: every pool is safe for any producer and consumer. */
#include <sched.h>
#include <stdlib.h>
#include "engine.h"

static inline void spin_lock(int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) cpu_relax();
    }
}

static inline void spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

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
    p->magic = 0;
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

void goabt_pool_push(goabt_pool *p, goabt_unit *u)
{
    u->pool = p;
    u->next = NULL;
    spin_lock(&p->lock);
    u->prev = p->tail;
    if (p->tail) {
        p->tail->next = u;
    } else {
        p->head = u;
    }
    p->tail = u;
    __atomic_store_n(&p->size, p->size + 1, __ATOMIC_RELAXED);
    /* Sleepers register under this lock (goabt_pool_sleepers_add), so no fence is needed: a
     * scheduler that registered before this push is seen here, one that registers after it sees
     * the unit when it looks for work. */
    int wake = __atomic_load_n(&p->sleepers, __ATOMIC_RELAXED) > 0;
    spin_unlock(&p->lock);
    if (wake) goabt_wake_idle();
    if (p->kind == ABT_POOL_FIFO_WAIT) {
        pthread_mutex_lock(&p->wait_mutex);
        pthread_cond_signal(&p->wait_cond);
        pthread_mutex_unlock(&p->wait_mutex);
    }
}

void goabt_pool_sleepers_add(goabt_pool *p, int delta)
{
    spin_lock(&p->lock);
    __atomic_store_n(&p->sleepers, p->sleepers + delta, __ATOMIC_RELAXED);
    spin_unlock(&p->lock);
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

/* Schedulers: pools in priority order, the first non-empty one wins. */

goabt_sched *goabt_sched_new(int predef, int num_pools, goabt_pool **pools, int automatic)
{
    goabt_sched *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->predef = predef;
    s->automatic = automatic;
    s->num_pools = num_pools;
    for (int i = 0; i < num_pools; i++) {
        s->pools[i] = pools[i];
        __atomic_add_fetch(&pools[i]->num_scheds, 1, __ATOMIC_ACQ_REL);
    }
    s->magic = GOABT_MAGIC_SCHED;
    return s;
}

void goabt_sched_delete(goabt_sched *s)
{
    s->magic = 0;
    for (int i = 0; i < s->num_pools; i++) goabt_pool_release(s->pools[i]);
    free(s);
}

/* Whether the scheduler still has work: queued units, or ULTs blocked on a pool that only this
 * scheduler serves (they will come back to it). */
int goabt_sched_has_work(goabt_sched *s)
{
    for (int i = 0; i < s->num_pools; i++) {
        goabt_pool *p = s->pools[i];
        if (__atomic_load_n(&p->size, __ATOMIC_ACQUIRE) > 0) return 1;
        if (__atomic_load_n(&p->num_blocked, __ATOMIC_ACQUIRE) > 0 &&
            __atomic_load_n(&p->num_scheds, __ATOMIC_RELAXED) <= 1) {
            return 1;
        }
    }
    return 0;
}
