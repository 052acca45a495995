/*
 * handles.h: how a handle becomes an object, for every kind: the magic words and the
 * resolvers, the one place handles become objects. Internal.
 *
 * A resolver returns the object behind a handle, or NULL if the handle is NULL, a NULL handle
 * (every ABT_*_NULL is a small constant, below 4096), an object of another kind, a freed one,
 * or any handle in a forked child (runtime.h, goabt_forked). The entry points call them through
 * the GOABT_RESOLVE_* and GOABT_HANDLE macros of capi/api/args.h, which return the kind's error.
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
#ifndef GOABT_HANDLES_H
#define GOABT_HANDLES_H

#include "common.h"
#include "configs.h"
#include "keys.h"
#include "object.h"
#include "pool.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"

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

static inline goabt_unit *goabt_unit_of(ABT_thread h)
{
    if ((uintptr_t)h < 4096) return NULL; /* NULL, and every ABT_*_NULL (small constants) */
    return h->magic == __atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED) ? h : NULL;
}

/* The same for the calls that read a ULT (id, state, unit, ...) or its keys: a stream's
 * scheduler as a ULT is accepted too. Anything that acts on a ULT (runs, joins, moves, frees it)
 * takes goabt_unit_of, which refuses it. */
static inline goabt_unit *goabt_unit_or_sched_of(ABT_thread h)
{
    if ((uintptr_t)h < 4096) return NULL;
    uint32_t m = h->magic;
    if (m == __atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED)) return h;
    return m == GOABT_MAGIC_SCHED_SELF && !goabt_forked() ? h : NULL;
}

static inline goabt_stream *goabt_stream_of(ABT_xstream h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_STREAM && !goabt_forked() ? h : NULL;
}

/* The magic of a kind whose objects belong to one runtime (pools, schedulers): the kind's top
 * half and this init's generation (goabt_rt.unit_magic's low half). A pool or scheduler the
 * program did not free before ABT_finalize is refused after it, as units are, instead of
 * running on with units of a runtime that is gone. */
static inline uint32_t goabt_runtime_magic(uint32_t kind)
{
    return (kind & 0xffff0000u) | (__atomic_load_n(&goabt_rt.unit_magic, __ATOMIC_RELAXED) & 0xffffu);
}

static inline goabt_pool *goabt_pool_of(ABT_pool h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == goabt_runtime_magic(GOABT_MAGIC_POOL) ? h : NULL;
}

static inline goabt_sched *goabt_sched_of(ABT_sched h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == goabt_runtime_magic(GOABT_MAGIC_SCHED) ? h : NULL;
}

static inline goabt_attr *goabt_attr_of(ABT_thread_attr h)
{
    if ((uintptr_t)h < 4096) return NULL;
    return h->magic == GOABT_MAGIC_ATTR && !goabt_forked() ? h : NULL;
}

/* The magic static memory of a kind gets once a kind claims it. */
#define GOABT_STATIC_MAGIC(magic) ((uint32_t)(magic) | 0x20202020u)

/* The object behind handle h if it carries magic or, with statics, if it is static memory of
 * that kind (claimed now if it was never used); else NULL. NULL handles (every ABT_*_NULL is
 * below 4096) are refused, and so is every handle in a forked child (runtime.h, goabt_forked):
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

/* The key behind a handle, or NULL for ABT_KEY_NULL, a freed key or anything else. A freed
 * key's handle is refused until a newer key reuses its id and record. Unlike the other handle
 * checks it does not look at goabt_forked (runtime.h): that load cost ABT_key_get and _set 6%
 * (2.65 -> 2.81 ns), and no entry needs it, since every one that takes a key also checks
 * init (ABT_key_set/get and the *_specific calls need the caller's unit or check first) or,
 * ABT_key_free, GOABT_CHECK_NOT_FORKED. */
static inline goabt_key *goabt_key_of(ABT_key h)
{
    if ((uintptr_t)h < 4096) return NULL; /* NULL and ABT_KEY_NULL */
    return __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == GOABT_MAGIC_KEY ? h : NULL;
}

/* A mutex (static memory included), or NULL (engine/mutex.c). */
typedef struct ABT_mutex_opaque goabt_mutex;
goabt_mutex *goabt_mutex_of(ABT_mutex h) GOABT_HIDDEN;

/* The work unit behind a pool unit handle: a user pool's unit, or a built-in pool's (the
 * work unit itself); NULL if it is neither. */
goabt_unit *goabt_unit_of_pool_unit(ABT_unit unit) GOABT_HIDDEN;

/* A pool definition made by ABT_pool_user_def_create (pool.h). */
static inline goabt_pool_user_def *goabt_pool_user_def_of(ABT_pool_user_def h)
{
    goabt_pool_user_def *d = (goabt_pool_user_def *)h;
    if ((uintptr_t)h < 4096 || d->tag != GOABT_USER_DEF_TAG) return NULL;
    return d->magic == GOABT_MAGIC_POOL_USER_DEF && !goabt_forked() ? d : NULL;
}

/* A pool or scheduler configuration (configs.h, api/config.c). */
static inline struct ABT_pool_config_opaque *goabt_pool_config_of(ABT_pool_config h)
{
    return goabt_object_of(h, GOABT_MAGIC_POOL_CONFIG, 0);
}
static inline struct ABT_sched_config_opaque *goabt_sched_config_of(ABT_sched_config h)
{
    return goabt_object_of(h, GOABT_MAGIC_SCHED_CONFIG, 0);
}

#endif /* GOABT_HANDLES_H */
