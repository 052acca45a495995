/*
 * stream.h: execution streams (ABT_xstream): their threads and registry (stream.c), their CPU
 * binding (stream_affinity.c), and what a stream knows of the calling unit. Internal.
 *
 * A stream is one OS thread running its scheduler on its system stack; stream->current is the
 * unit running on it (NULL: the scheduler itself). Its struct is written by its own thread on
 * every unit it runs, so it sits on cache lines of its own.
 */
#ifndef GOABT_STREAM_H
#define GOABT_STREAM_H

#include "common.h"
#include "context.h"
#include "pool.h"
#include "runtime.h"
#include "scheduler.h"

/* How many free ULT stacks a stream keeps at hand (unit_stack.c). */
#define GOABT_STREAM_STACKS 128

/* Requests to a stream (stream->request bits). */
enum { GOABT_REQ_FINISH = 0x1 };

/* An execution stream (ABT_xstream). Aligned to a pair of cache lines (as handle memory of its size is): its
 * thread writes it on every unit it runs, and a neighbouring stream in the same pair slows both
 * (docs/performance.md, "stream alignment"). */
struct __attribute__((aligned(128))) ABT_xstream_opaque {
    int rank;
    uint32_t magic;
    int is_primary;
    int state;         /* ABT_XSTREAM_STATE_*, atomic */
    int request;       /* GOABT_REQ_* bits, atomic */
    /* atomic: who waits in join, or GOABT_JOIN_DONE once it ended. A joiner's tag points here
     * or at a unit's joiners: this offset puts the magic, read through the tag, on a unit's
     * request word (wait.c). */
    goabt_waiter *joiners;
    goabt_sched *sched;
    pthread_t thread;
    goabt_ctx sched_ctx;  /* the scheduler's context while a ULT runs */
    goabt_unit *current;  /* the unit running now (NULL: the scheduler itself) */
    /* What the scheduler does with the unit that just switched to it (unit.h, top). */
    goabt_after_fn after_fn;
    goabt_unit *after_unit;
    void *after_arg;
    /* Child runs in progress (goabt_unit_run_child: a ULT, a stacked scheduler's say, runs
     * another unit): while there is one, sched_ctx is the running parent ULT's, and sys_ctx
     * the stream's own scheduler's, on the system stack, where the gate takes Go calls (or,
     * while run_live, the primary's activation's: below). */
    int nested;
    goabt_ctx sys_ctx;
    int main_handoff;     /* primary only, atomic: another stream popped the main ULT */
    goabt_unit *free_units; /* cache of free unit descriptors, owned by this stream */
    int free_count;
    uint32_t rand_state;    /* ABT_SCHED_RANDWS's victim choice (sched.c), this stream's only */
    /* Idle sleep: the stream sleeps on sleep_word, listed in each of its pools' sleepers. */
    int sleep_word;        /* futex word: set to 1 to wake it */
    int wakers;            /* atomic: wake-ups in flight; the stream is not freed before 0 */
    /* Set by the push that wakes it (atomic, relaxed): when, and on which CPU the pusher ran
     * (sched.c, idle_wait: a stream woken onto its waker's CPU may have to move). */
    uint64_t woken_at;
    int waker_cpu;
    /* The stream this one woke last, when, and from which CPU (its thread's only), until its
     * idle spin has looked whether that one runs (sched.c, move_stuck_woken). */
    goabt_stream *woke;
    uint64_t woke_at;
    int woke_cpu;
    goabt_sleeper sleep_nodes[GOABT_SCHED_MAX_POOLS];
    /* CPU binding (stream_affinity.c), under goabt_rt.lock: bind_thread is the stream's OS
     * thread while bind_live says it runs; bind_cpus, when bind_explicit, the CPUs the program
     * asked for last (ABT_xstream_set_cpubind, _set_affinity), which the thread takes again
     * whenever it starts. */
    int bind_live;
    int bind_explicit;
    pthread_t bind_thread;
    cpu_set_t bind_cpus;
    goabt_sigstack sigstack; /* its thread's, while that thread lives (stackcheck.c) */
    /* Its thread's stack, which goabt maps (goabt_stream_start; its lowest page a guard) and
     * unmaps once the thread is joined; NULL for the primary. */
    void *thread_stack;
    size_t thread_stack_size;
    /* Its timeline-trace buffer (trace.h), written by its thread only; NULL until its first
     * record, and always without GOABT_TRACE. */
    struct goabt_trace_buf *trace;
    /* Free ULT stacks (mappings, all of stacks_size bytes), this stream's only (unit_stack.c).
     * Last: wait.c tells a stream from a unit by fields at the front. */
    int nstacks;
    size_t stacks_size;
    void *stacks[GOABT_STREAM_STACKS];
    /* Hand-overs from ULT to ULT without a scheduler round since the last round (unit_switch.c). */
    unsigned direct_run;
    /* Units run or switched to on this stream, ever (goabt_stream_count_run): written by the
     * stream alone, read without a lock by the watchdog (api/info_hang.c), which only asks
     * whether it moved. */
    unsigned long runs;
    /* Calls into Go through the gate, and when this thread last went through the Go scheduler
     * (ns; goabt_gate, base.c). */
    unsigned go_calls;
    uint64_t go_sched_at;
    /* A unit runs for the main ULT (goabt_unit_run_child): when it yields or blocks, the main
     * ULT goes on, so no hand-over to another ULT, and no yield without a switch. */
    int main_child;
    /* A stacked scheduler stepped aside for want of work since a unit was last run as a child
     * here (sched_stacked.c): its parent steps aside in turn. */
    int aside;
    /* The user scheduler whose run function is live on this stream (called by
     * goabt_user_sched_run, not returned yet: on the primary it may be waiting for the main
     * ULT, run_ctx), or NULL: one replaced meanwhile is retired only once that run returns
     * (goabt_sched_retire). */
    goabt_sched *user_run;
    /* The scheduler as a ULT, for self queries from its context (goabt_stream_sched_self);
     * made there on the first, by the stream's own thread; freed with the stream. */
    goabt_unit *sched_self;
    /* A direct switch whose target got no stack (unit_switch.c, goabt_unit_switch_to) goes to the
     * scheduler instead: what it was to run after the switch, and the target, which then ends
     * there. */
    goabt_after_fn no_stack_fn;
    void *no_stack_arg;
    goabt_unit *no_stack_target;
    /* Primary only: a user scheduler's run function runs on a stack of its own, not on the
     * activation below the main ULT, so that its frames outlive the activation when it runs
     * the main ULT (sched_user.c, "The primary's run stack"). run_stack: that mapping (its
     * lowest page a guard, from the Go core), NULL until first needed, freed with the stream.
     * run_live: the scheduler's context is on it now (the run started or resumed, not waiting
     * for the main ULT): sys_ctx is then the activation's, where the gate takes Go calls.
     * run_ctx: the run's context while it waits for the main ULT to step aside, else NULL. */
    void *run_stack;
    size_t run_stack_size;
    unsigned vg_run_stack; /* valgrind's id of it (valgrind build), or 0 */
    int run_live;
    goabt_ctx run_ctx;
};

/* The unit running on the calling thread, or NULL (external thread, or the scheduler). */
static inline goabt_unit *goabt_self_unit(void)
{
    goabt_stream *s = goabt_self_stream();
    return s ? s->current : NULL;
}

/* Runs what the unit that switched to s's scheduler asked for (unit.h, top). */
static inline void goabt_sched_after_switch(goabt_stream *s)
{
    goabt_after_fn fn = s->after_fn;
    if (fn == NULL) return;
    s->after_fn = NULL;
    fn(s->after_unit, s->after_arg);
}

/* Streams (stream.c). */
goabt_stream *goabt_stream_new(goabt_sched *sched, int rank) GOABT_HIDDEN;
int goabt_stream_start(goabt_stream *s) GOABT_HIDDEN;
/* On a stream's thread (other than the primary's), its stack's bounds, below its guard page:
 * 1, else 0. The Go core's pthread_getattr_np answers from it when the Go runtime asks for a
 * stream thread's bounds (capi/stackbound.go), so that glibc's, which allocates, never runs
 * there: a thread's first malloc or free gives it a malloc arena of its own, 64 MiB of
 * address space (README, "ABT_init under ulimit -v"). */
int goabt_stream_thread_stack(void **addr, size_t *size) GOABT_HIDDEN;
void goabt_stream_join(goabt_stream *s) GOABT_HIDDEN;
void goabt_stream_delete(goabt_stream *s) GOABT_HIDDEN;
/* The calls that create, join, free or revive a stream, against finalize: each runs between
 * goabt_stream_calls_enter (ABT_SUCCESS, or ABT_ERR_UNINITIALIZED once finalize began: the
 * call loses the race) and goabt_stream_calls_exit. Finalize closes them and waits for those in
 * flight before it joins and frees the streams left (goabt_stream_calls_close); init opens them
 * again (goabt_stream_calls_open). */
int goabt_stream_calls_enter(void) GOABT_HIDDEN;
void goabt_stream_calls_exit(void) GOABT_HIDDEN;
void goabt_stream_calls_close(void) GOABT_HIDDEN;
void goabt_stream_calls_open(void) GOABT_HIDDEN;
/* The calling stream's scheduler as a ULT, for the self queries made from the scheduler's
 * context (a user scheduler's run function, a user pool's functions, a tool callback): Argobots
 * runs schedulers on ULTs, so that those find a ULT there. It is no ULT of the engine: never
 * queued, never switched to; goabt_unit_of refuses its handle (only the calls that read a ULT or
 * its keys take it, goabt_unit_or_sched_of). NULL if no descriptor could be had. */
goabt_unit *goabt_stream_sched_self(goabt_stream *s) GOABT_HIDDEN;
/* The unit a self call made on s answers for: the one running, or in the scheduler's context
 * the scheduler as a ULT (NULL if it could not be made). */
static inline goabt_unit *goabt_self_or_sched(goabt_stream *s)
{
    return s->current != NULL ? s->current : goabt_stream_sched_self(s);
}
/* Wakes s if it sleeps idle (after giving it news: a request, the main ULT's hand-off). */
void goabt_stream_wake(goabt_stream *s) GOABT_HIDDEN;

/* A push is waking s: notes when, and from which CPU (sched.c, idle_wait). */
void goabt_stream_note_waker(goabt_stream *s) GOABT_HIDDEN;
/* Wakes every stream asleep idle (a request they must notice: ABT_sched_finish, exit). */
void goabt_streams_wake_all(void) GOABT_HIDDEN;
/* A running stream other than `not`, a different one from call to call, or NULL if there is
 * none (ABT_thread_migrate's choice). */
goabt_stream *goabt_stream_other_running(goabt_stream *not) GOABT_HIDDEN;
/* Starts s, joined after it terminated, again (ABT_xstream_revive). */
int goabt_stream_revive(goabt_stream *s) GOABT_HIDDEN;
/* A secondary stream still registered, or NULL (finalize frees them). */
goabt_stream *goabt_stream_any_secondary(void) GOABT_HIDDEN;
/* Calls fn(s, arg) for every stream, by rank, then fn(NULL, arg), all under rt.lock: no stream
 * is created or freed meanwhile (fn must not create, join or free one). How many streams. */
int goabt_streams_each(void (*fn)(goabt_stream *s, void *arg), void *arg) GOABT_HIDDEN;

/* CPU binding (stream_affinity.c). At ABT_init, the sets ABT_SET_AFFINITY gives ranks
 * (ABT_ERR_MEM if they cannot be kept); at the last ABT_finalize, forget them. */
int goabt_affinity_init(void) GOABT_HIDDEN;
void goabt_affinity_finalize(void) GOABT_HIDDEN;
/* The calling thread runs s from now on (s's thread starts; ABT_init makes the main thread the
 * primary): it binds to the CPUs the program asked for s, else to its rank's set. */
void goabt_stream_bind_start(goabt_stream *s) GOABT_HIDDEN;
/* s's thread stops running s (it is about to end; finalize): binding calls leave it alone. */
void goabt_stream_bind_stop(goabt_stream *s) GOABT_HIDDEN;
/* Moves s's thread off CPU cpu, to another of the CPUs its mask allows, which it keeps: not a
 * stream bound to CPUs, nor one whose thread does not run. s may be freed memory of a stream
 * (it stays mapped: object.c); only a live one is moved. */
void goabt_stream_move_off_cpu(goabt_stream *s, int cpu) GOABT_HIDDEN;
/* The CPUs s runs on (its thread's mask while it runs; else those it will take); rt.lock is
 * held. ABT_ERR_SYS if the mask cannot be read. */
int goabt_stream_cpus_locked(goabt_stream *s, cpu_set_t *set) GOABT_HIDDEN;
/* The same, taking rt.lock (ABT_xstream_get_cpubind, _get_affinity). */
int goabt_stream_cpus(goabt_stream *s, cpu_set_t *set) GOABT_HIDDEN;
/* Binds s to want (ABT_xstream_set_cpubind, _set_affinity): its thread now if it runs one, and
 * whenever its thread starts. ABT_ERR_CPUID if a CPU of want is not one the process could use
 * at ABT_init or the kernel drops one (the old mask then stays), ABT_ERR_SYS if the mask cannot
 * be read or set. */
int goabt_stream_bind(goabt_stream *s, const cpu_set_t *want) GOABT_HIDDEN;
/* s has a new rank: with ABT_SET_AFFINITY on it moves to that rank's set, as in Argobots. */
void goabt_stream_bind_rank(goabt_stream *s) GOABT_HIDDEN;

/* s runs a unit, or switches to one: the watchdog's sign of progress. A plain store, no locked
 * instruction: only s writes it. */
static inline void goabt_stream_count_run(goabt_stream *s)
{
    __atomic_store_n(&s->runs, s->runs + 1, __ATOMIC_RELAXED);
}

#endif /* GOABT_STREAM_H */
