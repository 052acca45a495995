/*
 * runtime.h: the runtime: init and finalize (runtime.c), the calling thread's stream, futexes and
 * the gate by which C calls Go (base.c), fork, one runtime per process (one_runtime.c), and the
 * stack-overflow checks (stackcheck.c). Internal.
 *
 * Two libraries: these C files are libgoabt.so, which programs link; the Go core is
 * libgoabt-go.so, which golib.c loads the first time something needs Go, so that a program may
 * fork before it first uses goabt (a Go runtime does not survive fork, docs/design.md rule 12).
 */
#ifndef GOABT_RUNTIME_H
#define GOABT_RUNTIME_H

#include "common.h"

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
    /* The CPU sets ranks bind to: rank r, affinity_sets[r % num_affinity_sets]
     * (stream_affinity.c, from core.AffinitySets); NULL and 0 when affinity is off. */
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
    /* Calls that create, join, free or revive a stream, in flight (rt.lock), and whether
     * finalize has closed them (stream.c, goabt_stream_calls_enter): finalize waits on
     * stream_calls_done for those in flight before it sweeps the streams. */
    int stream_calls;
    int stream_calls_closed;
    pthread_cond_t stream_calls_done;
    /* Longest sleep of an idle stream or blocked thread before it looks again, in ns; 0: none.
     * A safety net only: every wake-up is exact (GOABT_SAFETY_WAKEUP_MS, core.Config). */
    long long safety_ns;
    /* A Go pool (GOABT_POOL) and a Go scheduling policy (GOABT_SCHED) replace the predefined
     * ones (pool_go.c, core.Config). */
    int go_pool;
    int go_sched;
    /* Idle streams order their sleeper listing against pushes into user C pools with a
     * membarrier (goabt_pool_sleepers_fence), so that such a push needs no fence of its own
     * (goabt_pool_wake_sleeper). 0 where the kernel refuses membarrier: pushes fence. 0 from
     * ABT_init; decided before the first user C pool is published (goabt_asym_fence_decide). */
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
    /* The hang report (api/info_hang.c): its watchdog's period (GOABT_WATCHDOG; 0: off) and
     * the signal that asks for it (GOABT_DUMP_SIGNAL; 0: none). */
    long long watchdog_ns;
    int dump_signal;
};

extern struct goabt_runtime goabt_rt GOABT_HIDDEN;

/* Futexes: how OS threads sleep (runtime.c). timeout_ns 0 waits without a limit. */
void goabt_futex_wait(int *addr, int seen, long long timeout_ns) GOABT_HIDDEN;
void goabt_futex_wake(int *addr, int n) GOABT_HIDDEN;

/* The calling thread's stream (NULL on an external thread). A ULT may resume on another thread,
 * and a compiler may keep a thread-local address across a call, a switch included (rule 8): so
 * on x86-64 it is read by a volatile asm, which reads %fs anew every time (two instructions
 * inline, where a call cost ~1 ns, 4 times per tasklet), and elsewhere by a function the
 * compiler cannot see into. */
goabt_stream *goabt_self_stream_call(void) GOABT_HIDDEN;
#if defined(__x86_64__)
extern __thread goabt_stream *goabt_tls_stream GOABT_HIDDEN;
static inline goabt_stream *goabt_self_stream(void)
{
    goabt_stream *s;
    /* initial-exec: the variable's offset from the thread pointer, then the read through %fs.
     * The memory clobber keeps it in place among the calls and switches around it. */
    __asm__ volatile("movq goabt_tls_stream@gottpoff(%%rip), %0\n\tmovq %%fs:(%0), %0"
                     : "=r"(s)
                     :
                     : "memory");
    return s;
}
#else
static inline goabt_stream *goabt_self_stream(void) { return goabt_self_stream_call(); }
#endif

static inline int goabt_initialized(void)
{
    return __atomic_load_n(&goabt_rt.init_depth, __ATOMIC_ACQUIRE) > 0;
}

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

/* The calling thread's stream and the fence (base.c); init and finalize (runtime.c). */
void goabt_set_self_stream(goabt_stream *s) GOABT_HIDDEN;
/* Decides goabt_rt.asym_fence, registering the process for membarrier the first time: call it
 * before a user C pool is published. */
void goabt_asym_fence_decide(void) GOABT_HIDDEN;
/* ABT_init: the fence is decided again at the first user C pool of this init. */
void goabt_asym_fence_reset(void) GOABT_HIDDEN;
int goabt_engine_init(void) GOABT_HIDDEN;
void goabt_engine_finalize(void) GOABT_HIDDEN;
/* 1 when another Argobots runtime or another copy of libgoabt.so is loaded in this process,
 * which goabt says on stderr once; ABT_init then does not start (one_runtime.c). */
int goabt_other_runtime(void) GOABT_HIDDEN;

/* A thread's alternate signal stack (stackcheck.c). */
typedef struct goabt_sigstack {
    void *mem;      /* our mapping, or NULL: none was needed (or mode none) */
    size_t size;
    stack_t old;    /* the thread's signal stack before */
} goabt_sigstack;

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

#endif /* GOABT_RUNTIME_H */
