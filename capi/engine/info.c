//go:build goabt_c_engine
/* info.c: the engine's side of info printing (the entries: api/info.c, api/info_print.c):
 * the configuration the Go core adds, the facts of objects and stacks, and the stack dump that
 * ABT_info_trigger_print_all_thread_stacks asks of the schedulers. Debugging output only. C
 * gathers plain facts (info_facts.h): a snapshot of the fields, under the locks that keep the
 * object alive meanwhile, and the words of a ULT's stack in use; the Go core makes the text
 * (core/info.go, what each print says), which C writes to the program's FILE*. The trigger's
 * protocol among the streams (who leads, who waits) runs at the schedulers' timer checks.
 *
 * A stack is read here, not in Go: another ULT's frames are read word by word outside
 * AddressSanitizer's view (copy_words), while the pool lock or the unit's state keeps them
 * there; Go gets the copy. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "handles.h"
#include "info.h"
#include "pool.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"
#include "gocalls.h"
#include "info_facts.h"
#ifdef GOABT_VALGRIND
#include <valgrind/memcheck.h>
#endif

_Static_assert(sizeof(cpu_set_t) == sizeof(uint64_t[16]), "a cpu_set_t is 16 words");

/* ---- What the Go core's configuration adds ---------------------------------------------------- */

struct goabt_info_go_config goabt_info_go_config;

int goabt_info_at_init(void)
{
    struct goabt_info_go_config *c = &goabt_info_go_config;
    int flags = goabt_go.config_info(c->go_pool, sizeof c->go_pool, c->go_sched, sizeof c->go_sched);
    c->print_config = (flags & 1) != 0;
    c->check_leaks = (flags & 2) != 0 ? ((flags & 4) != 0 ? 2 : 1) : 0;
    return c->print_config;
}

/* ---- Text from the Go core ------------------------------------------------------------------ */

struct text_call {
    int what;
    const void *facts;
    int a, b;
    char *text;
};

static void text_gated(void *p)
{
    struct text_call *c = p;
    if (!goabt_go_available()) return;
    switch (c->what) {
    case GOABT_INFO_TEXT_CONFIG: c->text = goabt_go.info_config(c->facts); break;
    case GOABT_INFO_TEXT_STREAMS: c->text = goabt_go.info_streams(c->facts, c->a, c->b); break;
    case GOABT_INFO_TEXT_SCHED: c->text = goabt_go.info_sched(c->facts); break;
    case GOABT_INFO_TEXT_POOL: c->text = goabt_go.info_pool(c->facts); break;
    case GOABT_INFO_TEXT_UNIT: c->text = goabt_go.info_unit(c->facts, c->a); break;
    case GOABT_INFO_TEXT_ATTR: c->text = goabt_go.info_attr(c->facts); break;
    case GOABT_INFO_TEXT_POOL_STACKS: c->text = goabt_go.info_pool_stacks(c->facts); break;
    case GOABT_INFO_TEXT_DUMP: c->text = goabt_go.info_dump(c->facts); break;
    }
}

void goabt_info_write(FILE *fp, int what, const void *facts, int a, int b)
{
    struct text_call c = {what, facts, a, b, NULL};
    goabt_gate(text_gated, &c);
    if (c.text != NULL) fputs(c.text, fp);
    free(c.text);
    fflush(fp);
}

/* ---- Facts ---------------------------------------------------------------------------------- */

void goabt_info_pool_facts(goabt_pool *p, struct goabt_info_pool *f)
{
    memset(f, 0, sizeof *f);
    f->addr = (uintptr_t)p;
    f->data = (uintptr_t)p->data;
    f->id = p->id;
    f->kind = goabt_info_pool_kind(p);
    f->access = p->access;
    f->automatic = p->automatic != 0;
    f->has_size = goabt_pool_can(p, GOABT_POOL_CAN_SIZE);
    if (f->has_size) f->size = goabt_pool_size(p);
    f->blocked = goabt_pool_num_blocked(p);
    f->num_scheds = __atomic_load_n(&p->num_scheds, __ATOMIC_RELAXED);
}

/* Its main scheduler's pool ids, malloc'd (free them), *n of them; NULL if none or no memory. */
int *goabt_info_pool_ids(const goabt_sched *sc, int *n)
{
    *n = 0;
    if (sc == NULL || sc->num_pools == 0) return NULL;
    int *ids = malloc((size_t)sc->num_pools * sizeof *ids);
    if (ids == NULL) return NULL;
    for (int i = 0; i < sc->num_pools; i++) ids[i] = sc->pools[i]->id;
    *n = sc->num_pools;
    return ids;
}

/* rt.lock is held (goabt_streams_each, ABT_info_print_xstream). f->pool_ids is malloc'd. */
void goabt_info_stream_facts(goabt_stream *s, struct goabt_info_stream *f)
{
    memset(f, 0, sizeof *f);
    goabt_sched *sc = s->sched;
    f->addr = (uintptr_t)s;
    f->rank = s->rank;
    f->primary = s->is_primary != 0;
    f->terminated =
        __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == ABT_XSTREAM_STATE_TERMINATED;
    cpu_set_t cpus;
    if (goabt_stream_cpus_locked(s, &cpus) == ABT_SUCCESS) {
        f->has_cpus = 1;
        memcpy(f->cpus, &cpus, sizeof f->cpus);
    }
    f->running = (uintptr_t)__atomic_load_n(&s->current, __ATOMIC_RELAXED);
    f->finish_req = (__atomic_load_n(&s->request, __ATOMIC_RELAXED) & GOABT_REQ_FINISH) != 0;
    if (sc != NULL) {
        f->sched = (uintptr_t)sc;
        f->sched_kind = goabt_info_sched_kind(sc);
        f->pool_ids = goabt_info_pool_ids(sc, &f->num_pools);
    }
}

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

/* u's facts; with_stack: also the words of its stack in use, when it has a stack to show
 * (not running, not ended, its saved stack pointer inside its stack), in f->words (malloc'd:
 * free it). */
static void unit_facts(goabt_unit *u, struct goabt_info_unit *f, int with_stack)
{
    memset(f, 0, sizeof *f);
    f->last_stream = -1;
    if (u == NULL) return;
    f->valid = 1;
    f->addr = (uintptr_t)u;
    f->id = goabt_unit_id(u);
    f->tasklet = u->kind == GOABT_TASKLET;
    f->main = (u->flags & GOABT_UNIT_MAIN) != 0;
    f->state = __atomic_load_n(&u->state, __ATOMIC_ACQUIRE);
    goabt_stream *last = u->last_stream;
    if (last != NULL) f->last_stream = last->rank;
    goabt_pool *p = u->pool;
    if (p != NULL) {
        f->pool = (uintptr_t)p;
        f->pool_id = p->id;
    }
    f->func = (uintptr_t)u->func;
    f->arg = (uintptr_t)u->arg;
    f->stack = (uintptr_t)u->stack;
    f->stacksize = u->stacksize;
    f->user_stack = (u->flags & GOABT_UNIT_USER_STACK) != 0;
    f->mapped = u->mapping != NULL;
    f->migratable = (u->flags & GOABT_UNIT_MIGRATABLE) != 0;
    f->named = (u->flags & GOABT_UNIT_NAMED) != 0;
    f->sp = (uintptr_t)u->ctx;
    if (!with_stack || f->tasklet || f->main || f->state == ABT_THREAD_STATE_RUNNING ||
        f->state == ABT_THREAD_STATE_TERMINATED) {
        return;
    }
    char *lo = u->stack, *top = lo + u->stacksize, *sp = u->ctx;
    if (sp == NULL || lo == NULL || sp < lo || sp >= top) return;
    f->used = (size_t)(top - sp);
    size_t shown = f->used < GOABT_INFO_STACK_MAX ? f->used : GOABT_INFO_STACK_MAX;
    uintptr_t *words = malloc(shown);
    if (words == NULL) return;
    f->num_words = shown / sizeof(uintptr_t);
    copy_words(words, (const uintptr_t *)sp, f->num_words);
    f->words = words;
}

void goabt_info_unit_facts(goabt_unit *u, struct goabt_info_unit *f) { unit_facts(u, f, 0); }
void goabt_info_unit_facts_with(goabt_unit *u, struct goabt_info_unit *f, int with_stack)
{
    unit_facts(u, f, with_stack);
}

/* The units queued in a pool, gathered for a stack print. */
struct queued {
    struct goabt_info_unit *units;
    int n, cap;
};

static void queued_add(struct queued *q, goabt_unit *u)
{
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 16;
        void *more = realloc(q->units, (size_t)cap * sizeof *q->units);
        if (more == NULL) return;
        q->units = more;
        q->cap = cap;
    }
    unit_facts(u, &q->units[q->n++], 1);
}

static void queued_thread(void *arg, ABT_thread t) { queued_add(arg, goabt_unit_of(t)); }

/* The units queued in p with their stacks, in f (free them with pool_units_free). A built-in
 * pool is walked under its lock, so that none of its units can be popped, run and freed while
 * its stack is read; a user pool (or a Go pool) is read through its print_all: ABT_ERR_POOL if
 * it has none. */
int goabt_info_pool_units_facts(goabt_pool *p, struct goabt_info_pool_units *f)
{
    struct queued q = {NULL, 0, 0};
    int rc = ABT_SUCCESS;
    memset(f, 0, sizeof *f);
    f->addr = (uintptr_t)p;
    f->id = p->id;
    if (p->ops->flags & GOABT_POOL_OPS_LOCKED_QUEUE) {
        goabt_spin_lock(&p->lock);
        for (goabt_unit *u = p->head; u != NULL; u = u->next) queued_add(&q, u);
        goabt_spin_unlock(&p->lock);
    } else {
        rc = goabt_pool_print_all(p, &q, queued_thread, NULL);
        f->no_print_all = rc != ABT_SUCCESS;
    }
    f->units = q.units;
    f->num_units = q.n;
    return rc;
}

void goabt_info_pool_units_free(struct goabt_info_pool_units *f)
{
    for (int i = 0; i < f->num_units; i++) free((void *)f->units[i].words);
    free((void *)f->units);
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
void goabt_info_stacks_request(FILE *fp, double timeout, void (*cb_func)(ABT_bool, void *), void *arg)
{
    int unset = REQ_UNSET;
    if (!__atomic_compare_exchange_n(&goabt_info_stacks_state, &unset, REQ_SETTING, 0,
                                     __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        return; /* one is pending already: it prints */
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
}

static void count_running(goabt_stream *s, void *arg)
{
    if (s != NULL && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != ABT_XSTREAM_STATE_TERMINATED) {
        (*(int *)arg)++;
    }
}

/* The dump's facts, gathered under rt.lock (goabt_streams_each): the streams, and every pool
 * of their main schedulers once, with its units' stacks. */
struct dump {
    struct goabt_info_dump_stream *streams;
    int num_streams, cap_streams;
    goabt_pool **pools;
    int num_pools, cap_pools;
    struct goabt_info_pool_units *units; /* num_pools of them, once the streams are listed */
};

static int grow(void **array, int *cap, size_t size)
{
    int more = *cap ? 2 * *cap : 16;
    void *a = realloc(*array, (size_t)more * size);
    if (a == NULL) return 0;
    *array = a;
    *cap = more;
    return 1;
}

static void dump_stream(goabt_stream *s, void *arg)
{
    struct dump *d = arg;
    if (s == NULL) { /* the streams are listed: the pools' stacks, still under rt.lock */
        d->units = calloc((size_t)d->num_pools + 1, sizeof *d->units);
        for (int i = 0; d->units != NULL && i < d->num_pools; i++) {
            goabt_info_pool_units_facts(d->pools[i], &d->units[i]);
        }
        return;
    }
    if (d->num_streams == d->cap_streams &&
        !grow((void **)&d->streams, &d->cap_streams, sizeof *d->streams)) {
        return;
    }
    goabt_sched *sc = s->sched;
    struct goabt_info_dump_stream *f = &d->streams[d->num_streams++];
    f->addr = (uintptr_t)s;
    f->sched = (uintptr_t)sc;
    f->rank = s->rank;
    f->pool_ids = goabt_info_pool_ids(sc, &f->num_pools);
    for (int i = 0; sc != NULL && i < sc->num_pools; i++) {
        goabt_pool *p = sc->pools[i];
        int seen = 0;
        for (int k = 0; k < d->num_pools && !seen; k++) seen = d->pools[k] == p;
        if (seen) continue;
        if (d->num_pools == d->cap_pools &&
            !grow((void **)&d->pools, &d->cap_pools, sizeof *d->pools)) {
            continue;
        }
        d->pools[d->num_pools++] = p;
    }
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
        struct goabt_info_dump f = {
            .timed_out = timed_out,
            .arrived = __atomic_load_n(&arrived, __ATOMIC_ACQUIRE),
            .running = running,
            .start = (int64_t)time(NULL),
        };
        struct dump d;
        memset(&d, 0, sizeof d);
        goabt_streams_each(dump_stream, &d);
        f.end = (int64_t)time(NULL);
        f.streams = d.streams;
        f.num_streams = d.num_streams;
        f.pools = d.units;
        f.num_pools = d.units != NULL ? d.num_pools : 0;
        goabt_info_write(fp, GOABT_INFO_TEXT_DUMP, &f, 0, 0);
        for (int i = 0; i < f.num_pools; i++) goabt_info_pool_units_free(&d.units[i]);
        for (int i = 0; i < d.num_streams; i++) free((void *)d.streams[i].pool_ids);
        free(d.units);
        free(d.pools);
        free(d.streams);
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
