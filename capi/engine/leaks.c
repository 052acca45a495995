//go:build goabt_c_engine
/* leaks.c: GOABT_CHECK_LEAKS. With the check on (1, or fatal), the last ABT_finalize lists on
 * stderr, one line each, the objects the program created through the API and did not free:
 * named ULTs and tasklets (id, function, state), keys, pools, schedulers, ULT attributes,
 * synchronization objects, timers, and pool and scheduler configurations and pool definitions;
 * with fatal the process then exits with the Go core's core.LeakExitStatus when it exits. The
 * OPAL objects still alive are opal.c's, at opal_class_finalize, over a registry of their own.
 *
 * Who does what. The registries live in the Go core (core/leaks.go: core.LiveObjects), which
 * also makes the report's text (core.LeakReport); C notes and forgets objects there, and at the
 * report reads from each object left what its line says (a unit's id, function and state, a
 * key's destructor, a pool's or scheduler's kind), writes the text on stderr, and keeps the
 * exit status of mode fatal (an atexit handler: a process-wide matter).
 *
 * Cost. Only while the check is on: each create and free site tests goabt_leak_check
 * (GOABT_LEAK_NOTE, leaks.h), a load and a branch not taken when it is off, which calls no Go.
 * On, each create and free takes a mutex and queues the operation; the Go core gets the queue
 * a batch at a time ("The queue" below says why).
 *
 * What counts. An object is noted where the API hands it to the program (ABT_*_create, and
 * ABT_thread_get_attr) and forgotten wherever it is freed: by the program, or by goabt itself
 * (an automatic scheduler with its stream, automatic pools with their last scheduler, the
 * primary's scheduler and pools at finalize, a pool retired by ABT_xstream_set_main_sched). So
 * what is left at the report is what nobody freed. Not reported: execution streams (finalize
 * joins and frees them, as docs/features.md says), unnamed units (they free themselves), objects in
 * static memory (ABT_MUTEX_INITIALIZER ...: never created), objects created before the
 * outermost ABT_init or after the last ABT_finalize (the check is off then). Unit descriptors,
 * key tables and key chunks the engine did not give back are the Go core's line after this
 * report (capi/runtime.go, goabt_go_runtime_finalize). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gocalls.h"
#include "object.h"
#include "info.h"
#include "info_facts.h"
#include "keys.h"
#include "leaks.h"
#include "object.h"
#include "opal_object.h"
#include "pool.h"
#include "scheduler.h"
#include "unit.h"

int goabt_opal_leak_exit_status = 1;

int goabt_leak_check;
static int leak_exit_status = 1; /* core.LeakExitStatus once the Go core said it */

/* ---- The registries, in the Go core ---------------------------------------------------------- */

/* The queue. Notes and forgets are queued here, in the order they happen, and handed to the Go
 * core a batch at a time (and before every report): a call into Go per create and free made
 * creation-heavy programs under the check several times slower when the machine was loaded
 * (ctests/c/scale_live: 400,000 creates beside streams spinning on the same pools). One queue
 * under one mutex keeps every registry's operations in the order the program made them. */
#define LEAK_BATCH 1024
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct goabt_leak_op queue[LEAK_BATCH];
static int queued;

struct leak_call {
    int registry;
    const struct goabt_leak_fact *facts;
    size_t n;
    struct goabt_leak_fact *taken;
    char *text;
};

static void apply_gated(void *p)
{
    (void)p;
    if (goabt_go_available()) goabt_go.leak_apply(queue, queued);
}

/* Hands the queue to the Go core; queue_lock is held. */
static void flush_locked(void)
{
    if (queued > 0) goabt_gate(apply_gated, NULL);
    queued = 0;
}

static void enqueue(struct goabt_leak_op op)
{
    pthread_mutex_lock(&queue_lock);
    queue[queued++] = op;
    if (queued == LEAK_BATCH) flush_locked();
    pthread_mutex_unlock(&queue_lock);
}

static void take_gated(void *p)
{
    struct leak_call *c = p;
    if (goabt_go_available()) c->taken = goabt_go.leak_take(c->registry, &c->n);
}

static void report_gated(void *p)
{
    struct leak_call *c = p;
    if (goabt_go_available()) c->text = goabt_go.leak_report(c->registry, c->facts, c->n);
}

void goabt_leak_registry_note(int registry, int kind, const void *obj, const void *cls,
                              const char *file, int line)
{
    enqueue((struct goabt_leak_op){.obj = (uintptr_t)obj, .cls = (uintptr_t)cls,
                                   .file = (uintptr_t)file, .registry = registry, .note = 1,
                                   .kind = kind, .line = line});
}

void goabt_leak_registry_forget(int registry, const void *obj)
{
    enqueue((struct goabt_leak_op){.obj = (uintptr_t)obj, .registry = registry});
}

struct goabt_leak_fact *goabt_leak_registry_take(int registry, size_t *n)
{
    struct leak_call c = {.registry = registry};
    pthread_mutex_lock(&queue_lock);
    flush_locked();
    goabt_gate(take_gated, &c);
    pthread_mutex_unlock(&queue_lock);
    *n = c.taken != NULL ? c.n : 0;
    return c.taken;
}

int goabt_leak_registry_report(int registry, const struct goabt_leak_fact *facts, size_t n)
{
    struct leak_call c = {.registry = registry, .facts = facts, .n = n};
    goabt_gate(report_gated, &c);
    if (c.text == NULL) return 0;
    fputs(c.text, stderr);
    fflush(stderr);
    free(c.text);
    return 1;
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
    goabt_leak_registry_note(GOABT_LEAKS_ABT, kind, obj, NULL, NULL, 0);
}

void goabt_leak_forget(const void *obj) { goabt_leak_registry_forget(GOABT_LEAKS_ABT, obj); }

/* In a child forked after the Go core started, which holds the registries and cannot run
 * there (golib.c): no checks. */
void goabt_leaks_forked(void)
{
    __atomic_store_n(&goabt_leak_check, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&opal_obj_leak_check, 0, __ATOMIC_RELAXED);
}

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

/* What the report says of f's object besides its kind, read from the object. */
static void describe(struct goabt_leak_fact *f)
{
    switch (f->kind) {
    case GOABT_LEAK_UNIT: {
        goabt_unit *u = (goabt_unit *)f->obj;
        f->kind = u->kind == GOABT_TASKLET ? GOABT_LEAK_TASKLET : GOABT_LEAK_ULT;
        f->id = goabt_unit_id(u);
        f->fn = (uintptr_t)u->func;
        f->state = __atomic_load_n(&u->state, __ATOMIC_ACQUIRE);
        return;
    }
    case GOABT_LEAK_OBJECT: f->kind = object_kind((const void *)f->obj); return;
    case GOABT_LEAK_KEY: {
        const goabt_key *k = (const goabt_key *)f->obj;
        f->id = k->id;
        f->fn = (uintptr_t)k->destructor;
        return;
    }
    case GOABT_LEAK_POOL: {
        const goabt_pool *p = (const goabt_pool *)f->obj;
        f->id = (uint64_t)p->id;
        f->pool_kind = goabt_info_pool_kind(p);
        f->automatic = p->automatic != 0;
        return;
    }
    case GOABT_LEAK_SCHED: {
        const goabt_sched *s = (const goabt_sched *)f->obj;
        f->sched_kind = goabt_info_sched_kind(s);
        f->num_pools = s->num_pools;
        f->automatic = s->automatic != 0;
        return;
    }
    }
}

void goabt_leaks_report(void)
{
    int mode = __atomic_exchange_n(&goabt_leak_check, 0, __ATOMIC_RELAXED);
    if (mode == 0) return;
    size_t n;
    struct goabt_leak_fact *all = goabt_leak_registry_take(GOABT_LEAKS_ABT, &n);
    for (size_t i = 0; i < n; i++) describe(&all[i]);
    int found = n > 0 && goabt_leak_registry_report(GOABT_LEAKS_ABT, all, n);
    free(all);
    if (found && mode == 2) goabt_leaks_exit_later(leak_exit_status);
}
