/*
 * engine.h: the C side of the work-unit engine, shared by the C files of libgoabt.so. Internal.
 *
 * Roles (fixed names, used everywhere):
 *   stream      an execution stream (ABT_xstream): one OS thread. The primary stream is the
 *               process's main thread; a secondary stream is a pthread started from C (never a
 *               Go-created thread: ULT stacks there crash the Go runtime, docs/design.md).
 *   unit        a work unit (ABT_thread / ABT_task): a ULT, with its own mmap'd stack, or a
 *               tasklet, which runs to completion on the system stack. The main ULT is the
 *               program's main thread seen as a ULT: it runs on the main stack, never elsewhere.
 *   pool        a queue of ready units (ABT_pool).
 *   scheduler   the loop that pops units from its pools in priority order and runs them
 *               (ABT_sched); it runs on the system stack.
 *   system stack  the stack a stream's scheduler runs on: the pthread's own stack, or, on the
 *               primary stream, the main stack below the suspended main ULT (an "activation").
 *   gate        how a ULT calls Go: move to the system stack, call, come back (goabt_gate).
 *   child run   a ULT running another unit on top of itself (a stacked scheduler's ULT, or
 *               ABT_self_schedule): the unit switches back to that ULT as to a scheduler
 *               (goabt_unit_run_child); the system stack stays the gate's.
 *   waiter      one blocked caller of a synchronization object (wait.h): a parked ULT, or an OS
 *               thread (external thread, tasklet) asleep on a futex.
 *
 * Who does what. Every hot path is C over memory whose layout is defined here: the context
 * switch, the scheduler loop, queues, wake-ups, blocking, the synchronization objects, and the
 * key and object fast paths (docs/design.md rule 9). The Go core (core/, reached from C through the
 * gate, gocalls.h) owns memory (unit descriptors, stacks, key tables: the C caches go to it when
 * they miss or overflow), registries (keys, OPAL classes), configuration, the text of
 * debugging output (ABT_info_print_*: C gathers the facts, info_facts.h), and every slow path.
 *
 * Switching out. A unit that gives up the processor (yield, park, terminate) records in its
 * stream what the scheduler must do with it once its context is saved (stream->after_fn), then
 * switches to the scheduler, which runs that callback first thing (docs/design.md rule 4: before the
 * context is saved, handing the unit to a pool or a wait list would let another stream resume it
 * twice). When the scheduler would only pop the next ULT of a built-in pool, the unit pops it
 * itself and switches straight to it, where the callback runs instead (unit.c, "Hand-over"): one
 * switch instead of two; a yield that the round would answer with the yielder itself does not
 * switch at all. No Go frame is ever live across a switch.
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
 *
 * Blocking. There is one way to block a ULT and one way to wake it (unit.c):
 *   goabt_unit_park(fn, arg)   the calling ULT becomes BLOCKED, counted as blocked in its
 *                              pool, and fn(unit, arg) runs after its context is saved:
 *                              fn publishes the unit where its waker will find it (typically it
 *                              releases the spinlock of the wait list the unit is on);
 *   goabt_unit_ready(unit)     makes a parked unit READY on the pool it belongs to.
 * Join, stream join, and every synchronization object are built on these two through wait
 * lists (wait.h), which also block OS threads and handle deadlines. Wake-ups are exact: a push
 * wakes one idle stream among those asleep on that pool, a request wakes the stream it is for,
 * and a safety timeout (GOABT_SAFETY_WAKEUP_MS, off in the tests) is never what correctness
 * rests on.
 *
 * Two libraries: these C files are libgoabt.so, which programs link; the Go core is
 * libgoabt-go.so, which golib.c loads the first time something needs Go, so that a program may
 * fork before it first uses goabt (a Go runtime does not survive fork, docs/design.md rule 12).
 *
 * Files, one per kind: runtime.c (init, finalize, per-thread state, the gate), unit.c (units:
 * descriptors, stacks, create, run, yield, join, park, ready), sched.c (the scheduler loop, idle
 * sleep, schedulers), stream.c (stream threads), pool.c (pools), pool_user.c and sched_user.c
 * (user-defined pools and schedulers), sched_stacked.c (a scheduler run as a ULT of another's
 * pool), pool_go.c (pools and schedulers written in Go), wait.c (wait lists, blocking and
 * timers), tool.c (the tool interface's events), stackcheck.c (stack-overflow reports: signal
 * stacks, the SIGSEGV handler), leaks.c (GOABT_CHECK_LEAKS: live objects, the report), and the
 * API of each object kind in its own file (thread.c, xstream.c, mutex.c, cond.c ...), their
 * argument checks from args.h.
 *
 * Memory layout keeps streams apart: a stream refills its descriptor cache with a run of
 * descriptors on pages of their own (core.Blocks.GetRun), trades them with the global cache in
 * batches, ULT stack tops are spread over 16 cache-line colours, and stream and pool structs sit
 * on lines of their own. Two streams forking and joining side by side ran at 2-3x the cost of
 * one without this (unit.c, unit_map_stack and go_take_batch, says what each part bought).
 */
#ifndef GOABT_ENGINE_H
#define GOABT_ENGINE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "abt.h"
#include "context.h"

#define GOABT_HIDDEN __attribute__((visibility("hidden")))

/* Magic words: a handle is accepted only if its object carries its kind's magic. Every object
 * keeps it in its second 32-bit word, never 0 while the memory is ours (freed objects carry
 * GOABT_MAGIC_FREED), so a freed handle is refused as long as its memory was not reused, and no
 * object of ours looks like unused static memory (object.h). */
enum {
    GOABT_MAGIC_FREED = 0x46524545,  /* "FREE" */
    GOABT_MAGIC_UNIT = 0x554e4954,   /* "UNIT": the first init's; see goabt_rt.unit_magic */
    GOABT_MAGIC_STREAM = 0x5354524d, /* "STRM" */
    GOABT_MAGIC_POOL = 0x504f4f4c,   /* "POOL" */
    GOABT_MAGIC_SCHED = 0x53434844,  /* "SCHD" */
    GOABT_MAGIC_ATTR = 0x41545452,   /* "ATTR" */
    /* A stream's scheduler as a ULT (goabt_stream_sched_self): queries only. */
    GOABT_MAGIC_SCHED_SELF = 0x53554c54, /* "SULT" */
};

typedef struct ABT_thread_opaque goabt_unit;
typedef struct ABT_xstream_opaque goabt_stream;
typedef struct ABT_pool_opaque goabt_pool;
typedef struct ABT_sched_opaque goabt_sched;
typedef struct ABT_thread_attr_opaque goabt_attr;
typedef struct goabt_keytable goabt_keytable; /* keys.h */

/* Unit kinds and flags. */
enum { GOABT_ULT = 1, GOABT_TASKLET = 2 };
enum {
    GOABT_UNIT_NAMED = 0x1,      /* created with a handle: the user joins and frees it */
    GOABT_UNIT_MAIN = 0x2,       /* the main ULT (ABT_thread_is_primary) */
    GOABT_UNIT_USER_STACK = 0x4, /* the stack belongs to the user (ABT_thread_attr_set_stack) */
    GOABT_UNIT_MIGRATABLE = 0x8,
    GOABT_UNIT_MIGRATE_CB = 0x10, /* migrate_cb is set (ABT_thread_set_callback, the attribute) */
    GOABT_UNIT_NO_STACK = 0x20,   /* it ended without running: no stack could be mapped for it */
};

/* Stacks of this many bytes and more are mapped when their ULT is created (unit.c), not when it
 * first runs: few programs make many, and out of memory is refused there. */
#define GOABT_EAGER_STACK ((size_t)1 << 20)

/* Requests to a unit (unit->request bits), taken up at its next scheduling point. */
enum {
    GOABT_UNIT_REQ_CANCEL = 0x1,  /* ABT_thread_cancel: end it instead of running it */
    GOABT_UNIT_REQ_MIGRATE = 0x2, /* ABT_thread_migrate*: move it to migrate_to */
};

/* What the scheduler does with a unit that switched to it, once its context is saved. */
typedef void (*goabt_after_fn)(goabt_unit *u, void *arg);

/* Joiners waiting for a unit or a stream (wait.h): a stack of waiters pushed with a CAS, or
 * GOABT_JOIN_DONE once the unit or stream has finished. */
typedef struct goabt_waiter goabt_waiter;
#define GOABT_JOIN_DONE ((goabt_waiter *)1)

/* A ULT attribute (ABT_thread_attr). */
struct ABT_thread_attr_opaque {
    ABT_bool migratable;
    uint32_t magic;
    void *stack;      /* user-provided stack, or NULL: goabt allocates one */
    size_t stacksize; /* bytes */
    void (*callback)(ABT_thread, void *);
    void *callback_arg;
};

/* A work unit: what ABT_thread (and ABT_task) points to. */
struct ABT_thread_opaque {
    uint16_t kind;  /* GOABT_ULT or GOABT_TASKLET */
    uint16_t flags; /* GOABT_UNIT_* */
    uint32_t magic;
    int state;      /* ABT_THREAD_STATE_*, atomic */
    /* GOABT_UNIT_REQ_* bits, atomic: read where a unit is about to run, yields or is made
     * ready (unit.c, goabt_unit_take_request); in the word next to state, which those write. */
    int request;
    /* Work-unit-specific data (keys.h), NULL until first set; atomic. Next to magic: a
     * get_specific on another unit then reads one line of its descriptor, not two. */
    goabt_keytable *keys;
    void (*func)(void *);
    void *arg;
    goabt_ctx ctx;          /* saved context while the ULT is not running; NULL before it first runs */
    void *top;              /* where its context starts, before it first runs */
    void *stack;            /* lowest usable stack address (ULT) */
    size_t stacksize;       /* usable bytes (0 for tasklets and the main ULT) */
    void *mapping;          /* mmap'd region, guard page included, or NULL */
    size_t mapping_size;
    goabt_pool *pool;       /* the pool it was pushed to last (its associated pool) */
    goabt_stream *last_stream;
    /* The ULT that took it out of a pool through the pool API (ABT_pool_pop*, ABT_pool_remove),
     * NULL once it is pushed again or run: whom the *_to calls let switch to it (unit.c,
     * take_target). Beside the links: every push clears it, and touches no other line for it. */
    goabt_unit *popped_by;
    goabt_unit *next, *prev; /* links while queued in a pool */
    goabt_waiter *joiners;  /* atomic: who waits in join, or GOABT_JOIN_DONE once it ended */
    goabt_keytable *keys_spare; /* an emptied table kept with the cached descriptor, or NULL */
    goabt_unit *free_next;  /* link in a cache of free descriptors */
    goabt_unit *batch_next; /* first unit of a batch in the global cache: the next batch */
    int batch_len;          /* ... and how many descriptors its batch holds */
    int user_queued;        /* in a user-defined pool now (pushed, not yet popped or removed) */
    int suspend;            /* ABT_self_suspend's state (unit.c), atomic */
    goabt_pool *parked_in;  /* the pool it was counted in when it last parked */
    goabt_waiter *waiting;  /* its waiter while in goabt_wait (wait.c) or mutex.c's yields */
    uint64_t id;            /* assigned on first query; 0 means not yet */
    /* The pool unit a user-defined pool made for it (pool_user.c), and for which pool; last,
     * away from the lines every create, run and free touches. */
    ABT_unit pool_unit;
    goabt_pool *pool_unit_of;
    /* Migration (read only with GOABT_UNIT_REQ_MIGRATE, or GOABT_UNIT_MIGRATE_CB, set): where
     * to, and the callback run once it has moved. */
    goabt_pool *migrate_to;
    void (*migrate_cb)(ABT_thread, void *);
    void *migrate_cb_arg;
    /* The page of a program-given stack made read-only while the ULT has it (mprotect modes:
     * goabt_user_stack_guard), or NULL. */
    void *user_guard;
#ifdef GOABT_VALGRIND
    /* Valgrind's ids of its stacks (valgrind_stacks.h), 0 for none: the mapping's, and a user
     * stack's while the unit has one. Only in the valgrind build of the library. */
    unsigned vg_mapping_stack;
    unsigned vg_user_stack;
#endif
};

/* A pool (ABT_pool): a FIFO queue of ready units under a spinlock. Aligned to a pair of cache
 * lines (handle memory from 256 bytes up is): the adjacent-line prefetcher moves lines in
 * pairs, and two streams' pools must not share one. */
struct __attribute__((aligned(128))) ABT_pool_opaque {
    int kind;        /* ABT_POOL_FIFO or ABT_POOL_FIFO_WAIT */
    uint32_t magic;
    int access;      /* ABT_pool_access (a hint, as in Argobots 1.2) */
    int automatic;   /* freed with the last scheduler that uses it */
    int id;
    int num_scheds;  /* schedulers using it, atomic */
    int lock;        /* spinlock */
    /* A user-defined pool's functions (ABT_pool_create), or NULL for goabt's FIFO, whose queue
     * is head/tail. Every engine path goes through goabt_pool_push/pop/remove/size, which take
     * the FIFO inline and call the user's functions otherwise (pool_user.c). On the line of the
     * queue: every push reads it. */
    struct goabt_pool_user *user;
    goabt_unit *head, *tail;
    int pop_waiters;   /* callers in ABT_pool_pop_wait* on it, under lock: a push signals them */
    size_t size;       /* queued units, atomic reads */
    /* Parked ULTs that belong to this pool are num_parked - num_unparked (goabt_pool_num_blocked):
     * both written under the lock, parking in the locked section of a hand-over's pop when it
     * has one (unit.c) and readying in the one its push takes anyway, so that a park and wake
     * usually cost no locked instruction of their own for the count. */
    long num_parked;   /* written under lock, atomic reads */
    long num_unparked; /* written under lock, atomic reads */
    struct goabt_sleeper *sleepers; /* idle streams asleep on it, under lock: a push wakes one */
    int pushers;       /* atomic: pushes still signalling pop_waiters after its lock */
    /* Set (under lock) when the pool is retired while ULTs parked on it may still come back:
     * pushes go there instead (xstream.c, replace_main_sched). */
    goabt_pool *forward;
    pthread_mutex_t wait_mutex; /* ABT_pool_pop_wait* sleeps here */
    pthread_cond_t wait_cond;
    void *data; /* ABT_pool_set_data */
    /* A Go pool (pool_go.c, a user pool of goabt's own): the id of its core.Pool, and how many
     * units it holds as the engine counts them (atomic; may dip below 0 for an instant), so
     * that emptiness checks never call Go. 0 and 0 for every other pool. */
    int go_id;
    long go_size;
    /* Work units holding a pool unit of this user pool (atomic), and POOL_UNITS_GONE once the
     * pool is freed: a freed pool that finished, not yet freed units still name stays as a
     * record until the last of them lets go (pool_user.c). */
    unsigned long user_units;
};
#define GOABT_POOL_UNITS_GONE (1ul << 62)

/* A scheduler (ABT_sched): pools in priority order. */
#define GOABT_SCHED_MAX_POOLS 64
/* The stack a scheduler that runs as a ULT gets, as Argobots gives one (ABT_SCHED_STACKSIZE's
 * default): a stacked scheduler's ULT (sched_stacked.c), the primary's run stack
 * (sched_user.c). Units it runs may run on it (tasklets), and only the pages touched are ever
 * backed. */
#define GOABT_SCHED_STACKSIZE (4u << 20)
/* How many free ULT stacks a stream keeps at hand (unit.c). */
#define GOABT_STREAM_STACKS 128
/* What a scheduler is used as (sched->used). */
enum {
    GOABT_SCHED_UNUSED = 0,
    GOABT_SCHED_MAIN = 1,    /* a stream's main scheduler */
    GOABT_SCHED_IN_POOL = 2, /* stacked: a ULT of another scheduler's pool runs it (ABT_pool_add_sched) */
};
struct ABT_sched_opaque {
    int predef;      /* ABT_SCHED_BASIC or ABT_SCHED_BASIC_WAIT; -1 for a user scheduler */
    uint32_t magic;
    int automatic;   /* freed with the stream that uses it */
    int used;        /* GOABT_SCHED_*: unused, a stream's main scheduler, or stacked */
    int num_pools;
    /* Not a predefined scheduler: runs def.run (sched_user.c) instead of goabt's loop, or,
     * with go_policy set, goabt's loop with a Go policy's picks (pool_go.c). One flag for both,
     * so that the loop of a predefined scheduler tests one word, as before Go schedulers. */
    int is_user;
    int go_policy;   /* the id of its core.Policy (pool_go.c), or 0 */
    int finish_req;  /* ABT_sched_finish: stop once its pools are empty (atomic) */
    int exit_req;    /* ABT_sched_exit: stop now (atomic) */
    /* Replaced as a stream's main scheduler while its run function was live there: retired
     * (freed, automatic pools and all) when that run returns, not under it. */
    int retire_deferred;
    /* Its run function runs as a stream's main scheduler (goabt_user_sched_run) and has not
     * returned, replaced or not (on the primary it may wait below the main ULT): ABT_sched_free
     * refuses it meanwhile, as it refuses one in use. Atomic. */
    int in_run;
    ABT_sched_def def;
    void *data;      /* ABT_sched_set_data */
    goabt_pool *pools[GOABT_SCHED_MAX_POOLS];
};

/* An idle stream's entry in the sleeper list of one of its scheduler's pools. */
typedef struct goabt_sleeper {
    struct goabt_sleeper *next, *prev;
    goabt_stream *stream;
    int linked;
} goabt_sleeper;

/* Requests to a stream (stream->request bits). */
enum { GOABT_REQ_FINISH = 0x1 };

/* A thread's alternate signal stack (stackcheck.c). */
typedef struct goabt_sigstack {
    void *mem;      /* our mapping, or NULL: none was needed (or mode none) */
    size_t size;
    stack_t old;    /* the thread's signal stack before */
} goabt_sigstack;

/* An execution stream (ABT_xstream). Aligned to a pair of cache lines (as handle memory of its size is): its
 * thread writes it on every unit it runs, and a neighbouring stream in the same pair slows both
 * (two streams forking and joining 256 ULTs each in their own pools: 240 -> 170 ns per unit from
 * this alone; descriptor runs and stack colours, unit.c, did the rest). */
struct __attribute__((aligned(128))) ABT_xstream_opaque {
    int rank;
    uint32_t magic;
    int is_primary;
    int state;         /* ABT_XSTREAM_STATE_*, atomic */
    int request;       /* GOABT_REQ_* bits, atomic */
    goabt_sched *sched;
    pthread_t thread;
    goabt_ctx sched_ctx;  /* the scheduler's context while a ULT runs */
    goabt_unit *current;  /* the unit running now (NULL: the scheduler itself) */
    /* What the scheduler does with the unit that just switched to it (engine.h, top). */
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
    goabt_waiter *joiners; /* atomic: who waits in join, or GOABT_JOIN_DONE once it ended */
    /* Idle sleep: the stream sleeps on sleep_word, listed in each of its pools' sleepers. */
    int sleep_word;        /* futex word: set to 1 to wake it */
    int wakers;            /* atomic: wake-ups in flight; the stream is not freed before 0 */
    goabt_sleeper sleep_nodes[GOABT_SCHED_MAX_POOLS];
    /* CPU binding (xstream_affinity.c), under goabt_rt.lock: bind_thread is the stream's OS
     * thread while bind_live says it runs; bind_cpus, when bind_explicit, the CPUs the program
     * asked for last (ABT_xstream_set_cpubind, _set_affinity), which the thread takes again
     * whenever it starts. */
    int bind_live;
    int bind_explicit;
    pthread_t bind_thread;
    cpu_set_t bind_cpus;
    goabt_sigstack sigstack; /* its thread's, while that thread lives (stackcheck.c) */
    /* Its timeline-trace buffer (trace.h), written by its thread only; NULL until its first
     * record, and always without GOABT_TRACE. */
    struct goabt_trace_buf *trace;
    /* Free ULT stacks (mappings, all of stacks_size bytes), this stream's only (unit.c). Last:
     * wait.c tells a stream from a unit by fields at the front. */
    int nstacks;
    size_t stacks_size;
    void *stacks[GOABT_STREAM_STACKS];
    /* Hand-overs from ULT to ULT without a scheduler round since the last round (unit.c). */
    unsigned direct_run;
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
    /* A direct switch whose target got no stack (unit.c, switch_to) goes to the scheduler
     * instead: what it was to run after the switch, and the target, which then ends there. */
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

/* Runtime-wide state read by the C paths; core.Runtime decides it (through capi/runtime.go). */
struct goabt_runtime {
    int init_depth;           /* ABT_init calls not yet finalized, atomic */
    /* The magic of this init's units: "UN" and a 16-bit generation, one more at every outermost
     * ABT_init and ABT_finalize. Unit memory stays mapped across finalize, so a handle from an
     * earlier init (or used after ABT_finalize) reads a stale magic and is refused, never acts
     * on a new unit. Pools and schedulers carry the same generation (goabt_runtime_magic): like
     * units they belong to the runtime that made them. */
    uint32_t unit_magic;
    /* 1 in a process forked after goabt started its Go core (golib.c, goabt_engine_forked),
     * where nothing of goabt can run: see goabt_forked. Beside unit_magic and init_depth,
     * which the entries that check it read anyway. */
    int forked;
    size_t thread_stacksize;  /* default ULT stack size (ABT_THREAD_STACKSIZE) */
    int max_xstreams;         /* what ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS reports */
    int affinity;             /* streams are bound to CPUs by rank (ABT_SET_AFFINITY) */
    /* The CPU sets ranks bind to: rank r, affinity_sets[r % num_affinity_sets] (xstream_affinity.c,
     * from core.AffinitySets); NULL and 0 when affinity is off. */
    cpu_set_t *affinity_sets;
    int num_affinity_sets;
    cpu_set_t cpus;           /* the CPUs the process may use, as ABT_init found them */
    cpu_set_t main_cpus;      /* the primary thread's own mask before ABT_init bound it */
    goabt_stream *primary;
    goabt_unit *main_unit;
    uint64_t next_unit_id;    /* atomic */
    int next_pool_id;         /* atomic; Argobots numbers every pool, its internal ones too */
    int num_streams;          /* streams alive (primary included), atomic */
    pthread_mutex_t lock;     /* stream creation and teardown */
    /* Longest sleep of an idle stream or blocked thread before it looks again, in ns; 0: none.
     * A safety net only: every wake-up is exact (GOABT_SAFETY_WAKEUP_MS, core.Config). */
    long long safety_ns;
    /* A Go pool (GOABT_POOL) and a Go scheduling policy (GOABT_SCHED) replace the predefined
     * ones (pool_go.c, core.Config). */
    int go_pool;
    int go_sched;
    /* Idle streams order their sleeper listing against pushes into user C pools with a
     * membarrier (goabt_pool_sleepers_fence), so that such a push needs no fence of its own
     * (goabt_pool_wake_sleeper). 0 where the kernel refuses membarrier: pushes fence. Set by
     * ABT_init, before any stream runs. */
    int asym_fence;
    /* Stack-overflow checks (stackcheck.c): the mode (core.StackCheck: 0 none, 1 canary,
     * 2 mprotect, 3 mprotect_strict, as ABT_STACK_OVERFLOW_CHECK says at ABT_init), and the
     * function every ULT starts in: goabt_ult_entry, or in canary mode one that lays the canary
     * first and checks it when the ULT's function returns. A pointer, not a test of the mode:
     * the other modes add no instruction to a ULT's life. */
    int stack_check;
    void (*ult_entry)(void *);
    /* The tool interface is on (GOABT_TOOL at ABT_init; tool.c): off, ABT_tool_* answer
     * ABT_ERR_FEATURE_NA, as a default native build does. */
    int tool;
};

extern struct goabt_runtime goabt_rt GOABT_HIDDEN;

static inline void cpu_relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* One round of waiting for another thread that is a few instructions from done: spin, and after
 * 1000 rounds give the CPU away, since that thread may have been descheduled in between. */
static inline void goabt_backoff(unsigned spins)
{
    if (spins < 1000) {
        cpu_relax();
    } else {
        sched_yield();
    }
}

/* A spinlock: a word, 0 when free. Held for a few instructions at a time (queues, wait lists). */
static inline void goabt_spin_lock(int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) cpu_relax();
    }
}

static inline void goabt_spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

/* Futexes: how OS threads sleep (runtime.c). timeout_ns 0 waits without a limit. */
void goabt_futex_wait(int *addr, int seen, long long timeout_ns) GOABT_HIDDEN;
void goabt_futex_wake(int *addr, int n) GOABT_HIDDEN;

/* The calling thread's stream (NULL on an external thread). Not inlined: a ULT may resume on
 * another thread, and a compiler could keep a thread-local address across a switch (rule 8). */
goabt_stream *goabt_self_stream(void) GOABT_HIDDEN;

/* The unit running on the calling thread, or NULL (external thread, or the scheduler). */
static inline goabt_unit *goabt_self_unit(void)
{
    goabt_stream *s = goabt_self_stream();
    return s ? s->current : NULL;
}

static inline int goabt_initialized(void)
{
    return __atomic_load_n(&goabt_rt.init_depth, __ATOMIC_ACQUIRE) > 0;
}

/* Handle memory (object.c): zeroed memory for one object of size bytes (at most 4096; from 256
 * on, 128-aligned) whose second 32-bit word is its magic, or NULL; the creator sets the magic.
 * goabt_mem_delete marks it GOABT_MAGIC_FREED and keeps it for the next object of its size
 * class: it never goes back to malloc, so a stale handle reads FREED, never memory the
 * allocator owns (a store before free() is also one the compiler may drop). */
void *goabt_mem_new(size_t size) GOABT_HIDDEN;
void goabt_mem_delete(void *obj, size_t size) GOABT_HIDDEN;

/* A process forked after goabt started its Go core. The fork copied goabt's state but none of
 * the threads that ran it (streams, the Go runtime's), so nothing of it can run here: a lock
 * may be held by a thread that is gone, a ULT may wait for a stream that is gone, and the Go
 * core cannot run at all (golib.c). The child's half of the fork (goabt_engine_forked, called
 * from golib.c's fork handler before fork returns in the child) leaves the process as one in
 * which goabt was never initialized and every handle is stale, and ABT_init refuses to start it.
 * One check covers the whole API, in the two places every entry passes before it touches
 * anything:
 *   - the init check (GOABT_CHECK_INIT and the GOABT_SELF* macros, args.h): init_depth is 0,
 *     so every entry that needs the runtime returns ABT_ERR_UNINITIALIZED;
 *   - the handle checks below (goabt_*_of here, goabt_object_of in object.h, the pool-unit,
 *     pool-definition and configuration lookups): they refuse every handle, so an entry that
 *     needs no runtime but takes a handle (synchronization objects, attributes, timers, the
 *     queries that read an object) returns its kind's invalid-handle error. Units cost nothing
 *     more: the child moves to a new unit generation (unit_magic), which no inherited unit
 *     carries. The other kinds test the flag after their magic; keys do not (keys.h says why).
 * The few entries that take neither (ABT_key_create, the timer and configuration creators,
 * ABT_thread_yield from outside a ULT ...) use GOABT_CHECK_NOT_FORKED (args.h). The calling
 * thread is no stream's any more either: a child forked inside a ULT or a tasklet goes on running
 * its function, on its stack, and when that returns the process exits with status 0, as a
 * process whose last thread returns (goabt_forked_unit_returned). */
static inline int goabt_forked(void)
{
    return __builtin_expect(__atomic_load_n(&goabt_rt.forked, __ATOMIC_RELAXED), 0);
}
/* In the child of a fork, from golib.c's handler: see goabt_forked. */
void goabt_engine_forked(void) GOABT_HIDDEN;
/* A ULT or tasklet the child was forked inside returned: exit(0). */
__attribute__((noreturn, cold)) void goabt_forked_unit_returned(void) GOABT_HIDDEN;


/* Calls fn(arg) on the system stack: through the gate when the caller runs on a ULT stack,
 * directly otherwise. Every call into Go from C goes through here. */
void goabt_gate(void (*fn)(void *), void *arg) GOABT_HIDDEN;

/* Handle checks: the object behind a handle, or NULL if the handle is a NULL handle, NULL, or
 * an object of another kind or freed, or in a forked child (goabt_forked). The one place
 * handles become objects. */
static inline goabt_unit *goabt_unit_of(ABT_thread h)
{
    if ((uintptr_t)h < 4096) return NULL; /* NULL, and every ABT_*_NULL (small constants) */
    return h->magic == __atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED) ? h : NULL;
}

/* The same for the calls that read a ULT (id, state, unit, ...) or its keys: a stream's
 * scheduler as a ULT is accepted too. Anything that acts on a ULT (runs, joins, moves, frees it)
 * takes goabt_unit_of, which refuses it. */
static inline goabt_unit *goabt_unit_or_sched_of(ABT_thread h)
{
    if ((uintptr_t)h < 4096) return NULL;
    uint32_t m = h->magic;
    if (m == __atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED)) return h;
    return m == GOABT_MAGIC_SCHED_SELF && !goabt_forked() ? h : NULL;
}

static inline goabt_stream *goabt_stream_of(ABT_xstream h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_STREAM && !goabt_forked() ? h : NULL;
}

/* The magic of a kind whose objects belong to one runtime (pools, schedulers): the kind's top
 * half and this init's generation (goabt_rt.unit_magic's low half). A pool or scheduler the
 * program did not free before ABT_finalize is refused after it, as units are, instead of
 * running on with units of a runtime that is gone. */
static inline uint32_t goabt_runtime_magic(uint32_t kind)
{
    return (kind & 0xffff0000u) | (__atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED) & 0xffffu);
}

static inline goabt_pool *goabt_pool_of(ABT_pool h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == goabt_runtime_magic(GOABT_MAGIC_POOL) ? h : NULL;
}

static inline goabt_sched *goabt_sched_of(ABT_sched h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == goabt_runtime_magic(GOABT_MAGIC_SCHED) ? h : NULL;
}

static inline goabt_attr *goabt_attr_of(ABT_thread_attr h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_ATTR && !goabt_forked() ? h : NULL;
}

/* Pools (pool.c). */
goabt_pool *goabt_pool_new(int kind, int access, int automatic) GOABT_HIDDEN;
void goabt_pool_delete(goabt_pool *p) GOABT_HIDDEN;
/* Queues u in p (or where p forwards to) and wakes one stream asleep on it, if any. */
void goabt_pool_push(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* The same, telling a user pool's push why (ABT_POOL_CONTEXT_OP_*: a creation, a yield ...);
 * goabt_pool_push tells ABT_POOL_CONTEXT_OP_POOL_OTHER. */
void goabt_pool_push_op(goabt_pool *p, goabt_unit *u, ABT_pool_context ctx) GOABT_HIDDEN;
/* The same for a parked ULT made ready again (ABT_POOL_CONTEXT_OP_THREAD_RESUME): it is no
 * longer counted as blocked in `counted`, the pool it parked in (its pool may have changed
 * since). */
void goabt_pool_push_unparked(goabt_pool *p, goabt_unit *u, goabt_pool *counted) GOABT_HIDDEN;
/* Both: a parked unit (counted: where it parked, or NULL) pushed for the reason ctx. */
void goabt_pool_push_from(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx)
    GOABT_HIDDEN;
/* Parked ULTs that belong to p (they come back to it). */
static inline long goabt_pool_num_blocked(goabt_pool *p)
{
    /* Unparked first: a ULT counted there parked before, so its park is seen too. */
    long unparked = __atomic_load_n(&p->num_unparked, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&p->num_parked, __ATOMIC_ACQUIRE) - unparked;
}
goabt_unit *goabt_pool_pop(goabt_pool *p) GOABT_HIDDEN;
/* The same, telling a user pool's pop who asks (goabt_pool_pop: ABT_POOL_CONTEXT_OWNER_PRIMARY,
 * a scheduler popping its own pool; a stealer tells ABT_POOL_CONTEXT_OWNER_SECONDARY). */
goabt_unit *goabt_pool_pop_op(goabt_pool *p, ABT_pool_context ctx) GOABT_HIDDEN;
/* Pops p's first unit if a ULT may switch to it straight, without a scheduler round (a ULT,
 * not the main ULT, no request pending): that unit. NULL if p is empty, or, with *stop set,
 * if its first unit is for the scheduler to run (or p is a user pool). When park is p, the
 * caller, parking, is counted as blocked in p in the same locked section (*counted set).
 * yielder: the caller, yielding back into p, or NULL. When the popped unit has run before (its
 * context is made: nothing slow happens before the switch), the yielder is queued at p's tail
 * in the same locked section and p's lock is left held (*requeued set): the caller switches to
 * the unit, and releases the lock once its own context is saved (goabt_pool_requeued), so that
 * no stream can pop and run it before. */
/* Whether yielder, yielding back into p, would be popped straight back by the scheduler's
 * round (p's turn having come): p is empty, and queueing yielder there would do no more than
 * queue it (no request of its to take up, p not retired, no thread in ABT_pool_pop_wait on p
 * to hand it to). It then goes on running. */
int goabt_pool_yield_alone(goabt_pool *p, goabt_unit *yielder) GOABT_HIDDEN;
goabt_unit *goabt_pool_pop_ult(goabt_pool *p, int *stop, goabt_pool *park, int *counted,
                               goabt_unit *yielder, int *requeued) GOABT_HIDDEN;
/* Ends a requeue (goabt_pool_pop_ult): u, queued in p, is ready; p's lock is released. */
void goabt_pool_requeued(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* Counts a parking ULT as blocked in p, its pool (undone by the push that readies it). */
void goabt_pool_count_parked(goabt_pool *p) GOABT_HIDDEN;
/* Pops, waiting until the CLOCK_REALTIME deadline (ns) for a unit if p is empty; NULL if none
 * came. Built-in pools only. */
goabt_unit *goabt_pool_pop_wait(goabt_pool *p, uint64_t deadline) GOABT_HIDDEN;
int goabt_pool_remove(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN; /* 1 if u was queued in p */
int goabt_pool_is_queued(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* Whether u is ready and queued in no pool: popped by hand (or made held), so that whoever has
 * it may push it or run it. */
int goabt_unit_in_no_pool(goabt_unit *u) GOABT_HIDDEN;
void goabt_pool_release(goabt_pool *p) GOABT_HIDDEN; /* a scheduler stops using p */
/* Retires p (no scheduler uses it any more, ULTs parked on it may still come back): its queued
 * units move to `to`, and so does every later push. p's memory is kept until finalize. */
void goabt_pool_retire(goabt_pool *p, goabt_pool *to) GOABT_HIDDEN;
void goabt_pools_free_retired(void) GOABT_HIDDEN;
/* An idle stream lists itself in p's sleepers, or takes itself off (both under p's lock, which
 * is what lets goabt_pool_push see a sleeper without a fence). */
void goabt_pool_sleeper_add(goabt_pool *p, goabt_sleeper *n) GOABT_HIDDEN;
void goabt_pool_sleeper_remove(goabt_pool *p, goabt_sleeper *n) GOABT_HIDDEN;
/* An idle stream listed in the sleepers of pools[0..n) orders that before its last look at
 * them (goabt_pool_size_locked): a user pool's push looks at its sleepers without taking the
 * pool's lock. 1, or 0 if it could not (the caller then sleeps briefly, not for good). */
int goabt_pool_sleepers_fence(goabt_pool **pools, int n) GOABT_HIDDEN;
/* p's size read under its lock (a scheduler's last look before it sleeps). */
size_t goabt_pool_size_locked(goabt_pool *p) GOABT_HIDDEN;
/* p's queued units now (a user pool without get_size: 1 when not empty). */
size_t goabt_pool_size(goabt_pool *p) GOABT_HIDDEN;
/* A parked ULT of p runs again without going through p (a direct switch): uncounted. */
void goabt_pool_uncount_parked(goabt_pool *p) GOABT_HIDDEN;
/* Wakes one stream asleep on p, if any (after a push that did not take p's lock). */
void goabt_pool_wake_sleeper(goabt_pool *p) GOABT_HIDDEN;

/* User-defined pools (pool_user.c): the engine's side of their functions. */
void goabt_user_pool_push(goabt_pool *p, goabt_unit *u, ABT_pool_context ctx) GOABT_HIDDEN;
goabt_unit *goabt_user_pool_pop(goabt_pool *p, ABT_pool_context ctx) GOABT_HIDDEN;
int goabt_user_pool_remove(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN; /* 1 if it was queued */
size_t goabt_user_pool_size(goabt_pool *p) GOABT_HIDDEN;
void goabt_user_pool_free(goabt_pool *p) GOABT_HIDDEN; /* calls the user's free, drops the copy */
/* Pops through the pool's own waiting pop: a definition's pop_wait gets secs, an older one's
 * p_pop_timedwait gets abstime (ABT_get_wtime's clock), each as the caller gave it, the other
 * worked out from it (give the one not known as a negative number). ABT_ERR_POOL in *rc when
 * the pool has no waiting pop. */
goabt_unit *goabt_user_pool_pop_wait(goabt_pool *p, double secs, double abstime,
                                     ABT_pool_context ctx, int *rc) GOABT_HIDDEN;
/* ABT_pool_is_empty of a user pool: its is_empty (a definition), or its size (older ones). */
int goabt_user_pool_is_empty(goabt_pool *p) GOABT_HIDDEN;
/* print_all_threads of a user pool with a definition: the caller's arg and function, as they
 * are. ABT_ERR_POOL when it has no print_all. */
int goabt_user_pool_print_threads(goabt_pool *p, void *arg, void (*fn)(void *, ABT_thread))
    GOABT_HIDDEN;
int goabt_user_pool_can_remove(goabt_pool *p) GOABT_HIDDEN;
/* Through the pool's push_many / pop_many: 0 (nothing done) when it has none. The units pushed
 * have their pool units of p already. */
int goabt_user_pool_push_many(goabt_pool *p, goabt_unit **units, size_t n, ABT_pool_context ctx)
    GOABT_HIDDEN;
int goabt_user_pool_pop_many(goabt_pool *p, goabt_unit **units, size_t len, size_t *num,
                             ABT_pool_context ctx) GOABT_HIDDEN;
int goabt_user_pool_print_all(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                              void (*unit_fn)(void *, ABT_unit)) GOABT_HIDDEN;
/* Gives u a pool unit of p if p is a user pool (ABT_ERR_MEM if its create_unit made none),
 * dropping one of another pool. */
int goabt_pool_associate(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
/* Whether p can tell its size (built-in pools, user pools with get_size). */
int goabt_user_pool_has_size(goabt_pool *p) GOABT_HIDDEN;
/* Prints "goabt: <why>" on stderr and aborts: a user pool broke the engine's assumptions. */
__attribute__((noreturn)) void goabt_die(const char *why) GOABT_HIDDEN;
/* u leaves the user pool it had a pool unit for (it is freed, or moves to another pool). */
void goabt_unit_drop_user_unit(goabt_unit *u) GOABT_HIDDEN;
static inline void goabt_unit_drop_pool_unit(goabt_unit *u)
{
    if (u->pool_unit_of != NULL) goabt_unit_drop_user_unit(u); /* built-in pools make none */
}
/* The work unit behind a pool unit handle: a user pool's unit, or a built-in pool's (the
 * work unit itself); NULL if it is neither. */
goabt_unit *goabt_unit_of_pool_unit(ABT_unit unit) GOABT_HIDDEN;

/* Pools and schedulers written in Go (pool_go.c). */
/* A pool goabt makes itself (ABT_pool_create_basic, the pools of predefined, default and user
 * schedulers given none): the Go pool GOABT_POOL names, or a built-in one of kind. NULL when
 * out of memory. */
goabt_pool *goabt_pool_new_predef(int kind, int access, int automatic) GOABT_HIDDEN;
/* A predefined scheduler over pools, run by the Go policy GOABT_SCHED names if there is one. */
goabt_sched *goabt_sched_new_predef(int predef, int num_pools, goabt_pool **pools, int automatic)
    GOABT_HIDDEN;
/* The next unit a scheduler with a Go policy runs on s: from the pool the policy picks (asked
 * only when some pool holds units and the scheduler has more than one), else from the first
 * that has one; NULL if none. */
goabt_unit *goabt_go_sched_pop(goabt_stream *s, goabt_sched *sc) GOABT_HIDDEN;
/* A user pool of goabt's own (pool_user.c, for pool_go.c): def's functions, pool units that
 * are the work units themselves (no create_unit, no table), and remove, when not NULL, for
 * ABT_pool_remove and yield_to. NULL when out of memory or def is invalid. */
goabt_pool *goabt_own_pool_new(ABT_pool_user_def def, int (*remove)(ABT_pool, ABT_unit),
                               int access, int automatic) GOABT_HIDDEN;

/* Schedulers (sched.c). */
goabt_sched *goabt_sched_new(int predef, int num_pools, goabt_pool **pools, int automatic)
    GOABT_HIDDEN;
void goabt_sched_delete(goabt_sched *s) GOABT_HIDDEN;
int goabt_sched_has_work(goabt_sched *s) GOABT_HIDDEN;
/* The next unit goabt's loop would run for sc (a predefined scheduler, or one with a Go
 * policy) on s, taken out of its pool, or NULL. */
goabt_unit *goabt_sched_pop_next(goabt_stream *s, goabt_sched *sc) GOABT_HIDDEN;
/* Runs s's scheduler loop; returns on a secondary stream once asked to finish with no work
 * left; on the primary it leaves by resuming the main ULT. */
void goabt_sched_loop(goabt_stream *s) GOABT_HIDDEN;
/* Runs what the unit that switched to s's scheduler asked for (engine.h, top). */
static inline void goabt_sched_after_switch(goabt_stream *s)
{
    goabt_after_fn fn = s->after_fn;
    if (fn == NULL) return;
    s->after_fn = NULL;
    fn(s->after_unit, s->after_arg);
}

/* A user scheduler's turn on stream s (sched_user.c): runs sc's run function until it returns;
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
 * pool that parked ULTs still name forwards them there (xstream.c). */
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

/* The int a scheduler configuration stores at idx, or def (sched_config.c). */
int goabt_sched_config_int(ABT_sched_config config, int idx, int def) GOABT_HIDDEN;

/* Units (unit.c). */
int goabt_unit_create(goabt_pool *pool, int kind, void (*func)(void *), void *arg,
                      goabt_attr *attr, int named, goabt_unit **out) GOABT_HIDDEN;
/* Or'ed into goabt_unit_create's `named`: the unit is not pushed; *out (required) gets it, and
 * the caller starts it with goabt_unit_start_to. */
#define GOABT_CREATE_HELD 0x2
/* Runs u, just made (held) or revived, right away: the calling ULT switches straight to it and
 * goes back to its pool; anyone else pushes it into its pool (the main ULT then yields). why:
 * what a user pool's push is told (ABT_POOL_CONTEXT_OP_THREAD_CREATE_TO or _REVIVE_TO). */
void goabt_unit_start_to(goabt_unit *u, ABT_pool_context why) GOABT_HIDDEN;
void goabt_unit_free(goabt_unit *u) GOABT_HIDDEN;
/* Runs the terminated unit u again, func(arg) in pool p: queued there, or (to) switched to
 * straight from the calling ULT as ABT_thread_create_to does. ABT_ERR_MEM when a user pool
 * makes no unit for it. */
int goabt_unit_revive(goabt_unit *u, goabt_pool *p, void (*func)(void *), void *arg, int to)
    GOABT_HIDDEN;
/* ABT_thread_revive(_to) and ABT_task_revive (thread.c): kind 0 takes any unit. */
int goabt_unit_revive_api(ABT_pool pool, void (*func)(void *), void *arg, ABT_thread *thread,
                          int kind, int to) GOABT_HIDDEN;
int goabt_unit_join(goabt_unit *u) GOABT_HIDDEN;
void goabt_unit_yield(void) GOABT_HIDDEN;
void goabt_unit_yield_to(goabt_unit *target) GOABT_HIDDEN;
/* Suspends the calling ULT until goabt_unit_resume; with a target (a ready ULT in a pool), it
 * switches straight to it. */
void goabt_unit_suspend(goabt_unit *target) GOABT_HIDDEN;
/* Resumes u, suspended: 1, or 0 if it is not (and nothing is done). */
int goabt_unit_resume(goabt_unit *u) GOABT_HIDDEN;
/* Resumes target and switches straight to it; the caller then yields (0), suspends (1) or
 * exits (2, no return). 0 if target is not suspended (nothing is done). */
int goabt_unit_resume_to(goabt_unit *target, int then) GOABT_HIDDEN;
/* Ends the calling ULT, switching straight to target (a ready ULT in a pool) if it can. */
void goabt_unit_exit_to(goabt_unit *target) __attribute__((noreturn)) GOABT_HIDDEN;
void goabt_unit_exit(void) __attribute__((noreturn)) GOABT_HIDDEN;
uint64_t goabt_unit_id(goabt_unit *u) GOABT_HIDDEN;
/* Blocking (engine.h, top): park the calling ULT (the main ULT included), ready a parked one. */
void goabt_unit_park(goabt_after_fn fn, void *arg) GOABT_HIDDEN;
void goabt_unit_ready(goabt_unit *u) GOABT_HIDDEN;
/* Gives the processor to s's scheduler, which runs fn(self, arg) first; returns when self
 * runs again (possibly on another stream). */
void goabt_unit_switch_out(goabt_stream *s, goabt_unit *self, goabt_after_fn fn, void *arg)
    GOABT_HIDDEN;
/* u finished (an after-switch callback; arg is the stream it ran on): wakes its joiners, or
 * frees it if unnamed. */
void goabt_unit_terminated(goabt_unit *u, void *arg) GOABT_HIDDEN;
/* A ULT's first code (unit.c); it starts with goabt_ult_after_resume, as must any other
 * (stackcheck.c's in mode canary): it runs what the unit switched from asked. */
void goabt_ult_entry(void *arg) GOABT_HIDDEN;
void goabt_ult_after_resume(void) GOABT_HIDDEN;

/* Stack-overflow checks (stackcheck.c), by ABT_STACK_OVERFLOW_CHECK. Outside mode none, every
 * stream thread and the primary thread have an alternate signal stack, and a SIGSEGV/SIGBUS
 * handler reports a fault in the running ULT's guard page (or below its stack) in one line on
 * stderr and aborts; every other fault goes to the handler installed before (the Go runtime's).
 * init: at ABT_init, on the primary thread, once the Go core has read the mode into
 * goabt_rt.stack_check (the Go runtime's handlers are in place by then); finalize: at the
 * outermost ABT_finalize, the handler and the primary's signal stack as they were before. */
void goabt_stackcheck_init(void) GOABT_HIDDEN;
void goabt_stackcheck_finalize(void) GOABT_HIDDEN;
/* A thread's signal stack: begin when the thread starts; release, once it has ended (joined),
 * frees ours. Never taken away from a live thread (stackcheck.c says why). */
void goabt_sigstack_begin(goabt_sigstack *st) GOABT_HIDDEN;
void goabt_sigstack_release(goabt_sigstack *st) GOABT_HIDDEN;
/* In modes mprotect and mprotect_strict, as Argobots does: a stack the program gave gets its
 * lowest whole page made read-only while the ULT has it (guard), and writable again when the
 * unit is freed (unguard). Nothing in the other modes, or on a stack too small to spare it. */
void goabt_user_stack_guard(goabt_unit *u) GOABT_HIDDEN;
void goabt_user_stack_unguard(goabt_unit *u) GOABT_HIDDEN;
/* Whether ULT stacks goabt maps hold their guard page, as their lowest page (modes mprotect and
 * mprotect_strict, as Argobots lays them out), rather than below them. */
int goabt_stack_guard_inside(void) GOABT_HIDDEN;

/* The context to resume u with: made now (on a stack taken now) if u never ran. Under
 * AddressSanitizer the stack is unpoisoned first: the ULT that used it before ended with its
 * frames still poisoned (a ULT ends by switching away, not by returning), and ASan's own code
 * running on the new frames (its noreturn hook, say) would report them. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define GOABT_UNPOISON(lo, hi) ASAN_UNPOISON_MEMORY_REGION((lo), (char *)(hi) - (char *)(lo))
#else
#define GOABT_UNPOISON(lo, hi) ((void)0)
#endif
#define GOABT_UNPOISON_STACK(u) GOABT_UNPOISON((u)->stack, (u)->top)
/* Gives u, about to run for the first time on s (the calling thread's stream), a stack of
 * u->stacksize usable bytes, from s's caches if it can (unit.c); 0, or -1 when none can be
 * mapped (out of memory). */
int goabt_unit_take_stack(goabt_stream *s, goabt_unit *u) GOABT_HIDDEN;
/* u, about to run for the first time, got no stack: it ends there without running (its joiners
 * are woken; ABT_thread_join and ABT_thread_free on it return ABT_ERR_MEM), said once on
 * stderr. Called by s's scheduler, no lock held. */
void goabt_unit_no_stack(goabt_unit *u, goabt_stream *s) GOABT_HIDDEN;
/* The context to resume u with (made now if u never ran), or NULL when u never ran and no
 * stack could be mapped for it. */
static inline goabt_ctx goabt_unit_context(goabt_stream *s, goabt_unit *u)
{
    if (__builtin_expect(u->ctx == NULL, 0)) {
        if (u->top == NULL && goabt_unit_take_stack(s, u) != 0) return NULL;
        GOABT_UNPOISON_STACK(u);
        u->ctx = goabt_ctx_make(u->top, goabt_rt.ult_entry, u);
    }
    return u->ctx;
}

/* The tool interface (tool.c): the event bits someone listens to (0: nobody, the usual case):
 * the ABT_TOOL_EVENT_THREAD_* bits a registered tool asked for, and, while GOABT_TRACE is set,
 * the timeline trace's (trace.h); and what fires one. Every event site is GOABT_TOOL_EVENT: one
 * load and a branch not taken when nobody listens. Its arguments are evaluated only when the
 * event fires, so a site may compute them (what a unit blocks on, say) at no cost otherwise. */
extern uint64_t goabt_tool_mask GOABT_HIDDEN;
void goabt_tool_fire(goabt_unit *u, uint64_t event, goabt_pool *pool, int sync_type, void *sync)
    GOABT_HIDDEN;
/* No tool: each ABT_init starts without one, whatever the last finalize left. */
void goabt_tool_reset(void) GOABT_HIDDEN;
/* The trace listens (bits, what goabt_tool_mask carries for it) or stops (0): trace.c. */
void goabt_tool_set_trace(uint64_t bits) GOABT_HIDDEN;
/* A direct switch to a unit (unit.c, switch_to): the trace's own event, outside the
 * ABT_TOOL_EVENT_THREAD_* bits (Argobots has none); a tool that listens to runs hears it as
 * ABT_TOOL_EVENT_THREAD_RUN (tool.c). */
#define GOABT_TRACE_EVENT_SWITCH (1ull << 32)
#define GOABT_TOOL_EVENT_SYNC(u, event, pool, sync_type, sync)                                \
    do {                                                                                      \
        if (__builtin_expect((__atomic_load_n(&goabt_tool_mask, __ATOMIC_RELAXED) & (event)) != 0, 0)) { \
            goabt_tool_fire((u), (event), (pool), (sync_type), (sync));                       \
        }                                                                                     \
    } while (0)
#define GOABT_TOOL_EVENT(u, event, pool, sync_type) GOABT_TOOL_EVENT_SYNC(u, event, pool, sync_type, NULL)

/* The leak check (leaks.c, GOABT_CHECK_LEAKS): 0 off, 1 report at the last ABT_finalize, 2
 * report and exit non-zero. Set at the outermost ABT_init, cleared by the report. Every API
 * create and free of an object the program must free tells the registry through
 * GOABT_LEAK_NOTE / GOABT_LEAK_FORGET: one load and a branch not taken while the check is off.
 * Kinds: GOABT_LEAK_UNIT (named units; ULT or tasklet is read at the report) and
 * GOABT_LEAK_OBJECT (object.h memory: the kind is read from its magic at the report) cover
 * several. */
enum {
    GOABT_LEAK_UNIT,
    GOABT_LEAK_ULT,
    GOABT_LEAK_TASKLET,
    GOABT_LEAK_KEY,
    GOABT_LEAK_POOL,
    GOABT_LEAK_SCHED,
    GOABT_LEAK_THREAD_ATTR,
    GOABT_LEAK_OBJECT,
    GOABT_LEAK_MUTEX,
    GOABT_LEAK_MUTEX_ATTR,
    GOABT_LEAK_COND,
    GOABT_LEAK_RWLOCK,
    GOABT_LEAK_BARRIER,
    GOABT_LEAK_XSTREAM_BARRIER,
    GOABT_LEAK_EVENTUAL,
    GOABT_LEAK_FUTURE,
    GOABT_LEAK_TIMER,
    GOABT_LEAK_SCHED_CONFIG,
    GOABT_LEAK_POOL_CONFIG,
    GOABT_LEAK_POOL_USER_DEF,
    GOABT_LEAK_KINDS
};
extern int goabt_leak_check GOABT_HIDDEN;
void goabt_leak_note(int kind, const void *obj) GOABT_HIDDEN;
void goabt_leak_forget(const void *obj) GOABT_HIDDEN;
/* At the outermost ABT_init: the mode and the exit status of a fatal report (the Go core's). */
void goabt_leaks_at_init(void) GOABT_HIDDEN;
/* At the last ABT_finalize, once everything goabt frees itself is freed: lists on stderr what
 * the program did not free, and turns the check off. */
void goabt_leaks_report(void) GOABT_HIDDEN;
/* When golib.c has loaded the Go core: GOABT_CHECK_LEAKS for OPAL objects (opal.c). */
void goabt_opal_leaks_at_load(int mode, int exit_status) GOABT_HIDDEN;
/* In the child of every fork, from golib.c's handler: OPAL's C locks are free (opal.c). */
void goabt_opal_forked(void) GOABT_HIDDEN;
#define GOABT_LEAK_NOTE(kind, obj)                                                            \
    do {                                                                                      \
        if (__builtin_expect(__atomic_load_n(&goabt_leak_check, __ATOMIC_RELAXED) != 0, 0)) {  \
            goabt_leak_note((kind), (obj));                                                   \
        }                                                                                     \
    } while (0)
#define GOABT_LEAK_FORGET(obj)                                                                \
    do {                                                                                      \
        if (__builtin_expect(__atomic_load_n(&goabt_leak_check, __ATOMIC_RELAXED) != 0, 0)) {  \
            goabt_leak_forget(obj);                                                           \
        }                                                                                     \
    } while (0)

/* Takes up u's requests (GOABT_UNIT_REQ_*) at a scheduling point, u being ready and in no
 * pool, its context saved: 1 if u was ended (cancel) or moved (migration), so that the caller
 * must not run or queue it; 0 if nothing was asked. */
int goabt_unit_take_request(goabt_unit *u) GOABT_HIDDEN;
/* Asks u to move to pool `to` (ABT_thread_migrate*), at once if it waits in a pool that can
 * give it back, else at its next scheduling point. */
void goabt_unit_request_migration(goabt_unit *u, goabt_pool *to) GOABT_HIDDEN;
/* Asks u to end (ABT_thread_cancel), at once if it waits in a pool that can give it back. */
void goabt_unit_request_cancel(goabt_unit *u) GOABT_HIDDEN;

/* Runs u (popped from a pool) on s until it switches back, and then what it asked for. Inline:
 * it is the scheduler loop's body (sched.c), where a call cost the yield round trip ~15 ns. */
static inline void goabt_unit_run(goabt_stream *s, goabt_unit *u)
{
    if (__builtin_expect(__atomic_load_n(&u->request, __ATOMIC_ACQUIRE) != 0, 0) &&
        goabt_unit_take_request(u)) {
        return;
    }
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_RUN, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    u->last_stream = s;
    __atomic_store_n(&u->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    if (u->kind == GOABT_TASKLET) {
        s->current = u;
        u->func(u->arg);
        if (goabt_forked()) goabt_forked_unit_returned(); /* forked inside it: engine.h */
        s->current = NULL;
        goabt_unit_terminated(u, s);
        return;
    }
    /* The context first: a ULT's first run may take a stack from the Go core, a gated call that
     * must see the caller's stack, not u's (s->current). */
    goabt_ctx ctx = goabt_unit_context(s, u);
    if (__builtin_expect(ctx == NULL, 0)) {
        goabt_unit_no_stack(u, s);
        return;
    }
    s->current = u;
    goabt_ctx_switch(&s->sched_ctx, ctx);
    s->current = NULL;
    goabt_sched_after_switch(s);
}
/* Runs u (ready, in no pool, not the main ULT) as a child of the caller and returns once u
 * switches back (yields, blocks, ends): from a scheduler's context as goabt_unit_run does; from
 * a ULT (a stacked scheduler's, or any ULT calling ABT_self_schedule) on top of it, the caller's
 * context standing in for the scheduler's meanwhile. Not from a tasklet. */
void goabt_unit_run_child(goabt_unit *u) GOABT_HIDDEN;
/* The main ULT, ready and in no pool, was taken on s to be run. It lives on the main thread's
 * stack: the primary's own scheduler (s primary, no unit running) resumes it at once (no
 * return, but to a user scheduler's run: goabt_unit_resume_main); anyone else hands it to that
 * scheduler, and a ULT on the primary steps aside (yields) for the scheduler below it to
 * notice. */
void goabt_unit_hand_main(goabt_stream *s) GOABT_HIDDEN;
/* Resumes the main ULT on the primary stream s, from its scheduler's context. No return, but
 * from a user scheduler's run on its own stack (s->run_live): the run waits, and this returns
 * once the main ULT has stepped aside again (sched_user.c). */
void goabt_unit_resume_main(goabt_stream *s) GOABT_HIDDEN;
/* Descriptor and stack caches: s's go to the global ones (stream deletion); the global ones go
 * to the Go core (finalize). */
void goabt_units_cache_release(goabt_stream *s) GOABT_HIDDEN;
void goabt_units_cache_drain(void) GOABT_HIDDEN;

/* Streams (stream.c). */
goabt_stream *goabt_stream_new(goabt_sched *sched, int rank) GOABT_HIDDEN;
int goabt_stream_start(goabt_stream *s) GOABT_HIDDEN;
void goabt_stream_join(goabt_stream *s) GOABT_HIDDEN;
void goabt_stream_delete(goabt_stream *s) GOABT_HIDDEN;
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

/* CPU binding (xstream_affinity.c). At ABT_init, the sets ABT_SET_AFFINITY gives ranks
 * (ABT_ERR_MEM if they cannot be kept); at the last ABT_finalize, forget them. */
int goabt_affinity_init(void) GOABT_HIDDEN;
void goabt_affinity_finalize(void) GOABT_HIDDEN;
/* The calling thread runs s from now on (s's thread starts; ABT_init makes the main thread the
 * primary): it binds to the CPUs the program asked for s, else to its rank's set. */
void goabt_stream_bind_start(goabt_stream *s) GOABT_HIDDEN;
/* s's thread stops running s (it is about to end; finalize): binding calls leave it alone. */
void goabt_stream_bind_stop(goabt_stream *s) GOABT_HIDDEN;
/* The CPUs s runs on (its thread's mask while it runs; else those it will take); rt.lock is
 * held. ABT_ERR_SYS if the mask cannot be read. */
int goabt_stream_cpus_locked(goabt_stream *s, cpu_set_t *set) GOABT_HIDDEN;
/* s has a new rank: with ABT_SET_AFFINITY on it moves to that rank's set, as in Argobots. */
void goabt_stream_bind_rank(goabt_stream *s) GOABT_HIDDEN;

/* The runtime (runtime.c). */
void goabt_set_self_stream(goabt_stream *s) GOABT_HIDDEN;
int goabt_engine_init(void) GOABT_HIDDEN;
void goabt_engine_finalize(void) GOABT_HIDDEN;
/* 1 when another Argobots runtime or another copy of libgoabt.so is loaded in this process,
 * which goabt says on stderr once; ABT_init then does not start (one_runtime.c). */
int goabt_other_runtime(void) GOABT_HIDDEN;

#endif /* GOABT_ENGINE_H */
