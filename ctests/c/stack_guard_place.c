/* Where a ULT's guard page lies, as a program sees it. In modes mprotect and mprotect_strict
 * Argobots puts the protected page inside the stack a ULT reports (ABT_thread_get_attr of self,
 * then ABT_thread_attr_get_stack), in its lowest pages; a program that looks for it there, from
 * the second whole page of the reported stack downwards, must find it before it leaves the
 * reported stack. Here each ULT does that under a SIGSEGV handler of the program's own (the
 * probe's fault must reach it, not be taken for an overflow by goabt's handler):
 *  - a ULT with the default stack, one with a stack size set in its attribute (not a multiple
 *    of the page), and one on a stack the program gave (malloc'd): in the mprotect modes a
 *    write faults in one of the two lowest whole pages of the reported stack, which holds the
 *    ULT's own frame too; the program's stack is writable again once the ULT is freed;
 *  - in modes none and canary nothing in the reported stack faults, and the program's stack is
 *    left alone.
 * ABT_thread_get_stack reports the same as the attribute, and get_stacksize its size. In mode
 * mprotect_strict the guard is a page the program may mprotect itself, as under Argobots: a
 * handler that lifts it lets the faulting write go on. */
// ctest-variant: mprotect ABT_STACK_OVERFLOW_CHECK=mprotect
// ctest-variant: strict ABT_STACK_OVERFLOW_CHECK=mprotect_strict
// ctest-variant: none ABT_STACK_OVERFLOW_CHECK=none
// ctest-variant: canary ABT_STACK_OVERFLOW_CHECK=canary
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

static size_t page;
static int guarded_mode; /* mprotect or mprotect_strict */
static int strict_mode;  /* mprotect_strict */

static sigjmp_buf probe_env;
static volatile int probing;
static volatile uintptr_t fault_addr;
static volatile int lifting;     /* the handler lifts the guard instead of jumping */
static volatile uintptr_t lifted; /* the page it lifted */

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (sig == SIGSEGV && lifting) {
        lifting = 0;
        lifted = (uintptr_t)si->si_addr & ~(uintptr_t)(page - 1);
        /* The system call itself (a wrapper-free mprotect is async-signal-safe in practice). */
        if (syscall(SYS_mprotect, (void *)lifted, page, PROT_READ | PROT_WRITE) == 0) return;
    }
    if (sig == SIGSEGV && probing) {
        probing = 0;
        fault_addr = (uintptr_t)si->si_addr;
        siglongjmp(probe_env, 1);
    }
    signal(sig, SIG_DFL); /* anything else: die as without a handler */
}

/* Writes the byte at p (with its own value); 1 if that faulted. */
static int write_faults(volatile char *p)
{
    fault_addr = 0;
    if (sigsetjmp(probe_env, 1) == 0) {
        probing = 1;
        char v = *p;
        __asm__ __volatile__("" ::: "memory");
        *p = v;
        __asm__ __volatile__("" ::: "memory");
        probing = 0;
        return 0;
    }
    return 1;
}

typedef struct {
    int rc;            /* every query succeeded */
    void *stack;       /* what the attribute reports */
    size_t size;
    int same;          /* ABT_thread_get_stack and _get_stacksize report the same */
    int frame_inside;  /* a local of the ULT lies in the reported stack */
    uintptr_t faulted; /* the page whose write faulted, or 0 */
    int lift_worked;   /* strict mode: with the guard lifted by the handler, the write went on */
} probe_result;

/* Strict mode: writes to the guard page at g with a handler that lifts it; 1 if the write went
 * on and the handler lifted exactly g. The guard is put back (PROT_NONE) after. */
static int lift_guard(uintptr_t g)
{
    lifted = 0;
    lifting = 1;
    *(volatile char *)g = 7;
    int ok = !lifting && lifted == g && *(volatile char *)g == 7;
    lifting = 0;
    mprotect((void *)g, page, PROT_NONE);
    return ok;
}

static void probe(void *arg)
{
    probe_result *r = arg;
    ABT_thread self;
    ABT_thread_attr attr;
    r->rc = ABT_self_get_thread(&self) == ABT_SUCCESS && ABT_thread_get_attr(self, &attr) == ABT_SUCCESS &&
            ABT_thread_attr_get_stack(attr, &r->stack, &r->size) == ABT_SUCCESS &&
            ABT_thread_attr_free(&attr) == ABT_SUCCESS;
    void *s2 = NULL;
    size_t z2 = 0, z3 = 0;
    r->same = ABT_thread_get_stack(self, &s2, &z2) == ABT_SUCCESS &&
              ABT_thread_get_stacksize(self, &z3) == ABT_SUCCESS && s2 == r->stack && z2 == r->size &&
              z3 == r->size;
    volatile char here = 0;
    uintptr_t lo = (uintptr_t)r->stack, hi = lo + r->size;
    r->frame_inside = (uintptr_t)&here >= lo && (uintptr_t)&here < hi;
    /* The second whole page of the reported stack, then the first, then below them while still
     * inside it: where a program looks for the guard. */
    uintptr_t first = (lo + page - 1) & ~(uintptr_t)(page - 1);
    for (uintptr_t p = first + page; p >= lo && p + page <= hi && p >= first; p -= page) {
        if (write_faults((volatile char *)p)) {
            r->faulted = p;
            if (strict_mode) r->lift_worked = lift_guard(p);
            break;
        }
        if (p == first) break;
    }
    (void)here;
}

static void run_probe(ABT_pool pool, ABT_thread_attr attr, probe_result *r, int user_stack)
{
    memset(r, 0, sizeof *r);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, probe, r, attr, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK(r->rc);
    CHECK(r->same);
    CHECK(r->frame_inside);
    uintptr_t lo = (uintptr_t)r->stack;
    uintptr_t first = (lo + page - 1) & ~(uintptr_t)(page - 1);
    printf("stack %p, %zu bytes; write faulted at %#lx\n", r->stack, r->size,
           (unsigned long)r->faulted);
    if (guarded_mode) {
        CHECK(r->faulted == first || r->faulted == first + page);
    }
    if (strict_mode && !user_stack) CHECK(r->lift_worked);
    if (!guarded_mode) {
        CHECK(r->faulted == 0);
    }
}

int main(void)
{
    alarm(60 * CTEST_SLOW); /* a guard that cannot be lifted faults for ever: fail, do not hang */
    page = (size_t)sysconf(_SC_PAGESIZE);
    const char *mode = getenv("ABT_STACK_OVERFLOW_CHECK");
    guarded_mode = mode != NULL && strncmp(mode, "mprotect", 8) == 0;
    strict_mode = mode != NULL && strcmp(mode, "mprotect_strict") == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    CHECK_INT(sigaction(SIGSEGV, &sa, NULL), 0);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool pool;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    probe_result r;

    printf("the default stack\n");
    run_probe(pool, ABT_THREAD_ATTR_NULL, &r, 0);
    size_t dflt = 0;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_DEFAULT_THREAD_STACKSIZE, &dflt), ABT_SUCCESS);
    CHECK(r.size >= dflt);

    printf("a stack size set in the attribute\n");
    size_t asked = 2 * page + 64 * 1024 + 128;
    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_stacksize(attr, asked), ABT_SUCCESS);
    run_probe(pool, attr, &r, 0);
    CHECK(r.size >= asked);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);

    printf("a stack the program gave\n");
    size_t given = 64 * 1024 + 100;
    char *mem = malloc(given);
    CHECK(mem != NULL);
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_stack(attr, mem, given), ABT_SUCCESS);
    run_probe(pool, attr, &r, 1);
    CHECK(r.stack == mem && r.size == given);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    /* Freed, the ULT leaves the program's memory as it was: every page writable. */
    int writable = 1;
    for (size_t off = 0; off < given; off += page / 2) writable &= !write_faults(mem + off);
    CHECK(writable);
    free(mem);

    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
