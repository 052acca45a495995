//go:build goabt_c_engine
/* sched.c: schedulers: the loop that runs units, how an idle stream sleeps, scheduler objects
 * (ABT_sched: pools in priority order), and the kinds goabt runs in C (scheduler.h, top):
 * goabt_sched_basic_ops and goabt_sched_randws_ops. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "object.h"
#include "leaks.h"
#include "object.h"
#include "info_facts.h"
#include "pool.h"
#include "pool_member.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"

/* ---- Scheduler objects -------------------------------------------------------------------- */

goabt_sched *goabt_sched_new(const struct goabt_sched_ops *ops, int predef, int num_pools,
                             goabt_pool **pools, int automatic)
{
    GOABT_ASSERT(num_pools >= 0 && num_pools <= GOABT_SCHED_MAX_POOLS);
    goabt_sched *s = goabt_mem_new(sizeof *s);
    if (!s) return NULL;
    s->ops = ops;
    s->predef = predef;
    s->automatic = automatic;
    s->num_pools = num_pools;
    for (int i = 0; i < num_pools; i++) {
        s->pools[i] = pools[i];
        __atomic_add_fetch(&pools[i]->num_scheds, 1, __ATOMIC_ACQ_REL);
    }
    s->magic = goabt_runtime_magic(GOABT_MAGIC_SCHED);
    return s;
}

goabt_sched *goabt_sched_new_builtin(int predef, int num_pools, goabt_pool **pools, int automatic)
{
    /* RANDWS over one pool has no one to steal from: it is basic, hand-over and all. */
    const struct goabt_sched_ops *ops = predef == ABT_SCHED_RANDWS && num_pools > 1
                                            ? &goabt_sched_randws_ops
                                            : &goabt_sched_basic_ops;
    return goabt_sched_new(ops, predef, num_pools, pools, automatic);
}

goabt_pool *goabt_sched_migration_pool(goabt_sched *sc)
{
    if (sc->ops->migration_pool != NULL) return sc->ops->migration_pool(sc);
    return sc->num_pools > 0 ? sc->pools[0] : NULL;
}

void goabt_sched_delete(goabt_sched *s)
{
    GOABT_ASSERT_MSG(__atomic_load_n(&s->in_run, __ATOMIC_RELAXED) == 0,
                     "a scheduler is freed only once its run function returned");
    GOABT_ASSERT_MSG(__atomic_load_n(&s->used, __ATOMIC_RELAXED) == GOABT_SCHED_UNUSED,
                     "a scheduler freed while used (%d)", s->used);
    GOABT_LEAK_FORGET(s);
    if (s->ops->free != NULL) s->ops->free(s); /* still a scheduler: a user's free may get its data */
    s->magic = GOABT_MAGIC_FREED;
    for (int i = 0; i < s->num_pools; i++) goabt_pool_release(s->pools[i]);
    goabt_mem_delete(s, sizeof *s);
}

void goabt_sched_retire(goabt_stream *s, goabt_sched *old)
{
    goabt_pool *first = s->sched->pools[0];
    goabt_unit *m = goabt_rt.main_unit;
    for (int i = 0; i < old->num_pools; i++) {
        goabt_pool *p = old->pools[i];
        if (p->automatic && __atomic_load_n(&p->num_scheds, __ATOMIC_ACQUIRE) == 1) {
            /* A retirement deferred to the main ULT's resumption (goabt_sched_user_run_over):
             * the main ULT, popped from p, is in no pool now, but goes back to p next. */
            if (s->is_primary && m != NULL && m->pool == p) goabt_pool_member_redirect(m, first);
            /* The pool goes with the old scheduler, but ULTs parked on it (in a join, on a
             * mutex ...) still name it: it forwards them, and its queued units, to the first
             * pool, and its memory stays until finalize. */
            if (goabt_pool_num_blocked(p) > 0) {
                __atomic_add_fetch(&p->num_scheds, 1, __ATOMIC_ACQ_REL); /* sched_delete skips it */
                goabt_pool_retire(p, first);
            } else {
                goabt_unit *u;
                while ((u = goabt_pool_pop(p)) != NULL) goabt_pool_push(first, u);
            }
        }
    }
    goabt_sched_delete(old);
}

/* Whether the scheduler still has work: queued units, or ULTs blocked on a pool that only this
 * scheduler serves (they will come back to it). Blocked first, then queued: a woken ULT leaves
 * the one count and joins the other in one locked section (its push), so read in this order it
 * is seen in one or the other; the other order could miss it in both (read as not yet queued,
 * then as no longer blocked) and let a stacked scheduler stop with it queued. */
int goabt_sched_has_work(goabt_sched *s)
{
    for (int i = 0; i < s->num_pools; i++) {
        goabt_pool *p = s->pools[i];
        if (goabt_pool_num_blocked(p) > 0 &&
            __atomic_load_n(&p->num_scheds, __ATOMIC_RELAXED) <= 1) {
            return 1;
        }
        if (goabt_pool_size(p) > 0) return 1;
    }
    return 0;
}

size_t goabt_sched_queued(goabt_sched *s)
{
    size_t n = 0;
    for (int i = 0; i < s->num_pools; i++) n += goabt_pool_size(s->pools[i]);
    return n;
}

/* ---- The loop ----------------------------------------------------------------------------- */

/* Whether a scheduler about to sleep has something to do: a queued unit, a finish request,
 * (primary) the main ULT handed back, or a deadline passed. Pool sizes are read under the
 * pools' locks, the other half of the no-fence handshake with goabt_pool_push: either this
 * look comes after a push's locked section and sees its unit, or it comes before, and that
 * push finds this stream in the pool's sleepers and wakes it. */
static int stream_has_news(goabt_stream *s)
{
    goabt_sched *sc = s->sched;
    GOABT_ASSERT(s == goabt_self_stream());
    for (int i = 0; i < sc->num_pools; i++) {
        if (goabt_pool_size_locked(sc->pools[i]) > 0) return 1;
    }
    /* Asked to finish, it leaves once no work is left: while ULTs parked on its pools may come
     * back, that is not news (the push that brings one back wakes it). */
    if ((__atomic_load_n(&s->request, __ATOMIC_SEQ_CST) & GOABT_REQ_FINISH) &&
        !goabt_sched_has_work(sc)) {
        return 1;
    }
    if (s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_SEQ_CST)) return 1;
    return goabt_timers_due();
}

/* How long an idle scheduler polls its pools before it sleeps (docs/performance.md, "idle
 * spin"): longer than a unit takes to come back from another running stream, so that units
 * handed to and fro find their stream awake, and short against the time a stream sleeps when
 * idle, so that an idle stream's CPU time stays near nothing. */
#define IDLE_SPIN_NS 50000ull

void goabt_stream_note_waker(goabt_stream *s)
{
    goabt_stream *self = goabt_self_stream();
    int cpu = sched_getcpu();
    uint64_t now = goabt_monotonic_ns();
    __atomic_store_n(&s->waker_cpu, cpu, __ATOMIC_RELAXED);
    __atomic_store_n(&s->woken_at, now, __ATOMIC_RELAXED);
    if (self != NULL && self != s) {
        self->woke = s;
        self->woke_at = now;
        self->woke_cpu = cpu;
    }
}

/* A stream woken onto the CPU of its waker, which went on polling there, ran only once that
 * spin ended (docs/performance.md, "idle spin"): two streams handing units to each other
 * would go on taking turns on one CPU, each waiting out the other's spin, for the kernel
 * sees a pair that together keeps one CPU busy. The woken stream then moves off that CPU,
 * unless it is bound to CPUs. */
#define WAKE_LATE_NS 20000ull

static void leave_waker_cpu(goabt_stream *s)
{
    uint64_t woken_at = __atomic_exchange_n(&s->woken_at, 0, __ATOMIC_RELAXED);
    if (woken_at == 0 || goabt_monotonic_ns() - woken_at < WAKE_LATE_NS) return;
    int cpu = sched_getcpu();
    if (cpu != __atomic_load_n(&s->waker_cpu, __ATOMIC_RELAXED)) return;
    goabt_stream_move_off_cpu(s, cpu);
}

/* The stream woken last by this one has not run WOKEN_WAIT_NS after the wake-up while this one
 * polls idle on the CPU it woke it from: the kernel may have queued it here, behind this
 * stream (in a virtual machine it does so whenever the other CPUs look preempted, which idle
 * ones do), where it would wait out the spin, run the unit it was woken for, and find this
 * stream asleep when it hands a unit back; that wake-up would put this stream on its CPU in
 * turn, and so on at every hand-over (docs/performance.md, "woken onto the waker's CPU").
 * This stream moves it off its CPU then and polls on: both stay awake on CPUs of their own.
 * Moving it does not give this CPU away, as a yield would: beside other processes' threads,
 * that lasts their slice. */
#define WOKEN_WAIT_NS 3000ull

static void move_stuck_woken(goabt_stream *s, uint64_t now)
{
    if (now - s->woke_at < WOKEN_WAIT_NS) return;
    uint64_t woke_at = s->woke_at;
    s->woke_at = 0;
    if (now - woke_at > IDLE_SPIN_NS || sched_getcpu() != s->woke_cpu) return;
    /* Running already: it clears woken_at first (leave_waker_cpu). Stream memory stays
     * mapped (object.c): the look is safe even if it was freed meanwhile. */
    if (__atomic_load_n(&s->woke->woken_at, __ATOMIC_RELAXED) != woke_at) return;
    goabt_stream_move_off_cpu(s->woke, s->woke_cpu);
}

/* An idle scheduler polls its pools for IDLE_SPIN_NS, then sleeps until someone gives it work.
 * It never yields the CPU meanwhile: a sched_yield while other threads want the CPU gives it
 * away for the rest of their time slice (milliseconds), and a push in that time finds the
 * stream awake, wakes nobody, and its unit waits (docs/performance.md, "idle spin").
 * It sleeps listed in each of its pools' sleepers (a push wakes exactly one of them), until
 * the earliest deadline of a parked ULT, and no longer than the safety timeout if one is set.
 * *spin_until: 0 on the first idle round, then when the spin ends (1 once it has). */
static void idle_wait(goabt_stream *s, unsigned rounds, uint64_t *spin_until)
{
    if (*spin_until != 1) {
        if (*spin_until == 0) *spin_until = goabt_monotonic_ns() + IDLE_SPIN_NS;
        if ((rounds & 15) != 0) {
            cpu_relax();
            return;
        }
        uint64_t now = goabt_monotonic_ns();
        if (s->woke_at != 0) move_stuck_woken(s, now);
        if (now < *spin_until) {
            cpu_relax();
            return;
        }
        *spin_until = 1;
    }
    goabt_sched *sc = s->sched;
    /* Only a stream's own thread sleeps on its nodes, from its scheduler's context. */
    GOABT_ASSERT(s == goabt_self_stream() && s->current == NULL && s->nested == 0);
    GOABT_ASSERT(sc->num_pools <= GOABT_SCHED_MAX_POOLS);
    __atomic_store_n(&s->sleep_word, 0, __ATOMIC_SEQ_CST);
    for (int i = 0; i < sc->num_pools; i++) goabt_pool_sleeper_add(sc->pools[i], &s->sleep_nodes[i]);
    int fenced = goabt_pool_sleepers_fence(sc->pools, sc->num_pools);
    if (!stream_has_news(s)) {
        long long ns = goabt_rt.safety_ns;
        if (!fenced && (ns == 0 || ns > 1000000)) ns = 1000000; /* a push may go unseen: 1 ms */
        uint64_t deadline = __atomic_load_n(&goabt_timers_earliest, __ATOMIC_ACQUIRE);
        if (deadline != 0) {
            uint64_t now = goabt_now_ns();
            long long left = deadline > now ? goabt_ns_until(deadline, now) : 1;
            if (ns == 0 || left < ns) ns = left;
        }
        goabt_futex_wait(&s->sleep_word, 0, ns);
    }
    leave_waker_cpu(s);
    /* Awake: a push that still finds this stream listed must wake another one instead. */
    __atomic_store_n(&s->sleep_word, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < sc->num_pools; i++) {
        goabt_pool_sleeper_remove(sc->pools[i], &s->sleep_nodes[i]);
        GOABT_ASSERT_MSG(!s->sleep_nodes[i].linked, "an awake stream is listed in no sleepers");
    }
}

/* ABT_SCHED_RANDWS: its own (first) pool first; else the others from a random one on, so that
 * streams stealing from the same pools spread over them. */
static goabt_unit *randws_pop(goabt_stream *s, goabt_sched *sc)
{
    GOABT_ASSERT_MSG(s == goabt_self_stream(), "rand_state is its stream's own");
    goabt_unit *u = goabt_pool_pop(sc->pools[0]);
    if (u != NULL) return u;
    static uint32_t streams_seeded;
    uint32_t x = s->rand_state;
    if (x == 0) { /* each stream its own sequence, also a stream made again at the same rank */
        x = 2654435761u * __atomic_add_fetch(&streams_seeded, 1, __ATOMIC_RELAXED);
        x ^= (uint32_t)s->rank << 16;
        if (x == 0) x = 1;
    }
    x ^= x << 13; /* xorshift32 */
    x ^= x >> 17;
    x ^= x << 5;
    s->rand_state = x;
    int others = sc->num_pools - 1;
    int start = (int)(x % (uint32_t)others);
    for (int k = 0; k < others && u == NULL; k++) { /* a user pool hears it is a theft */
        u = goabt_pool_pop_op(sc->pools[1 + (start + k) % others], ABT_POOL_CONTEXT_OWNER_SECONDARY);
    }
    return u;
}

/* Basic: its pools' first unit, in order. */
static inline goabt_unit *basic_pick(goabt_stream *s, goabt_sched *sc)
{
    (void)s;
    goabt_unit *u = NULL;
    for (int i = 0; i < sc->num_pools && u == NULL; i++) u = goabt_pool_pop(sc->pools[i]);
    return u;
}

static goabt_unit *basic_pick_out_of_line(goabt_stream *s, goabt_sched *sc)
{
    return basic_pick(s, sc);
}

/* The predefined kinds are told apart by the predefined scheduler they were made as. */
static int predef_info_kind(const goabt_sched *sc)
{
    switch (sc->predef) {
    case ABT_SCHED_DEFAULT: return GOABT_INFO_SCHED_DEFAULT;
    case ABT_SCHED_BASIC: return GOABT_INFO_SCHED_BASIC;
    case ABT_SCHED_PRIO: return GOABT_INFO_SCHED_PRIO;
    case ABT_SCHED_RANDWS: return GOABT_INFO_SCHED_RANDWS;
    case ABT_SCHED_BASIC_WAIT: return GOABT_INFO_SCHED_BASIC_WAIT;
    }
    return GOABT_INFO_SCHED_UNKNOWN;
}

const struct goabt_sched_ops goabt_sched_basic_ops = {
    .pick = basic_pick_out_of_line,
    .info_kind = predef_info_kind,
    .flags = GOABT_SCHED_OPS_IN_ORDER,
};

const struct goabt_sched_ops goabt_sched_randws_ops = {
    .pick = randws_pop,
    .info_kind = predef_info_kind,
};

goabt_unit *goabt_sched_pop_next(goabt_stream *s, goabt_sched *sc)
{
    if (sc->ops == &goabt_sched_basic_ops) return basic_pick(s, sc);
    return sc->ops->pick(s, sc);
}

void goabt_sched_loop(goabt_stream *s)
{
    unsigned idle = 0;
    uint64_t spin_until = 0;
#ifdef GOABT_VALGRIND
    unsigned vg_rounds = 0;
#endif
    GOABT_ASSERT(s == goabt_self_stream());
    for (;;) {
        /* The loop runs on the system stack, between units. */
        GOABT_ASSERT_MSG(s->current == NULL && s->nested == 0 && s->after_fn == NULL,
                         "stream %d: the loop runs with %p current, %d nested", s->rank,
                         (void *)s->current, s->nested);
        if (s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&s->main_handoff, 0, __ATOMIC_RELAXED);
            goabt_unit_resume_main(s);
        }
        if (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_RELAXED) != 0 && goabt_timers_due()) {
            goabt_timers_fire();
        }
        goabt_sched *sc = s->sched;
        goabt_unit *u = NULL;
        if (__builtin_expect(__atomic_load_n(&sc->exit_req, __ATOMIC_ACQUIRE), 0) &&
            !s->is_primary) {
            return; /* ABT_sched_exit: the stream ends with its scheduler, whatever is left */
        }
        if (__builtin_expect(sc->ops != &goabt_sched_basic_ops, 0)) {
            if (sc->ops->run != NULL) { /* its own loop */
                if (goabt_user_sched_run(s, sc)) return;
                continue;
            }
            u = sc->ops->pick(s, sc);
        } else {
            u = basic_pick(s, sc);
        }
        if (u != NULL) {
            idle = 0;
            spin_until = 0;
            /* Popped by a scheduler: out of every queue, ready, nobody's by hand. */
            GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY,
                             "a popped unit is READY (state %d)", u->state);
            GOABT_ASSERT(u->next == NULL && u->prev == NULL && u->popped_by == NULL &&
                         !goabt_pool_member_queued_outside(u));
            GOABT_ASSERT(u->kind == GOABT_ULT || u->kind == GOABT_TASKLET);
#ifdef GOABT_VALGRIND
            /* Valgrind runs one thread at a time and switches after a fixed count of blocks: a
             * stream running a ULT that yields in a tight loop was switched out at the same
             * point every time, inside its pool's lock, and a thread pushing into that pool
             * never got it. A syscall now and then moves the switch. Valgrind build only. */
            if ((++vg_rounds & 63) == 0) sched_yield();
#endif
            if (u->flags & GOABT_UNIT_MAIN) {
                goabt_unit_hand_main(s); /* resumed here on the primary, else handed over */
                continue;
            }
            goabt_unit_run(s, u);
            continue;
        }
        /* Finish: asked of the stream (join, finalize), or of a secondary's scheduler. */
        if (((__atomic_load_n(&s->request, __ATOMIC_ACQUIRE) & GOABT_REQ_FINISH) ||
             (!s->is_primary && __atomic_load_n(&sc->finish_req, __ATOMIC_ACQUIRE))) &&
            !goabt_sched_has_work(sc)) {
            if (!s->is_primary) return;
            GOABT_ASSERT(goabt_rt.main_unit != NULL && goabt_rt.main_unit->last_stream == s);
            /* ABT_finalize parked the main ULT until the primary ran out of work. */
            __atomic_and_fetch(&s->request, ~GOABT_REQ_FINISH, __ATOMIC_RELEASE);
            goabt_unit_resume_main(s);
        }
        idle_wait(s, ++idle, &spin_until);
    }
}
