//go:build goabt_c_engine
/* unit_block.c: blocking a ULT and waking it: park and ready (unit.h, top), and suspend and
 * resume (ABT_self_suspend, ABT_thread_resume), a park that only a resume ends. */
#include "pool.h"
#include "stream.h"
#include "tool.h"
#include "unit.h"
#include "unit_internal.h"
#include "wait.h"

/* ---- Blocking: park and ready ------------------------------------------------------------- */

/* Parks self, running on s: to target, a ULT the caller took for a direct switch (suspend_to,
 * resume_suspend_to), or, with none, to the ULT the hand-over pops or the scheduler. sync_type
 * and sync say what it waits on, for a tool's suspend event and the trace's block (a
 * suspension is the program's own: ABT_SYNC_EVENT_TYPE_USER). */
static void park(goabt_stream *s, goabt_unit *self, goabt_unit *target, goabt_after_fn fn,
                 void *arg, int sync_type, void *sync)
{
    /* Counted before it is visible to wakers: a scheduler or finalize looking for work sees
     * parked ULTs that will come back to the pool. */
    /* park -> BLOCKED: the running ULT (the main ULT too), out of every queue. */
    GOABT_ASSERT_MSG(self != NULL && self == s->current && self->kind == GOABT_ULT &&
                         __atomic_load_n(&self->state, __ATOMIC_RELAXED) ==
                             ABT_THREAD_STATE_RUNNING,
                     "a park of a unit that is not the running ULT");
    GOABT_ASSERT(goabt_unit_out_of_queues(self) && target != self && self->pool != NULL);
    GOABT_TOOL_EVENT_SYNC(self, ABT_TOOL_EVENT_THREAD_SUSPEND, self->pool,
                          sync_type, sync);
    self->parked_in = self->pool; /* uncounted there, whatever its pool is by then */
    int counted = 0; /* a hand-over counts it in the pop's locked section when it can */
    goabt_unit *next = target;
    if (next == NULL) next = goabt_unit_direct_next(s, self, NULL, self->pool, &counted, NULL);
    if (!counted) goabt_pool_count_parked(self->pool);
    __atomic_store_n(&self->state, ABT_THREAD_STATE_BLOCKED, __ATOMIC_RELEASE);
    if (next != NULL) {
        goabt_unit_switch_to(s, self, next, fn, arg);
    } else {
        goabt_unit_switch_out(s, self, fn, arg);
    }
}

void goabt_unit_park(goabt_after_fn fn, void *arg, int sync_type, void *sync)
{
    goabt_stream *s = goabt_self_stream();
    park(s, s->current, NULL, fn, arg, sync_type, sync);
}

void goabt_unit_ready(goabt_unit *u)
{
    /* ready -> READY: only a parked unit, and only once its context is saved (its park's after
     * function published it: docs/design.md rule 4), else two streams could run it. */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_BLOCKED,
                     "readied a unit in state %d", u->state);
    GOABT_ASSERT_MSG(goabt_unit_not_running(u), "readied unit %p still runs on stream %d",
                     (void *)u, u->last_stream->rank);
    GOABT_ASSERT(u->parked_in != NULL && goabt_unit_out_of_queues(u));
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_RESUME, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    if (__builtin_expect(__atomic_load_n(&u->request, __ATOMIC_ACQUIRE) & GOABT_UNIT_REQ_MIGRATE, 0) &&
        goabt_unit_claim_request(u, GOABT_UNIT_REQ_MIGRATE)) {
        goabt_unit_migrate_now(u, u->parked_in); /* wakes where it is going */
        return;
    }
    goabt_pool_push_unparked(u->pool, u, u->parked_in);
}

/* The waker of a parked u switches straight to it instead of readying it (resume_*_to): 1, u
 * uncounted and heard resuming as goabt_unit_ready would have it; 0 when u has a request to be
 * taken up (a cancel, a migration), which only a pass through goabt_unit_ready and its pool
 * carries out: u is readied that way instead. */
static int ready_direct(goabt_unit *u)
{
    GOABT_ASSERT(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_BLOCKED &&
                 goabt_unit_not_running(u));
    if (__atomic_load_n(&u->request, __ATOMIC_ACQUIRE) != 0) {
        goabt_unit_ready(u);
        return 0;
    }
    goabt_pool_uncount_parked(u->parked_in); /* running now, without going through a pool */
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_RESUME, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    return 1;
}

/* ---- Suspend and resume ---------------------------------------------------------------------
 *
 * A suspended ULT is parked (park above: BLOCKED, counted in its pool, heard by a tool, its
 * requests taken up when it is readied) with nothing waking it but a resume, which readies it
 * (goabt_unit_ready) or switches straight to it (ready_direct). u->suspend says where it is:
 * SUSPENDING from the moment it decides to until its context is saved, then SUSPENDED; a resume
 * that comes in between marks it RESUMED_EARLY, and the ULT is made ready as soon as it is
 * parked, so that no resume is lost to that race. */
enum { SUSPEND_NONE = 0, SUSPENDING = 1, SUSPENDED = 2, RESUMED_EARLY = 3 };

/* The park's after function: from here a resume may take it. */
static void suspend_parked(goabt_unit *u, void *arg)
{
    (void)arg;
    GOABT_ASSERT(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_BLOCKED);
    GOABT_ASSERT_MSG(__atomic_load_n(&u->suspend, __ATOMIC_RELAXED) == SUSPENDING ||
                         __atomic_load_n(&u->suspend, __ATOMIC_RELAXED) == RESUMED_EARLY,
                     "a suspension parked in suspend state %d", u->suspend);
    int going = SUSPENDING;
    if (__atomic_compare_exchange_n(&u->suspend, &going, SUSPENDED, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        return; /* a resume makes it ready */
    }
    __atomic_store_n(&u->suspend, SUSPEND_NONE, __ATOMIC_RELAXED);
    goabt_unit_ready(u);
}

/* self, running on s, suspends: parks until a resume, switching to target if not NULL. */
static void suspend(goabt_stream *s, goabt_unit *self, goabt_unit *target)
{
    GOABT_ASSERT_MSG(__atomic_load_n(&self->suspend, __ATOMIC_RELAXED) == SUSPEND_NONE,
                     "suspended while suspended (%d)", self->suspend);
    __atomic_store_n(&self->suspend, SUSPENDING, __ATOMIC_RELEASE);
    park(s, self, target, suspend_parked, NULL, ABT_SYNC_EVENT_TYPE_USER, NULL);
}

/* Takes u out of its suspension: 2 if it was parked (the caller now owns it: ready it, or
 * switch to it after ready_direct), 1 if it was still on its way (it makes itself ready), 0 if
 * it is not suspended. */
static int claim_suspended(goabt_unit *u)
{
    int st = __atomic_load_n(&u->suspend, __ATOMIC_ACQUIRE);
    for (;;) {
        if (st == SUSPENDED) {
            if (__atomic_compare_exchange_n(&u->suspend, &st, SUSPEND_NONE, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                return 2;
            }
        } else if (st == SUSPENDING) {
            if (__atomic_compare_exchange_n(&u->suspend, &st, RESUMED_EARLY, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                return 1;
            }
        } else {
            return 0;
        }
    }
}

int goabt_unit_resume(goabt_unit *u)
{
    int claimed = claim_suspended(u);
    if (claimed == 2) goabt_unit_ready(u);
    return claimed != 0;
}

void goabt_unit_suspend(goabt_unit *target)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    int taken = target != NULL && goabt_unit_take_target(target);
    if (taken && !goabt_unit_direct(self, target)) {
        goabt_unit_give_back(target);
        taken = 0;
    }
    suspend(s, self, taken ? target : NULL);
}

/* What the caller does once it has handed its stream to the resumed target. */
enum { THEN_YIELD, THEN_SUSPEND, THEN_EXIT };

int goabt_unit_resume_to(goabt_unit *target, int then)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    if (target == self) return 0;
    int claimed = claim_suspended(target);
    if (claimed == 0) return 0;
    /* Straight to it, unless it is not parked yet (it readies itself), no direct switch can
     * be made, or it has a request to take up: then it is resumed through its pool. */
    int straight = 0;
    if (claimed == 2) {
        if (goabt_unit_direct(self, target)) {
            straight = ready_direct(target); /* else readied there */
        } else {
            goabt_unit_ready(target);
        }
    }
    if (!straight) {
        if (then == THEN_YIELD) goabt_unit_yield();
        if (then == THEN_SUSPEND) goabt_unit_suspend(NULL);
        if (then == THEN_EXIT) goabt_unit_exit();
        return 1;
    }
    if (then == THEN_YIELD) {
        goabt_unit_yield_straight(s, self, target, ABT_POOL_CONTEXT_OP_THREAD_RESUME_YIELD_TO);
    } else if (then == THEN_SUSPEND) {
        suspend(s, self, target);
    } else {
        goabt_unit_switch_to(s, self, target, goabt_unit_terminated, s);
        __builtin_unreachable();
    }
    return 1;
}
