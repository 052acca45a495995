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
#include "mutex.h"
#include "object.h"
#include "pool.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"

/* The magic words: object.h. */

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
 * checks it does not look at goabt_forked (runtime.h): that load is measurable on
 * ABT_key_get and _set (docs/performance.md, "key handle check"), and no entry needs it, since every one that takes a key also checks
 * init (ABT_key_set/get and the *_specific calls need the caller's unit or check first) or,
 * ABT_key_free, GOABT_CHECK_NOT_FORKED. */
static inline goabt_key *goabt_key_of(ABT_key h)
{
    if ((uintptr_t)h < 4096) return NULL; /* NULL and ABT_KEY_NULL */
    return __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == GOABT_MAGIC_KEY ? h : NULL;
}

/* A mutex (static memory included), or NULL (the mutex itself: mutex.h). */
static inline goabt_mutex *goabt_mutex_of(ABT_mutex h)
{
    return goabt_object_of(h, GOABT_MAGIC_MUTEX, 1);
}

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
