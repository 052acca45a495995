//go:build goabt_c_engine
/* hang.c: the hang report (its entry, goabt_info_print_units: api/info_hang.c). Every work unit that is not finished, with what it waits on, the
 * function it was created with, its pool and stream, and for a parked ULT the code addresses on
 * its stack, printed on stderr (the text: core/hang.go):
 *   - by the watchdog (GOABT_WATCHDOG=<seconds>), once no unit has run for that long while a
 *     unit waits with nothing due to wake it (a wait without deadline, or a suspension) and
 *     none waits on a timer (which will run it); once per such stretch: a unit that runs again
 *     re-arms it;
 *   - on GOABT_DUMP_SIGNAL, unless the program handled that signal when ABT_init started it;
 *   - by goabt_info_print_units (goabt.h), on the program's FILE*, from the caller.
 * Both are served by one thread of goabt's (a plain pthread, no stream's: it calls the Go core
 * directly), started at the end of ABT_init when either is set and stopped by ABT_finalize. The
 * signal handler only posts a semaphore.
 *
 * Progress is each stream's count of units run (stream->runs, a plain store by the stream):
 * the watchdog sums them every quarter period. The units are found by walking the unit
 * descriptors' memory (core.Runtime.Units' slabs, which stay mapped until finalize): a
 * descriptor with the live magic whose state is not TERMINATED. Nothing is stopped meanwhile, so
 * what a unit points to (its waiter, its stack) is read with process_vm_readv, which fails
 * instead of faulting if it went away; a report of a program that still moves may be a little
 * inconsistent, and one of a hung program is exact. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "info.h"
#include "runtime.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"
#include "gocalls.h"
#include "info_facts.h"
#ifdef GOABT_VALGRIND
#include <valgrind/memcheck.h>
#endif

static pthread_t hang_thread;
static int hang_running;    /* the thread was started (main thread only) */
static sem_t hang_sem;      /* posted by the signal handler and by goabt_hang_stop */
static int hang_stopping;   /* atomic */
static int hang_signalled;  /* atomic: the signal asked for a report */
static int hang_signal;     /* the signal whose handler is ours, or 0 */
static struct sigaction hang_old_action;

/* Copies n bytes at src, which may have gone away meanwhile: 0 if it could not. */
static int safe_read(void *dst, const void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)n) return 0;
#ifdef GOABT_VALGRIND
    VALGRIND_MAKE_MEM_DEFINED(dst, n); /* frames hold padding never written */
#endif
    return 1;
}

/* ---- Gathering -------------------------------------------------------------------------- */

struct gathered {
    struct goabt_info_hang_stream *streams;
    int num_streams, cap_streams;
    struct goabt_info_hang_unit *units;
    int num_units, cap_units;
    unsigned long runs; /* the streams' runs, summed */
};

static int grow(void **array, int *cap, int n, size_t size)
{
    if (n < *cap) return 1;
    int more = *cap ? 2 * *cap : 16;
    void *p = realloc(*array, (size_t)more * size);
    if (p == NULL) return 0;
    *array = p;
    *cap = more;
    return 1;
}

/* Under rt.lock (goabt_streams_each). */
static void stream_cb(goabt_stream *s, void *arg)
{
    struct gathered *g = arg;
    if (s == NULL) return;
    g->runs += __atomic_load_n(&s->runs, __ATOMIC_RELAXED);
    if (!grow((void **)&g->streams, &g->cap_streams, g->num_streams, sizeof *g->streams)) return;
    struct goabt_info_hang_stream *f = &g->streams[g->num_streams++];
    memset(f, 0, sizeof *f);
    f->rank = s->rank;
    f->primary = s->is_primary;
    goabt_unit *u = __atomic_load_n(&s->current, __ATOMIC_RELAXED);
    if (u != NULL) {
        f->has_unit = 1;
        f->tasklet = u->kind == GOABT_TASKLET;
        f->running = goabt_unit_id(u);
    }
}

/* What u waits on, in f. */
static void wait_facts(goabt_unit *u, struct goabt_info_hang_unit *f)
{
    f->wait = GOABT_INFO_WAIT_NONE;
    int state = __atomic_load_n(&u->state, __ATOMIC_ACQUIRE);
    if (state == ABT_THREAD_STATE_BLOCKED && __atomic_load_n(&u->suspend, __ATOMIC_RELAXED) != 0) {
        f->wait = GOABT_INFO_WAIT_SUSPENDED;
        return;
    }
    /* A parked ULT, or a tasklet asleep on its stream. */
    goabt_waiter *on = __atomic_load_n(&u->waiting, __ATOMIC_ACQUIRE);
    goabt_waiter w;
    if (on == NULL || (state != ABT_THREAD_STATE_BLOCKED && u->kind != GOABT_TASKLET) ||
        !safe_read(&w, on, sizeof w)) {
        return;
    }
    f->wait = w.sync_type;
    f->object = (uintptr_t)w.sync;
    f->timed = w.deadline != 0 && w.deadline != GOABT_DEADLINE_NEVER; /* NEVER: it waits for good */
}

/* The words of a parked ULT's stack in use, from its saved stack pointer up, into its facts. */
static void stack_facts(struct goabt_info_unit *f)
{
    if (f->tasklet || f->main || f->state == ABT_THREAD_STATE_RUNNING) return;
    uintptr_t lo = f->stack, top = f->stack + f->stacksize, sp = f->sp;
    if (sp == 0 || lo == 0 || sp < lo || sp >= top) return;
    f->used = top - sp;
    size_t shown = f->used < GOABT_INFO_STACK_MAX ? f->used : GOABT_INFO_STACK_MAX;
    uintptr_t *words = malloc(shown);
    if (words == NULL) return;
    if (!safe_read(words, (const void *)sp, shown)) {
        free(words);
        return;
    }
    f->num_words = shown / sizeof(uintptr_t);
    f->words = words;
}

/* Every live unit's facts, without their stacks (add_stacks): a walk of the descriptors' memory. */
static void gather_units(struct gathered *g)
{
    int n = goabt_go.unit_slabs(NULL, 0);
    if (n <= 0) return;
    uintptr_t *slabs = malloc((size_t)n * 2 * sizeof *slabs);
    if (slabs == NULL) return;
    int now = goabt_go.unit_slabs(slabs, n); /* a slab mapped meanwhile is not in the array */
    if (now < n) n = now;
    size_t size = (sizeof(goabt_unit) + 63) & ~(size_t)63; /* core.Blocks' block size */
    uint32_t magic = __atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) {
        for (uintptr_t a = slabs[2 * i]; a + size <= slabs[2 * i] + slabs[2 * i + 1]; a += size) {
            goabt_unit *u = (goabt_unit *)a;
            if (__atomic_load_n(&u->magic, __ATOMIC_RELAXED) != magic ||
                __atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_TERMINATED) {
                continue;
            }
            if (!grow((void **)&g->units, &g->cap_units, g->num_units, sizeof *g->units)) break;
            struct goabt_info_hang_unit *f = &g->units[g->num_units++];
            memset(f, 0, sizeof *f);
            goabt_info_unit_facts(u, &f->unit);
            wait_facts(u, f);
        }
    }
    free(slabs);
}

/* The stacks of the gathered units: only for a report (the watchdog's look needs none). */
static void add_stacks(struct gathered *g)
{
    for (int i = 0; i < g->num_units; i++) stack_facts(&g->units[i].unit);
}

static void gathered_free(struct gathered *g)
{
    for (int i = 0; i < g->num_units; i++) free((void *)g->units[i].unit.words);
    free(g->units);
    free(g->streams);
    memset(g, 0, sizeof *g);
}

/* Whether the units look hung: some wait with nothing due to wake them, and none waits with a
 * deadline (its timer will run it, and whatever it does may wake the others). */
static int looks_hung(const struct gathered *g)
{
    int untimed = 0;
    for (int i = 0; i < g->num_units; i++) {
        if (g->units[i].wait == GOABT_INFO_WAIT_NONE) continue;
        if (g->units[i].timed) return 0;
        untimed++;
    }
    return untimed > 0;
}

/* The report's text from the Go core (malloc'd), or NULL. why: 1 the watchdog, 0 a call,
 * else the signal. */
static char *report_text(struct gathered *g, long long quiet_ns, int why)
{
    struct goabt_info_hang h = {
        .watchdog_ns = why == 1 ? goabt_rt.watchdog_ns : 0,
        .quiet_ns = quiet_ns,
        .signal = why > 1 ? why : 0,
        .num_streams = g->num_streams,
        .num_units = g->num_units,
        .streams = g->streams,
        .units = g->units,
    };
    return goabt_go.info_hang(&h);
}

/* Prints the report on stderr, in one write where it can. */
static void report(struct gathered *g, long long quiet_ns, int why)
{
    char *text = report_text(g, quiet_ns, why);
    if (text == NULL) return;
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(STDERR_FILENO, text + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    free(text);
}

/* ---- The thread ------------------------------------------------------------------------- */

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void *hang_main(void *arg)
{
    (void)arg;
    /* Signals go to the program's threads, not to this one. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    long long period = goabt_rt.watchdog_ns;
    long long tick = period / 4 < 1000000 ? 1000000 : period / 4; /* at least 1 ms */
    if (tick > 1000000000ll) tick = 1000000000ll;
    unsigned long last_runs = 0;
    long long quiet_since = now_ns();
    int looked = 0; /* the units were walked in this quiet stretch */
    for (;;) {
        if (period > 0) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until); /* sem_timedwait's clock */
            long long ns = until.tv_nsec + tick;
            until.tv_sec += ns / 1000000000ll;
            until.tv_nsec = ns % 1000000000ll;
            if (sem_timedwait(&hang_sem, &until) != 0 && errno != ETIMEDOUT) continue;
        } else if (sem_wait(&hang_sem) != 0) {
            continue;
        }
        if (__atomic_load_n(&hang_stopping, __ATOMIC_ACQUIRE)) break;
        if (__atomic_exchange_n(&hang_signalled, 0, __ATOMIC_ACQ_REL)) {
            struct gathered g = {0};
            goabt_streams_each(stream_cb, &g);
            gather_units(&g);
            add_stacks(&g);
            report(&g, 0, hang_signal);
            gathered_free(&g);
        }
        if (period <= 0) continue;
        struct gathered g = {0};
        goabt_streams_each(stream_cb, &g);
        long long now = now_ns();
        if (g.runs != last_runs) {
            last_runs = g.runs;
            quiet_since = now;
            looked = 0;
        } else if (!looked && now - quiet_since >= period) {
            looked = 1;
            gather_units(&g);
            if (looks_hung(&g)) {
                add_stacks(&g);
                report(&g, now - quiet_since, 1);
            }
        }
        gathered_free(&g);
    }
    return NULL;
}

static void on_dump_signal(int sig)
{
    (void)sig;
    int saved = errno;
    __atomic_store_n(&hang_signalled, 1, __ATOMIC_RELEASE);
    sem_post(&hang_sem); /* async-signal-safe */
    errno = saved;
}

/* Installs the dump signal's handler unless the program handles that signal: a handler that is
 * neither the default, nor ignore, nor the Go runtime's (which takes signals it does not use
 * only to pass them on). */
static void install_signal(int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) return;
    void *handler = (old.sa_flags & SA_SIGINFO) ? (void *)old.sa_sigaction : (void *)old.sa_handler;
    if (handler != (void *)SIG_DFL && handler != (void *)SIG_IGN && !goabt_go_owns_code(handler)) {
        fprintf(stderr, "goabt: GOABT_DUMP_SIGNAL=%d: the program handles that signal; it is left to "
                        "the program, and no signal prints the work units\n", sig);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_dump_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(sig, &sa, &hang_old_action) == 0) hang_signal = sig;
}

void goabt_hang_start(void)
{
    if (goabt_rt.watchdog_ns <= 0 && goabt_rt.dump_signal == 0) return;
    if (sem_init(&hang_sem, 0, 0) != 0) return;
    __atomic_store_n(&hang_stopping, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&hang_signalled, 0, __ATOMIC_RELAXED);
    if (pthread_create(&hang_thread, NULL, hang_main, NULL) != 0) {
        fprintf(stderr, "goabt: the hang report's thread could not start; GOABT_WATCHDOG and "
                        "GOABT_DUMP_SIGNAL are off\n");
        sem_destroy(&hang_sem);
        return;
    }
    hang_running = 1;
    if (goabt_rt.dump_signal != 0) install_signal(goabt_rt.dump_signal);
}

void goabt_hang_stop(void)
{
    if (!hang_running) return;
    if (hang_signal != 0) {
        /* The program's disposition back, unless it installed its own meanwhile. */
        struct sigaction now;
        if (sigaction(hang_signal, NULL, &now) == 0 && now.sa_handler == on_dump_signal) {
            sigaction(hang_signal, &hang_old_action, NULL);
        }
        hang_signal = 0;
    }
    __atomic_store_n(&hang_stopping, 1, __ATOMIC_RELEASE);
    sem_post(&hang_sem);
    pthread_join(hang_thread, NULL);
    sem_destroy(&hang_sem);
    hang_running = 0;
}

/* ---- goabt_info_print_units ------------------------------------------------------------- */

/* On the system stack (the gate): the units' facts and their text. */
static void print_gated(void *arg)
{
    char **text = arg;
    if (!goabt_go_available()) return;
    struct gathered g = {0};
    goabt_streams_each(stream_cb, &g);
    gather_units(&g);
    add_stacks(&g);
    *text = report_text(&g, 0, 0);
    gathered_free(&g);
}

char *goabt_hang_units_text(void)
{
    char *text = NULL;
    goabt_gate(print_gated, &text);
    return text;
}
