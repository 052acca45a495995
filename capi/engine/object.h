/* object.h: what every synchronization object has in common: its memory, its header, and how
 * a handle becomes one.
 *
 * Memory. Objects come from the Go core (core.ObjectMemory, size classes of 64 to 4096 bytes,
 * never unmapped) through a C cache (object.c): a freed object's memory stays readable, so a
 * freed handle is refused by its magic, never read from unmapped or recycled-by-malloc memory.
 * Every other kind of handle but work units (which have their own descriptors) lives in the
 * same memory, through goabt_mem_new (engine.h): streams, pools, schedulers, ULT attributes,
 * pool and scheduler configurations, pool definitions. A handle to a freed object that was
 * reused since names the new object, as in Argobots.
 *
 * Header. Every object starts with `uint32_t flags; uint32_t magic;`. Objects that also exist in
 * static memory (ABT_mutex_memory, ABT_cond_memory, ABT_eventual_memory: 64 bytes, all zero but
 * for the first int, which ABT_RECURSIVE_MUTEX_INITIALIZER sets to 1) must work from all-zero
 * memory. Such memory is claimed by the first kind that uses it: its magic goes from 0 to the
 * kind's static magic (GOABT_STATIC_MAGIC: the kind's magic in lower case) with one CAS, so a
 * static mutex later passed as a condition variable is refused like any other wrong-kind handle
 * instead of being read as one. Static objects are never freed. A freed object's magic is
 * GOABT_MAGIC_FREED, which no kind accepts.
 */
#ifndef GOABT_OBJECT_H
#define GOABT_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include "engine.h"

enum {
    GOABT_MAGIC_MUTEX = 0x4d555458,           /* "MUTX" */
    GOABT_MAGIC_MUTEX_ATTR = 0x4d415452,      /* "MATR" */
    GOABT_MAGIC_COND = 0x434f4e44,            /* "COND" */
    GOABT_MAGIC_RWLOCK = 0x52574c4b,          /* "RWLK" */
    GOABT_MAGIC_BARRIER = 0x42415252,         /* "BARR" */
    GOABT_MAGIC_XSTREAM_BARRIER = 0x58424152, /* "XBAR" */
    GOABT_MAGIC_EVENTUAL = 0x4556544c,        /* "EVTL" */
    GOABT_MAGIC_FUTURE = 0x46555452,          /* "FUTR" */
    GOABT_MAGIC_TIMER = 0x54494d52,           /* "TIMR" */
    GOABT_MAGIC_POOL_CONFIG = 0x50434647,     /* "PCFG" */
    GOABT_MAGIC_POOL_USER_DEF = 0x50444546,   /* "PDEF" */
};

/* The header every object starts with. */
typedef struct goabt_object {
    uint32_t flags;
    uint32_t magic; /* atomic */
} goabt_object;

/* Zeroed memory for a synchronization object of size bytes (at most 256), or NULL; with its
 * magic set, noted for GOABT_CHECK_LEAKS. */
void *goabt_object_new(size_t size, uint32_t magic) GOABT_HIDDEN;
/* Marks the object freed and keeps its memory for the next object of its size class. */
void goabt_object_delete(void *obj, size_t size) GOABT_HIDDEN;

/* The magic static memory of a kind gets once a kind claims it. */
#define GOABT_STATIC_MAGIC(magic) ((uint32_t)(magic) | 0x20202020u)

/* The object behind handle h if it carries magic or, with statics, if it is static memory of
 * that kind (claimed now if it was never used); else NULL. NULL handles (every ABT_*_NULL is
 * below 4096) are refused, and so is every handle in a forked child (engine.h, goabt_forked):
 * an object there may be held, or waited for, by a thread that is gone. */
static inline void *goabt_object_of(void *h, uint32_t magic, int statics)
{
    if ((uintptr_t)h < 4096) return NULL;
    uint32_t *word = &((goabt_object *)h)->magic;
    uint32_t m = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    if (m == magic) return goabt_forked() ? NULL : h;
    if (!statics || goabt_forked()) return NULL;
    uint32_t mine = GOABT_STATIC_MAGIC(magic);
    if (m == 0) __atomic_compare_exchange_n(word, &m, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return m == mine || m == 0 ? h : NULL;
}

#endif /* GOABT_OBJECT_H */
