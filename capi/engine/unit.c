//go:build goabt_c_engine
/* unit.c: unit descriptors: their caches, create, revive, end, free and ids. The rest of a
 * unit's life is in unit_stack.c, unit_switch.c, unit_block.c and unit_join.c (unit.h, top). */
#include "gocalls.h"
#include "object.h"
#include "keys.h"
#include "leaks.h"
#include "pool.h"
#include "pool_member.h"
#include "runtime.h"
#include "stream.h"
#include "tool.h"
#include "unit.h"
#include "unit_internal.h"
#include "wait.h"

/* ---- Descriptor caches ---------------------------------------------------------------------- */

/* Freed descriptors keep their stack (and key table) and wait in a cache for the next create: a
 * stream's own cache (no lock: only that stream's thread touches it), then a global one, then
 * the Go core (core.Runtime.Units for descriptors, core.Stacks for stacks). Streams and the global
 * cache trade descriptors in batches of CACHE_BATCH, one lock per batch: a stream that forks
 * thousands of units before joining them would otherwise take the global lock for every unit,
 * against the other streams doing the same. The global cache has no bound: descriptors a
 * program once had alive it gets again without calls into Go (docs/performance.md,
 * "descriptor caches"). The memory stays with the process until the outermost
 * ABT_finalize, as Argobots' memory pools keep theirs. Stacks have caches of their own
 * (unit_stack.c): a descriptor holds one only while its ULT can run. */
#define STREAM_CACHE_MAX 512
#define CACHE_BATCH 64

static pthread_mutex_t global_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static goabt_unit *global_batches; /* first units of batches, linked by batch_next */

/* For checks: a descriptor in a cache is freed (or fresh from the Go core: zeroed, magic 0),
 * in no pool, holding no user pool's unit, with no joiner to wake (an unnamed one has none, a
 * named one was freed after its end marked them done). */
static inline int unit_cached_ok(goabt_unit *u)
{
    return (u->magic == GOABT_MAGIC_FREED || u->magic == 0) && goabt_unit_out_of_queues(u) &&
           u->pool_unit_of == NULL && (u->joiners == NULL || u->joiners == GOABT_JOIN_DONE);
}

/* For checks: the free_next list from b holds len cached descriptors, no more. */
static inline int batch_ok(goabt_unit *b, int len)
{
    int n = 0;
    for (; b != NULL && n <= len; b = b->free_next, n++) {
        if (!unit_cached_ok(b)) return 0;
    }
    return n == len && b == NULL;
}

/* For checks: s's cache count agrees with its list's ends and bound (the whole list is walked
 * where it is moved: cache_to_global, goabt_units_warm). */
#define ASSERT_STREAM_CACHE(s)                                                                 \
    GOABT_ASSERT_MSG((s)->free_count >= 0 && (s)->free_count <= STREAM_CACHE_MAX &&            \
                         ((s)->free_units == NULL) == ((s)->free_count == 0),                  \
                     "stream %d: %d cached descriptors, list %p", (s)->rank, (s)->free_count,  \
                     (void *)(s)->free_units)

static void unit_destroy(goabt_unit *u)
{
    goabt_unit_unmap_stack(u);
    goabt_keys_release_spare(u);
    goabt_unit_put(u);
}

/* Destroys every descriptor of a free_next list. */
static void list_destroy(goabt_unit *list)
{
    while (list != NULL) {
        goabt_unit *u = list;
        list = u->free_next;
        unit_destroy(u);
    }
}

/* Gives the global cache a batch (a free_next list of len descriptors). */
static void global_put_batch(goabt_unit *batch, int len)
{
    GOABT_ASSERT_MSG(len > 0 && len <= CACHE_BATCH && batch_ok(batch, len),
                     "a batch of %d descriptors for the global cache", len);
    batch->batch_len = len;
    pthread_mutex_lock(&global_cache_lock);
    batch->batch_next = global_batches;
    global_batches = batch;
    pthread_mutex_unlock(&global_cache_lock);
}

/* Takes a batch from the global cache: its first descriptor (the rest follow by free_next), or
 * NULL. */
static goabt_unit *global_take_batch(void)
{
    pthread_mutex_lock(&global_cache_lock);
    goabt_unit *b = global_batches;
    if (b != NULL) {
        global_batches = b->batch_next;
    }
    pthread_mutex_unlock(&global_cache_lock);
    GOABT_ASSERT(b == NULL || batch_ok(b, b->batch_len));
    return b;
}

/* A batch of fresh descriptors from the Go core, contiguous: a stream's descriptors must not
 * share pages with another stream's. Interleaved, as one-at-a-time requests from two streams
 * warming up together leave them, the hardware prefetchers drag each stream's lines into the
 * other's cache (docs/performance.md, "descriptor runs"). */
static goabt_unit *go_take_batch(void)
{
    uintptr_t fresh[CACHE_BATCH]; /* integers: Go writes no pointer here (gocalls.h) */
    int n = goabt_units_get(fresh, CACHE_BATCH);
    if (n == 0) return NULL;
    for (int i = 0; i < n; i++) {
        goabt_unit *u = (goabt_unit *)fresh[i];
        u->free_next = i + 1 < n ? (goabt_unit *)fresh[i + 1] : NULL;
    }
    goabt_unit *first = (goabt_unit *)fresh[0];
    first->batch_len = n;
    GOABT_ASSERT_MSG(batch_ok(first, n), "fresh descriptors from the Go core are zeroed");
    return first;
}

static goabt_unit *unit_alloc(goabt_stream *s)
{
    goabt_unit *u;
    if (s != NULL && s->free_units != NULL) {
        u = s->free_units;
        s->free_units = u->free_next;
        s->free_count--;
        ASSERT_STREAM_CACHE(s);
        GOABT_ASSERT_MSG(unit_cached_ok(u), "a cached descriptor is free (magic %#x)", u->magic);
        return u;
    }
    u = global_take_batch();
    if (u == NULL && s != NULL) u = go_take_batch(); /* the slow path: core.Runtime.Units */
    if (u == NULL) return goabt_unit_get();
    if (s != NULL) { /* the rest of the batch becomes the stream's cache, which is empty */
        GOABT_ASSERT(s->free_units == NULL && s->free_count == 0);
        s->free_units = u->free_next;
        s->free_count = u->batch_len - 1;
        ASSERT_STREAM_CACHE(s);
    } else if (u->free_next != NULL) { /* an external thread keeps one */
        global_put_batch(u->free_next, u->batch_len - 1);
    }
    return u;
}

/* Takes up to CACHE_BATCH descriptors off the top of s's cache for the global one. */
static void cache_to_global(goabt_stream *s)
{
    GOABT_ASSERT_MSG(batch_ok(s->free_units, s->free_count),
                     "stream %d: its cache holds %d free descriptors", s->rank, s->free_count);
    goabt_unit *batch = s->free_units, *last = batch;
    int len = 1;
    while (len < CACHE_BATCH && last->free_next != NULL) last = last->free_next, len++;
    s->free_units = last->free_next;
    last->free_next = NULL;
    s->free_count -= len;
    global_put_batch(batch, len);
}

static void unit_release(goabt_stream *s, goabt_unit *u)
{
    /* Nothing runs on it, nobody holds it queued, and it is cached once. */
    GOABT_ASSERT_MSG(s == NULL || s->current != u, "the running unit is freed");
    GOABT_ASSERT(s == NULL || s->free_units != u);
    u->magic = GOABT_MAGIC_FREED;
    GOABT_ASSERT_MSG(unit_cached_ok(u), "a descriptor freed while queued, or holding a pool unit");
    if (u->flags & GOABT_UNIT_USER_STACK) { /* user_guard is read only then (line 3) */
        goabt_unit_vg_deregister_user_stack(u);
        goabt_user_stack_unguard(u);
    }
    if (s == NULL) {
        u->free_next = NULL;
        global_put_batch(u, 1);
        return;
    }
    u->free_next = s->free_units;
    s->free_units = u;
    /* Overflow: the newest CACHE_BATCH go to the global cache (just freed, their links are hot). */
    if (++s->free_count > STREAM_CACHE_MAX) cache_to_global(s);
    ASSERT_STREAM_CACHE(s);
}

void goabt_units_warm(goabt_stream *s)
{
    if (s->free_units == NULL) {
        goabt_unit *b = global_take_batch();
        if (b == NULL) b = go_take_batch();
        if (b != NULL) {
            s->free_units = b;
            s->free_count = b->batch_len;
        }
    }
    /* A stack of the default size, mapped now rather than under the first ULT's first run. */
    if (goabt_unit_stacks_cached(s) == 0) {
        goabt_unit probe;
        memset(&probe, 0, sizeof probe);
        char *top = goabt_unit_map_stack(s, &probe, goabt_rt.thread_stacksize);
        if (top != NULL) {
            /* Its top pages faulted in now too: a ULT starts there. */
            for (size_t off = 1; off <= 2 * 4096 && off <= probe.stacksize; off += 4096) {
                __atomic_store_n(top - off, 0, __ATOMIC_RELAXED);
            }
            goabt_unit_give_stack(s, &probe);
        }
    }
    GOABT_ASSERT(batch_ok(s->free_units, s->free_count));
}

void goabt_units_cache_drain(void)
{
    goabt_unit *b;
    while ((b = global_take_batch()) != NULL) list_destroy(b);
    goabt_unit_stacks_drain();
}

void goabt_units_cache_release(goabt_stream *s)
{
    /* The stream's caches go to the global ones, in batches. */
    while (s->free_units != NULL) cache_to_global(s);
    GOABT_ASSERT(s->free_count == 0);
    goabt_unit_stacks_release(s);
}

int goabt_unit_create(goabt_pool *pool, int kind, void (*func)(void *), void *arg,
                      goabt_attr *attr, int named, goabt_unit **out)
{
    int held = named & GOABT_CREATE_HELD;
    named &= ~GOABT_CREATE_HELD;
    goabt_stream *s = goabt_self_stream();
    goabt_unit *u = unit_alloc(s);
    if (u == NULL) return ABT_ERR_MEM;
    u->kind = (uint16_t)kind;
    u->flags = (named ? GOABT_UNIT_NAMED : 0) |
               ((attr == NULL || attr->migratable) ? GOABT_UNIT_MIGRATABLE : 0);
    if (attr != NULL && attr->callback != NULL) { /* its fields are read only with the flag */
        u->migrate_cb = attr->callback;
        u->migrate_cb_arg = attr->callback_arg;
        u->flags |= GOABT_UNIT_MIGRATE_CB;
    }
    u->state = ABT_THREAD_STATE_READY;
    u->request = 0;
    u->waiting = NULL;
    u->func = func;
    u->arg = arg;
    u->id = 0;
    goabt_pool_member_init(u, pool);
    u->last_stream = NULL;
    u->joiners = NULL;
    u->keys = NULL;
    /* pool_unit, pool_unit_of and user_queued are clear: fresh descriptors are zeroed, and a
     * unit gives its pool unit back when it is freed (goabt_unit_drop_pool_unit). So only a
     * kind that needs something of its units is asked. */
    if (pool->ops->associate != NULL && goabt_pool_member_set(pool, u) != ABT_SUCCESS) {
        unit_release(s, u);
        return ABT_ERR_MEM; /* the user pool's create_unit made no unit */
    }
    if (kind == GOABT_ULT) {
        void *top;
        if (attr != NULL && attr->stack != NULL) {
            u->flags |= GOABT_UNIT_USER_STACK;
            u->stack = attr->stack;
            u->stacksize = attr->stacksize;
            top = (char *)attr->stack + attr->stacksize;
            goabt_unit_vg_register_user_stack(u);
            goabt_user_stack_guard(u);
        } else {
            /* Its stack, and the context on it, are made when it first runs (goabt_unit_context,
             * goabt_unit_take_stack): a million waiting ULTs cost no stack memory. */
            top = NULL;
            u->stack = NULL;
            u->stacksize = attr != NULL ? attr->stacksize : goabt_rt.thread_stacksize;
            /* A large stack is mapped now, where running out of memory (or asking for more
             * than any address space holds) can be refused, as Argobots does. */
            if (u->stacksize >= GOABT_EAGER_STACK) {
                top = goabt_unit_map_stack(s, u, u->stacksize);
                if (top == NULL) {
                    goabt_unit_drop_pool_unit(u);
                    unit_release(s, u);
                    return ABT_ERR_MEM;
                }
            }
        }
        u->ctx = NULL;
        u->top = top;
    } else {
        u->stack = NULL;
        u->stacksize = 0;
    }
    u->magic = goabt_rt.unit_magic;
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_CREATE, pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    GOABT_LEAK_NOTE(GOABT_LEAK_UNIT, u); /* named ones: the program frees them */
    /* Publish the handle before the push: an unnamed unit may run and vanish right after. */
    if (out != NULL) *out = u;
    /* held: the caller starts it (goabt_unit_start_to) */
    if (!held) goabt_pool_push_op(pool, u, ABT_POOL_CONTEXT_OP_THREAD_CREATE);
    return ABT_SUCCESS;
}

int goabt_unit_revive(goabt_unit *u, goabt_pool *p, void (*func)(void *), void *arg, int to)
{
    /* Only an ended unit is revived (thread.c checks TERMINATED): its joiners were woken, its
     * stack went to other ULTs, it is in no queue. */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_TERMINATED &&
                         __atomic_load_n(&u->joiners, __ATOMIC_ACQUIRE) == GOABT_JOIN_DONE,
                     "revived unit in state %d", u->state);
    GOABT_ASSERT(u->mapping == NULL && goabt_unit_out_of_queues(u) && goabt_unit_not_running(u));
    if (u->kind == GOABT_ULT && !(u->flags & GOABT_UNIT_USER_STACK)) {
        /* Its stack went to other ULTs when it ended: it gets one of the same size. */
        void *top = goabt_unit_map_stack(goabt_self_stream(), u, u->stacksize);
        if (top == NULL) return ABT_ERR_MEM;
        u->top = top;
    }
    int rc = goabt_pool_member_set(p, u); /* its pool unit went back when it ended */
    if (rc != ABT_SUCCESS) return rc;
    goabt_pool_member_init(u, p);
    u->func = func;
    u->arg = arg;
    u->joiners = NULL;
    u->request = 0;
    u->flags &= ~GOABT_UNIT_NO_STACK; /* it has a stack now */
    u->waiting = NULL;
    u->suspend = 0;
    /* Its context is made afresh from the stack's top when it first runs again. Keys stay:
     * they belong to the handle. */
    if (u->kind == GOABT_ULT) u->ctx = NULL;
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_REVIVE, p, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    if (to) {
        goabt_unit_start_to(u, ABT_POOL_CONTEXT_OP_THREAD_REVIVE_TO);
    } else {
        goabt_pool_push_op(p, u, ABT_POOL_CONTEXT_OP_THREAD_REVIVE);
    }
    return ABT_SUCCESS;
}

void goabt_unit_free(goabt_unit *u)
{
    /* Freed once joined (ABT_thread_free joins first): ended, its joiners woken. */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_TERMINATED &&
                         __atomic_load_n(&u->joiners, __ATOMIC_ACQUIRE) == GOABT_JOIN_DONE &&
                         u->magic != GOABT_MAGIC_FREED,
                     "freed unit in state %d, magic %#x", u->state, u->magic);
    GOABT_LEAK_FORGET(u);
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_FREE, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    goabt_keys_destroy(u); /* may run user code: read the stream after it */
    goabt_unit_drop_pool_unit(u); /* so may a user pool's free_unit */
    unit_release(goabt_self_stream(), u);
}

uint64_t goabt_unit_id(goabt_unit *u)
{
    /* Ids are handed out on first query, as in Argobots; 0 marks "none yet", so store id+1. */
    uint64_t id = __atomic_load_n(&u->id, __ATOMIC_ACQUIRE);
    if (id == 0) {
        uint64_t fresh = __atomic_fetch_add(&goabt_rt.next_unit_id, 1, __ATOMIC_RELAXED) + 1;
        uint64_t expected = 0;
        if (__atomic_compare_exchange_n(&u->id, &expected, fresh, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            id = fresh;
        } else {
            id = expected;
        }
    }
    return id - 1;
}

/* ---- The end of a unit ---------------------------------------------------------------------- */

/* u has ended (finished, or cancelled) and no longer runs on its stack; s: the calling
 * thread's stream, or NULL. */
void goabt_unit_end(goabt_unit *u, goabt_stream *s)
{
    /* terminate -> TERMINATED: once, from RUNNING (it finished) or READY (cancelled, or no stack
     * for its first run), never while it still runs on its stack. */
    GOABT_ASSERT_MSG(__atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_RUNNING ||
                         __atomic_load_n(&u->state, __ATOMIC_RELAXED) == ABT_THREAD_STATE_READY,
                     "a unit ends in state %d", u->state);
    GOABT_ASSERT_MSG(__atomic_load_n(&u->joiners, __ATOMIC_ACQUIRE) != GOABT_JOIN_DONE,
                     "a unit ends once");
    GOABT_ASSERT_MSG((s == NULL || s->current != u) && goabt_unit_not_running(u),
                     "a unit ends once its context is left");
    GOABT_ASSERT(goabt_unit_out_of_queues(u) && u->magic != GOABT_MAGIC_FREED);
    if (!(u->flags & GOABT_UNIT_NAMED)) {
        /* Nobody may join or free an unnamed unit: it is freed now (a tool sees it freed, as
         * Argobots tells of every unit). */
        GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_FREE, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
        goabt_keys_destroy(u);
        goabt_unit_drop_pool_unit(u);
        unit_release(s, u);
        return;
    }
    /* A finished unit keeps its pool unit until it is freed (a user pool's free_unit comes
     * with ABT_thread_free, as in Argobots; a pool freed first keeps a record for it, pool.c).
     * It does not run again unless revived (which maps it a stack anew): its stack goes to the
     * next ULT. (u->stack and stacksize stay, for queries.) */
    goabt_unit_give_stack(s, u);
    if (u->kind == GOABT_TASKLET) {
        /* A tasklet's joiners look at its state (goabt_unit_join), as in Argobots: no joiner
         * stack to take, so its end makes no locked instruction. */
        __atomic_store_n(&u->joiners, GOABT_JOIN_DONE, __ATOMIC_RELAXED);
        __atomic_store_n(&u->state, ABT_THREAD_STATE_TERMINATED, __ATOMIC_RELEASE);
        return;
    }
    /* Everything read from u is read before it becomes TERMINATED: from then on its owner may
     * free it. The joiners are on their own stacks, waiting: they stay valid until woken. */
    goabt_waiter *joiners = goabt_joiners_take(&u->joiners);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_TERMINATED, __ATOMIC_RELEASE);
    goabt_joiners_wake(joiners);
}

void goabt_unit_terminated(goabt_unit *u, void *arg)
{
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_FINISH, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    goabt_unit_end(u, arg);
}

