//go:build goabt_c_engine
/* unit_switch.c: running and switching units: switching out to the scheduler and in again, the
 * main ULT, children run on top of a ULT, direct switches (the *_to calls), the hand-over from
 * ULT to ULT, yield and exit. */
#include "context.h"
#include "object.h"
#include "pool.h"
#include "pool_member.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "tool.h"
#include "unit.h"
#include "unit_internal.h"
#include "wait.h"

#ifdef GOABT_CHECKED
int goabt_unit_not_running(goabt_unit *u)
{
    goabt_stream *ls = __atomic_load_n(&u->last_stream, __ATOMIC_RELAXED);
    return ls == NULL || __atomic_load_n(&ls->magic, __ATOMIC_RELAXED) != GOABT_MAGIC_STREAM ||
           __atomic_load_n(&ls->current, __ATOMIC_RELAXED) != u;
}
#endif

/* After a direct switch that went to the scheduler instead (goabt_unit_switch_to): what the
 * switch was to run, then the end of the target that got no stack. */
static void after_no_stack(goabt_unit *self, void *arg)
{
    goabt_stream *s = arg;
    goabt_unit *target = s->no_stack_target;
    s->no_stack_target = NULL;
    s->no_stack_fn(self, s->no_stack_arg);
    goabt_unit_no_stack(target, s);
}

/* A unit that yielded goes back to its pool; arg: why, for a user pool (ABT_POOL_CONTEXT_OP_*). */
static void after_yield(goabt_unit *u, void *arg)
{
    /* yield -> READY: it ran, and its context is saved now (no stream runs it). */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_RUNNING,
                     "a yielder was running (state %d)", u->state);
    GOABT_ASSERT(goabt_unit_not_running(u) && goabt_unit_out_of_queues(u));
    __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    if (__builtin_expect(__atomic_load_n(&u->request, __ATOMIC_ACQUIRE) != 0, 0) &&
        goabt_unit_take_request(u)) {
        return;
    }
    goabt_pool_push_op(u->pool, u, (ABT_pool_context)(uintptr_t)arg);
}

/* A yield's hand-over queued u back in its pool with the pop of the next ULT, one locked
 * section for both, and kept the pool locked until u's context is saved (goabt_pool_pop_ult):
 * ABT_thread_yield between two ULTs, one locked instruction less. */
static void after_requeue(goabt_unit *u, void *pool) { goabt_pool_requeued(pool, u); }

void goabt_unit_resume_main(goabt_stream *s)
{
    goabt_unit *m = goabt_rt.main_unit;
    /* From the primary's scheduler context; the main ULT is not parked (its waker readied it
     * first), not ended, not queued (popped, or never pushed: it lent its stream). */
    GOABT_ASSERT(s->is_primary && s == goabt_self_stream() && s->current == NULL && m != NULL);
    GOABT_ASSERT_MSG(__atomic_load_n(&m->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY ||
                         __atomic_load_n(&m->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_RUNNING,
                     "the main ULT resumed in state %d", m->state);
    GOABT_ASSERT(goabt_unit_out_of_queues(m));
    s->main_child = 0; /* whatever ran for it is over */
    /* The main ULT runs again after a yield or a wait: a tool sees it run, as any ULT popped
     * by a scheduler. One that lent its stream to a child (goabt_unit_run_child) or to the
     * scheduler (ABT_self_schedule) never stopped running: no event. */
    if (__atomic_load_n(&m->state, __ATOMIC_RELAXED) != ABT_THREAD_STATE_RUNNING) {
        GOABT_TOOL_EVENT(m, ABT_TOOL_EVENT_THREAD_RUN, m->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    }
    m->last_stream = s;
    __atomic_store_n(&m->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    goabt_stream_count_run(s);
    s->current = m;
    if (s->run_live) {
        /* From a user scheduler's run on its own stack: the run waits there, and goes on from
         * here when the main ULT steps aside again (primary_activation, sched_user.c). */
        s->run_live = 0;
        /* The activation below the main ULT is left with its frames: under AddressSanitizer
         * their poison goes, as a jump's would (the hook the compiler puts before a noreturn
         * call clears the stack it leaves), or ASan's own code there would report it later. */
        GOABT_UNPOISON(s->sys_ctx, m->ctx);
        goabt_ctx_switch(&s->run_ctx, m->ctx);
        return;
    }
    goabt_ctx_jump(m->ctx);
}

/* The main ULT's child runs on a scheduler activation below it (the main ULT has no ULT stack
 * to lend): the child runs there, then the main ULT resumes. */
static void run_child_of_main(goabt_unit *m, void *arg)
{
    (void)m;
    goabt_stream *s = goabt_self_stream();
    s->main_child = 1;
    goabt_unit_run(s, arg);
    s->main_child = 0;
    goabt_unit_resume_main(s);
}

void goabt_unit_run_child(goabt_unit *u)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    GOABT_ASSERT(u != self && u->kind != 0);
    if (self == NULL) {
        goabt_unit_run(s, u);
        return;
    }
    if (self->flags & GOABT_UNIT_MAIN) {
        goabt_unit_switch_out(s, self, run_child_of_main, u);
        return;
    }
    /* self lends its context: u switches back to it as to a scheduler, which is what
     * goabt_unit_run, run from here, saves in sched_ctx. The scheduler below self keeps its
     * saved context in a local of self's meanwhile; the gate finds the system stack in
     * sys_ctx. u comes back on this same stream: it switches out only to the stream it runs on. */
    goabt_ctx parent = s->sched_ctx;
    if (s->nested++ == 0 && !s->run_live) s->sys_ctx = parent; /* else the activation's, kept */
    goabt_unit_run(s, u);
    s->nested--;
    s->sched_ctx = parent;
    s->current = self;
}

void goabt_unit_hand_main(goabt_stream *s)
{
    goabt_unit *self = s->current;
    if (s->is_primary && self == NULL) {
        goabt_unit_resume_main(s); /* returns only to a user scheduler's run */
        return;
    }
    __atomic_store_n(&goabt_rt.primary->main_handoff, 1, __ATOMIC_SEQ_CST);
    goabt_stream_wake(goabt_rt.primary);
    if (self != NULL && s->is_primary) goabt_unit_yield(); /* the scheduler below notices */
}

/* A scheduler activation on the primary stream, below the suspended main ULT (rule 5). */
__attribute__((noreturn)) static void primary_activation(void *arg)
{
    goabt_stream *s = arg;
    s->current = NULL;
    goabt_sched_after_switch(s);
    /* A user scheduler's run that ran the main ULT goes on where it left off (sched_user.c). */
    if (s->run_ctx != NULL) goabt_user_sched_resume(s);
    goabt_sched_loop(s);
    __builtin_unreachable();
}

/* A ULT that resumes runs what the unit it took over from asked: usually the scheduler has
 * done it already, but after a direct switch (yield_to) nobody else will. */
static void after_resume(void)
{
    goabt_stream *s = goabt_self_stream();
    if (s->after_fn != NULL) goabt_sched_after_switch(s);
}

void goabt_unit_switch_out(goabt_stream *s, goabt_unit *self, goabt_after_fn fn, void *arg)
{
    /* One after function at a time: an earlier one not yet run would be lost, and its unit. */
    GOABT_ASSERT_MSG(s == goabt_self_stream() && s->current == self && s->after_fn == NULL,
                     "stream %d: %p switches out, %p current, after_fn %s", s->rank, (void *)self,
                     (void *)s->current, s->after_fn != NULL ? "pending" : "none");
    s->after_fn = fn;
    s->after_unit = self;
    s->after_arg = arg;
    if (self->flags & GOABT_UNIT_MAIN) {
        goabt_ctx_switch_below(&self->ctx, primary_activation, s);
    } else {
        goabt_ctx_switch(&self->ctx, s->sched_ctx);
    }
    after_resume();
}

void goabt_ult_entry(void *arg)
{
    goabt_unit *u = arg;
    after_resume();
    u->func(u->arg);
    goabt_unit_exit();
}

void goabt_ult_after_resume(void)
{
    after_resume();
}

void goabt_unit_switch_to(goabt_stream *s, goabt_unit *self, goabt_unit *target,
                          goabt_after_fn fn, void *arg)
{
    /* A unit switched to runs nowhere else and is in no queue: taken out of its pool, or a
     * parked one resumed straight (resume_*_to: still BLOCKED, uncounted by ready_direct). */
    GOABT_ASSERT(s == goabt_self_stream() && s->current == self && s->after_fn == NULL);
    GOABT_ASSERT(goabt_unit_direct(self, target) && target != self);
    GOABT_ASSERT_MSG(__atomic_load_n(&target->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY ||
                         __atomic_load_n(&target->state, __ATOMIC_RELAXED) ==
                             ABT_THREAD_STATE_BLOCKED,
                     "switched to a unit in state %d", target->state);
    GOABT_ASSERT_MSG(goabt_unit_not_running(target) && goabt_unit_out_of_queues(target),
                     "switched to unit %p, which runs on stream %d or is queued", (void *)target,
                     target->last_stream != NULL ? target->last_stream->rank : -1);
    /* The trace's only site of its own: self stops and target runs (a tool sees a run). Not
     * with a pool locked for a requeue (a tool or trace that started listening since the
     * hand-over looked must not run its callback under that lock). */
    if (fn != after_requeue) {
        GOABT_TOOL_EVENT(target, GOABT_TRACE_EVENT_SWITCH, target->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    }
    goabt_ctx target_ctx = goabt_unit_context(s, target);
    if (__builtin_expect(target_ctx == NULL, 0)) { /* no stack for it: through the scheduler */
        s->no_stack_fn = fn;
        s->no_stack_arg = arg;
        s->no_stack_target = target;
        goabt_unit_switch_out(s, self, after_no_stack, s);
        return;
    }
    s->after_fn = fn;
    s->after_unit = self;
    s->after_arg = arg;
    target->last_stream = s;
    __atomic_store_n(&target->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    goabt_stream_count_run(s);
    s->current = target;
    goabt_ctx_switch(&self->ctx, target_ctx);
    after_resume();
}

void goabt_unit_yield_straight(goabt_stream *s, goabt_unit *self, goabt_unit *target,
                               ABT_pool_context why)
{
    GOABT_TOOL_EVENT(self, ABT_TOOL_EVENT_THREAD_YIELD, self->pool, ABT_SYNC_EVENT_TYPE_USER);
    goabt_unit_switch_to(s, self, target, after_yield, (void *)(uintptr_t)why);
}

/* Argobots 1.2 wants a *_to call's target ready and popped from its pool by the caller; goabt
 * also takes it out of its pool if it is still queued there. */
int goabt_unit_take_target(goabt_unit *target)
{
    if (__atomic_load_n(&target->state, __ATOMIC_ACQUIRE) != ABT_THREAD_STATE_READY) return 0;
    if (goabt_pool_remove(target->pool, target)) return 1;
    /* In no pool and ready: the caller popped it, as Argobots asks, or a scheduler did and is
     * about to run it (then it is not the caller's to run: it would run on two streams). Taken,
     * it is the caller's no more: once it runs, a wake-up may make it ready, in no pool yet. */
    if (goabt_pool_is_queued(target->pool, target) || target->popped_by != goabt_self_unit()) {
        return 0;
    }
    /* Claimed once: by this ULT's pop, taken by this call only (the claim goes). */
    GOABT_ASSERT(target->popped_by != NULL && goabt_unit_out_of_queues(target));
    goabt_pool_member_unclaim(target);
    return 1;
}

/* ---- Hand-over: from ULT to ULT without a scheduler round ------------------------------------
 *
 * A ULT that yields or parks switches to the scheduler, which runs what it left behind (the
 * after function: push it back, release an object's lock ...), looks at its events and pops the
 * next unit. When the next unit is a plain ULT and the stream's scheduler picks its pools'
 * first unit in order (GOABT_SCHED_OPS_IN_ORDER) with nothing to look at, the caller pops that ULT itself and switches straight to it, the
 * after function running there (as after yield_to): one context switch instead of two
 * (docs/performance.md, "hand-over"). The scheduler's own round still comes every
 * DIRECT_MAX hand-overs, and whenever anything needs it: a scheduler of another kind (user,
 * Go, randws stealing) or a pool that is not a FIFO, a stacked
 * run (nested, or a unit run for the main ULT), a user scheduler's run still live after it was
 * replaced, a tool or the trace listening (they see every run), a
 * deadline due, an exit, finish or main-ULT request, the main ULT on either side, a yielder
 * with a request of its own pending (goabt_unit_yield_sync), and in the
 * valgrind build (its scheduler loop paces itself). A yield that finds nothing to hand over to
 * before its own pool, and that pool empty, is one the round would answer with the yielder
 * itself: the yielder, the main ULT too, goes on running without a switch (a polling loop of
 * yields alone on its stream; docs/performance.md, "yield alone"). */
#define DIRECT_MAX 64

goabt_unit *goabt_unit_direct_next(goabt_stream *s, goabt_unit *self, goabt_pool *back,
                                   goabt_pool *park, int *counted, int *requeued)
{
#ifdef GOABT_VALGRIND
    (void)s;
    (void)self;
    (void)back;
    (void)park;
    (void)counted;
    (void)requeued;
    return NULL;
#else
    goabt_sched *sc = s->sched;
    int main_ult = (self->flags & GOABT_UNIT_MAIN) != 0;
    if ((main_ult && requeued == NULL) || s->nested != 0 || s->main_child ||
        !(sc->ops->flags & GOABT_SCHED_OPS_IN_ORDER) || s->user_run != NULL ||
        __atomic_load_n(&goabt_tool_mask, __ATOMIC_RELAXED) != 0) {
        return NULL;
    }
    if (++s->direct_run >= DIRECT_MAX) {
        s->direct_run = 0;
        return NULL;
    }
    if (__atomic_load_n(&sc->exit_req, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&sc->finish_req, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&s->request, __ATOMIC_ACQUIRE) ||
        (s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_ACQUIRE)) ||
        (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_RELAXED) != 0 && goabt_timers_due())) {
        return NULL;
    }
    for (int i = 0; i < sc->num_pools; i++) {
        goabt_pool *p = sc->pools[i];
        /* A yield into its own pool, empty as every pool before it: the round would pop the
         * yielder straight back, so it goes on (the main ULT too). */
        if (p == back && requeued != NULL && goabt_pool_yield_alone(p, self)) return self;
        if (main_ult) { /* no hand-over from the main ULT: only a yield alone goes on */
            if (p == back || !(p->ops->flags & GOABT_POOL_OPS_LOCKED_QUEUE) ||
                __atomic_load_n(&p->size, __ATOMIC_RELAXED) != 0) {
                return NULL;
            }
            continue;
        }
        int stop = 0;
        goabt_unit *u = goabt_pool_pop_ult(p, &stop, park, counted,
                                           p == back && requeued != NULL ? self : NULL, requeued);
        if (u != NULL || stop || p == back) return u;
    }
    return NULL;
#endif
}

/* Yields straight to target; the caller goes back to its pool. Without a direct switch (the
 * main ULT on either side) it yields the ordinary way; a target that cannot be taken leaves the
 * caller running, as in Argobots. */
void goabt_unit_yield_to(goabt_unit *target)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    if (!goabt_unit_take_target(target)) return;
    if (!goabt_unit_direct(self, target)) {
        goabt_unit_give_back(target);
        goabt_unit_yield();
        return;
    }
    goabt_unit_yield_straight(s, self, target, ABT_POOL_CONTEXT_OP_THREAD_YIELD_TO);
}

void goabt_unit_start_to(goabt_unit *u, ABT_pool_context why)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s != NULL ? s->current : NULL;
    if (self == NULL || self->kind != GOABT_ULT || !goabt_unit_direct(self, u)) {
        goabt_pool_push_op(u->pool, u, why);
        if (self != NULL && self->kind == GOABT_ULT) goabt_unit_yield();
        return;
    }
    goabt_unit_yield_straight(s, self, u, why);
}

void goabt_unit_exit_to(goabt_unit *target)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    int taken = goabt_unit_take_target(target);
    if (!taken || !goabt_unit_direct(self, target)) {
        if (taken) goabt_unit_give_back(target);
        goabt_unit_exit();
    }
    goabt_unit_switch_to(s, self, target, goabt_unit_terminated, s);
    __builtin_unreachable();
}

void goabt_unit_exit(void)
{
    goabt_stream *s = goabt_self_stream();
    /* No stream: the process was forked inside this ULT (runtime.h, goabt_forked). */
    if (__builtin_expect(s == NULL, 0)) goabt_forked_unit_returned();
    GOABT_ASSERT_MSG(s->current != NULL && s->current->kind == GOABT_ULT &&
                         !(s->current->flags & GOABT_UNIT_MAIN) && s->after_fn == NULL &&
                         __atomic_load_n(&s->current->state, __ATOMIC_RELAXED) ==
                             ABT_THREAD_STATE_RUNNING,
                     "a running ULT exits");
    s->after_fn = goabt_unit_terminated;
    s->after_unit = s->current;
    s->after_arg = s;
    goabt_ctx_jump(s->sched_ctx);
}

void goabt_unit_yield_sync(int sync_type, void *sync)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    GOABT_TOOL_EVENT_SYNC(self, ABT_TOOL_EVENT_THREAD_YIELD, self->pool, sync_type, sync);
    void *why = (void *)(uintptr_t)ABT_POOL_CONTEXT_OP_THREAD_YIELD;
    if (__builtin_expect(__atomic_load_n(&self->request, __ATOMIC_ACQUIRE) != 0, 0)) {
        /* A request to take up (a ULT moving itself to another stream: migrate, then yield):
         * straight to the scheduler, whose after_yield pushes it where it goes; no hand-over
         * (it would only run after_yield on the next ULT's stack). A migration round trip
         * between two streams measured 0.8x what it was through the hand-over's look at this
         * stream's pools, at every stack offset and code alignment tried, though the look
         * itself costs ~15 ns of the ~150 (docs/performance.md, "a migrating yield goes
         * straight to the scheduler"). */
        goabt_unit_switch_out(s, self, after_yield, why);
        return;
    }
    goabt_pool *back = self->pool;
    int requeued = 0;
    goabt_unit *next = goabt_unit_direct_next(s, self, back, NULL, NULL, &requeued);
    if (next == self) return; /* alone in its pool: the scheduler would run it again */
    if (requeued) {
        goabt_unit_switch_to(s, self, next, after_requeue, back);
    } else if (next != NULL) {
        goabt_unit_switch_to(s, self, next, after_yield, why);
    } else {
        goabt_unit_switch_out(s, self, after_yield, why);
    }
}
