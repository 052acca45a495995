//go:build goabt_c_engine
/* pool_user.c: user-defined pools, the kind goabt_user_pool_ops (pool.h, top): made by
 * ABT_pool_create from an ABT_pool_user_def (made with the ABT_pool_user_def_* functions) or from
 * the older struct ABT_pool_def (those entries, pool configurations and pool data:
 * api/pool_user.c), and their pool units.
 *
 * A user pool holds pool units (ABT_unit) that its create_unit function makes for work units:
 * goabt asks for one the first time a unit goes into the pool, keeps it in the unit descriptor
 * (pool_unit, pool_unit_of) for every later push (yield, wake-up), and gives it back with
 * free_unit when the unit is freed or moves to another pool. A table maps pool units back to
 * work units, for ABT_unit_get_thread and the functions that take a pool unit, as Argobots does.
 * The engine reaches a user pool only through its ops (goabt_user_pool_ops, below), which pool.c
 * calls; the sleepers of idle streams, parked counts and forwarding stay in pool.c.
 *
 * Both kinds of definitions are copied into the pool, so the program may free or change its
 * definition afterwards. They are told apart by their first int: an ABT_pool_user_def made here
 * starts with GOABT_USER_DEF_TAG, which is no ABT_pool_access, where an ABT_pool_def has its access. */
#include <stdlib.h>
#include <string.h>
#include "handles.h"
#include "object.h"
#include "info_facts.h"
#include "pool.h"
#include "pool_member.h"
#include "runtime.h"
#include "unit.h"
#include "wait.h"

/* ---- Pool units back to work units ---------------------------------------------------------- */

/* Open addressing over pool unit handles, in stripes of their own lock and table: a user pool
 * pays one spinlock round per unit and pool to record its unit (create_unit) and one to drop it
 * (free_unit), none per push or pop. A unit's stripe is picked by the page its handle lies on:
 * the units a stream makes come from its own allocator's pages (malloc gives each thread an
 * arena), so streams making and freeing units at once work in stripes of their own, where
 * striping by the whole address had every stream write every stripe (docs/performance.md,
 * "user pool stripes").
 * Linear probing with backward-shift deletion: no tombstones, so a table that sees units come
 * and go keeps its size and never needs a rebuild to shed them. */
#define MAP_STRIPES 256
static struct map_stripe {
    _Alignas(64) int lock;
    size_t cap, used; /* cap: 0 or a power of two */
    struct map_slot {
        ABT_unit key; /* NULL: empty */
        goabt_unit *unit;
    } *slots;
} map[MAP_STRIPES];

static size_t map_hash(ABT_unit k)
{
    uint64_t x = (uint64_t)(uintptr_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static struct map_stripe *map_stripe_of(ABT_unit k)
{
    return &map[map_hash((ABT_unit)((uintptr_t)k >> 12)) & (MAP_STRIPES - 1)];
}

/* Where key's probe starts in a table of cap slots (h: its map_hash). */
static size_t map_home(size_t h, size_t cap) { return h & (cap - 1); }

/* Doubles the stripe's table (at least 16 slots); its lock is held. */
static int map_grow(struct map_stripe *st)
{
    GOABT_ASSERT_LOCKED(&st->lock);
    size_t cap = st->cap ? 2 * st->cap : 16;
    struct map_slot *fresh = calloc(cap, sizeof *fresh);
    if (fresh == NULL) return 0;
    for (size_t i = 0; i < st->cap; i++) {
        if (st->slots[i].key == NULL) continue;
        size_t j = map_home(map_hash(st->slots[i].key), cap);
        while (fresh[j].key != NULL) j = (j + 1) & (cap - 1);
        fresh[j] = st->slots[i];
    }
    free(st->slots);
    st->slots = fresh;
    st->cap = cap;
    return 1;
}

static int map_put(ABT_unit key, goabt_unit *u)
{
    size_t h = map_hash(key);
    struct map_stripe *st = map_stripe_of(key);
    goabt_spin_lock(&st->lock);
    int ok = 1;
    GOABT_ASSERT(key != NULL);
    if (2 * (st->used + 1) > st->cap) ok = map_grow(st);
    if (ok) {
        size_t j = map_home(h, st->cap);
        while (st->slots[j].key != NULL && st->slots[j].key != key) j = (j + 1) & (st->cap - 1);
        /* A pool unit maps to one work unit: it is dropped (map_del) before it is freed. */
        GOABT_ASSERT_MSG(st->slots[j].key == NULL || st->slots[j].unit == u,
                         "pool unit %p already maps to another work unit", (void *)key);
        if (st->slots[j].key == NULL) st->used++;
        st->slots[j].key = key;
        st->slots[j].unit = u;
        GOABT_ASSERT(2 * st->used <= st->cap);
    }
    goabt_spin_unlock(&st->lock);
    return ok;
}

/* The slot index of key in st, or -1; st's lock is held. */
static long map_find_locked(struct map_stripe *st, ABT_unit key, size_t h)
{
    GOABT_ASSERT_LOCKED(&st->lock);
    if (st->cap == 0) return -1;
    for (size_t j = map_home(h, st->cap); st->slots[j].key != NULL; j = (j + 1) & (st->cap - 1)) {
        if (st->slots[j].key == key) return (long)j;
    }
    return -1;
}

static goabt_unit *map_get(ABT_unit key)
{
    size_t h = map_hash(key);
    struct map_stripe *st = map_stripe_of(key);
    goabt_spin_lock(&st->lock);
    long j = map_find_locked(st, key, h);
    goabt_unit *u = j >= 0 ? st->slots[j].unit : NULL;
    goabt_spin_unlock(&st->lock);
    return u;
}

static void map_del(ABT_unit key)
{
    size_t h = map_hash(key);
    struct map_stripe *st = map_stripe_of(key);
    goabt_spin_lock(&st->lock);
    long found = map_find_locked(st, key, h);
    if (found >= 0) {
        /* Backward shift: later entries of the run that may live at the hole move into it. */
        size_t mask = st->cap - 1, hole = (size_t)found, j = hole;
        for (;;) {
            j = (j + 1) & mask;
            if (st->slots[j].key == NULL) break;
            size_t home = map_home(map_hash(st->slots[j].key), st->cap);
            /* The entry at j stays if its home lies cyclically in (hole, j]. */
            int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!stays) {
                st->slots[hole] = st->slots[j];
                hole = j;
            }
        }
        st->slots[hole].key = NULL;
        st->slots[hole].unit = NULL;
        GOABT_ASSERT(st->used > 0);
        st->used--;
    }
    goabt_spin_unlock(&st->lock);
}

goabt_unit *goabt_unit_of_pool_unit(ABT_unit unit)
{
    if ((uintptr_t)unit < 4096) return NULL; /* ABT_UNIT_NULL and the other null handles */
    if (goabt_forked()) return NULL;          /* before the map's locks (runtime.h) */
    goabt_unit *u = map_get(unit);
    if (u != NULL) return u;
    return goabt_unit_of((ABT_thread)unit); /* a built-in pool's unit is the work unit */
}

/* ---- Pool units ------------------------------------------------------------------------------ */

static ABT_unit user_create_unit(goabt_pool *p, goabt_unit *u)
{
    struct goabt_pool_user *pu = p->kind_state;
    if (!pu->old_style) return pu->def.create_unit(p, u);
    if (u->kind == GOABT_TASKLET && pu->old.u_create_from_task != NULL) {
        return pu->old.u_create_from_task(u);
    }
    return pu->old.u_create_from_thread(u);
}

/* Whether p, whose memory may have been freed and reused since, is the live pool of that
 * serial. */
static int pool_is(goabt_pool *p, uint32_t serial)
{
    return __atomic_load_n(&p->magic, __ATOMIC_ACQUIRE) == goabt_runtime_magic(GOABT_MAGIC_POOL) &&
           __atomic_load_n(&p->serial, __ATOMIC_RELAXED) == serial;
}

void goabt_unit_drop_user_unit(goabt_unit *u)
{
    goabt_pool *p = u->pool_unit_of;
    ABT_unit unit = u->pool_unit;
    GOABT_ASSERT(p != NULL && unit != NULL);
    /* Dropped when the unit is freed or moves to another pool: not while that pool holds it. */
    GOABT_ASSERT_MSG(!__atomic_load_n(&u->user_queued, __ATOMIC_RELAXED),
                     "a pool unit dropped while its pool holds it");
    u->pool_unit_of = NULL;
    u->pool_unit = NULL;
    if (unit != (ABT_unit)u) map_del(unit);
    /* Only while the pool is still there: once it is freed its own free took its units. Its
     * memory stays readable (object.h) but may hold another object by now: a pool's magic
     * (published after its serial) and the serial noted with the unit say it is the same pool.
     * No count of a pool's units: two locked instructions per unit, ~15% of a ULT's cost in a
     * user pool. */
    if (!pool_is(p, u->pool_unit_serial)) return;
    struct goabt_pool_user *pu = __atomic_load_n(&p->kind_state, __ATOMIC_ACQUIRE);
    if (pu == NULL) return;
    if (pu->old_style) {
        pu->old.u_free(&unit);
    } else {
        pu->def.free_unit(p, unit);
    }
}

/* Makes sure u has a pool unit of p (its ops' associate): ABT_ERR_MEM if create_unit gave none. */
static int user_associate(goabt_pool *p, goabt_unit *u)
{
    if (u->pool_unit_of == p) return ABT_SUCCESS;
    goabt_unit_drop_pool_unit(u);
    ABT_unit unit = user_create_unit(p, u);
    if (unit == ABT_UNIT_NULL || unit == NULL) return ABT_ERR_MEM;
    /* A pool whose units are the work units' own handles needs no entry: a handle that is in
     * no entry is taken for a work unit's (goabt_unit_of_pool_unit). */
    if (unit != (ABT_unit)u && !map_put(unit, u)) {
        struct goabt_pool_user *pu = p->kind_state;
        if (pu->old_style) {
            pu->old.u_free(&unit);
        } else {
            pu->def.free_unit(p, unit);
        }
        return ABT_ERR_MEM;
    }
    u->pool_unit = unit;
    u->pool_unit_of = p;
    GOABT_ASSERT_MSG(__atomic_load_n(&p->magic, __ATOMIC_RELAXED) ==
                         goabt_runtime_magic(GOABT_MAGIC_POOL),
                     "a unit associated with a freed pool");
    u->pool_unit_serial = p->serial;
    return ABT_SUCCESS;
}

/* ---- The engine's side of a user pool ---------------------------------------------------------- */

/* The user's push runs without our lock; then what the engine owes (goabt_pool_pushed). */
static void user_push(goabt_pool *p, goabt_unit *u, goabt_pool *counted, ABT_pool_context ctx)
{
    if (user_associate(p, u) != ABT_SUCCESS) {
        /* A unit that was made for this pool already has its pool unit (goabt_unit_create,
         * ABT_pool_push*): only an engine push of a unit from elsewhere lands here. */
        goabt_die("a user-defined pool's create_unit returned no unit for a ready work unit");
    }
    struct goabt_pool_user *pu = p->kind_state;
    GOABT_ASSERT(u->pool_unit != NULL && u->pool_unit_of == p); /* user_associate gave it */
    goabt_pool_member_queued(p, u);
    if (pu->old_style) {
        pu->old.p_push(p, u->pool_unit);
    } else {
        pu->def.push(p, u->pool_unit, ctx);
    }
    goabt_pool_pushed(p, counted);
}

/* The work unit of a unit an old-style pool's pop returned. */
static goabt_unit *old_unit_to_work_unit(struct goabt_pool_user *pu, ABT_unit unit)
{
    goabt_unit *u = map_get(unit);
    if (u != NULL) return u;
    if (pu->old.u_get_thread != NULL) return goabt_unit_of(pu->old.u_get_thread(unit));
    return goabt_unit_of((ABT_thread)unit); /* its units are the work units' handles */
}

/* Whether a new-style pop or pop_wait answered "empty": ABT_THREAD_NULL, or (pools written
 * against early drafts of this interface, whose pop returned a pool unit) ABT_UNIT_NULL. */
static int popped_nothing(ABT_thread t)
{
    return t == ABT_THREAD_NULL || t == NULL || (ABT_unit)t == ABT_UNIT_NULL;
}

static goabt_unit *user_pop(goabt_pool *p, ABT_pool_context ctx)
{
    struct goabt_pool_user *pu = p->kind_state;
    goabt_unit *u;
    if (pu->old_style) {
        ABT_unit unit = pu->old.p_pop(p);
        if (unit == ABT_UNIT_NULL || unit == NULL) return NULL;
        u = old_unit_to_work_unit(pu, unit);
    } else {
        ABT_thread t = pu->def.pop(p, ctx);
        if (popped_nothing(t)) return NULL;
        u = goabt_unit_of(t);
    }
    if (u == NULL) goabt_die("a user-defined pool's pop returned something that is not a work unit");
    goabt_pool_member_dequeued(u);
    return u;
}

/* Older definitions only (p_remove): GOABT_POOL_CAN_REMOVE says which. */
static int user_remove(goabt_pool *p, goabt_unit *u)
{
    struct goabt_pool_user *pu = p->kind_state;
    if (u->pool_unit_of != p || !goabt_pool_member_queued_outside(u)) return 0;
    if (pu->old.p_remove(p, u->pool_unit) != ABT_SUCCESS) return 0;
    goabt_pool_member_dequeued(u);
    return 1;
}

static int user_is_queued(goabt_pool *p, goabt_unit *u)
{
    (void)p;
    return goabt_pool_member_queued_outside(u);
}

/* Whether the pool can tell its size (else only emptiness). */
static int has_size(struct goabt_pool_user *pu)
{
    return pu->old_style ? pu->old.p_get_size != NULL : pu->def.get_size != NULL;
}

static size_t user_size(goabt_pool *p)
{
    struct goabt_pool_user *pu = p->kind_state;
    if (pu->old_style) return pu->old.p_get_size(p);
    if (pu->def.get_size != NULL) return pu->def.get_size(p);
    return pu->def.is_empty(p) ? 0 : 1;
}

/* Calls the user's free, and drops the copy of the definition (none when ABT_pool_create's init
 * failed: the pool was never initialized). */
static void user_free(goabt_pool *p)
{
    struct goabt_pool_user *pu = p->kind_state;
    if (pu == NULL) return;
    if (pu->old_style) {
        if (pu->old.p_free != NULL) pu->old.p_free(p);
    } else if (pu->def.free != NULL) {
        pu->def.free(p);
    }
    p->kind_state = NULL;
    free(pu);
}

goabt_pool_user_def *goabt_pool_user_def_new(ABT_pool_user_create_unit_fn create_unit,
                                             ABT_pool_user_free_unit_fn free_unit,
                                             ABT_pool_user_is_empty_fn is_empty,
                                             ABT_pool_user_pop_fn pop, ABT_pool_user_push_fn push)
{
    goabt_pool_user_def *d = goabt_mem_new(sizeof *d);
    if (d == NULL) return NULL;
    d->tag = GOABT_USER_DEF_TAG;
    d->magic = GOABT_MAGIC_POOL_USER_DEF;
    d->create_unit = create_unit;
    d->free_unit = free_unit;
    d->is_empty = is_empty;
    d->pop = pop;
    d->push = push;
    return d;
}

goabt_pool *goabt_user_pool_new(struct goabt_pool_user *pu, int access, int automatic)
{
    unsigned caps = has_size(pu) ? GOABT_POOL_CAN_SIZE : 0;
    if (pu->old_style && pu->old.p_remove != NULL) caps |= GOABT_POOL_CAN_REMOVE;
    if (pu->old_style ? pu->old.p_print_all != NULL : pu->def.print_all != NULL) {
        caps |= GOABT_POOL_CAN_LIST;
    }
    goabt_pool *p = goabt_pool_new(&goabt_user_pool_ops, caps, -1, access, automatic);
    if (p != NULL) p->kind_state = pu;
    return p;
}

/* A definition's pop_wait gets secs, an older one's p_pop_timedwait gets abstime
 * (ABT_get_wtime's clock), each as the caller gave it, the other worked out from it. */
static goabt_unit *user_pop_wait(goabt_pool *p, double secs, double abstime, ABT_pool_context ctx,
                                 int *rc)
{
    struct goabt_pool_user *pu = p->kind_state;
    goabt_unit *u = NULL;
    if (!pu->old_style && pu->def.pop_wait != NULL) {
        if (secs < 0) {
            double now = goabt_wtime();
            secs = abstime > now ? abstime - now : 0.0;
        }
        ABT_thread t = pu->def.pop_wait(p, secs, ctx);
        if (!popped_nothing(t)) u = goabt_unit_of(t);
    } else if (pu->old_style && pu->old.p_pop_timedwait != NULL) {
        if (abstime < 0) abstime = goabt_wtime() + secs;
        ABT_unit unit = pu->old.p_pop_timedwait(p, abstime);
        if (unit != ABT_UNIT_NULL && unit != NULL) u = old_unit_to_work_unit(pu, unit);
    } else {
        *rc = ABT_ERR_POOL;
        return NULL;
    }
    if (u != NULL) goabt_pool_member_dequeued(u);
    return u;
}

static int user_push_many(goabt_pool *p, goabt_unit **units, size_t n, ABT_pool_context ctx)
{
    struct goabt_pool_user *pu = p->kind_state;
    if (pu->old_style || pu->def.push_many == NULL) return 0;
    ABT_unit *handles = malloc((n ? n : 1) * sizeof *handles);
    if (handles == NULL) return 0;
    for (size_t i = 0; i < n; i++) {
        GOABT_ASSERT(units[i]->pool_unit_of == p); /* its membership of p: push_many's caller */
        handles[i] = units[i]->pool_unit;
        goabt_pool_member_queued(p, units[i]);
    }
    pu->def.push_many(p, handles, n, ctx);
    free(handles);
    goabt_pool_wake_sleeper(p);
    return 1;
}

static int user_pop_many(goabt_pool *p, goabt_unit **units, size_t len, size_t *num,
                         ABT_pool_context ctx)
{
    struct goabt_pool_user *pu = p->kind_state;
    if (pu->old_style || pu->def.pop_many == NULL) return 0;
    size_t n = 0;
    pu->def.pop_many(p, (ABT_thread *)units, len, &n, ctx);
    if (n > len) goabt_die("a user-defined pool's pop_many returned more units than asked for");
    for (size_t i = 0; i < n; i++) {
        goabt_unit *u = goabt_unit_of(units[i]);
        if (u == NULL) goabt_die("a user-defined pool's pop_many returned something that is not a work unit");
        goabt_pool_member_dequeued(u);
    }
    *num = n;
    return 1;
}

/* print_all of a user pool: new definitions print work units, older ones pool units; the
 * caller's function gets what it asked for. */
struct print_adapter {
    void *arg;
    void (*thread_fn)(void *, ABT_thread);
    void (*unit_fn)(void *, ABT_unit);
};

static void print_thread_as_asked(void *arg, ABT_thread t)
{
    struct print_adapter *a = arg;
    goabt_unit *u = goabt_unit_of(t);
    if (a->thread_fn != NULL) {
        a->thread_fn(a->arg, t);
    } else if (u != NULL) {
        a->unit_fn(a->arg, u->pool_unit);
    }
}

static void print_unit_as_asked(void *arg, ABT_unit unit)
{
    struct print_adapter *a = arg;
    if (a->unit_fn != NULL) {
        a->unit_fn(a->arg, unit);
    } else {
        goabt_unit *u = goabt_unit_of_pool_unit(unit);
        if (u != NULL) a->thread_fn(a->arg, u);
    }
}

static int user_print_all(goabt_pool *p, void *arg, void (*thread_fn)(void *, ABT_thread),
                          void (*unit_fn)(void *, ABT_unit))
{
    struct goabt_pool_user *pu = p->kind_state;
    if (!pu->old_style && unit_fn == NULL) { /* its own print_all gets the caller's, as they are */
        if (pu->def.print_all == NULL) return ABT_ERR_POOL;
        pu->def.print_all(p, arg, thread_fn);
        return ABT_SUCCESS;
    }
    struct print_adapter a = {arg, thread_fn, unit_fn};
    if (!pu->old_style && pu->def.print_all != NULL) {
        pu->def.print_all(p, &a, print_thread_as_asked);
        return ABT_SUCCESS;
    }
    if (pu->old_style && pu->old.p_print_all != NULL) {
        return pu->old.p_print_all(p, &a, print_unit_as_asked);
    }
    return ABT_ERR_POOL;
}

/* Its is_empty (a definition), or its size (older ones). */
static int user_is_empty(goabt_pool *p)
{
    struct goabt_pool_user *pu = p->kind_state;
    if (!pu->old_style) return pu->def.is_empty(p) ? 1 : 0;
    return pu->old.p_get_size(p) == 0;
}

static int user_info_kind(const goabt_pool *p)
{
    (void)p;
    return GOABT_INFO_POOL_USER;
}

const struct goabt_pool_ops goabt_user_pool_ops = {
    .info_kind = user_info_kind,
    .push = user_push,
    .pop = user_pop,
    .pop_wait = user_pop_wait,
    .remove = user_remove,
    .is_queued = user_is_queued,
    .size = user_size,
    .is_empty = user_is_empty,
    .push_many = user_push_many,
    .pop_many = user_pop_many,
    .print_all = user_print_all,
    .associate = user_associate,
    .free = user_free,
    .flags = GOABT_POOL_OPS_ASYM_PUSH,
};
