/*
 * scheduler.h: schedulers (ABT_sched): goabt's loop and idle sleep (sched.c), user schedulers' run
 * functions (sched_user.c), schedulers run as a ULT of another's pool (sched_stacked.c) and
 * Go scheduling policies (pool_go.c), and the interface every kind of scheduler implements
 * (struct goabt_sched_ops). Internal.
 *
 * Kinds of schedulers. A scheduler points to its kind's ops; the engine asks a scheduler only
 * through them. The kinds goabt ships are written against the same interface a program extends:
 *   - goabt_sched_basic_ops (sched.c): its pools' first unit, in order: ABT_SCHED_BASIC,
 *     BASIC_WAIT, PRIO (pools in priority order), and RANDWS over one pool;
 *   - goabt_sched_randws_ops (sched.c): ABT_SCHED_RANDWS over several pools: its own first,
 *     then the others from a random one on;
 *   - goabt_sched_user_ops (sched_user.c): user-defined schedulers (ABT_sched_def), whose run
 *     function is their loop;
 *   - goabt_sched_go_ops (pool_go.c): goabt's loop with a Go policy's picks (core.Policy).
 * goabt's loop (idle sleep, wake-ups, requests, the main ULT's hand-over) runs every kind that
 * has a pick, asking it for the next unit; basic's pick is taken inline, the hot case. A kind
 * with a run instead runs its own loop there (goabt_user_sched_run: on the primary, on a stack
 * of its own). To add a kind: write its pick (or run), free and migration_pool when it needs
 * them, and say in its flags whether its pick is the first unit of its pools in order, which
 * lets a ULT hand the stream over straight (unit_switch.c, goabt_unit_direct_next).
 *
 * The scheduler's context. Schedulers run on the stream's own context, not on a ULT as in
 * Argobots (stream->current is NULL there). Self queries made there (a user scheduler's run
 * function, user pool functions) answer for a stand-in, the scheduler as a ULT
 * (goabt_stream_sched_self): a descriptor that no pool, switch or join ever sees. A wait there
 * (a run function may block on any synchronization object or join, as a ULT may) blocks the
 * stream's thread, as an external thread's: nothing below the scheduler would run meanwhile.
 * On the primary, whose scheduler runs on activations abandoned when the main ULT resumes, a
 * user scheduler's run function has a stack of its own, so that it goes on where it left off
 * once it has run the main ULT (sched_user.c, "The primary's run stack").
 */
#ifndef GOABT_SCHEDULER_H
#define GOABT_SCHEDULER_H

#include "common.h"

/* A scheduler (ABT_sched): pools in priority order. */
#define GOABT_SCHED_MAX_POOLS 64
/* The stack a scheduler that runs as a ULT gets, as Argobots gives one (ABT_SCHED_STACKSIZE's
 * default): a stacked scheduler's ULT (sched_stacked.c), the primary's run stack
 * (sched_user.c). Units it runs may run on it (tasklets), and only the pages touched are ever
 * backed. */
#define GOABT_SCHED_STACKSIZE (4u << 20)

/* What a scheduler is used as (sched->used). */
enum {
    GOABT_SCHED_UNUSED = 0,
    GOABT_SCHED_MAIN = 1,    /* a stream's main scheduler */
    GOABT_SCHED_IN_POOL = 2, /* stacked: a ULT of another scheduler's pool runs it (ABT_pool_add_sched) */
};
/* What a kind of scheduler does (top). */
struct goabt_sched_ops {
    /* The next unit goabt's loop runs for sc on stream s, taken out of its pool, or NULL. NULL
     * for a kind that runs its own loop (run). */
    goabt_unit *(*pick)(goabt_stream *s, goabt_sched *sc);
    /* Runs sc's own loop until it stops (ABT_sched_has_to_stop): as a stream's main scheduler
     * through goabt_user_sched_run, or stacked on a ULT (sched_stacked.c). NULL for a kind that
     * goabt's loop runs with its pick. */
    void (*run)(goabt_sched *sc);
    /* Frees what the kind keeps for sc (goabt_sched_delete: sc is still a scheduler), or NULL. */
    void (*free)(goabt_sched *sc);
    /* The pool a unit migrating to sc goes to (NULL: none), or NULL for its first pool. */
    goabt_pool *(*migration_pool)(goabt_sched *sc);
    /* What info printing and the leak report call sc's kind (GOABT_INFO_SCHED_*, info_facts.h). */
    int (*info_kind)(const goabt_sched *sc);
    unsigned flags; /* GOABT_SCHED_OPS_* */
};
/* Its pick is the first unit of its pools, in order: a ULT that yields or parks may pop that
 * unit itself and switch to it straight (unit_switch.c, goabt_unit_direct_next). */
#define GOABT_SCHED_OPS_IN_ORDER 1u

extern const struct goabt_sched_ops goabt_sched_basic_ops GOABT_HIDDEN;  /* sched.c */
extern const struct goabt_sched_ops goabt_sched_randws_ops GOABT_HIDDEN; /* sched.c */
extern const struct goabt_sched_ops goabt_sched_user_ops GOABT_HIDDEN;   /* sched_user.c */
extern const struct goabt_sched_ops goabt_sched_go_ops GOABT_HIDDEN;     /* pool_go.c */

struct ABT_sched_opaque {
    /* Its ABT_sched_predef (ABT_SCHED_BASIC for a Go scheduler); -1 for a user scheduler. What
     * it does is its ops'. */
    int predef;
    uint32_t magic;
    int automatic;   /* freed with the stream that uses it */
    int used;        /* GOABT_SCHED_*: unused, a stream's main scheduler, or stacked */
    int num_pools;
    /* Its kind. The loop of a basic scheduler tests this one word. */
    const struct goabt_sched_ops *ops;
    int go_policy;   /* a Go scheduler's: the id of its core.Policy (pool_go.c), or 0 */
    /* A Go scheduler's lease (core.Leaser, pool_go.c): units it may still pop in its pools'
     * order without asking the policy, until lease_until (goabt_monotonic_ns, looked at every
     * LEASE_CLOCK_EVERY units). Its stream's own. */
    int lease_left;
    uint64_t lease_until;
    int finish_req;  /* ABT_sched_finish: stop once its pools are empty (atomic) */
    int exit_req;    /* ABT_sched_exit: stop now (atomic) */
    /* Replaced as a stream's main scheduler while its run function was live there: retired
     * (freed, automatic pools and all) when that run returns, not under it. */
    int retire_deferred;
    /* Its run function runs as a stream's main scheduler (goabt_user_sched_run) and has not
     * returned, replaced or not (on the primary it may wait below the main ULT): ABT_sched_free
     * refuses it meanwhile, as it refuses one in use. Atomic. */
    int in_run;
    ABT_sched_def def; /* a user scheduler's (sched_user.c) */
    void *data;      /* ABT_sched_set_data */
    goabt_pool *pools[GOABT_SCHED_MAX_POOLS];
};

/* A predefined scheduler over pools, run by the Go policy GOABT_SCHED names if there is one. */
goabt_sched *goabt_sched_new_predef(int predef, int num_pools, goabt_pool **pools, int automatic)
    GOABT_HIDDEN;

/* Schedulers (sched.c). */
/* A scheduler of kind ops over pools[0..num_pools); predef: its ABT_sched_predef, or -1. NULL
 * when out of memory. */
goabt_sched *goabt_sched_new(const struct goabt_sched_ops *ops, int predef, int num_pools,
                             goabt_pool **pools, int automatic) GOABT_HIDDEN;
/* A predefined scheduler goabt runs in C: the kind predef is (basic or randws). */
goabt_sched *goabt_sched_new_builtin(int predef, int num_pools, goabt_pool **pools, int automatic)
    GOABT_HIDDEN;
/* The pool a unit migrating to sc goes to, or NULL. */
goabt_pool *goabt_sched_migration_pool(goabt_sched *sc) GOABT_HIDDEN;
void goabt_sched_delete(goabt_sched *s) GOABT_HIDDEN;
int goabt_sched_has_work(goabt_sched *s) GOABT_HIDDEN;
/* The next unit goabt's loop would run for sc (a kind with a pick) on s, taken out of its
 * pool, or NULL. */
goabt_unit *goabt_sched_pop_next(goabt_stream *s, goabt_sched *sc) GOABT_HIDDEN;
/* Runs s's scheduler loop; returns on a secondary stream once asked to finish with no work
 * left; on the primary it leaves by resuming the main ULT. */
void goabt_sched_loop(goabt_stream *s) GOABT_HIDDEN;

/* A turn on stream s of a scheduler with a run of its own (sched_user.c): runs it until it returns;
 * then 1 if s has to end (its scheduler finished), 0 to go on with s's scheduler (replaced
 * meanwhile, or run again). May not return (the primary resumes the main ULT: the run, on a
 * stack of its own there, waits in s->run_ctx). */
int goabt_user_sched_run(goabt_stream *s, goabt_sched *sc) GOABT_HIDDEN;
/* The primary's activation, s->run_ctx set: the run waiting for the main ULT goes on where it
 * left off; once it has returned, as goabt_user_sched_run after the run (may not return). */
void goabt_user_sched_resume(goabt_stream *s) GOABT_HIDDEN;
/* Gives s's run stack, if it has one, back to the Go core (the stream is freed). */
void goabt_user_sched_stack_free(goabt_stream *s) GOABT_HIDDEN;
/* Frees old, an automatic scheduler that s no longer runs (ABT_xstream_set_main_sched replaced
 * it), with its automatic pools: units queued there move to s's scheduler's first pool, and a
 * pool that parked ULTs still name forwards them there (sched.c). */
void goabt_sched_retire(goabt_stream *s, goabt_sched *old) GOABT_HIDDEN;
/* The user scheduler whose run function s ran has returned: a deferred retirement happens
 * now. */
void goabt_sched_user_run_over(goabt_stream *s) GOABT_HIDDEN;
/* Whether sc has to stop on s: exit asked, or finish asked (of sc, or of s when sc is its main
 * scheduler) and no work is left, or s runs another scheduler now. */
int goabt_sched_stop_now(goabt_stream *s, goabt_sched *sc) GOABT_HIDDEN;

/* Runs u, a ready unit taken out of its pool (p, when not NULL, becomes its pool), as the
 * caller's child (goabt_unit_run_child), or hands the main ULT to the primary's scheduler:
 * ABT_xstream_run_unit and ABT_self_schedule. ABT_ERR_INV_XSTREAM from an external thread,
 * ABT_ERR_INV_THREAD from a tasklet, ABT_ERR_INV_UNIT when u is not ready and in no pool. */
int goabt_sched_run_unit(goabt_unit *u, goabt_pool *p) GOABT_HIDDEN;
/* A scheduler running on a ULT between units (sched_stacked.c): fires due timers, and yields
 * the ULT when the scheduler below must run: the main ULT was handed back to the primary, or
 * sc is stacked and idle (its pools hold only blocked ULTs). */
void goabt_sched_ult_events(goabt_sched *sc, int idle) GOABT_HIDDEN;
/* Units queued in sc's pools now. */
size_t goabt_sched_queued(goabt_sched *sc) GOABT_HIDDEN;

/* Pushes sc into p as a ULT that runs it (ABT_pool_add_sched): ABT_ERR_INV_SCHED if sc is in use
 * (a stream's main scheduler, or stacked already). */
int goabt_sched_stack(goabt_pool *p, goabt_sched *sc) GOABT_HIDDEN;

/* A scheduler run by the Go policy registered as name (goabt_sched_create_go) over
 * list[0..num_pools): a NULL entry gets a new FIFO pool (freed again if this fails).
 * ABT_ERR_INV_ARG if no such policy, ABT_ERR_MEM when out of memory. */
int goabt_sched_new_go(const char *name, int num_pools, goabt_pool **list, int automatic,
                       goabt_sched **out) GOABT_HIDDEN;

#endif /* GOABT_SCHEDULER_H */
