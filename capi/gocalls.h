/* gocalls.h: the Go functions the C engine calls (capi/runtime.go, over core/). Each wrapper
 * goes through the gate, so it is safe from any stack (docs/design.md rule 3). */
#ifndef GOABT_GOCALLS_H
#define GOABT_GOCALLS_H

#include <stddef.h>
#include <stdint.h>
#include "engine.h"
#include "info_facts.h"

/* The Go core's exports (capi/runtime.go, key.go, opal.go, error.go, gopool.go), reached through this
 * table once golib.c has loaded libgoabt-go.so. C memory crosses as uintptr_t, never as a
 * pointer type: Go then never stores a pointer into C memory (core.Addr, docs/design.md rule 11). */
struct goabt_go_entries {
    int (*runtime_init)(size_t unit_size, size_t *stacksize, int *max_xstreams, int *affinity,
                        long long *safety_ns, int *go_pool, int *go_sched, int *stack_check,
                        int *tool);
    void (*runtime_finalize)(void);
    int (*affinity_sets)(const int *allowed, int n, uint64_t *out, int max);
    uintptr_t (*unit_get)(void);
    int (*units_get)(uintptr_t *out, int n);
    void (*unit_put)(uintptr_t unit);
    int (*rank_take)(int rank);
    void (*rank_release)(int rank);
    int (*rank_move)(int from, int to);
    int (*stack_get)(size_t size, uintptr_t *base, size_t *mapped);
    void (*stack_put)(uintptr_t base, size_t mapped);
    uintptr_t (*key_create)(uintptr_t destructor);
    int (*key_free)(uintptr_t key);
    uintptr_t (*keytable_get)(void);
    void (*keytable_put)(uintptr_t table);
    uintptr_t (*keychunk_get)(unsigned int k);
    void (*keychunk_put)(unsigned int k, uintptr_t chunk);
    int (*objects_get)(size_t size, uintptr_t *out, int n);
    int (*error_get_str)(int err, char *str, size_t *len);
    void (*opal_bind)(void *uses_threads, void *epoch);
    void (*opal_class_initialize)(void *cls);
    void (*opal_class_finalize)(void);
    _Bool (*opal_set_using_threads)(_Bool have);
    /* Go pools and policies (pool_go.c calls them through the gate itself). */
    int (*pool_new)(const char *name);
    void (*pool_push)(int id, uintptr_t unit, int rank);
    uintptr_t (*pool_pop)(int id, int rank);
    int (*pool_remove)(int id, uintptr_t unit);
    int (*pool_caps)(int id);
    int (*pool_units)(int id, uintptr_t *out, int n);
    long (*pool_free)(int id);
    int (*sched_new)(const char *name, int num_pools);
    int (*sched_pick)(int id, int64_t *sizes, int n, int rank);
    void (*sched_free)(int id);
    /* The configuration's Go pool and policy names and flags (capi/info.go; info.c). */
    int (*config_info)(char *pool, size_t pool_len, char *sched, size_t sched_len);
    /* GOABT_CHECK_LEAKS read now (0 off, 1 report, 2 fatal), and the exit status of a fatal
     * report (capi/runtime.go; leaks.c). */
    int (*leak_check)(void);
    int (*leak_exit_status)(void);
    /* The ABT_info_print_* texts from the facts of info_facts.h, malloc'd (capi/info.go;
     * info.c, info_print.c: goabt_info_write). */
    char *(*info_config)(const struct goabt_info_config *config);
    char *(*info_streams)(const struct goabt_info_stream *streams, int n, int total);
    char *(*info_sched)(const struct goabt_info_sched *sched);
    char *(*info_pool)(const struct goabt_info_pool *pool);
    char *(*info_unit)(const struct goabt_info_unit *unit, int stack);
    char *(*info_attr)(const struct goabt_info_attr *attr);
    char *(*info_pool_stacks)(const struct goabt_info_pool_units *pool_units);
    char *(*info_dump)(const struct goabt_info_dump *dump);
    /* The timeline trace (capi/trace.go; trace.c): begin says whether GOABT_TRACE asks for
     * one (and starts it), add copies n records, write makes the file at the last finalize. */
    int (*trace_begin)(void);
    void (*trace_add)(uintptr_t recs, int n);
    void (*trace_write)(void);
};
extern struct goabt_go_entries goabt_go GOABT_HIDDEN;

/* Loads the Go core on first use (call it on the system stack: inside a gated function);
 * 0 if it cannot be used: not found, or this process was forked after it started (golib.c),
 * which it then says once on stderr. */
int goabt_go_available(void) GOABT_HIDDEN;
/* Why goabt_go_available said no: ABT_ERR_MEM when the address-space limit leaves the Go
 * runtime no room to start (said on stderr; a later call tries again), else ABT_ERR_OTHER. */
int goabt_go_unavailable_error(void) GOABT_HIDDEN;
/* Whether this process was forked after the Go core started (then says so once on stderr). */
int goabt_go_forked(void) GOABT_HIDDEN;

struct goabt_stack_call {
    size_t size;
    uintptr_t base;
    size_t mapped;
    int rc;
};

static void goabt_stack_get_gated(void *p)
{
    struct goabt_stack_call *c = p;
    if (goabt_go_available()) c->rc = goabt_go.stack_get(c->size, &c->base, &c->mapped);
}

static void goabt_stack_put_gated(void *p)
{
    struct goabt_stack_call *c = p;
    if (goabt_go_available()) goabt_go.stack_put(c->base, c->mapped);
}

/* A stack from the Go core (core.Stacks): a mapping of *mapped bytes at the returned base, its
 * lowest page a guard; NULL if none could be made. */
static inline void *goabt_stack_get(size_t size, size_t *mapped)
{
    struct goabt_stack_call c = {size, 0, 0, 1};
    goabt_gate(goabt_stack_get_gated, &c);
    *mapped = c.mapped;
    return c.rc == 0 ? (void *)c.base : NULL;
}

static void goabt_unit_get_gated(void *p)
{
    if (goabt_go_available()) *(uintptr_t *)p = goabt_go.unit_get();
}

static void goabt_unit_put_gated(void *p)
{
    if (goabt_go_available()) goabt_go.unit_put((uintptr_t)p);
}

/* A zeroed unit descriptor from the Go core (core.Runtime.Units), or NULL. */
static inline void *goabt_unit_get(void)
{
    uintptr_t u = 0;
    goabt_gate(goabt_unit_get_gated, &u);
    return (void *)u;
}

struct goabt_units_call {
    uintptr_t *out;
    int n;
};

static void goabt_units_get_gated(void *p)
{
    struct goabt_units_call *c = p;
    c->n = goabt_go_available() ? goabt_go.units_get(c->out, c->n) : 0;
}

/* Up to n zeroed unit descriptors from the Go core, contiguous in memory, in out; how many. */
static inline int goabt_units_get(uintptr_t *out, int n)
{
    struct goabt_units_call c = {out, n};
    goabt_gate(goabt_units_get_gated, &c);
    return c.n;
}

static inline void goabt_unit_put(void *u) { goabt_gate(goabt_unit_put_gated, u); }

static inline void goabt_stack_put(void *base, size_t mapped)
{
    struct goabt_stack_call c = {0, (uintptr_t)base, mapped, 0};
    goabt_gate(goabt_stack_put_gated, &c);
}

struct goabt_rank_call {
    int a, b, result;
};

static void goabt_rank_take_gated(void *p)
{
    struct goabt_rank_call *c = p;
    c->result = goabt_go_available() ? goabt_go.rank_take(c->a) : -1;
}

static void goabt_rank_release_gated(void *p)
{
    struct goabt_rank_call *c = p;
    if (goabt_go_available()) goabt_go.rank_release(c->a);
}

static void goabt_rank_move_gated(void *p)
{
    struct goabt_rank_call *c = p;
    c->result = goabt_go_available() ? goabt_go.rank_move(c->a, c->b) : 0;
}

/* Takes rank (or the lowest free one if rank < 0); -1 if it is taken. */
static inline int goabt_rank_take(int rank)
{
    struct goabt_rank_call c = {rank, 0, -1};
    goabt_gate(goabt_rank_take_gated, &c);
    return c.result;
}

static inline void goabt_rank_release(int rank)
{
    struct goabt_rank_call c = {rank, 0, 0};
    goabt_gate(goabt_rank_release_gated, &c);
}

/* Moves a stream from rank `from` to `to`; 0 if `to` is taken. */
static inline int goabt_rank_move(int from, int to)
{
    struct goabt_rank_call c = {from, to, 0};
    goabt_gate(goabt_rank_move_gated, &c);
    return c.result;
}

/* Keys (capi/key.go, over core.Keys and core.KeyTables). */
struct goabt_key_call {
    uintptr_t p;
    unsigned int k;
    int rc;
};

static void goabt_key_create_gated(void *a)
{
    struct goabt_key_call *c = a;
    c->p = goabt_go_available() ? goabt_go.key_create(c->p) : 0;
}

static void goabt_key_free_gated(void *a)
{
    struct goabt_key_call *c = a;
    c->rc = goabt_go_available() ? goabt_go.key_free(c->p) : 1;
}

static void goabt_keytable_get_gated(void *a)
{
    if (goabt_go_available()) *(uintptr_t *)a = goabt_go.keytable_get();
}

static void goabt_keytable_put_gated(void *a)
{
    if (goabt_go_available()) goabt_go.keytable_put((uintptr_t)a);
}

static void goabt_keychunk_get_gated(void *a)
{
    struct goabt_key_call *c = a;
    c->p = goabt_go_available() ? goabt_go.keychunk_get(c->k) : 0;
}

static void goabt_keychunk_put_gated(void *a)
{
    struct goabt_key_call *c = a;
    if (goabt_go_available()) goabt_go.keychunk_put(c->k, c->p);
}

/* A new key's record, or NULL (core.Keys.Create). */
static inline void *goabt_key_create(void (*destructor)(void *))
{
    struct goabt_key_call c = {(uintptr_t)destructor, 0, 0};
    goabt_gate(goabt_key_create_gated, &c);
    return (void *)c.p;
}

/* 0 if key was a live key and is now freed (core.Keys.Free). */
static inline int goabt_key_free(void *key)
{
    struct goabt_key_call c = {(uintptr_t)key, 0, 0};
    goabt_gate(goabt_key_free_gated, &c);
    return c.rc;
}

/* An empty key table, or NULL (core.KeyTables.GetTable). */
static inline void *goabt_keytable_get(void)
{
    uintptr_t t = 0;
    goabt_gate(goabt_keytable_get_gated, &t);
    return (void *)t;
}

static inline void goabt_keytable_put(void *t) { goabt_gate(goabt_keytable_put_gated, t); }

/* An empty chunk k, or NULL (core.KeyTables.GetChunk). */
static inline void *goabt_keychunk_get(unsigned int k)
{
    struct goabt_key_call c = {0, k, 0};
    goabt_gate(goabt_keychunk_get_gated, &c);
    return (void *)c.p;
}

static inline void goabt_keychunk_put(unsigned int k, void *chunk)
{
    struct goabt_key_call c = {(uintptr_t)chunk, k, 0};
    goabt_gate(goabt_keychunk_put_gated, &c);
}

/* Synchronization objects' memory (capi/runtime.go, over core.ObjectMemory). */
struct goabt_objects_call {
    size_t size;
    uintptr_t *out;
    int n;
};

static void goabt_objects_get_gated(void *a)
{
    struct goabt_objects_call *c = a;
    c->n = goabt_go_available() ? goabt_go.objects_get(c->size, c->out, c->n) : 0;
}

/* Up to n zeroed blocks of at least size bytes in out (core.ObjectMemory); how many. */
static inline int goabt_objects_get(size_t size, uintptr_t *out, int n)
{
    struct goabt_objects_call c = {size, out, n};
    goabt_gate(goabt_objects_get_gated, &c);
    return c.n;
}

#endif
