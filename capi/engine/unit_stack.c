//go:build goabt_c_engine
/* unit_stack.c: ULT stacks: their caches (a stream's, the global batches, the Go core's), mapping
 * one for a ULT as it first runs (guard page, colour), and a ULT that got none. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gocalls.h"
#include "stream.h"
#include "unit.h"
#include "unit_internal.h"
#include "valgrind_stacks.h"

static size_t page_size(void)
{
    static size_t page;
    if (page == 0) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* Valgrind's view of a stack mapping (valgrind_stacks.h; a user stack's: unit_internal.h), empty
 * outside the valgrind build: registered from the moment it is attached to a descriptor until
 * it goes back to the Go core, its guard page left out. */
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

/* ---- Stack caches --------------------------------------------------------------------------
 *
 * A ULT needs a stack only from its first run until it ends; its descriptor lives from its
 * creation until it is freed. So a ULT takes its stack when it first runs, from the caches of
 * the stream that runs it (goabt_unit_take_stack), and a named one gives it back as it ends
 * (goabt_unit_end), for the next ULT to start there. A stream then runs ULT after ULT on the few
 * stacks it has at hand, warm, however many ULTs wait or have finished without being freed:
 * 1,000,000 of them cost their descriptors only (about 260 MiB peak RSS in make bench's scale table,
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
/* For checks: whether s's cache holds mapping. */
static inline int stack_cached(goabt_stream *s, void *mapping)
{
    for (int i = 0; i < s->nstacks; i++) {
        if (s->stacks[i] == mapping) return 1;
    }
    return 0;
}

static void stack_put(goabt_stream *s, void *mapping, size_t size)
{
    GOABT_ASSERT(mapping != NULL);
    /* A stack is cached once, and never the running unit's (it runs on it). */
    GOABT_ASSERT_MSG(s == NULL || s->current == NULL || s->current->mapping != mapping,
                     "stream %d caches the stack its running unit is on", s->rank);
    GOABT_ASSERT_MSG(s == NULL || !stack_cached(s, mapping), "a stack cached twice");
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
    GOABT_ASSERT(s->nstacks >= 0 && s->nstacks < GOABT_STREAM_STACKS);
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

void goabt_unit_give_mapping(goabt_stream *s, goabt_unit *u)
{
    /* Only a unit that no longer runs on its stack gives it up (it ended, or never ran). */
    GOABT_ASSERT_MSG((s == NULL || s->current != u) && goabt_unit_not_running(u),
                     "a running unit's stack cached");
    unit_vg_deregister_mapping(u);
    stack_put(s, u->mapping, u->mapping_size);
    u->mapping = NULL;
    u->mapping_size = 0;
}

void goabt_unit_unmap_stack(goabt_unit *u)
{
    unit_vg_deregister_mapping(u);
    if (u->mapping) goabt_stack_put(u->mapping, u->mapping_size);
    u->mapping = NULL;
    u->mapping_size = 0;
}

void goabt_unit_stacks_release(goabt_stream *s) { stacks_flush(s); }

int goabt_unit_stacks_cached(goabt_stream *s) { return s->nstacks; }

void goabt_unit_stacks_drain(void)
{
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

/* Gives u a stack of at least size usable bytes below its top, with a guard page under it (s:
 * the calling thread's stream, or NULL): the one u's descriptor still has if it is of that size
 * (an unnamed unit's, reused), else one from the stack caches, else from the Go core
 * (core.Stacks). Returns the stack's top, or NULL.
 *
 * The mapping has one page more than the stack needs, and the top is moved down into it by one
 * of 16 "colours" (cache lines), picked from the descriptor's address. Page-aligned tops would
 * all fall in the same set of the L1 cache, and with a few dozen ULTs per stream every create
 * and first run missed it. 16, not 64: the top stays within 1 KiB of a page end, so a ULT
 * using up to 3 KiB of stack touches one page, not two (docs/performance.md, "stack
 * colours").
 *
 * In modes mprotect and mprotect_strict (goabt_stack_guard_inside) the stack is laid out as
 * Argobots lays it out there, and a program that looks for the guard page finds it: the stack u
 * reports is the whole mapping, size bytes from its guard page, which is its lowest page, and
 * the colour comes out of its top (usable: size less the guard page and the colour). Argobots'
 * default stack size is two pages larger in those modes (core.Config), for the same room. A
 * size too small for that is raised to the least that has it. */
void *goabt_unit_map_stack(goabt_stream *s, goabt_unit *u, size_t size)
{
    size_t page = page_size();
    size_t colour = ((uintptr_t)u >> 6) & 15;
    if (goabt_stack_guard_inside()) {
        size_t least = GOABT_CTX_MIN_STACK + 2 * page;
        if (size < least) size = least;
        size_t want = (size + page - 1) & ~(page - 1);
        if (u->mapping == NULL || u->mapping_size != want) {
            goabt_unit_give_stack(s, u);
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
        goabt_unit_give_stack(s, u); /* of another size: for another ULT */
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
    /* A ULT's first run (unit.h, goabt_unit_context): its own stack was never made. */
    GOABT_ASSERT(u->kind == GOABT_ULT && u->ctx == NULL && u->top == NULL &&
                 !(u->flags & GOABT_UNIT_USER_STACK));
    void *top = goabt_unit_map_stack(s, u, u->stacksize);
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

