//go:build goabt_c_engine
/* pool_go.c: pools and schedulers written in Go (core.Pool, core.Policy: core/gopools.go), as
 * the engine runs them, and the ways a C program gets them: goabt_pool_create_go and
 * goabt_sched_create_go (include/goabt.h; their entries are api/goabt.c), and the environment
 * (GOABT_POOL, GOABT_SCHED), which makes every pool and scheduler goabt would make predefined a
 * Go one.
 *
 * A Go pool is a user pool of goabt's own (pool_user.c, goabt_own_pool_new): the engine reaches
 * it through the user-pool path of pool.c, whose functions here cross the gate into the Go pool
 * (capi/gopool.go). Its pool units are the work units themselves, so a unit costs the pool no
 * create_unit, free_unit or table entry. The engine counts its units in C (pool->go_size): the
 * emptiness checks idle streams make on every round, and a pop from an empty pool, never cross
 * into Go; a push and a successful pop cross once each.
 *
 * A Go scheduler is a predefined scheduler (goabt's loop: idle sleep, wake-ups, finish and exit
 * requests, the main ULT's hand-over) whose choice of pool is the Go policy's: when some of its
 * pools hold units, the loop asks the policy which to pop (one crossing per unit run; on the
 * system stack, where the gate is a plain call) and pops from it. A scheduler of one pool never
 * asks: there is nothing to choose. */
#include <stdio.h>
#include <time.h>
#include "gocalls.h"
#include "goabt.h"
#include "leaks.h"
#include "pool.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "unit.h"
#include "wait.h"

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

static void push_gated(void *a)
{
    struct go_call *c = a;
    if (goabt_go_available()) goabt_go.pool_push(c->id, c->unit, c->rank);
}

static void pop_gated(void *a)
{
    struct go_call *c = a;
    c->unit = goabt_go_available() ? goabt_go.pool_pop(c->id, c->rank) : 0;
}

static void remove_gated(void *a)
{
    struct go_call *c = a;
    c->result = goabt_go_available() ? goabt_go.pool_remove(c->id, c->unit) : 0;
}

/* What a Go pool can do beyond push and pop (capi/gopool.go). */
enum { CAP_REMOVE = 1, CAP_LIST = 2 };

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
};

static void pick_gated(void *a)
{
    struct pick_call *c = a;
    c->result = goabt_go_available() ? goabt_go.sched_pick(c->id, c->sizes, c->n, c->rank) : -1;
}

/* ---- A Go pool's functions (an ABT_pool_user_def of goabt's own) ------------------------------ */

static ABT_unit go_create_unit(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    return (ABT_unit)thread; /* not called: a Go pool's units are the work units */
}

static void go_free_unit(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    (void)unit;
}

static ABT_bool go_is_empty(ABT_pool pool)
{
    goabt_pool *p = pool;
    return __atomic_load_n(&p->go_size, __ATOMIC_ACQUIRE) <= 0 ? ABT_TRUE : ABT_FALSE;
}

static size_t go_get_size(ABT_pool pool)
{
    goabt_pool *p = pool;
    long n = __atomic_load_n(&p->go_size, __ATOMIC_ACQUIRE);
    return n > 0 ? (size_t)n : 0;
}

static void go_push(ABT_pool pool, ABT_unit unit, ABT_pool_context ctx)
{
    (void)ctx;
    goabt_pool *p = pool;
    /* A Go pool's units are the work units, pushed through user_push (pool.c). */
    GOABT_ASSERT(p->go_id != 0 && ((goabt_unit *)unit)->pool == p);
    struct go_call c = {.id = p->go_id, .rank = caller_rank(), .unit = (uintptr_t)unit};
    goabt_gate(push_gated, &c);
    /* Counted after the push: a pop that sees the count finds the unit. Then the waiters of
     * go_pop_wait, as pool.c's push does for built-in pools (the count and pop_waiters are
     * each written before the other is read, sequentially consistent: one side sees the
     * other). */
    __atomic_add_fetch(&p->go_size, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&p->pop_waiters, __ATOMIC_SEQ_CST) != 0) {
        __atomic_add_fetch(&p->pushers, 1, __ATOMIC_ACQ_REL); /* p is not freed meanwhile */
        pthread_mutex_lock(&p->wait_mutex);
        pthread_cond_signal(&p->wait_cond);
        pthread_mutex_unlock(&p->wait_mutex);
        __atomic_sub_fetch(&p->pushers, 1, __ATOMIC_RELEASE);
    }
}

static ABT_thread go_pop(ABT_pool pool, ABT_pool_context ctx)
{
    (void)ctx;
    goabt_pool *p = pool;
    if (__atomic_load_n(&p->go_size, __ATOMIC_ACQUIRE) <= 0) return ABT_THREAD_NULL;
    struct go_call c = {.id = p->go_id, .rank = caller_rank()};
    goabt_gate(pop_gated, &c);
    if (c.unit == 0) return ABT_THREAD_NULL;
    GOABT_ASSERT_MSG(__atomic_load_n(&((goabt_unit *)c.unit)->user_queued, __ATOMIC_RELAXED),
                     "a Go pool popped a unit it was not given");
    __atomic_sub_fetch(&p->go_size, 1, __ATOMIC_ACQ_REL);
    return (ABT_thread)c.unit;
}

/* ABT_pool_pop_wait on a Go pool: pops, sleeping on the pool's condition variable until a push
 * or the time is up. */
static ABT_thread go_pop_wait(ABT_pool pool, double time_secs, ABT_pool_context ctx)
{
    goabt_pool *p = pool;
    uint64_t deadline = goabt_now_ns() + (time_secs > 0 ? (uint64_t)(time_secs * 1e9) : 0);
    for (;;) {
        ABT_thread t = go_pop(pool, ctx);
        if (t != ABT_THREAD_NULL) return t;
        if (goabt_now_ns() >= deadline) return ABT_THREAD_NULL;
        pthread_mutex_lock(&p->wait_mutex);
        __atomic_add_fetch(&p->pop_waiters, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&p->go_size, __ATOMIC_SEQ_CST) <= 0) {
            struct timespec until = {(time_t)(deadline / 1000000000ull),
                                     (long)(deadline % 1000000000ull)};
            pthread_cond_timedwait(&p->wait_cond, &p->wait_mutex, &until);
        }
        __atomic_sub_fetch(&p->pop_waiters, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&p->wait_mutex);
    }
}

static int go_remove(ABT_pool pool, ABT_unit unit)
{
    goabt_pool *p = pool;
    struct go_call c = {.id = p->go_id, .unit = (uintptr_t)unit};
    goabt_gate(remove_gated, &c);
    if (c.result != 1) return ABT_ERR_INV_UNIT;
    __atomic_sub_fetch(&p->go_size, 1, __ATOMIC_ACQ_REL);
    return ABT_SUCCESS;
}

/* ABT_pool_print_all on a Go pool that can list its units: a snapshot, then print_fn on each
 * unit outside Go (it may call goabt). */
static void go_print_all(ABT_pool pool, void *arg, void (*print_fn)(void *, ABT_thread))
{
    goabt_pool *p = pool;
    struct units_call c = {.id = p->go_id};
    goabt_gate(units_gated, &c); /* how many */
    for (int tries = 0; c.total > 0 && tries < 8; tries++) {
        int room = c.total + 16;
        uintptr_t *all = malloc((size_t)room * sizeof *all);
        if (all == NULL) return;
        c.out = all;
        c.n = room;
        goabt_gate(units_gated, &c);
        if (c.total <= room) {
            for (int i = 0; i < c.total; i++) print_fn(arg, (ABT_thread)all[i]);
            free(all);
            return;
        }
        free(all); /* it grew meanwhile */
    }
}

static void go_free(ABT_pool pool)
{
    goabt_pool *p = pool;
    GOABT_ASSERT(p->go_id != 0);
    struct go_call c = {.id = p->go_id};
    goabt_gate(pool_free_gated, &c);
    if (c.result != 0) {
        /* The engine counted it empty (it frees no pool with units): the Go pool kept some. */
        fprintf(stderr, "goabt: a Go pool was freed holding %ld units it never gave back\n",
                c.result);
    }
    p->go_id = 0;
}

/* The definitions Go pools share, made once: one for pools that can list their units (with
 * print_all), one for those that cannot. */
static pthread_once_t def_once = PTHREAD_ONCE_INIT;
static ABT_pool_user_def go_def = ABT_POOL_USER_DEF_NULL, go_def_list = ABT_POOL_USER_DEF_NULL;

static ABT_pool_user_def make_def(int list)
{
    ABT_pool_user_def def;
    if (ABT_pool_user_def_create(go_create_unit, go_free_unit, go_is_empty, go_pop, go_push,
                                 &def) != ABT_SUCCESS) {
        return ABT_POOL_USER_DEF_NULL;
    }
    GOABT_LEAK_FORGET(def); /* goabt's own, kept for good: not the program's to free */
    ABT_pool_user_def_set_free(def, go_free);
    ABT_pool_user_def_set_get_size(def, go_get_size);
    ABT_pool_user_def_set_pop_wait(def, go_pop_wait);
    if (list) ABT_pool_user_def_set_print_all(def, go_print_all);
    return def;
}

static void make_defs(void)
{
    go_def = make_def(0);
    go_def_list = make_def(1);
}

int goabt_pool_new_go(const char *name, int access, int automatic, goabt_pool **out)
{
    *out = NULL;
    pthread_once(&def_once, make_defs);
    if (go_def == ABT_POOL_USER_DEF_NULL || go_def_list == ABT_POOL_USER_DEF_NULL) return ABT_ERR_MEM;
    struct go_call c = {.name = name};
    goabt_gate(pool_new_gated, &c);
    if (c.result == 0) return ABT_ERR_INV_ARG;
    c.id = (int)c.result;
    goabt_gate(caps_gated, &c);
    goabt_pool *p = goabt_own_pool_new((c.result & CAP_LIST) ? go_def_list : go_def,
                                       (c.result & CAP_REMOVE) ? go_remove : NULL, access, automatic);
    if (p == NULL) {
        goabt_gate(pool_free_gated, &c);
        return ABT_ERR_MEM;
    }
    p->go_id = c.id;
    *out = p;
    return ABT_SUCCESS;
}

goabt_pool *goabt_pool_new_predef(int kind, int access, int automatic)
{
    if (!goabt_rt.go_pool) return goabt_pool_new(kind, access, automatic);
    goabt_pool *p;
    goabt_pool_new_go(NULL, access, automatic, &p);
    return p;
}

/* ---- Go schedulers ----------------------------------------------------------------------------- */

static void go_policy_free(int id);

static int go_sched_free(ABT_sched sched)
{
    goabt_sched *sc = sched;
    go_policy_free(sc->go_policy);
    sc->go_policy = 0;
    return ABT_SUCCESS;
}

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
    goabt_sched *sc = goabt_sched_new(predef, num_pools, pools, automatic);
    if (sc == NULL) {
        if (policy != 0) go_policy_free(policy);
        return NULL;
    }
    if (policy != 0) {
        sc->go_policy = policy;
        sc->def.free = go_sched_free; /* goabt_sched_delete calls it for any is_user scheduler */
        sc->is_user = 1;
    }
    return sc;
}

goabt_sched *goabt_sched_new_predef(int predef, int num_pools, goabt_pool **pools, int automatic)
{
    int policy = 0;
    if (goabt_rt.go_sched && (policy = go_policy_new(NULL, num_pools)) == 0) return NULL;
    return sched_new(predef, num_pools, pools, automatic, policy);
}

goabt_unit *goabt_go_sched_pop(goabt_stream *s, goabt_sched *sc)
{
    int64_t sizes[GOABT_SCHED_MAX_POOLS];
    int n = sc->num_pools, any = 0;
    GOABT_ASSERT(sc->go_policy != 0 && n > 0 && n <= GOABT_SCHED_MAX_POOLS);
    if (n == 1) return goabt_pool_pop(sc->pools[0]); /* nothing to choose: Go is not asked */
    for (int i = 0; i < n; i++) {
        sizes[i] = (int64_t)goabt_pool_size(sc->pools[i]);
        any |= sizes[i] > 0;
    }
    if (!any) return NULL;
    struct pick_call c = {sc->go_policy, n, s->rank, -1, sizes};
    goabt_gate(pick_gated, &c);
    goabt_unit *u = NULL;
    if (c.result >= 0 && c.result < n) u = goabt_pool_pop(sc->pools[c.result]);
    for (int i = 0; i < n && u == NULL; i++) u = goabt_pool_pop(sc->pools[i]);
    return u;
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
