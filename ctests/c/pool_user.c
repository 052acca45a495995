/* User-defined pools (ABT_pool_create, ABT_pool_user_def_*, ABT_pool_config_*) and work units
 * moved by hand (ABT_pool_push, pop and remove, the push_thread and pop_thread families,
 * pop_wait, print_all, ABT_unit_get_thread, ABT_unit_set_associated_pool), against Argobots 1.2's
 * documented semantics:
 *  - a FIFO and a LIFO pool written against ABT_pool_user_def (a mutex and a list each), shared
 *    by 4 streams (the primary's main ULT creates, 3 streams with the basic scheduler run): 10,000
 *    ULTs, each yielding once (so it goes back through push), and 2,000 tasklets; the sum of
 *    their indices is exact, create_unit ran once per unit and free_unit as often once all are
 *    freed, init and free once per pool;
 *  - the same with a FIFO written the older way, a struct ABT_pool_def (units made by
 *    u_create_from_thread / u_create_from_task, freed by u_free, p_remove used by
 *    ABT_pool_remove);
 *  - by hand, on a built-in pool no scheduler serves and on the user pools: ULTs created into it
 *    wait there; get_size, print_all_threads and print_all see them; pop_thread / pop take them
 *    out (ABT_unit_get_thread maps a pool unit back), push_thread / push put them into a served
 *    pool where they run; pushing a unit that is still queued or running, or giving it another
 *    associated pool, is refused; remove;
 *    pop_threads and push_threads; pop_wait on an empty pool returns nothing after its time, and
 *    a unit pushed by another thread meanwhile;
 *  - a pool whose units are the threads' own handles (create_unit returns the handle):
 *    ABT_unit_get_thread and ABT_pool_pop / push of such units;
 *  - the contexts a user pool's push and pop are told: creation, yield, wake-up, a push by
 *    hand with the caller's context, the owner's pops and a RANDWS scheduler's thefts;
 *  - a stream idle over a user pool (a list pool, and a handle pool) wakes on every push from
 *    another stream, 200 times with the stream asleep before each;
 *  - what the pool's own functions are handed, as the caller gave it: ABT_pool_is_empty calls
 *    is_empty, pop_wait gets the seconds asked for, print_all the caller's argument and
 *    function (print_all_threads); a pop answering ABT_UNIT_NULL is an empty pool; the caller
 *    of ABT_thread_revive_to is pushed back with ABT_POOL_CONTEXT_OP_THREAD_REVIVE_TO; a
 *    finished unit's pool unit goes back when the unit is freed; ABT_self_get_unit gives a
 *    ULT's pool unit, as ABT_thread_get_unit; the pop, called by a scheduler, gets answers
 *    from the self queries (the scheduler as a ULT);
 *  - a unit freed after its pool gives its pool unit to nobody, also once a new pool sits in
 *    the freed pool's memory;
 *  - bad input: NULL or invalid definitions and configs, a definition missing a function,
 *    init failing, the optional functions a pool lacks (ABT_ERR_POOL), freed handles.
 * Every wait is bounded. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
// ctest-timeout: 180
/* (A hang catcher: its streams idle between rounds, and on a machine whose CPUs are all taken
 * (a load of 17 on 2 cores, seen) the rounds took 52 s of the default 60.) */

#define NSTREAMS 4
#define NULTS 10000
#define NTASKS 2000

/* ---- A list-based pool: FIFO or LIFO, new-style or old-style ------------------------------ */

typedef struct unit {
    ABT_thread thread;
    ABT_unit_type type;
    struct unit *next, *prev;
    int in_pool;
} unit_t;

typedef struct {
    pthread_mutex_t lock;
    unit_t *head, *tail;
    size_t size;
    int lifo;
} list_pool_t;

static int n_create, n_free_unit, n_init, n_free_pool, n_push_many, n_pop_many;
/* Pools made where a freed pool was, until one got its memory (main). */
static ABT_pool reused[4];
static int reused_pools;

static unit_t *new_unit(ABT_thread thread, ABT_unit_type type)
{
    unit_t *u = calloc(1, sizeof *u);
    u->thread = thread;
    u->type = type;
    __atomic_add_fetch(&n_create, 1, __ATOMIC_RELAXED);
    return u;
}

static void delete_unit(unit_t *u)
{
    __atomic_add_fetch(&n_free_unit, 1, __ATOMIC_RELAXED);
    free(u);
}

static list_pool_t *data_of(ABT_pool pool)
{
    void *d = NULL;
    ABT_pool_get_data(pool, &d);
    return d;
}

static void list_push(list_pool_t *l, unit_t *u)
{
    pthread_mutex_lock(&l->lock);
    u->next = NULL;
    u->prev = l->tail;
    if (l->tail) l->tail->next = u; else l->head = u;
    l->tail = u;
    u->in_pool = 1;
    l->size++;
    pthread_mutex_unlock(&l->lock);
}

static void list_unlink(list_pool_t *l, unit_t *u)
{
    if (u->prev) u->prev->next = u->next; else l->head = u->next;
    if (u->next) u->next->prev = u->prev; else l->tail = u->prev;
    u->next = u->prev = NULL;
    u->in_pool = 0;
    l->size--;
}

static unit_t *list_pop(list_pool_t *l)
{
    pthread_mutex_lock(&l->lock);
    unit_t *u = l->lifo ? l->tail : l->head;
    if (u) list_unlink(l, u);
    pthread_mutex_unlock(&l->lock);
    return u;
}

static int pool_init_fn(ABT_pool pool, ABT_pool_config config)
{
    list_pool_t *l = calloc(1, sizeof *l);
    pthread_mutex_init(&l->lock, NULL);
    int lifo = 0;
    if (config != ABT_POOL_CONFIG_NULL) ABT_pool_config_get(config, 1, NULL, &lifo);
    l->lifo = lifo;
    __atomic_add_fetch(&n_init, 1, __ATOMIC_RELAXED);
    return ABT_pool_set_data(pool, l);
}

static void pool_free_fn(ABT_pool pool)
{
    list_pool_t *l = data_of(pool);
    pthread_mutex_destroy(&l->lock);
    free(l);
    __atomic_add_fetch(&n_free_pool, 1, __ATOMIC_RELAXED);
}

/* New-style functions. */
static ABT_unit new_create_unit(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    return (ABT_unit)new_unit(thread, ABT_UNIT_TYPE_THREAD);
}
static void new_free_unit(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    delete_unit((unit_t *)unit);
}
static ABT_bool new_is_empty(ABT_pool pool)
{
    return __atomic_load_n(&data_of(pool)->size, __ATOMIC_ACQUIRE) == 0 ? ABT_TRUE : ABT_FALSE;
}
static size_t new_get_size(ABT_pool pool) { return __atomic_load_n(&data_of(pool)->size, __ATOMIC_ACQUIRE); }
/* The contexts the new-style functions were given (or'ed), for contexts_seen. */
static ABT_pool_context push_seen, pop_seen;
/* Pops whose caller, on a stream, got no answer from ABT_self_get_type, and those answered so
 * by a scheduler (the scheduler as a ULT: as in Argobots, a ULT). */
static int pop_self_bad, pop_by_sched;
static ABT_thread new_pop(ABT_pool pool, ABT_pool_context ctx)
{
    int rank = -1;
    ABT_unit_type type = ABT_UNIT_TYPE_EXT;
    if (ABT_xstream_self_rank(&rank) == ABT_SUCCESS) {
        if (ABT_self_get_type(&type) != ABT_SUCCESS || type == ABT_UNIT_TYPE_EXT) {
            __atomic_add_fetch(&pop_self_bad, 1, __ATOMIC_RELAXED);
        }
        ABT_pool last = ABT_POOL_NULL;
        if (ctx & ABT_POOL_CONTEXT_OWNER_PRIMARY && ABT_self_get_last_pool(&last) == ABT_SUCCESS &&
            last == ABT_POOL_NULL) {
            __atomic_add_fetch(&pop_by_sched, 1, __ATOMIC_RELAXED);
        }
    }
    unit_t *u = list_pop(data_of(pool));
    if (u) __atomic_or_fetch(&pop_seen, ctx, __ATOMIC_RELAXED);
    return u ? u->thread : ABT_THREAD_NULL;
}
static void new_push(ABT_pool pool, ABT_unit unit, ABT_pool_context ctx)
{
    __atomic_or_fetch(&push_seen, ctx, __ATOMIC_RELAXED);
    (void)ctx;
    list_push(data_of(pool), (unit_t *)unit);
}
static void new_push_many(ABT_pool pool, const ABT_unit *units, size_t n, ABT_pool_context ctx)
{
    __atomic_add_fetch(&n_push_many, 1, __ATOMIC_RELAXED);
    for (size_t i = 0; i < n; i++) new_push(pool, units[i], ctx);
}
static void new_pop_many(ABT_pool pool, ABT_thread *threads, size_t len, size_t *num,
                         ABT_pool_context ctx)
{
    __atomic_add_fetch(&n_pop_many, 1, __ATOMIC_RELAXED);
    size_t n = 0;
    while (n < len && (threads[n] = new_pop(pool, ctx)) != ABT_THREAD_NULL) n++;
    *num = n;
}
static void new_print_all(ABT_pool pool, void *arg, void (*fn)(void *, ABT_thread))
{
    list_pool_t *l = data_of(pool);
    pthread_mutex_lock(&l->lock);
    for (unit_t *u = l->head; u; u = u->next) fn(arg, u->thread);
    pthread_mutex_unlock(&l->lock);
}

/* Old-style functions. */
static ABT_unit_type old_get_type(ABT_unit unit) { return ((unit_t *)unit)->type; }
static ABT_thread old_get_thread(ABT_unit unit) { return ((unit_t *)unit)->thread; }
static ABT_task old_get_task(ABT_unit unit) { return ((unit_t *)unit)->thread; }
static ABT_bool old_is_in_pool(ABT_unit unit) { return ((unit_t *)unit)->in_pool ? ABT_TRUE : ABT_FALSE; }
static ABT_unit old_from_thread(ABT_thread t) { return (ABT_unit)new_unit(t, ABT_UNIT_TYPE_THREAD); }
static ABT_unit old_from_task(ABT_task t) { return (ABT_unit)new_unit(t, ABT_UNIT_TYPE_TASK); }
static void old_free(ABT_unit *unit) { delete_unit((unit_t *)*unit); *unit = ABT_UNIT_NULL; }
static size_t old_get_size(ABT_pool pool) { return new_get_size(pool); }
static void old_push(ABT_pool pool, ABT_unit unit) { list_push(data_of(pool), (unit_t *)unit); }
static ABT_unit old_pop(ABT_pool pool)
{
    unit_t *u = list_pop(data_of(pool));
    return u ? (ABT_unit)u : ABT_UNIT_NULL;
}
static int old_remove(ABT_pool pool, ABT_unit unit)
{
    list_pool_t *l = data_of(pool);
    unit_t *u = (unit_t *)unit;
    pthread_mutex_lock(&l->lock);
    int rc = ABT_ERR_POOL;
    if (u->in_pool) {
        list_unlink(l, u);
        rc = ABT_SUCCESS;
    }
    pthread_mutex_unlock(&l->lock);
    return rc;
}
static int old_free_pool(ABT_pool pool) { pool_free_fn(pool); return ABT_SUCCESS; }
static int old_print_all(ABT_pool pool, void *arg, void (*fn)(void *, ABT_unit))
{
    list_pool_t *l = data_of(pool);
    pthread_mutex_lock(&l->lock);
    for (unit_t *u = l->head; u; u = u->next) fn(arg, (ABT_unit)u);
    pthread_mutex_unlock(&l->lock);
    return ABT_SUCCESS;
}

static ABT_pool_user_def make_new_def(void)
{
    ABT_pool_user_def def;
    CHECK_INT(ABT_pool_user_def_create(new_create_unit, new_free_unit, new_is_empty, new_pop,
                                       new_push, &def), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_init(def, pool_init_fn), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_free(def, pool_free_fn), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_get_size(def, new_get_size), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_push_many(def, new_push_many), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_pop_many(def, new_pop_many), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_print_all(def, new_print_all), ABT_SUCCESS);
    return def;
}

static ABT_pool_def old_def = {
    .access = ABT_POOL_ACCESS_MPMC,
    .u_get_type = old_get_type,
    .u_get_thread = old_get_thread,
    .u_get_task = old_get_task,
    .u_is_in_pool = old_is_in_pool,
    .u_create_from_thread = old_from_thread,
    .u_create_from_task = old_from_task,
    .u_free = old_free,
    .p_init = pool_init_fn,
    .p_get_size = old_get_size,
    .p_push = old_push,
    .p_pop = old_pop,
    .p_remove = old_remove,
    .p_free = old_free_pool,
    .p_print_all = old_print_all,
};

/* ---- Many units through a shared user pool ------------------------------------------------- */

static uint64_t sum;
static int ran;

static void ult_body(void *arg)
{
    ABT_thread_yield(); /* back through the pool's push */
    __atomic_add_fetch(&sum, (uint64_t)(uintptr_t)arg, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

static void task_body(void *arg)
{
    __atomic_add_fetch(&sum, (uint64_t)(uintptr_t)arg, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

static ABT_thread units[NULTS + NTASKS];

/* Runs NULTS ULTs and NTASKS tasklets through pool on 3 more streams. */
static void drive(const char *what, ABT_pool pool)
{
    sum = 0;
    ran = 0;
    int created0 = n_create, freed0 = n_free_unit;
    ABT_xstream xs[NSTREAMS - 1];
    for (int i = 0; i < NSTREAMS - 1; i++) {
        CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &pool, ABT_SCHED_CONFIG_NULL, &xs[i]),
                  ABT_SUCCESS);
    }
    int errors = 0;
    uint64_t want = 0;
    for (int i = 0; i < NULTS; i++) {
        errors += ABT_thread_create(pool, ult_body, (void *)(uintptr_t)(i + 1), ABT_THREAD_ATTR_NULL,
                                    &units[i]) != ABT_SUCCESS;
        want += (uint64_t)(i + 1);
    }
    for (int i = 0; i < NTASKS; i++) {
        errors += ABT_task_create(pool, task_body, (void *)(uintptr_t)(i + 7), &units[NULTS + i]) !=
                  ABT_SUCCESS;
        want += (uint64_t)(i + 7);
    }
    CHECK_INT(errors, 0);
    for (int i = 0; i < NULTS + NTASKS; i++) {
        errors += (i < NULTS ? ABT_thread_free(&units[i]) : ABT_task_free(&units[i])) != ABT_SUCCESS;
    }
    CHECK_INT(errors, 0);
    printf("%s: %d units ran\n", what, ran);
    CHECK_INT(ran, NULTS + NTASKS);
    CHECK(sum == want);
    CHECK_INT(n_create - created0, NULTS + NTASKS);
    CHECK_INT(n_free_unit - freed0, NULTS + NTASKS);
    for (int i = 0; i < NSTREAMS - 1; i++) {
        CHECK_INT(ABT_xstream_join(xs[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    }
}

/* ---- By hand ------------------------------------------------------------------------------- */

static int visited;
static void count_thread(void *arg, ABT_thread t) { (void)arg; visited += t != ABT_THREAD_NULL; }
static void count_unit(void *arg, ABT_unit u) { (void)arg; visited += u != ABT_UNIT_NULL; }

static int hand_ran;
static void hand_body(void *arg) { (void)arg; __atomic_add_fetch(&hand_ran, 1, __ATOMIC_RELAXED); }

struct pusher {
    ABT_pool pool;
    ABT_thread thread;
};
static void *push_later(void *arg)
{
    struct pusher *p = arg;
    CHECK(wait_idle_streams(p->pool, 1)); /* the main ULT blocks in the pool's pop_wait */
    CHECK_INT(ABT_pool_push_thread(p->pool, p->thread), ABT_SUCCESS);
    return NULL;
}

/* pool: no scheduler serves it; served: the primary's main pool. can_remove: pool has p_remove
 * (built-in and old-style pools). */
static void by_hand(const char *what, ABT_pool pool, ABT_pool served, int can_remove)
{
    printf("-- by hand: %s\n", what);
    enum { N = 8 };
    ABT_thread t[N];
    hand_ran = 0;
    for (int i = 0; i < N; i++) {
        CHECK_INT(ABT_thread_create(pool, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t[i]), ABT_SUCCESS);
    }
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(pool, &size), ABT_SUCCESS);
    CHECK_INT(size, N);
    ABT_bool empty = ABT_TRUE;
    CHECK_INT(ABT_pool_is_empty(pool, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_FALSE);
    visited = 0;
    CHECK_INT(ABT_pool_print_all_threads(pool, NULL, count_thread), ABT_SUCCESS);
    CHECK_INT(visited, N);
    visited = 0;
    CHECK_INT(ABT_pool_print_all(pool, NULL, count_unit), ABT_SUCCESS);
    CHECK_INT(visited, N);

    /* A queued unit cannot be pushed again, nor given another pool (its pool unit, which pool
     * holds, stays); a unit's pool unit maps back to it. */
    CHECK_INT(ABT_pool_push_thread(served, t[0]), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_set_associated_pool(t[0], served), ABT_ERR_THREAD);
    ABT_unit unit = ABT_UNIT_NULL;
    ABT_thread back = ABT_THREAD_NULL;
    CHECK_INT(ABT_thread_get_unit(t[1], &unit), ABT_SUCCESS);
    CHECK_INT(ABT_unit_get_thread(unit, &back), ABT_SUCCESS);
    CHECK(back == t[1]);
    if (can_remove) {
        CHECK_INT(ABT_pool_remove(pool, unit), ABT_SUCCESS);
        CHECK_INT(ABT_pool_remove(pool, unit), ABT_ERR_INV_UNIT); /* not there any more */
        CHECK_INT(ABT_pool_push(served, unit), ABT_SUCCESS);  /* runs on the primary */
    } else {
        CHECK_INT(ABT_pool_remove(pool, unit), ABT_ERR_POOL);
    }

    /* pop_thread / pop, then push into the served pool, where they run. */
    int moved = can_remove ? 1 : 0, errors = 0;
    ABT_thread got = ABT_THREAD_NULL;
    CHECK_INT(ABT_pool_pop_thread(pool, &got), ABT_SUCCESS);
    CHECK(got != ABT_THREAD_NULL);
    CHECK_INT(ABT_pool_push_thread(served, got), ABT_SUCCESS);
    moved++;
    ABT_unit u = ABT_UNIT_NULL;
    CHECK_INT(ABT_pool_pop(pool, &u), ABT_SUCCESS);
    CHECK(u != ABT_UNIT_NULL);
    CHECK_INT(ABT_unit_get_thread(u, &got), ABT_SUCCESS);
    CHECK_INT(ABT_pool_push_thread(served, got), ABT_SUCCESS);
    moved++;
    ABT_thread some[N];
    size_t num = 0;
    CHECK_INT(ABT_pool_pop_threads(pool, some, 2, &num), ABT_SUCCESS);
    CHECK_INT(num, 2);
    CHECK_INT(ABT_pool_push_threads(served, some, num), ABT_SUCCESS);
    moved += (int)num;
    while (ABT_pool_pop_thread(pool, &got) == ABT_SUCCESS && got != ABT_THREAD_NULL) {
        errors += ABT_pool_push_thread(served, got) != ABT_SUCCESS;
        moved++;
    }
    CHECK_INT(errors, 0);
    CHECK_INT(moved, N);
    CHECK_INT(ABT_pool_get_size(pool, &size), ABT_SUCCESS);
    CHECK_INT(size, 0);
    for (int i = 0; i < N; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
    CHECK_INT(hand_ran, N);

    /* A running unit (the main ULT) and NULL. */
    ABT_thread self;
    CHECK_INT(ABT_self_get_thread(&self), ABT_SUCCESS);
    CHECK_INT(ABT_pool_push_thread(pool, self), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_pool_push_thread(pool, ABT_THREAD_NULL), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(pool, &got), ABT_SUCCESS);
    CHECK(got == ABT_THREAD_NULL);
}

/* pop_wait on a built-in pool: nothing after its time, then a unit another thread pushes. */
static void pop_wait(ABT_pool pool, ABT_pool served)
{
    ABT_thread got = ABT_THREAD_NULL;
    double t0 = ABT_get_wtime();
    CHECK_INT(ABT_pool_pop_wait_thread(pool, &got, 0.05), ABT_SUCCESS);
    CHECK(got == ABT_THREAD_NULL);
    CHECK(ABT_get_wtime() - t0 >= 0.04);
    ABT_thread t;
    hand_ran = 0;
    CHECK_INT(ABT_thread_create(pool, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    ABT_thread popped = ABT_THREAD_NULL;
    CHECK_INT(ABT_pool_pop_thread(pool, &popped), ABT_SUCCESS);
    CHECK(popped == t);
    struct pusher p = {pool, t};
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, push_later, &p), 0);
    CHECK_INT(ABT_pool_pop_wait_thread(pool, &got, 10.0), ABT_SUCCESS);
    CHECK(got == t);
    CHECK_INT(pthread_join(th, NULL), 0);
    ABT_unit u = ABT_UNIT_NULL;
    CHECK_INT(ABT_pool_pop_wait(pool, &u, 0.01), ABT_SUCCESS);
    CHECK(u == ABT_UNIT_NULL);
    CHECK_INT(ABT_pool_push_thread(served, got), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(hand_ran, 1);
}

/* ---- Bad input ----------------------------------------------------------------------------- */

static int failing_init(ABT_pool pool, ABT_pool_config config)
{
    (void)pool;
    (void)config;
    return ABT_ERR_SYS;
}

/* ---- What the pool's functions are handed --------------------------------------------------- */

static int given_is_empty_calls, given_pop_unit_null;
static double given_wait_secs;
static void *given_print_arg;
static void (*given_print_fn)(void *, ABT_thread);

static ABT_bool given_is_empty(ABT_pool pool)
{
    given_is_empty_calls++;
    return new_is_empty(pool);
}
static ABT_thread given_pop(ABT_pool pool, ABT_pool_context ctx)
{
    if (given_pop_unit_null) return (ABT_thread)ABT_UNIT_NULL; /* an early draft's empty */
    return new_pop(pool, ctx);
}
static ABT_thread given_pop_wait(ABT_pool pool, double secs, ABT_pool_context ctx)
{
    given_wait_secs = secs;
    return new_pop(pool, ctx);
}
static void given_print_all(ABT_pool pool, void *arg, void (*fn)(void *, ABT_thread))
{
    (void)pool;
    given_print_arg = arg;
    given_print_fn = fn;
}
static void print_nothing(void *arg, ABT_thread t) { (void)arg, (void)t; }

static int self_unit_differs = -1, revived_unit_freed_early = -1;

static void reviver(void *arg)
{
    ABT_pool pool = arg;
    ABT_thread t, me;
    ABT_unit mine = ABT_UNIT_NULL, as_thread = ABT_UNIT_NULL;
    ABT_thread_self(&me);
    ABT_self_get_unit(&mine);
    ABT_thread_get_unit(me, &as_thread);
    self_unit_differs = mine != as_thread || mine == (ABT_unit)me; /* this pool makes its own */
    if (ABT_thread_create(pool, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t) != ABT_SUCCESS) return;
    ABT_thread_join(t);
    int freed = n_free_unit;
    push_seen = 0;
    ABT_thread_revive_to(pool, hand_body, NULL, &t); /* runs t, this ULT goes back to pool */
    ABT_thread_join(t);
    revived_unit_freed_early = n_free_unit != freed; /* its pool unit goes with its free */
    ABT_thread_free(&t);
}

static void calls_as_given(void)
{
    ABT_pool_user_def def;
    CHECK_INT(ABT_pool_user_def_create(new_create_unit, new_free_unit, given_is_empty, given_pop,
                                       new_push, &def),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_init(def, pool_init_fn), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_free(def, pool_free_fn), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_pop_wait(def, given_pop_wait), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_print_all(def, given_print_all), ABT_SUCCESS);
    ABT_pool pool;
    CHECK_INT(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_SUCCESS);

    ABT_bool empty = ABT_FALSE;
    CHECK_INT(ABT_pool_is_empty(pool, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_TRUE);
    CHECK_INT(given_is_empty_calls, 1);

    ABT_unit unit = (ABT_unit)&unit;
    CHECK_INT(ABT_pool_pop_wait(pool, &unit, 0.25), ABT_SUCCESS);
    CHECK(unit == ABT_UNIT_NULL);
    CHECK(given_wait_secs == 0.25);
    ABT_thread t = (ABT_thread)&t;
    CHECK_INT(ABT_pool_pop_wait_thread(pool, &t, 0.5), ABT_SUCCESS);
    CHECK(t == ABT_THREAD_NULL);
    CHECK(given_wait_secs == 0.5);

    int marker;
    CHECK_INT(ABT_pool_print_all_threads(pool, &marker, print_nothing), ABT_SUCCESS);
    CHECK(given_print_arg == &marker);
    CHECK(given_print_fn == print_nothing);

    given_pop_unit_null = 1;
    unit = (ABT_unit)&unit;
    CHECK_INT(ABT_pool_pop(pool, &unit), ABT_SUCCESS);
    CHECK(unit == ABT_UNIT_NULL);
    t = (ABT_thread)&t;
    CHECK_INT(ABT_pool_pop_thread(pool, &t), ABT_SUCCESS);
    CHECK(t == ABT_THREAD_NULL);
    given_pop_unit_null = 0;

    /* revive_to, from a ULT of this pool on a stream of its own. */
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &pool, ABT_SCHED_CONFIG_NULL, &xs),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool, reviver, pool, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK(push_seen & ABT_POOL_CONTEXT_OP_THREAD_REVIVE_TO);
    CHECK_INT(self_unit_differs, 0); /* ABT_self_get_unit gives the pool's unit, as get_unit */
    CHECK_INT(revived_unit_freed_early, 0);
    CHECK(!(push_seen & ABT_POOL_CONTEXT_OP_THREAD_CREATE_TO));
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&pool), ABT_SUCCESS);
}

static void bad_input(void)
{
    ABT_pool pool = ABT_POOL_NULL;
    ABT_pool_user_def def = ABT_POOL_USER_DEF_NULL;
    CHECK_INT(ABT_pool_user_def_create(NULL, new_free_unit, new_is_empty, new_pop, new_push, &def),
              ABT_ERR_INV_ARG);
    CHECK(def == ABT_POOL_USER_DEF_NULL);
    CHECK_INT(ABT_pool_user_def_create(new_create_unit, new_free_unit, new_is_empty, new_pop,
                                       new_push, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_pool_create(NULL, ABT_POOL_CONFIG_NULL, &pool), ABT_ERR_INV_POOL_USER_DEF);
    CHECK_INT(ABT_pool_create(ABT_POOL_USER_DEF_NULL, ABT_POOL_CONFIG_NULL, &pool),
              ABT_ERR_INV_POOL_USER_DEF);
    CHECK(pool == ABT_POOL_NULL);
    CHECK_INT(ABT_pool_user_def_set_init(ABT_POOL_USER_DEF_NULL, pool_init_fn),
              ABT_ERR_INV_POOL_USER_DEF);
    /* An old definition without p_pop. */
    ABT_pool_def broken = old_def;
    broken.p_pop = NULL;
    CHECK_INT(ABT_pool_create((ABT_pool_user_def)&broken, ABT_POOL_CONFIG_NULL, &pool),
              ABT_ERR_INV_POOL_USER_DEF);
    /* init's error is returned, and the pool not made (nor freed through free). */
    CHECK_INT(ABT_pool_user_def_create(new_create_unit, new_free_unit, new_is_empty, new_pop,
                                       new_push, &def), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_init(def, failing_init), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &pool), ABT_ERR_SYS);
    CHECK(pool == ABT_POOL_NULL);
    /* Without get_size, print_all, pop_wait, remove: ABT_ERR_POOL; is_empty still answers. */
    CHECK_INT(ABT_pool_user_def_set_init(def, pool_init_fn), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_free(def, pool_free_fn), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &pool), ABT_SUCCESS);
    size_t size;
    ABT_bool empty = ABT_FALSE;
    CHECK_INT(ABT_pool_get_size(pool, &size), ABT_ERR_POOL);
    CHECK_INT(ABT_pool_get_total_size(pool, &size), ABT_ERR_POOL);
    CHECK_INT(ABT_pool_is_empty(pool, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_TRUE);
    CHECK_INT(ABT_pool_print_all_threads(pool, NULL, count_thread), ABT_ERR_POOL);
    ABT_thread got;
    CHECK_INT(ABT_pool_pop_wait_thread(pool, &got, 0.01), ABT_ERR_POOL);
    ABT_pool_access access;
    CHECK_INT(ABT_pool_get_access(pool, &access), ABT_SUCCESS);
    CHECK_INT(access, ABT_POOL_ACCESS_MPMC);
    CHECK_INT(ABT_pool_free(&pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_SUCCESS);
    CHECK(def == ABT_POOL_USER_DEF_NULL);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_ERR_INV_POOL_USER_DEF);
    CHECK_INT(ABT_pool_user_def_free(NULL), ABT_ERR_INV_ARG);

    /* Configurations. */
    ABT_pool_config config;
    int v = 7, out = 0;
    double d = 2.5, dout = 0;
    ABT_pool_config_type type;
    CHECK_INT(ABT_pool_config_create(&config), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_set(config, 3, ABT_POOL_CONFIG_INT, &v), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_set(config, 4, ABT_POOL_CONFIG_DOUBLE, &d), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_get(config, 3, &type, &out), ABT_SUCCESS);
    CHECK_INT(type, ABT_POOL_CONFIG_INT);
    CHECK_INT(out, 7);
    CHECK_INT(ABT_pool_config_get(config, 4, NULL, &dout), ABT_SUCCESS);
    CHECK(dout == 2.5);
    CHECK_INT(ABT_pool_config_set(config, 3, ABT_POOL_CONFIG_INT, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_get(config, 3, &type, &out), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_pool_config_set(config, 5, (ABT_pool_config_type)99, &v), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_pool_create(def = make_new_def(), (ABT_pool_config)ABT_MUTEX_NULL, &pool),
              ABT_ERR_INV_POOL_CONFIG);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_free(&config), ABT_SUCCESS);
    CHECK(config == ABT_POOL_CONFIG_NULL);
    CHECK_INT(ABT_pool_config_free(&config), ABT_ERR_INV_POOL_CONFIG);
    CHECK_INT(ABT_pool_config_set(ABT_POOL_CONFIG_NULL, 1, ABT_POOL_CONFIG_INT, &v),
              ABT_ERR_INV_POOL_CONFIG);
    CHECK_INT(ABT_pool_config_get(ABT_POOL_CONFIG_NULL, 1, NULL, &v), ABT_ERR_INV_POOL_CONFIG);

    /* Handles. */
    CHECK_INT(ABT_pool_set_data(ABT_POOL_NULL, NULL), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_get_data(ABT_POOL_NULL, NULL), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_pool_push(ABT_POOL_NULL, ABT_UNIT_NULL), ABT_ERR_INV_POOL);
    ABT_unit unit;
    CHECK_INT(ABT_pool_pop(ABT_POOL_NULL, &unit), ABT_ERR_INV_POOL);
    ABT_thread t;
    CHECK_INT(ABT_unit_get_thread(ABT_UNIT_NULL, &t), ABT_ERR_INV_UNIT);
    CHECK_INT(ABT_unit_set_associated_pool(ABT_UNIT_NULL, ABT_POOL_NULL), ABT_ERR_INV_UNIT);
}

/* ---- A pool whose units are the threads' own handles ------------------------------------------ */

/* A LIFO of thread handles under a mutex: create_unit returns the thread's handle itself, and
 * ABT_unit_get_thread must still map such a unit back. */
typedef struct {
    pthread_mutex_t lock;
    int n;
    ABT_thread slots[256];
} handle_pool_t;

static handle_pool_t *handles_of(ABT_pool pool)
{
    void *d = NULL;
    ABT_pool_get_data(pool, &d);
    return d;
}
static ABT_unit handle_create_unit(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    return (ABT_unit)thread;
}
static void handle_free_unit(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    (void)unit;
}
static ABT_bool handle_is_empty(ABT_pool pool)
{
    return __atomic_load_n(&handles_of(pool)->n, __ATOMIC_ACQUIRE) == 0 ? ABT_TRUE : ABT_FALSE;
}
static void handle_push(ABT_pool pool, ABT_unit unit, ABT_pool_context ctx)
{
    (void)ctx;
    handle_pool_t *h = handles_of(pool);
    pthread_mutex_lock(&h->lock);
    if (h->n < 256) h->slots[h->n] = (ABT_thread)unit;
    __atomic_store_n(&h->n, h->n + 1, __ATOMIC_RELEASE); /* past 256: the test fails below */
    pthread_mutex_unlock(&h->lock);
}
static ABT_thread handle_pop(ABT_pool pool, ABT_pool_context ctx)
{
    (void)ctx;
    handle_pool_t *h = handles_of(pool);
    ABT_thread t = ABT_THREAD_NULL;
    pthread_mutex_lock(&h->lock);
    if (h->n > 0 && h->n <= 256) {
        t = h->slots[h->n - 1];
        __atomic_store_n(&h->n, h->n - 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&h->lock);
    return t;
}
static int handle_init(ABT_pool pool, ABT_pool_config config)
{
    (void)config;
    handle_pool_t *h = calloc(1, sizeof *h);
    pthread_mutex_init(&h->lock, NULL);
    return ABT_pool_set_data(pool, h);
}
static void handle_free(ABT_pool pool)
{
    handle_pool_t *h = handles_of(pool);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

static ABT_pool handle_pool_new(void)
{
    ABT_pool_user_def def;
    ABT_pool pool;
    CHECK_INT(ABT_pool_user_def_create(handle_create_unit, handle_free_unit, handle_is_empty,
                                       handle_pop, handle_push, &def),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_init(def, handle_init), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_set_free(def, handle_free), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_SUCCESS);
    return pool;
}

static void handle_units(ABT_pool served)
{
    printf("-- units that are the threads' handles\n");
    ABT_pool pool = handle_pool_new();
    ABT_thread t, got = ABT_THREAD_NULL;
    hand_ran = 0;
    CHECK_INT(ABT_thread_create(pool, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    ABT_unit unit = ABT_UNIT_NULL;
    CHECK_INT(ABT_thread_get_unit(t, &unit), ABT_SUCCESS);
    CHECK(unit == (ABT_unit)t);
    CHECK_INT(ABT_unit_get_thread(unit, &got), ABT_SUCCESS);
    CHECK(got == t);
    CHECK_INT(ABT_pool_pop(pool, &unit), ABT_SUCCESS);
    CHECK(unit == (ABT_unit)t);
    CHECK_INT(ABT_pool_push(served, unit), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(hand_ran, 1);
    CHECK_INT(ABT_pool_free(&pool), ABT_SUCCESS);
}

/* ---- The contexts a user pool is told --------------------------------------------------------- */

static ABT_eventual ctx_ev;
static void ctx_body(void *arg)
{
    (void)arg;
    ABT_thread_yield();
    ABT_eventual_wait(ctx_ev, NULL);
}

/* Waits up to 10 s for t to reach state want, sleeping (not yielding: the main ULT's own pool
 * is left alone). */
static int sleep_until_state(ABT_thread t, ABT_thread_state want)
{
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    while (ABT_thread_get_state(t, &st) == ABT_SUCCESS && st != want && ABT_get_wtime() < end) {
        usleep(100);
    }
    return st == want;
}

/* A user pool hears why each push and pop happens (ABT_POOL_CONTEXT_*): a creation, a yield, a
 * wake-up, a push by hand with the caller's context; its scheduler's pops as the owner, and a
 * random work-stealing scheduler's thefts as a secondary owner. */
static void contexts_seen(void)
{
    printf("-- contexts\n");
    ABT_pool_user_def def = make_new_def();
    ABT_pool pool, other, stealer_own;
    CHECK_INT(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_SUCCESS);
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &pool, ABT_SCHED_CONFIG_NULL, &xs),
              ABT_SUCCESS);
    CHECK_INT(ABT_eventual_create(0, &ctx_ev), ABT_SUCCESS);
    push_seen = pop_seen = 0;
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, ctx_body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK(sleep_until_state(t, ABT_THREAD_STATE_BLOCKED));
    CHECK(push_seen & ABT_POOL_CONTEXT_OP_THREAD_CREATE);
    CHECK(push_seen & ABT_POOL_CONTEXT_OP_THREAD_YIELD);
    CHECK(pop_seen & ABT_POOL_CONTEXT_OWNER_PRIMARY);
    /* The schedulers' pops were asked from their context: the self queries answered there. */
    CHECK_INT(pop_self_bad, 0);
    CHECK(pop_by_sched > 0);
    CHECK(!(push_seen & ABT_POOL_CONTEXT_OP_THREAD_RESUME));
    CHECK_INT(ABT_eventual_set(ctx_ev, NULL, 0), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK(push_seen & ABT_POOL_CONTEXT_OP_THREAD_RESUME);
    /* By hand: the caller's context. */
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &other),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(other, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    ABT_thread got = ABT_THREAD_NULL;
    CHECK_INT(ABT_pool_pop_thread(other, &got), ABT_SUCCESS);
    CHECK(!(push_seen & ABT_POOL_CONTEXT_OP_THREAD_MIGRATE));
    CHECK_INT(ABT_pool_push_thread_ex(pool, got, ABT_POOL_CONTEXT_OP_THREAD_MIGRATE), ABT_SUCCESS);
    CHECK(push_seen & ABT_POOL_CONTEXT_OP_THREAD_MIGRATE);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    /* A theft: a RANDWS scheduler whose own pool stays empty takes from pool. */
    CHECK(!(pop_seen & ABT_POOL_CONTEXT_OWNER_SECONDARY));
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &stealer_own),
              ABT_SUCCESS);
    ABT_pool both[2] = {stealer_own, pool};
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_RANDWS, 2, both, ABT_SCHED_CONFIG_NULL, &xs),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK(pop_seen & ABT_POOL_CONTEXT_OWNER_SECONDARY);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_free(&ctx_ev), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&stealer_own), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&other), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&pool), ABT_SUCCESS);
}

/* ---- Idle streams over user pools wake on a push --------------------------------------------- */

static int woke;
static void wake_body(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&woke, 1, __ATOMIC_RELEASE);
}

/* A stream whose only pool is pool falls asleep between pushes; each push, from
 * the main ULT, must wake it: the push looks at the pool's sleepers without the pool's lock,
 * and the sleeper orders its listing with a membarrier (or a fence). A missed wake-up shows as
 * a unit not run within 2 s (the safety wake-up is off in the tests). */
static void idle_wakeups(const char *what, ABT_pool pool)
{
    printf("-- idle wake-ups: %s\n", what);
#ifdef GOABT_CTEST_VALGRIND
    /* A round waits for the stream to fall asleep, which under valgrind takes ~0.4 s: 200
     * rounds of the two pools took 2 of the 3 minutes a program has there. */
    enum { ROUNDS = 40 };
#else
    enum { ROUNDS = 200 };
#endif
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &pool, ABT_SCHED_CONFIG_NULL, &xs),
              ABT_SUCCESS);
    woke = 0;
    int i;
    for (i = 0; i < ROUNDS; i++) {
        if (!wait_idle_streams(pool, 1)) break; /* asleep, listed in the pool */
        if (ABT_thread_create(pool, wake_body, NULL, ABT_THREAD_ATTR_NULL, NULL) != ABT_SUCCESS) break;
        double end = ABT_get_wtime() + 2.0 * CTEST_SLOW;
        while (__atomic_load_n(&woke, __ATOMIC_ACQUIRE) != i + 1 && ABT_get_wtime() < end) {
            usleep(10);
        }
        if (__atomic_load_n(&woke, __ATOMIC_ACQUIRE) != i + 1) break;
    }
    CHECK_INT(i, ROUNDS);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool served;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &served), ABT_SUCCESS);

    /* New-style FIFO and LIFO (config key 1: lifo). */
    ABT_pool_user_def def = make_new_def();
    ABT_pool_config lifo_config;
    int one = 1;
    CHECK_INT(ABT_pool_config_create(&lifo_config), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_set(lifo_config, 1, ABT_POOL_CONFIG_INT, &one), ABT_SUCCESS);
    ABT_pool fifo, lifo, old;
    CHECK_INT(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &fifo), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create(def, lifo_config, &lifo), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_free(&def), ABT_SUCCESS); /* the pools keep their copies */
    CHECK_INT(ABT_pool_config_free(&lifo_config), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create((ABT_pool_user_def)&old_def, ABT_POOL_CONFIG_NULL, &old), ABT_SUCCESS);
    CHECK_INT(n_init, 3);
    CHECK(data_of(lifo)->lifo == 1 && data_of(fifo)->lifo == 0);

    drive("user FIFO", fifo);
    drive("user LIFO", lifo);
    drive("ABT_pool_def FIFO", old);

    /* By hand, on a built-in pool and the user pools (no stream serves them any more). */
    ABT_pool own;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &own),
              ABT_SUCCESS);
    handle_units(served);
    contexts_seen();
    ABT_pool_user_def wake_def = make_new_def();
    ABT_pool wake_list, wake_handles = handle_pool_new();
    CHECK_INT(ABT_pool_create(wake_def, ABT_POOL_CONFIG_NULL, &wake_list), ABT_SUCCESS);
    CHECK_INT(ABT_pool_user_def_free(&wake_def), ABT_SUCCESS);
    idle_wakeups("list pool", wake_list);
    idle_wakeups("handle pool", wake_handles);
    CHECK_INT(ABT_pool_free(&wake_list), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&wake_handles), ABT_SUCCESS);
    by_hand("built-in FIFO", own, served, 1);
    by_hand("user FIFO", fifo, served, 0);
    by_hand("ABT_pool_def FIFO", old, served, 1);
    CHECK(n_pop_many > 0); /* pop_threads used it */
    pop_wait(own, served);

    /* A unit made for one pool, moved to another: its pool unit follows. */
    ABT_thread t;
    int freed0 = n_free_unit;
    CHECK_INT(ABT_thread_create(own, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    ABT_thread got;
    CHECK_INT(ABT_pool_pop_thread(own, &got), ABT_SUCCESS);
    ABT_unit unit;
    CHECK_INT(ABT_thread_get_unit(got, &unit), ABT_SUCCESS);
    CHECK_INT(ABT_unit_set_associated_pool(unit, fifo), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_unit(got, &unit), ABT_SUCCESS);
    CHECK(unit != (ABT_unit)got); /* now fifo's own unit */
    CHECK_INT(ABT_pool_push_threads(fifo, &got, 1), ABT_SUCCESS); /* through push_many */
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(fifo, &size), ABT_SUCCESS);
    CHECK_INT(size, 1);
    CHECK_INT(ABT_pool_pop_thread(fifo, &got), ABT_SUCCESS);
    CHECK_INT(ABT_pool_push_thread(served, got), ABT_SUCCESS); /* leaves fifo: unit freed */
    CHECK_INT(n_free_unit - freed0, 1);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK(n_push_many > 0);
    /* A count whose array would not fit in memory: refused before any of it is read (the
     * size of the units' array, num * 8, wrapped to 16 bytes). */
    CHECK_INT(ABT_pool_push_threads(fifo, &got, SIZE_MAX / 8 + 2), ABT_ERR_MEM);

    /* A unit finished in a user pool keeps its pool unit until it is freed (free_unit comes
     * with ABT_thread_free, as in Argobots), and one freed only after the pool (and its
     * stream) are gone gives nothing back to the freed pool and reads none of its memory
     * (ASan would see it). */
    {
        ABT_pool_user_def d2 = make_new_def();
        ABT_pool p2;
        ABT_xstream x2;
        CHECK_INT(ABT_pool_create(d2, ABT_POOL_CONFIG_NULL, &p2), ABT_SUCCESS);
        CHECK_INT(ABT_pool_user_def_free(&d2), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &p2, ABT_SCHED_CONFIG_NULL, &x2),
                  ABT_SUCCESS);
        int created = n_create, freed = n_free_unit;
        CHECK_INT(ABT_thread_create(p2, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
        CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
        CHECK_INT(n_create - created, 1);
        CHECK_INT(n_free_unit - freed, 0);
        ABT_thread t2;
        CHECK_INT(ABT_thread_create(p2, hand_body, NULL, ABT_THREAD_ATTR_NULL, &t2), ABT_SUCCESS);
        CHECK_INT(ABT_thread_join(t2), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&t2), ABT_SUCCESS);
        CHECK_INT(n_free_unit - freed, 1); /* t2's, with its free */
        ABT_unit t_unit = ABT_UNIT_NULL;
        CHECK_INT(ABT_thread_get_unit(t, &t_unit), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&x2), ABT_SUCCESS);
        ABT_pool p2_was = p2;
        ABT_pool_user_def d3 = make_new_def(); /* made first: the pools below get p2's memory */
        CHECK_INT(ABT_pool_free(&p2), ABT_SUCCESS);
        /* p2's memory goes to the next object of its size: a pool made now sits where p2 was,
         * and must not be given t's unit either. */
        for (reused_pools = 0; reused_pools < 4; reused_pools++) {
            CHECK_INT(ABT_pool_create(d3, ABT_POOL_CONFIG_NULL, &reused[reused_pools]),
                      ABT_SUCCESS);
            if (reused[reused_pools] == p2_was) break;
        }
        CHECK(reused_pools < 4 && reused[reused_pools] == p2_was);
        reused_pools++;
        CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
        CHECK_INT(n_free_unit - freed, 1); /* t's pool unit went with its pool */
        for (int i = 0; i < reused_pools; i++) CHECK_INT(ABT_pool_free(&reused[i]), ABT_SUCCESS);
        CHECK_INT(ABT_pool_user_def_free(&d3), ABT_SUCCESS);
        /* This pool has no free function to take back the units it made: t's is ours now. */
        if (t_unit != ABT_UNIT_NULL) delete_unit((unit_t *)t_unit);
    }

    bad_input();
    calls_as_given();

    CHECK_INT(ABT_pool_free(&own), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&fifo), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&lifo), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&old), ABT_SUCCESS);
    /* The one freed before its unit, the ones made after it, contexts_seen's, wake_list,
     * bad_input's second and calls_as_given's. */
    CHECK_INT(n_free_pool, 8 + reused_pools);
    CHECK_INT(n_create, n_free_unit); /* the one whose pool went first freed by hand above */
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
