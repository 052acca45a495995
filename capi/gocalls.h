/* gocalls.h: the Go functions the C engine calls (capi/runtime.go, over core/). Each wrapper
 * goes through the gate, so it is safe from any stack (engine.md rule 3). */
#ifndef GOABT_GOCALLS_H
#define GOABT_GOCALLS_H

#include <stddef.h>
#include <stdint.h>
#include "engine.h"

/* Go exports (capi/runtime.go, capi/key.go). C memory crosses as uintptr_t, never as a
 * pointer type: Go then never stores a pointer into C memory (core.Addr, engine.md rule 11). */
extern int goabt_go_runtime_init(size_t unit_size, size_t *stacksize, int *max_xstreams,
                                 int *affinity, long long *safety_ns);
extern uintptr_t goabt_go_unit_get(void);
extern int goabt_go_units_get(uintptr_t *out, int n);
extern void goabt_go_unit_put(uintptr_t unit);
extern void goabt_go_runtime_finalize(void);
extern int goabt_go_rank_take(int rank);
extern void goabt_go_rank_release(int rank);
extern int goabt_go_rank_move(int from, int to);
extern int goabt_go_stack_get(size_t size, uintptr_t *base, size_t *mapped);
extern void goabt_go_stack_put(uintptr_t base, size_t mapped);
extern uintptr_t goabt_go_key_create(uintptr_t destructor);
extern int goabt_go_key_free(uintptr_t key);
extern uintptr_t goabt_go_keytable_get(void);
extern void goabt_go_keytable_put(uintptr_t table);
extern uintptr_t goabt_go_keychunk_get(unsigned int k);
extern void goabt_go_keychunk_put(unsigned int k, uintptr_t chunk);
extern int goabt_go_objects_get(size_t size, uintptr_t *out, int n);

struct goabt_stack_call {
    size_t size;
    uintptr_t base;
    size_t mapped;
    int rc;
};

static void goabt_stack_get_gated(void *p)
{
    struct goabt_stack_call *c = p;
    c->rc = goabt_go_stack_get(c->size, &c->base, &c->mapped);
}

static void goabt_stack_put_gated(void *p)
{
    struct goabt_stack_call *c = p;
    goabt_go_stack_put(c->base, c->mapped);
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

static void goabt_unit_get_gated(void *p) { *(uintptr_t *)p = goabt_go_unit_get(); }
static void goabt_unit_put_gated(void *p) { goabt_go_unit_put((uintptr_t)p); }

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
    c->n = goabt_go_units_get(c->out, c->n);
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
    c->result = goabt_go_rank_take(c->a);
}

static void goabt_rank_release_gated(void *p)
{
    struct goabt_rank_call *c = p;
    goabt_go_rank_release(c->a);
}

static void goabt_rank_move_gated(void *p)
{
    struct goabt_rank_call *c = p;
    c->result = goabt_go_rank_move(c->a, c->b);
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
    c->p = goabt_go_key_create(c->p);
}

static void goabt_key_free_gated(void *a)
{
    struct goabt_key_call *c = a;
    c->rc = goabt_go_key_free(c->p);
}

static void goabt_keytable_get_gated(void *a) { *(uintptr_t *)a = goabt_go_keytable_get(); }
static void goabt_keytable_put_gated(void *a) { goabt_go_keytable_put((uintptr_t)a); }

static void goabt_keychunk_get_gated(void *a)
{
    struct goabt_key_call *c = a;
    c->p = goabt_go_keychunk_get(c->k);
}

static void goabt_keychunk_put_gated(void *a)
{
    struct goabt_key_call *c = a;
    goabt_go_keychunk_put(c->k, c->p);
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
    c->n = goabt_go_objects_get(c->size, c->out, c->n);
}

/* Up to n zeroed blocks of at least size bytes in out (core.ObjectMemory); how many. */
static inline int goabt_objects_get(size_t size, uintptr_t *out, int n)
{
    struct goabt_objects_call c = {size, out, n};
    goabt_gate(goabt_objects_get_gated, &c);
    return c.n;
}

#endif
