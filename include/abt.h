/*
 * abt.h: the Argobots 1.2 C API as served by goabt (libgoabt.so).
 *
 * Every type, constant and function here has the name, value, layout and signature of Argobots
 * 1.2 in its default configuration (error checking on, 2.0 API off), so that C code written and
 * compiled for Argobots builds and runs unchanged against libgoabt.so. The comments are goabt's
 * own. A function that goabt does not provide yet returns ABT_ERR_FEATURE_NA and says so below.
 *
 * Vocabulary: an execution stream (xstream) is an OS-level worker; its main scheduler takes work
 * units out of pools and runs them. A work unit is a ULT (user-level thread, with its own stack,
 * able to yield and block) or a tasklet (no stack, runs to completion). Unless stated otherwise a
 * function returns ABT_SUCCESS or an error code, and results go to its pointer arguments. Most
 * functions that create objects, wait, or act on the caller return ABT_ERR_UNINITIALIZED outside
 * ABT_init ... ABT_finalize; invalid handles give the ABT_ERR_INV_<KIND> code of their kind.
 * Synchronization objects are the exception, as in Argobots: mutexes and their attributes,
 * condition variables, readers-writer locks, eventuals, futures, barriers and barriers of
 * execution streams may be created and used before ABT_init, used and freed after
 * ABT_finalize, and kept across ABT_finalize and a later ABT_init. Made before the runtime
 * starts, they work for the work units that run once it has; outside it, their callers are
 * plain threads, which sleep when they wait. Keys and timers need no runtime either. (Not in a
 * child forked after its parent used goabt, where every call fails: Fork, after
 * ABT_initialized.)
 */
#ifndef ABT_H_INCLUDED
#define ABT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

/* For ABT_cond_timedwait and ABT_eventual_timedwait, also in strict ISO C modes where <time.h>
 * does not define struct timespec. */
struct timespec;

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Version and declaration macros
 * ------------------------------------------------------------------------------------------- */

/* Marks the public functions; empty in goabt (the library exports exactly this API). */
#define ABT_API_PUBLIC

/* The Argobots release this header is compatible with, as a string and as a number. */
#define ABT_VERSION "1.2rc1"
#define ABT_NUMVERSION 10200201

/* Release types used in ABT_NUMVERSION and ABT_CALC_VERSION. */
#define ABT_RELEASE_TYPE_ALPHA 0
#define ABT_RELEASE_TYPE_BETA 1
#define ABT_RELEASE_TYPE_RC 2
#define ABT_RELEASE_TYPE_PATCH 3

/* The ABT_NUMVERSION value of a release, for comparisons such as
 * ABT_NUMVERSION >= ABT_CALC_VERSION(1, 1, 0, ABT_RELEASE_TYPE_PATCH, 0). */
#define ABT_CALC_VERSION(MAJOR, MINOR, REVISION, TYPE, PATCH) \
    (((MAJOR) * 10000000) + ((MINOR) * 100000) + ((REVISION) * 1000) + ((TYPE) * 100) + (PATCH))

/* Marks deprecated functions, so that their use draws a compiler warning. */
#define ABT_DEPRECATED __attribute__((deprecated))

/* 0: this header provides the Argobots 1.x API, not the 2.0 one (ABT_ENABLE_VER_20_API is not
 * defined). */
#define ABT_ENABLE_VER_20_API_VAL 0

/* ---------------------------------------------------------------------------------------------
 * Return codes: every function except ABT_get_wtime returns one of these. ABT_SUCCESS is 0.
 * ------------------------------------------------------------------------------------------- */

/* General outcomes. */
#define ABT_SUCCESS 0
#define ABT_ERR_UNINITIALIZED 1
#define ABT_ERR_MEM 2
#define ABT_ERR_OTHER 3

/* An argument is invalid: ABT_ERR_INV_<KIND> for a handle of that kind that is a NULL handle,
 * freed or of the wrong kind, or for a bad value of that kind; ABT_ERR_INV_ARG for any other
 * argument. ABT_ERR_INV_SCHED_TYPE is never returned. */
#define ABT_ERR_INV_XSTREAM 4
#define ABT_ERR_INV_XSTREAM_RANK 5
#define ABT_ERR_INV_XSTREAM_BARRIER 6
#define ABT_ERR_INV_SCHED 7
#define ABT_ERR_INV_SCHED_KIND 8
#define ABT_ERR_INV_SCHED_PREDEF 9
#define ABT_ERR_INV_SCHED_TYPE 10
#define ABT_ERR_INV_SCHED_CONFIG 11
#define ABT_ERR_INV_POOL 12
#define ABT_ERR_INV_POOL_KIND 13
#define ABT_ERR_INV_POOL_ACCESS 14
#define ABT_ERR_INV_POOL_CONFIG 56
#define ABT_ERR_INV_POOL_USER_DEF 57
#define ABT_ERR_INV_UNIT 15
#define ABT_ERR_INV_THREAD 16
#define ABT_ERR_INV_THREAD_ATTR 17
#define ABT_ERR_INV_TASK 18
#define ABT_ERR_INV_KEY 19
#define ABT_ERR_INV_MUTEX 20
#define ABT_ERR_INV_MUTEX_ATTR 21
#define ABT_ERR_INV_COND 22
#define ABT_ERR_INV_RWLOCK 23
#define ABT_ERR_INV_EVENTUAL 24
#define ABT_ERR_INV_FUTURE 25
#define ABT_ERR_INV_BARRIER 26
#define ABT_ERR_INV_TIMER 27
#define ABT_ERR_INV_QUERY_KIND 28
#define ABT_ERR_INV_TOOL_CONTEXT 52
#define ABT_ERR_INV_ARG 53

/* An operation on an object of the named kind failed. ABT_ERR_MUTEX_LOCKED: ABT_mutex_trylock
 * found the mutex held; ABT_ERR_COND_TIMEDOUT: a timed wait reached its deadline;
 * ABT_ERR_MIGRATION_TARGET: a migration target is unusable; ABT_ERR_MIGRATION_NA: migration is
 * not supported. ABT_ERR_XSTREAM_STATE and ABT_ERR_MISSING_JOIN are never returned. */
#define ABT_ERR_XSTREAM 29
#define ABT_ERR_XSTREAM_STATE 30
#define ABT_ERR_XSTREAM_BARRIER 31
#define ABT_ERR_SCHED 32
#define ABT_ERR_SCHED_CONFIG 33
#define ABT_ERR_POOL 34
#define ABT_ERR_UNIT 35
#define ABT_ERR_THREAD 36
#define ABT_ERR_TASK 37
#define ABT_ERR_KEY 38
#define ABT_ERR_MUTEX 39
#define ABT_ERR_MUTEX_LOCKED 40
#define ABT_ERR_COND 41
#define ABT_ERR_COND_TIMEDOUT 42
#define ABT_ERR_RWLOCK 43
#define ABT_ERR_EVENTUAL 44
#define ABT_ERR_FUTURE 45
#define ABT_ERR_BARRIER 46
#define ABT_ERR_TIMER 47
#define ABT_ERR_MIGRATION_TARGET 48
#define ABT_ERR_MIGRATION_NA 49
#define ABT_ERR_MISSING_JOIN 50

/* The feature is not available; in goabt, the function is not implemented yet. */
#define ABT_ERR_FEATURE_NA 51

/* A system call or system library failed (ABT_ERR_SYS), or a CPU id is invalid (ABT_ERR_CPUID). */
#define ABT_ERR_SYS 54
#define ABT_ERR_CPUID 55

/* ---------------------------------------------------------------------------------------------
 * Handles and shared types
 *
 * Handles are pointers to opaque objects. Each kind has a NULL handle, ABT_<KIND>_NULL; it is a
 * small non-zero constant (as in Argobots with error checking on): do not compare handles with 0.
 * ------------------------------------------------------------------------------------------- */

/* Boolean: ABT_TRUE or ABT_FALSE (which is 0). */
typedef int ABT_bool;
#define ABT_TRUE 1
#define ABT_FALSE 0

/* 0: the ABT_*_NULL handles below are not NULL pointers. */
#define ABT_NULL 0

/* Unused by any function; kept for source compatibility. */
#define ABT_XSTREAM_ANY_RANK -1

typedef struct ABT_xstream_opaque *ABT_xstream;                 /* execution stream */
typedef struct ABT_xstream_barrier_opaque *ABT_xstream_barrier; /* barrier of execution streams */
typedef struct ABT_sched_opaque *ABT_sched;                     /* scheduler */
typedef struct ABT_sched_config_opaque *ABT_sched_config;       /* scheduler configuration */
typedef struct ABT_pool_opaque *ABT_pool;                       /* pool of work units */
typedef struct ABT_pool_config_opaque *ABT_pool_config;         /* pool configuration */
typedef struct ABT_pool_def *ABT_pool_user_def;                 /* user pool definition */
typedef struct ABT_unit_opaque *ABT_unit;                       /* work unit as a pool holds it */
typedef struct ABT_thread_opaque *ABT_thread;                   /* work unit: ULT or tasklet */
typedef struct ABT_thread_attr_opaque *ABT_thread_attr;         /* ULT creation attributes */
typedef struct ABT_thread_opaque *ABT_task;                     /* tasklet (= ABT_thread) */
typedef struct ABT_key_opaque *ABT_key;                         /* work-unit-specific data key */
typedef struct ABT_mutex_opaque *ABT_mutex;                     /* mutex */
typedef struct ABT_mutex_attr_opaque *ABT_mutex_attr;           /* mutex creation attributes */
typedef struct ABT_cond_opaque *ABT_cond;                       /* condition variable */
typedef struct ABT_rwlock_opaque *ABT_rwlock;                   /* readers-writer lock */
typedef struct ABT_eventual_opaque *ABT_eventual;               /* eventual: a one-shot value */
typedef struct ABT_future_opaque *ABT_future;                   /* future: filled in parts */
typedef struct ABT_barrier_opaque *ABT_barrier;                 /* barrier of work units */
typedef struct ABT_timer_opaque *ABT_timer;                     /* timer */
typedef struct ABT_tool_context_opaque *ABT_tool_context;       /* context of a tool event */

/* Ids of work units. */
typedef uint64_t ABT_unit_id;
typedef ABT_unit_id ABT_thread_id;

/* What a work unit, or the caller, is (ABT_self_get_type, pool definitions). */
enum ABT_unit_type {
    ABT_UNIT_TYPE_THREAD,  /* a ULT */
    ABT_UNIT_TYPE_TASK,    /* a tasklet */
    ABT_UNIT_TYPE_XSTREAM, /* unused */
    ABT_UNIT_TYPE_EXT      /* an external thread, not created by the runtime */
};
typedef enum ABT_unit_type ABT_unit_type;

/* Predefined schedulers (execution stream and scheduler creation). */
enum ABT_sched_predef {
    ABT_SCHED_DEFAULT,   /* the default one: currently ABT_SCHED_BASIC */
    ABT_SCHED_BASIC,     /* takes work units from its pools in order */
    ABT_SCHED_PRIO,      /* pools are priorities: always the first non-empty pool */
    ABT_SCHED_RANDWS,    /* its first pool first, else the others from a random one on */
    ABT_SCHED_BASIC_WAIT /* like ABT_SCHED_BASIC, but sleeps while its pools are empty */
};
typedef enum ABT_sched_predef ABT_sched_predef;

#define ABT_XSTREAM_NULL ((ABT_xstream) (0x01))
#define ABT_XSTREAM_BARRIER_NULL ((ABT_xstream_barrier)(0x02))
#define ABT_SCHED_NULL ((ABT_sched) (0x03))
#define ABT_SCHED_CONFIG_NULL ((ABT_sched_config) (0x04))
#define ABT_POOL_NULL ((ABT_pool) (0x05))
#define ABT_POOL_CONFIG_NULL ((ABT_pool_config) (0x06))
#define ABT_UNIT_NULL ((ABT_unit) (0x07))
#define ABT_THREAD_NULL ((ABT_thread) (0x08))
#define ABT_THREAD_ATTR_NULL ((ABT_thread_attr) (0x09))
#define ABT_TASK_NULL ((ABT_task) (0x0a))
#define ABT_KEY_NULL ((ABT_key) (0x0b))
#define ABT_MUTEX_NULL ((ABT_mutex) (0x0c))
#define ABT_MUTEX_ATTR_NULL ((ABT_mutex_attr) (0x0d))
#define ABT_COND_NULL ((ABT_cond) (0x0e))
#define ABT_RWLOCK_NULL ((ABT_rwlock) (0x0f))
#define ABT_EVENTUAL_NULL ((ABT_eventual) (0x10))
#define ABT_FUTURE_NULL ((ABT_future) (0x11))
#define ABT_BARRIER_NULL ((ABT_barrier) (0x12))
#define ABT_TIMER_NULL ((ABT_timer) (0x13))
#define ABT_TOOL_CONTEXT_NULL ((ABT_tool_context) (0x14))
#define ABT_POOL_USER_DEF_NULL ((ABT_pool_user_def) (0x15))

/* ---------------------------------------------------------------------------------------------
 * Initialization
 *
 * ABT_init turns the calling OS thread into the primary ULT running on the primary execution
 * stream (rank 0); ABT_finalize undoes it.
 * ------------------------------------------------------------------------------------------- */

/* Initialize the runtime and make the calling OS thread the primary ULT on the primary execution
 * stream (rank 0). argc and argv are ignored; the first call reads ABT_THREAD_STACKSIZE,
 * ABT_MAX_NUM_XSTREAMS and ABT_SET_AFFINITY (or ABT_ENV_*) from the environment, and goabt's own variables (docs/using.md),
 * among them GOABT_POOL and GOABT_SCHED, which name a pool and a scheduler written in Go that
 * replace the predefined ones (goabt.h): ABT_ERR_INV_ARG, said on stderr, when one names nothing
 * registered. Calls nest: each needs its own ABT_finalize. In a process forked after its
 * parent used goabt: ABT_ERR_OTHER, said on stderr (Fork, after ABT_initialized). Under an
 * address-space limit (ulimit -v, RLIMIT_AS) that leaves less than about 1.5 GiB of room, which
 * goabt's Go core reserves when it starts (mostly unused): ABT_ERR_MEM, said in one line on
 * stderr, and the process goes on as before; a later ABT_init tries again.
 *
 * Stack overflows. ABT_STACK_OVERFLOW_CHECK (or ABT_ENV_STACK_OVERFLOW_CHECK), read at every
 * outermost ABT_init, picks how a ULT running off its stack is caught; any case goes:
 *   mprotect         (the default) every ULT stack goabt maps has a guard page, a lightweight
 *                    guard region (Linux 6.13 and later), however many ULTs are alive; on
 *                    older kernels a PROT_NONE page, for the first 16,384 stacks alive at once
 *                    only (the kernel's vm.max_map_count): stacks past that number come from
 *                    slabs without one, and their overflows go unnoticed. As in Argobots, the
 *                    guard page is the lowest page of the stack a ULT reports
 *                    (ABT_thread_get_stack, and the attribute ABT_thread_get_attr gives), the
 *                    default stack size is 24576 (16384 and two pages) unless
 *                    ABT_THREAD_STACKSIZE says otherwise, and a stack the program gave
 *                    (ABT_thread_attr_set_stack) has its lowest whole page made read-only while
 *                    its ULT lives (writable again once the ULT is freed);
 *   mprotect_strict  as mprotect, but every guard page is a PROT_NONE page of a mapping of its
 *                    own, which the program may mprotect itself (as under Argobots): once the
 *                    kernel refuses more (about 32,000 stacks), ULT creation fails with
 *                    ABT_ERR_MEM;
 *   canary           the layout of none, and each ULT also lays a canary at the bottom of its stack
 *                    when it starts, checked when its function returns (not when it leaves by
 *                    ABT_self_exit): catches overflows that fault nowhere, on stacks the
 *                    program gave (ABT_thread_attr_set_stack) and unguarded slab stacks;
 *   none, or any other value (as in Argobots)  no check: guard pages stay below the stacks a
 *                    ULT reports (default size 16384), but a ULT that runs into one dies by a
 *                    bare SIGSEGV. Any other value (a typo, say) also gets one line on stderr
 *                    naming it and saying none is used, once per process, as other values
 *                    goabt cannot use do.
 * Outside none, when the running ULT faults in its guard page (or just below its stack), its
 * stack pointer at or below the fault, or its canary is found broken, goabt writes one line on
 * stderr,
 *   goabt: stack overflow: ULT <id> (function <name> at <address>) ran off its <size>-byte
 *   stack (...); raise it with ABT_THREAD_STACKSIZE=<2 x size> ... or ABT_thread_attr_set_stacksize
 * and calls abort(): the process dies by SIGABRT. For this, ABT_init installs a SIGSEGV and
 * SIGBUS handler (SA_ONSTACK | SA_SIGINFO) over the one in place (the Go runtime's, which
 * libgoabt loads), and gives the primary thread and each execution stream's thread an alternate
 * signal stack when it has none; every other fault goes to the handler it replaced, so faults
 * elsewhere end as they would without goabt (a NULL dereference in a ULT: SIGSEGV). The
 * function (the one the ULT was created with) is named from the symbol table of the file it is
 * in, read when the line is written: the executable's .symtab, which lists its static functions
 * too (no -rdynamic needed), or its .dynsym when it is stripped; a library's the same way, or by
 * dladdr; with no name found, the address alone. The outermost ABT_finalize puts back the
 * handler (unless the program installed one over goabt's since) and the primary thread's
 * signal stack. Mode none adds nothing to any path, and the other modes nothing to creating,
 * running, joining or freeing a ULT (canary: the canary's writes and reads).
 * ABT_info_query_config reports the mode as Argobots does. */
ABT_API_PUBLIC int ABT_init(int argc, char **argv);

/* Undo one ABT_init; ABT_ERR_UNINITIALIZED when there is none. The outermost call must come from
 * the primary ULT: ABT_ERR_INV_XSTREAM from another OS thread, ABT_ERR_INV_THREAD from another work
 * unit. It runs what is left in the primary's pools, joins and frees the secondary execution
 * streams the program did not free, and releases the runtime.
 * What the program did not free (goabt's rule; Argobots leaves it undefined): work units, pools
 * and schedulers belong to the runtime that made them, and their handles are refused after its
 * outermost ABT_finalize, also after a new ABT_init, with their kind's ABT_ERR_INV_* code (free
 * them before); keys, ULT attributes, pool and scheduler configurations, pool definitions,
 * timers and synchronization objects stay valid until freed, across ABT_finalize and a new
 * ABT_init.
 *
 * Leak report (goabt's). With GOABT_CHECK_LEAKS=1 (or yes, on, true) in the environment at the
 * outermost ABT_init, the outermost ABT_finalize lists on stderr, after a header line, one line
 * per object the program created through the API and did not free, grouped by kind in creation
 * order, at most 64 per kind (then a count of the rest):
 *   goabt: leaked ULT 3 (function work at 0x...), terminated; free it with ABT_thread_free
 *   goabt: leaked tasklet 4 (function step at 0x...), ready; free it with ABT_task_free
 *   goabt: leaked key 0 (destructor free_value at 0x...); free it with ABT_key_free
 *   goabt: leaked pool 2 (ABT_POOL_FIFO); free it with ABT_pool_free
 *   goabt: leaked mutex 0x...; free it with ABT_mutex_free
 * The kinds: ULT and tasklet (created with a handle; by id, its function and its state), key,
 * pool, scheduler, ULT attribute (ABT_thread_attr_create, ABT_thread_get_attr), mutex, mutex
 * attribute, condition variable, readers-writer lock, barrier, execution-stream barrier,
 * eventual, future, timer (ABT_timer_dup's too), scheduler configuration, pool configuration,
 * pool definition. A function's name comes from dladdr: build with -rdynamic to see the
 * program's own functions named; without, the line gives the file and offset addr2line reads.
 * Not listed: what goabt frees itself (streams left to ABT_finalize, automatic schedulers with
 * their stream, automatic pools with their last scheduler, the primary's scheduler and pools),
 * unnamed work units, objects in static memory (ABT_MUTEX_INITIALIZER ...), and objects made
 * before ABT_init or after ABT_finalize. A last line counts the unit descriptors, key tables and
 * key chunks the runtime did not get back, if any. Nothing is printed when nothing leaked.
 * ABT_finalize still returns ABT_SUCCESS and the exit status is unchanged, unless
 * GOABT_CHECK_LEAKS=fatal: then a process whose report listed something exits with status 23
 * (LeakSanitizer's) when it exits (an atexit handler goabt registers when it loads, so the
 * program's own run first, and ends the process with _exit after flushing stdio). With the
 * variable unset, 0, no, off or false, nothing is recorded: each create and free costs one
 * load and one branch not taken. */
ABT_API_PUBLIC int ABT_finalize(void);

/* Return ABT_SUCCESS between ABT_init and its matching ABT_finalize, ABT_ERR_UNINITIALIZED
 * otherwise; callable at any time, from any thread. */
ABT_API_PUBLIC int ABT_initialized(void);

/* Fork (goabt's). A process may fork at any time; what its child can do depends on when.
 *   - Forked before the process first used goabt (its first ABT_init, key or OPAL class), the
 *     child uses goabt as any process does: it starts its own runtime.
 *   - Forked after that, nothing of goabt runs in the child: goabt runs on a Go runtime, which
 *     does not survive fork, and the threads that ran the parent's execution streams did not
 *     come along. No call hangs or aborts there, and every call fails: ABT_init returns
 *     ABT_ERR_OTHER and says why in one line on stderr (once per process); ABT_initialized,
 *     ABT_finalize and every call that takes no handle return ABT_ERR_UNINITIALIZED; a call
 *     that takes a handle returns ABT_ERR_UNINITIALIZED or the invalid-handle error of its kind
 *     (ABT_ERR_INV_THREAD, ABT_ERR_INV_POOL, ABT_ERR_INV_MUTEX ...: the latter from the calls
 *     that Argobots lets run without the runtime, on synchronization objects, attributes,
 *     timers and configurations, and the queries that read an object): every handle the child
 *     inherited is invalid there, static mutexes (ABT_MUTEX_INITIALIZER) included, whatever
 *     state the parent's object was in (held, waited for). Only the comparisons ABT_*_equal,
 *     which compare handle values, and ABT_get_wtime still answer. The child runs on whatever
 *     stack fork was called from, outside any execution stream: when the function of the ULT
 *     or tasklet it was forked inside returns, the child exits with status 0, as a process whose
 *     last thread returns (it must not return into goabt from a scheduler's, pool's or tool's
 *     function it was forked in). OPAL objects work there (opal_object.h).
 * Native Argobots also lets a child forked after the parent's ABT_finalize start its own
 * runtime; goabt does not. */

/* ---------------------------------------------------------------------------------------------
 * Execution streams
 *
 * An execution stream is an OS thread that runs its main scheduler. The primary one is created
 * by ABT_init; secondary ones are created, joined and freed by the program. Ranks are small
 * distinct integers naming the streams.
 * ------------------------------------------------------------------------------------------- */

/* State of an execution stream. */
enum ABT_xstream_state {
    ABT_XSTREAM_STATE_RUNNING,   /* created and not terminated */
    ABT_XSTREAM_STATE_TERMINATED /* its main scheduler has returned */
};
typedef enum ABT_xstream_state ABT_xstream_state;

/* Start a secondary execution stream (a new OS thread) whose main scheduler is sched, with the
 * lowest free rank; ABT_SCHED_NULL gives a basic scheduler over one new FIFO pool (the Go pool
 * GOABT_POOL names and the Go policy GOABT_SCHED names instead, when set: goabt.h).
 * ABT_ERR_INV_SCHED when sched is invalid or already a stream's main scheduler, ABT_ERR_INV_ARG
 * when newxstream is NULL; on error *newxstream is ABT_XSTREAM_NULL. */
ABT_API_PUBLIC int ABT_xstream_create(ABT_sched sched, ABT_xstream *newxstream);

/* ABT_sched_create_basic(predef, num_pools, pools, config) followed by ABT_xstream_create with that
 * scheduler, which is freed with the stream; config is ignored. Returns the errors of either
 * step. */
ABT_API_PUBLIC int ABT_xstream_create_basic(ABT_sched_predef predef, int num_pools, ABT_pool *pools,
                                            ABT_sched_config config, ABT_xstream *newxstream);

/* Like ABT_xstream_create, but the new execution stream gets the given rank;
 * ABT_ERR_INV_XSTREAM_RANK when the rank is negative or taken. */
ABT_API_PUBLIC int ABT_xstream_create_with_rank(ABT_sched sched, int rank, ABT_xstream *newxstream);

/* Join the execution stream *xstream, free it with its main scheduler (and that scheduler's
 * automatic pools), release its rank and set *xstream to ABT_XSTREAM_NULL. ABT_ERR_INV_XSTREAM for
 * a NULL pointer, an invalid handle, the primary stream or the caller's own; a calling ULT yields
 * while it waits. */
ABT_API_PUBLIC int ABT_xstream_free(ABT_xstream *xstream);

/* Ask xstream to finish once its pools are empty and wait until its scheduler has returned.
 * ABT_ERR_INV_XSTREAM for an invalid handle, the primary stream or the caller's own; a calling ULT
 * yields while it waits, so its own stream keeps running work, other callers sleep. */
ABT_API_PUBLIC int ABT_xstream_join(ABT_xstream xstream);

/* Restart the terminated execution stream xstream, joined but not freed, with the main scheduler
 * it had; it runs what was left in its pools. ABT_ERR_INV_XSTREAM for an invalid handle, the
 * primary stream, the caller's own, or a stream not yet joined. */
ABT_API_PUBLIC int ABT_xstream_revive(ABT_xstream xstream);

/* End the calling ULT (it does not return) and its execution stream: the stream's scheduler
 * stops at once, leaving what is in its pools there (ABT_xstream_join then returns;
 * ABT_xstream_revive runs it again). ABT_ERR_INV_XSTREAM from an external thread or on the primary
 * stream, ABT_ERR_INV_THREAD from a tasklet. */
ABT_API_PUBLIC int ABT_xstream_exit(void);

/* Stop xstream's main scheduler at its next scheduling point, whatever is left in its pools: the
 * stream terminates (ABT_xstream_join then returns; ABT_xstream_revive runs it again).
 * ABT_ERR_INV_XSTREAM for an invalid handle or the primary stream. */
ABT_API_PUBLIC int ABT_xstream_cancel(ABT_xstream xstream);

/* Return the execution stream running the caller in *xstream (a work unit, or a scheduler's run
 * function); ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_ARG when xstream is NULL. */
ABT_API_PUBLIC int ABT_xstream_self(ABT_xstream *xstream);

/* Return the rank of the execution stream running the caller in *rank (a work unit, or a
 * scheduler's run function); ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_ARG when
 * rank is NULL. */
ABT_API_PUBLIC int ABT_xstream_self_rank(int *rank);

/* Move the secondary execution stream xstream to rank (and, with ABT_SET_AFFINITY, to the CPUs it
 * picks, in place of any ABT_xstream_set_cpubind or _set_affinity); ABT_ERR_INV_XSTREAM for an invalid handle or the primary stream (whose rank stays 0),
 * ABT_ERR_INV_XSTREAM_RANK when rank is negative or held by another stream. */
ABT_API_PUBLIC int ABT_xstream_set_rank(ABT_xstream xstream, int rank);

/* Return the rank of xstream in *rank (the primary execution stream has rank 0);
 * ABT_ERR_INV_XSTREAM for an invalid handle, ABT_ERR_INV_ARG when rank is NULL. */
ABT_API_PUBLIC int ABT_xstream_get_rank(ABT_xstream xstream, int *rank);

/* Make sched (ABT_SCHED_NULL: a new default one) the main scheduler of xstream; the stream's loop
 * takes it up at its next round. A running stream can only be changed by a ULT running on it
 * (else ABT_ERR_XSTREAM_STATE); the caller and the units queued in pools that go away with an
 * automatic old scheduler move to the new scheduler's first pool. An old user scheduler's run
 * function that is still running (below the caller) sees ABT_sched_has_to_stop and returns at
 * its next look, and only then is the old scheduler freed if it is automatic; one that ran the
 * primary's main ULT, the caller, returns before this does (the caller yields to it meanwhile).
 * ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_THREAD from a tasklet,
 * ABT_ERR_INV_SCHED for a scheduler in use, or one without pools for the caller's own stream
 * (the caller would have no pool to go on in; native Argobots crashes at its next yield). */
ABT_API_PUBLIC int ABT_xstream_set_main_sched(ABT_xstream xstream, ABT_sched sched);

/* Make a new predefined scheduler predef over num_pools pools (pools may be NULL: new pools) the
 * main scheduler of xstream, as ABT_sched_create_basic then ABT_xstream_set_main_sched; the new
 * scheduler is freed again if the change is refused. */
ABT_API_PUBLIC int ABT_xstream_set_main_sched_basic(ABT_xstream xstream, ABT_sched_predef predef,
                                                    int num_pools, ABT_pool *pools);

/* Return the main scheduler of xstream in *sched; ABT_ERR_INV_XSTREAM for an invalid handle,
 * ABT_ERR_INV_ARG when sched is NULL. */
ABT_API_PUBLIC int ABT_xstream_get_main_sched(ABT_xstream xstream, ABT_sched *sched);

/* Copy the first max_pools pools of xstream's main scheduler into pools; entries past its number of
 * pools are left alone. ABT_ERR_INV_ARG when max_pools is negative, or positive with a NULL
 * pools. */
ABT_API_PUBLIC int ABT_xstream_get_main_pools(ABT_xstream xstream, int max_pools, ABT_pool *pools);

/* Return in *state ABT_XSTREAM_STATE_RUNNING, or ABT_XSTREAM_STATE_TERMINATED once a join has
 * stopped xstream's scheduler; ABT_ERR_INV_XSTREAM for an invalid handle. */
ABT_API_PUBLIC int ABT_xstream_get_state(ABT_xstream xstream, ABT_xstream_state *state);

/* Set *result to ABT_TRUE when xstream1 and xstream2 are the same handle, ABT_FALSE otherwise; the
 * handles are not checked. ABT_ERR_INV_ARG when result is NULL. */
ABT_API_PUBLIC int ABT_xstream_equal(ABT_xstream xstream1, ABT_xstream xstream2, ABT_bool *result);

/* Return in *num_xstreams the number of execution streams alive now, the primary one included;
 * ABT_ERR_INV_ARG when num_xstreams is NULL. */
ABT_API_PUBLIC int ABT_xstream_get_num(int *num_xstreams);

/* Set *is_primary to ABT_TRUE when xstream is the primary execution stream (the one ABT_init ran
 * on); ABT_ERR_INV_XSTREAM for an invalid handle. */
ABT_API_PUBLIC int ABT_xstream_is_primary(ABT_xstream xstream, ABT_bool *is_primary);

/* Run unit, just popped from pool, on the calling scheduler's execution stream; returns when the
 * unit yields, blocks or finishes (the unit goes back to pool when it yields). For schedulers'
 * run functions, a stacked scheduler's included (ABT_pool_add_sched); from any other ULT the
 * unit runs on top of the caller, which goes on once the unit yields, blocks or finishes.
 * ABT_ERR_INV_UNIT for an invalid handle and (goabt) a unit that is not ready or still in a
 * pool, ABT_ERR_INV_POOL, ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_THREAD from a
 * tasklet. The main ULT is resumed by the primary stream's own scheduler only: any other caller
 * hands it over to that one (a ULT on the primary yields meanwhile, so that it notices). */
ABT_API_PUBLIC int ABT_xstream_run_unit(ABT_unit unit, ABT_pool pool);

/* Let the runtime handle what is pending for the calling scheduler sched (due timed waits, the
 * main ULT handed over to the primary stream, which may resume it from here); run functions
 * call it periodically. Called on a ULT (a stacked scheduler's run), it yields the ULT when the
 * scheduler below must run: the main ULT was handed back to the primary, or sched is stacked
 * and its pools hold only blocked ULTs, or only a stacked scheduler that just yielded for that
 * reason (what wakes them may need that scheduler). From a
 * tasklet it only fires due timed waits. ABT_ERR_INV_SCHED for an invalid handle,
 * ABT_ERR_INV_XSTREAM from an external thread. */
ABT_API_PUBLIC int ABT_xstream_check_events(ABT_sched sched);

/* CPU binding. A CPU id is the operating system's CPU number (as in sched_setaffinity). Binding
 * a stream binds its OS thread, at once, whichever stream calls: the caller's own, another one,
 * the primary. The getters read the thread's CPU mask, so they also see what a ULT set with
 * sched_setaffinity; while no thread runs xstream (before it starts, after a join) they report
 * the CPUs it will run on, and a binding set then is taken up when its thread starts. A CPU is
 * refused (ABT_ERR_CPUID, the old binding kept) unless the process could use it at ABT_init
 * (the main thread's CPU mask then: what taskset or a batch system left it) and the kernel
 * accepts it now (not offline, inside the process's cpuset). ABT_SET_AFFINITY (docs/using.md) binds
 * each stream at its start by rank; ABT_xstream_set_rank rebinds by rank then.
 * The four functions below work only while ABT_SET_AFFINITY binds streams (yes or a CPU list at
 * ABT_init), which is when ABT_INFO_QUERY_KIND_ENABLED_AFFINITY answers ABT_TRUE; otherwise,
 * for a valid stream, they return ABT_ERR_FEATURE_NA, as a default Argobots build (built without
 * affinity support) does; get_affinity and set_affinity check their other arguments first. */

/* Bind xstream to the CPU cpuid alone. ABT_ERR_INV_XSTREAM for an invalid handle, ABT_ERR_CPUID
 * for a CPU that is negative, past CPU_SETSIZE or refused, ABT_ERR_SYS when the system call
 * fails otherwise. */
ABT_API_PUBLIC int ABT_xstream_set_cpubind(ABT_xstream xstream, int cpuid);

/* Return in *cpuid the CPU xstream is bound to; bound to several, the lowest of them.
 * ABT_ERR_INV_XSTREAM for an invalid handle, ABT_ERR_INV_ARG when cpuid is NULL,
 * ABT_ERR_FEATURE_NA if it is bound to no CPU (Argobots 1.x's code; never on Linux, where a
 * thread runs somewhere), ABT_ERR_SYS when the system call fails. */
ABT_API_PUBLIC int ABT_xstream_get_cpubind(ABT_xstream xstream, int *cpuid);

/* Bind xstream to the num_cpuids CPUs listed in cpuids (duplicates count once); num_cpuids 0
 * undoes its binding: it may run on every CPU the main thread could use at ABT_init.
 * ABT_ERR_INV_XSTREAM for an invalid handle, ABT_ERR_INV_ARG when num_cpuids is negative or
 * positive with a NULL cpuids, ABT_ERR_CPUID when any CPU is negative, past CPU_SETSIZE or
 * refused (then nothing changes), ABT_ERR_SYS when the system call fails otherwise. */
ABT_API_PUBLIC int ABT_xstream_set_affinity(ABT_xstream xstream, int num_cpuids, int *cpuids);

/* Write the CPUs xstream is bound to, in increasing order, into cpuids, at most max_cpuids of
 * them (entries past those are left alone), and their total number into *num_cpuids unless it is
 * NULL. ABT_ERR_INV_XSTREAM for an invalid handle, ABT_ERR_INV_ARG when max_cpuids is negative or
 * positive with a NULL cpuids, ABT_ERR_FEATURE_NA if it is bound to no CPU (as get_cpubind),
 * ABT_ERR_SYS when the system call fails. */
ABT_API_PUBLIC int ABT_xstream_get_affinity(ABT_xstream xstream, int max_cpuids, int *cpuids,
                                            int *num_cpuids);

/* --- Barriers of execution streams. */

/* Create in *newbarrier a barrier that opens each time num_waiters callers wait on it, before
 * ABT_init too; *newbarrier is ABT_XSTREAM_BARRIER_NULL on error. ABT_ERR_INV_ARG when num_waiters is 0 or newbarrier
 * NULL, ABT_ERR_MEM when out of memory. */
ABT_API_PUBLIC int ABT_xstream_barrier_create(uint32_t num_waiters,
                                              ABT_xstream_barrier *newbarrier);

/* Free the execution-stream barrier *barrier and set *barrier to ABT_XSTREAM_BARRIER_NULL.
 * ABT_ERR_INV_XSTREAM_BARRIER for an invalid handle, ABT_ERR_INV_ARG when barrier is NULL.
 * While callers wait on it, goabt refuses with ABT_ERR_XSTREAM_BARRIER (undefined in Argobots). */
ABT_API_PUBLIC int ABT_xstream_barrier_free(ABT_xstream_barrier *barrier);

/* Wait until num_waiters callers wait on barrier, then return in all of them; the barrier is
 * then ready for the next round. The caller blocks its whole execution stream, whether it is a
 * ULT (the main ULT too) or a tasklet: the stream runs no other work unit meanwhile. External
 * threads may wait too. ABT_ERR_INV_XSTREAM_BARRIER for an invalid handle. */
ABT_API_PUBLIC int ABT_xstream_barrier_wait(ABT_xstream_barrier barrier);

/* ---------------------------------------------------------------------------------------------
 * Schedulers
 *
 * A scheduler owns a list of pools and a run function that pops work units from them and runs
 * them. Predefined schedulers are created by kind (ABT_sched_predef); user-defined ones from an
 * ABT_sched_def. A scheduler configuration passes settings to a scheduler's init function.
 * ------------------------------------------------------------------------------------------- */

/* Unused by any function; kept for source compatibility. */
enum ABT_sched_state {
    ABT_SCHED_STATE_READY,
    ABT_SCHED_STATE_RUNNING,
    ABT_SCHED_STATE_STOPPED,
    ABT_SCHED_STATE_TERMINATED
};
typedef enum ABT_sched_state ABT_sched_state;

/* Kind of work unit a scheduler runs as; ignored, schedulers always run as ULTs. */
enum ABT_sched_type {
    ABT_SCHED_TYPE_ULT,
    ABT_SCHED_TYPE_TASK
};
typedef enum ABT_sched_type ABT_sched_type;

/* Type of a value in a scheduler configuration. */
typedef enum {
    ABT_SCHED_CONFIG_INT = 0,    /* int */
    ABT_SCHED_CONFIG_DOUBLE = 1, /* double */
    ABT_SCHED_CONFIG_PTR = 2     /* void * */
} ABT_sched_config_type;

/* A scheduler configuration variable: an index (negative ones are the runtime's) and a type. */
typedef struct {
    int idx;
    ABT_sched_config_type type;
} ABT_sched_config_var;

/* Predefined scheduler configuration variables, all of type int. ABT_sched_config_var_end closes
 * the list of ABT_sched_config_create; ABT_sched_basic_freq is how often the predefined
 * schedulers check for events; ABT_sched_config_access is ignored; ABT_sched_config_automatic
 * non-zero frees the scheduler with the last object that uses it. */
ABT_API_PUBLIC extern ABT_sched_config_var ABT_sched_config_var_end;
ABT_API_PUBLIC extern ABT_sched_config_var ABT_sched_basic_freq;
ABT_API_PUBLIC extern ABT_sched_config_var ABT_sched_config_access;
ABT_API_PUBLIC extern ABT_sched_config_var ABT_sched_config_automatic;

/* The functions of a user-defined scheduler: init (optional) gets the scheduler's configuration,
 * run is its scheduling loop, free (optional) runs when it is freed, get_migr_pool (optional)
 * chooses the pool that receives migrating work units. */
typedef int (*ABT_sched_init_fn)(ABT_sched, ABT_sched_config);
typedef void (*ABT_sched_run_fn)(ABT_sched);
typedef int (*ABT_sched_free_fn)(ABT_sched);
typedef ABT_pool (*ABT_sched_get_migr_pool_fn)(ABT_sched);

/* Definition of a user-defined scheduler (type is ignored: ABT_SCHED_TYPE_ULT and _TASK
 * schedulers behave alike). */
typedef struct {
    ABT_sched_type type;
    ABT_sched_init_fn init;
    ABT_sched_run_fn run;
    ABT_sched_free_fn free;
    ABT_sched_get_migr_pool_fn get_migr_pool;
} ABT_sched_def;

/* Create a user-defined scheduler from def over num_pools pools (at most 64; ABT_POOL_NULL
 * entries, or pools NULL: new FIFO pools, or GOABT_POOL's Go pools, freed with it), calling def->init with config (its
 * error is returned, and def->free is not called). Not freed automatically unless config sets
 * ABT_sched_config_automatic. A stream whose main scheduler it is calls def->run, which pops
 * units and runs them with ABT_xstream_run_unit (or ABT_self_schedule) until
 * ABT_sched_has_to_stop says so; def->free runs when the scheduler is freed. A call of run
 * goes on where it left off after each unit it runs until it returns, also on the primary
 * stream, where it runs the main ULT like any unit (on a 4 MiB stack of its own there: a call
 * is never abandoned). Self queries there answer for the scheduler as a ULT; run may block on
 * any synchronization object (mutex, cond, rwlock, barrier, eventual, future) or join, as a ULT
 * may, and its stream runs nothing else until it is woken. ABT_ERR_INV_ARG when newsched, def
 * or def->run is NULL or num_pools is out of range, ABT_ERR_INV_POOL, ABT_ERR_MEM; *newsched
 * is ABT_SCHED_NULL on error. */
ABT_API_PUBLIC int ABT_sched_create(ABT_sched_def *def, int num_pools, ABT_pool *pools,
                                    ABT_sched_config config, ABT_sched *newsched);

/* Create the predefined scheduler predef (ABT_SCHED_DEFAULT is ABT_SCHED_BASIC) over num_pools
 * pools, at most 64; pools NULL gives new pools (three for ABT_SCHED_PRIO, else one) and
 * ABT_POOL_NULL entries new ones (GOABT_POOL's Go pool when set). With GOABT_SCHED set, the Go
 * policy it names picks the pool to pop instead of the first non-empty one (goabt.h). config is ignored: every kind takes from its first non-empty pool
 * in order, and the scheduler is always freed with the stream that uses it. ABT_ERR_INV_ARG when
 * num_pools is 0 with pools not NULL (a scheduler with no pool could never run a unit; native
 * Argobots accepts it and its stream dies at the first push), or out of range. */
ABT_API_PUBLIC int ABT_sched_create_basic(ABT_sched_predef predef, int num_pools, ABT_pool *pools,
                                          ABT_sched_config config, ABT_sched *newsched);

/* Free the scheduler *sched (with its automatic pools that no other scheduler uses) and set *sched
 * to ABT_SCHED_NULL. ABT_ERR_INV_SCHED for a NULL pointer or invalid handle, ABT_ERR_SCHED while it
 * is an execution stream's main scheduler, or was replaced as one while its run function ran and
 * that run has not returned yet. */
ABT_API_PUBLIC int ABT_sched_free(ABT_sched *sched);

/* Attach the user pointer data to sched, typically from its init function. ABT_ERR_INV_SCHED for an
 * invalid handle. */
ABT_API_PUBLIC int ABT_sched_set_data(ABT_sched sched, void *data);

/* Return the user pointer attached to sched in *data (NULL if none). ABT_ERR_INV_SCHED for an
 * invalid handle, ABT_ERR_INV_ARG when data is NULL. */
ABT_API_PUBLIC int ABT_sched_get_data(ABT_sched sched, void **data);

/* Return the number of pools of sched in *num_pools; ABT_ERR_INV_SCHED for an invalid handle,
 * ABT_ERR_INV_ARG when num_pools is NULL. */
ABT_API_PUBLIC int ABT_sched_get_num_pools(ABT_sched sched, int *num_pools);

/* Copy max_pools pools of sched, starting at pool index idx, into pools. ABT_ERR_SCHED when that
 * range passes the last pool, ABT_ERR_INV_ARG for a negative count or index, or a positive count
 * with a NULL pools. */
ABT_API_PUBLIC int ABT_sched_get_pools(ABT_sched sched, int max_pools, int idx, ABT_pool *pools);

/* Return in *size the number of work units waiting in the pools of sched. ABT_ERR_INV_SCHED for an
 * invalid handle, ABT_ERR_INV_ARG when size is NULL, ABT_ERR_POOL when a user pool of it has no
 * get_size. */
ABT_API_PUBLIC int ABT_sched_get_size(ABT_sched sched, size_t *size);

/* Return in *size the number of work units belonging to the pools of sched: waiting, and blocked
 * in a wait (goabt does not count running ones). Errors as ABT_sched_get_size. */
ABT_API_PUBLIC int ABT_sched_get_total_size(ABT_sched sched, size_t *size);

/* Ask sched to stop once its pools are empty (ABT_sched_has_to_stop then says so); a secondary
 * stream ends with its main scheduler. ABT_ERR_INV_SCHED for an invalid handle. */
ABT_API_PUBLIC int ABT_sched_finish(ABT_sched sched);

/* Ask sched to stop at once, whatever is left in its pools. ABT_ERR_INV_SCHED for an invalid
 * handle. */
ABT_API_PUBLIC int ABT_sched_exit(ABT_sched sched);

/* Set *stop to ABT_TRUE when the scheduler sched must return from its run function: exit was
 * asked, or finish was asked (of sched, or of its stream: ABT_xstream_join, ABT_finalize) and
 * its pools hold no work, or its stream has another main scheduler now. ABT_ERR_INV_SCHED for an
 * invalid handle, ABT_ERR_INV_ARG when stop is NULL. */
ABT_API_PUBLIC int ABT_sched_has_to_stop(ABT_sched sched, ABT_bool *stop);

/* --- Scheduler configurations. */

/* Build a scheduler configuration from (ABT_sched_config_var, value) pairs given after config
 * and ended by ABT_sched_config_var_end; values are passed as int, double or pointer according
 * to the variable's type. ABT_ERR_INV_ARG for an unknown type or a NULL config. */
ABT_API_PUBLIC int ABT_sched_config_create(ABT_sched_config *config, ...);

/* Copy the values stored at indices 0 to num_vars-1 of config into the variables whose addresses
 * follow num_vars; absent indices leave their variable alone. ABT_ERR_INV_SCHED_CONFIG for an
 * invalid config. */
ABT_API_PUBLIC int ABT_sched_config_read(ABT_sched_config config, int num_vars, ...);

/* Free the scheduler configuration *config and set *config to ABT_SCHED_CONFIG_NULL. */
ABT_API_PUBLIC int ABT_sched_config_free(ABT_sched_config *config);

/* Store the value *val of type type at index idx of config, replacing any previous one; val NULL
 * removes the entry. */
ABT_API_PUBLIC int ABT_sched_config_set(ABT_sched_config config, int idx,
                                        ABT_sched_config_type type, const void *val);

/* Read the value at index idx of config into *val and its type into *p_type (either may be
 * NULL); ABT_ERR_INV_ARG when absent. */
ABT_API_PUBLIC int ABT_sched_config_get(ABT_sched_config config, int idx,
                                        ABT_sched_config_type *p_type, void *val);

/* ---------------------------------------------------------------------------------------------
 * Pools
 *
 * A pool holds ready work units for the schedulers that use it. Predefined pools are created by
 * kind and access mode; user-defined ones from an ABT_pool_user_def built with the
 * ABT_pool_user_def_* functions (or, the older way, from a struct ABT_pool_def), whose functions
 * goabt calls for every push and pop, from any stream or thread. Work units can also be moved by
 * hand: popped out of one pool (they stay ready, in no pool) and pushed into another.
 * ------------------------------------------------------------------------------------------- */

/* Predefined pools. */
enum ABT_pool_kind {
    ABT_POOL_FIFO,      /* first in, first out */
    ABT_POOL_FIFO_WAIT, /* first in, first out; a pop on an empty pool may sleep a while */
    ABT_POOL_RANDWS     /* a work-stealing deque: owners pop one end, thieves the other */
};
typedef enum ABT_pool_kind ABT_pool_kind;

/* Who may push to and pop from a pool: one or several execution streams on each side. */
enum ABT_pool_access {
    ABT_POOL_ACCESS_PRIV, /* one execution stream does both */
    ABT_POOL_ACCESS_SPSC, /* one producer stream, one consumer stream */
    ABT_POOL_ACCESS_MPSC, /* several producers, one consumer */
    ABT_POOL_ACCESS_SPMC, /* one producer, several consumers */
    ABT_POOL_ACCESS_MPMC  /* no restriction */
};
typedef enum ABT_pool_access ABT_pool_access;

/* Type of a value in a pool configuration. */
typedef enum {
    ABT_POOL_CONFIG_INT = 0,    /* int */
    ABT_POOL_CONFIG_DOUBLE = 1, /* double */
    ABT_POOL_CONFIG_PTR = 2     /* void * */
} ABT_pool_config_type;

/* A pool configuration variable: a key (negative ones are the runtime's) and a type. */
typedef struct {
    int key;
    ABT_pool_config_type type;
} ABT_pool_config_var;

/* Predefined pool configuration variable of type int: non-zero frees the pool with the last
 * scheduler that uses it. */
ABT_API_PUBLIC extern const ABT_pool_config_var ABT_pool_config_automatic;

/* A hint passed to a pool's push and pop functions: an OR of at most one PRIO, one OWNER and one
 * OP flag, telling the pool why it is called. goabt tells a user pool's push OP_THREAD_CREATE
 * (ABT_thread_create ...), OP_THREAD_CREATE_TO, OP_THREAD_YIELD, OP_THREAD_YIELD_TO,
 * OP_THREAD_RESUME_YIELD_TO, OP_THREAD_RESUME (a blocked or suspended ULT made ready), the
 * caller's hint (ABT_pool_push_thread_ex ...) or OP_POOL_OTHER; its pop OWNER_PRIMARY from the
 * scheduler whose pool it is, OWNER_SECONDARY from a random work-stealing scheduler stealing,
 * or the caller's hint. */
typedef uint64_t ABT_pool_context;
#define ABT_POOL_CONTEXT_PRIO_DEFAULT_PRIO ((ABT_pool_context)0x0)
#define ABT_POOL_CONTEXT_PRIO_HIGH_PRIO ((ABT_pool_context)0x1)
#define ABT_POOL_CONTEXT_PRIO_LOW_PRIO ((ABT_pool_context)0x2)
#define ABT_POOL_CONTEXT_OWNER_DEFAULT ((ABT_pool_context)0x0)
#define ABT_POOL_CONTEXT_OWNER_PRIMARY ((ABT_pool_context)0x100)
#define ABT_POOL_CONTEXT_OWNER_SECONDARY ((ABT_pool_context)0x200)
#define ABT_POOL_CONTEXT_OP_POOL_OTHER ((ABT_pool_context)0x0)
#define ABT_POOL_CONTEXT_OP_THREAD_CREATE ((ABT_pool_context)0x1000)
#define ABT_POOL_CONTEXT_OP_THREAD_CREATE_TO ((ABT_pool_context)0x2000)
#define ABT_POOL_CONTEXT_OP_THREAD_REVIVE ((ABT_pool_context)0x4000)
#define ABT_POOL_CONTEXT_OP_THREAD_REVIVE_TO ((ABT_pool_context)0x8000)
#define ABT_POOL_CONTEXT_OP_THREAD_YIELD ((ABT_pool_context)0x10000)
#define ABT_POOL_CONTEXT_OP_THREAD_YIELD_TO ((ABT_pool_context)0x20000)
#define ABT_POOL_CONTEXT_OP_THREAD_RESUME_YIELD_TO ((ABT_pool_context)0x40000)
#define ABT_POOL_CONTEXT_OP_THREAD_YIELD_LOOP ((ABT_pool_context)0x80000)
#define ABT_POOL_CONTEXT_OP_THREAD_RESUME ((ABT_pool_context)0x100000)
#define ABT_POOL_CONTEXT_OP_THREAD_MIGRATE ((ABT_pool_context)0x200000)

/* The functions of a user-defined pool (ABT_pool_user_def_create and ABT_pool_user_def_set_*):
 * create_unit wraps a work unit into a pool unit and free_unit releases it; is_empty, pop and
 * push are mandatory; the others are optional. */
typedef ABT_unit (*ABT_pool_user_create_unit_fn)(ABT_pool, ABT_thread);
typedef void (*ABT_pool_user_free_unit_fn)(ABT_pool, ABT_unit);
typedef ABT_bool (*ABT_pool_user_is_empty_fn)(ABT_pool);
typedef ABT_thread (*ABT_pool_user_pop_fn)(ABT_pool, ABT_pool_context);
typedef void (*ABT_pool_user_push_fn)(ABT_pool, ABT_unit, ABT_pool_context);
typedef int (*ABT_pool_user_init_fn)(ABT_pool, ABT_pool_config);
typedef void (*ABT_pool_user_free_fn)(ABT_pool);
typedef size_t (*ABT_pool_user_get_size_fn)(ABT_pool);
typedef ABT_thread (*ABT_pool_user_pop_wait_fn)(ABT_pool, double, ABT_pool_context);
typedef void (*ABT_pool_user_pop_many_fn)(ABT_pool, ABT_thread *, size_t, size_t *,
                                          ABT_pool_context);
typedef void (*ABT_pool_user_push_many_fn)(ABT_pool, const ABT_unit *, size_t, ABT_pool_context);
typedef void (*ABT_pool_user_print_all_fn)(ABT_pool, void *, void (*)(void *, ABT_thread));

/* The functions of a pool defined the older way, through struct ABT_pool_def: u_* handle pool
 * units, p_* the pool itself. */
typedef ABT_unit_type (*ABT_unit_get_type_fn)(ABT_unit);
typedef ABT_thread (*ABT_unit_get_thread_fn)(ABT_unit);
typedef ABT_task (*ABT_unit_get_task_fn)(ABT_unit);
typedef ABT_bool (*ABT_unit_is_in_pool_fn)(ABT_unit);
typedef ABT_unit (*ABT_unit_create_from_thread_fn)(ABT_thread);
typedef ABT_unit (*ABT_unit_create_from_task_fn)(ABT_task);
typedef void (*ABT_unit_free_fn)(ABT_unit *);
typedef int (*ABT_pool_init_fn)(ABT_pool, ABT_pool_config);
typedef size_t (*ABT_pool_get_size_fn)(ABT_pool);
typedef void (*ABT_pool_push_fn)(ABT_pool, ABT_unit);
typedef ABT_unit (*ABT_pool_pop_fn)(ABT_pool);
typedef ABT_unit (*ABT_pool_pop_wait_fn)(ABT_pool, double);
typedef ABT_unit (*ABT_pool_pop_timedwait_fn)(ABT_pool, double);
typedef int (*ABT_pool_remove_fn)(ABT_pool, ABT_unit);
typedef int (*ABT_pool_free_fn)(ABT_pool);
typedef int (*ABT_pool_print_all_fn)(ABT_pool, void *, void (*)(void *, ABT_unit));

/* The older pool definition; an ABT_pool_user_def may point to one. */
struct ABT_pool_def {
    ABT_pool_access access;
    ABT_unit_get_type_fn u_get_type;
    ABT_unit_get_thread_fn u_get_thread;
    ABT_unit_get_task_fn u_get_task;
    ABT_unit_is_in_pool_fn u_is_in_pool;
    ABT_unit_create_from_thread_fn u_create_from_thread;
    ABT_unit_create_from_task_fn u_create_from_task;
    ABT_unit_free_fn u_free;
    ABT_pool_init_fn p_init;
    ABT_pool_get_size_fn p_get_size;
    ABT_pool_push_fn p_push;
    ABT_pool_pop_fn p_pop;
    ABT_pool_pop_timedwait_fn p_pop_timedwait;
    ABT_pool_remove_fn p_remove;
    ABT_pool_free_fn p_free;
    ABT_pool_print_all_fn p_print_all;
};
typedef struct ABT_pool_def ABT_pool_def;

/* Create a pool from the user definition def: one made with ABT_pool_user_def_create (access
 * ABT_POOL_ACCESS_MPMC), or the address of a struct ABT_pool_def (its access, and at least
 * u_create_from_thread, u_free, p_get_size, p_push and p_pop). The definition is copied. Its
 * init function, if any, is called with the new pool and config (ABT_POOL_CONFIG_NULL: none),
 * and its error returned, the pool not made; ABT_pool_config_automatic in config (default 0)
 * frees the pool with the last scheduler that uses it. goabt asks create_unit for a pool unit
 * the first time a work unit goes into the pool and gives it back with free_unit when the work
 * unit is freed or moves to another pool (a pool freed first gets none for the finished work
 * units it leaves; nothing of it is read then); pop_wait gets the seconds the caller asked for;
 * a pop that returns ABT_UNIT_NULL (as drafts of this interface did) counts as an empty pool.
 * The pool's functions may be called from any stream or thread, and must not switch context. ABT_ERR_UNINITIALIZED outside ABT_init,
 * ABT_ERR_INV_ARG when newpool is NULL, ABT_ERR_INV_POOL_USER_DEF for an invalid definition,
 * ABT_ERR_INV_POOL_CONFIG for an invalid config, ABT_ERR_MEM; *newpool is ABT_POOL_NULL on
 * error. */
ABT_API_PUBLIC int ABT_pool_create(ABT_pool_user_def def, ABT_pool_config config,
                                   ABT_pool *newpool);

/* Create a predefined pool; automatic ABT_TRUE frees it with the last scheduler that uses it.
 * ABT_POOL_RANDWS is served as a FIFO, and access is only a hint: every goabt pool is safe for any
 * producers and consumers. With GOABT_POOL set, the pool is the Go pool it names, whatever kind
 * is asked for (goabt.h). ABT_ERR_INV_POOL_KIND or ABT_ERR_INV_POOL_ACCESS for an unknown value,
 * ABT_ERR_INV_ARG when newpool is NULL. */
ABT_API_PUBLIC int ABT_pool_create_basic(ABT_pool_kind kind, ABT_pool_access access,
                                         ABT_bool automatic, ABT_pool *newpool);

/* Free the pool *pool and set *pool to ABT_POOL_NULL. ABT_ERR_INV_POOL for a NULL pointer or
 * invalid handle; goabt refuses with ABT_ERR_POOL a pool that a scheduler still uses, that still
 * holds work units, or that ULTs parked in a wait (join, mutex ...) belong to. */
ABT_API_PUBLIC int ABT_pool_free(ABT_pool *pool);

/* Return in *access the access mode given when pool was created; ABT_ERR_INV_POOL for an invalid
 * handle, ABT_ERR_INV_ARG when access is NULL. */
ABT_API_PUBLIC int ABT_pool_get_access(ABT_pool pool, ABT_pool_access *access);

/* Set *is_empty to ABT_TRUE when no work unit waits in pool, ABT_FALSE otherwise (a user pool's
 * is_empty answers, or an older pool's p_get_size); ABT_ERR_INV_POOL for an invalid handle,
 * ABT_ERR_INV_ARG when is_empty is NULL. */
ABT_API_PUBLIC int ABT_pool_is_empty(ABT_pool pool, ABT_bool *is_empty);

/* Return in *size the number of work units waiting in pool; ABT_ERR_INV_POOL for an invalid handle,
 * ABT_ERR_INV_ARG when size is NULL, ABT_ERR_POOL for a user pool without get_size. */
ABT_API_PUBLIC int ABT_pool_get_size(ABT_pool pool, size_t *size);

/* Return in *size the number of work units waiting in pool plus its ULTs blocked in a wait (join,
 * mutex ...; goabt does not count running ones). ABT_ERR_INV_POOL for an invalid handle,
 * ABT_ERR_INV_ARG when size is NULL, ABT_ERR_POOL for a user pool without get_size. */
ABT_API_PUBLIC int ABT_pool_get_total_size(ABT_pool pool, size_t *size);

/* Take one work unit out of pool into *thread; ABT_THREAD_NULL when the pool is empty. The unit
 * is ready and in no pool: run it from a scheduler, or push it into a pool. ABT_ERR_INV_POOL for
 * an invalid handle, ABT_ERR_INV_ARG when thread is NULL. */
ABT_API_PUBLIC int ABT_pool_pop_thread(ABT_pool pool, ABT_thread *thread);

/* Like ABT_pool_pop_thread, passing the hint pool_ctx (ABT_POOL_CONTEXT_*) to a user pool's pop.
 * Errors as ABT_pool_pop_thread. */
ABT_API_PUBLIC int ABT_pool_pop_thread_ex(ABT_pool pool, ABT_thread *thread,
                                          ABT_pool_context pool_ctx);

/* Take up to len work units out of pool into threads and store how many were taken in *num
 * (a user pool with pop_many is asked once, else one pop at a time until it is empty).
 * ABT_ERR_INV_POOL for an invalid handle, ABT_ERR_INV_ARG when num is NULL or threads is NULL
 * with len > 0. */
ABT_API_PUBLIC int ABT_pool_pop_threads(ABT_pool pool, ABT_thread *threads, size_t len,
                                        size_t *num);

/* Like ABT_pool_pop_threads, passing the hint pool_ctx to a user pool. Errors as
 * ABT_pool_pop_threads. */
ABT_API_PUBLIC int ABT_pool_pop_threads_ex(ABT_pool pool, ABT_thread *threads, size_t len,
                                           size_t *num, ABT_pool_context pool_ctx);

/* Put the ready work unit thread, which is in no pool (made with no pool, or popped by hand),
 * into pool; ABT_THREAD_NULL is skipped. ABT_ERR_INV_POOL for an invalid handle,
 * ABT_ERR_INV_THREAD for an invalid handle and (goabt) for a unit that is running, blocked,
 * finished or still in a pool, ABT_ERR_MEM when a user pool's create_unit makes no unit. */
ABT_API_PUBLIC int ABT_pool_push_thread(ABT_pool pool, ABT_thread thread);

/* Like ABT_pool_push_thread, passing the hint pool_ctx to the pool. Errors as
 * ABT_pool_push_thread. */
ABT_API_PUBLIC int ABT_pool_push_thread_ex(ABT_pool pool, ABT_thread thread,
                                           ABT_pool_context pool_ctx);

/* Put the num ready work units of threads into pool, as ABT_pool_push_thread does for each (a
 * user pool with push_many gets them in one call); stops at the first error and returns it.
 * ABT_ERR_INV_ARG when threads is NULL with num > 0. */
ABT_API_PUBLIC int ABT_pool_push_threads(ABT_pool pool, const ABT_thread *threads, size_t num);

/* Like ABT_pool_push_threads, passing the hint pool_ctx to the pool. Errors as
 * ABT_pool_push_threads. */
ABT_API_PUBLIC int ABT_pool_push_threads_ex(ABT_pool pool, const ABT_thread *threads, size_t num,
                                            ABT_pool_context pool_ctx);

/* Like ABT_pool_pop_thread, but wait up to time_secs seconds for a work unit to arrive: the
 * caller's thread sleeps (a built-in pool wakes it at the next push), or a user pool's pop_wait
 * waits. ABT_ERR_POOL for a user pool without pop_wait; other errors as ABT_pool_pop_thread. */
ABT_API_PUBLIC int ABT_pool_pop_wait_thread(ABT_pool pool, ABT_thread *thread, double time_secs);

/* Like ABT_pool_pop_wait_thread, passing the hint pool_ctx to the pool. Errors as
 * ABT_pool_pop_wait_thread. */
ABT_API_PUBLIC int ABT_pool_pop_wait_thread_ex(ABT_pool pool, ABT_thread *thread, double time_secs,
                                               ABT_pool_context pool_ctx);

/* Call print_fn(arg, thread) for every work unit in pool, leaving the pool unchanged (a built-in
 * pool calls it on a snapshot; a user pool's print_all is given arg and print_fn as they are).
 * ABT_ERR_INV_POOL for an invalid handle, ABT_ERR_INV_ARG when
 * print_fn is NULL, ABT_ERR_POOL for a user pool without print_all. */
ABT_API_PUBLIC int ABT_pool_print_all_threads(ABT_pool pool, void *arg,
                                              void (*print_fn)(void *, ABT_thread));

/* Attach the user pointer data to pool (a user pool's functions keep their state there).
 * ABT_ERR_INV_POOL for an invalid handle. */
ABT_API_PUBLIC int ABT_pool_set_data(ABT_pool pool, void *data);

/* Return the user pointer attached to pool in *data (NULL if none was set). ABT_ERR_INV_POOL for
 * an invalid handle, ABT_ERR_INV_ARG when data is NULL. */
ABT_API_PUBLIC int ABT_pool_get_data(ABT_pool pool, void **data);

/* Push the scheduler sched into pool as a work unit (a ULT with a 4 MiB stack), so that the
 * scheduler popping it runs sched stacked: sched's run function (goabt's loop for a predefined
 * one) runs on that ULT and runs sched's units on top of it, until sched has nothing left to
 * run (no queued or blocked units; while only blocked ones remain it yields between looks, and
 * a stacked scheduler below it yields in turn: goabt's loop at once, a user scheduler at its
 * next ABT_xstream_check_events) or ABT_sched_exit stops it; control then goes back to the
 * scheduler below, and sched is unused
 * again (the user may free it or add it again), or freed if it is automatic. ABT_sched_free
 * refuses it (ABT_ERR_SCHED) meanwhile. ABT_ERR_INV_POOL, ABT_ERR_INV_SCHED for invalid handles
 * and for a scheduler in use (a stream's main scheduler, or added already), ABT_ERR_MEM. */
ABT_API_PUBLIC int ABT_pool_add_sched(ABT_pool pool, ABT_sched sched);

/* Return the id of pool in *id; ids count up from ABT_init in creation order, the runtime's own
 * pools included, as in Argobots. ABT_ERR_INV_POOL for an invalid handle. */
ABT_API_PUBLIC int ABT_pool_get_id(ABT_pool pool, int *id);

/* --- The older pool interface, on pool units (ABT_unit) rather than work units. */

/* Take one work unit out of pool as a pool unit handle into *unit (a user pool's own unit, or for
 * a built-in pool the work unit's handle); ABT_UNIT_NULL when the pool is empty. ABT_unit_get_thread
 * gives its work unit. ABT_ERR_INV_POOL for an invalid handle, ABT_ERR_INV_ARG when unit is NULL. */
ABT_API_PUBLIC int ABT_pool_pop(ABT_pool pool, ABT_unit *unit);

/* Like ABT_pool_pop, but wait up to time_secs seconds for a work unit to arrive (as
 * ABT_pool_pop_wait_thread). ABT_ERR_POOL for a user pool that cannot wait. */
ABT_API_PUBLIC int ABT_pool_pop_wait(ABT_pool pool, ABT_unit *unit, double time_secs);

/* Deprecated form of ABT_pool_pop_wait: wait until the absolute time abstime_secs (on the
 * ABT_get_wtime clock); an older struct ABT_pool_def pool waits in its p_pop_timedwait.
 * ABT_ERR_POOL for a user pool that cannot wait. */
ABT_API_PUBLIC ABT_DEPRECATED int ABT_pool_pop_timedwait(ABT_pool pool, ABT_unit *unit,
                                                         double abstime_secs);

/* Take the pool unit unit out of pool. ABT_ERR_INV_POOL or ABT_ERR_INV_UNIT for invalid handles,
 * ABT_ERR_POOL for a user pool without p_remove (definitions made with ABT_pool_user_def_create
 * have none), and (goabt) ABT_ERR_INV_UNIT for a unit that was not in pool. */
ABT_API_PUBLIC int ABT_pool_remove(ABT_pool pool, ABT_unit unit);

/* Put the pool unit unit (from ABT_pool_pop, or ABT_thread_get_unit) into pool, as
 * ABT_pool_push_thread does its work unit. ABT_ERR_INV_POOL, ABT_ERR_INV_UNIT for invalid handles;
 * the other errors as ABT_pool_push_thread. */
ABT_API_PUBLIC int ABT_pool_push(ABT_pool pool, ABT_unit unit);

/* Call print_fn(arg, unit) for every pool unit in pool, leaving the pool unchanged. Errors as
 * ABT_pool_print_all_threads. */
ABT_API_PUBLIC int ABT_pool_print_all(ABT_pool pool, void *arg, void (*print_fn)(void *, ABT_unit));

/* --- Pool configurations. */

/* Create an empty pool configuration in *config. ABT_ERR_INV_ARG when config is NULL,
 * ABT_ERR_MEM; *config is ABT_POOL_CONFIG_NULL on error. */
ABT_API_PUBLIC int ABT_pool_config_create(ABT_pool_config *config);

/* Free the pool configuration *config and set *config to ABT_POOL_CONFIG_NULL. ABT_ERR_INV_ARG
 * when config is NULL, ABT_ERR_INV_POOL_CONFIG for an invalid handle. */
ABT_API_PUBLIC int ABT_pool_config_free(ABT_pool_config *config);

/* Store the value *val of type type under key in config, replacing any previous one; val NULL
 * removes the entry. ABT_ERR_INV_POOL_CONFIG for an invalid handle, ABT_ERR_INV_ARG for an
 * unknown type, ABT_ERR_MEM past 64 keys. */
ABT_API_PUBLIC int ABT_pool_config_set(ABT_pool_config config, int key, ABT_pool_config_type type,
                                       const void *val);

/* Read the value under key in config into *val and its type into *p_type (either may be NULL).
 * ABT_ERR_INV_POOL_CONFIG for an invalid handle, ABT_ERR_INV_ARG when key is absent. */
ABT_API_PUBLIC int ABT_pool_config_get(ABT_pool_config config, int key,
                                       ABT_pool_config_type *p_type, void *val);

/* --- User-defined pools. */

/* Create a pool definition from its five mandatory functions; the optional ones are added with
 * the ABT_pool_user_def_set_* functions. ABT_ERR_INV_ARG when newdef or a function is NULL,
 * ABT_ERR_MEM; *newdef is ABT_POOL_USER_DEF_NULL on error. */
ABT_API_PUBLIC int ABT_pool_user_def_create(ABT_pool_user_create_unit_fn p_create_unit,
                                            ABT_pool_user_free_unit_fn p_free_unit,
                                            ABT_pool_user_is_empty_fn p_is_empty,
                                            ABT_pool_user_pop_fn p_pop,
                                            ABT_pool_user_push_fn p_push,
                                            ABT_pool_user_def *newdef);

/* Free the pool definition *def and set *def to ABT_POOL_USER_DEF_NULL; pools created from it
 * are not affected. ABT_ERR_INV_ARG when def is NULL, ABT_ERR_INV_POOL_USER_DEF for an invalid
 * handle. */
ABT_API_PUBLIC int ABT_pool_user_def_free(ABT_pool_user_def *def);

/* Set the optional function called when a pool is created from def (its error makes
 * ABT_pool_create fail). ABT_ERR_INV_POOL_USER_DEF for an invalid handle; the same for every
 * ABT_pool_user_def_set_* below, and NULL removes the function. */
ABT_API_PUBLIC int ABT_pool_user_def_set_init(ABT_pool_user_def def, ABT_pool_user_init_fn p_init);

/* Set the optional function called when a pool created from def is freed. */
ABT_API_PUBLIC int ABT_pool_user_def_set_free(ABT_pool_user_def def, ABT_pool_user_free_fn p_free);

/* Set the optional function returning the number of work units in a pool created from def;
 * without it ABT_pool_get_size and ABT_pool_get_total_size give ABT_ERR_POOL. */
ABT_API_PUBLIC int ABT_pool_user_def_set_get_size(ABT_pool_user_def def,
                                                  ABT_pool_user_get_size_fn p_get_size);

/* Set the optional function that pops a work unit, waiting up to a given time (used by
 * ABT_pool_pop_wait*). */
ABT_API_PUBLIC int ABT_pool_user_def_set_pop_wait(ABT_pool_user_def def,
                                                  ABT_pool_user_pop_wait_fn p_pop_wait);

/* Set the optional function that pops several work units at once (used by
 * ABT_pool_pop_threads*). */
ABT_API_PUBLIC int ABT_pool_user_def_set_pop_many(ABT_pool_user_def def,
                                                  ABT_pool_user_pop_many_fn p_pop_many);

/* Set the optional function that pushes several work units at once (used by
 * ABT_pool_push_threads*). */
ABT_API_PUBLIC int ABT_pool_user_def_set_push_many(ABT_pool_user_def def,
                                                   ABT_pool_user_push_many_fn p_push_many);

/* Set the optional function that visits every work unit of a pool (used by
 * ABT_pool_print_all*). */
ABT_API_PUBLIC int ABT_pool_user_def_set_print_all(ABT_pool_user_def def,
                                                   ABT_pool_user_print_all_fn p_print_all);

/* ---------------------------------------------------------------------------------------------
 * Pool units
 *
 * An ABT_unit is a work unit as a pool stores it; pools written by the program create and
 * free them, and these functions go from a unit back to its work unit.
 * ------------------------------------------------------------------------------------------- */

/* Return in *thread the work unit that the pool unit unit stands for (in goabt's pools they are the
 * same object). ABT_ERR_INV_UNIT for ABT_UNIT_NULL or a handle that is no work unit,
 * ABT_ERR_INV_ARG when thread is NULL. */
ABT_API_PUBLIC int ABT_unit_get_thread(ABT_unit unit, ABT_thread *thread);

/* Make pool the pool the work unit behind unit goes back to (its associated pool); for a user
 * pool a pool unit is made for it, and ABT_thread_get_unit then returns that. ABT_ERR_INV_UNIT,
 * ABT_ERR_INV_POOL for invalid handles, ABT_ERR_MEM when create_unit makes no unit. */
ABT_API_PUBLIC int ABT_unit_set_associated_pool(ABT_unit unit, ABT_pool pool);

/* ---------------------------------------------------------------------------------------------
 * ULTs (user-level threads)
 *
 * A ULT has its own stack, can yield, block and migrate. Most ABT_thread_* functions take any
 * work unit, tasklets included. A ULT created without a handle (newthread NULL) is unnamed and
 * freed by the runtime when it ends.
 * ------------------------------------------------------------------------------------------- */

/* State of a work unit. */
enum ABT_thread_state {
    ABT_THREAD_STATE_READY,     /* waiting in a pool to run */
    ABT_THREAD_STATE_RUNNING,   /* running */
    ABT_THREAD_STATE_BLOCKED,   /* blocked on a synchronization object or suspended */
    ABT_THREAD_STATE_TERMINATED /* finished */
};
typedef enum ABT_thread_state ABT_thread_state;

/* Create a ULT running thread_func(arg) on a stack of its own (default size ABT_THREAD_STACKSIZE,
 * see ABT_init) and push it into pool; attr ABT_THREAD_ATTR_NULL means defaults, newthread NULL
 * makes it unnamed (freed when it ends). ABT_ERR_INV_POOL, ABT_ERR_INV_THREAD_ATTR,
 * ABT_ERR_INV_ARG for a NULL thread_func; on error *newthread is ABT_THREAD_NULL.
 * Out of memory (goabt). A stack of 1 MiB or more is mapped here: ABT_ERR_MEM when it cannot
 * be (also for a size no address space holds). A smaller one is mapped when the ULT first
 * runs, so that waiting ULTs cost no stack; if it cannot be then, the ULT ends without running
 * (one line on stderr, once), and ABT_thread_join and ABT_thread_free on it return
 * ABT_ERR_MEM. Never an abort. */
ABT_API_PUBLIC int ABT_thread_create(ABT_pool pool, void (*thread_func)(void *), void *arg,
                                     ABT_thread_attr attr, ABT_thread *newthread);

/* Like ABT_thread_create, but the calling ULT switches to the new ULT at once and goes back into
 * its own pool; from the main ULT the new ULT runs first in its pool's turn. ABT_ERR_INV_XSTREAM
 * from an external thread, ABT_ERR_INV_THREAD from a tasklet; the other errors as
 * ABT_thread_create. */
ABT_API_PUBLIC int ABT_thread_create_to(ABT_pool pool, void (*thread_func)(void *), void *arg,
                                        ABT_thread_attr attr, ABT_thread *newthread);

/* Like ABT_thread_create, pushing the new ULT into the first pool of xstream's main scheduler;
 * ABT_ERR_INV_XSTREAM for an invalid handle, ABT_ERR_INV_POOL when that scheduler (a
 * user-defined one) has no pool (native Argobots crashes). */
ABT_API_PUBLIC int ABT_thread_create_on_xstream(ABT_xstream xstream, void (*thread_func)(void *),
                                                void *arg, ABT_thread_attr attr,
                                                ABT_thread *newthread);

/* Create num_threads ULTs: ULT i runs thread_func_list[i](arg_list[i]) in pool_list[i] (arg_list
 * NULL: NULL arguments); handles go to newthread_list (NULL: unnamed). Stops at the first error,
 * keeping the ULTs already created; an attr with a user stack gives ABT_ERR_INV_THREAD_ATTR, since
 * one stack cannot serve several ULTs. */
ABT_API_PUBLIC int ABT_thread_create_many(int num_threads, ABT_pool *pool_list,
                                          void (**thread_func_list)(void *), void **arg_list,
                                          ABT_thread_attr attr, ABT_thread *newthread_list);

/* Run the terminated (joined, not freed) work unit *thread again, thread_func(arg), pushed into
 * pool, with the handle, stack, attributes and work-unit-specific data it had. ABT_ERR_INV_THREAD
 * when *thread is invalid, the primary ULT or not terminated (or thread is NULL),
 * ABT_ERR_INV_POOL, ABT_ERR_INV_ARG when thread_func is NULL, ABT_ERR_MEM when a user pool makes
 * no unit for it. */
ABT_API_PUBLIC int ABT_thread_revive(ABT_pool pool, void (*thread_func)(void *), void *arg,
                                     ABT_thread *thread);

/* Like ABT_thread_revive, then the calling ULT switches straight to the revived one and goes back
 * to its pool, as ABT_thread_create_to does. Errors as ABT_thread_revive, and ABT_ERR_INV_XSTREAM
 * from an external thread, ABT_ERR_INV_THREAD from a tasklet. */
ABT_API_PUBLIC int ABT_thread_revive_to(ABT_pool pool, void (*thread_func)(void *), void *arg,
                                        ABT_thread *thread);

/* Wait for the work unit *thread to finish, free it and set *thread to ABT_THREAD_NULL.
 * ABT_ERR_INV_THREAD for a NULL pointer, an invalid or freed handle, an unnamed unit, the primary
 * ULT or the caller itself. A waiting ULT lets other work units run; external threads and tasklets
 * sleep. ABT_ERR_MEM, the ULT freed all the same, when it ended without running for want of a
 * stack (ABT_thread_create). */
ABT_API_PUBLIC int ABT_thread_free(ABT_thread *thread);

/* ABT_thread_free on each of the num_threads work units in thread_list, skipping ABT_THREAD_NULL
 * entries and stopping at the first error; ABT_ERR_INV_ARG for a negative count or a NULL list. */
ABT_API_PUBLIC int ABT_thread_free_many(int num_threads, ABT_thread *thread_list);

/* Wait until the work unit thread has finished, without freeing it. ABT_ERR_INV_THREAD for an
 * invalid or freed handle, an unnamed unit, the primary ULT or the caller itself. A waiting ULT
 * lets other work units run; external threads and tasklets sleep. ABT_ERR_MEM when it ended
 * without running for want of a stack (ABT_thread_create). */
ABT_API_PUBLIC int ABT_thread_join(ABT_thread thread);

/* ABT_thread_join on each of the num_threads work units in thread_list, skipping ABT_THREAD_NULL
 * entries and stopping at the first error; ABT_ERR_INV_ARG for a negative count or a NULL list. */
ABT_API_PUBLIC int ABT_thread_join_many(int num_threads, ABT_thread *thread_list);

/* Terminate the calling ULT; does not return when it succeeds. ABT_ERR_INV_XSTREAM from an external
 * thread, ABT_ERR_INV_THREAD from a tasklet, a scheduler's context or the primary ULT. */
ABT_API_PUBLIC int ABT_thread_exit(void);

/* Ask the work unit thread to end: at once if it waits in a pool that can give it back (built-in
 * pools, user pools with remove), else at its next scheduling point: when it yields, or when a
 * scheduler next picks it (a ULT blocked in a wait ends once woken, without returning from the
 * wait; a mutex or readers-writer lock its wake-up gave it goes on to the next waiter). Its
 * function does not go on; joiners wake; nothing it holds (a mutex ...) is released.
 * A tasklet already running runs to its end. ABT_ERR_INV_THREAD for an invalid handle or the
 * primary ULT; a terminated unit is left as it is. */
ABT_API_PUBLIC int ABT_thread_cancel(ABT_thread thread);

/* Return the calling ULT in *thread; ABT_ERR_INV_XSTREAM from an external thread,
 * ABT_ERR_INV_THREAD from a tasklet, ABT_ERR_INV_ARG when thread is NULL. */
ABT_API_PUBLIC int ABT_thread_self(ABT_thread *thread);

/* Return the id of the calling ULT in *id; ABT_ERR_INV_XSTREAM from an external thread,
 * ABT_ERR_INV_THREAD from a tasklet, ABT_ERR_INV_ARG when id is NULL. */
ABT_API_PUBLIC int ABT_thread_self_id(ABT_unit_id *id);

/* Return in *xstream the execution stream that ran the work unit thread last (ABT_XSTREAM_NULL if
 * it never ran); ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when xstream is NULL. */
ABT_API_PUBLIC int ABT_thread_get_last_xstream(ABT_thread thread, ABT_xstream *xstream);

/* Return the state of the work unit thread (ready, running, blocked or terminated) in *state;
 * ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when state is NULL. */
ABT_API_PUBLIC int ABT_thread_get_state(ABT_thread thread, ABT_thread_state *state);

/* Return in *pool the pool that the work unit thread was last pushed into; ABT_ERR_INV_THREAD for
 * an invalid handle, ABT_ERR_INV_ARG when pool is NULL. */
ABT_API_PUBLIC int ABT_thread_get_last_pool(ABT_thread thread, ABT_pool *pool);

/* Return in *id the id of the pool that the work unit thread was last pushed into (-1 if none);
 * ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when id is NULL. */
ABT_API_PUBLIC int ABT_thread_get_last_pool_id(ABT_thread thread, int *id);

/* Return in *unit the pool unit handle of thread; in goabt's pools it is the work unit itself.
 * ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when unit is NULL. */
ABT_API_PUBLIC int ABT_thread_get_unit(ABT_thread thread, ABT_unit *unit);

/* Make pool the pool that the work unit thread goes back to when it yields, is woken or
 * resumed (for a user pool, its pool unit is made now). ABT_ERR_INV_THREAD, ABT_ERR_INV_POOL for
 * invalid handles, ABT_ERR_MEM when a user pool's create_unit makes no unit, ABT_ERR_THREAD when
 * thread is in a pool now (undefined in Argobots, which asks that it be popped first;
 * ABT_thread_migrate_to_pool moves a queued unit). */
ABT_API_PUBLIC int ABT_thread_set_associated_pool(ABT_thread thread, ABT_pool pool);

/* As ABT_self_yield_to, for the calling ULT. ABT_ERR_INV_THREAD when thread is invalid, a tasklet
 * or the caller; from an external thread or a tasklet it does nothing and succeeds. */
ABT_API_PUBLIC int ABT_thread_yield_to(ABT_thread thread);

/* Give the execution stream back to the scheduler; the calling ULT goes back into its pool. Always
 * ABT_SUCCESS: from an external thread or a tasklet it does nothing. */
ABT_API_PUBLIC int ABT_thread_yield(void);

/* Make the ULT thread, suspended by ABT_self_suspend (or its _to forms), ready again in its
 * associated pool; a resume that races with the suspend it answers is not lost.
 * ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_THREAD when thread is not suspended (goabt;
 * undefined in Argobots). */
ABT_API_PUBLIC int ABT_thread_resume(ABT_thread thread);

/* Move the work unit thread to xstream's main scheduler: into the pool its get_migr_pool picks
 * (a user scheduler's), else its first pool; as ABT_thread_migrate_to_pool. ABT_ERR_INV_XSTREAM
 * for an invalid or terminated stream, and the errors of ABT_thread_migrate_to_pool. */
ABT_API_PUBLIC int ABT_thread_migrate_to_xstream(ABT_thread thread, ABT_xstream xstream);

/* Move the work unit thread to the scheduler sched: into the pool its get_migr_pool picks (a
 * user scheduler's), else its first pool; as ABT_thread_migrate_to_pool. ABT_ERR_INV_SCHED for an
 * invalid handle, and the errors of ABT_thread_migrate_to_pool. */
ABT_API_PUBLIC int ABT_thread_migrate_to_sched(ABT_thread thread, ABT_sched sched);

/* Move the work unit thread to pool: at once if it waits in a pool that can give it back
 * (built-in pools, user pools with remove), else at its next scheduling point (when it yields, is
 * woken from a wait, or is picked by a scheduler), on the thread that moves it. Its migration
 * callback (ABT_thread_set_callback, or its attribute's) runs then, before it is pushed into pool.
 * ABT_ERR_INV_THREAD for an invalid handle, the primary ULT, a unit that is not migratable or has
 * terminated; ABT_ERR_INV_POOL; ABT_ERR_MIGRATION_TARGET when pool is already its pool. */
ABT_API_PUBLIC int ABT_thread_migrate_to_pool(ABT_thread thread, ABT_pool pool);

/* Move the work unit thread to a running execution stream other than the one it ran on last,
 * chosen in turn among them (into its main scheduler's migration pool), as
 * ABT_thread_migrate_to_xstream. ABT_ERR_MIGRATION_NA when there is no other stream. */
ABT_API_PUBLIC int ABT_thread_migrate(ABT_thread thread);

/* Set the function called as cb_func(thread, cb_arg) each time the work unit thread migrates,
 * by the thread that moves it (cb_func NULL: none). ABT_ERR_INV_THREAD for an invalid handle. */
ABT_API_PUBLIC int ABT_thread_set_callback(ABT_thread thread, void (*cb_func)(ABT_thread, void *),
                                           void *cb_arg);

/* Allow (ABT_TRUE) or forbid (ABT_FALSE) the migration of the work unit thread (ignored for the
 * primary ULT, which never migrates). ABT_ERR_INV_THREAD for an invalid handle. */
ABT_API_PUBLIC int ABT_thread_set_migratable(ABT_thread thread, ABT_bool migratable);

/* Set *is_migratable to whether the work unit thread is marked migratable (ULTs are by default);
 * ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when is_migratable is NULL. */
ABT_API_PUBLIC int ABT_thread_is_migratable(ABT_thread thread, ABT_bool *is_migratable);

/* Set *is_primary to ABT_TRUE when thread is the primary ULT, the one that called ABT_init;
 * ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when is_primary is NULL. */
ABT_API_PUBLIC int ABT_thread_is_primary(ABT_thread thread, ABT_bool *is_primary);

/* Set *is_unnamed to ABT_TRUE when thread was created without a handle and is freed when it ends;
 * ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when is_unnamed is NULL. */
ABT_API_PUBLIC int ABT_thread_is_unnamed(ABT_thread thread, ABT_bool *is_unnamed);

/* Set *result to ABT_TRUE when thread1 and thread2 are the same handle (ABT_THREAD_NULL and
 * ABT_TASK_NULL count as equal), ABT_FALSE otherwise; the handles are not checked. ABT_ERR_INV_ARG
 * when result is NULL. */
ABT_API_PUBLIC int ABT_thread_equal(ABT_thread thread1, ABT_thread thread2, ABT_bool *result);

/* Return in *stacksize the stack size requested for the ULT thread; 0 for tasklets and the primary
 * ULT. ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when stacksize is NULL. */
ABT_API_PUBLIC int ABT_thread_get_stacksize(ABT_thread thread, size_t *stacksize);

/* Return the lowest address and the size of the stack of the ULT thread (NULL and 0 for tasklets
 * and the primary ULT); either output may be NULL. ABT_ERR_INV_THREAD for an invalid handle. A
 * stack goabt allocates is the ULT's from its first run until it terminates (then it goes to
 * the next ULTs): before the first run the address is NULL (the size is the one requested);
 * after the end, the address it ran on. In modes mprotect (the default) and mprotect_strict the
 * stack's lowest page is its guard page (ABT_init), and a size below 16 KiB is raised to it. */
ABT_API_PUBLIC int ABT_thread_get_stack(ABT_thread thread, void **stackaddr, size_t *stacksize);

/* Return the id of the work unit thread in *thread_id; ids are given out on first request, counting
 * from 0. ABT_ERR_INV_THREAD for an invalid handle, ABT_ERR_INV_ARG when thread_id is NULL. */
ABT_API_PUBLIC int ABT_thread_get_id(ABT_thread thread, ABT_unit_id *thread_id);

/* Replace the argument passed to the function of the work unit thread; ABT_ERR_INV_THREAD for an
 * invalid handle. */
ABT_API_PUBLIC int ABT_thread_set_arg(ABT_thread thread, void *arg);

/* Return the argument of the work unit thread in *arg; ABT_ERR_INV_THREAD for an invalid handle,
 * ABT_ERR_INV_ARG when arg is NULL. */
ABT_API_PUBLIC int ABT_thread_get_arg(ABT_thread thread, void **arg);

/* Return the function run by the work unit thread in *thread_func; ABT_ERR_INV_THREAD for an
 * invalid handle, ABT_ERR_INV_ARG when thread_func is NULL. */
ABT_API_PUBLIC int ABT_thread_get_thread_func(ABT_thread thread, void (**thread_func)(void *));

/* Set the value of key for the work unit thread, which may be any ULT or tasklet in any state
 * (not yet run, running elsewhere, blocked, finished but not freed), not only the caller; callable
 * from external threads too. ABT_ERR_INV_THREAD for an invalid thread, then ABT_ERR_INV_KEY for an
 * invalid key, ABT_ERR_MEM if the unit's table could not grow. */
ABT_API_PUBLIC int ABT_thread_set_specific(ABT_thread thread, ABT_key key, void *value);

/* Return in *value the value of key for the work unit thread, any ULT or tasklet (NULL if never
 * set). ABT_ERR_INV_THREAD for an invalid thread, then ABT_ERR_INV_KEY for an invalid key,
 * ABT_ERR_INV_ARG when value is NULL. */
ABT_API_PUBLIC int ABT_thread_get_specific(ABT_thread thread, ABT_key key, void **value);

/* Return in *attr a new attribute object with the stack address (as ABT_thread_get_stack gives
 * it), stack size and migratability of the ULT thread; free it with ABT_thread_attr_free.
 * ABT_ERR_INV_THREAD for an invalid handle or a tasklet, ABT_ERR_INV_ARG when attr is NULL. */
ABT_API_PUBLIC int ABT_thread_get_attr(ABT_thread thread, ABT_thread_attr *attr);

/* ---------------------------------------------------------------------------------------------
 * ULT attributes
 *
 * Settings applied when a ULT is created: stack, migratability, migration callback.
 * ------------------------------------------------------------------------------------------- */

/* Create a ULT attribute object with default values: a goabt-allocated stack of the default size,
 * migratable, no callback. ABT_ERR_INV_ARG when newattr is NULL, ABT_ERR_UNINITIALIZED before
 * ABT_init. */
ABT_API_PUBLIC int ABT_thread_attr_create(ABT_thread_attr *newattr);

/* Free the attribute object *attr and set *attr to ABT_THREAD_ATTR_NULL; ABT_ERR_INV_THREAD_ATTR
 * for a NULL pointer or an invalid handle. */
ABT_API_PUBLIC int ABT_thread_attr_free(ABT_thread_attr *attr);

/* Make ULTs created with attr run on the caller's stack at stackaddr, of stacksize bytes, which
 * must outlive them (stackaddr NULL: goabt allocates stacksize bytes). ABT_ERR_INV_ARG for a user
 * stack below 8 KiB or not 8-byte aligned, ABT_ERR_INV_THREAD_ATTR for an invalid handle. */
ABT_API_PUBLIC int ABT_thread_attr_set_stack(ABT_thread_attr attr, void *stackaddr,
                                             size_t stacksize);

/* Return the stack address and size held by attr; ABT_ERR_INV_THREAD_ATTR for an invalid handle,
 * ABT_ERR_INV_ARG when either output is NULL. */
ABT_API_PUBLIC int ABT_thread_attr_get_stack(ABT_thread_attr attr, void **stackaddr,
                                             size_t *stacksize);

/* Make ULTs created with attr get a stack of stacksize bytes allocated by goabt; smaller than 8 KiB
 * still gets 8 KiB. ABT_ERR_INV_THREAD_ATTR for an invalid handle. */
ABT_API_PUBLIC int ABT_thread_attr_set_stacksize(ABT_thread_attr attr, size_t stacksize);

/* Return the stack size held by attr in *stacksize; ABT_ERR_INV_THREAD_ATTR for an invalid handle,
 * ABT_ERR_INV_ARG when stacksize is NULL. */
ABT_API_PUBLIC int ABT_thread_attr_get_stacksize(ABT_thread_attr attr, size_t *stacksize);

/* Make cb_func(thread, cb_arg) the migration callback of ULTs created with attr (as
 * ABT_thread_set_callback). ABT_ERR_INV_THREAD_ATTR for an invalid handle. */
ABT_API_PUBLIC int ABT_thread_attr_set_callback(ABT_thread_attr attr,
                                                void (*cb_func)(ABT_thread, void *), void *cb_arg);

/* Make ULTs created with attr migratable (ABT_TRUE) or not (ABT_FALSE); ABT_ERR_INV_THREAD_ATTR for
 * an invalid handle. */
ABT_API_PUBLIC int ABT_thread_attr_set_migratable(ABT_thread_attr attr, ABT_bool is_migratable);

/* ---------------------------------------------------------------------------------------------
 * Tasklets
 *
 * A tasklet has no stack of its own and runs to completion without yielding; it is cheaper than
 * a ULT. ABT_task is the same handle type as ABT_thread.
 * ------------------------------------------------------------------------------------------- */

/* State of a tasklet. */
enum ABT_task_state {
    ABT_TASK_STATE_READY,     /* waiting in a pool to run */
    ABT_TASK_STATE_RUNNING,   /* running */
    ABT_TASK_STATE_TERMINATED /* finished */
};
typedef enum ABT_task_state ABT_task_state;

/* Create a tasklet running task_func(arg) to completion on its scheduler's stack and push it into
 * pool; newtask NULL makes it unnamed. ABT_ERR_INV_POOL for an invalid pool, ABT_ERR_INV_ARG for a
 * NULL task_func; on error *newtask is ABT_TASK_NULL. */
ABT_API_PUBLIC int ABT_task_create(ABT_pool pool, void (*task_func)(void *), void *arg,
                                   ABT_task *newtask);

/* Like ABT_task_create, pushing the tasklet into the first pool of xstream's main scheduler;
 * ABT_ERR_INV_XSTREAM for an invalid handle, ABT_ERR_INV_POOL when that scheduler has no pool. */
ABT_API_PUBLIC int ABT_task_create_on_xstream(ABT_xstream xstream, void (*task_func)(void *),
                                              void *arg, ABT_task *newtask);

/* Run the terminated (joined, not freed) tasklet *task again, task_func(arg), pushed into pool; the
 * handle stays the same. ABT_ERR_INV_TASK when *task is invalid, not a tasklet or not terminated
 * (or task is NULL), ABT_ERR_INV_POOL, ABT_ERR_INV_ARG when task_func is NULL. */
ABT_API_PUBLIC int ABT_task_revive(ABT_pool pool, void (*task_func)(void *), void *arg,
                                   ABT_task *task);

/* Wait for the tasklet *task to finish, free it and set *task to ABT_TASK_NULL; the checks of
 * ABT_thread_free, with ABT_ERR_INV_TASK instead of ABT_ERR_INV_THREAD. */
ABT_API_PUBLIC int ABT_task_free(ABT_task *task);

/* Wait until the tasklet task has finished, without freeing it; the checks of ABT_thread_join, with
 * ABT_ERR_INV_TASK instead of ABT_ERR_INV_THREAD. */
ABT_API_PUBLIC int ABT_task_join(ABT_task task);

/* Ask the tasklet task to end without running: at once if it waits in a pool that can give it
 * back (built-in pools, user pools with remove), else when a scheduler next picks it. A tasklet
 * already running runs to its end. ABT_ERR_INV_TASK for an invalid handle. */
ABT_API_PUBLIC int ABT_task_cancel(ABT_task task);

/* Return the calling tasklet in *task; ABT_ERR_INV_XSTREAM from an external thread,
 * ABT_ERR_INV_TASK (and ABT_TASK_NULL in *task) when the caller is a ULT, ABT_ERR_INV_ARG when task
 * is NULL. */
ABT_API_PUBLIC int ABT_task_self(ABT_task *task);

/* Return the id of the calling tasklet in *id; ABT_ERR_INV_XSTREAM from an external thread,
 * ABT_ERR_INV_TASK when the caller is a ULT, ABT_ERR_INV_ARG when id is NULL. */
ABT_API_PUBLIC int ABT_task_self_id(uint64_t *id);

/* Return in *xstream the execution stream that runs or last ran task (ABT_XSTREAM_NULL if it never
 * ran); ABT_ERR_INV_TASK for an invalid handle, ABT_ERR_INV_ARG when xstream is NULL. */
ABT_API_PUBLIC int ABT_task_get_xstream(ABT_task task, ABT_xstream *xstream);

/* Return the state of the tasklet task (ready, running or terminated) in *state; ABT_ERR_INV_TASK
 * for an invalid handle, ABT_ERR_INV_ARG when state is NULL. */
ABT_API_PUBLIC int ABT_task_get_state(ABT_task task, ABT_task_state *state);

/* Return in *pool the pool that the tasklet task was last pushed into; ABT_ERR_INV_TASK for an
 * invalid handle, ABT_ERR_INV_ARG when pool is NULL. */
ABT_API_PUBLIC int ABT_task_get_last_pool(ABT_task task, ABT_pool *pool);

/* Return in *id the id of the pool that the tasklet task was last pushed into (-1 if none);
 * ABT_ERR_INV_TASK for an invalid handle, ABT_ERR_INV_ARG when id is NULL. */
ABT_API_PUBLIC int ABT_task_get_last_pool_id(ABT_task task, int *id);

/* Mark the tasklet task migratable (ABT_TRUE) or not (ABT_FALSE); only recorded, as goabt does not
 * migrate yet. ABT_ERR_INV_TASK for an invalid handle. */
ABT_API_PUBLIC int ABT_task_set_migratable(ABT_task task, ABT_bool flag);

/* Set *flag to whether the tasklet task is marked migratable; ABT_ERR_INV_TASK for an invalid
 * handle, ABT_ERR_INV_ARG when flag is NULL. */
ABT_API_PUBLIC int ABT_task_is_migratable(ABT_task task, ABT_bool *flag);

/* Set *result to ABT_TRUE when task1 and task2 are the same handle, ABT_FALSE otherwise, as
 * ABT_thread_equal does; ABT_ERR_INV_ARG when result is NULL. */
ABT_API_PUBLIC int ABT_task_equal(ABT_task task1, ABT_task task2, ABT_bool *result);

/* Return the id of the tasklet task in *task_id (ULTs and tasklets share one id sequence);
 * ABT_ERR_INV_TASK for an invalid handle, ABT_ERR_INV_ARG when task_id is NULL. */
ABT_API_PUBLIC int ABT_task_get_id(ABT_task task, uint64_t *task_id);

/* Return the argument of the tasklet task in *arg; ABT_ERR_INV_TASK for an invalid handle,
 * ABT_ERR_INV_ARG when arg is NULL. */
ABT_API_PUBLIC int ABT_task_get_arg(ABT_task task, void **arg);

/* These tasklet functions are the ULT ones under another name. */
#define ABT_task_is_unnamed ABT_thread_is_unnamed
#define ABT_task_set_specific ABT_thread_set_specific
#define ABT_task_get_specific ABT_thread_get_specific

/* ---------------------------------------------------------------------------------------------
 * The calling work unit
 *
 * ABT_self_* functions act on the caller: its execution stream, its identity, its
 * work-unit-specific data, and the ways it can yield, block, exit or run other work units.
 *
 * Called from a scheduler's context (a user scheduler's run function, a user pool's functions
 * called by a scheduler), the caller is the scheduler as a ULT, as in Argobots, which runs
 * schedulers on ULTs: ABT_self_get_thread, ABT_self_get_thread_id, ABT_self_get_type
 * (ABT_UNIT_TYPE_THREAD), ABT_self_is_primary (ABT_FALSE), ABT_self_is_unnamed,
 * ABT_self_get_last_pool(_id) (none), ABT_self_get_unit and ABT_thread_self(_id) answer for it,
 * with the same handle on every call of the stream, and ABT_key_set/get (ABT_self_set/
 * get_specific) keep its values, destroyed when the stream is freed. The ABT_thread_* calls
 * that read a ULT (get_id, get_state, get_last_pool(_id), get_last_xstream, get_unit,
 * is_primary, is_unnamed, get/set_specific) and ABT_unit_get_thread accept that handle; every
 * call that acts on a ULT refuses it (ABT_ERR_INV_THREAD, a pool ABT_ERR_INV_UNIT). Nothing
 * below that scheduler would run it again: ABT_self_yield returns at once there (as in Argobots,
 * whose stream runs its main scheduler again at once), the suspend, exit and *_to calls return
 * ABT_ERR_INV_THREAD (Argobots refuses its main scheduler's ULT for the *_to calls), and the
 * rest that would act on the caller (set_arg, set_associated_pool ...) ABT_ERR_INV_XSTREAM.
 * ------------------------------------------------------------------------------------------- */

/* Return the execution stream running the caller in *xstream (a work unit, or a scheduler's run
 * function); ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_ARG when xstream is NULL. */
ABT_API_PUBLIC int ABT_self_get_xstream(ABT_xstream *xstream);

/* Return the rank of the execution stream running the caller in *rank (a work unit, or a
 * scheduler's run function); ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_ARG when
 * rank is NULL. */
ABT_API_PUBLIC int ABT_self_get_xstream_rank(int *rank);

/* Return the calling work unit (ULT or tasklet) in *thread; ABT_ERR_INV_XSTREAM from an external
 * thread, ABT_ERR_INV_ARG when thread is NULL. */
ABT_API_PUBLIC int ABT_self_get_thread(ABT_thread *thread);

/* Return the id of the calling work unit (ULT or tasklet) in *id; ABT_ERR_INV_XSTREAM from an
 * external thread, ABT_ERR_INV_ARG when id is NULL. */
ABT_API_PUBLIC int ABT_self_get_thread_id(ABT_unit_id *id);

/* Set the value of key for the calling work unit: the same as ABT_key_set. */
ABT_API_PUBLIC int ABT_self_set_specific(ABT_key key, void *value);

/* Return in *value the value of key for the calling work unit: the same as ABT_key_get. */
ABT_API_PUBLIC int ABT_self_get_specific(ABT_key key, void **value);

/* Return what the caller is in *type: ABT_UNIT_TYPE_THREAD or ABT_UNIT_TYPE_TASK; from an external
 * thread *type is ABT_UNIT_TYPE_EXT and the result ABT_ERR_INV_XSTREAM. ABT_ERR_INV_ARG when type
 * is NULL. */
ABT_API_PUBLIC int ABT_self_get_type(ABT_unit_type *type);

/* Set *is_primary to ABT_TRUE when the caller is the primary ULT; ABT_ERR_INV_XSTREAM from an
 * external thread, ABT_ERR_INV_THREAD from a tasklet, ABT_ERR_INV_ARG when is_primary is NULL. */
ABT_API_PUBLIC int ABT_self_is_primary(ABT_bool *is_primary);

/* Set *on_primary to ABT_TRUE when the caller (a work unit, or a scheduler's run function) runs on
 * the primary execution stream; ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_ARG when
 * on_primary is NULL. */
ABT_API_PUBLIC int ABT_self_on_primary_xstream(ABT_bool *on_primary);

/* Set *is_unnamed to ABT_TRUE when the calling work unit has no handle and is freed when it ends;
 * ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_ARG when is_unnamed is NULL. */
ABT_API_PUBLIC int ABT_self_is_unnamed(ABT_bool *is_unnamed);

/* Return in *pool the pool that the calling work unit was last taken from; ABT_ERR_INV_XSTREAM from
 * an external thread, ABT_ERR_INV_ARG when pool is NULL. */
ABT_API_PUBLIC int ABT_self_get_last_pool(ABT_pool *pool);

/* Return in *pool_id the id of the pool that the calling work unit was last taken from;
 * ABT_ERR_INV_XSTREAM (and -1 in *pool_id) from an external thread, ABT_ERR_INV_ARG when pool_id is
 * NULL. */
ABT_API_PUBLIC int ABT_self_get_last_pool_id(int *pool_id);

/* Make pool the pool that the calling work unit goes back to when it yields or is resumed; it does
 * not yield. ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_POOL, ABT_ERR_MEM as
 * ABT_thread_set_associated_pool. */
ABT_API_PUBLIC int ABT_self_set_associated_pool(ABT_pool pool);

/* Return in *unit the pool unit handle of the calling work unit, as ABT_thread_get_unit does (a
 * user pool's own unit; in goabt's pools, the work unit itself); ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_ARG when unit is NULL. */
ABT_API_PUBLIC int ABT_self_get_unit(ABT_unit *unit);

/* Give the execution stream back to the scheduler; the calling ULT goes back into its pool.
 * ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_THREAD from a tasklet; from a
 * scheduler's context it returns at once. */
ABT_API_PUBLIC int ABT_self_yield(void);

/* Switch straight to thread, a ready ULT popped from its pool by the caller as Argobots 1.2 asks
 * (or still queued there: goabt takes it out); the caller goes back into its pool. A thread that
 * is not ready, or was taken out of its pool by another (a scheduler about to run it, another
 * ULT's ABT_pool_pop*), leaves the caller running; with the main ULT on either side thread runs
 * in its pool's turn and the caller yields. ABT_ERR_INV_THREAD from a tasklet or a scheduler's context,
 * or when thread is invalid, a tasklet or the caller; ABT_ERR_INV_XSTREAM from an external
 * thread. */
ABT_API_PUBLIC int ABT_self_yield_to(ABT_thread thread);

/* Resume the suspended ULT thread and switch straight to it; the caller goes back into its pool.
 * ABT_ERR_INV_XSTREAM from an external thread, ABT_ERR_INV_THREAD from a tasklet or a
 * scheduler's context or for an invalid thread or the caller itself, ABT_ERR_THREAD when thread
 * is not suspended (goabt; undefined in Argobots). With the main ULT on either side thread is
 * resumed into its pool and the caller yields. */
ABT_API_PUBLIC int ABT_self_resume_yield_to(ABT_thread thread);

/* Suspend the calling ULT (BLOCKED, in no pool) until a work unit or external thread resumes it
 * with ABT_thread_resume; its stream runs other work meanwhile. ABT_ERR_INV_XSTREAM from an
 * external thread, ABT_ERR_INV_THREAD from a tasklet or a scheduler's context. */
ABT_API_PUBLIC int ABT_self_suspend(void);

/* Suspend the calling ULT and switch straight to thread, a ready ULT: popped from its pool by the
 * caller, as Argobots 1.2 asks, or still queued there (goabt takes it out). Errors as
 * ABT_self_suspend, and ABT_ERR_INV_THREAD for an invalid thread or the caller itself; a thread
 * that is not ready leaves the caller simply suspended. */
ABT_API_PUBLIC int ABT_self_suspend_to(ABT_thread thread);

/* Resume the suspended ULT thread, switch straight to it and suspend the caller until it is
 * resumed. Errors as ABT_self_resume_yield_to. */
ABT_API_PUBLIC int ABT_self_resume_suspend_to(ABT_thread thread);

/* Terminate the calling ULT; does not return when it succeeds. ABT_ERR_INV_XSTREAM from an external
 * thread, ABT_ERR_INV_THREAD from a tasklet, a scheduler's context or the primary ULT. */
ABT_API_PUBLIC int ABT_self_exit(void);

/* Terminate the calling ULT and switch straight to thread, a ready ULT popped from its pool (or
 * still queued: goabt takes it out); does not return. ABT_ERR_INV_XSTREAM from an external
 * thread, ABT_ERR_INV_THREAD from a tasklet, a scheduler's context or the main ULT, or for an
 * invalid thread or the caller itself. */
ABT_API_PUBLIC int ABT_self_exit_to(ABT_thread thread);

/* Resume the suspended ULT thread, switch straight to it and terminate the caller; does not
 * return. Errors as ABT_self_resume_yield_to, and ABT_ERR_INV_THREAD from the main ULT. */
ABT_API_PUBLIC int ABT_self_resume_exit_to(ABT_thread thread);

/* Run the work unit thread, which is ready and in no pool, as ABT_xstream_run_unit does: from a
 * scheduler, or from a ULT on top of it (the caller goes on once thread yields, blocks or
 * finishes); pool (ABT_POOL_NULL: its associated pool) becomes the pool it goes back to when it
 * yields. ABT_ERR_INV_THREAD, ABT_ERR_INV_POOL for invalid handles, ABT_ERR_INV_UNIT when thread
 * is not ready or still in a pool, ABT_ERR_INV_THREAD from a tasklet, ABT_ERR_INV_XSTREAM from
 * an external thread. */
ABT_API_PUBLIC int ABT_self_schedule(ABT_thread thread, ABT_pool pool);

/* Replace the argument of the calling work unit; ABT_ERR_INV_XSTREAM from an external thread. */
ABT_API_PUBLIC int ABT_self_set_arg(void *arg);

/* Return the argument of the calling work unit in *arg; ABT_ERR_INV_XSTREAM from an external
 * thread, ABT_ERR_INV_ARG when arg is NULL. */
ABT_API_PUBLIC int ABT_self_get_arg(void **arg);

/* Return the function run by the calling work unit in *thread_func; ABT_ERR_INV_XSTREAM from an
 * external thread, ABT_ERR_INV_ARG when thread_func is NULL. */
ABT_API_PUBLIC int ABT_self_get_thread_func(void (**thread_func)(void *));

/* These are the ULT versions under another name. */
#define ABT_self_get_task ABT_self_get_thread
#define ABT_self_get_task_id ABT_self_get_thread_id

/* ---------------------------------------------------------------------------------------------
 * Work-unit-specific data keys
 *
 * A key names one pointer-sized value per work unit, like pthread keys but per ULT or tasklet.
 * Values are set and read for the caller (ABT_key_*, ABT_self_*_specific) or for any work unit
 * (ABT_thread_set_specific, ABT_thread_get_specific).
 * ------------------------------------------------------------------------------------------- */

/* Create a work-unit-specific data key in *newkey; every work unit reads NULL for it until it is
 * set. destructor (may be NULL) is called with each non-NULL value when its work unit is freed
 * (ABT_thread_free, termination of an unnamed unit, ABT_finalize for the main ULT), by whoever
 * frees it, even if the key was freed first. ABT_ERR_INV_ARG when newkey is NULL, ABT_ERR_MEM
 * when 131,056 keys exist. */
ABT_API_PUBLIC int ABT_key_create(void (*destructor)(void *), ABT_key *newkey);

/* Free the key *key and set *key to ABT_KEY_NULL. Its values can no longer be read; their
 * destructor still runs when their work units are freed. The freed key's id is reused by later
 * keys; its handle is refused with ABT_ERR_INV_KEY until then. ABT_ERR_INV_ARG when key is
 * NULL. */
ABT_API_PUBLIC int ABT_key_free(ABT_key *key);

/* Set the value of key for the calling work unit (main ULT, ULT or tasklet); setting again
 * replaces the value without calling the destructor. ABT_ERR_INV_KEY for an invalid key, then
 * ABT_ERR_UNINITIALIZED, then ABT_ERR_INV_XSTREAM from an external thread. */
ABT_API_PUBLIC int ABT_key_set(ABT_key key, void *value);

/* Return in *value the value of key for the calling work unit (NULL if never set).
 * ABT_ERR_INV_KEY for an invalid key, ABT_ERR_INV_ARG when value is NULL, then
 * ABT_ERR_UNINITIALIZED, then ABT_ERR_INV_XSTREAM from an external thread. */
ABT_API_PUBLIC int ABT_key_get(ABT_key key, void **value);

/* ---------------------------------------------------------------------------------------------
 * Mutexes
 *
 * Who waits how: a ULT (the main ULT included) waiting for a mutex lets other work units run on
 * its execution stream (ABT_mutex_lock first yields and looks again a few times, then waits in
 * line); an external thread or a tasklet sleeps (a tasklet's whole stream waits). An unlock wakes
 * the longest-waiting caller: lock_high waiters first, then lock and spinlock waiters in arrival
 * order, then lock_low waiters. The woken caller takes the mutex unless a running caller took it
 * first (it then waits again, first in line); one that has lost it so for a millisecond is handed
 * it by the next unlock, so no waiter starves. A waiting tasklet (or scheduler, waiting on its
 * stream's own context) holds its stream's thread, so it is served before anyone else, and takes
 * for itself a hand-over to a ULT that has not run since: a ULT that only its stream can run
 * would otherwise wait for it for ever. The owner is the calling work unit (or OS
 * thread): a recursive mutex may be relocked by its owner, on any stream.
 * A mutex can also live in static memory: an ABT_mutex_memory initialized with
 * ABT_MUTEX_INITIALIZER (or ABT_RECURSIVE_MUTEX_INITIALIZER) and turned into a handle with
 * ABT_MUTEX_MEMORY_GET_HANDLE. Such a mutex works before ABT_init, after ABT_finalize and from
 * any thread (not in a child forked after its parent used goabt: Fork), and is never freed.
 * Invalid handles (NULL, ABT_MUTEX_NULL, freed mutexes, objects of other kinds, a static memory
 * area another kind already uses) give ABT_ERR_INV_MUTEX.
 * ------------------------------------------------------------------------------------------- */

/* Storage for a statically allocated mutex; its content is private to the runtime. */
typedef struct {
    int dummy[16];
} ABT_mutex_memory;

#define ABT_MUTEX_INITIALIZER { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } }
#define ABT_RECURSIVE_MUTEX_INITIALIZER { { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } }
#define ABT_MUTEX_MEMORY_GET_HANDLE(p_mutex_memory) ((ABT_mutex)p_mutex_memory)

/* Create a non-recursive mutex in *newmutex, before ABT_init too (see the top of this file).
 * ABT_ERR_INV_ARG when newmutex is NULL, ABT_ERR_MEM; *newmutex is ABT_MUTEX_NULL on error. */
ABT_API_PUBLIC int ABT_mutex_create(ABT_mutex *newmutex);

/* Create a mutex with the properties of attr (ABT_MUTEX_ATTR_NULL: defaults); later changes to
 * attr do not affect it. Errors as ABT_mutex_create, and ABT_ERR_INV_MUTEX_ATTR. */
ABT_API_PUBLIC int ABT_mutex_create_with_attr(ABT_mutex_attr attr, ABT_mutex *newmutex);

/* Free *mutex and set it to ABT_MUTEX_NULL. ABT_ERR_INV_ARG when mutex is NULL,
 * ABT_ERR_INV_MUTEX for an invalid handle or a static mutex (never freed). goabt: a mutex that
 * work units are waiting for is not freed (ABT_ERR_MUTEX: they would wait forever); freeing a
 * locked one nobody waits for is allowed. */
ABT_API_PUBLIC int ABT_mutex_free(ABT_mutex *mutex);

/* Lock mutex, waiting while another holds it (see "who waits how" above). A recursive mutex's
 * owner locks it again at once. ABT_ERR_INV_MUTEX for an invalid handle. */
ABT_API_PUBLIC int ABT_mutex_lock(ABT_mutex mutex);

/* Lock mutex; if it must wait, the caller goes ahead of every lock and lock_low waiter (behind
 * earlier lock_high ones).
 * ABT_ERR_INV_MUTEX for an invalid handle. */
ABT_API_PUBLIC int ABT_mutex_lock_high(ABT_mutex mutex);

/* Lock mutex; if it must wait, every lock and lock_high waiter goes first. ABT_ERR_INV_MUTEX for
 * an invalid handle. */
ABT_API_PUBLIC int ABT_mutex_lock_low(ABT_mutex mutex);

/* Lock mutex if it is free (or the caller owns it and it is recursive); ABT_ERR_MUTEX_LOCKED at
 * once otherwise. ABT_ERR_INV_MUTEX for an invalid handle. */
ABT_API_PUBLIC int ABT_mutex_trylock(ABT_mutex mutex);

/* Lock mutex by spinning, without yielding. goabt: after about 4,000 rounds the caller waits like
 * ABT_mutex_lock instead, so that a holder sharing its stream can finish. ABT_ERR_INV_MUTEX for an
 * invalid handle. */
ABT_API_PUBLIC int ABT_mutex_spinlock(ABT_mutex mutex);

/* Unlock mutex (one level of a recursive one); the longest waiter, if any, gets it.
 * ABT_ERR_INV_MUTEX for an invalid handle. Unlocking a mutex the caller does not hold is
 * undefined in Argobots; goabt returns ABT_ERR_MUTEX for a mutex nobody holds, and otherwise
 * unlocks it. */
ABT_API_PUBLIC int ABT_mutex_unlock(ABT_mutex mutex);

/* Unlock mutex as ABT_mutex_unlock does; when a waiter got the mutex and the caller is a ULT,
 * the caller then yields so that the waiter can run soon. Errors as ABT_mutex_unlock. */
ABT_API_PUBLIC int ABT_mutex_unlock_se(ABT_mutex mutex);

/* Unlock mutex as ABT_mutex_unlock does (goabt hands the mutex to its longest waiter, wherever
 * it runs). Errors as ABT_mutex_unlock. */
ABT_API_PUBLIC int ABT_mutex_unlock_de(ABT_mutex mutex);

/* Set *result to ABT_TRUE when mutex1 and mutex2 are the same handle, ABT_FALSE otherwise.
 * ABT_ERR_INV_ARG when result is NULL. */
ABT_API_PUBLIC int ABT_mutex_equal(ABT_mutex mutex1, ABT_mutex mutex2, ABT_bool *result);

/* Return in *attr a new attribute object describing mutex; free it with ABT_mutex_attr_free.
 * ABT_ERR_INV_MUTEX for an invalid handle, then ABT_ERR_INV_ARG when attr is NULL, ABT_ERR_MEM. */
ABT_API_PUBLIC int ABT_mutex_get_attr(ABT_mutex mutex, ABT_mutex_attr *attr);

/* --- Mutex attributes. Invalid handles give ABT_ERR_INV_MUTEX_ATTR. */

/* Create a mutex attribute object with default values (not recursive), before ABT_init too.
 * ABT_ERR_INV_ARG when newattr is NULL, ABT_ERR_MEM. */
ABT_API_PUBLIC int ABT_mutex_attr_create(ABT_mutex_attr *newattr);

/* Free the attribute object *attr and set *attr to ABT_MUTEX_ATTR_NULL. ABT_ERR_INV_ARG when
 * attr is NULL, ABT_ERR_INV_MUTEX_ATTR for an invalid handle. */
ABT_API_PUBLIC int ABT_mutex_attr_free(ABT_mutex_attr *attr);

/* Make mutexes created with attr recursive (ABT_TRUE) or not (ABT_FALSE). */
ABT_API_PUBLIC int ABT_mutex_attr_set_recursive(ABT_mutex_attr attr, ABT_bool recursive);

/* Return in *recursive whether attr makes recursive mutexes; ABT_ERR_INV_ARG when recursive is
 * NULL. */
ABT_API_PUBLIC int ABT_mutex_attr_get_recursive(ABT_mutex_attr attr, ABT_bool *recursive);

/* ---------------------------------------------------------------------------------------------
 * Condition variables
 *
 * Used with an ABT_mutex the caller holds; every waiter at one time must use the same mutex. A
 * ULT waiting lets other work units run on its stream; an external thread sleeps. A wait returns
 * only when signalled or (timed waits) at the deadline: never spuriously. Like mutexes, they can
 * live in static memory (ABT_cond_memory, ABT_COND_INITIALIZER, ABT_COND_MEMORY_GET_HANDLE),
 * usable from any thread, never freed. Invalid handles give ABT_ERR_INV_COND.
 * ------------------------------------------------------------------------------------------- */

/* Storage for a statically allocated condition variable; its content is private. */
typedef struct {
    int dummy[16];
} ABT_cond_memory;

#define ABT_COND_INITIALIZER { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } }
#define ABT_COND_MEMORY_GET_HANDLE(p_cond_memory) ((ABT_cond)p_cond_memory)

/* Create a condition variable in *newcond, before ABT_init too (see the top of this file).
 * ABT_ERR_INV_ARG when newcond is NULL, ABT_ERR_MEM; *newcond is ABT_COND_NULL on error. */
ABT_API_PUBLIC int ABT_cond_create(ABT_cond *newcond);

/* Free *cond and set it to ABT_COND_NULL. ABT_ERR_INV_ARG when cond is NULL, ABT_ERR_INV_COND for
 * an invalid handle or a static one, ABT_ERR_COND while work units wait on it (it stays
 * usable). */
ABT_API_PUBLIC int ABT_cond_free(ABT_cond *cond);

/* Release mutex, block until cond is signalled, and lock mutex again (all levels of a recursive
 * one) before returning. ABT_ERR_INV_COND, then ABT_ERR_INV_MUTEX for an invalid mutex, one the
 * caller does not hold, or one other than the current waiters'; ABT_ERR_COND from a tasklet (it
 * would block its stream without end, as Argobots 1.x refuses). */
ABT_API_PUBLIC int ABT_cond_wait(ABT_cond cond, ABT_mutex mutex);

/* Like ABT_cond_wait, but give up at the absolute CLOCK_REALTIME time abstime with
 * ABT_ERR_COND_TIMEDOUT, the mutex locked again (a passed deadline times out at once). Tasklets
 * may call it (their stream's thread sleeps). ABT_ERR_INV_ARG when abstime is NULL. */
ABT_API_PUBLIC int ABT_cond_timedwait(ABT_cond cond, ABT_mutex mutex,
                                      const struct timespec *abstime);

/* Wake the longest waiter on cond, if any (the caller need not hold the mutex).
 * ABT_ERR_INV_COND for an invalid handle. */
ABT_API_PUBLIC int ABT_cond_signal(ABT_cond cond);

/* Wake every work unit waiting on cond. ABT_ERR_INV_COND for an invalid handle. */
ABT_API_PUBLIC int ABT_cond_broadcast(ABT_cond cond);

/* ---------------------------------------------------------------------------------------------
 * Readers-writer locks
 *
 * Any number of readers or one writer at a time.
 * ------------------------------------------------------------------------------------------- */

/* Create an unlocked readers-writer lock in *newrwlock (ABT_RWLOCK_NULL on error), before
 * ABT_init too. ABT_ERR_INV_ARG when newrwlock is NULL, ABT_ERR_MEM when out of memory. */
ABT_API_PUBLIC int ABT_rwlock_create(ABT_rwlock *newrwlock);

/* Free the readers-writer lock *rwlock, locked or not, and set *rwlock to ABT_RWLOCK_NULL.
 * ABT_ERR_INV_RWLOCK for an invalid handle, ABT_ERR_INV_ARG when rwlock is NULL. While callers
 * wait for it, goabt refuses with ABT_ERR_RWLOCK (undefined in Argobots). */
ABT_API_PUBLIC int ABT_rwlock_free(ABT_rwlock *rwlock);

/* Lock rwlock for reading, shared with other readers; call ABT_rwlock_unlock once per rdlock.
 * Waits only while a writer holds it, not for writers waiting, as in Argobots: a waiting ULT
 * lets its stream run other work units, an external thread sleeps. ABT_ERR_INV_RWLOCK for an
 * invalid handle, ABT_ERR_RWLOCK when called from a tasklet (Argobots 1.x). */
ABT_API_PUBLIC int ABT_rwlock_rdlock(ABT_rwlock rwlock);

/* Lock rwlock for writing, excluding every other holder; waits like ABT_rwlock_rdlock while
 * anyone holds it. ABT_ERR_INV_RWLOCK for an invalid handle, ABT_ERR_RWLOCK when called from a
 * tasklet (Argobots 1.x). */
ABT_API_PUBLIC int ABT_rwlock_wrlock(ABT_rwlock rwlock);

/* Release the write lock, or else one read lock, held on rwlock (by any caller). Once it is
 * free, goabt hands it to the longest waiter, or to every waiting reader if that one is a
 * reader; Argobots wakes all waiters to race for it. ABT_ERR_INV_RWLOCK for an invalid handle;
 * ABT_ERR_RWLOCK when nobody holds it (undefined in Argobots). */
ABT_API_PUBLIC int ABT_rwlock_unlock(ABT_rwlock rwlock);

/* ---------------------------------------------------------------------------------------------
 * Eventuals
 *
 * An eventual is a value set once and awaited by any number of work units. A statically
 * allocated one (ABT_eventual_memory, ABT_EVENTUAL_INITIALIZER, ABT_EVENTUAL_MEMORY_GET_HANDLE)
 * carries no value, only readiness, and is not freed. Created and static eventuals work before
 * ABT_init and after ABT_finalize too (see the top of this file).
 * ------------------------------------------------------------------------------------------- */

/* Storage for a statically allocated eventual; its content is private. */
typedef struct {
    int dummy[16];
} ABT_eventual_memory;

#define ABT_EVENTUAL_INITIALIZER { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } }
#define ABT_EVENTUAL_MEMORY_GET_HANDLE(p_eventual_memory) ((ABT_eventual)p_eventual_memory)

/* Create an unready eventual with a buffer of nbytes bytes (0: no buffer, readiness only), before
 * ABT_init too. Errors: ABT_ERR_INV_ARG (nbytes < 0, neweventual NULL), ABT_ERR_MEM. */
ABT_API_PUBLIC int ABT_eventual_create(int nbytes, ABT_eventual *neweventual);

/* Free the eventual *eventual, ready or not, with its buffer, and set *eventual to
 * ABT_EVENTUAL_NULL. Errors: ABT_ERR_INV_EVENTUAL (eventual NULL, an invalid handle, or static
 * memory). goabt refuses to free an eventual that callers are blocked on with ABT_ERR_EVENTUAL
 * (undefined in Argobots). */
ABT_API_PUBLIC int ABT_eventual_free(ABT_eventual *eventual);

/* Block until eventual is ready (return at once if it is); then, if value is not NULL, *value
 * points to its buffer (NULL when it has none). ULTs, the main ULT included, are suspended and
 * let their stream run other work; external threads sleep. Errors: ABT_ERR_INV_EVENTUAL;
 * ABT_ERR_EVENTUAL from a tasklet, even on a ready eventual (Argobots 1.x). */
ABT_API_PUBLIC int ABT_eventual_wait(ABT_eventual eventual, void **value);

/* Like ABT_eventual_wait, but give up at the absolute CLOCK_REALTIME time abstime: then it
 * returns ABT_ERR_COND_TIMEDOUT and leaves *value alone. A ready eventual returns ABT_SUCCESS
 * even with a past deadline. Errors: ABT_ERR_INV_EVENTUAL, ABT_ERR_INV_ARG (abstime NULL),
 * ABT_ERR_EVENTUAL from a tasklet (as ABT_eventual_wait). */
ABT_API_PUBLIC int ABT_eventual_timedwait(ABT_eventual eventual, void **value,
                                          const struct timespec *abstime);

/* Set *is_ready to whether eventual is ready, without blocking; when it is and value is not
 * NULL, *value points to its buffer (left alone otherwise). Errors: ABT_ERR_INV_EVENTUAL,
 * ABT_ERR_INV_ARG (is_ready NULL). */
ABT_API_PUBLIC int ABT_eventual_test(ABT_eventual eventual, void **value, ABT_bool *is_ready);

/* Copy nbytes bytes from value into the buffer of eventual, make it ready and wake every caller
 * blocked on it. Errors: ABT_ERR_INV_EVENTUAL (invalid handle, or nbytes larger than the buffer:
 * Argobots 1.x), ABT_ERR_INV_ARG (nbytes < 0, or value NULL with nbytes > 0), ABT_ERR_EVENTUAL
 * (already ready: the value stays as it was). Nothing changes on error. */
ABT_API_PUBLIC int ABT_eventual_set(ABT_eventual eventual, void *value, int nbytes);

/* Make eventual unready, whether it was ready or not, so that it can be set again; callers
 * blocked on an unready eventual keep waiting for the next set. Errors: ABT_ERR_INV_EVENTUAL. */
ABT_API_PUBLIC int ABT_eventual_reset(ABT_eventual eventual);

/* ---------------------------------------------------------------------------------------------
 * Futures
 *
 * A future has a fixed number of compartments; it becomes ready when all have been set.
 * ------------------------------------------------------------------------------------------- */

/* Create an unready future of num_compartments compartments (0: ready from the start). When a
 * set fills the last compartment, cb_func (if not NULL) runs on that setter with the array of
 * the values in set order, before the future becomes ready; goabt runs it without holding any
 * lock, so it may block or call other functions. Before ABT_init too. Errors: ABT_ERR_INV_ARG
 * (newfuture NULL), ABT_ERR_MEM. */
ABT_API_PUBLIC int ABT_future_create(uint32_t num_compartments, void (*cb_func)(void **),
                                     ABT_future *newfuture);

/* Free the future *future, ready or not, and set *future to ABT_FUTURE_NULL. Errors:
 * ABT_ERR_INV_FUTURE (future NULL or an invalid handle). goabt refuses with ABT_ERR_FUTURE
 * while callers are blocked on it or its callback runs (undefined in Argobots). */
ABT_API_PUBLIC int ABT_future_free(ABT_future *future);

/* Block until future is ready (return at once if it is). ULTs, the main ULT included, are
 * suspended and let their stream run other work; external threads sleep. Errors:
 * ABT_ERR_INV_FUTURE; ABT_ERR_FUTURE from a tasklet, ready or not (Argobots 1.x). */
ABT_API_PUBLIC int ABT_future_wait(ABT_future future);

/* Set *is_ready to whether future is ready, without blocking. Errors: ABT_ERR_INV_FUTURE,
 * ABT_ERR_INV_ARG (is_ready NULL). */
ABT_API_PUBLIC int ABT_future_test(ABT_future future, ABT_bool *is_ready);

/* Store value in the next free compartment of future. The set that fills the last one runs the
 * callback, then makes the future ready and wakes every caller blocked on it. Errors:
 * ABT_ERR_INV_FUTURE; ABT_ERR_FUTURE when no compartment is free (ready, its callback still
 * running, or no compartments at all). */
ABT_API_PUBLIC int ABT_future_set(ABT_future future, void *value);

/* Empty every compartment of future so that it fills again; a future without compartments stays
 * ready. Callers blocked on an unready future keep waiting. A reset made while the callback runs
 * takes effect when that set completes (after its waiters are woken). Errors:
 * ABT_ERR_INV_FUTURE. */
ABT_API_PUBLIC int ABT_future_reset(ABT_future future);

/* ---------------------------------------------------------------------------------------------
 * Barriers
 *
 * A barrier releases its waiters together once the expected number of them has arrived.
 * ------------------------------------------------------------------------------------------- */

/* Create in *newbarrier a barrier that opens each time num_waiters work units or external
 * threads wait on it, before ABT_init too; *newbarrier is ABT_BARRIER_NULL on error.
 * ABT_ERR_INV_ARG when num_waiters is 0 or newbarrier NULL, ABT_ERR_MEM when out of memory. */
ABT_API_PUBLIC int ABT_barrier_create(uint32_t num_waiters, ABT_barrier *newbarrier);

/* Change the number of waiters of barrier to num_waiters. ABT_ERR_INV_BARRIER for an invalid
 * handle, ABT_ERR_INV_ARG when num_waiters is 0. While callers wait on it, goabt refuses with
 * ABT_ERR_BARRIER (undefined in Argobots). */
ABT_API_PUBLIC int ABT_barrier_reinit(ABT_barrier barrier, uint32_t num_waiters);

/* Free the barrier *barrier and set *barrier to ABT_BARRIER_NULL. ABT_ERR_INV_BARRIER for an
 * invalid handle, ABT_ERR_INV_ARG when barrier is NULL. While callers wait on it, goabt refuses
 * with ABT_ERR_BARRIER (undefined in Argobots). */
ABT_API_PUBLIC int ABT_barrier_free(ABT_barrier *barrier);

/* Wait until num_waiters callers wait on barrier, then return in all of them; the barrier is
 * then ready for the next round. A waiting ULT lets its stream run other work units, an
 * external thread sleeps. ABT_ERR_INV_BARRIER for an invalid handle, ABT_ERR_BARRIER when
 * called from a tasklet (Argobots 1.x; the call does not count as an arrival). */
ABT_API_PUBLIC int ABT_barrier_wait(ABT_barrier barrier);

/* Store in *num_waiters the number of waiters barrier was created or last reinitialized with.
 * ABT_ERR_INV_BARRIER for an invalid handle, ABT_ERR_INV_ARG when num_waiters is NULL. */
ABT_API_PUBLIC int ABT_barrier_get_num_waiters(ABT_barrier barrier, uint32_t *num_waiters);

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */

/* Write the name of the error code err (e.g. "ABT_ERR_INV_THREAD") into str unless str is NULL,
 * and its length into *len unless len is NULL. Unknown codes return ABT_ERR_OTHER. */
ABT_API_PUBLIC int ABT_error_get_str(int err, char *str, size_t *len);

/* ---------------------------------------------------------------------------------------------
 * Timers
 *
 * ABT_get_wtime reads the clock directly; ABT_timer objects measure intervals.
 * ------------------------------------------------------------------------------------------- */

/* Return the time in seconds read from a monotonic clock, from an arbitrary fixed origin; works
 * before ABT_init. */
ABT_API_PUBLIC double ABT_get_wtime(void);

/* Timer functions work before ABT_init. A NULL or ABT_TIMER_NULL timer returns ABT_ERR_INV_TIMER
 * and a NULL output pointer ABT_ERR_INV_ARG. */

/* Allocate a timer into *newtimer; on ABT_ERR_MEM *newtimer is ABT_TIMER_NULL. */
ABT_API_PUBLIC int ABT_timer_create(ABT_timer *newtimer);

/* Create in *newtimer a new timer holding the start and stop times of timer; on error *newtimer
 * is ABT_TIMER_NULL. */
ABT_API_PUBLIC int ABT_timer_dup(ABT_timer timer, ABT_timer *newtimer);

/* Free the timer *timer and set *timer to ABT_TIMER_NULL (a NULL timer pointer also gives
 * ABT_ERR_INV_TIMER). */
ABT_API_PUBLIC int ABT_timer_free(ABT_timer *timer);

/* Record the current (monotonic) time as the start of timer. */
ABT_API_PUBLIC int ABT_timer_start(ABT_timer timer);

/* Record the current (monotonic) time as the stop of timer. */
ABT_API_PUBLIC int ABT_timer_stop(ABT_timer timer);

/* Set *secs to the seconds from the last start to the last stop of timer. */
ABT_API_PUBLIC int ABT_timer_read(ABT_timer timer, double *secs);

/* Stop timer, then set *secs to the seconds since its start. */
ABT_API_PUBLIC int ABT_timer_stop_and_read(ABT_timer timer, double *secs);

/* Stop timer, then add the seconds since its start to *secs. */
ABT_API_PUBLIC int ABT_timer_stop_and_add(ABT_timer timer, double *secs);

/* Set *overhead to the average cost, in seconds, of one start/stop/read cycle, measured over 5000
 * cycles. */
ABT_API_PUBLIC int ABT_timer_get_overhead(double *overhead);

/* ---------------------------------------------------------------------------------------------
 * Information and debugging output
 * ------------------------------------------------------------------------------------------- */

/* What ABT_info_query_config writes into *val. Most kinds give an ABT_bool: whether a feature or
 * check is built in or enabled (FCONTEXT and DYNAMIC_PROMOTION: whether that context-switch
 * method is used). The others: MAX_NUM_XSTREAMS an unsigned int; DEFAULT_THREAD_STACKSIZE and
 * DEFAULT_SCHED_STACKSIZE a size_t; DEFAULT_SCHED_EVENT_FREQ and DEFAULT_SCHED_SLEEP_NSEC a
 * uint64_t; ENABLED_STACK_OVERFLOW_CHECK an int, the ABT_STACK_OVERFLOW_CHECK mode in force
 * (0 none, 1 canary, 2 mprotect, 3 mprotect_strict; see ABT_init for what each does in goabt);
 * WAIT_POLICY an int (0 passive, 1 active). */
enum ABT_info_query_kind {
    ABT_INFO_QUERY_KIND_ENABLED_DEBUG,
    ABT_INFO_QUERY_KIND_ENABLED_PRINT_ERRNO,
    ABT_INFO_QUERY_KIND_ENABLED_LOG,
    ABT_INFO_QUERY_KIND_ENABLED_VALGRIND,
    ABT_INFO_QUERY_KIND_ENABLED_CHECK_ERROR,
    ABT_INFO_QUERY_KIND_ENABLED_CHECK_POOL_PRODUCER,
    ABT_INFO_QUERY_KIND_ENABLED_CHECK_POOL_CONSUMER,
    ABT_INFO_QUERY_KIND_ENABLED_PRESERVE_FPU,
    ABT_INFO_QUERY_KIND_ENABLED_THREAD_CANCEL,
    ABT_INFO_QUERY_KIND_ENABLED_TASK_CANCEL,
    ABT_INFO_QUERY_KIND_ENABLED_MIGRATION,
    ABT_INFO_QUERY_KIND_ENABLED_STACKABLE_SCHED,
    ABT_INFO_QUERY_KIND_ENABLED_EXTERNAL_THREAD,
    ABT_INFO_QUERY_KIND_ENABLED_SCHED_SLEEP,
    ABT_INFO_QUERY_KIND_ENABLED_PRINT_CONFIG,
    ABT_INFO_QUERY_KIND_ENABLED_AFFINITY,
    ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS,
    ABT_INFO_QUERY_KIND_DEFAULT_THREAD_STACKSIZE,
    ABT_INFO_QUERY_KIND_DEFAULT_SCHED_STACKSIZE,
    ABT_INFO_QUERY_KIND_DEFAULT_SCHED_EVENT_FREQ,
    ABT_INFO_QUERY_KIND_DEFAULT_SCHED_SLEEP_NSEC,
    ABT_INFO_QUERY_KIND_ENABLED_TOOL,
    ABT_INFO_QUERY_KIND_FCONTEXT,
    ABT_INFO_QUERY_KIND_DYNAMIC_PROMOTION,
    ABT_INFO_QUERY_KIND_ENABLED_STACK_UNWIND,
    ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK,
    ABT_INFO_QUERY_KIND_WAIT_POLICY,
    ABT_INFO_QUERY_KIND_ENABLED_LAZY_STACK_ALLOC
};
typedef enum ABT_info_query_kind ABT_info_query_kind;

/* Write the configuration fact query_kind into *val, whose type depends on the kind (see enum
 * ABT_info_query_kind); features goabt lacks (debug, logging, valgrind mode, pool checks ...)
 * read ABT_FALSE, and cancellation, migration, stackable schedulers and the tool interface
 * ABT_TRUE. ENABLED_AFFINITY is ABT_TRUE only when ABT_SET_AFFINITY asked goabt to bind each
 * stream to the CPUs its rank picks, as yes or as a CPU list that reads (Argobots binds by
 * default, goabt does not); ENABLED_PRINT_CONFIG whether ABT_PRINT_CONFIG asked for the
 * configuration at ABT_init. ABT_ERR_INV_QUERY_KIND for an unknown kind, ABT_ERR_INV_ARG when val
 * is NULL, ABT_ERR_UNINITIALIZED before ABT_init. */
ABT_API_PUBLIC int ABT_info_query_config(ABT_info_query_kind query_kind, void *val);

/* Print goabt's configuration to fp: every fact ABT_info_query_config reports, one line each,
 * then what only goabt has (streams now, usable CPUs, the safety wake-up, the Go pool and policy
 * replacing the predefined ones, the leak report, the CPU sets ABT_SET_AFFINITY binds ranks to).
 * ABT_PRINT_CONFIG=1 (or y, yes, true, on) prints the same on stdout at every outermost ABT_init.
 * ABT_ERR_INV_ARG when fp is NULL,
 * ABT_ERR_UNINITIALIZED before ABT_init. */
ABT_API_PUBLIC int ABT_info_print_config(FILE *fp);

/* The ABT_info_print_* functions below write a few lines per object, each starting with a
 * header naming its kind and the number a program can ask for (a stream's rank, a pool's id, a
 * work unit's id, which printing assigns like ABT_thread_get_id does; the address for schedulers
 * and attributes, which have no number), then one "name : value" line per field. As in
 * Argobots 1.x (not 2.0, which prints a line about a NULL handle and succeeds), an invalid
 * handle returns that handle's error code and prints nothing. A NULL fp, which Argobots leaves
 * undefined, returns ABT_ERR_INV_ARG. Debugging output: fields are read without stopping the
 * objects, so a print racing with changes may mix old and new values. */

/* Print every execution stream, by rank, as ABT_info_print_xstream does, after a line with
 * their number; ABT_ERR_UNINITIALIZED before ABT_init. */
ABT_API_PUBLIC int ABT_info_print_all_xstreams(FILE *fp);

/* Print the execution stream xstream: rank, primary or secondary, state, the CPU it is bound to,
 * the unit it runs, a pending finish, its main scheduler and that scheduler's pools (by id).
 * ABT_ERR_INV_XSTREAM for an invalid handle. */
ABT_API_PUBLIC int ABT_info_print_xstream(FILE *fp, ABT_xstream xstream);

/* Print the scheduler sched: kind (predefined kind, user-defined, Go policy), what it is used
 * as (a stream's main scheduler, stacked, unused), automatic, pending finish and exit, its data,
 * its pools by id in priority order, then each pool as ABT_info_print_pool does.
 * ABT_ERR_INV_SCHED for an invalid handle. */
ABT_API_PUBLIC int ABT_info_print_sched(FILE *fp, ABT_sched sched);

/* Print the pool: id, kind (FIFO, FIFO_WAIT, RANDWS, user-defined, Go pool), access, automatic,
 * size, parked ULTs that belong to it, the number of schedulers using it, its data.
 * ABT_ERR_INV_POOL for an invalid handle. */
ABT_API_PUBLIC int ABT_info_print_pool(FILE *fp, ABT_pool pool);

/* Print the work unit thread, a ULT or a tasklet: id, kind, state, the stream it last ran on,
 * its pool, its function (with its symbol when the dynamic linker knows it) and argument, its
 * stack (address, size, whose), migratable, named. ABT_ERR_INV_THREAD for an invalid handle. */
ABT_API_PUBLIC int ABT_info_print_thread(FILE *fp, ABT_thread thread);

/* Print the ULT attribute attr: stack (the program's or goabt's), stack size, migratable, the
 * migration callback. ABT_ERR_INV_THREAD_ATTR for an invalid handle. */
ABT_API_PUBLIC int ABT_info_print_thread_attr(FILE *fp, ABT_thread_attr attr);

/* ABT_info_print_thread for a tasklet (it takes ULTs too, as in Argobots 1.1 and later);
 * ABT_ERR_INV_TASK for an invalid handle. */
ABT_API_PUBLIC int ABT_info_print_task(FILE *fp, ABT_task task);

/* Print the stack of the ULT thread, which must not be running: a line "=== ULT <id> (<address>)
 * ===", its state, then a hex dump of the part of its stack in use, from its saved stack pointer
 * to the top (at most the 32 KiB nearest the stack pointer), four 8-byte words a line, and the
 * words in it that point into executable code of a loaded object, newest first, each with its
 * symbol, or object and offset (for addr2line) when the symbol is not exported: a raw backtrace.
 * A tasklet, a ULT not started yet, a terminated or a running ULT, and the main ULT (whose stack
 * is the main thread's) get one line saying so instead. ABT_ERR_INV_THREAD for an invalid
 * handle. */
ABT_API_PUBLIC int ABT_info_print_thread_stack(FILE *fp, ABT_thread thread);

/* Print, as ABT_info_print_thread_stack does, the stack of every work unit queued in pool (a
 * header for tasklets), after a header with the pool's id. A built-in pool is walked under its
 * lock, so that none of its units can run while printed; a user-defined pool (or a Go pool)
 * through its print_all: ABT_ERR_POOL when it has none. ABT_ERR_INV_POOL for an invalid
 * handle. */
ABT_API_PUBLIC int ABT_info_print_thread_stacks_in_pool(FILE *fp, ABT_pool pool);

/* Ask for the stacks of every work unit queued in the pools of the execution streams' main
 * schedulers to be printed to fp. Async-signal-safe (callable from a signal handler): it only
 * records the request and returns; the schedulers see it at their next scheduling point, with
 * no cost to them until then (the request makes their timer check due). The first stream there
 * wakes the idle ones, waits until every running stream has stopped at a scheduling point (or
 * timeout seconds have passed; negative: no limit), prints a line per stream (rank, main
 * scheduler, pool ids) and each pool as ABT_info_print_thread_stacks_in_pool does, between
 * "Start of ULT stacks" and "End of ULT stacks" lines with the time; the streams go on, and that
 * stream calls cb_func(timed_out, arg), if cb_func is not NULL: timed_out is ABT_TRUE if it
 * printed without every stream stopped. A request made while another is pending (until
 * cb_func is called) is dropped. ULTs that are blocked or suspended are in no pool and are not printed. Nothing is
 * printed while no stream reaches a scheduling point. ABT_ERR_UNINITIALIZED before ABT_init;
 * fp NULL prints nothing but still calls cb_func. */
ABT_API_PUBLIC int ABT_info_trigger_print_all_thread_stacks(FILE *fp, double timeout,
                                                            void (*cb_func)(ABT_bool, void *),
                                                            void *arg);

/* ---------------------------------------------------------------------------------------------
 * Tool interface
 *
 * A tool registers a callback for work-unit events (creation, run, yield, join ...) and, inside
 * it, queries details of the event through its ABT_tool_context.
 * goabt: the interface is off unless the environment variable GOABT_TOOL is 1 (or y, yes, true,
 * on) at ABT_init, as Argobots' default build has none: off, ABT_info_query_config answers
 * ABT_FALSE for ABT_INFO_QUERY_KIND_ENABLED_TOOL, and both functions below return
 * ABT_ERR_FEATURE_NA. On, the query answers ABT_TRUE and they work as described.
 * ------------------------------------------------------------------------------------------- */

/* What ABT_tool_query_thread reports about an event. */
enum ABT_tool_query_kind {
    ABT_TOOL_QUERY_KIND_POOL,              /* the pool involved in the event */
    ABT_TOOL_QUERY_KIND_STACK_DEPTH,       /* how deeply work units are nested */
    ABT_TOOL_QUERY_KIND_CALLER_TYPE,       /* the kind of caller (ABT_exec_entity_type) */
    ABT_TOOL_QUERY_KIND_CALLER_HANDLE,     /* the caller's handle */
    ABT_TOOL_QUERY_KIND_SYNC_OBJECT_TYPE,  /* the kind of synchronization (ABT_sync_event_type) */
    ABT_TOOL_QUERY_KIND_SYNC_OBJECT_HANDLE /* the handle of that synchronization object */
};
typedef enum ABT_tool_query_kind ABT_tool_query_kind;

/* Kind of caller that produced an event. */
enum ABT_exec_entity_type {
    ABT_EXEC_ENTITY_TYPE_EXT,   /* an external thread */
    ABT_EXEC_ENTITY_TYPE_THREAD /* a work unit */
};
typedef enum ABT_exec_entity_type ABT_exec_entity_type;

/* What a work unit blocked or yielded on. */
enum ABT_sync_event_type {
    ABT_SYNC_EVENT_TYPE_UNKNOWN = 0,  /* not known */
    ABT_SYNC_EVENT_TYPE_USER,         /* an explicit yield or suspend by the program */
    ABT_SYNC_EVENT_TYPE_OTHER,        /* something else inside the runtime */
    ABT_SYNC_EVENT_TYPE_XSTREAM_JOIN, /* joining an execution stream */
    ABT_SYNC_EVENT_TYPE_THREAD_JOIN,  /* joining a work unit */
    ABT_SYNC_EVENT_TYPE_MUTEX,        /* a mutex */
    ABT_SYNC_EVENT_TYPE_COND,         /* a condition variable */
    ABT_SYNC_EVENT_TYPE_RWLOCK,       /* a readers-writer lock */
    ABT_SYNC_EVENT_TYPE_EVENTUAL,     /* an eventual */
    ABT_SYNC_EVENT_TYPE_FUTURE,       /* a future */
    ABT_SYNC_EVENT_TYPE_BARRIER       /* a barrier */
};
typedef enum ABT_sync_event_type ABT_sync_event_type;

/* Work-unit events, ORed into the event_mask of ABT_tool_register_thread_callback. */
#define ABT_TOOL_EVENT_THREAD_NONE (0)
#define ABT_TOOL_EVENT_THREAD_CREATE (1 << 0)
#define ABT_TOOL_EVENT_THREAD_JOIN (1 << 1)
#define ABT_TOOL_EVENT_THREAD_FREE (1 << 2)
#define ABT_TOOL_EVENT_THREAD_REVIVE (1 << 3)
#define ABT_TOOL_EVENT_THREAD_RUN (1 << 4)
#define ABT_TOOL_EVENT_THREAD_FINISH (1 << 5)
#define ABT_TOOL_EVENT_THREAD_CANCEL (1 << 6)
#define ABT_TOOL_EVENT_THREAD_YIELD (1 << 7)
#define ABT_TOOL_EVENT_THREAD_SUSPEND (1 << 8)
#define ABT_TOOL_EVENT_THREAD_RESUME (1 << 9)
#define ABT_TOOL_EVENT_THREAD_ALL ((uint64_t)((1 << 12) - 1))

/* A tool callback: the work unit, the execution stream where the event happens, the event (one
 * ABT_TOOL_EVENT_THREAD_* bit), its context for ABT_tool_query_thread and the user argument. */
typedef void (*ABT_tool_thread_callback_fn)(ABT_thread, ABT_xstream, uint64_t, ABT_tool_context,
                                            void *);
typedef void (*ABT_tool_task_callback_fn)(ABT_task, ABT_xstream, uint64_t, ABT_tool_context,
                                          void *);

/* Call cb_func(thread, xstream, event, context, user_arg) on the work-unit events in event_mask
 * (ABT_TOOL_EVENT_THREAD_*), ULTs and tasklets alike, on the thread where each happens (xstream:
 * its stream, ABT_XSTREAM_NULL on an external thread); one tool at a time, a new registration
 * replaces the last; cb_func NULL unregisters; ABT_init starts with none. Events: CREATE (before
 * the unit is queued), RUN (each time a scheduler runs it), YIELD, SUSPEND (it blocks: a wait,
 * a join, ABT_self_suspend), RESUME (it is made ready again), FINISH, CANCEL (it ends by
 * ABT_thread_cancel), JOIN (a join of it returns), FREE, REVIVE. The callback must not block or
 * switch. Without a tool each event site costs one load and a branch not taken.
 * ABT_ERR_UNINITIALIZED outside ABT_init ... ABT_finalize, then ABT_ERR_FEATURE_NA while the
 * interface is off (GOABT_TOOL, above). */
ABT_API_PUBLIC int ABT_tool_register_thread_callback(ABT_tool_thread_callback_fn cb_func,
                                                     uint64_t event_mask, void *user_arg);

/* From inside a tool callback, write a fact about the event, chosen by query_kind, into *val:
 * POOL (ABT_pool: where the unit is queued or runs from), STACK_DEPTH (int: units run on top of
 * other ULTs on that stream, 0 from a stream's own scheduler), CALLER_TYPE (ABT_exec_entity_type:
 * THREAD when a work unit caused the event, EXT for an external thread or a stream's scheduler),
 * CALLER_HANDLE (that unit's ABT_thread, or NULL), SYNC_OBJECT_TYPE (ABT_sync_event_type: USER for
 * ABT_thread_yield and ABT_self_suspend; for a block, the kind of what it waits on: MUTEX, COND,
 * EVENTUAL, THREAD_JOIN ...; THREAD_JOIN for each yield of a ULT joining a tasklet, which polls
 * as in Argobots; UNKNOWN otherwise), SYNC_OBJECT_HANDLE (that object: the mutex, the unit joined
 * ..., or NULL). The context is valid only during
 * the callback. ABT_ERR_FEATURE_NA while the interface is off (GOABT_TOOL, above), then
 * ABT_ERR_INV_TOOL_CONTEXT for ABT_TOOL_CONTEXT_NULL and for anything that is not the context
 * of a callback running on the calling thread (a context kept past its callback, a handle of
 * another kind, any other pointer: refused without being read), ABT_ERR_INV_ARG when val is NULL,
 * ABT_ERR_INV_QUERY_KIND for an unknown kind. */
ABT_API_PUBLIC int ABT_tool_query_thread(ABT_tool_context context, uint64_t event,
                                         ABT_tool_query_kind query_kind, void *val);

#ifdef __cplusplus
}
#endif

#endif /* ABT_H_INCLUDED */
