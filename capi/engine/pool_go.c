//go:build goabt_c_engine
/* pool_go.c: pools and schedulers written in Go (core.Pool, core.Policy: core/gopools.go), as
 * the engine runs them, and the ways a C program gets them: goabt_pool_create_go and
 * goabt_sched_create_go (include/goabt.h; their entries are api/goabt.c), and the environment
 * (GOABT_POOL, GOABT_SCHED), which makes every pool and scheduler goabt would make predefined a
 * Go one.
 *
 * A Go pool is a kind of pool of its own, goabt_go_pool_ops (pool.h, top): the engine reaches it
 * through its ops, which cross the gate into the Go pool (capi/gopool.go). Its pool units are
 * the work units themselves, so a unit costs the pool no create_unit, free_unit or table entry.
 * The engine counts its units in C (pool->counted): the emptiness checks idle streams make on
 * every round, and a pop from an empty pool, never cross into Go. A push does not cross either:
 * it is kept in the pool's C buffer (struct go_pool), in order with the pusher's rank, and the
 * buffer is handed to the Go pool in one crossing before anything asks the pool something (the
 * next pop, which crosses anyway, a removal, a listing, the free) or when it is full. The Go
 * pool sees the same calls, in the same order, with the same callers; each Push only comes
 * later, and from the thread that hands the buffer over. A successful pop crosses once; for a
 * pool that pops several at once (core.Batcher) once per batch: the crossing takes up to 64
 * units, the popping stream runs the first, and the others wait in the pool's C cache, served in
 * the order the pool gave them to the pool's next pops (by any stream) before Go is asked again.
 * They are still the pool's: counted, found by a removal, listed first.
 *
 * A Go scheduler is goabt's loop (idle sleep, wake-ups, finish and exit requests, the main ULT's
 * hand-over) whose choice of pool is the Go policy's, the kind goabt_sched_go_ops (scheduler.h,
 * top): when some of its pools hold units, the loop asks the policy which to pop (one crossing
 * per unit run; on the system stack, where the gate is a plain call) and pops from it. A
 * scheduler of one pool never asks: there is nothing to choose. A policy that leases its
 * choices (core.Leaser) is asked once per lease: meanwhile the loop pops in its pools' order. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "gocalls.h"
#include "goabt.h"
#include "info_facts.h"
#include "pool.h"
#include "pool_member.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"

/* Pushes a Go pool keeps in C before it hands them over: one crossing per this many pushes at
 * most (a ULT creating a batch of ULTs, a yield's push before the pop that follows it). */
#define GO_PUSH_BATCH 64

/* Units a Go pool that pops several at once (core.Batcher) gives out per crossing at most, and
 * the room its C cache has for them: batches of several streams may be in flight at once. */
#define GO_POP_BATCH 64
#define GO_CACHE_SIZE (4 * GO_POP_BATCH)

/* A batch of pushes not yet handed to the Go pool, oldest first. */
struct go_pushes {
    int n;
    intptr_t ranks[GO_PUSH_BATCH]; /* laid out as core.Caller: Go reads them in place */
    uintptr_t units[GO_PUSH_BATCH];
};

/* A Go pool's kind state (pool.h): its core.Pool id, its pushes not yet in Go and the units of
 * its batches not yet popped. Pushers fill bufs[filling] under lock. Whoever hands pushes over
 * sets delivering, swaps the buffers, and crosses with the one it took after releasing lock;
 * others that would deliver meanwhile wait for delivering to clear, so batches reach Go in the
 * order they were filled. A pop that finds the cache empty reserves room in it for a batch
 * (reserved, without lock) before it crosses, and puts the batch there after, under lock. */
struct go_pool {
    int id;
    int batches;    /* a core.Batcher: pops fill the cache */
    int lock;       /* spinlock: filling, delivering, undelivered, bufs[filling], the cache */
    int filling;    /* the buffer pushes go to; the other is empty or being handed over */
    int delivering; /* someone hands bufs[!filling] over */
    /* Pushes not yet handed to Go, read without lock too: 0, a pop need not deliver. */
    long undelivered;
    struct go_pushes bufs[2];
    /* The units of batches, out of the Go pool and still in this one (counted), next first:
     * cache[(cache_head + i) % GO_CACHE_SIZE] for i < cache_n. cache_n + reserved <=
     * GO_CACHE_SIZE. cache_n is read without lock too: 0, a pop need not look. */
    int cache_head;
    int cache_n;
    int reserved; /* room promised to batches in flight, atomic */
    uintptr_t cache[GO_CACHE_SIZE];
};

static inline struct go_pool *go_state_of(const goabt_pool *p) { return p->kind_state; }
static inline int go_id_of(const goabt_pool *p) { return go_state_of(p)->id; }

/* The rank of the calling stream, or -1 on a thread that is no stream: a Go pool may keep its
 * units by stream (core.Caller). */
static int caller_rank(void)
{
    goabt_stream *s = goabt_self_stream();
    return s != NULL ? s->rank : -1;
}

/* ---- Calls into Go, through the gate ---------------------------------------------------------- */

struct go_call {
    int id;
    int rank;
    uintptr_t unit;
    long result;
    const char *name;
};

/* Hands pushes over, then pops up to max units into out if max > 0. */
struct push_pop_call {
    int id;
    int rank;
    int max;
    struct go_pushes *pushes; /* NULL: none */
    uintptr_t *out;
    int popped;
};

static void push_pop_gated(void *a)
{
    struct push_pop_call *c = a;
    c->popped = 0;
    if (!goabt_go_available()) return;
    if (c->pushes != NULL && c->pushes->n > 0) {
        c->popped = goabt_go.pool_push_pop(c->id, c->pushes->units, c->pushes->ranks,
                                           c->pushes->n, c->rank, c->out, c->max);
    } else if (c->max > 0) {
        c->popped = goabt_go.pool_pop(c->id, c->rank, c->out, c->max);
    }
}

static void remove_gated(void *a)
{
    struct go_call *c = a;
    c->result = goabt_go_available() ? goabt_go.pool_remove(c->id, c->unit) : 0;
}

/* What a Go pool can do beyond push and pop (capi/gopool.go). */
enum { CAP_REMOVE = 1, CAP_LIST = 2, CAP_BATCH = 4 };

static void caps_gated(void *a)
{
    struct go_call *c = a;
    c->result = goabt_go_available() ? goabt_go.pool_caps(c->id) : 0;
}

struct units_call {
    int id;
    int n;
    uintptr_t *out;
    int total;
};

static void units_gated(void *a)
{
    struct units_call *c = a;
    c->total = goabt_go_available() ? goabt_go.pool_units(c->id, c->out, c->n) : -1;
}

static void pool_new_gated(void *a)
{
    struct go_call *c = a;
    c->result = goabt_go_available() ? goabt_go.pool_new(c->name) : 0;
}

static void pool_free_gated(void *a)
{
    struct go_call *c = a;
    c->result = goabt_go_available() ? goabt_go.pool_free(c->id) : 0;
}

static void sched_new_gated(void *a)
{
    struct go_call *c = a;
    c->result = goabt_go_available() ? goabt_go.sched_new(c->name, c->rank) : 0;
}

static void sched_free_gated(void *a)
{
    struct go_call *c = a;
    if (goabt_go_available()) goabt_go.sched_free(c->id);
}

struct pick_call {
    int id;
    int n;
    int rank;
    int result;
    int64_t *sizes;
    int64_t lease[2]; /* units, ns (core.Leaser); 0, 0 unless the policy gives one */
};

static void pick_gated(void *a)
{
    struct pick_call *c = a;
    c->result = goabt_go_available()
                    ? goabt_go.sched_pick(c->id, c->sizes, c->n, c->rank, c->lease)
                    : -1;
}

/* ---- A Go pool's ops ---------------------------------------------------------------------- */

static int go_is_empty(goabt_pool *p) { return __atomic_load_n(&p->counted, __ATOMIC_ACQUIRE) <= 0; }

static size_t go_size(goabt_pool *p)
{
    long n = __atomic_load_n(&p->counted, __ATOMIC_ACQUIRE);
    return n > 0 ? (size_t)n : 0;
}

/* Puts the n units of a batch after those the cache holds (g's lock held). */
static void cache_put(struct go_pool *g, const uintptr_t *units, int n)
{
    GOABT_ASSERT(g->cache_n + n <= GO_CACHE_SIZE);
    for (int i = 0; i < n; i++) {
        g->cache[(g->cache_head + g->cache_n + i) % GO_CACHE_SIZE] = units[i];
    }
    __atomic_store_n(&g->cache_n, g->cache_n + n, __ATOMIC_RELEASE);
}

/* Room in g's cache for a batch of max units besides the first: max if there was, else 1 (no
 * room reserved). cache_n + reserved only grows here, and each reservation is checked with all
 * those before it. */
static int cache_reserve(struct go_pool *g, int max)
{
    int r = __atomic_add_fetch(&g->reserved, max - 1, __ATOMIC_ACQ_REL);
    if (r + __atomic_load_n(&g->cache_n, __ATOMIC_ACQUIRE) <= GO_CACHE_SIZE) return max;
    __atomic_sub_fetch(&g->reserved, max - 1, __ATOMIC_ACQ_REL);
    return 1;
}

/* Puts the units of a batch of up to max besides the first (popped in all) in the cache, if
 * any, then gives back the room reserved for them; locked says g's lock is held. */
static void cache_fill(struct go_pool *g, const uintptr_t *out, int popped, int max, int locked)
{
    if (popped > 1) {
        if (!locked) goabt_spin_lock(&g->lock);
        cache_put(g, out + 1, popped - 1);
        if (!locked) goabt_spin_unlock(&g->lock);
    }
    __atomic_sub_fetch(&g->reserved, max - 1, __ATOMIC_ACQ_REL);
}

/* Takes the next unit of the cache (g's lock held); 0 if none. */
static uintptr_t cache_take_next(struct go_pool *g)
{
    if (g->cache_n == 0) return 0;
    uintptr_t u = g->cache[g->cache_head];
    g->cache_head = (g->cache_head + 1) % GO_CACHE_SIZE;
    __atomic_store_n(&g->cache_n, g->cache_n - 1, __ATOMIC_RELAXED);
    return u;
}

/* Takes u out of the cache, the others keeping their order (g's lock held): 1 if it was there. */
static int cache_take(struct go_pool *g, uintptr_t u)
{
    for (int i = 0; i < g->cache_n; i++) {
        if (g->cache[(g->cache_head + i) % GO_CACHE_SIZE] != u) continue;
        for (int j = i; j < g->cache_n - 1; j++) {
            g->cache[(g->cache_head + j) % GO_CACHE_SIZE] =
                g->cache[(g->cache_head + j + 1) % GO_CACHE_SIZE];
        }
        __atomic_store_n(&g->cache_n, g->cache_n - 1, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

/* Hands g's pushes to the Go pool, in the order they were made, then pops up to max units for
 * rank into out (max 0: none) and returns how many. out[0] is the caller's; when max > 1 (the
 * caller reserved room for max - 1: cache_reserve) the others go to the cache. With
 * undelivered 0, a pop crosses without the lock: every push counted before it was handed over
 * (the count drops after the Go pool has it). */
static int go_deliver(struct go_pool *g, int max, int rank, uintptr_t *out)
{
    struct push_pop_call c = {.id = g->id, .rank = rank, .max = max, .out = out};
    if (__atomic_load_n(&g->undelivered, __ATOMIC_ACQUIRE) == 0) {
        if (max > 0) goabt_gate(push_pop_gated, &c);
        if (max > 1) cache_fill(g, out, c.popped, max, 0);
        return c.popped;
    }
    for (unsigned spins = 0;; spins++) {
        goabt_spin_lock(&g->lock);
        if (!g->delivering) break;
        goabt_spin_unlock(&g->lock);
        goabt_backoff(spins); /* another thread is in Go with the batch before */
    }
    g->delivering = 1;
    c.pushes = &g->bufs[g->filling];
    g->filling ^= 1;
    goabt_spin_unlock(&g->lock);
    goabt_gate(push_pop_gated, &c);
    int n = c.pushes->n;
    c.pushes->n = 0;
    goabt_spin_lock(&g->lock);
    __atomic_store_n(&g->undelivered, g->undelivered - n, __ATOMIC_RELEASE);
    g->delivering = 0;
    if (max > 1) cache_fill(g, out, c.popped, max, 1);
    goabt_spin_unlock(&g->lock);
    return c.popped;
}

static void go_push(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx)
{
    (void)ctx;
    struct go_pool *g = go_state_of(p);
    GOABT_ASSERT(g != NULL && g->id != 0); /* a Go pool's pushes come through its ops */
    goabt_unit_drop_pool_unit(u); /* a user pool's unit it still had (the unit is its own) */
    goabt_pool_member_queued(p, u);
    int rank = caller_rank();
    for (;;) {
        goabt_spin_lock(&g->lock);
        struct go_pushes *b = &g->bufs[g->filling];
        if (b->n < GO_PUSH_BATCH) {
            b->units[b->n] = (uintptr_t)u;
            b->ranks[b->n] = rank;
            b->n++;
            __atomic_store_n(&g->undelivered, g->undelivered + 1, __ATOMIC_RELAXED);
            goabt_spin_unlock(&g->lock);
            break;
        }
        goabt_spin_unlock(&g->lock);
        go_deliver(g, 0, rank, NULL); /* full: hand it over and try again */
    }
    /* Counted after the push is buffered (a pop that sees the count delivers it first, or finds
     * it in Go). Then one caller of go_pop_wait, as pool.c's push wakes one for built-in pools
     * (the count here and the waiter's listing there are each written before the other is
     * read, sequentially consistent: one side sees the other). */
    __atomic_add_fetch(&p->counted, 1, __ATOMIC_SEQ_CST);
    goabt_pool_wake_pop_waiter(p);
    goabt_pool_pushed(p, counted);
}

/* A pop: the cache's next unit, else one crossing that hands the pushes over and pops, a batch
 * when the pool gives them and the cache has room (the first is this pop's, the others go to
 * the cache). */
static goabt_unit *go_pop(goabt_pool *p, ABT_pool_context ctx)
{
    (void)ctx;
    if (__atomic_load_n(&p->counted, __ATOMIC_ACQUIRE) <= 0) return NULL;
    struct go_pool *g = go_state_of(p);
    uintptr_t out[GO_POP_BATCH], unit = 0;
    int max = 1;
    if (g->batches) {
        if (__atomic_load_n(&g->cache_n, __ATOMIC_ACQUIRE) > 0) {
            goabt_spin_lock(&g->lock);
            unit = cache_take_next(g);
            goabt_spin_unlock(&g->lock);
        }
        /* No more than the pool holds: a pool of one unit is popped as by Pop. */
        long held = __atomic_load_n(&p->counted, __ATOMIC_ACQUIRE);
        if (unit == 0 && held > 1) {
            max = cache_reserve(g, held < GO_POP_BATCH ? (int)held : GO_POP_BATCH);
        }
    }
    if (unit == 0 && go_deliver(g, max, caller_rank(), out) > 0) unit = out[0];
    if (unit == 0) return NULL;
    __atomic_sub_fetch(&p->counted, 1, __ATOMIC_ACQ_REL);
    goabt_unit *u = (goabt_unit *)unit;
    goabt_pool_member_dequeued(u);
    return u;
}

/* ABT_pool_pop_wait on a Go pool: pops, waiting as a built-in pool's callers do (a ULT parks,
 * anything else sleeps: goabt_pool_wait_push) until a push or the time is up. */
static goabt_unit *go_pop_wait(goabt_pool *p, double secs, double abstime, ABT_pool_context ctx,
                               int *rc)
{
    (void)rc;
    if (secs < 0) {
        double now = goabt_wtime();
        secs = abstime > now ? abstime - now : 0.0;
    }
    uint64_t deadline = goabt_deadline_after(goabt_now_ns(), secs);
    for (;;) {
        goabt_unit *u = go_pop(p, ctx);
        if (u != NULL) return u;
        if (goabt_now_ns() >= deadline) return NULL;
        goabt_pool_wait_push(p, deadline);
    }
}

/* Pools whose core.Pool can remove (GOABT_POOL_CAN_REMOVE). */
static int go_remove(goabt_pool *p, goabt_unit *u)
{
    if (u->pool != p || !goabt_pool_member_queued_outside(u)) return 0;
    struct go_pool *g = go_state_of(p);
    int found = 0;
    if (g->batches) {
        goabt_spin_lock(&g->lock);
        found = cache_take(g, (uintptr_t)u);
        goabt_spin_unlock(&g->lock);
    }
    if (!found) {
        go_deliver(g, 0, -1, NULL); /* u may be among the pushes still in C */
        struct go_call c = {.id = g->id, .unit = (uintptr_t)u};
        goabt_gate(remove_gated, &c);
        found = c.result == 1;
    }
    /* Not in Go: in a batch on its way to the cache, or popped from it. Until it is one or the
     * other (no batch in flight, or u no longer queued), look in the cache. */
    for (unsigned spins = 0; !found && g->batches; spins++) {
        goabt_spin_lock(&g->lock);
        found = cache_take(g, (uintptr_t)u);
        int in_flight = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE) > 0;
        goabt_spin_unlock(&g->lock);
        if (found || !in_flight || !goabt_pool_member_queued_outside(u)) break;
        goabt_backoff(spins);
    }
    if (!found) return 0;
    __atomic_sub_fetch(&p->counted, 1, __ATOMIC_ACQ_REL);
    goabt_pool_member_dequeued(u);
    return 1;
}

static int go_is_queued(goabt_pool *p, goabt_unit *u)
{
    (void)p;
    return goabt_pool_member_queued_outside(u);
}

/* ABT_pool_print_all on a Go pool that can list its units: a snapshot, then the caller's
 * function on each unit outside Go (it may call goabt). ABT_ERR_POOL when it cannot list. */
static int go_print_all(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                        void (*unit_fn)(void *, ABT_unit))
{
    if (!goabt_pool_can(p, GOABT_POOL_CAN_LIST)) return ABT_ERR_POOL;
    struct go_pool *g = go_state_of(p);
    go_deliver(g, 0, -1, NULL); /* the pushes still in C are the pool's too */
    struct units_call c = {.id = g->id};
    goabt_gate(units_gated, &c); /* how many */
    for (int tries = 0; tries < 8; tries++) {
        /* The cache's units first (they are popped first), then the Go pool's. */
        int room = GO_CACHE_SIZE + (c.total > 0 ? c.total : 0) + 16;
        uintptr_t *all = malloc((size_t)room * sizeof *all);
        if (all == NULL) return ABT_SUCCESS;
        goabt_spin_lock(&g->lock);
        int cached = g->cache_n;
        for (int i = 0; i < cached; i++) all[i] = g->cache[(g->cache_head + i) % GO_CACHE_SIZE];
        goabt_spin_unlock(&g->lock);
        c.out = all + cached;
        c.n = room - cached;
        goabt_gate(units_gated, &c);
        if (c.total < 0) c.total = 0;
        if (c.total <= c.n) {
            for (int i = 0; i < cached + c.total; i++) {
                /* A Go pool's pool unit is the work unit. */
                if (thread_fn != NULL) {
                    thread_fn(arg, (ABT_thread)all[i]);
                } else {
                    unit_fn(arg, (ABT_unit)all[i]);
                }
            }
            free(all);
            return ABT_SUCCESS;
        }
        free(all); /* it grew meanwhile */
    }
    return ABT_SUCCESS;
}

static void go_free(goabt_pool *p)
{
    struct go_pool *g = go_state_of(p);
    GOABT_ASSERT(g != NULL && g->id != 0);
    go_deliver(g, 0, -1, NULL); /* none when counted empty, as the engine frees it */
    struct go_call c = {.id = g->id};
    goabt_gate(pool_free_gated, &c);
    c.result += g->cache_n; /* none either: the cache's units are counted */
    if (c.result != 0) {
        /* The engine counted it empty (it frees no pool with units): the Go pool kept some. */
        fprintf(stderr, "goabt: a Go pool was freed holding %ld units it never gave back\n",
                c.result);
    }
    p->kind_state = NULL;
    free(g);
}

static int go_pool_info_kind(const goabt_pool *p)
{
    (void)p;
    return GOABT_INFO_POOL_GO;
}

/* Its pushes fence (no GOABT_POOL_OPS_ASYM_PUSH): pool.c, pushes_asym. */
const struct goabt_pool_ops goabt_go_pool_ops = {
    .info_kind = go_pool_info_kind,
    .flags = GOABT_POOL_OPS_COUNTED,
    .push = go_push,
    .pop = go_pop,
    .pop_wait = go_pop_wait,
    .remove = go_remove,
    .is_queued = go_is_queued,
    .size = go_size,
    .is_empty = go_is_empty,
    .print_all = go_print_all,
    .free = go_free,
};

int goabt_pool_new_go(const char *name, int access, int automatic, goabt_pool **out)
{
    *out = NULL;
    struct go_call c = {.name = name};
    goabt_gate(pool_new_gated, &c);
    if (c.result == 0) return ABT_ERR_INV_ARG;
    c.id = (int)c.result;
    goabt_gate(caps_gated, &c);
    unsigned caps = GOABT_POOL_CAN_SIZE | ((c.result & CAP_REMOVE) ? GOABT_POOL_CAN_REMOVE : 0) |
                    ((c.result & CAP_LIST) ? GOABT_POOL_CAN_LIST : 0);
    struct go_pool *g = calloc(1, sizeof *g);
    goabt_pool *p = g != NULL ? goabt_pool_new(&goabt_go_pool_ops, caps, -1, access, automatic) : NULL;
    if (p == NULL) {
        free(g);
        goabt_gate(pool_free_gated, &c);
        return ABT_ERR_MEM;
    }
    g->id = c.id;
    g->batches = (c.result & CAP_BATCH) != 0;
    p->kind_state = g;
    *out = p;
    return ABT_SUCCESS;
}

goabt_pool *goabt_pool_new_predef(int kind, int access, int automatic)
{
    if (!goabt_rt.go_pool) return goabt_fifo_new(kind, access, automatic);
    goabt_pool *p;
    goabt_pool_new_go(NULL, access, automatic, &p);
    return p;
}

/* ---- Go schedulers ----------------------------------------------------------------------------- */

static void go_policy_free(int id);
static goabt_unit *go_sched_pick(goabt_stream *s, goabt_sched *sc);

static void go_sched_free(goabt_sched *sc)
{
    go_policy_free(sc->go_policy);
    sc->go_policy = 0;
}

static int go_sched_info_kind(const goabt_sched *sc)
{
    (void)sc;
    return GOABT_INFO_SCHED_GO;
}

/* No GOABT_SCHED_OPS_IN_ORDER: the policy picks, so no hand-over pops for it. */
const struct goabt_sched_ops goabt_sched_go_ops = {
    .info_kind = go_sched_info_kind,
    .pick = go_sched_pick,
    .free = go_sched_free,
};

/* A new Go policy for num_pools pools: the one registered as name (NULL: GOABT_SCHED's); its
 * id, or 0 if there is none. */
static int go_policy_new(const char *name, int num_pools)
{
    struct go_call c = {.name = name, .rank = num_pools};
    goabt_gate(sched_new_gated, &c);
    return (int)c.result;
}

static void go_policy_free(int id)
{
    struct go_call c = {.id = id};
    goabt_gate(sched_free_gated, &c);
}

/* A scheduler over pools that policy (an id of go_policy_new, or 0: none) runs; NULL when out
 * of memory (the policy is then freed). */
static goabt_sched *sched_new(int predef, int num_pools, goabt_pool **pools, int automatic,
                              int policy)
{
    goabt_sched *sc = policy != 0
                          ? goabt_sched_new(&goabt_sched_go_ops, predef, num_pools, pools, automatic)
                          : goabt_sched_new_builtin(predef, num_pools, pools, automatic);
    if (sc == NULL) {
        if (policy != 0) go_policy_free(policy);
        return NULL;
    }
    sc->go_policy = policy;
    return sc;
}

goabt_sched *goabt_sched_new_predef(int predef, int num_pools, goabt_pool **pools, int automatic)
{
    int policy = 0;
    if (goabt_rt.go_sched && (policy = go_policy_new(NULL, num_pools)) == 0) return NULL;
    return sched_new(predef, num_pools, pools, automatic, policy);
}

/* How often a lease's time is looked at: every so many of its units. A clock read costs
 * ~20 ns here, a fifth of a ULT's create, run, join and free on two streams
 * (docs/go-extensions.md, "lease clock"); a lease then ends up to LEASE_CLOCK_EVERY - 1 units
 * after its time. */
#define LEASE_CLOCK_EVERY 8

/* A unit under a lease (core.Leaser), without asking the policy: what the basic scheduler
 * pops, the first unit of the first pool holding one; NULL when none holds one. Once the
 * lease's units or time are spent, it ends (NULL). */
static goabt_unit *go_sched_leased(goabt_stream *s, goabt_sched *sc)
{
    if (sc->lease_left % LEASE_CLOCK_EVERY == 0 && goabt_monotonic_ns() >= sc->lease_until) {
        sc->lease_left = 0;
        return NULL;
    }
    goabt_unit *u = goabt_sched_basic_ops.pick(s, sc);
    if (u != NULL) sc->lease_left--;
    return u;
}

/* The next unit: from the pool the policy picks (asked only when some pool holds units and the
 * scheduler has more than one, and no lease of its stands), else from the first that has one;
 * NULL if none. */
static goabt_unit *go_sched_pick(goabt_stream *s, goabt_sched *sc)
{
    int64_t sizes[GOABT_SCHED_MAX_POOLS];
    int n = sc->num_pools, any = 0;
    GOABT_ASSERT(sc->go_policy != 0 && n > 0 && n <= GOABT_SCHED_MAX_POOLS);
    if (n == 1) return goabt_pool_pop(sc->pools[0]); /* nothing to choose: Go is not asked */
    if (sc->lease_left > 0) {
        goabt_unit *u = go_sched_leased(s, sc);
        if (u != NULL || sc->lease_left > 0) return u;
    }
    for (int i = 0; i < n; i++) {
        sizes[i] = (int64_t)goabt_pool_size(sc->pools[i]);
        any |= sizes[i] > 0;
    }
    if (!any) return NULL;
    struct pick_call c = {sc->go_policy, n, s->rank, -1, sizes, {0, 0}};
    goabt_gate(pick_gated, &c);
    goabt_unit *u = NULL;
    if (c.result >= 0 && c.result < n) {
        u = goabt_pool_pop(sc->pools[c.result]);
        if (u != NULL && c.lease[0] > 0 && c.lease[1] > 0) {
            sc->lease_left = c.lease[0] > INT_MAX ? INT_MAX : (int)c.lease[0];
            sc->lease_until = goabt_monotonic_ns() + (uint64_t)c.lease[1];
        }
    }
    return u != NULL ? u : goabt_sched_basic_ops.pick(s, sc);
}

int goabt_sched_new_go(const char *name, int num_pools, goabt_pool **list, int automatic,
                       goabt_sched **out)
{
    int policy = go_policy_new(name, num_pools);
    if (policy == 0) return ABT_ERR_INV_ARG;
    int given[GOABT_SCHED_MAX_POOLS]; /* the program's pools stay when out of memory */
    for (int i = 0; i < num_pools; i++) given[i] = list[i] != NULL;
    int made = 0;
    goabt_sched *sc = NULL;
    for (; made < num_pools; made++) {
        if (list[made] != NULL) continue;
        list[made] = goabt_pool_new_predef(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, 1);
        if (list[made] == NULL) break;
    }
    if (made == num_pools) sc = sched_new(ABT_SCHED_BASIC, num_pools, list, automatic, policy);
    if (sc == NULL) { /* out of memory: the pools made here go again, the program's stay */
        for (int j = 0; j < made; j++) {
            if (!given[j]) goabt_pool_delete(list[j]);
        }
        if (made < num_pools) go_policy_free(policy); /* else sched_new freed it */
        return ABT_ERR_MEM;
    }
    *out = sc;
    return ABT_SUCCESS;
}
