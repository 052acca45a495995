//go:build goabt_c_engine
/* golib.c: how the C engine reaches the Go core: libgoabt-go.so, loaded on first need.
 *
 * A Go c-shared library starts the Go runtime from a load-time constructor, and a Go runtime
 * does not survive fork (docs/design.md rule 12; golang/go#15538): a program that forks before it
 * first uses goabt (test runners fork per test, servers fork to daemonize) would leave children
 * whose first call waits forever for runtime threads that exist only in the parent. So the C
 * engine (libgoabt.so) does not link the Go core: it dlopens it, from the directory it was
 * loaded from itself (or GOABT_GO_LIBRARY), the first time something needs Go (ABT_init, a key,
 * an OPAL class, an object's memory), and calls it through the table goabt_go. A child forked
 * before that loads its own; a child forked after it cannot use Go at all, nor anything else of
 * goabt (engine/runtime.h, goabt_forked): every entry fails instead of hanging, and ABT_init says why on
 * stderr, once, and returns ABT_ERR_OTHER.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "engine/leaks.h"
#include "engine/runtime.h"
#include "engine/stream.h"
#include "gocalls.h"
#include "gocalls_symbols.h" /* generated from gocalls.list */
#include "opal_object.h"

struct goabt_go_entries goabt_go;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;        /* atomic: 1 once goabt_go is filled */
static int failed;        /* the load failed: not tried again */
static int forked_warned; /* atomic */
static int too_little_room; /* the last try found the address-space limit too low (retried) */
static int too_few_threads; /* the last try could not start the threads Go needs (retried) */

/* Fork handlers, registered when libgoabt.so loads: a fork never happens in the middle of a
 * load (prepare takes the load lock), and a child of a process that loaded the Go core knows
 * it cannot use it, nor anything else of goabt (goabt_engine_forked); a child of one that had
 * not loads its own. OPAL works in both (api/opal.c frees its own locks in the child). */
static void before_fork(void) { pthread_mutex_lock(&load_lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&load_lock); }
static void after_fork_child(void)
{
    pthread_mutex_init(&load_lock, NULL);
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) {
        goabt_engine_forked();
        goabt_leaks_forked(); /* their registries are the Go core's */
    }
}

/* Where libgoabt.so was loaded from, as an absolute path, found when it is loaded: the program
 * may change directories before it first needs Go, and the loader may have found this library
 * through a relative LD_LIBRARY_PATH entry. */
static char library_dir[4096];

__attribute__((constructor)) static void remember_library_dir(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    Dl_info info;
    if (dladdr((void *)remember_library_dir, &info) == 0 || info.dli_fname == NULL) return;
    char *full = realpath(info.dli_fname, NULL);
    const char *path = full != NULL ? full : info.dli_fname;
    const char *slash = strrchr(path, '/');
    if (slash != NULL && (size_t)(slash - path) < sizeof library_dir) {
        memcpy(library_dir, path, (size_t)(slash - path));
        library_dir[slash - path] = '\0';
    }
    free(full);
}

/* The path of libgoabt-go.so: GOABT_GO_LIBRARY, else beside libgoabt.so. */
static int go_library_path(char *out, size_t n)
{
    const char *env = getenv("GOABT_GO_LIBRARY");
    if (env != NULL && env[0] != '\0') return snprintf(out, n, "%s", env) < (int)n;
    if (library_dir[0] == '\0') return snprintf(out, n, "libgoabt-go.so") < (int)n;
    return snprintf(out, n, "%s/libgoabt-go.so", library_dir) < (int)n;
}

/* How much address space the Go core takes when it starts (measured, linux/amd64, Go 1.26; README,
 * "ABT_init under ulimit -v"). Under an address-space limit (ulimit -v, RLIMIT_AS) without that
 * much room the Go runtime dies as it starts ("failed to reserve page summary memory",
 * "pthread_create failed", "out of memory allocating heap arena map", by limit), or worse: with
 * room for its page summaries but not for its scavenger index it goes on without the index's
 * reservation and later maps the index's pages at fixed low addresses, over whatever the
 * program has there. So ABT_init asks for all of it first:
 *   - GO_RESERVED: mostly reservations, few pages of them ever used: the page allocator's
 *     summaries (585 MiB) and scavenger index (512 MiB), sized for a 48-bit address space, the
 *     first heap arena (64 MiB), a second one (64 MiB: the heap's first pages are placed
 *     anywhere in the first arena and, now and then, near enough its end to run into the next;
 *     seen about 1 start in 40 on a busy machine) and the arena index (32 MiB); then its code
 *     and the rest;
 *   - GO_THREADS threads, each with a stack of the default size (ulimit -s, 8 MiB by default)
 *     and, as each frees memory first thing, a glibc malloc arena of its own (64 MiB) while
 *     glibc gives one (MALLOC_ARENA_MAX, glibc.malloc.arena_max: go_arenas);
 *   - GO_HEADROOM: what core/addrspace.go leaves the Go runtime to grow (core.BulkHeadroom),
 *     and goabt's first slabs, without which ABT_init returns ABT_ERR_MEM. */
#define GO_RESERVED ((size_t)1280 << 20)
#define GO_THREADS 5
#define GO_HEADROOM ((size_t)100 << 20)
#define MALLOC_ARENA ((size_t)64 << 20)

/* How many malloc arenas glibc may give the Go runtime's threads: one each, unless the program
 * runs with MALLOC_ARENA_MAX or glibc.malloc.arena_max (read by glibc when the program
 * started), whose count includes the main thread's arena. */
static size_t go_arenas(void)
{
    const char *max = getenv("MALLOC_ARENA_MAX");
    const char *tunables = getenv("GLIBC_TUNABLES");
    const char *t = tunables != NULL ? strstr(tunables, "glibc.malloc.arena_max=") : NULL;
    if (t != NULL) max = t + strlen("glibc.malloc.arena_max=");
    long n = max != NULL ? strtol(max, NULL, 10) : 0;
    if (n <= 0) return GO_THREADS;
    return n - 1 < GO_THREADS ? (size_t)(n - 1) : GO_THREADS;
}

/* The address space the Go core needs to start, in bytes (above). */
static size_t go_core_address_space(void)
{
    size_t stack = (size_t)8 << 20;
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &stack);
        pthread_attr_destroy(&attr);
    }
    return GO_RESERVED + GO_THREADS * stack + go_arenas() * MALLOC_ARENA + GO_HEADROOM;
}

/* The process's address space now, in bytes (/proc/self/statm, in pages), or 0. */
static size_t address_space_used(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    unsigned long pages = 0;
    if (f == NULL) return 0;
    if (fscanf(f, "%lu", &pages) != 1) pages = 0;
    fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Whether the address-space limit leaves the Go runtime room to start; if not, says so on
 * stderr, once. Checked at every try: a program may raise its limit and try again. */
static int room_for_go(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 1;
    size_t used = address_space_used(), need = go_core_address_space();
    if ((size_t)rl.rlim_cur >= used + need) return 1;
    static int said;
    if (!said) {
        said = 1;
        fprintf(stderr,
                "goabt: the address-space limit (ulimit -v) is %llu KiB with %zu KiB in use; "
                "goabt's Go core needs %zu KiB more, reserved when it starts and mostly "
                "unused: raise the limit to at least %zu KiB (ABT_init returns ABT_ERR_MEM)\n",
                (unsigned long long)rl.rlim_cur / 1024, used / 1024, need / 1024,
                (used + need + 1023) / 1024);
    }
    return 0;
}

/* How many threads the Go runtime needs room for. It starts 5 as it loads here (under
 * RLIMIT_NPROC, a process allowed 5 threads more than itself started it, 4 not), and more soon
 * after (a garbage collection's workers, a thread beside one blocked in a system call); a
 * thread it cannot create aborts the whole process ("runtime/cgo: pthread_create failed"), so
 * ABT_init asks for room for 8 first and returns an error without it. */
#define GO_CORE_THREADS 8

static pthread_mutex_t probe_hold = PTHREAD_MUTEX_INITIALIZER;

static void *probe_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&probe_hold); /* held by the prober until every thread is started */
    pthread_mutex_unlock(&probe_hold);
    return NULL;
}

/* Whether GO_CORE_THREADS threads can run at once besides the program's (RLIMIT_NPROC, a
 * cgroup's pids.max): starts them, small and all waiting, and lets them go; if not, says so on
 * stderr, once. Checked at every try: the program may raise its limit and try again. */
static int room_for_threads(void)
{
    pthread_t t[GO_CORE_THREADS];
    pthread_attr_t attr;
    int n = 0;
    if (pthread_attr_init(&attr) != 0) return 1;
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_mutex_lock(&probe_hold);
    while (n < GO_CORE_THREADS && pthread_create(&t[n], &attr, probe_thread, NULL) == 0) n++;
    pthread_mutex_unlock(&probe_hold);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    if (n == GO_CORE_THREADS) return 1;
    static int said;
    if (!said) {
        said = 1;
        fprintf(stderr,
                "goabt: only %d more threads can be started in this process (RLIMIT_NPROC, or "
                "the cgroup's pids.max); goabt's Go core needs room for %d: raise the limit "
                "(ABT_init returns ABT_ERR_SYS)\n",
                n, GO_CORE_THREADS);
    }
    return 0;
}

int goabt_go_unavailable_error(void)
{
    return too_little_room ? ABT_ERR_MEM : too_few_threads ? ABT_ERR_SYS : ABT_ERR_OTHER;
}

static void load(void)
{
    char path[4096];
    too_little_room = !room_for_go();
    if (too_little_room) return;
    too_few_threads = !room_for_threads();
    if (too_few_threads) return;
    if (!go_library_path(path, sizeof path)) {
        fprintf(stderr, "goabt: cannot tell where libgoabt-go.so is; set GOABT_GO_LIBRARY\n");
        failed = 1;
        return;
    }
    goabt_signals_before_load(); /* golib_signals.c: what the Go runtime will take */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "goabt: cannot load the Go core: %s\n", dlerror());
        goabt_signals_load_failed();
        failed = 1;
        return;
    }
    const char *missing = NULL;
    for (size_t i = 0; i < sizeof goabt_go_symbols / sizeof goabt_go_symbols[0] && !missing; i++) {
        void *f = dlsym(h, goabt_go_symbols[i].name);
        if (f == NULL) missing = goabt_go_symbols[i].name;
        memcpy((char *)&goabt_go + goabt_go_symbols[i].offset, &f, sizeof f);
    }
    if (missing != NULL) {
        fprintf(stderr, "goabt: %s has no %s: a libgoabt-go.so of another version?\n", path,
                missing);
        failed = 1;
        return;
    }
    goabt_go.thread_stacks((uintptr_t)goabt_stream_thread_stack);
    /* The OPAL variables the header reads live here, in the C library; the Go core writes
     * them (class epochs, the thread mode). */
    goabt_go.opal_bind(&opal_uses_threads, &opal_class_init_epoch);
    /* The first call into Go has returned: the Go runtime is up and has installed its signal
     * handlers. The program gets back those it does not need. */
    goabt_signals_after_load();
    /* GOABT_CHECK_LEAKS for OPAL objects: set before the first class initializes, so before
     * the first object of a class with a constructor is made (leaks.c). */
    goabt_opal_leak_exit_status = goabt_go.leak_exit_status();
    __atomic_store_n(&opal_obj_leak_check, goabt_go.leak_check(), __ATOMIC_RELAXED);
    goabt_opal_race_abort = goabt_go.opal_race_abort(); /* before any object can race */
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

int goabt_go_owns_code(const void *addr)
{
    Dl_info at, go;
    void *any = NULL;
    memcpy(&any, &goabt_go, sizeof any); /* the table's first entry: an address in the Go core */
    if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE) || any == NULL) return 0;
    return dladdr(addr, &at) != 0 && dladdr(any, &go) != 0 && at.dli_fbase == go.dli_fbase;
}

int goabt_go_forked(void)
{
    if (!goabt_forked()) return 0;
    if (!__atomic_exchange_n(&forked_warned, 1, __ATOMIC_ACQ_REL)) {
        fprintf(stderr, "goabt: this process was forked after goabt started its Go runtime, which "
                        "does not survive fork (golang/go#15538): goabt cannot run here; use it "
                        "in a child only if the parent had not used it before the fork\n");
    }
    return 1;
}

int goabt_go_available(void)
{
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) return !goabt_go_forked();
    pthread_mutex_lock(&load_lock);
    if (!loaded && !failed) load();
    pthread_mutex_unlock(&load_lock);
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) && !goabt_go_forked();
}
