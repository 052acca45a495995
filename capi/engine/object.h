/* object.h: what every synchronization object has in common: its memory, its header, and how
 * a handle becomes one.
 *
 * Memory. Objects come from the Go core (core.ObjectMemory, size classes of 64 to 4096 bytes,
 * never unmapped) through a C cache (object.c): a freed object's memory stays readable, so a
 * freed handle is refused by its magic, never read from unmapped or recycled-by-malloc memory.
 * Every other kind of handle but work units (which have their own descriptors) lives in the
 * same memory, through goabt_mem_new (below): streams, pools, schedulers, ULT attributes,
 * pool and scheduler configurations, pool definitions. A handle to a freed object that was
 * reused since names the new object, as in Argobots.
 * Header: every object starts with `uint32_t flags; uint32_t magic;` (the magics, and how
 * static memory is claimed: handles.h).
 */
#ifndef GOABT_OBJECT_H
#define GOABT_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"
#include "runtime.h"

/* The header every object starts with. */
typedef struct goabt_object {
    uint32_t flags;
    uint32_t magic; /* atomic */
} goabt_object;

/* Magic words: a handle is accepted only if its object carries its kind's magic. Every object
 * keeps it in its second 32-bit word, never 0 while the memory is ours (freed objects carry
 * GOABT_MAGIC_FREED), so a freed handle is refused as long as its memory was not reused, and no
 * object of ours looks like unused static memory (below). */
enum {
    GOABT_MAGIC_FREED = 0x46524545,  /* "FREE" */
    GOABT_MAGIC_UNIT = 0x554e4954,   /* "UNIT": the first init's; see goabt_rt.unit_magic */
    GOABT_MAGIC_STREAM = 0x5354524d, /* "STRM" */
    GOABT_MAGIC_POOL = 0x504f4f4c,   /* "POOL" */
    GOABT_MAGIC_SCHED = 0x53434844,  /* "SCHD" */
    GOABT_MAGIC_ATTR = 0x41545452,   /* "ATTR" */
    /* A stream's scheduler as a ULT (goabt_stream_sched_self): queries only. */
    GOABT_MAGIC_SCHED_SELF = 0x53554c54, /* "SULT" */
    /* Synchronization objects and the other handles in object.h's memory. */
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
    GOABT_MAGIC_SCHED_CONFIG = 0x53434647,    /* "SCFG" */
    GOABT_MAGIC_POOL_USER_DEF = 0x50444546,   /* "PDEF" */
};
/* Keys: GOABT_MAGIC_KEY ("KEY "), core's, in keys.h. */

/* The magic of a kind whose objects belong to one runtime (pools, schedulers): the kind's top
 * half and this init's generation (goabt_rt.unit_magic's low half). A pool or scheduler the
 * program did not free before ABT_finalize is refused after it, as units are, instead of
 * running on with units of a runtime that is gone. */
static inline uint32_t goabt_runtime_magic(uint32_t kind)
{
    return (kind & 0xffff0000u) | (__atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED) & 0xffffu);
}

/* Handle memory (object.c): zeroed memory for one object of size bytes (at most 4096; from 256
 * on, 128-aligned) whose second 32-bit word is its magic, or NULL; the creator sets the magic.
 * goabt_mem_delete marks it GOABT_MAGIC_FREED and keeps it for the next object of its size
 * class: it never goes back to malloc, so a stale handle reads FREED, never memory the
 * allocator owns (a store before free() is also one the compiler may drop). */
void *goabt_mem_new(size_t size) GOABT_HIDDEN;
void goabt_mem_delete(void *obj, size_t size) GOABT_HIDDEN;

/* Zeroed memory for a synchronization object of size bytes (at most 256), or NULL; with its
 * magic set, noted for GOABT_CHECK_LEAKS. */
void *goabt_object_new(size_t size, uint32_t magic) GOABT_HIDDEN;
/* Marks the object freed and keeps its memory for the next object of its size class. */
void goabt_object_delete(void *obj, size_t size) GOABT_HIDDEN;

#endif /* GOABT_OBJECT_H */
