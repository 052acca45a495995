/* Stack overflows (ABT_STACK_OVERFLOW_CHECK), each in a child forked before this process used
 * goabt, whose stderr and end the parent reads:
 *  - a ULT with a 16 KiB stack recursing without end, on the primary stream and on a secondary
 *    one: the child writes one line on stderr naming the ULT (its id, the function it was
 *    created with, by name and address), its stack size and ABT_THREAD_STACKSIZE, and dies
 *    by SIGABRT; with the check off (none) it dies by a bare SIGSEGV; the same with 20,000
 *    ULTs alive when the overflowing one is made, where the kernel has lightweight guard
 *    regions (Linux 6.13; without them stacks past 16,384 have none). The program is not
 *    linked with -rdynamic, so dladdr names none of its functions: the ULT on the primary runs
 *    overflow_ult, the one function it exports (--export-dynamic-symbol), the others static
 *    functions, which only its .symtab lists; the variant stripped has no .symtab, and the
 *    line names overflow_ult (from .dynsym) and gives the static ones' addresses alone;
 *  - a NULL dereference in a ULT is no overflow: the child dies by SIGSEGV, nothing said (under
 *    ASan, whose handler was there first, ASan reports it; valgrind counts it as an error, so
 *    that child does not run there);
 *  - a ULT on a stack the program gave, using more than it was given but not leaving memory
 *    the program owns: in mode canary it is caught when it returns, in the mprotect modes by
 *    the read-only page goabt keeps at the bottom of such a stack, in mode none not at all;
 *    its function, static, named as above;
 *  - then, in this process: what ABT_info_query_config reports for the mode, signal stacks on
 *    the stream threads, the handler put back at ABT_finalize; and a nil dereference in Go code
 *    (the Go core's self-test) still becomes a Go panic, recovered, with goabt's handler
 *    installed over the Go runtime's: from the primary thread, a ULT and an external thread.
 * Every child has an alarm: a hang shows up as a failure. */
// ctest-variant: default
// ctest-variant: none ABT_STACK_OVERFLOW_CHECK=none
// ctest-variant: canary ABT_STACK_OVERFLOW_CHECK=canary
// ctest-variant: mprotect ABT_STACK_OVERFLOW_CHECK=mprotect
// ctest-variant: strict ABT_STACK_OVERFLOW_CHECK=mprotect_strict
// ctest-variant: stripped -s -DSTACK_OVERFLOW_STRIPPED
// ctest-libs: -Wl,--export-dynamic-symbol=overflow_ult -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

/* The mode this variant runs with, as the info query reports it. */
static int expected_mode(void)
{
    const char *v = getenv("ABT_STACK_OVERFLOW_CHECK");
    if (v == NULL) return 2;
    if (strcasecmp(v, "canary") == 0) return 1;
    if (strcasecmp(v, "mprotect") == 0) return 2;
    if (strcasecmp(v, "mprotect_strict") == 0) return 3;
    return 0;
}

/* Shared with the children: the id of the ULT that overflows. */
static volatile uint64_t *shared_id;

/* Recursion that the compiler can neither flatten nor turn into a loop. */
__attribute__((noinline)) static int recurse(int depth, uintptr_t stop)
{
    volatile char pad[256]; /* all written: no frame steps over the canary untouched */
    for (size_t i = 0; i < sizeof pad; i++) pad[i] = (char)depth;
    if (stop != 0 && (uintptr_t)&pad[0] < stop) return pad[0];
    return recurse(depth + 1, stop) + pad[0];
}

/* A ULT that overflows: a dynamic symbol (ctest-libs), which dladdr knows too. */
void overflow_ult(void *arg)
{
    (void)arg;
    ABT_unit_id id;
    ABT_self_get_thread_id(&id);
    *shared_id = id;
    recurse(0, 0);
}

/* The same, static: in .symtab only. */
static void static_overflow_ult(void *arg)
{
    (void)arg;
    ABT_unit_id id;
    ABT_self_get_thread_id(&id);
    *shared_id = id;
    recurse(0, 0);
}

void null_ult(void *arg)
{
    volatile int *p = arg;
    *p = 1;
}

/* Uses about `extra` bytes below the stack it was given (*arg: the bottom), then returns. */
static uintptr_t user_stack_bottom;
static void deep_ult(void *arg)
{
    (void)arg;
    ABT_unit_id id;
    ABT_self_get_thread_id(&id);
    *shared_id = id;
    recurse(0, user_stack_bottom - 4096);
}

/* Child programs: each runs one ULT and returns what it exits with if the ULT comes back. */
static int run_ult(void (*fn)(void *), void *arg, int secondary, void *stack, size_t stacksize)
{
    if (ABT_init(0, NULL) != ABT_SUCCESS) return 10;
    ABT_pool pool;
    ABT_xstream xs = ABT_XSTREAM_NULL;
    if (secondary) {
        if (ABT_xstream_create(ABT_SCHED_NULL, &xs) != ABT_SUCCESS) return 11;
        if (ABT_xstream_get_main_pools(xs, 1, &pool) != ABT_SUCCESS) return 12;
    } else {
        ABT_xstream self;
        ABT_self_get_xstream(&self);
        if (ABT_xstream_get_main_pools(self, 1, &pool) != ABT_SUCCESS) return 12;
    }
    ABT_thread_attr attr;
    if (ABT_thread_attr_create(&attr) != ABT_SUCCESS) return 13;
    if (stack != NULL) {
        if (ABT_thread_attr_set_stack(attr, stack, stacksize) != ABT_SUCCESS) return 14;
    } else if (ABT_thread_attr_set_stacksize(attr, stacksize) != ABT_SUCCESS) {
        return 14;
    }
    ABT_thread t;
    if (ABT_thread_create(pool, fn, arg, attr, &t) != ABT_SUCCESS) return 15;
    ABT_thread_attr_free(&attr);
    if (ABT_thread_free(&t) != ABT_SUCCESS) return 16;
    if (secondary && ABT_xstream_free(&xs) != ABT_SUCCESS) return 17;
    if (ABT_finalize() != ABT_SUCCESS) return 18;
    return 0;
}

static int child_overflow_primary(void) { return run_ult(overflow_ult, NULL, 0, NULL, 16384); }
static int child_overflow_secondary(void) { return run_ult(static_overflow_ult, NULL, 1, NULL, 16384); }

/* 20,000 ULTs alive (queued on the primary, run before the overflowing one), then the one. */
#define MANY_ALIVE 20000
static void nothing_ult(void *arg) { (void)arg; }
static int child_overflow_many_alive(void)
{
    if (ABT_init(0, NULL) != ABT_SUCCESS) return 10;
    ABT_xstream self;
    ABT_pool pool;
    ABT_self_get_xstream(&self);
    if (ABT_xstream_get_main_pools(self, 1, &pool) != ABT_SUCCESS) return 12;
    static ABT_thread alive[MANY_ALIVE];
    for (int i = 0; i < MANY_ALIVE; i++) {
        if (ABT_thread_create(pool, nothing_ult, NULL, ABT_THREAD_ATTR_NULL, &alive[i]) != ABT_SUCCESS) {
            return 15;
        }
    }
    return run_ult(static_overflow_ult, NULL, 0, NULL, 16384);
}

/* Whether this kernel has lightweight guard regions (MADV_GUARD_INSTALL, Linux 6.13): the
 * madvise succeeds and the kernel then refuses to write into the page, as core/stacks.go probes
 * it (qemu-user's madvise succeeds doing nothing). */
static int kernel_has_light_guards(void)
{
    char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 0;
    int ok = madvise(m, 4096, 102 /* MADV_GUARD_INSTALL */) == 0 &&
             syscall(SYS_clock_gettime, CLOCK_MONOTONIC, m) == -1 && errno == EFAULT;
    munmap(m, 4096);
    return ok;
}
__attribute__((unused)) static int child_null(void) { return run_ult(null_ult, NULL, 1, NULL, 16384); }
static int child_user_stack(void)
{
    /* 64 KiB of the program's memory; the ULT is given the top 16 KiB and uses more. */
    size_t size = 64 * 1024, given = 16384;
    char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 20;
    char *stack = m + size - given;
    user_stack_bottom = (uintptr_t)stack;
    return run_ult(deep_ult, NULL, 0, stack, given);
}

typedef struct {
    int status;      /* waitpid's */
    char err[4096];  /* the child's stderr */
    int lines;
} outcome_t;

static void fork_child(int (*child)(void), outcome_t *o)
{
    memset(o, 0, sizeof *o);
    int fds[2];
    if (pipe(fds) != 0) return;
    *shared_id = UINT64_MAX; /* ULT ids start at 0 */
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        dup2(fds[1], 2);
        close(fds[0]);
        _exit(child());
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof o->err && (r = read(fds[0], o->err + got, sizeof o->err - 1 - got)) > 0) {
        got += (size_t)r;
    }
    o->err[got] = '\0';
    close(fds[0]);
    waitpid(pid, &o->status, 0);
    check_cut_qemu_line(o->err);
    for (char *p = o->err; *p; p++) o->lines += *p == '\n';
    printf("child's stderr: %s%s", o->err, got > 0 && o->err[got - 1] == '\n' ? "" : "\n");
}

static int died_by(const outcome_t *o, int sig)
{
    return WIFSIGNALED(o->status) && WTERMSIG(o->status) == sig;
}

/* Whether the report names fn, its function: "(function NAME at 0xADDR)", or, for a static
 * function of the stripped variant, "(function 0xADDR)". */
static int names_function(const char *err, void (*fn)(void *), const char *name, int is_static)
{
    char want[128];
    uintptr_t addr = (uintptr_t)fn;
#if defined(STACK_OVERFLOW_STRIPPED)
    if (is_static) {
        snprintf(want, sizeof want, "(function 0x%llx)", (unsigned long long)addr);
        return strstr(err, want) != NULL;
    }
#else
    (void)is_static;
#endif
    snprintf(want, sizeof want, "(function %s at 0x%llx)", name, (unsigned long long)addr);
    return strstr(err, want) != NULL;
}

static void check_overflow_report(int (*child)(void), void (*fn)(void *), const char *name,
                                  int is_static)
{
    outcome_t o;
    fork_child(child, &o);
    if (expected_mode() == 0) {
#if defined(GOABT_CTEST_ASAN)
        CHECK(strstr(o.err, "AddressSanitizer") != NULL); /* its handler took the fault */
#else
        CHECK(died_by(&o, SIGSEGV));
#endif
        CHECK(strstr(o.err, "stack overflow") == NULL);
        return;
    }
    char want[64];
    snprintf(want, sizeof want, "ULT %llu ", (unsigned long long)*shared_id);
    CHECK(*shared_id != UINT64_MAX); /* the ULT ran */
    CHECK(strstr(o.err, want) != NULL);
    CHECK(strstr(o.err, "goabt: stack overflow") != NULL);
    CHECK(strstr(o.err, "16384-byte stack") != NULL);
    CHECK(strstr(o.err, "ABT_THREAD_STACKSIZE") != NULL);
    CHECK(names_function(o.err, fn, name, is_static));
    /* Its first fault is in its guard page (frames are under a page): without one it would
     * have written on through the memory below first. */
    CHECK(strstr(o.err, "a fault in its guard page") != NULL);
    const char *first = strstr(o.err, "goabt:"); /* one report, and nothing else of goabt's */
    CHECK(first != NULL && first == strstr(o.err, "goabt: stack overflow"));
    CHECK(first != NULL && strstr(first + 1, "goabt:") == NULL);
#if defined(GOABT_CTEST_ASAN)
    /* ASan may first warn (3 lines) that it ignores a no-return hook on a ULT stack. */
#else
    CHECK_INT(o.lines, 1);
#endif
    CHECK(died_by(&o, SIGABRT));
}

/* Whether the calling thread has an alternate signal stack. */
static int has_sigstack(void)
{
    stack_t ss;
    return sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE);
}

static int ult_had_sigstack;
static void sigstack_ult(void *arg)
{
    (void)arg;
    ult_had_sigstack = has_sigstack();
}

/* The Go core's self-test: a nil dereference in Go, recovered (capi/runtime.go); NULL if it
 * cannot be found. */
static int (*go_fault)(void);
__attribute__((unused)) static void find_go_fault(void)
{
    Dl_info info;
    if (dladdr((void *)ABT_init, &info) == 0 || info.dli_fname == NULL) return;
    char path[4096];
    snprintf(path, sizeof path, "%s", info.dli_fname);
    char *slash = strrchr(path, '/');
    if (slash == NULL) return;
    snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "libgoabt-go.so");
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (h != NULL) *(void **)&go_fault = dlsym(h, "goabt_go_selftest_fault");
}

__attribute__((unused)) static int go_fault_in_ult;
__attribute__((unused)) static void go_fault_ult(void *arg)
{
    (void)arg;
    go_fault_in_ult = go_fault();
}

__attribute__((unused)) static void *go_fault_thread(void *arg)
{
    *(int *)arg = go_fault();
    return NULL;
}

static void *segv_handler_now(void)
{
    struct sigaction sa;
    sigaction(SIGSEGV, NULL, &sa);
    return (sa.sa_flags & SA_SIGINFO) ? (void *)(uintptr_t)sa.sa_sigaction
                                      : (void *)(uintptr_t)sa.sa_handler;
}

int main(void)
{
    shared_id = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared_id == MAP_FAILED) return 1;
    int mode = expected_mode();
    outcome_t o;
    printf("ABT_STACK_OVERFLOW_CHECK mode %d\n", mode);

    /* Nothing of goabt has run in this process yet: children may use it. */
#if defined(GOABT_CTEST_VALGRIND)
    if (mode == 0) {
        printf("skipped under valgrind in mode none: the overflow children (with no handler "
               "taking the fault, valgrind counts the write into the guard page as an error)\n");
    } else
#endif
    {
        check_overflow_report(child_overflow_primary, overflow_ult, "overflow_ult", 0);
        check_overflow_report(child_overflow_secondary, static_overflow_ult,
                              "static_overflow_ult", 1);
        if (kernel_has_light_guards()) {
            check_overflow_report(child_overflow_many_alive, static_overflow_ult,
                                  "static_overflow_ult", 1);
        } else {
            printf("skipped: overflow with %d ULTs alive (no lightweight guard regions here)\n",
                   MANY_ALIVE);
        }
    }

#if defined(GOABT_CTEST_VALGRIND)
    printf("skipped under valgrind: the NULL dereference child (valgrind counts its invalid "
           "write as an error of the run)\n");
#else
    fork_child(child_null, &o);
    CHECK(strstr(o.err, "stack overflow") == NULL);
#if defined(GOABT_CTEST_ASAN)
    /* ASan's SEGV handler was there before ours: ours passes the fault on to it, which
     * reports it and exits. */
    CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) != 0);
    CHECK(strstr(o.err, "AddressSanitizer: SEGV") != NULL);
#else
    CHECK(died_by(&o, SIGSEGV));
#endif
#endif

    fork_child(child_user_stack, &o);
    /* (ASan warns on stderr about a stack it does not know: no count of lines there.) */
    if (mode == 1) {
        CHECK(died_by(&o, SIGABRT));
        CHECK(strstr(o.err, "canary") != NULL);
        CHECK(strstr(o.err, "ABT_thread_attr_set_stack") != NULL);
        CHECK(names_function(o.err, deep_ult, "deep_ult", 1));
#if !defined(GOABT_CTEST_ASAN)
        CHECK_INT(o.lines, 1);
#endif
    } else if (mode >= 2) {
        /* The read-only page goabt keeps at the bottom of a stack the program gave, as
         * Argobots does in these modes, catches it. */
        CHECK(died_by(&o, SIGABRT));
        CHECK(strstr(o.err, "a fault in its guard page") != NULL);
        CHECK(strstr(o.err, "ABT_thread_attr_set_stack") != NULL);
        CHECK(names_function(o.err, deep_ult, "deep_ult", 1));
    } else {
        CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0); /* unnoticed */
        CHECK(strstr(o.err, "stack overflow") == NULL);
    }

    /* This process now: the info query, signal stacks, the handler at finalize. */
    void *program_handler = segv_handler_now();
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    int got = -1;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK, &got),
              ABT_SUCCESS);
    CHECK_INT(got, mode);
    void *handler = segv_handler_now();
    if (mode != 0) CHECK(has_sigstack());
    ABT_xstream xs;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &pool), ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, sigstack_ult, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    if (mode != 0) CHECK_INT(ult_had_sigstack, 1);
#if defined(GOABT_CTEST_VALGRIND)
    printf("skipped under valgrind: nil dereferences in Go (valgrind counts each as an error, "
           "and Go called on a ULT's stack, as here, confuses its stack tracking)\n");
#else
    find_go_fault();
    CHECK(go_fault != NULL);
    if (go_fault != NULL) {
        CHECK_INT(go_fault(), 1);
        CHECK_INT(ABT_thread_create(pool, go_fault_ult, NULL, ABT_THREAD_ATTR_NULL, &t),
                  ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
        CHECK_INT(go_fault_in_ult, 1);
        int in_thread = 0;
        pthread_t th;
        CHECK_INT(pthread_create(&th, NULL, go_fault_thread, &in_thread), 0);
        pthread_join(th, NULL);
        CHECK_INT(in_thread, 1);
    }
#endif
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    /* Ours and the Go runtime's are gone: the program's is back (capi/golib_signals.c). */
    CHECK(segv_handler_now() == program_handler);
    /* And again: the same handler comes back, and the mode is read again. */
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK(segv_handler_now() == handler);
    got = -1;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK, &got),
              ABT_SUCCESS);
    CHECK_INT(got, mode);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    /* The mode is read at every outermost ABT_init: each value in turn. */
    static const struct {
        const char *value;
        int reported;
    } modes[] = {{"none", 0}, {"canary", 1}, {"mprotect", 2}, {"mprotect_strict", 3},
                 {"MPROTECT", 2}, {"bogus", 0}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        setenv("ABT_STACK_OVERFLOW_CHECK", modes[i].value, 1);
        CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
        got = -1;
        CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK, &got),
                  ABT_SUCCESS);
        CHECK_INT(got, modes[i].reported);
        /* ours in a checking mode, the Go runtime's otherwise */
        CHECK_INT(segv_handler_now() == handler, (modes[i].reported != 0) == (mode != 0));
        CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    }
    return check_summary();
}
