//go:build goabt_c_engine
/* object.c: the memory behind every handle the program holds that is not a work unit
 * (object.h): per size class, a cache of free blocks under a spinlock, refilled from the Go
 * core (core.ObjectMemory) in batches, so that a create and a free cost a few instructions, not
 * a Go call each. Freed blocks never go back to malloc: a stale handle reads FREED there. */
#include <string.h>
#include "gocalls.h"
#include "object.h"
#include "leaks.h"
#include "object.h"
#include "pool.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"

#define OBJECT_CLASSES 7
#define OBJECT_BATCH 32

/* core.ObjectSizes. Classes from 256 up are multiples of 128 and so 128-aligned, as pools and
 * streams must be. */
static const size_t class_size[OBJECT_CLASSES] = {64, 128, 256, 512, 1024, 2048, 4096};

/* A free block: its header keeps GOABT_MAGIC_FREED (a stale handle still reads it), the link
 * comes after it. */
struct free_block {
    goabt_object header;
    struct free_block *next;
};

static struct {
    int lock;
    struct free_block *free;
} classes[OBJECT_CLASSES];

static int class_of(size_t size)
{
    for (int c = 0; c < OBJECT_CLASSES; c++) {
        if (size <= class_size[c]) return c;
    }
    return -1;
}

void *goabt_mem_new(size_t size)
{
    int c = class_of(size);
    if (c < 0) return NULL;
    goabt_spin_lock(&classes[c].lock);
    struct free_block *b = classes[c].free;
    if (b != NULL) classes[c].free = b->next;
    /* A free block keeps FREED until it is handed out: another magic is a write after free. */
    GOABT_ASSERT_MSG(b == NULL || __atomic_load_n(&b->header.magic, __ATOMIC_RELAXED) ==
                                      GOABT_MAGIC_FREED,
                     "a free %zu-byte block was written to (magic %#x)", class_size[c],
                     b->header.magic);
    goabt_spin_unlock(&classes[c].lock);
    if (b == NULL) { /* the slow path: a batch from the Go core (a few of the large ones) */
        uintptr_t fresh[OBJECT_BATCH];
        int want = class_size[c] <= 256 ? OBJECT_BATCH : 4;
        int n = goabt_objects_get(class_size[c], fresh, want);
        if (n == 0) return NULL;
        b = (struct free_block *)fresh[0];
        goabt_spin_lock(&classes[c].lock);
        for (int i = 1; i < n; i++) {
            struct free_block *extra = (struct free_block *)fresh[i];
            extra->header.magic = GOABT_MAGIC_FREED;
            extra->next = classes[c].free;
            classes[c].free = extra;
        }
        goabt_spin_unlock(&classes[c].lock);
    }
    memset((char *)b + sizeof b->header, 0, class_size[c] - sizeof b->header);
    b->header.flags = 0;
    return b; /* its magic stays FREED until its creator sets its kind's */
}

void *goabt_object_new(size_t size, uint32_t magic)
{
    goabt_object *o = goabt_mem_new(size);
    if (o == NULL) return NULL;
    __atomic_store_n(&o->magic, magic, __ATOMIC_RELEASE);
    GOABT_LEAK_NOTE(GOABT_LEAK_OBJECT, o); /* its kind is its magic */
    return o;
}

void goabt_object_delete(void *obj, size_t size)
{
    GOABT_LEAK_FORGET(obj);
    goabt_mem_delete(obj, size);
}

void goabt_mem_delete(void *obj, size_t size)
{
    int c = class_of(size);
    struct free_block *b = obj;
    GOABT_ASSERT(c >= 0 && ((uintptr_t)obj & 63) == 0);
    __atomic_store_n(&b->header.magic, GOABT_MAGIC_FREED, __ATOMIC_RELEASE);
    goabt_spin_lock(&classes[c].lock);
    b->next = classes[c].free;
    classes[c].free = b;
    goabt_spin_unlock(&classes[c].lock);
}

/* Every kind that lives in handle memory fits its largest class. */
_Static_assert(sizeof(goabt_pool) <= 4096 && sizeof(goabt_sched) <= 4096, "pools and schedulers");
_Static_assert(sizeof(goabt_stream) <= 4096 && sizeof(goabt_attr) <= 4096, "streams and attributes");
