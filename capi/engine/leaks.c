//go:build goabt_c_engine
/* leaks.c: GOABT_CHECK_LEAKS. With the check on (1, or fatal), the last ABT_finalize lists on
 * stderr, one line each, the objects the program created through the API and did not free:
 * named ULTs and tasklets (id, function, state), keys, pools, schedulers, ULT attributes,
 * synchronization objects, timers, and pool and scheduler configurations and pool definitions;
 * with fatal the process then exits with the Go core's core.LeakExitStatus when it exits. The
 * OPAL objects still alive are opal.c's, at opal_class_finalize, over the same registry.
 *
 * Cost. The registry (leaks.h) is a hash set of addresses under a mutex, touched only while the
 * check is on: each create and free site tests goabt_leak_check (GOABT_LEAK_NOTE, leaks.h), a
 * load and a branch not taken when it is off. On, each create and free takes the mutex.
 *
 * What counts. An object is noted where the API hands it to the program (ABT_*_create, and
 * ABT_thread_get_attr) and forgotten wherever it is freed: by the program, or by goabt itself
 * (an automatic scheduler with its stream, automatic pools with their last scheduler, the
 * primary's scheduler and pools at finalize, a pool retired by ABT_xstream_set_main_sched). So
 * what is left at the report is what nobody freed. Not reported: execution streams (finalize
 * joins and frees them, as README says), unnamed units (they free themselves), objects in
 * static memory (ABT_MUTEX_INITIALIZER ...: never created), objects created before the
 * outermost ABT_init or after the last ABT_finalize (the check is off then). Unit descriptors,
 * key tables and key chunks the engine did not give back are the Go core's line after this
 * report (capi/runtime.go, goabt_go_runtime_finalize). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gocalls.h"
#include "handles.h"
#include "keys.h"
#include "leaks.h"
#include "object.h"
#include "pool.h"
#include "scheduler.h"
#include "unit.h"

int goabt_leak_check;
static int leak_exit_status = 1; /* core.LeakExitStatus once the Go core said it */
static goabt_leak_table abt_leaks = GOABT_LEAK_TABLE_INIT;

/* ---- The registry ------------------------------------------------------------------------ */

static size_t slot_of(const goabt_leak_table *t, const void *obj)
{
    uint64_t h = ((uint64_t)(uintptr_t)obj >> 4) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (t->cap - 1);
}

static void table_put(goabt_leak_table *t, goabt_leak_entry e)
{
    size_t i = slot_of(t, e.obj);
    while (t->slots[i].obj != NULL && t->slots[i].obj != e.obj) i = (i + 1) & (t->cap - 1);
    if (t->slots[i].obj == NULL) t->count++;
    t->slots[i] = e;
}

static int table_grow(goabt_leak_table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 256;
    goabt_leak_entry *old = t->slots;
    size_t old_cap = t->cap;
    goabt_leak_entry *slots = calloc(cap, sizeof *slots);
    if (slots == NULL) return 0;
    t->slots = slots;
    t->cap = cap;
    t->count = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].obj != NULL) table_put(t, old[i]);
    }
    free(old);
    return 1;
}

void goabt_leak_table_add(goabt_leak_table *t, goabt_leak_entry e)
{
    pthread_mutex_lock(&t->lock);
    e.seq = ++t->seq;
    if (2 * (t->count + 1) <= t->cap || table_grow(t)) table_put(t, e);
    pthread_mutex_unlock(&t->lock);
}

void goabt_leak_table_remove(goabt_leak_table *t, const void *obj)
{
    pthread_mutex_lock(&t->lock);
    if (t->count == 0) {
        pthread_mutex_unlock(&t->lock);
        return;
    }
    size_t mask = t->cap - 1, i = slot_of(t, obj);
    while (t->slots[i].obj != NULL && t->slots[i].obj != obj) i = (i + 1) & mask;
    if (t->slots[i].obj != NULL) {
        /* Backward-shift deletion: move up every later entry of the run that may sit at i. */
        for (size_t j = (i + 1) & mask; t->slots[j].obj != NULL; j = (j + 1) & mask) {
            size_t home = slot_of(t, t->slots[j].obj);
            int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!stays) {
                t->slots[i] = t->slots[j];
                i = j;
            }
        }
        t->slots[i].obj = NULL;
        t->count--;
    }
    pthread_mutex_unlock(&t->lock);
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const goabt_leak_entry *)a)->seq, y = ((const goabt_leak_entry *)b)->seq;
    return x < y ? -1 : x > y;
}

goabt_leak_entry *goabt_leak_table_take(goabt_leak_table *t, size_t *n)
{
    pthread_mutex_lock(&t->lock);
    goabt_leak_entry *slots = t->slots;
    size_t cap = t->cap, count = t->count;
    t->slots = NULL;
    t->cap = t->count = 0;
    pthread_mutex_unlock(&t->lock);
    *n = 0;
    if (count == 0) {
        free(slots);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < cap; i++) {
        if (slots[i].obj != NULL) slots[k++] = slots[i];
    }
    qsort(slots, k, sizeof *slots, by_seq);
    *n = k;
    return slots;
}

/* ---- Exit status in mode fatal ------------------------------------------------------------- */

static int exit_pending;     /* the status to exit with */
static pid_t exit_pending_pid; /* ... in this process (not in a child forked after) */

static void leaks_at_exit(void)
{
    if (exit_pending == 0 || exit_pending_pid != getpid()) return;
    fprintf(stderr, "goabt: GOABT_CHECK_LEAKS=fatal found leaks (above): exit status %d\n",
            exit_pending);
    fflush(NULL);
    _exit(exit_pending);
}

/* Registered when the library loads, before the program's own handlers: it runs after them. */
__attribute__((constructor)) static void leaks_register_at_exit(void)
{
    atexit(leaks_at_exit);
}

void goabt_leaks_exit_later(int status)
{
    exit_pending = status;
    exit_pending_pid = getpid();
}

/* ---- The engine's objects -------------------------------------------------------------------- */

void goabt_leaks_at_init(void)
{
    int mode = goabt_go.leak_check();
    if (mode != 0) leak_exit_status = goabt_go.leak_exit_status();
    __atomic_store_n(&goabt_leak_check, mode, __ATOMIC_RELAXED);
}

void goabt_leak_note(int kind, const void *obj)
{
    if (kind == GOABT_LEAK_UNIT && !(((const goabt_unit *)obj)->flags & GOABT_UNIT_NAMED)) return;
    goabt_leak_entry e = {.obj = obj, .kind = kind};
    goabt_leak_table_add(&abt_leaks, e);
}

void goabt_leak_forget(const void *obj) { goabt_leak_table_remove(&abt_leaks, obj); }

/* What each kind is called and how the program frees one. */
static const struct {
    const char *name;
    const char *free_fn;
} kinds[GOABT_LEAK_KINDS] = {
    [GOABT_LEAK_ULT] = {"ULT", "ABT_thread_free"},
    [GOABT_LEAK_TASKLET] = {"tasklet", "ABT_task_free"},
    [GOABT_LEAK_KEY] = {"key", "ABT_key_free"},
    [GOABT_LEAK_POOL] = {"pool", "ABT_pool_free"},
    [GOABT_LEAK_SCHED] = {"scheduler", "ABT_sched_free"},
    [GOABT_LEAK_THREAD_ATTR] = {"ULT attribute", "ABT_thread_attr_free"},
    [GOABT_LEAK_MUTEX] = {"mutex", "ABT_mutex_free"},
    [GOABT_LEAK_MUTEX_ATTR] = {"mutex attribute", "ABT_mutex_attr_free"},
    [GOABT_LEAK_COND] = {"condition variable", "ABT_cond_free"},
    [GOABT_LEAK_RWLOCK] = {"readers-writer lock", "ABT_rwlock_free"},
    [GOABT_LEAK_BARRIER] = {"barrier", "ABT_barrier_free"},
    [GOABT_LEAK_XSTREAM_BARRIER] = {"execution-stream barrier", "ABT_xstream_barrier_free"},
    [GOABT_LEAK_EVENTUAL] = {"eventual", "ABT_eventual_free"},
    [GOABT_LEAK_FUTURE] = {"future", "ABT_future_free"},
    [GOABT_LEAK_TIMER] = {"timer", "ABT_timer_free"},
    [GOABT_LEAK_SCHED_CONFIG] = {"scheduler configuration", "ABT_sched_config_free"},
    [GOABT_LEAK_POOL_CONFIG] = {"pool configuration", "ABT_pool_config_free"},
    [GOABT_LEAK_POOL_USER_DEF] = {"pool definition", "ABT_pool_user_def_free"},
};

/* The kind of an object of object.h memory, from its magic (it was not freed: the magic is
 * still its kind's). */
static int object_kind(const void *obj)
{
    switch (__atomic_load_n(&((const goabt_object *)obj)->magic, __ATOMIC_ACQUIRE)) {
    case GOABT_MAGIC_MUTEX: return GOABT_LEAK_MUTEX;
    case GOABT_MAGIC_MUTEX_ATTR: return GOABT_LEAK_MUTEX_ATTR;
    case GOABT_MAGIC_COND: return GOABT_LEAK_COND;
    case GOABT_MAGIC_RWLOCK: return GOABT_LEAK_RWLOCK;
    case GOABT_MAGIC_BARRIER: return GOABT_LEAK_BARRIER;
    case GOABT_MAGIC_XSTREAM_BARRIER: return GOABT_LEAK_XSTREAM_BARRIER;
    case GOABT_MAGIC_EVENTUAL: return GOABT_LEAK_EVENTUAL;
    case GOABT_MAGIC_FUTURE: return GOABT_LEAK_FUTURE;
    case GOABT_MAGIC_TIMER: return GOABT_LEAK_TIMER;
    }
    return -1; /* not ours any more: memory reused without a free, not reported */
}

static int by_kind(const void *a, const void *b)
{
    const goabt_leak_entry *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "name at 0x..." for a function, or, without a dynamic symbol for it (a static function, a
 * program linked without -rdynamic), "0x... (file+0xoffset)", which addr2line reads. */
static void goabt_leak_describe_function(char *buf, size_t n, const void *fn)
{
    Dl_info info;
    if (fn != NULL && dladdr(fn, &info) != 0) {
        if (info.dli_sname != NULL && info.dli_saddr == fn) {
            snprintf(buf, n, "%s at %p", info.dli_sname, fn);
            return;
        }
        if (info.dli_fname != NULL) {
            snprintf(buf, n, "%p (%s+0x%lx)", fn, info.dli_fname,
                     (unsigned long)((uintptr_t)fn - (uintptr_t)info.dli_fbase));
            return;
        }
    }
    snprintf(buf, n, "%p", fn);
}

static const char *state_name(int state)
{
    switch (state) {
    case ABT_THREAD_STATE_READY: return "ready";
    case ABT_THREAD_STATE_RUNNING: return "running";
    case ABT_THREAD_STATE_BLOCKED: return "blocked";
    case ABT_THREAD_STATE_TERMINATED: return "terminated";
    }
    return "unknown";
}

static const char *pool_kind_name(const goabt_pool *p)
{
    if (p->ops == &goabt_go_pool_ops) return "a Go pool";
    if (p->ops == &goabt_user_pool_ops) return "user-defined";
    switch (p->kind) {
    case ABT_POOL_FIFO: return "ABT_POOL_FIFO";
    case ABT_POOL_FIFO_WAIT: return "ABT_POOL_FIFO_WAIT";
    case ABT_POOL_RANDWS: return "ABT_POOL_RANDWS";
    }
    return "basic";
}

static const char *sched_kind_name(const goabt_sched *s)
{
    if (s->ops == &goabt_sched_go_ops) return "a Go scheduler";
    if (s->ops == &goabt_sched_user_ops) return "user-defined";
    switch (s->predef) {
    case ABT_SCHED_BASIC: return "ABT_SCHED_BASIC";
    case ABT_SCHED_BASIC_WAIT: return "ABT_SCHED_BASIC_WAIT";
    case ABT_SCHED_PRIO: return "ABT_SCHED_PRIO";
    case ABT_SCHED_RANDWS: return "ABT_SCHED_RANDWS";
    }
    return "predefined";
}

/* What the line says between the kind's name and how to free it. */
static void describe(const goabt_leak_entry *e, char *buf, size_t n)
{
    char fn[512];
    switch (e->kind) {
    case GOABT_LEAK_ULT:
    case GOABT_LEAK_TASKLET: {
        goabt_unit *u = (goabt_unit *)e->obj;
        goabt_leak_describe_function(fn, sizeof fn, (const void *)(uintptr_t)u->func);
        snprintf(buf, n, "%llu (function %s), %s", (unsigned long long)goabt_unit_id(u), fn,
                 state_name(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE)));
        return;
    }
    case GOABT_LEAK_KEY: {
        const goabt_key *k = e->obj;
        if (k->destructor == NULL) {
            snprintf(buf, n, "%u (no destructor)", k->id);
        } else {
            goabt_leak_describe_function(fn, sizeof fn, (const void *)(uintptr_t)k->destructor);
            snprintf(buf, n, "%u (destructor %s)", k->id, fn);
        }
        return;
    }
    case GOABT_LEAK_POOL: {
        const goabt_pool *p = e->obj;
        snprintf(buf, n, "%d (%s%s)", p->id, pool_kind_name(p), p->automatic ? ", automatic" : "");
        return;
    }
    case GOABT_LEAK_SCHED: {
        const goabt_sched *s = e->obj;
        snprintf(buf, n, "%p (%s, %d pool%s%s)", e->obj, sched_kind_name(s), s->num_pools,
                 s->num_pools == 1 ? "" : "s", s->automatic ? ", automatic" : "");
        return;
    }
    }
    snprintf(buf, n, "%p", e->obj);
}

void goabt_leaks_report(void)
{
    int mode = __atomic_exchange_n(&goabt_leak_check, 0, __ATOMIC_RELAXED);
    if (mode == 0) return;
    size_t n;
    goabt_leak_entry *all = goabt_leak_table_take(&abt_leaks, &n);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        goabt_leak_entry e = all[i];
        if (e.kind == GOABT_LEAK_UNIT) {
            e.kind = ((const goabt_unit *)e.obj)->kind == GOABT_TASKLET ? GOABT_LEAK_TASKLET
                                                                         : GOABT_LEAK_ULT;
        } else if (e.kind == GOABT_LEAK_OBJECT) {
            e.kind = object_kind(e.obj);
        }
        if (e.kind >= 0) all[kept++] = e;
    }
    if (kept == 0) {
        free(all);
        return;
    }
    qsort(all, kept, sizeof *all, by_kind);
    fprintf(stderr, "goabt: GOABT_CHECK_LEAKS: %zu object%s the program created %s not freed "
                    "at the last ABT_finalize:\n",
            kept, kept == 1 ? "" : "s", kept == 1 ? "was" : "were");
    for (size_t i = 0; i < kept;) {
        int kind = all[i].kind;
        size_t j = i, listed = 0;
        for (; j < kept && all[j].kind == kind; j++) {
            if (listed == GOABT_LEAK_MAX_LINES) continue;
            char what[1024];
            describe(&all[j], what, sizeof what);
            fprintf(stderr, "goabt: leaked %s %s; free it with %s\n", kinds[kind].name, what,
                    kinds[kind].free_fn);
            listed++;
        }
        if (j - i > listed) {
            fprintf(stderr, "goabt: leaked %zu more of kind %s (not listed)\n", j - i - listed,
                    kinds[kind].name);
        }
        i = j;
    }
    fflush(stderr);
    free(all);
    if (mode == 2) goabt_leaks_exit_later(leak_exit_status);
}
