//go:build goabt_c_engine
/* sched_stacked.c: stacked schedulers (ABT_pool_add_sched, api/pool.c): a scheduler pushed into a pool runs
 * as a ULT of whichever scheduler pops it, and runs its own pools' units as that ULT's children.
 *
 * The scheduler's ULT is an ordinary unnamed ULT whose function is the scheduler's run: its
 * kind's run (a user scheduler's def.run), or for a kind with a pick stacked_loop, goabt's loop
 * as a ULT runs it. Units run as children of the ULT (goabt_unit_run_child,
 * unit_switch.c): one that yields, blocks or ends switches back to the scheduler's ULT as it
 * would to a stream's scheduler. The scheduler stops, its ULT ends, and control goes back to the scheduler below,
 * once its pools hold no work (or ABT_sched_exit asked it to): Argobots 1.2 stops a stacked
 * scheduler as soon as it has nothing to run. It is then unused again (the user may free it or
 * add it again), or freed if it is automatic. While its pools hold only blocked ULTs it steps
 * aside (yields its ULT) between looks, so that the scheduler below runs what may wake them.
 * Its parent, when it is a stacked scheduler too, finds it queued again at once, and would run
 * it again and again: so a parent whose child stepped aside steps aside in turn (goabt's loop at
 * once, a user scheduler at its next ABT_xstream_check_events), down to the stream's own
 * scheduler, which runs the rest of its pools (stream->aside). */
#include "object.h"
#include "pool.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"

void goabt_sched_ult_events(goabt_sched *sc, int idle)
{
    if (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_RELAXED) != 0 && goabt_timers_due()) {
        goabt_timers_fire();
    }
    goabt_stream *s = goabt_self_stream();
    GOABT_ASSERT_MSG(s != NULL && s->current != NULL && s->current->kind == GOABT_ULT,
                     "a scheduler between units on a ULT");
    /* Only the primary's own scheduler resumes a main ULT handed back to it. */
    int handoff = s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_ACQUIRE);
    int aside = idle && sc->used == GOABT_SCHED_IN_POOL;
    if (aside) s->aside = 1; /* for the parent, to which the yield goes back */
    if (handoff || aside) goabt_unit_yield();
}

/* goabt's scheduler loop, run by a stacked predefined scheduler's ULT. */
static void stacked_loop(goabt_sched *sc)
{
    for (;;) {
        if (__atomic_load_n(&sc->exit_req, __ATOMIC_ACQUIRE)) return; /* whatever is left */
        goabt_stream *s = goabt_self_stream(); /* anew each round: a yield may move the ULT */
        goabt_unit *u = goabt_sched_pop_next(s, sc);
        if (u != NULL) {
            goabt_sched_run_unit(u, NULL);
            goabt_sched_ult_events(sc, goabt_self_stream()->aside); /* a child stepped aside */
            continue;
        }
        if (goabt_sched_stop_now(s, sc)) return;
        goabt_sched_ult_events(sc, 1);
    }
}

static void stacked_main(void *arg)
{
    goabt_sched *sc = arg;
    GOABT_ASSERT_MSG(__atomic_load_n(&sc->used, __ATOMIC_ACQUIRE) == GOABT_SCHED_IN_POOL,
                     "a stacked scheduler's ULT runs it as stacked");
    if (sc->ops->run != NULL) {
        sc->ops->run(sc);
    } else {
        stacked_loop(sc);
    }
    int automatic = sc->automatic; /* read first: once unused, the user may free sc */
    GOABT_ASSERT(__atomic_load_n(&sc->used, __ATOMIC_ACQUIRE) == GOABT_SCHED_IN_POOL);
    if (automatic) {
        sc->used = GOABT_SCHED_UNUSED;
        goabt_sched_delete(sc);
    } else {
        __atomic_store_n(&sc->used, GOABT_SCHED_UNUSED, __ATOMIC_RELEASE);
    }
}

int goabt_sched_stack(goabt_pool *p, goabt_sched *sc)
{
    int unused = GOABT_SCHED_UNUSED;
    if (!__atomic_compare_exchange_n(&sc->used, &unused, GOABT_SCHED_IN_POOL, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        return ABT_ERR_INV_SCHED; /* a stream's main scheduler, or stacked already */
    }
    /* Added again after it stopped: it runs afresh. */
    __atomic_store_n(&sc->finish_req, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&sc->exit_req, 0, __ATOMIC_RELAXED);
    goabt_attr attr = {.migratable = ABT_TRUE, .magic = GOABT_MAGIC_ATTR,
                       .stacksize = GOABT_SCHED_STACKSIZE};
    int rc = goabt_unit_create(p, GOABT_ULT, stacked_main, sc, &attr, 0, NULL);
    if (rc != ABT_SUCCESS) __atomic_store_n(&sc->used, GOABT_SCHED_UNUSED, __ATOMIC_RELEASE);
    return rc;
}
