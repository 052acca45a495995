/* The main thread enters Go with its stack split over two mappings (capi/stackbound.go).
 *
 * glibc reports the main thread's stack from /proc/self/maps as the one mapping that holds its
 * top, cut at the mapping below. Under valgrind, in a forked child, the main stack grows by new
 * mappings the kernel does not merge with the inherited one, and the Go runtime, given only the
 * top mapping as its g0 stack, died with "morestack on g0" when the first call into Go came a
 * few hundred bytes above that mapping's start (stack_overflow under valgrind, depending on the
 * size of the environment). Here each child makes that layout itself (a private anonymous
 * mapping right below the stack's lowest page, where valgrind would put one), moves its stack
 * pointer to a chosen distance above the top mapping's start, and makes its first goabt call
 * there: ABT_init, which loads the Go core and calls it. The distances cover a few KiB in small
 * steps, so that for some of them the Go runtime's first frames on this thread land just above
 * the false end. Every child must start goabt, run a ULT and finish. */
#define _GNU_SOURCE
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

/* The range [from, to) of the mapping that holds addr, from /proc/self/maps. */
static int mapping_of(uintptr_t addr, uintptr_t *from, uintptr_t *to)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a <= addr && addr < b) {
            *from = a;
            *to = b;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static void ult(void *arg) { *(int *)arg = 1; }

/* The child's first goabt calls, made where its stack pointer is. */
static __attribute__((noinline)) int use_goabt(void)
{
    if (ABT_init(0, NULL) != ABT_SUCCESS) return 10;
    int ran = 0;
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread t;
    if (ABT_self_get_xstream(&self) != ABT_SUCCESS) return 11;
    if (ABT_xstream_get_main_pools(self, 1, &pool) != ABT_SUCCESS) return 12;
    if (ABT_thread_create(pool, ult, &ran, ABT_THREAD_ATTR_NULL, &t) != ABT_SUCCESS) return 13;
    if (ABT_thread_free(&t) != ABT_SUCCESS) return 14;
    if (!ran) return 15;
    if (ABT_finalize() != ABT_SUCCESS) return 16;
    return 0;
}

/* use_goabt with the stack pointer moved down by `down` bytes. */
static __attribute__((noinline)) int use_goabt_below(size_t down)
{
    volatile char *p = alloca(down);
    p[0] = 0;
    return use_goabt();
}

/* Touches `depth` bytes of stack below the caller, so the kernel (or valgrind) maps them. */
static __attribute__((noinline)) void grow_stack(size_t depth)
{
    volatile char *p = alloca(depth);
    for (size_t i = 0; i < depth; i += 4096) p[i] = 0;
    p[depth - 1] = 0;
}

/* A child's exit code when its stack has too little room above the top mapping's start for the
 * distance asked (under valgrind that mapping is the few KiB the parent had used). */
#define NO_ROOM 5

/* The child: the split stack, then goabt's first call `above` bytes above the top mapping's
 * start. Exit codes below 10 are set-up failures. */
static int child(size_t above)
{
    grow_stack(64 * 1024);
    char here;
    uintptr_t sp = (uintptr_t)&here, from, to;
    if (!mapping_of(sp, &from, &to)) return 2;
    uintptr_t below_from, below_to;
    if (!mapping_of(from - 1, &below_from, &below_to)) {
        /* The kernel's own stack: nothing right below it. Put private memory there, as
         * valgrind does when it grows a forked child's stack. */
        size_t size = 256 * 1024;
        void *m = mmap((void *)(from - size), size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (m != (void *)(from - size)) return 3;
    }
    if (sp < from + above + 1024) return NO_ROOM;
    return use_goabt_below(sp - from - above);
}

int main(void)
{
    /* Nothing of goabt has run in this process: each child loads the Go core itself. */
    int children = 0, clean = 0, no_room = 0;
    /* Under valgrind a child's top stack mapping is what this process had touched of its stack
     * when it forked: a few KiB, more or less with the size of the environment and of the
     * program's path (with a nearly empty environment in a clone at /tmp/ci_final, 3 distances
     * of 13 had room). Touching 32 KiB first gives every distance room. */
    grow_stack(32 * 1024);
#if defined(GOABT_CTEST_VALGRIND)
    const size_t step = 512; /* each child starts a Go runtime under valgrind: fewer of them */
#else
    const size_t step = 128;
#endif
    for (size_t above = 0; above <= 6144; above += step) {
        fflush(stdout);
        int fds[2];
        if (pipe(fds) != 0) break;
        pid_t pid = fork();
        if (pid == 0) {
            alarm(60);
            dup2(fds[1], 2);
            close(fds[0]);
            _exit(child(above));
        }
        close(fds[1]);
        /* The child's stderr: its first line is kept (the Go runtime's fatal error, if any). */
        char err[4096], rest[4096];
        size_t got = 0;
        ssize_t r;
        while ((r = got + 1 < sizeof err ? read(fds[0], err + got, sizeof err - 1 - got)
                                         : read(fds[0], rest, sizeof rest)) > 0) {
            if (got + 1 < sizeof err) got += (size_t)r;
        }
        err[got] = '\0';
        close(fds[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        children++;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            clean++;
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == NO_ROOM) {
            no_room++;
        } else {
            char *nl = strchr(err, '\n');
            if (nl != NULL) *nl = '\0';
            printf("child entering goabt %zu bytes above the stack's top mapping: %s %d: %s\n",
                   above, WIFEXITED(status) ? "exit" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), err);
        }
    }
    printf("%d children, %d without room for their distance\n", children, no_room);
    CHECK(clean >= 4);
    CHECK_INT(clean + no_room, children);
    return check_summary();
}
