/*
 * engine.h: the C side of the work-unit engine. Internal to libgoabt.so.
 *
 * Roles (fixed names, used everywhere):
 *   stream      an execution stream (ABT_xstream): one OS thread. The primary stream is the
 *               process's main thread; a secondary stream is a pthread started from C (never a
 *               Go-created thread: ULT stacks there crash the Go runtime, engine.md).
 *   unit        a work unit (ABT_thread / ABT_task): a ULT, with its own mmap'd stack, or a
 *               tasklet, which runs to completion on the system stack. The main ULT is the
 *               program's main thread seen as a ULT: it runs on the main stack, never elsewhere.
 *   pool        a queue of ready units (ABT_pool).
 *   scheduler   the loop that pops units from its pools in priority order and runs them
 *               (ABT_sched); it runs on the system stack.
 *   system stack  the stack a stream's scheduler runs on: the pthread's own stack, or, on the
 *               primary stream, the main stack below the suspended main ULT (an "activation").
 *   gate        how a ULT calls Go: move to the system stack, call, come back (goabt_gate).
 *
 * Switch protocol: a unit that gives up the processor (yield, block, terminate) records what
 * must happen to it in its stream's `pending` fields, then switches to the scheduler. The
 * scheduler acts on `pending` only after the switch, when the unit's context is saved: before
 * that, pushing the unit back to a pool would let another stream resume it twice (engine.md
 * rule 4). No Go frame is ever live across a switch.
 *
 * The hot paths (create, run, yield, join of a finished unit, self queries) are C over these
 * structures; Go (core/, through the Go files in capi/) keeps the slow paths: configuration from
 * the environment, stream ranks and GOMAXPROCS sizing (core.Runtime), and the memory of units:
 * the C descriptor caches (per stream, then global) take descriptors from core.Runtime.Units
 * (a core.Blocks) and stacks from core.Stacks when they miss, and give them back when they
 * overflow or at finalize. Queues and wake-ups stay C: every create and every yield goes through
 * them.
 *
 * Memory layout keeps streams apart: a stream refills its descriptor cache with a run of
 * descriptors on pages of their own (core.Blocks.GetRun), trades them with the global cache in
 * batches, ULT stack tops are spread over 64 cache-line colours, and stream and pool structs sit
 * on lines of their own. Two streams forking and joining side by side ran at 2-3x the cost of
 * one without this (engine.c, unit_map_stack and go_take_batch, says what each part bought).
 */
#ifndef GOABT_ENGINE_H
#define GOABT_ENGINE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "abt.h"
#include "context.h"

#define GOABT_HIDDEN __attribute__((visibility("hidden")))

/* Magic words: a handle is accepted only if its object carries its kind's magic. Freed objects
 * have it cleared, so a freed handle is refused as long as its memory was not reused. */
enum {
    GOABT_MAGIC_UNIT = 0x554e4954,   /* "UNIT" */
    GOABT_MAGIC_STREAM = 0x5354524d, /* "STRM" */
    GOABT_MAGIC_POOL = 0x504f4f4c,   /* "POOL" */
    GOABT_MAGIC_SCHED = 0x53434844,  /* "SCHD" */
    GOABT_MAGIC_ATTR = 0x41545452,   /* "ATTR" */
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
};

/* What a unit asks of the scheduler when it switches back (stream->pending_op). */
enum {
    GOABT_PENDING_NONE = 0,
    GOABT_PENDING_YIELD,     /* push the unit back to its pool */
    GOABT_PENDING_JOIN,      /* block the unit until pending_target terminates */
    GOABT_PENDING_TERMINATE, /* the unit finished: wake its joiner, free it if unnamed */
    GOABT_PENDING_PARK,      /* nothing: the main ULT waits for the primary to run dry */
};

/* A ULT attribute (ABT_thread_attr). */
struct ABT_thread_attr_opaque {
    uint32_t magic;
    ABT_bool migratable;
    void *stack;      /* user-provided stack, or NULL: goabt allocates one */
    size_t stacksize; /* bytes */
    void (*callback)(ABT_thread, void *);
    void *callback_arg;
};

/* A work unit: what ABT_thread (and ABT_task) points to. */
struct ABT_thread_opaque {
    uint32_t magic;
    uint16_t kind;  /* GOABT_ULT or GOABT_TASKLET */
    uint16_t flags; /* GOABT_UNIT_* */
    int state;      /* ABT_THREAD_STATE_*, atomic */
    /* Work-unit-specific data (keys.h), NULL until first set; atomic. Next to magic: a
     * get_specific on another unit then reads one line of its descriptor, not two. */
    goabt_keytable *keys;
    void (*func)(void *);
    void *arg;
    goabt_ctx ctx;          /* saved context while the ULT is not running */
    void *stack;            /* lowest usable stack address (ULT) */
    size_t stacksize;       /* usable bytes (0 for tasklets and the main ULT) */
    void *mapping;          /* mmap'd region, guard page included, or NULL */
    size_t mapping_size;
    goabt_pool *pool;       /* the pool it was pushed to last (its associated pool) */
    goabt_stream *last_stream;
    uint64_t id;            /* assigned on first query; 0 means not yet */
    goabt_unit *next, *prev; /* links while queued in a pool */
    goabt_unit *joiner;     /* atomic: NULL, the ULT waiting in join, or GOABT_JOINER_DONE */
    int external_waiters;   /* atomic: non-ULT callers sleeping on `state` in join */
    goabt_keytable *keys_spare; /* an emptied table kept with the cached descriptor, or NULL */
    goabt_unit *free_next;  /* link in a cache of free descriptors */
    goabt_unit *batch_next; /* first unit of a batch in the global cache: the next batch */
    int batch_len;          /* ... and how many descriptors its batch holds */
};

#define GOABT_JOINER_DONE ((goabt_unit *)1)

/* A pool (ABT_pool): a FIFO queue of ready units under a spinlock. Aligned to a pair of cache
 * lines (and allocated so, goabt_alloc_lines): the adjacent-line prefetcher moves lines in
 * pairs, and two streams' pools must not share one. */
struct __attribute__((aligned(128))) ABT_pool_opaque {
    uint32_t magic;
    int kind;        /* ABT_POOL_FIFO or ABT_POOL_FIFO_WAIT */
    int access;      /* ABT_pool_access (a hint, as in Argobots 1.2) */
    int automatic;   /* freed with the last scheduler that uses it */
    int id;
    int num_scheds;  /* schedulers using it, atomic */
    int lock;        /* spinlock */
    goabt_unit *head, *tail;
    size_t size;       /* queued units, atomic reads */
    long num_blocked;  /* ULTs of this pool blocked in join, atomic */
    int sleepers;      /* idle schedulers of this pool asleep, changed under lock: a push wakes them */
    pthread_mutex_t wait_mutex; /* FIFO_WAIT: pop_wait sleeps here */
    pthread_cond_t wait_cond;
};

/* A scheduler (ABT_sched): pools in priority order. */
#define GOABT_SCHED_MAX_POOLS 64
struct ABT_sched_opaque {
    uint32_t magic;
    int predef;      /* ABT_SCHED_BASIC or ABT_SCHED_BASIC_WAIT */
    int automatic;   /* freed with the stream that uses it */
    int used;        /* is the main scheduler of a stream */
    int num_pools;
    goabt_pool *pools[GOABT_SCHED_MAX_POOLS];
};

/* Requests to a stream (stream->request bits). */
enum { GOABT_REQ_FINISH = 0x1 };

/* An execution stream (ABT_xstream). Aligned to a pair of cache lines (goabt_alloc_lines): its
 * thread writes it on every unit it runs, and a neighbouring stream in the same pair slows both
 * (two streams forking and joining 256 ULTs each in their own pools: 240 -> 170 ns per unit from
 * this alone; descriptor runs and stack colours, engine.c, did the rest). */
struct __attribute__((aligned(128))) ABT_xstream_opaque {
    uint32_t magic;
    int rank;
    int is_primary;
    int state;         /* ABT_XSTREAM_STATE_*, atomic */
    int request;       /* GOABT_REQ_* bits, atomic */
    goabt_sched *sched;
    pthread_t thread;
    goabt_ctx sched_ctx;  /* the scheduler's context while a ULT runs */
    goabt_unit *current;  /* the unit running now (NULL: the scheduler itself) */
    /* What the unit that just switched back asks of the scheduler. */
    int pending_op;
    goabt_unit *pending_unit;
    goabt_unit *pending_target;
    int main_handoff;     /* primary only, atomic: another stream popped the main ULT */
    goabt_unit *free_units; /* cache of free unit descriptors, owned by this stream */
    int free_count;
};

/* Runtime-wide state read by the C paths; core.Runtime decides it (through capi/runtime.go). */
struct goabt_runtime {
    int init_depth;           /* ABT_init calls not yet finalized, atomic */
    size_t thread_stacksize;  /* default ULT stack size (ABT_THREAD_STACKSIZE) */
    int max_xstreams;         /* what ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS reports */
    int affinity;             /* bind each stream to the CPU its rank picks (ABT_SET_AFFINITY) */
    cpu_set_t cpus;           /* the CPUs the process may use, as ABT_init found them */
    cpu_set_t main_cpus;      /* the primary thread's own mask before ABT_init bound it */
    goabt_stream *primary;
    goabt_unit *main_unit;
    uint64_t next_unit_id;    /* atomic */
    int next_pool_id;         /* atomic; Argobots numbers every pool, its internal ones too */
    int num_streams;          /* streams alive (primary included), atomic */
    pthread_mutex_t lock;     /* stream creation and teardown */
    /* Idle schedulers sleep on wake_epoch; whoever gives them work (a push, a join request, the
     * main ULT's hand-off) bumps it and wakes them when sleepers is not zero. */
    int sleepers;     /* atomic */
    int wake_epoch;   /* atomic, futex word */
    int wake_pending; /* atomic: a wake-up is on its way; further ones would only cost syscalls */
    /* Threads that are not ULTs (external threads, tasklets) sleep here while they join a unit:
     * a terminating unit bumps it instead of touching itself once it is TERMINATED. */
    int join_epoch;   /* atomic, futex word */
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

/* Wakes the idle schedulers, if any sleeps. Call after making work visible, with a full
 * barrier between the two (a sequentially consistent read-modify-write is one). */
void goabt_wake_idle(void) GOABT_HIDDEN;
static inline void goabt_wake_idle_if_sleeping(void)
{
    if (__atomic_load_n(&goabt_rt.sleepers, __ATOMIC_SEQ_CST) > 0) goabt_wake_idle();
}

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

/* Zeroed memory for one object of size bytes (a multiple of 128) on lines of its own, or NULL;
 * free() frees it. */
static inline void *goabt_alloc_lines(size_t size)
{
    void *p = aligned_alloc(128, size);
    if (p != NULL) memset(p, 0, size);
    return p;
}

/* Calls fn(arg) on the system stack: through the gate when the caller runs on a ULT stack,
 * directly otherwise. Every call into Go from C goes through here. */
void goabt_gate(void (*fn)(void *), void *arg) GOABT_HIDDEN;

/* Handle checks: the object behind a handle, or NULL if the handle is a NULL handle, NULL, or
 * an object of another kind or freed. The one place handles become objects. */
static inline goabt_unit *goabt_unit_of(ABT_thread h)
{
    if ((uintptr_t)h < 4096) return NULL; /* NULL, and every ABT_*_NULL (small constants) */
    return h->magic == GOABT_MAGIC_UNIT ? h : NULL;
}

static inline goabt_stream *goabt_stream_of(ABT_xstream h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_STREAM ? h : NULL;
}

static inline goabt_pool *goabt_pool_of(ABT_pool h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_POOL ? h : NULL;
}

static inline goabt_sched *goabt_sched_of(ABT_sched h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_SCHED ? h : NULL;
}

static inline goabt_attr *goabt_attr_of(ABT_thread_attr h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_ATTR ? h : NULL;
}

/* Pools (pool.c). */
goabt_pool *goabt_pool_new(int kind, int access, int automatic) GOABT_HIDDEN;
void goabt_pool_delete(goabt_pool *p) GOABT_HIDDEN;
void goabt_pool_push(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN;
goabt_unit *goabt_pool_pop(goabt_pool *p) GOABT_HIDDEN;
int goabt_pool_remove(goabt_pool *p, goabt_unit *u) GOABT_HIDDEN; /* 1 if u was queued in p */
void goabt_pool_release(goabt_pool *p) GOABT_HIDDEN; /* a scheduler stops using p */
/* An idle scheduler of p goes to sleep (delta 1) or wakes (-1); under p's lock, which is what
 * lets goabt_pool_push see it without a fence. */
void goabt_pool_sleepers_add(goabt_pool *p, int delta) GOABT_HIDDEN;
/* p's size read under its lock (a scheduler's last look before it sleeps). */
size_t goabt_pool_size_locked(goabt_pool *p) GOABT_HIDDEN;

/* Schedulers (sched.c). */
goabt_sched *goabt_sched_new(int predef, int num_pools, goabt_pool **pools, int automatic)
    GOABT_HIDDEN;
void goabt_sched_delete(goabt_sched *s) GOABT_HIDDEN;
int goabt_sched_has_work(goabt_sched *s) GOABT_HIDDEN;

/* The int a scheduler configuration stores at idx, or def (sched_config.c). */
int goabt_sched_config_int(ABT_sched_config config, int idx, int def) GOABT_HIDDEN;

/* Units and streams (engine.c). */
int goabt_unit_create(goabt_pool *pool, int kind, void (*func)(void *), void *arg,
                      goabt_attr *attr, int named, goabt_unit **out) GOABT_HIDDEN;
void goabt_unit_free(goabt_unit *u) GOABT_HIDDEN;
int goabt_unit_join(goabt_unit *u) GOABT_HIDDEN;
void goabt_unit_yield(void) GOABT_HIDDEN;
void goabt_unit_yield_to(goabt_unit *target) GOABT_HIDDEN;
void goabt_unit_exit(void) __attribute__((noreturn)) GOABT_HIDDEN;
uint64_t goabt_unit_id(goabt_unit *u) GOABT_HIDDEN;
int goabt_stream_start(goabt_stream *s) GOABT_HIDDEN;
/* Binds thread, which runs s, to the CPU s's rank picks, if affinity is on. */
void goabt_stream_bind(goabt_stream *s, pthread_t thread) GOABT_HIDDEN;
int goabt_stream_cpu(goabt_stream *s) GOABT_HIDDEN;   /* that CPU, or -1 */
goabt_stream *goabt_stream_new(goabt_sched *sched, int rank) GOABT_HIDDEN;
void goabt_stream_join(goabt_stream *s) GOABT_HIDDEN;
void goabt_stream_delete(goabt_stream *s) GOABT_HIDDEN;
int goabt_engine_init(void) GOABT_HIDDEN;
void goabt_engine_finalize(void) GOABT_HIDDEN;

#endif /* GOABT_ENGINE_H */
