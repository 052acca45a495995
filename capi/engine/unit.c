//go:build goabt_c_engine
/* unit.c: work units: descriptors and stacks, create and free, running, yield, join,
 * termination, and the blocking core every wait is built on: park and ready (unit.h, top). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gocalls.h"
#include "context.h"
#include "handles.h"
#include "keys.h"
#include "leaks.h"
#include "pool.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "tool.h"
#include "unit.h"
#include "valgrind_stacks.h"
#include "wait.h"

/* ---- Unit descriptors and stacks -------------------------------------------------------- */

/* Freed descriptors keep their stack (and key table) and wait in a cache for the next create: a
 * stream's own cache (no lock: only that stream's thread touches it), then a global one, then
 * the Go core (core.Runtime.Units for descriptors, core.Stacks for stacks). Streams and the global
 * cache trade descriptors in batches of CACHE_BATCH, one lock per batch: a stream that forks
 * thousands of units before joining them would otherwise take the global lock for every unit,
 * against the other streams doing the same (2048 live ULTs per stream on 2 streams: 235 ns per
 * create+free instead of 85). The global cache has no bound: descriptors a program once had
 * alive it gets again without calls into Go (~100 ns each; bounded at 16,384, 100,000 live ULTs
 * cost 400 ns each instead of 90-200). The memory stays with the process until the outermost
 * ABT_finalize, as Argobots' memory pools keep theirs. Stacks have caches of their own (below):
 * a descriptor holds one only while its ULT can run. */
#define STREAM_CACHE_MAX 512
#define CACHE_BATCH 64

static pthread_mutex_t global_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static goabt_unit *global_batches; /* first units of batches, linked by batch_next */

static size_t page_size(void)
{
    static size_t page;
    if (page == 0) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* Valgrind's view of unit stacks (valgrind_stacks.h); empty outside the valgrind build. A
 * mapping is registered from the moment it is attached to a descriptor until it goes back to
 * the Go core, its guard page left out; a user stack while the unit that runs on it exists. */
static void unit_vg_register_mapping(goabt_unit *u)
{
#ifdef GOABT_VALGRIND
    u->vg_mapping_stack = goabt_vg_stack_register((char *)u->mapping + page_size(),
                                                  (char *)u->mapping + u->mapping_size);
#else
    (void)u;
#endif
}

static void unit_vg_deregister_mapping(goabt_unit *u)
{
#ifdef GOABT_VALGRIND
    goabt_vg_stack_deregister(u->vg_mapping_stack);
    u->vg_mapping_stack = 0;
#else
    (void)u;
#endif
}

static void unit_vg_register_user_stack(goabt_unit *u)
{
#ifdef GOABT_VALGRIND
    u->vg_user_stack = goabt_vg_stack_register(u->stack, (char *)u->stack + u->stacksize);
#else
    (void)u;
#endif
}

static void unit_vg_deregister_user_stack(goabt_unit *u)
{
#ifdef GOABT_VALGRIND
    goabt_vg_stack_deregister(u->vg_user_stack);
    u->vg_user_stack = 0;
#else
    (void)u;
#endif
}

/* ---- Stack caches --------------------------------------------------------------------------
 *
 * A ULT needs a stack only from its first run until it ends; its descriptor lives from its
 * creation until it is freed. So a ULT takes its stack when it first runs, from the caches of
 * the stream that runs it (goabt_unit_take_stack), and a named one gives it back as it ends
 * (unit_end), for the next ULT to start there. A stream then runs ULT after ULT on the few
 * stacks it has at hand, warm, however many ULTs wait or have finished without being freed:
 * 1,000,000 of them cost their descriptors only (262 MiB peak RSS in make bench's scale table,
 * 4.2 GiB when each had its stack from creation to free, and 190 ns per create+join+free
 * instead of 260). Free stacks wait in a stream's cache (GOABT_STREAM_STACKS, all of one mapping
 * size), then, in batches of STACK_BATCH, in a global list, then in the Go core (core.Stacks).
 * An unnamed unit is freed as it ends: its descriptor keeps its stack in the descriptor caches,
 * and the next ULT made from it runs on that. */
#define STACK_BATCH 64

typedef struct stack_batch {
    struct stack_batch *next;
    size_t size; /* every stack's mapping size */
    int n;
    void *stacks[STACK_BATCH];
} stack_batch;

static pthread_mutex_t stack_batches_lock = PTHREAD_MUTEX_INITIALIZER;
static stack_batch *stack_batches;

static void stack_batch_put(stack_batch *b)
{
    pthread_mutex_lock(&stack_batches_lock);
    b->next = stack_batches;
    stack_batches = b;
    pthread_mutex_unlock(&stack_batches_lock);
}

/* Takes a batch of stacks of mapping size `size`, or NULL. */
static stack_batch *stack_batch_take(size_t size)
{
    pthread_mutex_lock(&stack_batches_lock);
    stack_batch **at = &stack_batches;
    while (*at != NULL && (*at)->size != size) at = &(*at)->next;
    stack_batch *b = *at;
    if (b != NULL) *at = b->next;
    pthread_mutex_unlock(&stack_batches_lock);
    return b;
}

/* Moves the top n of s's stacks (all of them, at most STACK_BATCH) to a global batch. Without
 * memory for one they go back to the Go core. */
static void stacks_spill(goabt_stream *s, int n)
{
    stack_batch *b = malloc(sizeof *b);
    s->nstacks -= n;
    if (b == NULL) {
        for (int i = 0; i < n; i++) goabt_stack_put(s->stacks[s->nstacks + i], s->stacks_size);
        return;
    }
    b->size = s->stacks_size;
    b->n = n;
    memcpy(b->stacks, &s->stacks[s->nstacks], (size_t)n * sizeof b->stacks[0]);
    stack_batch_put(b);
}

static void stacks_flush(goabt_stream *s)
{
    while (s->nstacks > 0) stacks_spill(s, s->nstacks < STACK_BATCH ? s->nstacks : STACK_BATCH);
}

/* A free stack (a mapping of `size` bytes) for the next ULT; s: the calling thread's stream, or
 * NULL. */
static void stack_put(goabt_stream *s, void *mapping, size_t size)
{
    if (s == NULL) {
        stack_batch *b = malloc(sizeof *b);
        if (b == NULL) {
            goabt_stack_put(mapping, size);
            return;
        }
        b->size = size;
        b->n = 1;
        b->stacks[0] = mapping;
        stack_batch_put(b);
        return;
    }
    if (s->nstacks > 0 && s->stacks_size != size) stacks_flush(s); /* one size at a time */
    if (s->nstacks == GOABT_STREAM_STACKS) stacks_spill(s, STACK_BATCH);
    s->stacks_size = size;
    s->stacks[s->nstacks++] = mapping;
}

/* A free stack of mapping size `size` from the caches, or NULL. */
static void *stack_get(goabt_stream *s, size_t size)
{
    if (s != NULL && s->nstacks > 0 && s->stacks_size == size) return s->stacks[--s->nstacks];
    stack_batch *b = stack_batch_take(size);
    if (b == NULL) return NULL;
    void *m = b->stacks[--b->n];
    if (s != NULL && (s->nstacks == 0 || s->stacks_size != size)) {
        stacks_flush(s);
        memcpy(s->stacks, b->stacks, (size_t)b->n * sizeof b->stacks[0]);
        s->nstacks = b->n;
        s->stacks_size = size;
        free(b);
    } else if (b->n > 0) {
        stack_batch_put(b); /* an external thread takes one */
    } else {
        free(b);
    }
    return m;
}

/* Takes u's stack off it, into the caches (s: the calling thread's stream, or NULL). */
static void unit_give_stack(goabt_stream *s, goabt_unit *u)
{
    if (u->mapping == NULL) return;
    unit_vg_deregister_mapping(u);
    stack_put(s, u->mapping, u->mapping_size);
    u->mapping = NULL;
    u->mapping_size = 0;
}

/* Gives u's stack back to the Go core (core.Stacks), which keeps it for reuse or unmaps it. */
static void unit_unmap_stack(goabt_unit *u)
{
    unit_vg_deregister_mapping(u);
    if (u->mapping) goabt_stack_put(u->mapping, u->mapping_size);
    u->mapping = NULL;
    u->mapping_size = 0;
}

static void unit_destroy(goabt_unit *u)
{
    unit_unmap_stack(u);
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
    return b;
}

/* A batch of fresh descriptors from the Go core, contiguous: a stream's descriptors must not
 * share pages with another stream's. Interleaved, as one-at-a-time requests from two streams
 * warming up together leave them, the hardware prefetchers drag each stream's lines into the
 * other's cache: two streams forking and joining 256 ULTs each ran at 220 ns per unit instead
 * of 85. */
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
    return first;
}

static goabt_unit *unit_alloc(goabt_stream *s)
{
    goabt_unit *u;
    if (s != NULL && s->free_units != NULL) {
        u = s->free_units;
        s->free_units = u->free_next;
        s->free_count--;
        return u;
    }
    u = global_take_batch();
    if (u == NULL && s != NULL) u = go_take_batch(); /* the slow path: core.Runtime.Units */
    if (u == NULL) return goabt_unit_get();
    if (s != NULL) { /* the rest of the batch becomes the stream's cache, which is empty */
        s->free_units = u->free_next;
        s->free_count = u->batch_len - 1;
    } else if (u->free_next != NULL) { /* an external thread keeps one */
        global_put_batch(u->free_next, u->batch_len - 1);
    }
    return u;
}

/* Takes up to CACHE_BATCH descriptors off the top of s's cache for the global one. */
static void cache_to_global(goabt_stream *s)
{
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
    u->magic = GOABT_MAGIC_FREED;
    unit_vg_deregister_user_stack(u);
    goabt_user_stack_unguard(u);
    if (s == NULL) {
        u->free_next = NULL;
        global_put_batch(u, 1);
        return;
    }
    u->free_next = s->free_units;
    s->free_units = u;
    /* Overflow: the newest CACHE_BATCH go to the global cache (just freed, their links are hot). */
    if (++s->free_count > STREAM_CACHE_MAX) cache_to_global(s);
}

void goabt_units_cache_drain(void)
{
    goabt_unit *b;
    while ((b = global_take_batch()) != NULL) list_destroy(b);
    pthread_mutex_lock(&stack_batches_lock);
    stack_batch *stacks = stack_batches;
    stack_batches = NULL;
    pthread_mutex_unlock(&stack_batches_lock);
    while (stacks != NULL) {
        stack_batch *sb = stacks;
        stacks = sb->next;
        for (int i = 0; i < sb->n; i++) goabt_stack_put(sb->stacks[i], sb->size);
        free(sb);
    }
}

void goabt_units_cache_release(goabt_stream *s)
{
    /* The stream's caches go to the global ones, in batches. */
    while (s->free_units != NULL) cache_to_global(s);
    stacks_flush(s);
}

/* Gives u a stack of at least size usable bytes below its top, with a guard page under it (s:
 * the calling thread's stream, or NULL): the one u's descriptor still has if it is of that size
 * (an unnamed unit's, reused), else one from the stack caches, else from the Go core
 * (core.Stacks). Returns the stack's top, or NULL.
 *
 * The mapping has one page more than the stack needs, and the top is moved down into it by one
 * of 16 "colours" (cache lines), picked from the descriptor's address. Page-aligned tops would
 * all fall in the same set of the L1 cache: with 32 ULTs per stream on two streams, every
 * create and first run missed it (200 ns per unit instead of 80). 16, not 64: the top stays
 * within 1 KiB of a page end, so a ULT using up to 3 KiB of stack touches one page, not two
 * (4 x 100,000 started ULTs touching 2 KiB each: 1.72 GB peak RSS instead of 2.57, with
 * create, yield and join unchanged).
 *
 * In modes mprotect and mprotect_strict (goabt_stack_guard_inside) the stack is laid out as
 * Argobots lays it out there, and a program that looks for the guard page finds it: the stack u
 * reports is the whole mapping, size bytes from its guard page, which is its lowest page, and
 * the colour comes out of its top (usable: size less the guard page and the colour). Argobots'
 * default stack size is two pages larger in those modes (core.Config), for the same room. A
 * size too small for that is raised to the least that has it. */
static void *unit_map_stack(goabt_stream *s, goabt_unit *u, size_t size)
{
    size_t page = page_size();
    size_t colour = ((uintptr_t)u >> 6) & 15;
    if (goabt_stack_guard_inside()) {
        size_t least = GOABT_CTX_MIN_STACK + 2 * page;
        if (size < least) size = least;
        size_t want = (size + page - 1) & ~(page - 1);
        if (u->mapping == NULL || u->mapping_size != want) {
            unit_give_stack(s, u);
            size_t mapped = want;
            void *m = stack_get(s, want);
            if (m == NULL) m = goabt_stack_get(want - page, &mapped);
            if (m == NULL) return NULL;
            u->mapping = m;
            u->mapping_size = mapped;
            unit_vg_register_mapping(u);
        }
        u->stack = u->mapping;
        u->stacksize = size;
        return (void *)((((uintptr_t)u->mapping + size) & ~(uintptr_t)63) - colour * 64);
    }
    size_t usable = size < GOABT_CTX_MIN_STACK ? GOABT_CTX_MIN_STACK : size;
    usable = (usable + page - 1) & ~(page - 1);
    size_t want = usable + 2 * page; /* the guard page, the usable part, the colours' page */
    if (u->mapping == NULL || u->mapping_size != want) {
        unit_give_stack(s, u); /* of another size: for another ULT */
        size_t mapped = want;
        void *m = stack_get(s, want);
        if (m == NULL) m = goabt_stack_get(usable + page, &mapped);
        if (m == NULL) return NULL;
        u->mapping = m;
        u->mapping_size = mapped;
        unit_vg_register_mapping(u);
    }
    void *top = (char *)u->mapping + u->mapping_size - colour * 64;
    /* Report the top `size` bytes, where the ULT actually runs: the mapping may be larger. */
    u->stack = (char *)top - size;
    u->stacksize = size;
    return top;
}

int goabt_unit_take_stack(goabt_stream *s, goabt_unit *u)
{
    void *top = unit_map_stack(s, u, u->stacksize);
    if (top == NULL) return -1;
    u->top = top;
    return 0;
}

/* Out of memory for a ULT's stack. Argobots maps a stack when it creates a ULT and refuses the
 * create; goabt maps it when the ULT first runs (a million waiting ULTs cost no stack), where
 * no error can be returned. The ULT then ends without running, so that nobody waits for it
 * for ever, and the places that can return an error do: ABT_thread_join and ABT_thread_free
 * answer ABT_ERR_MEM. (Stacks of 1 MiB and more are mapped at create, which refuses them.) */
void goabt_unit_no_stack(goabt_unit *u, goabt_stream *s)
{
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) == 0) {
        fprintf(stderr, "goabt: out of memory for a %zu-byte ULT stack: ULT %llu ends without "
                        "running, and ABT_thread_join and ABT_thread_free on it return "
                        "ABT_ERR_MEM (said once)\n",
                u->stacksize, (unsigned long long)u->id);
    }
    u->flags |= GOABT_UNIT_NO_STACK;
    goabt_unit_terminated(u, s);
}

/* After a direct switch that went to the scheduler instead (switch_to): what the switch was to
 * run, then the end of the target that got no stack. */
static void after_no_stack(goabt_unit *self, void *arg)
{
    goabt_stream *s = arg;
    goabt_unit *target = s->no_stack_target;
    s->no_stack_target = NULL;
    s->no_stack_fn(self, s->no_stack_arg);
    goabt_unit_no_stack(target, s);
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
    u->popped_by = NULL;
    u->func = func;
    u->arg = arg;
    u->id = 0;
    u->pool = pool;
    u->last_stream = NULL;
    u->joiners = NULL;
    u->keys = NULL;
    u->next = u->prev = NULL;
    /* pool_unit, pool_unit_of and user_queued are clear: fresh descriptors are zeroed, and a
     * unit gives its pool unit back when it is freed (goabt_unit_drop_pool_unit). */
    if (pool->user != NULL && goabt_pool_associate(pool, u) != ABT_SUCCESS) {
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
            unit_vg_register_user_stack(u);
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
                top = unit_map_stack(s, u, u->stacksize);
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
    if (u->kind == GOABT_ULT && !(u->flags & GOABT_UNIT_USER_STACK)) {
        /* Its stack went to other ULTs when it ended: it gets one of the same size. */
        void *top = unit_map_stack(goabt_self_stream(), u, u->stacksize);
        if (top == NULL) return ABT_ERR_MEM;
        u->top = top;
    }
    int rc = goabt_pool_associate(p, u); /* its pool unit went back when it ended */
    if (rc != ABT_SUCCESS) return rc;
    u->pool = p;
    u->func = func;
    u->arg = arg;
    u->joiners = NULL;
    u->request = 0;
    u->flags &= ~GOABT_UNIT_NO_STACK; /* it has a stack now */
    u->waiting = NULL;
    u->popped_by = NULL;
    u->suspend = 0;
    u->next = u->prev = NULL;
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

/* ---- Running units ------------------------------------------------------------------------ */

/* u has finished and no longer runs on its stack (arg: the stream it ran on). */
/* u has ended (finished, or cancelled) and no longer runs on its stack; s: the calling
 * thread's stream, or NULL. */
static void unit_end(goabt_unit *u, goabt_stream *s)
{
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
    unit_give_stack(s, u);
    /* Everything read from u is read before it becomes TERMINATED: from then on its owner may
     * free it. The joiners are on their own stacks, waiting: they stay valid until woken. */
    goabt_waiter *joiners = goabt_joiners_take(&u->joiners);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_TERMINATED, __ATOMIC_RELEASE);
    goabt_joiners_wake(joiners);
}

void goabt_unit_terminated(goabt_unit *u, void *arg)
{
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_FINISH, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    unit_end(u, arg);
}

/* Clears bit in u's requests: 1 if it was set (the caller now carries the request out). */
static int claim_request(goabt_unit *u, int bit)
{
    return (__atomic_fetch_and(&u->request, ~bit, __ATOMIC_ACQ_REL) & bit) != 0;
}

/* Moves u (ready, held by the caller: in no pool, not running) to its migrate_to pool, runs
 * its migration callback, and queues it there; counted: the pool it parked in, or NULL. A
 * user pool that makes no unit for it keeps it where it was. */
static void migrate_now(goabt_unit *u, goabt_pool *counted)
{
    goabt_pool *to = __atomic_load_n(&u->migrate_to, __ATOMIC_RELAXED);
    if (goabt_pool_associate(to, u) != ABT_SUCCESS) {
        goabt_pool_push_from(u->pool, u, counted, ABT_POOL_CONTEXT_OP_POOL_OTHER);
        return;
    }
    u->pool = to;
    if (u->flags & GOABT_UNIT_MIGRATE_CB) u->migrate_cb(u, u->migrate_cb_arg);
    goabt_pool_push_from(to, u, counted, ABT_POOL_CONTEXT_OP_THREAD_MIGRATE);
}

/* A unit that yielded goes back to its pool; arg: why, for a user pool (ABT_POOL_CONTEXT_OP_*). */
static void after_yield(goabt_unit *u, void *arg)
{
    __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    if (__builtin_expect(__atomic_load_n(&u->request, __ATOMIC_ACQUIRE) != 0, 0) &&
        goabt_unit_take_request(u)) {
        return;
    }
    goabt_pool_push_op(u->pool, u, (ABT_pool_context)(uintptr_t)arg);
}

/* A yield's hand-over queued u back in its pool with the pop of the next ULT, one locked
 * section for both, and kept the pool locked until u's context is saved (goabt_pool_pop_ult):
 * ABT_thread_yield between two ULTs, one locked instruction less. */
static void after_requeue(goabt_unit *u, void *pool) { goabt_pool_requeued(pool, u); }

void goabt_unit_resume_main(goabt_stream *s)
{
    goabt_unit *m = goabt_rt.main_unit;
    s->main_child = 0; /* whatever ran for it is over */
    /* The main ULT runs again after a yield or a wait: a tool sees it run, as any ULT popped
     * by a scheduler. One that lent its stream to a child (goabt_unit_run_child) or to the
     * scheduler (ABT_self_schedule) never stopped running: no event. */
    if (__atomic_load_n(&m->state, __ATOMIC_RELAXED) != ABT_THREAD_STATE_RUNNING) {
        GOABT_TOOL_EVENT(m, ABT_TOOL_EVENT_THREAD_RUN, m->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    }
    m->last_stream = s;
    __atomic_store_n(&m->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    s->current = m;
    if (s->run_live) {
        /* From a user scheduler's run on its own stack: the run waits there, and goes on from
         * here when the main ULT steps aside again (primary_activation, sched_user.c). */
        s->run_live = 0;
        /* The activation below the main ULT is left with its frames: under AddressSanitizer
         * their poison goes, as a jump's would (the hook the compiler puts before a noreturn
         * call clears the stack it leaves), or ASan's own code there would report it later. */
        GOABT_UNPOISON(s->sys_ctx, m->ctx);
        goabt_ctx_switch(&s->run_ctx, m->ctx);
        return;
    }
    goabt_ctx_jump(m->ctx);
}

/* The main ULT's child runs on a scheduler activation below it (the main ULT has no ULT stack
 * to lend): the child runs there, then the main ULT resumes. */
static void run_child_of_main(goabt_unit *m, void *arg)
{
    (void)m;
    goabt_stream *s = goabt_self_stream();
    s->main_child = 1;
    goabt_unit_run(s, arg);
    s->main_child = 0;
    goabt_unit_resume_main(s);
}

void goabt_unit_run_child(goabt_unit *u)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    if (self == NULL) {
        goabt_unit_run(s, u);
        return;
    }
    if (self->flags & GOABT_UNIT_MAIN) {
        goabt_unit_switch_out(s, self, run_child_of_main, u);
        return;
    }
    /* self lends its context: u switches back to it as to a scheduler, which is what
     * goabt_unit_run, run from here, saves in sched_ctx. The scheduler below self keeps its
     * saved context in a local of self's meanwhile; the gate finds the system stack in
     * sys_ctx. u comes back on this same stream: it switches out only to the stream it runs on. */
    goabt_ctx parent = s->sched_ctx;
    if (s->nested++ == 0 && !s->run_live) s->sys_ctx = parent; /* else the activation's, kept */
    goabt_unit_run(s, u);
    s->nested--;
    s->sched_ctx = parent;
    s->current = self;
}

void goabt_unit_hand_main(goabt_stream *s)
{
    goabt_unit *self = s->current;
    if (s->is_primary && self == NULL) {
        goabt_unit_resume_main(s); /* returns only to a user scheduler's run */
        return;
    }
    __atomic_store_n(&goabt_rt.primary->main_handoff, 1, __ATOMIC_SEQ_CST);
    goabt_stream_wake(goabt_rt.primary);
    if (self != NULL && s->is_primary) goabt_unit_yield(); /* the scheduler below notices */
}

/* A scheduler activation on the primary stream, below the suspended main ULT (rule 5). */
__attribute__((noreturn)) static void primary_activation(void *arg)
{
    goabt_stream *s = arg;
    s->current = NULL;
    goabt_sched_after_switch(s);
    /* A user scheduler's run that ran the main ULT goes on where it left off (sched_user.c). */
    if (s->run_ctx != NULL) goabt_user_sched_resume(s);
    goabt_sched_loop(s);
    __builtin_unreachable();
}

/* A ULT that resumes runs what the unit it took over from asked: usually the scheduler has
 * done it already, but after a direct switch (yield_to) nobody else will. */
static void after_resume(void)
{
    goabt_stream *s = goabt_self_stream();
    if (s->after_fn != NULL) goabt_sched_after_switch(s);
}

void goabt_unit_switch_out(goabt_stream *s, goabt_unit *self, goabt_after_fn fn, void *arg)
{
    s->after_fn = fn;
    s->after_unit = self;
    s->after_arg = arg;
    if (self->flags & GOABT_UNIT_MAIN) {
        goabt_ctx_switch_below(&self->ctx, primary_activation, s);
    } else {
        goabt_ctx_switch(&self->ctx, s->sched_ctx);
    }
    after_resume();
}

void goabt_ult_entry(void *arg)
{
    goabt_unit *u = arg;
    after_resume();
    u->func(u->arg);
    goabt_unit_exit();
}

void goabt_ult_after_resume(void)
{
    after_resume();
}

/* Switches straight from self to target, a ULT that is ready and in no pool (taken out of one
 * by the caller, or a suspended one being resumed), without going through the scheduler;
 * fn(self, arg) runs once self's context is saved. Neither may be the main ULT, which has no
 * scheduler below it to come back to. */
static void switch_to(goabt_stream *s, goabt_unit *self, goabt_unit *target, goabt_after_fn fn,
                      void *arg)
{
    /* The trace's only site of its own: self stops and target runs (a tool sees a run). Not
     * with a pool locked for a requeue (a tool or trace that started listening since the
     * hand-over looked must not run its callback under that lock). */
    if (fn != after_requeue) {
        GOABT_TOOL_EVENT(target, GOABT_TRACE_EVENT_SWITCH, target->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    }
    goabt_ctx target_ctx = goabt_unit_context(s, target);
    if (__builtin_expect(target_ctx == NULL, 0)) { /* no stack for it: through the scheduler */
        s->no_stack_fn = fn;
        s->no_stack_arg = arg;
        s->no_stack_target = target;
        goabt_unit_switch_out(s, self, after_no_stack, s);
        return;
    }
    s->after_fn = fn;
    s->after_unit = self;
    s->after_arg = arg;
    target->last_stream = s;
    __atomic_store_n(&target->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    s->current = target;
    goabt_ctx_switch(&self->ctx, target_ctx);
    after_resume();
}

/* self yields straight to target (yield_to, resume_yield_to, create_to, revive_to): a tool
 * hears self yield, and target run (switch_to); self goes back to its pool, told why. */
static void yield_straight(goabt_stream *s, goabt_unit *self, goabt_unit *target,
                           ABT_pool_context why)
{
    GOABT_TOOL_EVENT(self, ABT_TOOL_EVENT_THREAD_YIELD, self->pool, ABT_SYNC_EVENT_TYPE_USER);
    switch_to(s, self, target, after_yield, (void *)(uintptr_t)why);
}

/* Whether self may switch straight to target (neither is the main ULT, target is a ULT). */
static int direct(goabt_unit *self, goabt_unit *target)
{
    return !(self->flags & GOABT_UNIT_MAIN) && !(target->flags & GOABT_UNIT_MAIN) &&
           target->kind == GOABT_ULT;
}

/* Takes target, the ULT a *_to call names, for a direct switch: Argobots 1.2 wants it ready
 * and popped from its pool by the caller; goabt also takes it out of its pool if it is still
 * queued there. 0 if it is neither (running, blocked, finished, or queued in a user pool that
 * cannot remove units). */
static int take_target(goabt_unit *target)
{
    if (__atomic_load_n(&target->state, __ATOMIC_ACQUIRE) != ABT_THREAD_STATE_READY) return 0;
    if (goabt_pool_remove(target->pool, target)) return 1;
    /* In no pool and ready: the caller popped it, as Argobots asks, or a scheduler did and is
     * about to run it (then it is not the caller's to run: it would run on two streams). Taken,
     * it is the caller's no more: once it runs, a wake-up may make it ready, in no pool yet. */
    if (goabt_pool_is_queued(target->pool, target) || target->popped_by != goabt_self_unit()) {
        return 0;
    }
    target->popped_by = NULL;
    return 1;
}

/* A taken target that cannot be switched to straight (the main ULT is one side) goes back to
 * its pool, to run in its turn. */
static void give_back(goabt_unit *target)
{
    goabt_pool_push(target->pool, target);
}

/* ---- Hand-over: from ULT to ULT without a scheduler round ------------------------------------
 *
 * A ULT that yields or parks switches to the scheduler, which runs what it left behind (the
 * after function: push it back, release an object's lock ...), looks at its events and pops the
 * next unit. When the next unit is a plain ULT and the stream's scheduler is a predefined one
 * with nothing to look at, the caller pops that ULT itself and switches straight to it, the
 * after function running there (as after yield_to): one context switch instead of two
 * (ABT_thread_yield between two ULTs: 40 ns -> 25). The scheduler's own round still comes every
 * DIRECT_MAX hand-overs, and whenever anything needs it: a user scheduler or pool, a stacked
 * run (nested, or a unit run for the main ULT), a user scheduler's run still live after it was
 * replaced, stealing (randws), a tool or the trace listening (they see every run), a
 * deadline due, an exit, finish or main-ULT request, the main ULT on either side, and in the
 * valgrind build (its scheduler loop paces itself). A yield that finds nothing to hand over to
 * before its own pool, and that pool empty, is one the round would answer with the yielder
 * itself: the yielder, the main ULT too, goes on running without a switch (a polling loop of
 * yields alone on its stream: 52 ns a yield -> 10, the main ULT's 72 -> 13). */
#define DIRECT_MAX 64

/* The ULT to hand the stream to, popped, or NULL: the scheduler takes its round. back: the
 * pool self goes back to (yield), or NULL (park): the scheduler would pop from it no later than
 * self, so nothing past it counts. park: the pool a parking self is counted in, or NULL; *counted
 * says whether the pop counted it there (goabt_pool_pop_ult). requeued, for a yield: set when
 * the pop queued self in back too, its lock left held (after_requeue releases it). */
static goabt_unit *direct_next(goabt_stream *s, goabt_unit *self, goabt_pool *back,
                               goabt_pool *park, int *counted, int *requeued)
{
#ifdef GOABT_VALGRIND
    (void)s;
    (void)self;
    (void)back;
    (void)park;
    (void)counted;
    (void)requeued;
    return NULL;
#else
    goabt_sched *sc = s->sched;
    int main_ult = (self->flags & GOABT_UNIT_MAIN) != 0;
    if ((main_ult && requeued == NULL) || s->nested != 0 || s->main_child || sc->is_user ||
        s->user_run != NULL ||
        (sc->predef == ABT_SCHED_RANDWS && sc->num_pools > 1) ||
        __atomic_load_n(&goabt_tool_mask, __ATOMIC_RELAXED) != 0) {
        return NULL;
    }
    if (++s->direct_run >= DIRECT_MAX) {
        s->direct_run = 0;
        return NULL;
    }
    if (__atomic_load_n(&sc->exit_req, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&sc->finish_req, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&s->request, __ATOMIC_ACQUIRE) ||
        (s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_ACQUIRE)) ||
        (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_RELAXED) != 0 && goabt_timers_due())) {
        return NULL;
    }
    for (int i = 0; i < sc->num_pools; i++) {
        goabt_pool *p = sc->pools[i];
        /* A yield into its own pool, empty as every pool before it: the round would pop the
         * yielder straight back, so it goes on (the main ULT too). */
        if (p == back && requeued != NULL && goabt_pool_yield_alone(p, self)) return self;
        if (main_ult) { /* no hand-over from the main ULT: only a yield alone goes on */
            if (p == back || p->user != NULL || __atomic_load_n(&p->size, __ATOMIC_RELAXED) != 0) {
                return NULL;
            }
            continue;
        }
        int stop = 0;
        goabt_unit *u = goabt_pool_pop_ult(p, &stop, park, counted,
                                           p == back && requeued != NULL ? self : NULL, requeued);
        if (u != NULL || stop || p == back) return u;
    }
    return NULL;
#endif
}

/* Yields straight to target; the caller goes back to its pool. Without a direct switch (the
 * main ULT on either side) it yields the ordinary way; a target that cannot be taken leaves the
 * caller running, as in Argobots. */
void goabt_unit_yield_to(goabt_unit *target)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    if (!take_target(target)) return;
    if (!direct(self, target)) {
        give_back(target);
        goabt_unit_yield();
        return;
    }
    yield_straight(s, self, target, ABT_POOL_CONTEXT_OP_THREAD_YIELD_TO);
}

/* ---- Suspend and resume ---------------------------------------------------------------------
 *
 * A suspended ULT is parked (BLOCKED, counted in its pool) with nothing waking it but a resume.
 * u->suspend says where it is: SUSPENDING from the moment it decides to until its context is
 * saved, then SUSPENDED; a resume that comes in between marks it RESUMED_EARLY, and the ULT is
 * made ready as soon as it is parked, so that no resume is lost to that race. */
enum { SUSPEND_NONE = 0, SUSPENDING = 1, SUSPENDED = 2, RESUMED_EARLY = 3 };

static void suspend_parked(goabt_unit *u, void *arg)
{
    (void)arg;
    int going = SUSPENDING;
    if (__atomic_compare_exchange_n(&u->suspend, &going, SUSPENDED, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        return; /* a resume makes it ready */
    }
    __atomic_store_n(&u->suspend, SUSPEND_NONE, __ATOMIC_RELAXED);
    goabt_unit_ready(u);
}

/* self becomes SUSPENDING and BLOCKED, counted as parked in its pool. */
static void begin_suspend(goabt_unit *self)
{
    GOABT_TOOL_EVENT(self, ABT_TOOL_EVENT_THREAD_SUSPEND, self->pool, ABT_SYNC_EVENT_TYPE_USER);
    __atomic_store_n(&self->suspend, SUSPENDING, __ATOMIC_RELEASE);
    self->parked_in = self->pool;
    goabt_pool_count_parked(self->pool);
    __atomic_store_n(&self->state, ABT_THREAD_STATE_BLOCKED, __ATOMIC_RELEASE);
}

/* Takes u out of its suspension: 2 if it was parked (the caller now owns it: ready it, or
 * switch to it after goabt_pool_uncount_parked), 1 if it was still on its way (it makes
 * itself ready), 0 if it is not suspended. */
static int claim_suspended(goabt_unit *u)
{
    int st = __atomic_load_n(&u->suspend, __ATOMIC_ACQUIRE);
    for (;;) {
        if (st == SUSPENDED) {
            if (__atomic_compare_exchange_n(&u->suspend, &st, SUSPEND_NONE, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                return 2;
            }
        } else if (st == SUSPENDING) {
            if (__atomic_compare_exchange_n(&u->suspend, &st, RESUMED_EARLY, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                return 1;
            }
        } else {
            return 0;
        }
    }
}

int goabt_unit_resume(goabt_unit *u)
{
    int claimed = claim_suspended(u);
    if (claimed == 2) goabt_unit_ready(u);
    return claimed != 0;
}

void goabt_unit_suspend(goabt_unit *target)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    int taken = target != NULL && take_target(target);
    if (taken && !direct(self, target)) {
        give_back(target);
        taken = 0;
    }
    begin_suspend(self);
    if (taken) {
        switch_to(s, self, target, suspend_parked, NULL);
    } else {
        goabt_unit_switch_out(s, self, suspend_parked, NULL);
    }
}

/* What the caller does once it has handed its stream to the resumed target. */
enum { THEN_YIELD, THEN_SUSPEND, THEN_EXIT };

int goabt_unit_resume_to(goabt_unit *target, int then)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    if (target == self) return 0;
    int claimed = claim_suspended(target);
    if (claimed == 0) return 0;
    if (claimed == 1 || !direct(self, target)) {
        /* Not parked yet (it readies itself), or no direct switch: resumed through its pool. */
        if (claimed == 2) goabt_unit_ready(target);
        if (then == THEN_YIELD) goabt_unit_yield();
        if (then == THEN_SUSPEND) goabt_unit_suspend(NULL);
        if (then == THEN_EXIT) goabt_unit_exit();
        return 1;
    }
    goabt_pool_uncount_parked(target->parked_in); /* running now, without going through a pool */
    GOABT_TOOL_EVENT(target, ABT_TOOL_EVENT_THREAD_RESUME, target->pool, ABT_SYNC_EVENT_TYPE_USER);
    if (then == THEN_YIELD) {
        yield_straight(s, self, target, ABT_POOL_CONTEXT_OP_THREAD_RESUME_YIELD_TO);
    } else if (then == THEN_SUSPEND) {
        begin_suspend(self);
        switch_to(s, self, target, suspend_parked, NULL);
    } else {
        switch_to(s, self, target, goabt_unit_terminated, s);
        __builtin_unreachable();
    }
    return 1;
}

void goabt_unit_start_to(goabt_unit *u, ABT_pool_context why)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s != NULL ? s->current : NULL;
    if (self == NULL || self->kind != GOABT_ULT || !direct(self, u)) {
        goabt_pool_push_op(u->pool, u, why);
        if (self != NULL && self->kind == GOABT_ULT) goabt_unit_yield();
        return;
    }
    yield_straight(s, self, u, why);
}

void goabt_unit_exit_to(goabt_unit *target)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    int taken = take_target(target);
    if (!taken || !direct(self, target)) {
        if (taken) give_back(target);
        goabt_unit_exit();
    }
    switch_to(s, self, target, goabt_unit_terminated, s);
    __builtin_unreachable();
}

void goabt_unit_exit(void)
{
    goabt_stream *s = goabt_self_stream();
    /* No stream: the process was forked inside this ULT (runtime.h, goabt_forked). */
    if (__builtin_expect(s == NULL, 0)) goabt_forked_unit_returned();
    s->after_fn = goabt_unit_terminated;
    s->after_unit = s->current;
    s->after_arg = s;
    goabt_ctx_jump(s->sched_ctx);
}

void goabt_unit_yield(void)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    GOABT_TOOL_EVENT(self, ABT_TOOL_EVENT_THREAD_YIELD, self->pool, ABT_SYNC_EVENT_TYPE_USER);
    void *why = (void *)(uintptr_t)ABT_POOL_CONTEXT_OP_THREAD_YIELD;
    goabt_pool *back = self->pool;
    int requeued = 0;
    goabt_unit *next = direct_next(s, self, back, NULL, NULL, &requeued);
    if (next == self) return; /* alone in its pool: the scheduler would run it again */
    if (requeued) {
        switch_to(s, self, next, after_requeue, back);
    } else if (next != NULL) {
        switch_to(s, self, next, after_yield, why);
    } else {
        goabt_unit_switch_out(s, self, after_yield, why);
    }
}

/* ---- Blocking: park and ready ------------------------------------------------------------- */

void goabt_unit_park(goabt_after_fn fn, void *arg)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    /* Counted before it is visible to wakers: a scheduler or finalize looking for work sees
     * parked ULTs that will come back to the pool. What it waits for is worked out from fn and
     * arg only when a tool or the trace listens (wait.c). */
    GOABT_TOOL_EVENT_SYNC(self, ABT_TOOL_EVENT_THREAD_SUSPEND, self->pool,
                          goabt_wait_sync_type(fn, arg), goabt_wait_sync_object(fn, arg));
    self->parked_in = self->pool; /* uncounted there, whatever its pool is by then */
    int counted = 0; /* a hand-over counts it in the pop's locked section when it can */
    goabt_unit *next = direct_next(s, self, NULL, self->pool, &counted, NULL);
    if (!counted) goabt_pool_count_parked(self->pool);
    __atomic_store_n(&self->state, ABT_THREAD_STATE_BLOCKED, __ATOMIC_RELEASE);
    if (next != NULL) {
        switch_to(s, self, next, fn, arg);
    } else {
        goabt_unit_switch_out(s, self, fn, arg);
    }
}

void goabt_unit_ready(goabt_unit *u)
{
    GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_RESUME, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    if (__builtin_expect(__atomic_load_n(&u->request, __ATOMIC_ACQUIRE) & GOABT_UNIT_REQ_MIGRATE, 0) &&
        claim_request(u, GOABT_UNIT_REQ_MIGRATE)) {
        migrate_now(u, u->parked_in); /* wakes where it is going */
        return;
    }
    goabt_pool_push_unparked(u->pool, u, u->parked_in);
}

/* ---- Requests: cancel and migration ---------------------------------------------------------
 *
 * A request is a bit in u->request, set by anyone; it is taken up by whoever holds u at one of
 * its scheduling points: the scheduler that popped it (goabt_unit_run), the stream it yielded
 * on (after_yield), its waker (goabt_unit_ready, migrations only: a cancelled ULT ends when it
 * is next popped), or the requester itself when it can take u out of its pool. Whoever clears
 * a bit owns the request: each is carried out once. The main ULT takes no requests. */

int goabt_unit_take_request(goabt_unit *u)
{
    if (claim_request(u, GOABT_UNIT_REQ_CANCEL)) {
        /* Cancelled: it ends here, its joiners wake; a migration asked too goes with it. */
        __atomic_and_fetch(&u->request, ~GOABT_UNIT_REQ_MIGRATE, __ATOMIC_ACQ_REL);
        GOABT_TOOL_EVENT(u, ABT_TOOL_EVENT_THREAD_CANCEL, u->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
        /* Woken from a wait it will not return from: what the wake gave it is passed on. */
        if (u->waiting != NULL) goabt_wait_cancelled(u);
        unit_end(u, goabt_self_stream());
        return 1;
    }
    if (claim_request(u, GOABT_UNIT_REQ_MIGRATE)) {
        migrate_now(u, NULL);
        return 1;
    }
    return 0;
}

/* Sets request bit on u, and carries it out at once if u waits in a pool that gives it back:
 * taken out, u is held here. If a scheduler popped it and took the request up meanwhile (it
 * then sits in its new pool, maybe the very one removed from), nothing is left to do but put
 * it back. */
static void request(goabt_unit *u, int bit)
{
    __atomic_or_fetch(&u->request, bit, __ATOMIC_ACQ_REL);
    if (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_READY &&
        goabt_pool_remove(u->pool, u) && !goabt_unit_take_request(u)) {
        goabt_pool_push(u->pool, u);
    }
}

void goabt_unit_request_migration(goabt_unit *u, goabt_pool *to)
{
    __atomic_store_n(&u->migrate_to, to, __ATOMIC_RELAXED); /* before the bit: read after it */
    request(u, GOABT_UNIT_REQ_MIGRATE);
}

void goabt_unit_request_cancel(goabt_unit *u) { request(u, GOABT_UNIT_REQ_CANCEL); }

/* ---- Join --------------------------------------------------------------------------------- */

int goabt_unit_join(goabt_unit *t)
{
    if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_TERMINATED) {
        GOABT_TOOL_EVENT(t, ABT_TOOL_EVENT_THREAD_JOIN, t->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
        return (t->flags & GOABT_UNIT_NO_STACK) ? ABT_ERR_MEM : ABT_SUCCESS;
    }
    if (goabt_self_unit() == t) return ABT_ERR_INV_THREAD;
    /* Any number of joiners, ULTs (parked) and threads (asleep) alike: the terminating unit
     * wakes them all once it is TERMINATED. */
    goabt_waiter w;
    goabt_waiter_init(&w, 0, 0);
    goabt_joiners_wait(&t->joiners, &w);
    /* Woken after TERMINATED, or found the stack marked done: TERMINATED is then a few
     * instructions away (unit_terminated), and the caller must not free t before it. */
    for (unsigned spins = 0;
         __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != ABT_THREAD_STATE_TERMINATED; spins++) {
        goabt_backoff(spins);
    }
    GOABT_TOOL_EVENT(t, ABT_TOOL_EVENT_THREAD_JOIN, t->pool, ABT_SYNC_EVENT_TYPE_UNKNOWN);
    return (t->flags & GOABT_UNIT_NO_STACK) ? ABT_ERR_MEM : ABT_SUCCESS;
}
