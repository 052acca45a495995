/* The program's signal handlers beside the Go runtime goabt loads (#36, item 5;
 * capi/golib_signals.c). Before, the Go runtime ABT_init started kept SIGSEGV, SIGBUS, SIGFPE,
 * SIGPIPE and SIGURG after ABT_finalize (the program's SA_RESETHAND and other flags lost), and
 * SIGURG, its preemption signal, never reached the program's handler again. Here:
 *   1. every signal's action (handler, flags, mask) after ABT_finalize is the one before
 *      ABT_init, for handlers with SA_RESETHAND, SA_RESTART, masks, SIG_IGN and SIG_DFL;
 *   2. while goabt runs, SIGURG reaches the program's handler, raised on the main thread, on a
 *      stream's thread from a ULT, and sent to the process;
 *   3. in a second ABT_init with another SIGSEGV handler installed in between, a fault in a ULT
 *      reaches that handler, which jumps out of it: goabt puts the Go runtime's handler back at
 *      every ABT_init, and Go forwards the fault to goabt's forwarder, which calls the handler
 *      installed last, not the one the Go runtime saved when it started (the stack-overflow
 *      check is off, so that nothing of goabt's stands between Go's handler and the fault);
 *      after ABT_finalize the handler is the program's again. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

static struct sigaction before[NSIG];

static void read_all(struct sigaction *out)
{
    for (int s = 1; s < NSIG; s++) {
        memset(&out[s], 0, sizeof out[s]);
        sigaction(s, NULL, &out[s]);
    }
}

/* Signals whose action differs from before[] (handler, flags less SA_RESTORER, or mask). */
static int changed_since(void)
{
    struct sigaction now[NSIG];
    read_all(now);
    int changed = 0;
    for (int s = 1; s < NSIG; s++) {
        int same = now[s].sa_handler == before[s].sa_handler &&
                   (now[s].sa_flags & ~0x04000000) == (before[s].sa_flags & ~0x04000000);
        for (int m = 1; m < NSIG && same; m++) {
            same = sigismember(&now[s].sa_mask, m) == sigismember(&before[s].sa_mask, m);
        }
        if (!same) {
            printf("signal %d (%s): handler %p flags %#x, was %p flags %#x\n", s, strsignal(s),
                   (void *)now[s].sa_handler, (unsigned)now[s].sa_flags,
                   (void *)before[s].sa_handler, (unsigned)before[s].sa_flags);
            changed++;
        }
    }
    return changed;
}

static void on_segv_first(int sig) { (void)sig; }
static int urg_count; /* atomic */
static void on_urg(int sig)
{
    (void)sig;
    __atomic_add_fetch(&urg_count, 1, __ATOMIC_RELAXED);
}
static void on_usr1(int sig, siginfo_t *si, void *ctx) { (void)sig, (void)si, (void)ctx; }

/* Installs h (a sa_sigaction one with SA_SIGINFO) with flags, masking `masked` (0: none). */
static void install(int sig, void (*h)(int), void (*info)(int, siginfo_t *, void *), int flags,
                    int masked)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    if (info != NULL) {
        sa.sa_sigaction = info;
    } else {
        sa.sa_handler = h;
    }
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    if (masked != 0) sigaddset(&sa.sa_mask, masked);
    sigaction(sig, &sa, NULL);
}

/* Waits until the SIGURG handler has run n times, a bounded while (a hang-catcher only). */
static int urg_reached(int n)
{
    for (long i = 0; i < 2000000L * CTEST_SLOW; i++) {
        if (__atomic_load_n(&urg_count, __ATOMIC_RELAXED) >= n) return 1;
        sched_yield();
    }
    return 0;
}

static void raise_urg(void *arg)
{
    (void)arg;
    pthread_kill(pthread_self(), SIGURG);
}

/* ---- A fault in a ULT, caught by the program ------------------------------------------------ */

static sigjmp_buf fault_jump;
static char *fault_page;
static void *fault_addr;
static int faults; /* the second handler's calls */

static void on_segv_second(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    faults++;
    fault_addr = si->si_addr;
    siglongjmp(fault_jump, 1);
}

static void faulting_ult(void *arg)
{
    int *caught = arg;
    if (sigsetjmp(fault_jump, 1) == 0) {
        *(volatile char *)fault_page = 1; /* PROT_NONE: SIGSEGV */
        *caught = 0;
    } else {
        *caught = 1;
    }
}

int main(void)
{
    /* 1 and 2. */
    install(SIGSEGV, on_segv_first, NULL, SA_RESETHAND | SA_NODEFER, SIGTERM);
    install(SIGURG, on_urg, NULL, SA_RESTART, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    install(SIGUSR1, NULL, on_usr1, SA_SIGINFO, SIGHUP);
    read_all(before);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    raise(SIGURG);
    CHECK(urg_reached(1)); /* raised on the main thread */
    ABT_xstream x;
    ABT_pool pool;
    ABT_thread t;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &x), ABT_SUCCESS);
    ABT_xstream_get_main_pools(x, 1, &pool);
    CHECK_INT(ABT_thread_create(pool, raise_urg, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    ABT_thread_free(&t);
    CHECK(urg_reached(2)); /* on a stream's thread */
    kill(getpid(), SIGURG);
    CHECK(urg_reached(3)); /* to the process: any thread, the Go runtime's too */
    CHECK_INT(ABT_xstream_free(&x), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    CHECK_INT(changed_since(), 0);
    CHECK_INT(__atomic_load_n(&urg_count, __ATOMIC_RELAXED), 3);

    /* 3. */
    install(SIGSEGV, NULL, on_segv_second, SA_SIGINFO | SA_NODEFER, 0);
    read_all(before);
    setenv("ABT_STACK_OVERFLOW_CHECK", "none", 1);
    fault_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(fault_page != MAP_FAILED);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
#if defined(GOABT_CTEST_VALGRIND)
    printf("skipped under valgrind: the deliberate fault is an invalid write to it\n");
    (void)faulting_ult;
#else
    int caught = -1;
    ABT_xstream self;
    ABT_xstream_self(&self);
    ABT_xstream_get_main_pools(self, 1, &pool);
    CHECK_INT(ABT_thread_create(pool, faulting_ult, &caught, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(caught, 1);
    CHECK_INT(faults, 1);
    CHECK(fault_addr == fault_page);
#endif
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    CHECK_INT(changed_since(), 0);
    return check_summary();
}
