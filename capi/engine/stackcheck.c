//go:build goabt_c_engine
/* stackcheck.c: stack-overflow detection (ABT_STACK_OVERFLOW_CHECK, read by core.Config).
 *
 * ULT stacks are mappings the Go core hands out (core/stacks.go) with a guard page at the bottom
 * of each (a lightweight guard region; on kernels before 6.13 a PROT_NONE page, on each of the
 * first 16,384 alive at once; in mode mprotect_strict always a PROT_NONE page). In the mprotect
 * modes the stack a ULT reports starts at its guard page, as in Argobots (unit_stack.c,
 * goabt_unit_map_stack), and a stack the program gave gets a read-only page at its bottom
 * (goabt_user_stack_guard). A ULT that runs off its stack faults there; without help it dies
 * by a bare SIGSEGV, and worse, the kernel cannot even deliver a handler's frame on the
 * exhausted stack. So, outside mode none:
 *
 *   - every stream thread and the primary thread have an alternate signal stack (sigaltstack):
 *     ours, mapped with a guard page, unless the thread has one already (the program's, or the
 *     Go runtime's own on a thread that called Go before, which it sizes for its handler);
 *   - a SIGSEGV and SIGBUS handler (SA_ONSTACK | SA_SIGINFO, every signal blocked while it
 *     runs) looks at the unit the thread's stream runs now (stream->current): a fault in its
 *     guard page with the stack pointer at most a little above it, or just below its stack with
 *     the stack pointer below it too, is an overflow.
 *     It writes one line on stderr naming the ULT (id, the function it was created with, by
 *     name and address, stack size, how to raise it) and aborts. Any other fault goes to the
 *     handler installed before ours.
 *
 * Order with the Go runtime, and Go's rules (os/signal, "Go programs that use cgo" and
 * "Non-Go programs that call Go code"): libgoabt-go.so, a c-shared Go library, installs Go's
 * handlers for the synchronous signals when it loads (golib.c loads it on first need), saving
 * what was there (usually SIG_DFL). ABT_init installs ours after the first call into Go has
 * returned (the runtime is initialized by then), so Go's is the one ours saves and chains to,
 * with the same siginfo and context: a fault in Go code still becomes Go's panic (Go tells its
 * own faults by the interrupted PC and goroutine and may rewrite the context to enter the
 * panic), and a fault in C code it does not own Go forwards to what it saved, or, with none,
 * resets the default action so that the fault kills the process by SIGSEGV as it would have
 * without goabt. Ours is installed with SA_ONSTACK, as Go requires of every handler beside it.
 * The outermost ABT_finalize puts the saved handler back if ours is still the one installed
 * (if the program installed another over it since, ours stays, only chaining). Signal stacks
 * are never taken from a live thread: the Go runtime keeps a C thread's M (and the signal
 * stack it found there) until the thread exits, and a signal that finds that stack disabled
 * is fatal to it ("non-Go code disabled sigaltstack", seen when stream threads restored theirs
 * as they ended). A stream's is freed once its thread is joined; the primary's stays.
 *
 * In mode canary the ULT's lowest stack bytes also carry a canary, laid when it starts and
 * checked when its function returns (goabt_rt.ult_entry): it catches overflows that fault
 * nowhere, on stacks past the guarded ones (from slabs) and on stacks the program gave.
 *
 * Everything the handler does is async-signal-safe: reads of the stream and unit, the unit's id
 * (atomics), write(2), sigaction, raise, abort, numbers formatted by hand, and the function's
 * name read from the symbol table of the executable (static functions too) with open and pread
 * (symname.c); except, for a function of a library (or without /proc), dladdr, which glibc
 * implements under the loader's lock: such a ULT that overflows inside the dynamic loader itself
 * (dlopen) could hang there instead of aborting. Both overflow reports (the handler's, and the
 * canary's when the function returns) name the function so. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include "gocalls.h"
#include "runtime.h"
#include "stream.h"
#include "symname.h"
#include "unit.h"
#include "valgrind_stacks.h"

enum { CHECK_NONE = 0, CHECK_CANARY = 1, CHECK_MPROTECT = 2, CHECK_STRICT = 3 };

/* Our signal stacks: at least this, more if the C library says its handlers need more. */
#define SIGSTACK_MIN (64 * 1024)
/* How far below a ULT's stack the stack pointer may be for a fault there to be its overflow
 * (a frame larger than the guard page jumps over it). */
#define BELOW_MAX (1024 * 1024)
/* How far below the stack pointer the first store of a frame being made may fault: x86-64's
 * push and call store 8 bytes below it; arm64's pre-indexed store pair allocates and fills a
 * frame in one instruction (stp x29, x30, [sp, #-272]!) and faults with the stack pointer not
 * yet moved, up to 512 bytes below it (1024 for a pair of q registers). */
#define SP_SLACK 1024
#define CANARY_WORDS 4

static struct sigaction prev_segv, prev_bus; /* what ours chains to */
static int installed;   /* ours is installed (or was, and someone installed over it) */
static int reporting;   /* atomic: an ABT_init is in force in a checking mode */
static goabt_sigstack primary_sigstack;

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* ---- Signal stacks ------------------------------------------------------------------------ */

void goabt_sigstack_begin(goabt_sigstack *st)
{
    memset(st, 0, sizeof *st);
    if (goabt_rt.stack_check == CHECK_NONE) return;
    if (sigaltstack(NULL, &st->old) != 0) return;
    if (!(st->old.ss_flags & SS_DISABLE)) return; /* the thread has one: it is used */
    size_t page = page_size();
    size_t size = SIGSTACK_MIN;
#ifdef _SC_SIGSTKSZ
    long want = sysconf(_SC_SIGSTKSZ);
    if (want > 0 && (size_t)want * 4 > size) size = (size_t)want * 4;
#endif
    size = (size + page - 1) & ~(page - 1);
    char *m = mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                   -1, 0);
    if (m == MAP_FAILED) return; /* an overflow then dies by a bare SIGSEGV, as before */
    mprotect(m, page, PROT_NONE); /* a guard below it too */
    stack_t ss = {.ss_sp = m + page, .ss_size = size, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(m, size + page);
        return;
    }
    st->mem = m;
    st->size = size + page;
}

void goabt_sigstack_release(goabt_sigstack *st)
{
    if (st->mem != NULL) munmap(st->mem, st->size); /* its thread has ended */
    st->mem = NULL;
}

/* ---- Reporting ---------------------------------------------------------------------------- */

/* A line being built on the signal stack, without stdio. */
typedef struct {
    char buf[512];
    size_t len;
} line_t;

static void put_str(line_t *l, const char *s)
{
    while (*s != '\0' && l->len < sizeof l->buf - 1) l->buf[l->len++] = *s++;
}

static void put_dec(line_t *l, uint64_t v)
{
    char d[24];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0 && l->len < sizeof l->buf - 1) l->buf[l->len++] = d[--n];
}

static void put_hex(line_t *l, uint64_t v)
{
    char d[16];
    int n = 0;
    do {
        d[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    put_str(l, "0x");
    while (n > 0 && l->len < sizeof l->buf - 1) l->buf[l->len++] = d[--n];
}

/* One line on stderr naming u and how to give it more stack, then abort. how: what showed it. */
__attribute__((noreturn)) static void report(goabt_unit *u, const char *how)
{
    line_t l = {.len = 0};
    put_str(&l, "goabt: stack overflow: ULT ");
    put_dec(&l, goabt_unit_id(u));
    put_str(&l, " (function ");
    char name[256];
    if (goabt_symname((uintptr_t)u->func, name, sizeof name)) {
        put_str(&l, name);
        put_str(&l, " at ");
    }
    put_hex(&l, (uint64_t)(uintptr_t)u->func);
    put_str(&l, ") ran off its ");
    put_dec(&l, u->stacksize);
    put_str(&l, "-byte stack (");
    put_str(&l, how);
    if (u->flags & GOABT_UNIT_USER_STACK) {
        put_str(&l, "); the program gave that stack (ABT_thread_attr_set_stack): give a larger one");
    } else {
        put_str(&l, "); raise it with ABT_THREAD_STACKSIZE=");
        put_dec(&l, 2 * (uint64_t)u->stacksize);
        put_str(&l, " (every ULT's default) or ABT_thread_attr_set_stacksize (one ULT's)");
    }
    l.buf[l.len++] = '\n';
    for (size_t off = 0; off < l.len;) {
        ssize_t n = write(2, l.buf + off, l.len - off);
        if (n <= 0 && errno != EINTR) break;
        if (n > 0) off += (size_t)n;
    }
    abort();
}

/* ---- Canaries (mode canary) --------------------------------------------------------------- */

static uint64_t canary_word(const uint64_t *at, int i)
{
    return 0x5a17c0de0badf00dull ^ (uint64_t)(uintptr_t)at ^ ((uint64_t)i << 56);
}

/* The canary's words: the lowest aligned ones of the stack. */
static uint64_t *canary_at(const goabt_unit *u)
{
    return (uint64_t *)(((uintptr_t)u->stack + 7) & ~(uintptr_t)7);
}

static void canary_lay(goabt_unit *u)
{
    uint64_t *w = canary_at(u);
    for (int i = 0; i < CANARY_WORDS; i++) w[i] = canary_word(w, i);
}

static int canary_intact(const goabt_unit *u)
{
    const uint64_t *w = canary_at(u);
#ifdef GOABT_VALGRIND
    /* Below frames that have popped: inaccessible to memcheck, though laid and still ours. */
    VALGRIND_MAKE_MEM_DEFINED(w, CANARY_WORDS * sizeof *w);
#endif
    for (int i = 0; i < CANARY_WORDS; i++) {
        if (w[i] != canary_word(w, i)) return 0;
    }
    return 1;
}

/* What every ULT starts in, in mode canary (goabt_rt.ult_entry). */
static void ult_entry_canary(void *arg)
{
    goabt_unit *u = arg;
    canary_lay(u);
    goabt_ult_after_resume();
    u->func(u->arg);
    if (!canary_intact(u)) report(u, "its canary at the bottom was overwritten, seen when it returned");
    goabt_unit_exit();
}

/* ---- The handler -------------------------------------------------------------------------- */

static uintptr_t context_sp(void *ctx)
{
    ucontext_t *uc = ctx;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    return 0;
#endif
}

/* Whether a fault is u's overflow: OVERFLOW_GUARD, in its guard page (where an overflow of a
 * guarded stack faults first, frames under a page), with the stack pointer at most a little
 * above the fault (a push, a call, a store into the frame being made: a program that touches
 * its own guard page on purpose, as Argobots' tests of the guard do with a handler of their
 * own, is not overflowing, and its fault goes to its handler); OVERFLOW_BELOW, further below,
 * with the stack pointer below it too (a frame larger than a page, or a stack whose guard is
 * only a place); or 0. */
enum { OVERFLOW_GUARD = 1, OVERFLOW_BELOW = 2 };
static int overflowed(goabt_unit *u, siginfo_t *si, void *ctx)
{
    if (u->kind != GOABT_ULT || (u->flags & GOABT_UNIT_MAIN) || si->si_code <= 0) return 0;
    size_t page = page_size();
    /* The lowest byte it may use: above the guard page of a mapping goabt made, above the
     * guard page in a stack the program gave, or that stack's bottom. */
    uintptr_t lo = u->mapping != NULL      ? (uintptr_t)u->mapping + page
                   : u->user_guard != NULL ? (uintptr_t)u->user_guard + page
                                           : (uintptr_t)u->stack;
    if (lo == 0) return 0;
    uintptr_t addr = (uintptr_t)si->si_addr, sp = context_sp(ctx);
    if (addr < lo && addr >= lo - page) return addr + SP_SLACK >= sp ? OVERFLOW_GUARD : 0;
    /* A frame larger than a page jumps over the guard: the stack pointer is below the stack
     * and the fault between it and the stack. (On the system stack, in a gated Go call, the
     * stack pointer may happen to be below too, but then the fault is not right above it.) */
    return sp < lo && sp >= lo - BELOW_MAX && addr + SP_SLACK >= sp && addr < lo ? OVERFLOW_BELOW : 0;
}

/* ---- Guards in stacks the program gave, and the stack a ULT reports ---------------------- */

static int mprotect_mode(void)
{
    return goabt_rt.stack_check == CHECK_MPROTECT || goabt_rt.stack_check == CHECK_STRICT;
}

int goabt_stack_guard_inside(void) { return mprotect_mode(); }

void goabt_user_stack_guard(goabt_unit *u)
{
    u->user_guard = NULL;
    if (!mprotect_mode() || u->stack == NULL) return;
    size_t page = page_size();
    uintptr_t g = ((uintptr_t)u->stack + page - 1) & ~(uintptr_t)(page - 1);
    /* The guard and at least two usable pages above it, or none. */
    if (g + 3 * page > (uintptr_t)u->stack + u->stacksize) return;
    if (mprotect((void *)g, page, PROT_READ) == 0) u->user_guard = (void *)g;
}

void goabt_user_stack_unguard(goabt_unit *u)
{
    if (u->user_guard == NULL) return;
    mprotect(u->user_guard, page_size(), PROT_READ | PROT_WRITE);
    u->user_guard = NULL;
}

/* Passes a fault that is not ours on to the handler installed before ours, as the kernel would
 * have (golib_signals.c). */
static void chain(int sig, siginfo_t *si, void *ctx)
{
    goabt_signal_take_action(sig == SIGBUS ? &prev_bus : &prev_segv, sig, si, ctx);
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    int saved_errno = errno;
    if (__atomic_load_n(&reporting, __ATOMIC_ACQUIRE)) {
        goabt_stream *s = goabt_self_stream();
        goabt_unit *u = s != NULL ? s->current : NULL;
        int how = u != NULL ? overflowed(u, si, ctx) : 0;
        if (how != 0) {
            report(u, how == OVERFLOW_GUARD ? "a fault in its guard page" : "a fault below its stack");
        }
        if (u != NULL && goabt_rt.stack_check == CHECK_CANARY && u->kind == GOABT_ULT &&
            !(u->flags & GOABT_UNIT_MAIN) && u->ctx != NULL && u->stack != NULL &&
            !canary_intact(u)) {
            report(u, "a fault, and its canary at the bottom was overwritten");
        }
    }
    errno = saved_errno;
    chain(sig, si, ctx);
}

/* ---- Init and finalize -------------------------------------------------------------------- */

void goabt_stackcheck_init(void)
{
    goabt_rt.ult_entry = goabt_rt.stack_check == CHECK_CANARY ? ult_entry_canary : goabt_ult_entry;
    if (goabt_rt.stack_check == CHECK_NONE) return;
    goabt_symname_init();
    goabt_sigstack_begin(&primary_sigstack);
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigfillset(&sa.sa_mask);
        if (sigaction(SIGSEGV, &sa, &prev_segv) == 0) {
            if (sigaction(SIGBUS, &sa, &prev_bus) != 0) {
                sigaction(SIGSEGV, &prev_segv, NULL);
            } else {
                installed = 1;
            }
        }
    }
    __atomic_store_n(&reporting, installed, __ATOMIC_RELEASE);
}

/* Puts prev back for sig if ours is the handler installed now; 1 if it did. */
static int uninstall(int sig, const struct sigaction *prev)
{
    struct sigaction now;
    if (sigaction(sig, NULL, &now) != 0 || !(now.sa_flags & SA_SIGINFO) ||
        now.sa_sigaction != on_fault) {
        return 0;
    }
    return sigaction(sig, prev, NULL) == 0;
}

void goabt_stackcheck_finalize(void)
{
    __atomic_store_n(&reporting, 0, __ATOMIC_RELEASE);
    if (installed) {
        /* Only if both are ours still: a handler installed over ours may chain to it. */
        struct sigaction a, b;
        sigaction(SIGSEGV, NULL, &a);
        sigaction(SIGBUS, NULL, &b);
        if ((a.sa_flags & SA_SIGINFO) && a.sa_sigaction == on_fault && (b.sa_flags & SA_SIGINFO) &&
            b.sa_sigaction == on_fault) {
            installed = !(uninstall(SIGSEGV, &prev_segv) & uninstall(SIGBUS, &prev_bus));
        }
    }
    /* The primary thread keeps its signal stack (the next ABT_init finds it there): the Go
     * runtime keeps this thread's M, and a signal stack taken from under it is fatal to Go. */
    goabt_rt.ult_entry = goabt_ult_entry;
}
