/* User-defined schedulers (ABT_sched_create from an ABT_sched_def), against Argobots 1.2's
 * documented semantics:
 *  - a work-stealing scheduler of the shape Argobots' documentation shows (run: pop from its own
 *    pool, else steal from the others; every 16 rounds ABT_xstream_check_events and
 *    ABT_sched_has_to_stop) on 4 streams: the primary's (ABT_xstream_set_main_sched) and 3
 *    made with ABT_xstream_create. Two streams run units with ABT_pool_pop + ABT_xstream_run_unit,
 *    two with ABT_pool_pop_thread + ABT_self_schedule. 2,000 ULTs that yield 3 times each and
 *    500 tasklets: the checksum is exact, every unit's runs are counted by the schedulers (per
 *    scheduler data, ABT_sched_set_data / get_data), and init and free run once per scheduler
 *    (free when the scheduler is freed: by hand, the primary's once another replaced it);
 *  - ABT_sched_get_size / get_total_size count queued (and blocked) units of its pools;
 *  - ABT_sched_finish and ABT_sched_exit end a secondary stream's user scheduler (its stream
 *    then terminates and ABT_xstream_join returns); joining a stream stops its user scheduler
 *    once its pools are empty;
 *  - a ULT run by a stream's user scheduler replaces that scheduler (ABT_xstream_set_main_sched
 *    on its own stream, over and over, user and basic schedulers in turn, on the primary and on
 *    secondaries): the replaced scheduler's run function, still below the ULT, sees
 *    ABT_sched_has_to_stop and returns, and only then is it freed (an automatic one), with its
 *    data intact until then;
 *  - on the primary, a replaced user scheduler whose run goes on to the main ULT is retired
 *    once that run, resumed when the main ULT steps aside, sees it has to stop and returns
 *    (before ABT_xstream_set_main_sched returns when the main ULT replaced it), and the main
 *    ULT goes back to the new scheduler's pool; one replaced and put back at once stays;
 *  - a user scheduler on the primary moves the main ULT's unit from one of its pools to another
 *    (ABT_pool_pop, ABT_pool_push) before it runs it, on each of the main ULT's yields;
 *  - a ULT that replaced its stream's user scheduler frees it: refused while the old run is
 *    live below the ULT, done once it has returned;
 *  - bad input: no definition or no run function, init failing (its error is returned), invalid
 *    handles. (Units run from a ULT, and check_events there: sched_stacked.c.)
 * Every wait is bounded. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
#define NULTS 2000
#define NTASKS 500
#define YIELDS 3

typedef struct {
    int id;
    int use_unit_api; /* ABT_pool_pop + ABT_xstream_run_unit, else pop_thread + self_schedule */
    long runs;        /* units this scheduler ran (a yielded ULT counts again) */
    long steals;
} sched_data_t;

static int n_init, n_free;

static int ws_init(ABT_sched sched, ABT_sched_config config)
{
    sched_data_t *d = calloc(1, sizeof *d);
    int id = 0;
    if (config != ABT_SCHED_CONFIG_NULL) ABT_sched_config_read(config, 1, &id);
    d->id = id;
    d->use_unit_api = id % 2;
    __atomic_add_fetch(&n_init, 1, __ATOMIC_RELAXED);
    return ABT_sched_set_data(sched, d);
}

static int ws_free(ABT_sched sched)
{
    void *d = NULL;
    ABT_sched_get_data(sched, &d);
    free(d);
    __atomic_add_fetch(&n_free, 1, __ATOMIC_RELAXED);
    return ABT_SUCCESS;
}

static void ws_run(ABT_sched sched)
{
    sched_data_t *d = NULL;
    ABT_sched_get_data(sched, (void **)&d);
    int n = 0;
    ABT_sched_get_num_pools(sched, &n);
    ABT_pool pools[NSTREAMS];
    ABT_sched_get_pools(sched, n, 0, pools);
    for (unsigned round = 1;; round++) {
        for (int i = 0; i < n; i++) { /* its own pool first, then steal */
            ABT_pool p = pools[i];
            if (d->use_unit_api) {
                ABT_unit unit = ABT_UNIT_NULL;
                ABT_pool_pop(p, &unit);
                if (unit == ABT_UNIT_NULL) continue;
                d->runs++;
                d->steals += i != 0;
                ABT_xstream_run_unit(unit, p);
            } else {
                ABT_thread t = ABT_THREAD_NULL;
                ABT_pool_pop_thread(p, &t);
                if (t == ABT_THREAD_NULL) continue;
                d->runs++;
                d->steals += i != 0;
                ABT_self_schedule(t, ABT_POOL_NULL);
            }
            break;
        }
        if (round % 16 == 0) {
            ABT_xstream_check_events(sched);
            ABT_bool stop = ABT_FALSE;
            ABT_sched_has_to_stop(sched, &stop);
            if (stop == ABT_TRUE) break;
        }
    }
}

static ABT_sched_def ws_def = {
    .type = ABT_SCHED_TYPE_ULT,
    .init = ws_init,
    .run = ws_run,
    .free = ws_free,
    .get_migr_pool = NULL,
};

/* ---- Work ----------------------------------------------------------------------------------- */

static uint64_t sum;
static int done;

static void ult_body(void *arg)
{
    for (int i = 0; i < YIELDS; i++) ABT_thread_yield();
    __atomic_add_fetch(&sum, (uint64_t)(uintptr_t)arg, __ATOMIC_RELAXED);
    __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
}

static void task_body(void *arg)
{
    __atomic_add_fetch(&sum, (uint64_t)(uintptr_t)arg, __ATOMIC_RELAXED);
    __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
}

static ABT_thread units[NULTS + NTASKS];

/* A user scheduler asked to stop by ABT_sched_finish or ABT_sched_exit from the main ULT. */
static void stop_by_request(int use_exit)
{
    ABT_sched sched;
    ABT_sched_config config;
    CHECK_INT(ABT_sched_config_create(&config, ABT_sched_config_var_end), ABT_SUCCESS);
    CHECK_INT(ABT_sched_create(&ws_def, 1, NULL, config, &sched), ABT_SUCCESS); /* a new pool */
    CHECK_INT(ABT_sched_config_free(&config), ABT_SUCCESS);
    ABT_pool pool;
    CHECK_INT(ABT_sched_get_pools(sched, 1, 0, &pool), ABT_SUCCESS);
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create(sched, &xs), ABT_SUCCESS);
    ABT_thread t;
    done = 0;
    sum = 0;
    CHECK_INT(ABT_thread_create(pool, ult_body, (void *)(uintptr_t)5, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(done, 1);
    CHECK_INT(use_exit ? ABT_sched_exit(sched) : ABT_sched_finish(sched), ABT_SUCCESS);
    /* The stream ends with its scheduler. */
    ABT_xstream_state state = ABT_XSTREAM_STATE_RUNNING;
    for (double end = ABT_get_wtime() + 10; ABT_get_wtime() < end; ABT_thread_yield()) {
        if (ABT_xstream_get_state(xs, &state) != ABT_SUCCESS) break;
        if (state == ABT_XSTREAM_STATE_TERMINATED) break;
    }
    CHECK_INT(state, ABT_XSTREAM_STATE_TERMINATED);
    CHECK_INT(ABT_xstream_join(xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    int freed = n_free;
    CHECK_INT(ABT_sched_free(&sched), ABT_SUCCESS);
    CHECK_INT(n_free, freed + 1);
}

/* ---- A scheduler replaced from inside -------------------------------------------------------
 *
 * A small user scheduler whose run reads its data on every round (the way Argobots' own tests
 * write them); its free checks that its run has returned. */
typedef struct {
    int num_pools;
    ABT_pool pools[2];
    int in_run;
    ABT_bool on_primary;
} inner_data_t;

static int inner_init_n, inner_free_n, inner_freed_in_run, inner_bad_calls;
/* Units inner schedulers' runs got their stream back from, by the rank of their stream. */
#define MAX_RANKS 64
static int inner_back_on[MAX_RANKS];
static ABT_key inner_key; /* made by main before any inner scheduler runs */
/* Stand-ins (a scheduler as a ULT) that got a value of inner_key, and values destroyed. */
static int inner_key_holders, inner_key_destroyed, inner_key_bad;
/* A value is the stream of the stand-in holding it, still whole when the value goes: its main
 * scheduler's pools answer (under AddressSanitizer, a freed one would show). */
static void inner_key_destructor(void *value)
{
    ABT_pool pool = ABT_POOL_NULL;
    size_t size = 0;
    if (ABT_xstream_get_main_pools((ABT_xstream)value, 1, &pool) != ABT_SUCCESS ||
        ABT_pool_get_size(pool, &size) != ABT_SUCCESS) {
        __atomic_add_fetch(&inner_key_bad, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&inner_key_destroyed, 1, __ATOMIC_RELAXED);
}

static int inner_init(ABT_sched sched, ABT_sched_config config)
{
    (void)config;
    inner_data_t *d = calloc(1, sizeof *d);
    ABT_sched_get_num_pools(sched, &d->num_pools);
    ABT_sched_get_pools(sched, d->num_pools, 0, d->pools);
    __atomic_add_fetch(&inner_init_n, 1, __ATOMIC_RELAXED);
    return ABT_sched_set_data(sched, d);
}

static ABT_thread main_ult; /* the primary's main ULT: a valid ULT that is not the caller */

/* From a scheduler's run function the caller is the scheduler as a ULT, as in Argobots, which
 * runs schedulers on ULTs: a handle the queries answer for, the same on every call, that
 * nothing can act on. Returns how many checks failed. */
static int check_sched_self(ABT_xstream xs, ABT_pool pool)
{
    int bad = 0;
    ABT_thread self = ABT_THREAD_NULL, again = ABT_THREAD_NULL, of_unit = ABT_THREAD_NULL;
    ABT_unit unit = ABT_UNIT_NULL, unit_of = ABT_UNIT_NULL;
    ABT_unit_type type = ABT_UNIT_TYPE_EXT;
    ABT_bool primary = ABT_TRUE;
    ABT_unit_id id = 0, id_of = 1;
    ABT_thread_state state = ABT_THREAD_STATE_TERMINATED;
    ABT_xstream last = ABT_XSTREAM_NULL;
    bad += ABT_self_get_thread(&self) != ABT_SUCCESS || self == ABT_THREAD_NULL;
    bad += ABT_thread_self(&again) != ABT_SUCCESS || again != self;
    bad += ABT_self_get_type(&type) != ABT_SUCCESS || type != ABT_UNIT_TYPE_THREAD;
    bad += ABT_self_is_primary(&primary) != ABT_SUCCESS || primary != ABT_FALSE;
    bad += ABT_self_get_thread_id(&id) != ABT_SUCCESS;
    bad += ABT_thread_get_id(self, &id_of) != ABT_SUCCESS || id_of != id;
    bad += ABT_thread_get_state(self, &state) != ABT_SUCCESS || state != ABT_THREAD_STATE_RUNNING;
    bad += ABT_thread_get_last_xstream(self, &last) != ABT_SUCCESS || last != xs;
    bad += ABT_self_get_unit(&unit) != ABT_SUCCESS || unit == ABT_UNIT_NULL;
    bad += ABT_thread_get_unit(self, &unit_of) != ABT_SUCCESS || unit_of != unit;
    bad += ABT_unit_get_thread(unit, &of_unit) != ABT_SUCCESS || of_unit != self;
    /* Nothing acts on it: it is no ULT the program made, and in no pool. */
    ABT_thread copy = self;
    bad += ABT_thread_free(&copy) != ABT_ERR_INV_THREAD || copy != self;
    bad += ABT_thread_join(self) != ABT_ERR_INV_THREAD;
    bad += ABT_thread_cancel(self) != ABT_ERR_INV_THREAD;
    bad += ABT_thread_resume(self) != ABT_ERR_INV_THREAD;
    /* Its keys work as a ULT's: its values go when its stream is freed (destructor). */
    void *value = xs, *got = NULL, *got_of = NULL;
    bad += ABT_key_get(inner_key, &got) != ABT_SUCCESS;
    if (got == NULL) __atomic_add_fetch(&inner_key_holders, 1, __ATOMIC_RELAXED);
    bad += ABT_key_set(inner_key, value) != ABT_SUCCESS;
    bad += ABT_thread_get_specific(self, inner_key, &got_of) != ABT_SUCCESS || got_of != value;
    bad += ABT_thread_set_specific(self, inner_key, value) != ABT_SUCCESS;
    bad += ABT_self_get_specific(inner_key, &got) != ABT_SUCCESS || got != value;
    bad += ABT_pool_push(pool, unit) != ABT_ERR_INV_UNIT;
    /* Nothing below the scheduler would run it again: a yield returns at once, and the calls
     * that would switch it out are refused, with a valid other ULT (the main ULT) too. */
    bad += ABT_self_yield() != ABT_SUCCESS;
    bad += ABT_self_suspend() != ABT_ERR_INV_THREAD;
    bad += ABT_self_exit() != ABT_ERR_INV_THREAD;
    bad += ABT_self_yield_to(main_ult) != ABT_ERR_INV_THREAD;
    bad += ABT_self_suspend_to(main_ult) != ABT_ERR_INV_THREAD;
    bad += ABT_self_exit_to(main_ult) != ABT_ERR_INV_THREAD;
    bad += ABT_self_resume_yield_to(main_ult) != ABT_ERR_INV_THREAD;
    bad += ABT_self_set_arg(NULL) != ABT_ERR_INV_XSTREAM;
    return bad;
}

static void inner_run(ABT_sched sched)
{
    inner_data_t *d = NULL;
    ABT_sched_get_data(sched, (void **)&d);
    ABT_xstream xs;
    if (ABT_xstream_self(&xs) != ABT_SUCCESS || ABT_xstream_is_primary(xs, &d->on_primary) != ABT_SUCCESS) {
        __atomic_add_fetch(&inner_bad_calls, 1, __ATOMIC_RELAXED);
    }
    /* The stream-level self queries answer from a scheduler's run too, as the ABT_xstream_self*
     * ones: the same stream, rank and primary-ness. */
    ABT_xstream self_xs = ABT_XSTREAM_NULL;
    int rank = -1, self_rank = -2;
    ABT_bool on_primary = ABT_FALSE;
    if (ABT_self_get_xstream(&self_xs) != ABT_SUCCESS || self_xs != xs ||
        ABT_xstream_self_rank(&rank) != ABT_SUCCESS ||
        ABT_self_get_xstream_rank(&self_rank) != ABT_SUCCESS || self_rank != rank ||
        ABT_self_on_primary_xstream(&on_primary) != ABT_SUCCESS || on_primary != d->on_primary) {
        __atomic_add_fetch(&inner_bad_calls, 1, __ATOMIC_RELAXED);
    }
    ABT_thread sched_self = ABT_THREAD_NULL;
    ABT_self_get_thread(&sched_self);
    int bad = check_sched_self(xs, d->pools[0]);
    if (bad != 0) __atomic_add_fetch(&inner_bad_calls, bad, __ATOMIC_RELAXED);
    d->in_run = 1;
    for (unsigned round = 1;; round++) {
        for (int i = 0; i < d->num_pools; i++) {
            ABT_unit unit = ABT_UNIT_NULL;
            if (ABT_pool_pop(d->pools[i], &unit) != ABT_SUCCESS) {
                __atomic_add_fetch(&inner_bad_calls, 1, __ATOMIC_RELAXED);
            }
            if (unit != ABT_UNIT_NULL) {
                ABT_xstream_run_unit(unit, d->pools[i]);
                if (rank >= 0 && rank < MAX_RANKS) {
                    __atomic_add_fetch(&inner_back_on[rank], 1, __ATOMIC_RELAXED);
                }
                /* Back from a unit it ran: the caller is the scheduler again, the same handle. */
                ABT_thread now = ABT_THREAD_NULL;
                if (ABT_self_get_thread(&now) != ABT_SUCCESS || now != sched_self) {
                    __atomic_add_fetch(&inner_bad_calls, 1, __ATOMIC_RELAXED);
                }
            }
        }
        if (round % 16 == 0) {
            ABT_bool stop = ABT_FALSE;
            if (ABT_xstream_check_events(sched) != ABT_SUCCESS ||
                ABT_sched_has_to_stop(sched, &stop) != ABT_SUCCESS) {
                __atomic_add_fetch(&inner_bad_calls, 1, __ATOMIC_RELAXED);
            }
            if (stop == ABT_TRUE) break;
        }
    }
    d->in_run = 0;
}

static int inner_free(ABT_sched sched)
{
    inner_data_t *d = NULL;
    ABT_sched_get_data(sched, (void **)&d);
    /* Its run has returned, on the primary too (where it may have run the main ULT). */
    if (d->in_run) __atomic_add_fetch(&inner_freed_in_run, 1, __ATOMIC_RELAXED);
    free(d);
    __atomic_add_fetch(&inner_free_n, 1, __ATOMIC_RELAXED);
    return ABT_SUCCESS;
}

static ABT_sched_def inner_def = {
    .type = ABT_SCHED_TYPE_ULT, .init = inner_init, .run = inner_run, .free = inner_free};

#define REPLACEMENTS 40
static int replaced_ok;
static int replaced_run_kept; /* yields that did not give a replaced inner run its stream */

/* The pools a replacing ULT gives its stream's schedulers: its own, and the main ULT's pool on
 * the primary (the main ULT must find a scheduler when it is woken). */
typedef struct {
    int n;
    ABT_pool pools[2];
} replace_arg_t;

/* Replaces its own stream's main scheduler REPLACEMENTS times: an automatic user scheduler
 * (inner_def) and a basic one in turn, over the pools it was given (arg). */
static void replace_own_sched(void *arg)
{
    replace_arg_t *a = arg;
    for (int i = 0; i < REPLACEMENTS; i++) {
        ABT_xstream self;
        if (ABT_self_get_xstream(&self) != ABT_SUCCESS) return;
        int rc;
        if (i % 2 == 0) {
            ABT_sched_config config;
            ABT_sched sched;
            ABT_sched_config_create(&config, ABT_sched_config_automatic, 1, ABT_sched_config_var_end);
            rc = ABT_sched_create(&inner_def, a->n, a->pools, config, &sched);
            ABT_sched_config_free(&config);
            if (rc == ABT_SUCCESS) rc = ABT_xstream_set_main_sched(self, sched);
        } else {
            rc = ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, a->n, a->pools);
        }
        if (rc != ABT_SUCCESS) return;
        int rank = -1;
        if (ABT_self_get_xstream_rank(&rank) != ABT_SUCCESS || rank < 0 || rank >= MAX_RANKS) {
            return;
        }
        int back = __atomic_load_n(&inner_back_on[rank], __ATOMIC_RELAXED);
        ABT_thread_yield(); /* the new scheduler runs it */
        /* A replaced inner scheduler's run (live below this ULT) got its stream back at that
         * yield, as from any unit it runs, whatever else is ready: only there does it see that
         * it has to stop (on the primary too: one that ran the main ULT meanwhile waited for it
         * and went on). */
        if (i % 2 == 1 &&
            __atomic_load_n(&inner_back_on[rank], __ATOMIC_RELAXED) == back) {
            __atomic_add_fetch(&replaced_run_kept, 1, __ATOMIC_RELAXED);
        }
    }
    __atomic_add_fetch(&replaced_ok, 1, __ATOMIC_RELAXED);
}

static void replace_from_inside(void)
{
    enum { NSEC = 2 };
    ABT_pool pools[NSEC + 1];
    ABT_xstream xs[NSEC];
    for (int i = 0; i < NSEC + 1; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pools[i]),
                  ABT_SUCCESS);
    }
    for (int i = 0; i < NSEC; i++) {
        CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_DEFAULT, 1, &pools[i], ABT_SCHED_CONFIG_NULL,
                                           &xs[i]),
                  ABT_SUCCESS);
    }
    /* The primary: its scheduler becomes an inner one over pools[NSEC] first, from the main
     * ULT; a ULT there then goes on replacing it. */
    ABT_xstream self;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    ABT_pool primary_pool;
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &primary_pool), ABT_SUCCESS);
    ABT_sched_config config;
    ABT_sched sched;
    CHECK_INT(ABT_sched_config_create(&config, ABT_sched_config_automatic, 1, ABT_sched_config_var_end),
              ABT_SUCCESS);
    ABT_pool both[2] = {pools[NSEC], primary_pool};
    CHECK_INT(ABT_sched_create(&inner_def, 2, both, config, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_free(&config), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_main_sched(self, sched), ABT_SUCCESS);
    ABT_thread t[NSEC + 1];
    replace_arg_t args[NSEC + 1];
    for (int i = 0; i < NSEC + 1; i++) {
        args[i].n = i < NSEC ? 1 : 2;
        args[i].pools[0] = pools[i];
        args[i].pools[1] = primary_pool;
        CHECK_INT(ABT_thread_create(pools[i], replace_own_sched, &args[i], ABT_THREAD_ATTR_NULL, &t[i]),
                  ABT_SUCCESS);
    }
    for (int i = 0; i < NSEC + 1; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
    CHECK_INT(replaced_ok, NSEC + 1);
    CHECK_INT(replaced_run_kept, 0);
    for (int i = 0; i < NSEC; i++) {
        CHECK_INT(ABT_xstream_join(xs[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    }
    /* The primary keeps a basic scheduler over the main pool, the one it had. */
    CHECK_INT(ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, 1, &primary_pool), ABT_SUCCESS);
    CHECK_INT(inner_freed_in_run, 0);
    CHECK_INT(inner_bad_calls, 0);
    /* Every inner scheduler made was freed: REPLACEMENTS / 2 per ULT, and the primary's first. */
    CHECK_INT(inner_init_n, (NSEC + 1) * REPLACEMENTS / 2 + 1);
    CHECK_INT(inner_free_n, inner_init_n);
    for (int i = 0; i < NSEC + 1; i++) CHECK_INT(ABT_pool_free(&pools[i]), ABT_SUCCESS);
}

/* ---- Replaced under the main ULT -------------------------------------------------------------
 *
 * On the primary, an automatic user scheduler U (its pool made for it, automatic too) runs a
 * ULT that replaces it; U's run goes on to the main ULT, queued in U's pool, before it looks
 * whether it has to stop: U and its pool are retired once the run, resumed as the main ULT
 * yields, has returned, and the main ULT must then go back to the new scheduler's pool, not the
 * freed one (ASan sees it). Then a ULT replaces U and puts it back at once: U stays, and is not
 * retired under the stream; the main ULT replaces it at last, and its run (which ran the main
 * ULT) returns before ABT_xstream_set_main_sched does: U is freed by then. */
static ABT_sched under_u;
static ABT_pool under_keep;
static int under_errors;

static void replace_with_basic(void *arg)
{
    (void)arg;
    ABT_xstream self;
    if (ABT_self_get_xstream(&self) != ABT_SUCCESS ||
        ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, 1, &under_keep) != ABT_SUCCESS) {
        under_errors++;
    }
}

static void replace_and_restore(void *arg)
{
    (void)arg;
    ABT_xstream self;
    if (ABT_self_get_xstream(&self) != ABT_SUCCESS ||
        ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, 1, &under_keep) != ABT_SUCCESS ||
        ABT_xstream_set_main_sched(self, under_u) != ABT_SUCCESS) {
        under_errors++;
    }
}

static ABT_sched make_under_u(void)
{
    ABT_sched_config config;
    ABT_sched sched = ABT_SCHED_NULL;
    ABT_pool made = ABT_POOL_NULL; /* a pool made for it: automatic */
    ABT_sched_config_create(&config, ABT_sched_config_automatic, 1, ABT_sched_config_var_end);
    if (ABT_sched_create(&inner_def, 1, &made, config, &sched) != ABT_SUCCESS) under_errors++;
    ABT_sched_config_free(&config);
    return sched;
}

static void replaced_under_main(void)
{
    ABT_xstream self;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    ABT_pool primary_pool;
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &primary_pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &under_keep),
              ABT_SUCCESS);
    for (int round = 0; round < 2; round++) {
        int freed = inner_free_n;
        under_u = make_under_u();
        CHECK_INT(ABT_xstream_set_main_sched(self, under_u), ABT_SUCCESS);
        ABT_pool u_pool;
        CHECK_INT(ABT_sched_get_pools(under_u, 1, 0, &u_pool), ABT_SUCCESS);
        ABT_thread t;
        CHECK_INT(ABT_thread_create(u_pool, round == 0 ? replace_with_basic : replace_and_restore,
                                    NULL, ABT_THREAD_ATTR_NULL, &t),
                  ABT_SUCCESS);
        int errors = 0;
        for (int i = 0; i < 20; i++) errors += ABT_thread_yield() != ABT_SUCCESS;
        CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
        for (int i = 0; i < 20; i++) errors += ABT_thread_yield() != ABT_SUCCESS;
        CHECK_INT(errors, 0);
        CHECK_INT(inner_free_n - freed, round == 0 ? 1 : 0); /* round 1: U is main again */
        CHECK_INT(ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, 1, &primary_pool),
                  ABT_SUCCESS);
        CHECK_INT(inner_free_n - freed, 1);
    }
    CHECK_INT(under_errors, 0);
    CHECK_INT(inner_freed_in_run, 0);
    CHECK_INT(ABT_pool_free(&under_keep), ABT_SUCCESS);
}

/* ---- Freed while its run runs ----------------------------------------------------------------
 *
 * A ULT that replaced its stream's user scheduler (not automatic) frees it: refused
 * (ABT_ERR_SCHED) while the old run is still live below the ULT, which would go on in freed
 * memory; once the ULT has yielded (the run saw it has to stop and returned), freed. */
static ABT_sched early_sched;
static ABT_pool early_to;
static int early_rc, late_rc;

static void replace_then_free(void *arg)
{
    (void)arg;
    ABT_xstream self;
    early_rc = late_rc = -1;
    if (ABT_self_get_xstream(&self) != ABT_SUCCESS ||
        ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, 1, &early_to) != ABT_SUCCESS) {
        return;
    }
    early_rc = ABT_sched_free(&early_sched);
    ABT_thread_yield(); /* the new scheduler runs it again, once the old run has returned */
    late_rc = ABT_sched_free(&early_sched);
}

static void free_while_running(void)
{
    ABT_pool from;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &from),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &early_to),
              ABT_SUCCESS);
    int freed = inner_free_n;
    CHECK_INT(ABT_sched_create(&inner_def, 1, &from, ABT_SCHED_CONFIG_NULL, &early_sched),
              ABT_SUCCESS);
    ABT_xstream xs;
    CHECK_INT(ABT_xstream_create(early_sched, &xs), ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(from, replace_then_free, NULL, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(early_rc, ABT_ERR_SCHED);
    CHECK_INT(late_rc, ABT_SUCCESS);
    CHECK_INT(inner_free_n - freed, 1);
    CHECK_INT(inner_freed_in_run, 0);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&from), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&early_to), ABT_SUCCESS);
}

/* ---- Moving the main ULT ------------------------------------------------------------------ */

static int moved, move_errors;

/* Every unit found in its first pool goes to its second, and runs from there (its pool then the
 * first again, so that it comes back the same way). */
static void mover_run(ABT_sched sched)
{
    ABT_pool pools[2];
    ABT_sched_get_pools(sched, 2, 0, pools);
    for (unsigned round = 1;; round++) {
        ABT_unit unit = ABT_UNIT_NULL;
        ABT_pool_pop(pools[0], &unit);
        if (unit != ABT_UNIT_NULL) {
            if (ABT_pool_push(pools[1], unit) == ABT_SUCCESS) {
                moved++;
            } else {
                move_errors++; /* run from here, not lost */
                ABT_xstream_run_unit(unit, pools[0]);
            }
        }
        unit = ABT_UNIT_NULL;
        ABT_pool_pop(pools[1], &unit);
        if (unit != ABT_UNIT_NULL && ABT_xstream_run_unit(unit, pools[0]) != ABT_SUCCESS) {
            move_errors++;
        }
        if (round % 16 == 0) {
            ABT_xstream_check_events(sched);
            ABT_bool stop = ABT_FALSE;
            ABT_sched_has_to_stop(sched, &stop);
            if (stop == ABT_TRUE) break;
        }
    }
}

static void move_main_ult(void)
{
    ABT_sched_def def = {.type = ABT_SCHED_TYPE_ULT, .run = mover_run};
    ABT_xstream self;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    ABT_pool pools[2];
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pools[0]), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pools[1]),
              ABT_SUCCESS);
    ABT_sched sched;
    CHECK_INT(ABT_sched_create(&def, 2, pools, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_main_sched(self, sched), ABT_SUCCESS);
    int errors = 0;
    for (int i = 0; i < 50; i++) errors += ABT_thread_yield() != ABT_SUCCESS;
    CHECK_INT(errors, 0);
    CHECK_INT(move_errors, 0);
    CHECK(moved >= 50); /* each yield put the main ULT into the first pool */
    CHECK_INT(ABT_xstream_set_main_sched_basic(self, ABT_SCHED_DEFAULT, 1, &pools[0]), ABT_SUCCESS);
    CHECK_INT(ABT_sched_free(&sched), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&pools[1]), ABT_SUCCESS);
}

/* Runs on a ULT: pops a unit by hand and pushes it into a served pool. arg: a pool nobody
 * serves. */
static ABT_pool served_pool;
static void from_ult(void *arg)
{
    ABT_pool own = arg;
    ABT_thread t, got = ABT_THREAD_NULL;
    CHECK_INT(ABT_thread_create(own, task_body, (void *)(uintptr_t)1, ABT_THREAD_ATTR_NULL, &t),
              ABT_SUCCESS);
    ABT_unit unit = ABT_UNIT_NULL;
    CHECK_INT(ABT_pool_pop(own, &unit), ABT_SUCCESS);
    CHECK(unit != ABT_UNIT_NULL);
    CHECK_INT(ABT_pool_push(own, unit), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(own, &got), ABT_SUCCESS);
    CHECK(got == t);
    CHECK_INT(ABT_pool_push_thread(served_pool, got), ABT_SUCCESS); /* a scheduler runs it */
    ABT_sched sched;
    ABT_xstream self;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_sched(self, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_check_events(sched), ABT_SUCCESS); /* a ULT may (sched_stacked.c) */
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
}

static int failing_init(ABT_sched sched, ABT_sched_config config)
{
    (void)sched;
    (void)config;
    return ABT_ERR_SYS;
}

static void bad_input(ABT_pool pool)
{
    ABT_sched sched = ABT_SCHED_NULL;
    CHECK_INT(ABT_sched_create(NULL, 1, &pool, ABT_SCHED_CONFIG_NULL, &sched), ABT_ERR_INV_ARG);
    ABT_sched_def no_run = ws_def;
    no_run.run = NULL;
    CHECK_INT(ABT_sched_create(&no_run, 1, &pool, ABT_SCHED_CONFIG_NULL, &sched), ABT_ERR_INV_ARG);
    ABT_sched_def bad_init = ws_def;
    bad_init.init = failing_init;
    int freed = n_free;
    CHECK_INT(ABT_sched_create(&bad_init, 1, &pool, ABT_SCHED_CONFIG_NULL, &sched), ABT_ERR_SYS);
    CHECK(sched == ABT_SCHED_NULL);
    CHECK_INT(n_free, freed); /* not initialized: not finalized either */
    ABT_bool stop;
    void *data;
    size_t size;
    CHECK_INT(ABT_sched_has_to_stop(ABT_SCHED_NULL, &stop), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_finish(ABT_SCHED_NULL), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_exit(ABT_SCHED_NULL), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_set_data(ABT_SCHED_NULL, NULL), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_get_data(ABT_SCHED_NULL, &data), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_get_size(ABT_SCHED_NULL, &size), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_sched_get_total_size(ABT_SCHED_NULL, &size), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_xstream_run_unit(ABT_UNIT_NULL, pool), ABT_ERR_INV_UNIT);
    CHECK_INT(ABT_xstream_check_events(ABT_SCHED_NULL), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_self_schedule(ABT_THREAD_NULL, ABT_POOL_NULL), ABT_ERR_INV_THREAD);
}

/* ---- A user-defined scheduler without pools (#36, item 4) ------------------------------------
 * Argobots accepts one (a scheduler may have other work), and crashes when something is pushed
 * to its stream, or when the caller moves onto it: goabt refuses those calls instead. */

static void poolless_run(ABT_sched sched)
{
    ABT_bool stop = ABT_FALSE;
    while (!stop) {
        ABT_xstream_check_events(sched);
        ABT_sched_has_to_stop(sched, &stop);
    }
}

static ABT_sched_def poolless_def = {ABT_SCHED_TYPE_ULT, NULL, poolless_run, NULL, NULL};

static void nothing(void *arg) { (void)arg; }

static void poolless(void)
{
    ABT_sched sched;
    ABT_xstream x;
    ABT_thread t = ABT_THREAD_NULL;
    ABT_task k = ABT_TASK_NULL;
    CHECK_INT(ABT_sched_create(&poolless_def, 0, NULL, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(sched, &x), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create_on_xstream(x, nothing, NULL, ABT_THREAD_ATTR_NULL, &t),
              ABT_ERR_INV_POOL);
    CHECK(t == ABT_THREAD_NULL);
    CHECK_INT(ABT_task_create_on_xstream(x, nothing, NULL, &k), ABT_ERR_INV_POOL);
    CHECK(k == ABT_TASK_NULL);
    CHECK_INT(ABT_xstream_free(&x), ABT_SUCCESS);
    CHECK_INT(ABT_sched_free(&sched), ABT_SUCCESS);
    /* The caller's own stream: it would go on in the new scheduler's first pool. */
    ABT_xstream self;
    ABT_xstream_self(&self);
    CHECK_INT(ABT_sched_create(&poolless_def, 0, NULL, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_main_sched(self, sched), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_thread_yield(), ABT_SUCCESS); /* still on its old scheduler */
    CHECK_INT(ABT_sched_free(&sched), ABT_SUCCESS);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_self_get_thread(&main_ult), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(inner_key_destructor, &inner_key), ABT_SUCCESS);
    ABT_pool pools[NSTREAMS];
    for (int i = 0; i < NSTREAMS; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pools[i]),
                  ABT_SUCCESS);
    }
    ABT_sched scheds[NSTREAMS];
    ABT_sched_config_var id_var = {.idx = 0, .type = ABT_SCHED_CONFIG_INT};
    for (int i = 0; i < NSTREAMS; i++) {
        ABT_pool mine[NSTREAMS]; /* its own pool first */
        for (int j = 0; j < NSTREAMS; j++) mine[j] = pools[(i + j) % NSTREAMS];
        ABT_sched_config config;
        CHECK_INT(ABT_sched_config_create(&config, id_var, i, ABT_sched_config_var_end), ABT_SUCCESS);
        CHECK_INT(ABT_sched_create(&ws_def, NSTREAMS, mine, config, &scheds[i]), ABT_SUCCESS);
        CHECK_INT(ABT_sched_config_free(&config), ABT_SUCCESS);
    }
    CHECK_INT(n_init, NSTREAMS);
    sched_data_t *d0 = NULL;
    CHECK_INT(ABT_sched_get_data(scheds[1], (void **)&d0), ABT_SUCCESS);
    CHECK(d0 != NULL && d0->id == 1 && d0->use_unit_api == 1);

    /* Queued units count in the scheduler's size before any stream runs them. */
    ABT_thread early;
    CHECK_INT(ABT_thread_create(pools[0], task_body, (void *)(uintptr_t)0, ABT_THREAD_ATTR_NULL, &early),
              ABT_SUCCESS);
    size_t size = 0;
    CHECK_INT(ABT_sched_get_size(scheds[1], &size), ABT_SUCCESS);
    CHECK_INT(size, 1);
    CHECK_INT(ABT_sched_get_total_size(scheds[1], &size), ABT_SUCCESS);
    CHECK_INT(size, 1);

    ABT_xstream self, xs[NSTREAMS - 1];
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_main_sched(self, scheds[0]), ABT_SUCCESS);
    for (int i = 1; i < NSTREAMS; i++) {
        CHECK_INT(ABT_xstream_create(scheds[i], &xs[i - 1]), ABT_SUCCESS);
    }
    CHECK_INT(ABT_thread_free(&early), ABT_SUCCESS);

    int errors = 0;
    uint64_t want = 0;
    done = 0;
    sum = 0;
    for (int i = 0; i < NULTS; i++) {
        errors += ABT_thread_create(pools[i % NSTREAMS], ult_body, (void *)(uintptr_t)(i + 1),
                                    ABT_THREAD_ATTR_NULL, &units[i]) != ABT_SUCCESS;
        want += (uint64_t)(i + 1);
    }
    for (int i = 0; i < NTASKS; i++) {
        errors += ABT_task_create(pools[i % NSTREAMS], task_body, (void *)(uintptr_t)(i + 3),
                                  &units[NULTS + i]) != ABT_SUCCESS;
        want += (uint64_t)(i + 3);
    }
    CHECK_INT(errors, 0);
    for (int i = 0; i < NULTS + NTASKS; i++) {
        errors += (i < NULTS ? ABT_thread_free(&units[i]) : ABT_task_free(&units[i])) != ABT_SUCCESS;
    }
    CHECK_INT(errors, 0);
    CHECK_INT(done, NULTS + NTASKS);
    CHECK(sum == want);
    long runs = 0, steals = 0;
    for (int i = 0; i < NSTREAMS; i++) {
        sched_data_t *d = NULL;
        CHECK_INT(ABT_sched_get_data(scheds[i], (void **)&d), ABT_SUCCESS);
        runs += d->runs;
        steals += d->steals;
    }
    printf("runs %ld (of which stolen %ld)\n", runs, steals);
    /* Every unit ran once per start and once per yield, the early tasklet once; the main ULT,
     * popped by the primary's scheduler after each of its waits, adds some. */
    CHECK(runs >= (long)NULTS * (YIELDS + 1) + NTASKS + 1);

    /* Not from a ULT. */
    ABT_pool own;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &own),
              ABT_SUCCESS);
    served_pool = pools[2];
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pools[1], from_ult, own, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&own), ABT_SUCCESS);

    /* Joining a stream stops its user scheduler once its pools are empty. */
    for (int i = 0; i < NSTREAMS - 1; i++) {
        CHECK_INT(ABT_xstream_join(xs[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    }
    for (int i = 1; i < NSTREAMS; i++) CHECK_INT(ABT_sched_free(&scheds[i]), ABT_SUCCESS);
    CHECK_INT(n_free, NSTREAMS - 1);

    stop_by_request(0);
    stop_by_request(1);
    bad_input(pools[0]);
    CHECK_INT(n_free, NSTREAMS + 1);
    /* The primary's scheduler is replaced (it is not automatic: freed by hand then). */
    replace_from_inside();
    CHECK_INT(n_free, NSTREAMS + 1);
    CHECK_INT(ABT_sched_free(&scheds[0]), ABT_SUCCESS);
    CHECK_INT(n_free, NSTREAMS + 2);
    /* The schedulers are gone: their pools, made by hand, are freed by hand (pools[0] holds the
     * main ULT, which goes on from it). */
    for (int i = 1; i < NSTREAMS; i++) CHECK_INT(ABT_pool_free(&pools[i]), ABT_SUCCESS);
    move_main_ult();
    replaced_under_main();
    free_while_running();
    poolless();
    CHECK_INT(ABT_key_free(&inner_key), ABT_SUCCESS);

    CHECK_INT(ABT_finalize(), ABT_SUCCESS); /* frees the primary's scheduler and its pools */
    /* Every stand-in that held a value had it destroyed with its stream (the primary's at
     * ABT_finalize). */
    CHECK(inner_key_holders > 0);
    CHECK_INT(inner_key_destroyed, inner_key_holders);
    CHECK_INT(inner_key_bad, 0);
    return check_summary();
}
