//go:build goabt_c_engine
/* sched_user.c: user-defined schedulers, the kind goabt_sched_user_ops (scheduler.h, top;
 * ABT_sched_create from an ABT_sched_def: the entries, and what a run function calls,
 * ABT_xstream_run_unit, ABT_self_schedule, ABT_xstream_check_events, ABT_sched_has_to_stop,
 * are api/sched.c): their runs, and the unit runs those ask for.
 *
 * A stream whose main scheduler is a user one calls its run function from goabt's loop
 * (sched.c), on the scheduler's context: run pops work units from the scheduler's pools and runs
 * each with ABT_xstream_run_unit, which switches to the unit exactly as goabt's loop does and
 * returns once the unit switches back. run returns when ABT_sched_has_to_stop says so: the
 * stream ends (a secondary), or the primary resumes the main ULT in ABT_finalize, or the stream
 * goes on with the scheduler ABT_xstream_set_main_sched gave it meanwhile. On the primary the
 * run function has a stack of its own ("The primary's run stack" below): when it resumes the
 * main ULT (popped from a pool, or handed over by another stream and noticed in
 * ABT_xstream_check_events), it waits there and goes on where it left off the next time the
 * main ULT steps aside. A run function may block on any synchronization object or join, as a
 * ULT may: the stream's thread waits (the scheduler has nothing below it to run meanwhile), as
 * from an external thread. A scheduler may also run as a ULT of another (ABT_pool_add_sched,
 * sched_stacked.c): its run function then runs on that ULT (a wait parks it), and run_unit runs
 * each unit as the ULT's child (goabt_unit_run_child), as any ULT may with ABT_self_schedule. */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include "gocalls.h"
#include "context.h"
#include "handles.h"
#include "info_facts.h"
#include "pool.h"
#include "pool_member.h"
#include "pool_member.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"
#include "valgrind_stacks.h"

int goabt_sched_stop_now(goabt_stream *s, goabt_sched *sc)
{
    if (__atomic_load_n(&sc->exit_req, __ATOMIC_ACQUIRE)) return 1;
    /* Stacked: it stops once it has nothing to run, as in Argobots 1.2. */
    if (__atomic_load_n(&sc->used, __ATOMIC_ACQUIRE) == GOABT_SCHED_IN_POOL) {
        return !goabt_sched_has_work(sc);
    }
    if (s != NULL && s->sched != sc) return 1; /* replaced by ABT_xstream_set_main_sched */
    int finish = __atomic_load_n(&sc->finish_req, __ATOMIC_ACQUIRE) ||
                 (s != NULL && (__atomic_load_n(&s->request, __ATOMIC_ACQUIRE) & GOABT_REQ_FINISH));
    return finish && !goabt_sched_has_work(sc);
}

void goabt_sched_user_run_over(goabt_stream *s)
{
    goabt_sched *sc = s->user_run;
    s->user_run = NULL;
    if (sc != NULL && sc->retire_deferred && s->sched != sc) goabt_sched_retire(s, sc);
}

/* What follows a run's return on s: 1 if s has to end (a secondary whose scheduler finished),
 * 0 to go on with s's scheduler (replaced meanwhile, or run again); on the primary finishing,
 * no return (the main ULT resumes). */
static int run_returned(goabt_stream *s, goabt_sched *sc)
{
    GOABT_ASSERT(s == goabt_self_stream() && s->user_run == sc && !s->run_live);
    GOABT_ASSERT(__atomic_load_n(&sc->in_run, __ATOMIC_RELAXED) == 1);
    __atomic_store_n(&sc->in_run, 0, __ATOMIC_RELEASE);
    if (s->sched != sc) {
        goabt_sched_user_run_over(s); /* replaced: retired now if it was automatic */
        return 0;                     /* and the stream goes on with the new one */
    }
    s->user_run = NULL;
    if (s->is_primary) {
        if ((__atomic_load_n(&s->request, __ATOMIC_ACQUIRE) & GOABT_REQ_FINISH) &&
            !goabt_sched_has_work(sc)) {
            /* ABT_finalize parked the main ULT until the primary ran out of work. */
            __atomic_and_fetch(&s->request, ~GOABT_REQ_FINISH, __ATOMIC_RELEASE);
            goabt_unit_resume_main(s);
        }
        /* The primary's scheduler stopped on its own: it is run again (the main ULT needs
         * a scheduler to come back to); a short pause keeps a run that returns at once from
         * spinning. */
        sched_yield();
        return 0;
    }
    return 1; /* a secondary stream ends with its main scheduler */
}

/* ---- The primary's run stack ------------------------------------------------------------------
 *
 * The primary's scheduler runs on activations of the main stack, below the suspended main ULT,
 * and each is abandoned when the main ULT resumes (scheduler.h, top). goabt's loop keeps nothing there,
 * but a run function keeps its state in its frames, and runs the main ULT from the middle of
 * them (ABT_xstream_run_unit, ABT_xstream_check_events): started afresh at the next activation,
 * it would do again what it had done, such as a round of a barrier its peers passed long ago
 * (they then wait for it forever). So on the primary a run function runs on a stack of its own,
 * of the size Argobots gives a scheduler's ULT (GOABT_SCHED_STACKSIZE), made once and kept with
 * the stream. When it runs the main ULT, the run waits there (s->run_ctx, goabt_unit_resume_main),
 * and the next activation resumes it where it left off (goabt_user_sched_resume): the main ULT
 * runs on top of the run, as in Argobots, where both are ULTs. Its code is still the
 * scheduler's context (s->current NULL): self queries answer for the scheduler as a ULT, and a
 * wait there (mutex, barrier, join ...) blocks the stream's thread, as on a secondary, until
 * the waker wakes it. Go calls from the run, and from the units it runs, take the gate to the
 * activation's stack (s->sys_ctx, with s->run_live set). */

/* The run's first code, on its stack: runs sc's run function, then goes back to the activation
 * that started or last resumed it. */
__attribute__((noreturn)) static void run_entry(void *arg)
{
    goabt_stream *s = arg;
    goabt_sched *sc = s->user_run;
    GOABT_ASSERT(s->is_primary && s->run_live && sc != NULL);
    sc->ops->run(sc);
    GOABT_ASSERT_MSG(s->run_live && s->current == NULL,
                     "a run returns on its own stack, in the scheduler's context");
    s->run_live = 0;
    goabt_ctx_jump(s->sys_ctx); /* the stack is free for the next run */
}

/* A fresh run's context on s's run stack, which is made the first time. */
static goabt_ctx run_start(goabt_stream *s)
{
    GOABT_ASSERT_MSG(s->is_primary && !s->run_live && s->run_ctx == NULL,
                     "one run at a time on the primary's run stack");
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (s->run_stack == NULL) {
        size_t mapped = 0;
        void *m = goabt_stack_get(GOABT_SCHED_STACKSIZE, &mapped);
        if (m == NULL) goabt_die("out of memory for the primary scheduler's stack (mmap failed)");
        s->run_stack = m;
        s->run_stack_size = mapped;
        s->vg_run_stack = goabt_vg_stack_register((char *)m + page, (char *)m + mapped);
    }
    char *top = (char *)s->run_stack + s->run_stack_size;
    GOABT_UNPOISON((char *)s->run_stack + page, top); /* the last run jumped away from its frames */
    return goabt_ctx_make(top, run_entry, s);
}

/* From the activation: runs the run whose context is ctx until it returns (back here), or runs
 * the main ULT (then this activation is abandoned). */
static void run_switch(goabt_stream *s, goabt_ctx ctx)
{
    GOABT_ASSERT(s == goabt_self_stream() && s->is_primary && !s->run_live && ctx != NULL);
    GOABT_ASSERT_MSG(s->current == NULL && s->nested == 0, "the activation runs no unit");
    s->run_ctx = NULL;
    s->run_live = 1;
    goabt_ctx_switch(&s->sys_ctx, ctx);
}

void goabt_user_sched_resume(goabt_stream *s)
{
    goabt_sched *sc = s->user_run;
    GOABT_ASSERT_MSG(sc != NULL && s->run_ctx != NULL, "a run waits for the main ULT");
    run_switch(s, s->run_ctx);
    run_returned(s, sc);
}

void goabt_user_sched_stack_free(goabt_stream *s)
{
    if (s->run_stack == NULL) return;
    GOABT_ASSERT_MSG(!s->run_live && s->run_ctx == NULL, "the run stack is freed unused");
    goabt_vg_stack_deregister(s->vg_run_stack);
    goabt_stack_put(s->run_stack, s->run_stack_size);
    s->run_stack = NULL;
    s->vg_run_stack = 0;
}

int goabt_user_sched_run(goabt_stream *s, goabt_sched *sc)
{
    GOABT_ASSERT(s == goabt_self_stream() && s->current == NULL && s->sched == sc);
    GOABT_ASSERT(sc->ops->run != NULL && sc->used == GOABT_SCHED_MAIN);
    GOABT_ASSERT_MSG(!__atomic_load_n(&sc->in_run, __ATOMIC_RELAXED),
                     "a scheduler's run function runs once at a time");
    s->user_run = sc;
    __atomic_store_n(&sc->in_run, 1, __ATOMIC_RELEASE);
    if (s->is_primary) {
        run_switch(s, run_start(s));
    } else {
        sc->ops->run(sc); /* on the stream's own stack */
    }
    return run_returned(s, sc);
}

/* ---- The kind ------------------------------------------------------------------------------- */

static void user_run(goabt_sched *sc) { sc->def.run(sc); }

/* Its free, unless its init failed (ABT_sched_create clears it then). */
static void user_free(goabt_sched *sc)
{
    if (sc->def.free != NULL) sc->def.free(sc);
}

/* Its get_migr_pool's choice, else its first pool. */
static goabt_pool *user_migration_pool(goabt_sched *sc)
{
    if (sc->def.get_migr_pool == NULL) return sc->num_pools > 0 ? sc->pools[0] : NULL;
    return goabt_pool_of(sc->def.get_migr_pool(sc));
}

static int user_sched_info_kind(const goabt_sched *sc)
{
    (void)sc;
    return GOABT_INFO_SCHED_USER;
}

const struct goabt_sched_ops goabt_sched_user_ops = {
    .info_kind = user_sched_info_kind,
    .run = user_run,
    .free = user_free,
    .migration_pool = user_migration_pool,
};

/* ---- What run calls ------------------------------------------------------------------------- */

int goabt_sched_run_unit(goabt_unit *u, goabt_pool *p)
{
    goabt_stream *s = goabt_self_stream();
    if (s == NULL) return ABT_ERR_INV_XSTREAM;
    goabt_unit *self = s->current;
    if (self != NULL && self->kind != GOABT_ULT) return ABT_ERR_INV_THREAD; /* a tasklet */
    if (!goabt_unit_in_no_pool(u)) return ABT_ERR_INV_UNIT; /* not ready, or still in a pool */
    if (p != NULL && u->pool != p) {
        int rc = goabt_pool_member_set(p, u);
        if (rc != ABT_SUCCESS) return rc;
    }
    if (u->flags & GOABT_UNIT_MAIN) {
        goabt_unit_hand_main(s);
        return ABT_SUCCESS;
    }
    GOABT_ASSERT(u != self && u->kind != 0);
    s->aside = 0; /* set again if u is a stacked scheduler that steps aside (sched_stacked.c) */
    /* run: no longer its popper's to switch to (unit_switch.c, goabt_unit_take_target) */
    goabt_pool_member_unclaim(u);
    goabt_unit_run_child(u);
    return ABT_SUCCESS;
}

