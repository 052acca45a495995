//go:build goabt_c_engine
/* unit_join.c: requests to a unit (cancel, migration), taken up at its scheduling points, and
 * join. */
#include "pool.h"
#include "pool_member.h"
#include "stream.h"
#include "tool.h"
#include "unit.h"
#include "unit_internal.h"
#include "wait.h"

/* ---- Requests: cancel and migration ---------------------------------------------------------
 *
 * A request is a bit in u->request, set by anyone; it is taken up by whoever holds u at one of
 * its scheduling points: the scheduler that popped it (goabt_unit_run), the stream it yielded
 * on (after_yield, unit_switch.c), its waker (goabt_unit_ready, migrations only: a cancelled ULT
 * ends when it is next popped), or the requester itself when it can take u out of its pool.
 * Whoever clears a bit owns the request: each is carried out once. The main ULT takes no
 * requests. */

void goabt_unit_migrate_now(goabt_unit *u, goabt_pool *counted)
{
    goabt_pool *to = __atomic_load_n(&u->migrate_to, __ATOMIC_RELAXED);
    /* Carried out once, by whoever cleared the bit and holds u: ready, in no queue, running
     * nowhere (a second carrier would find it queued in `to` already). */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY &&
                         goabt_unit_out_of_queues(u) && goabt_unit_not_running(u),
                     "a migration of a unit not held (state %d)", u->state);
    GOABT_ASSERT(to != NULL && !(u->flags & GOABT_UNIT_MAIN));
    if (goabt_pool_member_set(to, u) != ABT_SUCCESS) {
        goabt_pool_push_from(u->pool, u, counted, ABT_POOL_CONTEXT_OP_POOL_OTHER);
        return;
    }
    if (u->flags & GOABT_UNIT_MIGRATE_CB) u->migrate_cb(u, u->migrate_cb_arg);
    goabt_pool_push_from(to, u, counted, ABT_POOL_CONTEXT_OP_THREAD_MIGRATE);
}

int goabt_unit_take_request(goabt_unit *u)
{
    /* At a scheduling point of u's (unit.h): ready, in no pool, its context saved. */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY &&
                         goabt_unit_out_of_queues(u) && goabt_unit_not_running(u),
                     "requests taken up from a unit in state %d", u->state);
    int asked = __atomic_load_n(&u->request, __ATOMIC_ACQUIRE);
    if ((asked & GOABT_UNIT_REQ_CANCEL) && goabt_unit_claim_request(u, GOABT_UNIT_REQ_CANCEL)) {
        /* Cancelled: it ends here, its joiners wake; a migration asked too goes with it. */
        __atomic_and_fetch(&u->request, ~GOABT_UNIT_REQ_MIGRATE, __ATOMIC_ACQ_REL);
        GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_CANCEL, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
        /* Woken from a wait it will not return from: what the wake gave it is passed on. */
        if (u->waiting != NULL) goabt_wait_cancelled(u);
        goabt_unit_end(u, goabt_self_stream());
        return 1;
    }
    if ((asked & GOABT_UNIT_REQ_MIGRATE) && goabt_unit_claim_request(u, GOABT_UNIT_REQ_MIGRATE)) {
        goabt_unit_migrate_now(u, NULL);
        return 1;
    }
    return 0;
}

/* Sets request bit on u, and carries it out at once if u waits in a pool that gives it back:
 * taken out, u is held here. If a scheduler popped it and took the request up meanwhile (it
 * then sits in its new pool, maybe the very one removed from), nothing is left to do but put
 * it back. */
static void request(goabt_unit *u, int bit)
{
    __atomic_or_fetch(&u->request, bit, __ATOMIC_ACQ_REL);
    if (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_READY &&
        goabt_pool_remove(u->pool, u) && !goabt_unit_take_request(u)) {
        goabt_pool_push(u->pool, u);
    }
}

void goabt_unit_request_migration(goabt_unit *u, goabt_pool *to)
{
    __atomic_store_n(&u->migrate_to, to, __ATOMIC_RELAXED); /* before the bit: read after it */
    request(u, GOABT_UNIT_REQ_MIGRATE);
}

void goabt_unit_request_cancel(goabt_unit *u) { request(u, GOABT_UNIT_REQ_CANCEL); }

/* ---- Join --------------------------------------------------------------------------------- */

int goabt_unit_join(goabt_unit *t)
{
    if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_TERMINATED) {
        GOABT_TOOL_EVENT(t, ABT_TOOL_EVENT_THREAD_JOIN, t->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
        return (t->flags & GOABT_UNIT_NO_STACK) ? ABT_ERR_MEM : ABT_SUCCESS;
    }
    goabt_unit *self = goabt_self_unit();
    if (self == t) return ABT_ERR_INV_THREAD;
    if (t->kind == GOABT_TASKLET) {
        /* A tasklet's end only stores TERMINATED (goabt_unit_end): its joiners poll, as
         * Argobots' joiners of a tasklet do, a ULT yielding between looks (the tool hears a
         * yield on a join of t), any other caller spinning, then yielding its CPU. Tasklets
         * are short: their joiners seldom wait long. */
        for (unsigned spins = 0;
             __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != ABT_THREAD_STATE_TERMINATED; spins++) {
            if (self != NULL && self->kind == GOABT_ULT) {
                goabt_unit_yield_sync(ABT_SYNC_EVENT_TYPE_THREAD_JOIN, t);
                /* Still not run: its stream may need this CPU (streams often outnumber
                 * cores, and a ULT alone in its pool yields without a switch). */
                if (spins >= 64) sched_yield();
            } else {
                goabt_backoff(spins);
            }
        }
        GOABT_TOOL_EVENT(t, ABT_TOOL_EVENT_THREAD_JOIN, t->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
        return ABT_SUCCESS;
    }
    /* Any number of joiners, ULTs (parked) and threads (asleep) alike: the terminating unit
     * wakes them all once it is TERMINATED. */
    goabt_waiter w;
    goabt_waiter_init(&w, 0, 0);
    goabt_joiners_wait(&t->joiners, &w, ABT_SYNC_EVENT_TYPE_THREAD_JOIN, t);
    /* Woken after TERMINATED, or found the stack marked done: TERMINATED is then a few
     * instructions away (unit_terminated), and the caller must not free t before it. */
    for (unsigned spins = 0;
         __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != ABT_THREAD_STATE_TERMINATED; spins++) {
        goabt_backoff(spins);
    }
    /* Its end took the joiner stack, this waiter with it, and marked it done. */
    GOABT_ASSERT(__atomic_load_n(&t->joiners, __ATOMIC_ACQUIRE) == GOABT_JOIN_DONE);
    GOABT_TOOL_EVENT(t, ABT_TOOL_EVENT_THREAD_JOIN, t->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    return (t->flags & GOABT_UNIT_NO_STACK) ? ABT_ERR_MEM : ABT_SUCCESS;
}
