/* engine.c: the work-unit engine's hot paths: unit descriptors and stacks, the scheduler loop,
 * yield, join, termination, stream threads, init and finalize. The design is explained at the
 * top of engine.h; the rules it follows are ../shared/design/engine.md's. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "engine.h"
#include "gocalls.h"
#include "keys.h"

struct goabt_runtime goabt_rt = {
    .thread_stacksize = 16384,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- Per-thread state ------------------------------------------------------------------- */

/* Initial-exec: read at a fixed offset from the thread pointer, not through __tls_get_addr
 * (~2 ns on every self query, key get and yield). The Go runtime in this library already needs
 * static TLS, so this adds no new constraint on loading it. */
static __thread goabt_stream *tls_stream __attribute__((tls_model("initial-exec")));

__attribute__((noinline, noipa)) goabt_stream *goabt_self_stream(void)
{
    return tls_stream;
}

__attribute__((noinline, noipa)) static void set_self_stream(goabt_stream *s)
{
    tls_stream = s;
}

/* ---- The gate ----------------------------------------------------------------------------- */

/* Below the scheduler's saved registers, with room to spare for its red zone. */
#define GATE_MARGIN 256

void goabt_gate(void (*fn)(void *), void *arg)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *u = s ? s->current : NULL;
    if (u != NULL && u->kind == GOABT_ULT && !(u->flags & GOABT_UNIT_MAIN)) {
        goabt_gate_call(fn, arg, (char *)s->sched_ctx - GATE_MARGIN);
    } else {
        fn(arg);
    }
}

/* ---- Futexes: how threads that are not ULTs wait ---------------------------------------- */

static void futex_wait(int *addr, int seen)
{
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake_all(int *addr)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void goabt_wake_idle(void)
{
    /* One wake-up at a time: until a sleeper registers again (and clears wake_pending before it
     * looks for work), the ones already woken will find whatever else was pushed. */
    if (__atomic_exchange_n(&goabt_rt.wake_pending, 1, __ATOMIC_SEQ_CST) != 0) return;
    __atomic_add_fetch(&goabt_rt.wake_epoch, 1, __ATOMIC_SEQ_CST);
    futex_wake_all(&goabt_rt.wake_epoch);
}

/* Whether a scheduler about to sleep has something to do: a queued unit, a join request, or
 * (primary) the main ULT handed back. Pool sizes are read under the pools' locks, the other
 * half of the no-fence handshake with goabt_pool_push (see goabt_pool_sleepers_add): either
 * this look comes after a push's locked section and sees its unit, or it comes before, and
 * that push sees this scheduler registered and wakes it. */
static int stream_has_news(goabt_stream *s)
{
    goabt_sched *sc = s->sched;
    for (int i = 0; i < sc->num_pools; i++) {
        if (goabt_pool_size_locked(sc->pools[i]) > 0) return 1;
    }
    if (__atomic_load_n(&s->request, __ATOMIC_SEQ_CST) & GOABT_REQ_FINISH) return 1;
    return s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_SEQ_CST);
}

/* An idle scheduler spins briefly, then yields the CPU, then sleeps until someone gives work:
 * streams often outnumber cores, and a spinning idle stream would starve the busy ones. The
 * sleep is bounded, so a missed wake-up costs a millisecond, not a hang. */
static void idle_wait(goabt_stream *s, unsigned rounds)
{
    if (rounds < 256) {
        cpu_relax();
        return;
    }
    if (rounds < 320) {
        sched_yield();
        return;
    }
    goabt_sched *sc = s->sched;
    int epoch = __atomic_load_n(&goabt_rt.wake_epoch, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&goabt_rt.sleepers, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < sc->num_pools; i++) {
        goabt_pool_sleepers_add(sc->pools[i], 1);
    }
    __atomic_store_n(&goabt_rt.wake_pending, 0, __ATOMIC_SEQ_CST);
    if (!stream_has_news(s)) {
        struct timespec limit = {0, 1000000};
        syscall(SYS_futex, &goabt_rt.wake_epoch, FUTEX_WAIT_PRIVATE, epoch, &limit, NULL, 0);
    }
    for (int i = 0; i < sc->num_pools; i++) {
        goabt_pool_sleepers_add(sc->pools[i], -1);
    }
    __atomic_sub_fetch(&goabt_rt.sleepers, 1, __ATOMIC_SEQ_CST);
}

/* ---- Unit descriptors and stacks -------------------------------------------------------- */

/* Freed descriptors keep their stack (and key table) and wait in a cache for the next create: a
 * stream's own cache (no lock: only that stream's thread touches it), then a global one, then
 * the Go core (core.Runtime.Units for descriptors, core.Stacks for stacks). Streams and the global
 * cache trade descriptors in batches of CACHE_BATCH, one lock per batch: a stream that forks
 * thousands of units before joining them would otherwise take the global lock for every unit,
 * against the other streams doing the same (2048 live ULTs per stream on 2 streams: 235 ns per
 * create+free instead of 85). */
#define STREAM_CACHE_MAX 512
#define CACHE_BATCH 64
#define GLOBAL_CACHE_MAX 4096

static pthread_mutex_t global_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static goabt_unit *global_batches; /* first units of batches, linked by batch_next */
static int global_cache_count;     /* descriptors in them */

static size_t page_size(void)
{
    static size_t page;
    if (page == 0) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* Gives u's stack back to the Go core (core.Stacks), which keeps it for reuse or unmaps it. */
static void unit_unmap_stack(goabt_unit *u)
{
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

/* Gives the global cache a batch (a free_next list of len descriptors), or destroys it if the
 * cache is full. */
static void global_put_batch(goabt_unit *batch, int len)
{
    batch->batch_len = len;
    pthread_mutex_lock(&global_cache_lock);
    if (global_cache_count + len <= GLOBAL_CACHE_MAX) {
        batch->batch_next = global_batches;
        global_batches = batch;
        global_cache_count += len;
        batch = NULL;
    }
    pthread_mutex_unlock(&global_cache_lock);
    list_destroy(batch);
}

/* Takes a batch from the global cache: its first descriptor (the rest follow by free_next), or
 * NULL. */
static goabt_unit *global_take_batch(void)
{
    pthread_mutex_lock(&global_cache_lock);
    goabt_unit *b = global_batches;
    if (b != NULL) {
        global_batches = b->batch_next;
        global_cache_count -= b->batch_len;
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
    u->magic = 0;
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

/* Empties the global cache into the Go core (at finalize). */
static void global_cache_drain(void)
{
    goabt_unit *b;
    while ((b = global_take_batch()) != NULL) list_destroy(b);
}

/* Gives u a stack of at least size usable bytes below its top, with a guard page under it. The
 * hot path keeps the stack the cached descriptor already has; the slow path, a stack of another
 * size, goes to the Go core (core.Stacks). Returns the stack's top, or NULL.
 *
 * The mapping has one page more than the stack needs, and the top is moved down into it by one
 * of 64 "colours" (cache lines), picked from the descriptor's address. Page-aligned tops would
 * all fall in the same set of the L1 cache: with 32 ULTs per stream on two streams, every
 * create and first run missed it (200 ns per unit instead of 80). */
static void *unit_map_stack(goabt_unit *u, size_t size)
{
    size_t page = page_size();
    size_t usable = size < GOABT_CTX_MIN_STACK ? GOABT_CTX_MIN_STACK : size;
    usable = (usable + page - 1) & ~(page - 1);
    if (u->mapping == NULL || u->mapping_size != usable + 2 * page) {
        unit_unmap_stack(u);
        size_t mapped = 0;
        void *m = goabt_stack_get(usable + page, &mapped);
        if (m == NULL) return NULL;
        u->mapping = m;
        u->mapping_size = mapped;
    }
    size_t colour = ((uintptr_t)u >> 6) & 63;
    void *top = (char *)u->mapping + u->mapping_size - colour * 64;
    /* Report the top `size` bytes, where the ULT actually runs: the mapping may be larger. */
    u->stack = (char *)top - size;
    u->stacksize = size;
    return top;
}

static void ult_entry(void *arg);

int goabt_unit_create(goabt_pool *pool, int kind, void (*func)(void *), void *arg,
                      goabt_attr *attr, int named, goabt_unit **out)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *u = unit_alloc(s);
    if (u == NULL) return ABT_ERR_MEM;
    u->kind = (uint16_t)kind;
    u->flags = (named ? GOABT_UNIT_NAMED : 0) |
               ((attr == NULL || attr->migratable) ? GOABT_UNIT_MIGRATABLE : 0);
    u->state = ABT_THREAD_STATE_READY;
    u->func = func;
    u->arg = arg;
    u->id = 0;
    u->pool = pool;
    u->last_stream = NULL;
    u->joiner = NULL;
    u->external_waiters = 0;
    u->keys = NULL;
    u->next = u->prev = NULL;
    if (kind == GOABT_ULT) {
        void *top;
        if (attr != NULL && attr->stack != NULL) {
            u->flags |= GOABT_UNIT_USER_STACK;
            u->stack = attr->stack;
            u->stacksize = attr->stacksize;
            top = (char *)attr->stack + attr->stacksize;
        } else {
            size_t size = attr != NULL ? attr->stacksize : goabt_rt.thread_stacksize;
            top = unit_map_stack(u, size);
            if (top == NULL) {
                unit_release(s, u);
                return ABT_ERR_MEM;
            }
        }
        u->ctx = goabt_ctx_make(top, ult_entry, u);
    } else {
        u->stack = NULL;
        u->stacksize = 0;
    }
    u->magic = GOABT_MAGIC_UNIT;
    /* Publish the handle before the push: an unnamed unit may run and vanish right after. */
    if (out != NULL) *out = u;
    goabt_pool_push(pool, u);
    return ABT_SUCCESS;
}

void goabt_unit_free(goabt_unit *u)
{
    goabt_keys_destroy(u); /* may run user code: read the stream after it */
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

static void wake_joiner(goabt_unit *w)
{
    __atomic_sub_fetch(&w->pool->num_blocked, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&w->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
    goabt_pool_push(w->pool, w);
}

/* u has finished and no longer runs on its stack. */
static void unit_terminated(goabt_stream *s, goabt_unit *u)
{
    if (!(u->flags & GOABT_UNIT_NAMED)) {
        /* Nobody may join or free an unnamed unit: it is freed now. */
        goabt_keys_destroy(u);
        unit_release(s, u);
        return;
    }
    /* Everything read from u is read before it becomes TERMINATED: from then on its owner may
     * free it. A joining ULT that finds GOABT_JOINER_DONE waits for TERMINATED (handle_pending). */
    goabt_unit *w = __atomic_exchange_n(&u->joiner, GOABT_JOINER_DONE, __ATOMIC_SEQ_CST);
    int sleepers = __atomic_load_n(&u->external_waiters, __ATOMIC_SEQ_CST);
    /* A release store is enough: a sleeper that registered after the load above is the narrow
     * race goabt_unit_join's bounded sleep covers, whatever this store's ordering. */
    __atomic_store_n(&u->state, ABT_THREAD_STATE_TERMINATED, __ATOMIC_RELEASE);
    if (w != NULL && w != GOABT_JOINER_DONE) wake_joiner(w);
    if (sleepers) {
        __atomic_add_fetch(&goabt_rt.join_epoch, 1, __ATOMIC_SEQ_CST);
        futex_wake_all(&goabt_rt.join_epoch);
    }
}

/* Acts on what the unit that just switched back to the scheduler asked for. Runs on the system
 * stack after that unit's context is saved. */
static void handle_pending(goabt_stream *s)
{
    int op = s->pending_op;
    goabt_unit *u = s->pending_unit;
    s->pending_op = GOABT_PENDING_NONE;
    switch (op) {
    case GOABT_PENDING_YIELD:
        __atomic_store_n(&u->state, ABT_THREAD_STATE_READY, __ATOMIC_RELEASE);
        goabt_pool_push(u->pool, u);
        break;
    case GOABT_PENDING_JOIN: {
        goabt_unit *t = s->pending_target;
        goabt_unit *expected = NULL;
        __atomic_store_n(&u->state, ABT_THREAD_STATE_BLOCKED, __ATOMIC_RELEASE);
        __atomic_add_fetch(&u->pool->num_blocked, 1, __ATOMIC_RELEASE);
        if (!__atomic_compare_exchange_n(&t->joiner, &expected, u, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            /* t is terminating: its stream is a few instructions from marking it TERMINATED,
             * and u must not run (and free t) before that. */
            for (unsigned spins = 0;
                 __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != ABT_THREAD_STATE_TERMINATED;
                 spins++) {
                goabt_backoff(spins);
            }
            wake_joiner(u);
        }
        break;
    }
    case GOABT_PENDING_TERMINATE:
        unit_terminated(s, u);
        break;
    default:
        break;
    }
}

__attribute__((noreturn)) static void resume_main(goabt_stream *s)
{
    goabt_unit *m = goabt_rt.main_unit;
    m->last_stream = s;
    __atomic_store_n(&m->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    s->current = m;
    goabt_ctx_jump(m->ctx);
}

static void run_unit(goabt_stream *s, goabt_unit *u)
{
    u->last_stream = s;
    __atomic_store_n(&u->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    s->current = u;
    if (u->kind == GOABT_TASKLET) {
        u->func(u->arg);
        s->current = NULL;
        unit_terminated(s, u);
        return;
    }
    goabt_ctx_switch(&s->sched_ctx, u->ctx);
    s->current = NULL;
    handle_pending(s);
}

/* The scheduler: pops units from the pools in priority order and runs them. On a secondary
 * stream it returns once a join asked it to finish and no work is left; on the primary stream
 * it leaves by resuming the main ULT. */
static void sched_loop(goabt_stream *s)
{
    unsigned idle = 0;
    for (;;) {
        if (s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&s->main_handoff, 0, __ATOMIC_RELAXED);
            resume_main(s);
        }
        goabt_sched *sc = s->sched;
        goabt_unit *u = NULL;
        for (int i = 0; i < sc->num_pools && u == NULL; i++) u = goabt_pool_pop(sc->pools[i]);
        if (u != NULL) {
            idle = 0;
            if (u->flags & GOABT_UNIT_MAIN) {
                /* The main ULT lives on the main thread's stack: only the primary runs it. */
                if (s->is_primary) resume_main(s);
                __atomic_store_n(&goabt_rt.primary->main_handoff, 1, __ATOMIC_SEQ_CST);
                goabt_wake_idle_if_sleeping();
                continue;
            }
            run_unit(s, u);
            continue;
        }
        if ((__atomic_load_n(&s->request, __ATOMIC_ACQUIRE) & GOABT_REQ_FINISH) &&
            !goabt_sched_has_work(sc)) {
            if (!s->is_primary) return;
            /* ABT_finalize parked the main ULT until the primary ran out of work. */
            __atomic_and_fetch(&s->request, ~GOABT_REQ_FINISH, __ATOMIC_RELEASE);
            resume_main(s);
        }
        idle_wait(s, ++idle);
    }
}

/* A scheduler activation on the primary stream, below the suspended main ULT (rule 5). */
__attribute__((noreturn)) static void primary_activation(void *arg)
{
    goabt_stream *s = arg;
    s->current = NULL;
    handle_pending(s);
    sched_loop(s);
    __builtin_unreachable();
}

/* A ULT that resumes acts on what the unit it took over from asked: usually the scheduler has
 * done it already, but after a direct switch (yield_to) nobody else will. */
static void after_resume(void)
{
    goabt_stream *s = goabt_self_stream();
    if (s->pending_op != GOABT_PENDING_NONE) handle_pending(s);
}

/* Gives the processor to the scheduler with s->pending_* already set; returns when the calling
 * ULT runs again (possibly on another stream). */
static void switch_to_scheduler(goabt_stream *s, goabt_unit *self)
{
    if (self->flags & GOABT_UNIT_MAIN) {
        goabt_ctx_switch_below(&self->ctx, primary_activation, s);
    } else {
        goabt_ctx_switch(&self->ctx, s->sched_ctx);
    }
    after_resume();
}

static void ult_entry(void *arg)
{
    goabt_unit *u = arg;
    after_resume();
    u->func(u->arg);
    goabt_unit_exit();
}

/* Yields straight to target, a ready ULT taken out of its pool, without going through the
 * scheduler; the caller goes back to its pool. The main ULT, which has no scheduler below it
 * to come back to, yields the ordinary way. A target that is not queued (running, blocked,
 * finished) leaves the caller running, as in Argobots. */
void goabt_unit_yield_to(goabt_unit *target)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    if ((self->flags & GOABT_UNIT_MAIN) || (target->flags & GOABT_UNIT_MAIN)) {
        goabt_unit_yield();
        return;
    }
    if (!goabt_pool_remove(target->pool, target)) return;
    s->pending_op = GOABT_PENDING_YIELD;
    s->pending_unit = self;
    target->last_stream = s;
    __atomic_store_n(&target->state, ABT_THREAD_STATE_RUNNING, __ATOMIC_RELAXED);
    s->current = target;
    goabt_ctx_switch(&self->ctx, target->ctx);
    after_resume();
}

void goabt_unit_exit(void)
{
    goabt_stream *s = goabt_self_stream();
    s->pending_op = GOABT_PENDING_TERMINATE;
    s->pending_unit = s->current;
    goabt_ctx_jump(s->sched_ctx);
}

void goabt_unit_yield(void)
{
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s->current;
    s->pending_op = GOABT_PENDING_YIELD;
    s->pending_unit = self;
    switch_to_scheduler(s, self);
}

int goabt_unit_join(goabt_unit *t)
{
    if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_TERMINATED) {
        return ABT_SUCCESS;
    }
    goabt_stream *s = goabt_self_stream();
    goabt_unit *self = s != NULL ? s->current : NULL;
    if (self == t) return ABT_ERR_INV_THREAD;
    if (self != NULL && self->kind == GOABT_ULT) {
        s->pending_op = GOABT_PENDING_JOIN;
        s->pending_unit = self;
        s->pending_target = t;
        switch_to_scheduler(s, self);
        return ABT_SUCCESS;
    }
    /* External threads and tasklets cannot suspend: they sleep on the join epoch. The unit may
     * read external_waiters just before this increment and so not bump the epoch; the bounded
     * sleep covers that narrow race. */
    __atomic_add_fetch(&t->external_waiters, 1, __ATOMIC_SEQ_CST);
    for (;;) {
        int epoch = __atomic_load_n(&goabt_rt.join_epoch, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&t->state, __ATOMIC_SEQ_CST) == ABT_THREAD_STATE_TERMINATED) break;
        struct timespec limit = {0, 2000000};
        syscall(SYS_futex, &goabt_rt.join_epoch, FUTEX_WAIT_PRIVATE, epoch, &limit, NULL, 0);
    }
    __atomic_sub_fetch(&t->external_waiters, 1, __ATOMIC_RELEASE);
    return ABT_SUCCESS;
}

/* ---- Streams ------------------------------------------------------------------------------ */

static goabt_stream *all_streams[4096]; /* by slot; rt.lock guards it */

goabt_stream *goabt_stream_new(goabt_sched *sched, int rank)
{
    goabt_stream *s = goabt_alloc_lines(sizeof *s);
    if (s == NULL) return NULL;
    int registered = 0;
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0] && !registered; i++) {
        if (all_streams[i] == NULL) {
            all_streams[i] = s;
            registered = 1;
        }
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    if (!registered) { /* finalize must find every stream: refuse one more than it can */
        free(s);
        return NULL;
    }
    s->rank = rank;
    s->sched = sched;
    sched->used = 1;
    s->state = ABT_XSTREAM_STATE_RUNNING;
    s->magic = GOABT_MAGIC_STREAM;
    __atomic_add_fetch(&goabt_rt.num_streams, 1, __ATOMIC_RELAXED);
    return s;
}

/* The CPU a stream's rank picks: the rank-th allowed CPU, round robin, as Argobots does. */
int goabt_stream_cpu(goabt_stream *s)
{
    int n = CPU_COUNT(&goabt_rt.cpus);
    if (!goabt_rt.affinity || n == 0) return -1;
    int want = s->rank % n;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &goabt_rt.cpus) && seen++ == want) return cpu;
    }
    return -1;
}

/* Binds the stream's thread to its CPU: with two streams per core or fewer, the kernel would
 * otherwise often stack both on one core after a futex wake-up and halve their speed. */
void goabt_stream_bind(goabt_stream *s, pthread_t thread)
{
    int cpu = goabt_stream_cpu(s);
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(thread, sizeof set, &set);
}

static void *stream_thread(void *arg)
{
    goabt_stream *s = arg;
    set_self_stream(s);
    goabt_stream_bind(s, pthread_self());
    sched_loop(s);
    set_self_stream(NULL);
    __atomic_store_n(&s->state, ABT_XSTREAM_STATE_TERMINATED, __ATOMIC_RELEASE);
    futex_wake_all(&s->state);
    return NULL;
}

int goabt_stream_start(goabt_stream *s)
{
    return pthread_create(&s->thread, NULL, stream_thread, s) == 0 ? ABT_SUCCESS : ABT_ERR_SYS;
}

/* Asks s to finish once its pools are empty and waits for its thread to end. A ULT caller
 * yields while it waits, so its own stream keeps running work; others sleep. */
void goabt_stream_join(goabt_stream *s)
{
    __atomic_or_fetch(&s->request, GOABT_REQ_FINISH, __ATOMIC_SEQ_CST);
    goabt_wake_idle_if_sleeping();
    goabt_stream *self_stream = goabt_self_stream();
    goabt_unit *self = self_stream != NULL ? self_stream->current : NULL;
    int st;
    while ((st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE)) != ABT_XSTREAM_STATE_TERMINATED) {
        if (self != NULL && self->kind == GOABT_ULT) {
            goabt_unit_yield();
        } else {
            futex_wait(&s->state, st);
        }
    }
    if (s->thread) {
        pthread_join(s->thread, NULL);
        s->thread = 0;
    }
}

void goabt_stream_delete(goabt_stream *s)
{
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0]; i++) {
        if (all_streams[i] == s) all_streams[i] = NULL;
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    __atomic_sub_fetch(&goabt_rt.num_streams, 1, __ATOMIC_RELAXED);
    goabt_sched *sc = s->sched;
    sc->used = 0;
    if (sc->automatic) goabt_sched_delete(sc);
    /* The stream's cache goes to the global one, in batches, as far as it has room. */
    while (s->free_units != NULL) cache_to_global(s);
    s->magic = 0;
    free(s);
}

/* Streams other than the primary that are still alive, for finalize. */
static goabt_stream *any_secondary_stream(void)
{
    goabt_stream *found = NULL;
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0] && !found; i++) {
        if (all_streams[i] != NULL && !all_streams[i]->is_primary) found = all_streams[i];
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    return found;
}

/* ---- Init and finalize -------------------------------------------------------------------- */

int goabt_engine_init(void)
{
    goabt_rt.next_unit_id = 0;
    goabt_rt.next_pool_id = 0;
    if (goabt_go_runtime_init(sizeof(goabt_unit), &goabt_rt.thread_stacksize,
                              &goabt_rt.max_xstreams, &goabt_rt.affinity) != 0) {
        return ABT_ERR_OTHER;
    }
    if (sched_getaffinity(0, sizeof goabt_rt.cpus, &goabt_rt.cpus) != 0) goabt_rt.affinity = 0;
    pthread_getaffinity_np(pthread_self(), sizeof goabt_rt.main_cpus, &goabt_rt.main_cpus);

    goabt_pool *pool = goabt_pool_new(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, 1);
    if (pool == NULL) return ABT_ERR_MEM;
    goabt_rt.next_pool_id++; /* Argobots numbers the primary's internal root pool 1 */
    goabt_sched *sched = goabt_sched_new(ABT_SCHED_BASIC, 1, &pool, 1);
    goabt_stream *s = sched ? goabt_stream_new(sched, goabt_rank_take(0)) : NULL;
    goabt_unit *m = calloc(1, sizeof *m);
    if (sched == NULL || s == NULL || m == NULL) return ABT_ERR_MEM;
    s->is_primary = 1;
    s->thread = 0; /* never joined */
    m->kind = GOABT_ULT;
    m->flags = GOABT_UNIT_MAIN | GOABT_UNIT_MIGRATABLE;
    m->state = ABT_THREAD_STATE_RUNNING;
    m->pool = pool;
    m->last_stream = s;
    m->magic = GOABT_MAGIC_UNIT;
    goabt_rt.primary = s;
    goabt_rt.main_unit = m;
    s->current = m;
    goabt_stream_bind(s, pthread_self());
    set_self_stream(s);
    return ABT_SUCCESS;
}

void goabt_engine_finalize(void)
{
    goabt_stream *p = goabt_rt.primary;
    /* Run what is left in the primary's pools (and wait for its blocked ULTs): the main ULT
     * parks, out of every pool, until the scheduler finds no work. */
    if (goabt_sched_has_work(p->sched)) {
        __atomic_or_fetch(&p->request, GOABT_REQ_FINISH, __ATOMIC_SEQ_CST);
        p->pending_op = GOABT_PENDING_PARK;
        p->pending_unit = goabt_rt.main_unit;
        switch_to_scheduler(p, goabt_rt.main_unit);
    }
    /* Argobots leaves streams the program did not free undefined; goabt joins and frees them. */
    goabt_stream *s;
    while ((s = any_secondary_stream()) != NULL) {
        goabt_stream_join(s);
        goabt_rank_release(s->rank);
        goabt_stream_delete(s);
    }
    goabt_unit *m = goabt_rt.main_unit;
    goabt_keys_destroy(m); /* the main ULT's values, as Argobots does at finalize */
    goabt_keys_release_spare(m);
    /* From here the main thread is no stream's: the calls into Go below (ranks, caches) must not
     * read the main ULT or the primary stream through the gate once they are freed. */
    set_self_stream(NULL);
    p->current = NULL;
    m->magic = 0;
    free(m);
    /* The primary's scheduler and its pools go, automatic or not, as in Argobots. */
    goabt_sched *sc = p->sched;
    for (int i = 0; i < sc->num_pools; i++) sc->pools[i]->automatic = 1;
    sc->automatic = 1;
    goabt_rank_release(p->rank);
    goabt_stream_delete(p);
    global_cache_drain();
    goabt_rt.primary = NULL;
    goabt_rt.main_unit = NULL;
    /* The program's main thread gets back the CPUs it had before ABT_init. */
    if (goabt_rt.affinity) {
        pthread_setaffinity_np(pthread_self(), sizeof goabt_rt.main_cpus, &goabt_rt.main_cpus);
    }
    goabt_go_runtime_finalize();
}
