/*
 * common.h: what every file of the C engine (capi/engine) and of the entry points (capi/api)
 * shares: the names of the kinds, spinlocks, and the attribute that keeps a symbol inside
 * libgoabt.so. Internal. Each kind has a header of its own beside this one (unit.h, pool.h,
 * scheduler.h, stream.h, wait.h, runtime.h, tool.h, handles.h ...): a file includes those it uses.
 *
 * Roles (fixed names, used everywhere in the engine: its files, types and functions take the
 * role's name, stream*.c, unit*.c, sched*.c, pool*.c, keys.c, but for scheduler.h, since a
 * sched.h on the include path would hide the system's <sched.h>; Argobots' word for each is in
 * parentheses, and the entry points in capi/api are named after Argobots' kinds, xstream.c,
 * thread.c, task.c, sched.c, key.c):
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
 * Who does what. Every hot path is C over memory whose layout these headers define: the context
 * switch, the scheduler loop, queues, wake-ups, blocking, the synchronization objects, and the
 * key and object fast paths (docs/design.md rule 9). The Go core (core/, reached from C through the
 * gate, gocalls.h) owns memory (unit descriptors, stacks, key tables: the C caches go to it when
 * they miss or overflow), registries (keys, OPAL classes, the leak check's live objects: leaks.h,
 * pool and scheduler configurations: configs.h), configuration, tracing, and the text of the leak
 * report and of info printing. Cold path still in C: gathering the engine's facts those texts
 * show.
 *
 * Where each kind lives (docs/design.md, "Where things live and why"): its entry points in
 * capi/api/<kind>.c, which check, resolve the handles (handles.h) and call the engine; its
 * engine in capi/engine/<kind>*.c, described at the top of capi/engine/<kind>.h.

 *
 * Invariant checks. GOABT_ASSERT(cond) states what the engine believes at that point (a unit's
 * state at a transition, who holds a lock, whether a node is on a list): in the checked build
 * (make lib-checked: -DGOABT_CHECKED, run over every ctest by ctests/checked_test.go) a false
 * one prints "goabt: assertion failed: file:line: function: cond" on stderr and aborts, so that
 * a broken belief shows where it breaks, not where the damage surfaces later; in every other
 * build it is nothing and cond is not evaluated, so the hot paths pay nothing. GOABT_ASSERT_MSG
 * adds a printf-style explanation. Either may run on a ULT stack, inside a spinlock or in the
 * scheduler's context: no Go call, no malloc, one write(2) of a small buffer. GOABT_CHECKED_ONLY
 * (x) keeps code that exists only to feed an assertion out of the release build.
 * GOABT_RACE_WINDOW() marks a point between two steps another thread may see apart (a stream's
 * end between publishing TERMINATED and taking its joiners, a joiner between its look at the
 * state and its wait): the checked build stalls there
 * ~20 µs, so that every ctest run under it meets the interleaving a release build meets once
 * in a million; elsewhere it is nothing.
 */
#ifndef GOABT_COMMON_H
#define GOABT_COMMON_H

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

#define GOABT_HIDDEN __attribute__((visibility("hidden")))

typedef struct ABT_thread_opaque goabt_unit;
typedef struct ABT_xstream_opaque goabt_stream;
typedef struct ABT_pool_opaque goabt_pool;
typedef struct ABT_sched_opaque goabt_sched;
typedef struct ABT_thread_attr_opaque goabt_attr;
typedef struct goabt_keytable goabt_keytable; /* keys.h */

/* What the scheduler does with a unit that switched to it, once its context is saved (unit.h,
 * "Switching out"). */
typedef void (*goabt_after_fn)(goabt_unit *u, void *arg);

/* Joiners waiting for a unit or a stream (wait.h): a stack of waiters pushed with a CAS, or
 * GOABT_JOIN_DONE once the unit or stream has finished. */
typedef struct goabt_waiter goabt_waiter;
#define GOABT_JOIN_DONE ((goabt_waiter *)1)

/* A FIFO of waiters (wait.h). All zero is empty: objects in static memory start that way. Here,
 * not in wait.h, because pools (pool.h, which wait.h reaches through stream.h) hold one. */
typedef struct goabt_waitlist {
    goabt_waiter *head, *tail;
} goabt_waitlist;

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

/* Prints "goabt: <why>" on stderr and aborts: a user pool broke the engine's assumptions. */
__attribute__((noreturn)) void goabt_die(const char *why) GOABT_HIDDEN;

/* Invariant checks (top of this file). */
__attribute__((noreturn, cold, format(printf, 5, 6))) void goabt_assert_fail(
    const char *file, int line, const char *func, const char *cond, const char *fmt, ...)
    GOABT_HIDDEN;
#ifdef GOABT_CHECKED
#define GOABT_ASSERT(cond)                                                               \
    do {                                                                                 \
        if (__builtin_expect(!(cond), 0))                                                \
            goabt_assert_fail(__FILE__, __LINE__, __func__, #cond, NULL);                \
    } while (0)
#define GOABT_ASSERT_MSG(cond, ...)                                                      \
    do {                                                                                 \
        if (__builtin_expect(!(cond), 0))                                                \
            goabt_assert_fail(__FILE__, __LINE__, __func__, #cond, __VA_ARGS__);         \
    } while (0)
#define GOABT_CHECKED_ONLY(x) x
void goabt_race_window(void) GOABT_HIDDEN;
#define GOABT_RACE_WINDOW() goabt_race_window()
#else
/* sizeof keeps cond compiled (its names stay checked, no unused-variable warnings) but never
 * evaluated. */
#define GOABT_ASSERT(cond) ((void)sizeof(!(cond)))
#define GOABT_ASSERT_MSG(cond, ...) ((void)sizeof(!(cond)))
#define GOABT_CHECKED_ONLY(x)
#define GOABT_RACE_WINDOW() ((void)0)
#endif
/* A spinlock is held (by someone: it records no owner). */
#define GOABT_ASSERT_LOCKED(l) GOABT_ASSERT(__atomic_load_n((l), __ATOMIC_RELAXED) != 0)

#endif /* GOABT_COMMON_H */
