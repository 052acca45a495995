//go:build goabt_c_engine
/* info_print.c: ABT_info_print_* for objects and stacks, and the stack dump that
 * ABT_info_trigger_print_all_thread_stacks asks of the schedulers. Debugging output only: every
 * function here formats in C with stdio and never calls Go itself (a Go pool's print_all does,
 * through the gate, like every other call into a Go pool).
 *
 * Every print names its object by kind and by the number a program can ask for: a stream's
 * rank, a pool's id, a work unit's id (ABT_thread_get_id; printing one gives it its id, as a
 * query would), and the handle's address for schedulers and attributes, which have none.
 *
 * A ULT's stack is printed as a hex dump of the part in use, from its saved stack pointer to the
 * top of its stack, followed by the words in it that point into executable code of a loaded
 * object (return addresses, mostly), each with the symbol dladdr finds, or the object and
 * offset (for addr2line) when the symbol is not exported. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/info.h"
#include "engine/pool.h"
#include "engine/runtime.h"
#include "engine/scheduler.h"
#include "engine/stream.h"
#include "engine/unit.h"
#include "engine/wait.h"
#ifdef GOABT_VALGRIND
#include <valgrind/memcheck.h>
#endif

/* ---- Names ---------------------------------------------------------------------------------- */

static const char *unit_state_name(int state)
{
    switch (state) {
    case ABT_THREAD_STATE_READY: return "READY";
    case ABT_THREAD_STATE_RUNNING: return "RUNNING";
    case ABT_THREAD_STATE_BLOCKED: return "BLOCKED";
    case ABT_THREAD_STATE_TERMINATED: return "TERMINATED";
    }
    return "UNKNOWN";
}

static const char *access_name(int access)
{
    switch (access) {
    case ABT_POOL_ACCESS_PRIV: return "PRIV";
    case ABT_POOL_ACCESS_SPSC: return "SPSC";
    case ABT_POOL_ACCESS_MPSC: return "MPSC";
    case ABT_POOL_ACCESS_SPMC: return "SPMC";
    case ABT_POOL_ACCESS_MPMC: return "MPMC";
    }
    return "UNKNOWN";
}

static const char *pool_kind_name(goabt_pool *p)
{
    if (p->ops == &goabt_go_pool_ops) return "Go pool (goabt_pool_create_go, GOABT_POOL)";
    if (p->ops == &goabt_user_pool_ops) return "user-defined";
    switch (p->kind) {
    case ABT_POOL_FIFO: return "FIFO";
    case ABT_POOL_FIFO_WAIT: return "FIFO_WAIT";
    case ABT_POOL_RANDWS: return "RANDWS";
    }
    return "UNKNOWN";
}

static const char *sched_kind_name(goabt_sched *sc)
{
    if (sc->ops == &goabt_sched_go_ops) {
        return "goabt's loop with a Go policy (goabt_sched_create_go, GOABT_SCHED)";
    }
    if (sc->ops == &goabt_sched_user_ops) return "user-defined";
    switch (sc->predef) {
    case ABT_SCHED_DEFAULT:
    case ABT_SCHED_BASIC: return "BASIC";
    case ABT_SCHED_PRIO: return "PRIO";
    case ABT_SCHED_RANDWS: return "RANDWS";
    case ABT_SCHED_BASIC_WAIT: return "BASIC_WAIT";
    }
    return "UNKNOWN";
}

static const char *sched_used_name(int used)
{
    switch (used) {
    case GOABT_SCHED_MAIN: return "main scheduler of a stream";
    case GOABT_SCHED_IN_POOL: return "stacked (in a pool of another scheduler)";
    }
    return "unused";
}

static const char *yes_no(int b) { return b ? "yes" : "no"; }

/* "symbol+0x1f", "libfoo.so+0x1234" or "?" for a code address. */
static void describe_code(char *out, size_t n, const void *addr)
{
    Dl_info info;
    if (addr == NULL || dladdr(addr, &info) == 0 || info.dli_fname == NULL) {
        snprintf(out, n, "?");
        return;
    }
    const char *file = strrchr(info.dli_fname, '/');
    file = file ? file + 1 : info.dli_fname;
    if (info.dli_sname != NULL && info.dli_saddr != NULL) {
        snprintf(out, n, "%s+0x%tx in %s", info.dli_sname, (char *)addr - (char *)info.dli_saddr,
                 file[0] ? file : "the program");
    } else {
        snprintf(out, n, "%s+0x%tx", file[0] ? file : "the program",
                 (char *)addr - (char *)info.dli_fbase);
    }
}

/* ---- Objects ---------------------------------------------------------------------------------- */

static void print_pool(FILE *fp, goabt_pool *p, const char *in)
{
    int id = p->id;
    fprintf(fp, "%s== pool %d (%p) ==\n", in, id, (void *)p);
    fprintf(fp, "%s id         : %d\n", in, id);
    fprintf(fp, "%s kind       : %s\n", in, pool_kind_name(p));
    fprintf(fp, "%s access     : %s\n", in, access_name(p->access));
    fprintf(fp, "%s automatic  : %s\n", in, yes_no(p->automatic));
    if (goabt_pool_can(p, GOABT_POOL_CAN_SIZE)) {
        fprintf(fp, "%s size       : %zu\n", in, goabt_pool_size(p));
    } else {
        fprintf(fp, "%s size       : unknown (no get_size)\n", in);
    }
    fprintf(fp, "%s blocked    : %ld\n", in, goabt_pool_num_blocked(p));
    fprintf(fp, "%s schedulers : %d\n", in, __atomic_load_n(&p->num_scheds, __ATOMIC_RELAXED));
    fprintf(fp, "%s data       : %p\n", in, p->data);
}

static void print_sched(FILE *fp, goabt_sched *sc, const char *in, int with_pools)
{
    fprintf(fp, "%s== scheduler %p ==\n", in, (void *)sc);
    fprintf(fp, "%s kind       : %s\n", in, sched_kind_name(sc));
    fprintf(fp, "%s used as    : %s\n", in, sched_used_name(sc->used));
    fprintf(fp, "%s automatic  : %s\n", in, yes_no(sc->automatic));
    fprintf(fp, "%s finish req.: %s\n", in,
            yes_no(__atomic_load_n(&sc->finish_req, __ATOMIC_RELAXED)));
    fprintf(fp, "%s exit req.  : %s\n", in,
            yes_no(__atomic_load_n(&sc->exit_req, __ATOMIC_RELAXED)));
    fprintf(fp, "%s data       : %p\n", in, sc->data);
    fprintf(fp, "%s pools      : %d:", in, sc->num_pools);
    for (int i = 0; i < sc->num_pools; i++) fprintf(fp, " %d", sc->pools[i]->id);
    fprintf(fp, " (by id, in priority order)\n");
    if (with_pools) {
        char deeper[64];
        snprintf(deeper, sizeof deeper, "%s  ", in);
        for (int i = 0; i < sc->num_pools; i++) print_pool(fp, sc->pools[i], deeper);
    }
}

/* rt.lock is held (goabt_streams_each, ABT_info_print_xstream). */
static void print_stream(FILE *fp, goabt_stream *s, const char *in)
{
    goabt_sched *sc = s->sched;
    fprintf(fp, "%s== execution stream %d (%p) ==\n", in, s->rank, (void *)s);
    fprintf(fp, "%s rank       : %d\n", in, s->rank);
    fprintf(fp, "%s type       : %s\n", in, s->is_primary ? "primary" : "secondary");
    fprintf(fp, "%s state      : %s\n", in,
            __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == ABT_XSTREAM_STATE_TERMINATED
                ? "TERMINATED"
                : "RUNNING");
    cpu_set_t cpus;
    if (goabt_stream_cpus_locked(s, &cpus) == ABT_SUCCESS) {
        fprintf(fp, "%s CPUs       :", in);
        for (int c = 0; c < CPU_SETSIZE; c++) {
            if (CPU_ISSET(c, &cpus)) fprintf(fp, " %d", c);
        }
        fprintf(fp, "\n");
    }
    fprintf(fp, "%s running    : %p\n", in, (void *)__atomic_load_n(&s->current, __ATOMIC_RELAXED));
    fprintf(fp, "%s finish req.: %s\n", in,
            yes_no(__atomic_load_n(&s->request, __ATOMIC_RELAXED) & GOABT_REQ_FINISH));
    if (sc != NULL) {
        fprintf(fp, "%s main sched : %p (%s)\n", in, (void *)sc, sched_kind_name(sc));
        fprintf(fp, "%s pools      : %d:", in, sc->num_pools);
        for (int i = 0; i < sc->num_pools; i++) fprintf(fp, " %d", sc->pools[i]->id);
        fprintf(fp, " (by id)\n");
    }
}

static void print_unit(FILE *fp, goabt_unit *u)
{
    uint64_t id = goabt_unit_id(u);
    const char *kind = u->kind == GOABT_TASKLET       ? "tasklet"
                       : (u->flags & GOABT_UNIT_MAIN) ? "main ULT"
                                                       : "ULT";
    char fn[256];
    fprintf(fp, "== %s %" PRIu64 " (%p) ==\n", kind, id, (void *)u);
    fprintf(fp, " id         : %" PRIu64 "\n", id);
    fprintf(fp, " kind       : %s\n", kind);
    fprintf(fp, " state      : %s\n", unit_state_name(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE)));
    goabt_stream *last = u->last_stream;
    if (last != NULL) {
        fprintf(fp, " stream     : %d (the last it ran on)\n", last->rank);
    } else {
        fprintf(fp, " stream     : none yet\n");
    }
    goabt_pool *p = u->pool;
    if (p != NULL) {
        fprintf(fp, " pool       : %d (%p)\n", p->id, (void *)p);
    } else {
        fprintf(fp, " pool       : none\n");
    }
    if (u->flags & GOABT_UNIT_MAIN) {
        fprintf(fp, " function   : main (the program's main thread)\n");
    } else {
        describe_code(fn, sizeof fn, (void *)u->func);
        fprintf(fp, " function   : %p (%s)\n", (void *)u->func, fn);
    }
    fprintf(fp, " argument   : %p\n", u->arg);
    if (u->kind == GOABT_TASKLET) {
        fprintf(fp, " stack      : none (runs on its stream's stack)\n");
    } else if (u->flags & GOABT_UNIT_MAIN) {
        fprintf(fp, " stack      : the main thread's\n");
    } else if (u->stack == NULL) {
        fprintf(fp, " stack      : none yet, %zu bytes (goabt's, taken when it first runs)\n",
                u->stacksize);
    } else {
        fprintf(fp, " stack      : %p, %zu bytes (%s)\n", u->stack, u->stacksize,
                (u->flags & GOABT_UNIT_USER_STACK) ? "the program's"
                : u->mapping != NULL              ? "goabt's"
                                                   : "goabt's, given to other ULTs as it ended");
    }
    fprintf(fp, " migratable : %s\n", yes_no(u->flags & GOABT_UNIT_MIGRATABLE));
    fprintf(fp, " named      : %s\n", yes_no(u->flags & GOABT_UNIT_NAMED));
}

static void print_attr(FILE *fp, goabt_attr *a)
{
    char cb[256];
    fprintf(fp, "== ULT attribute %p ==\n", (void *)a);
    fprintf(fp, " stack      : %s %p\n", a->stack ? "the program's," : "goabt allocates it", a->stack);
    fprintf(fp, " stack size : %zu\n", a->stacksize);
    fprintf(fp, " migratable : %s\n", yes_no(a->migratable == ABT_TRUE));
    describe_code(cb, sizeof cb, (void *)a->callback);
    fprintf(fp, " migration callback: %p (%s), argument %p\n", (void *)a->callback,
            a->callback ? cb : "none", a->callback_arg);
}


/* ---- Stacks ----------------------------------------------------------------------------------- */

/* At most this much of a stack is dumped, nearest its stack pointer (the newest frames). */
#define DUMP_MAX (32 * 1024)
#define DUMP_CHUNK 64 /* words copied at a time */

/* Copies another ULT's stack words: not as an instrumented load, since AddressSanitizer's marks
 * of that ULT's frames would read as overflows, and not with memcpy, which it intercepts. */
__attribute__((no_sanitize_address, noinline)) static void copy_words(uintptr_t *dst,
                                                                    const uintptr_t *src, size_t n)
{
    const volatile uintptr_t *s = src;
    for (size_t i = 0; i < n; i++) dst[i] = s[i];
#ifdef GOABT_VALGRIND
    /* Frames hold padding never written: printing it is no use of uninitialized memory. */
    VALGRIND_MAKE_MEM_DEFINED(dst, n * sizeof *dst);
#endif
}

/* The executable segments of every loaded object. */
struct code_ranges {
    int n, cap;
    uintptr_t (*r)[2];
};

static int add_code_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct code_ranges *c = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        if (c->n == c->cap) {
            int cap = c->cap ? 2 * c->cap : 32;
            void *r = realloc(c->r, (size_t)cap * sizeof *c->r);
            if (r == NULL) return 1;
            c->r = r;
            c->cap = cap;
        }
        c->r[c->n][0] = info->dlpi_addr + ph->p_vaddr;
        c->r[c->n][1] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        c->n++;
    }
    return 0;
}

static int is_code(const struct code_ranges *c, uintptr_t w)
{
    for (int i = 0; i < c->n; i++) {
        if (w >= c->r[i][0] && w < c->r[i][1]) return 1;
    }
    return 0;
}

/* Prints u's stack: a line saying why not, or the dump (top of file). */
static void print_stack(FILE *fp, goabt_unit *u)
{
    if (u->kind == GOABT_TASKLET) {
        fprintf(fp, "no stack: a tasklet runs on its stream's stack\n");
        return;
    }
    if (u->flags & GOABT_UNIT_MAIN) {
        fprintf(fp, "not printed: the main ULT runs on the main thread's stack\n");
        return;
    }
    int state = __atomic_load_n(&u->state, __ATOMIC_ACQUIRE);
    if (state == ABT_THREAD_STATE_RUNNING) {
        fprintf(fp, "not printed: the ULT is running\n");
        return;
    }
    if (state == ABT_THREAD_STATE_TERMINATED) {
        fprintf(fp, "no stack: the ULT has terminated\n");
        return;
    }
    char *lo = u->stack, *top = lo + u->stacksize, *sp = u->ctx;
    if (sp == NULL) {
        fprintf(fp, "unused: the ULT has not run yet (stack %p, %zu bytes)\n", (void *)lo,
                u->stacksize);
        return;
    }
    if (lo == NULL || sp < lo || sp >= top) {
        fprintf(fp, "not printed: the saved stack pointer %p is outside its stack %p-%p\n",
                (void *)sp, (void *)lo, (void *)top);
        return;
    }
    size_t used = (size_t)(top - sp), shown = used < DUMP_MAX ? used : DUMP_MAX;
    size_t words = shown / sizeof(uintptr_t);
    fprintf(fp, "stack %p-%p: %zu of %zu bytes in use, %zu shown, from the saved stack pointer up\n",
            (void *)lo, (void *)top, used, u->stacksize, words * sizeof(uintptr_t));
    uintptr_t buf[DUMP_CHUNK];
    const uintptr_t *from = (const uintptr_t *)sp;
    for (size_t at = 0; at < words; at += DUMP_CHUNK) {
        size_t n = words - at < DUMP_CHUNK ? words - at : DUMP_CHUNK;
        copy_words(buf, from + at, n);
        for (size_t i = 0; i < n; i += 4) {
            fprintf(fp, "  %p:", (void *)(from + at + i));
            for (size_t k = i; k < i + 4 && k < n; k++) fprintf(fp, " %016" PRIxPTR, buf[k]);
            fputc('\n', fp);
        }
    }
    struct code_ranges code = {0, 0, NULL};
    dl_iterate_phdr(add_code_ranges, &code);
    fprintf(fp, "code addresses in it, newest first:\n");
    int found = 0;
    for (size_t at = 0; at < words; at += DUMP_CHUNK) {
        size_t n = words - at < DUMP_CHUNK ? words - at : DUMP_CHUNK;
        copy_words(buf, from + at, n);
        for (size_t i = 0; i < n; i++) {
            if (!is_code(&code, buf[i])) continue;
            char where[256];
            describe_code(where, sizeof where, (void *)buf[i]);
            fprintf(fp, "  sp+0x%zx: %016" PRIxPTR " %s\n", (at + i) * sizeof(uintptr_t), buf[i],
                    where);
            found++;
        }
    }
    if (found == 0) fprintf(fp, "  none\n");
    free(code.r);
}

/* One unit of a pool, for the stack prints: a header naming it, then its stack. */
static void print_queued(FILE *fp, goabt_unit *u)
{
    if (u == NULL) {
        fprintf(fp, "=== unknown work unit ===\n");
        return;
    }
    uint64_t id = goabt_unit_id(u);
    fprintf(fp, "=== %s %" PRIu64 " (%p) ===\n", u->kind == GOABT_TASKLET ? "tasklet" : "ULT", id,
            (void *)u);
    fprintf(fp, "state: %s\n", unit_state_name(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE)));
    print_stack(fp, u);
}

static void print_queued_thread(void *arg, ABT_thread t)
{
    print_queued(arg, goabt_unit_of(t));
}

/* The stacks of the units queued in p. A built-in pool is walked under its lock, so that none
 * of its units can be popped, run and freed while its stack is read; a user pool (or a Go pool)
 * is read through its print_all (ABT_ERR_POOL if it has none). */
static int print_pool_stacks(FILE *fp, goabt_pool *p)
{
    fprintf(fp, "== work units in pool %d (%p) ==\n", p->id, (void *)p);
    int rc = ABT_SUCCESS;
    if (p->ops->flags & GOABT_POOL_OPS_LOCKED_QUEUE) {
        goabt_spin_lock(&p->lock);
        for (goabt_unit *u = p->head; u != NULL; u = u->next) print_queued(fp, u);
        goabt_spin_unlock(&p->lock);
    } else {
        rc = goabt_pool_print_all(p, fp, print_queued_thread, NULL);
        if (rc != ABT_SUCCESS) fprintf(fp, "not printed: the pool has no print_all\n");
    }
    fflush(fp);
    return rc;
}

/* ---- The API ---------------------------------------------------------------------------------- */

static void print_stream_cb(goabt_stream *s, void *arg)
{
    if (s != NULL) print_stream(arg, s, "");
}

int ABT_info_print_all_xstreams(FILE *fp)
{
    GOABT_CHECK_INIT();
    if (fp == NULL) return ABT_ERR_INV_ARG;
    fprintf(fp, "execution streams: %d\n", __atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED));
    goabt_streams_each(print_stream_cb, fp);
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_xstream(FILE *fp, ABT_xstream xstream)
{
    goabt_stream *s = goabt_stream_of(xstream);
    if (s == NULL) return ABT_ERR_INV_XSTREAM;
    if (fp == NULL) return ABT_ERR_INV_ARG;
    pthread_mutex_lock(&goabt_rt.lock);
    print_stream(fp, s, "");
    pthread_mutex_unlock(&goabt_rt.lock);
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_sched(FILE *fp, ABT_sched sched)
{
    GOABT_SCHED(sc, sched);
    if (fp == NULL) return ABT_ERR_INV_ARG;
    print_sched(fp, sc, "", 1);
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_pool(FILE *fp, ABT_pool pool)
{
    GOABT_POOL(p, pool);
    if (fp == NULL) return ABT_ERR_INV_ARG;
    print_pool(fp, p, "");
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_thread(FILE *fp, ABT_thread thread)
{
    goabt_unit *u = goabt_unit_of(thread);
    if (u == NULL) return ABT_ERR_INV_THREAD;
    if (fp == NULL) return ABT_ERR_INV_ARG;
    print_unit(fp, u);
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_task(FILE *fp, ABT_task task)
{
    goabt_unit *u = goabt_unit_of(task);
    if (u == NULL) return ABT_ERR_INV_TASK;
    if (fp == NULL) return ABT_ERR_INV_ARG;
    print_unit(fp, u);
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_thread_attr(FILE *fp, ABT_thread_attr attr)
{
    goabt_attr *a = goabt_attr_of(attr);
    if (a == NULL) return ABT_ERR_INV_THREAD_ATTR;
    if (fp == NULL) return ABT_ERR_INV_ARG;
    print_attr(fp, a);
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_thread_stack(FILE *fp, ABT_thread thread)
{
    goabt_unit *u = goabt_unit_of(thread);
    if (u == NULL) return ABT_ERR_INV_THREAD;
    if (fp == NULL) return ABT_ERR_INV_ARG;
    print_queued(fp, u);
    fflush(fp);
    return ABT_SUCCESS;
}

int ABT_info_print_thread_stacks_in_pool(FILE *fp, ABT_pool pool)
{
    GOABT_POOL(p, pool);
    if (fp == NULL) return ABT_ERR_INV_ARG;
    return print_pool_stacks(fp, p);
}

/* ---- ABT_info_trigger_print_all_thread_stacks ------------------------------------------------- */

/* A request goes UNSET -> SETTING (the trigger fills req) -> WAITING (schedulers gather) ->
 * DONE (printed: the others go on) -> UNSET. The first stream to arrive while WAITING leads: it
 * wakes the streams asleep, waits until every running stream has arrived (or the timeout
 * passes), prints, sets DONE, and once the others have gone on and the request is reset, calls
 * the callback; the others wait for DONE. A stream counts
 * itself in `arrived` before it looks at the state, and the leader resets the request only once
 * it is the only one counted: a stream counted while the request waits thus belongs to that
 * request, and one that finds it over (DONE, or UNSET again) leaves at once. The leader is
 * whoever takes the `leader` seat first, reset with the request. */
enum { REQ_UNSET = 0, REQ_SETTING = 1, REQ_WAITING = 2, REQ_DONE = 3 };
int goabt_info_stacks_state;
static int arrived; /* streams counted in (atomic) */
static int leader;  /* 1 while a stream leads the request (atomic) */
static struct {
    FILE *fp;
    double timeout;
    void (*cb)(ABT_bool, void *);
    void *arg;
} req;

/* Async-signal-safe: atomics, and a futex wake of the primary stream (a system call). */
int ABT_info_trigger_print_all_thread_stacks(FILE *fp, double timeout,
                                             void (*cb_func)(ABT_bool, void *), void *arg)
{
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    int unset = REQ_UNSET;
    if (!__atomic_compare_exchange_n(&goabt_info_stacks_state, &unset, REQ_SETTING, 0,
                                     __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        return ABT_SUCCESS; /* one is pending already: it prints */
    }
    req.fp = fp;
    req.timeout = timeout;
    req.cb = cb_func;
    req.arg = arg;
    __atomic_store_n(&goabt_info_stacks_state, REQ_WAITING, __ATOMIC_SEQ_CST);
    /* Due for every scheduler from now on (wait.c keeps it so while the request waits). */
    __atomic_store_n(&goabt_timers_earliest, 1, __ATOMIC_SEQ_CST);
    goabt_stream *primary = __atomic_load_n(&goabt_rt.primary, __ATOMIC_ACQUIRE);
    if (primary != NULL) goabt_stream_wake(primary);
    return ABT_SUCCESS;
}

static void count_running(goabt_stream *s, void *arg)
{
    if (s != NULL && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != ABT_XSTREAM_STATE_TERMINATED) {
        (*(int *)arg)++;
    }
}

struct dump {
    FILE *fp;
    goabt_pool **pools; /* every pool of a main scheduler, once */
    int num_pools, cap;
};

static void dump_stream(goabt_stream *s, void *arg)
{
    struct dump *d = arg;
    if (s == NULL) { /* the streams are listed: the pools' stacks, still under rt.lock */
        for (int i = 0; i < d->num_pools; i++) print_pool_stacks(d->fp, d->pools[i]);
        return;
    }
    goabt_sched *sc = s->sched;
    fprintf(d->fp, "= execution stream %d (%p): main scheduler %p, pools:", s->rank, (void *)s,
            (void *)sc);
    for (int i = 0; sc != NULL && i < sc->num_pools; i++) {
        goabt_pool *p = sc->pools[i];
        fprintf(d->fp, " %d", p->id);
        int seen = 0;
        for (int k = 0; k < d->num_pools && !seen; k++) seen = d->pools[k] == p;
        if (seen) continue;
        if (d->num_pools == d->cap) {
            int cap = d->cap ? 2 * d->cap : 16;
            void *more = realloc(d->pools, (size_t)cap * sizeof *d->pools);
            if (more == NULL) continue;
            d->pools = more;
            d->cap = cap;
        }
        d->pools[d->num_pools++] = p;
    }
    fputc('\n', d->fp);
}

static void print_time(FILE *fp, const char *what)
{
    time_t now = time(NULL);
    struct tm tm;
    char when[64] = "?";
    if (localtime_r(&now, &tm) != NULL) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(fp, "%s ULT stacks, %s\n", what, when);
}

static int lead_dump(void)
{
    FILE *fp = req.fp;
    goabt_streams_wake_all(); /* those asleep before the request: they now find a timer due */
    uint64_t start = goabt_now_ns();
    int timed_out = 0, running = 0;
    for (unsigned spins = 0;; spins++) {
        running = 0;
        goabt_streams_each(count_running, &running);
        if (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) >= running) break;
        if (req.timeout >= 0 && (double)(goabt_now_ns() - start) >= req.timeout * 1e9) {
            timed_out = 1;
            break;
        }
        for (int k = 0; k < 64; k++) goabt_backoff(spins);
    }
    if (fp != NULL) {
        if (timed_out) {
            fprintf(fp, "ABT_info_trigger_print_all_thread_stacks: timed out: %d of %d execution "
                        "streams stopped; printing anyway\n",
                    __atomic_load_n(&arrived, __ATOMIC_ACQUIRE), running);
        }
        print_time(fp, "Start of");
        struct dump d = {fp, NULL, 0, 0};
        goabt_streams_each(dump_stream, &d);
        free(d.pools);
        print_time(fp, "End of");
        fflush(fp);
    }
    return timed_out;
}

void goabt_info_stacks_at_sched_point(void)
{
    if (goabt_self_stream() == NULL) return;
    __atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&goabt_info_stacks_state, __ATOMIC_SEQ_CST) != REQ_WAITING) {
        __atomic_sub_fetch(&arrived, 1, __ATOMIC_SEQ_CST); /* late: that request is over */
        return;
    }
    /* Counted while the request waits: the request cannot end before this stream leaves. */
    int free_seat = 0;
    if (__atomic_compare_exchange_n(&leader, &free_seat, 1, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED)) {
        int timed_out = lead_dump();
        void (*cb)(ABT_bool, void *) = req.cb;
        void *cb_arg = req.arg;
        __atomic_store_n(&goabt_info_stacks_state, REQ_DONE, __ATOMIC_SEQ_CST);
        int one = 1;
        for (unsigned spins = 0; !__atomic_compare_exchange_n(&arrived, &one, 0, 0,
                                                              __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
             spins++) {
            one = 1;
            goabt_backoff(spins);
        }
        __atomic_store_n(&leader, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&goabt_info_stacks_state, REQ_UNSET, __ATOMIC_SEQ_CST);
        /* Last: once the program hears the dump is over, it may ask for another. */
        if (cb != NULL) cb(timed_out ? ABT_TRUE : ABT_FALSE, cb_arg);
        return;
    }
    for (unsigned spins = 0;
         __atomic_load_n(&goabt_info_stacks_state, __ATOMIC_ACQUIRE) == REQ_WAITING; spins++) {
        goabt_backoff(spins);
    }
    __atomic_sub_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
}
