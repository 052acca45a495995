/*
 * pool_member.h: a work unit's pool membership, and the only code that writes it. Internal.
 *
 * Membership is four fields of the unit: u->pool (its associated pool: where it is queued, or
 * where it goes back to when it yields or is made ready), u->popped_by (the ULT that took it out
 * through the pool API), u->next and u->prev (its links in a FIFO's queue) and u->user_queued
 * (queued in a pool of another kind, which keeps its queue itself). They are written here and
 * nowhere else: pool kinds (pool.c, pool_user.c, pool_go.c) and the engine call these functions,
 * so that a new path cannot forget a field. The invariant they keep:
 *   - queued: u is in u->pool's queue, and nowhere else: in a FIFO it is linked there (under the
 *     pool's lock; next and prev are its neighbours), in another kind user_queued is set.
 *     popped_by is NULL.
 *   - out: u is in no queue (running, parked, held, or taken out by a scheduler or by hand): its
 *     links are NULL and user_queued is clear. u->pool still names the pool it goes back to,
 *     which holds what it needs of u (a user pool's pool unit: goabt_pool_member_set).
 *   - claimed: out, taken out through the pool API (ABT_pool_pop*, ABT_pool_remove) by
 *     popped_by, the one ULT whose *_to calls may switch to it (unit_switch.c,
 *     goabt_unit_take_target). A push or a run clears it.
 */
#ifndef GOABT_POOL_MEMBER_H
#define GOABT_POOL_MEMBER_H

#include "pool.h"
#include "unit.h"

/* A unit just made, or revived, for p: out of any queue, claimed by nobody. What p needs of it
 * is given by goabt_pool_member_set. */
static inline void goabt_pool_member_init(goabt_unit *u, goabt_pool *p)
{
    u->pool = p;
    u->popped_by = NULL;
    u->next = u->prev = NULL;
}

/* u, out of any queue, belongs to p from now on: p gets what it needs of it first (its ops'
 * associate: a user pool's pool unit; ABT_ERR_MEM, and u unchanged, when none was made), and a
 * pool unit of another pool is given back. */
static inline int goabt_pool_member_set(goabt_pool *p, goabt_unit *u)
{
    if (p->ops->associate != NULL) {
        int rc = p->ops->associate(p, u);
        if (rc != ABT_SUCCESS) return rc;
    } else {
        goabt_unit_drop_pool_unit(u);
    }
    u->pool = p;
    return ABT_SUCCESS;
}

/* u, out of any queue, goes back to p from now on, and gets what p needs of it when it is next
 * pushed there (a kind's push makes sure of it): the main ULT, and a ULT whose scheduler was
 * replaced under it. */
static inline void goabt_pool_member_redirect(goabt_unit *u, goabt_pool *p) { u->pool = p; }

/* ---- A FIFO's queue (pool.c), p's lock held ---- */

/* The queue's ends and size agree (p's lock held). */
#define GOABT_ASSERT_FIFO_QUEUE(p)                                                             \
    GOABT_ASSERT_MSG(((p)->head == NULL) == ((p)->tail == NULL) &&                             \
                         ((p)->head == NULL) == ((p)->size == 0) &&                            \
                         ((p)->head == NULL || ((p)->head->prev == NULL && (p)->tail->next == NULL)), \
                     "pool %d: head %p tail %p size %zu", (p)->id, (void *)(p)->head,          \
                     (void *)(p)->tail, (p)->size)

/* Queues u at p's tail. */
static inline void goabt_pool_member_link_tail(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_LOCKED(&p->lock);
    GOABT_ASSERT_MSG((p->ops->flags & GOABT_POOL_OPS_LOCKED_QUEUE) && p->forward == NULL,
                     "queued in a pool that has no queue");
    GOABT_ASSERT_MSG(u->next == NULL && u->prev == NULL && p->head != u,
                     "a unit is queued in at most one pool, once");
    GOABT_ASSERT_FIFO_QUEUE(p);
    u->pool = p;
    /* Line 1 of u is written only when a link changes (unit.h: a unit queued on one stream and
     * run on another then moves its lines 0 and 2 only). */
    if (u->popped_by != NULL) u->popped_by = NULL;
    u->next = NULL;
    if (p->tail != NULL) u->prev = p->tail; /* else NULL already (out of any queue) */
    if (p->tail) {
        p->tail->next = u;
    } else {
        p->head = u;
    }
    p->tail = u;
    __atomic_store_n(&p->size, p->size + 1, __ATOMIC_RELAXED);
}

/* Takes u, p's first unit, out. */
static inline void goabt_pool_member_unlink_head(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_LOCKED(&p->lock);
    GOABT_ASSERT_FIFO_QUEUE(p);
    /* Its pool is the one it was queued in, but for the main ULT, whose pool goabt_sched_retire
     * (sched.c) redirects to the new scheduler's while it may still be queued in the old. */
    GOABT_ASSERT_MSG(u == p->head && (u->pool == p || (u->flags & GOABT_UNIT_MAIN)),
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
    u->next = NULL; /* prev: NULL already, as the head's */
}

/* Whether u is linked in p's queue. */
static inline int goabt_pool_member_linked(goabt_pool *p, goabt_unit *u)
{
    return u->pool == p && (u->prev != NULL || p->head == u);
}

/* Takes u, linked in p's queue anywhere, out. */
static inline void goabt_pool_member_unlink(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_LOCKED(&p->lock);
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
}

/* ---- Kinds that keep their queue themselves (user pools, Go pools) ---- */

/* u is about to go into p's own queue (before the kind's push: a pop may return it at once). */
static inline void goabt_pool_member_queued(goabt_pool *p, goabt_unit *u)
{
    GOABT_ASSERT_MSG(!__atomic_load_n(&u->user_queued, __ATOMIC_RELAXED) && u->next == NULL &&
                         u->prev == NULL,
                     "a unit is queued in at most one pool, once");
    u->pool = p;
    u->popped_by = NULL;
    __atomic_store_n(&u->user_queued, 1, __ATOMIC_RELAXED);
}

/* u came out of its pool's own queue (popped or removed). */
static inline void goabt_pool_member_dequeued(goabt_unit *u)
{
    /* What a pool gives back it was given: queued there (its pool may have been changed
     * meanwhile, ABT_unit_set_associated_pool), and ready. */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->user_queued, __ATOMIC_RELAXED),
                     "a pool popped a unit it was not holding");
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY,
                     "a queued unit is READY (state %d)", u->state);
    __atomic_store_n(&u->user_queued, 0, __ATOMIC_RELAXED);
}

/* Whether u is in its pool's own queue. */
static inline int goabt_pool_member_queued_outside(goabt_unit *u)
{
    return __atomic_load_n(&u->user_queued, __ATOMIC_RELAXED);
}

/* ---- Claims ---- */

/* u, just taken out through the pool API, is by's (the calling ULT, or NULL outside one). */
static inline void goabt_pool_member_claim(goabt_unit *u, goabt_unit *by) { u->popped_by = by; }

/* u, out of any queue, is nobody's claim any more: it runs, or a *_to call took it. */
static inline void goabt_pool_member_unclaim(goabt_unit *u) { u->popped_by = NULL; }

#endif /* GOABT_POOL_MEMBER_H */
