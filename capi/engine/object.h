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

/* The header every object starts with. */
typedef struct goabt_object {
    uint32_t flags;
    uint32_t magic; /* atomic */
} goabt_object;

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
