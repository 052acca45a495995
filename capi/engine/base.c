//go:build goabt_c_engine
/* base.c: what every layer of the engine uses of runtime.h: the calling thread's stream, how the
 * engine dies or fails an assertion, the gate by which a ULT calls Go, futexes, and the
 * asymmetric fence that user C pools' pushes rely on. Init and finalize are runtime.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "context.h"
#include "gocalls.h"
#include "runtime.h"
#include "stream.h"
#include "unit.h"
#include "valgrind_stacks.h"
#include "wait.h"

/* ---- Per-thread state ------------------------------------------------------------------- */

/* Initial-exec: read at a fixed offset from the thread pointer, not through __tls_get_addr
 * (~2 ns on every self query, key get and yield). The Go runtime in this library already needs
 * static TLS, so this adds no new constraint on loading it. */
__thread goabt_stream *goabt_tls_stream __attribute__((tls_model("initial-exec")));
#define tls_stream goabt_tls_stream

__attribute__((noinline, noipa)) goabt_stream *goabt_self_stream_call(void)
{
    return tls_stream;
}

__attribute__((noinline, noipa)) void goabt_set_self_stream(goabt_stream *s)
{
    tls_stream = s;
}

void goabt_die(const char *why)
{
    fprintf(stderr, "goabt: %s\n", why);
    abort();
}

#ifdef GOABT_CHECKED
/* One write(2) of a stack buffer, no stdio lock or malloc: it may run on a ULT stack, in the
 * scheduler's context or with a spinlock held, and must not deadlock on what it reports. */
void goabt_assert_fail(const char *file, int line, const char *func, const char *cond,
                       const char *fmt, ...)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "goabt: assertion failed: %s:%d: %s: %s", file, line, func,
                     cond);
    if (n < 0) n = 0;
    if (fmt != NULL && (size_t)n < sizeof buf) {
        va_list ap;
        va_start(ap, fmt);
        int m = snprintf(buf + n, sizeof buf - (size_t)n, " (");
        if (m > 0) n += m;
        if ((size_t)n < sizeof buf) {
            m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
            if (m > 0) n += m;
        }
        if ((size_t)n < sizeof buf) {
            m = snprintf(buf + n, sizeof buf - (size_t)n, ")");
            if (m > 0) n += m;
        }
        va_end(ap);
    }
    if ((size_t)n > sizeof buf - 2) n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    ssize_t w = write(2, buf, (size_t)n);
    (void)w;
    abort();
}

/* A spin, not a sleep: the stalled thread keeps its CPU, as it would in a preemption. */
void goabt_race_window(void)
{
    uint64_t end = goabt_monotonic_ns() + 20000;
    while (goabt_monotonic_ns() < end) {
    }
}
#endif

/* ---- The gate ----------------------------------------------------------------------------- */

/* Below the scheduler's saved registers, with room to spare for its red zone. */
#define GATE_MARGIN 256

/* A stream's thread goes through the Go scheduler about this often while it calls into Go
 * (goabt_go_reschedule, capi/runtime.go: well under the 10 ms after which the Go runtime takes
 * its P back), looking at the clock every GO_CALLS_PER_LOOK calls. A thread that seldom calls
 * into Go seldom looks: its P, taken back now and then, costs little. */
#define GO_RESCHEDULE_NS 5000000ULL
#define GO_CALLS_PER_LOOK 64u

static __attribute__((noinline)) void go_reschedule_due(goabt_stream *s)
{
    uint64_t now = goabt_monotonic_ns();
    if (now - s->go_sched_at < GO_RESCHEDULE_NS) return;
    s->go_sched_at = now;
    goabt_reschedule();
}

void goabt_gate(void (*fn)(void *), void *arg)
{
    goabt_stream *s = goabt_self_stream();
    if (s == NULL) {
        fn(arg);
        return;
    }
    if (__builtin_expect(++s->go_calls % GO_CALLS_PER_LOOK == 0, 0)) go_reschedule_due(s);
    goabt_unit *u = s->current;
    GOABT_ASSERT(s->nested >= 0);
    /* On a ULT stack: a ULT runs (not the main ULT, which runs on the main stack), or a child
     * run is in progress, or the primary's user scheduler runs on its own stack (then even the
     * scheduler code in between, after-switch callbacks and tasklets, runs off the system
     * stack, which sys_ctx names). */
    int above = s->nested > 0 || s->run_live;
    if (above || (u != NULL && u->kind == GOABT_ULT && !(u->flags & GOABT_UNIT_MAIN))) {
        /* The system stack's context is saved while anything runs above it. */
        GOABT_ASSERT_MSG((above ? s->sys_ctx : s->sched_ctx) != NULL,
                         "stream %d: the gate needs the system stack's saved context", s->rank);
        char *top = (char *)(above ? s->sys_ctx : s->sched_ctx) - GATE_MARGIN;
        goabt_vg_stack_hop(top); /* valgrind build only (valgrind_stacks.h) */
        goabt_gate_call(fn, arg, top);
    } else {
        fn(arg);
    }
}

/* ---- Futexes ------------------------------------------------------------------------------ */

void goabt_futex_wait(int *addr, int seen, long long timeout_ns)
{
    struct timespec limit = {(time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000)};
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, seen, timeout_ns > 0 ? &limit : NULL, NULL, 0);
}

void goabt_futex_wake(int *addr, int n)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Whether membarrier(PRIVATE_EXPEDITED) works here: registered, and tried once. The
 * registration is the process's, and costs 10 to 20 ms (the kernel waits for every CPU to pass
 * a grace period): a first ABT_init that paid it would cost ten times native's. So it is made
 * at the first user C pool, the only kind whose pushes rely on it, once per process. */
static pthread_once_t membarrier_once = PTHREAD_ONCE_INIT;
static int membarrier_registered;

static void membarrier_register(void)
{
#ifdef SYS_membarrier
    membarrier_registered =
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
#endif
}

/* Whether goabt_rt.asym_fence was decided since ABT_init (under fence_lock; ABT_init resets it). */
static pthread_mutex_t fence_lock = PTHREAD_MUTEX_INITIALIZER;
static int fence_decided;

void goabt_asym_fence_decide(void)
{
    if (__atomic_load_n(&fence_decided, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&fence_lock);
    if (!fence_decided) {
        /* Before the first user C pool is published, so no push or sleep on one can see the
         * flag change under it (it only ever goes back to 0 after: goabt_pool_sleepers_fence). */
        pthread_once(&membarrier_once, membarrier_register);
        __atomic_store_n(&goabt_rt.asym_fence, membarrier_registered, __ATOMIC_RELAXED);
        __atomic_store_n(&fence_decided, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&fence_lock);
}

void goabt_asym_fence_reset(void)
{
    __atomic_store_n(&fence_decided, 0, __ATOMIC_RELAXED);
}
