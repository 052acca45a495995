//go:build goabt_c_engine
/* Pools and schedulers as the API sees them (ABT_pool_*, ABT_sched_*); the pools themselves,
 * of every kind, are the engine's (engine/pool.h). */
#include <stdlib.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/leaks.h"
#include "engine/pool.h"
#include "engine/pool_member.h"
#include "engine/runtime.h"
#include "engine/scheduler.h"
#include "engine/stream.h"
#include "engine/unit.h"
#include "engine/wait.h"

int ABT_pool_create_basic(ABT_pool_kind kind, ABT_pool_access access, ABT_bool automatic,
                          ABT_pool *newpool)
{
    if (newpool != NULL) *newpool = ABT_POOL_NULL;
    GOABT_CHECK_INIT();
    /* ABT_POOL_RANDWS is served by the same queue: any order a pool pops in is a valid one. */
    GOABT_CHECK_TRUE(kind == ABT_POOL_FIFO || kind == ABT_POOL_FIFO_WAIT || kind == ABT_POOL_RANDWS,
                     ABT_ERR_INV_POOL_KIND);
    GOABT_CHECK_TRUE((int)access >= ABT_POOL_ACCESS_PRIV && access <= ABT_POOL_ACCESS_MPMC,
                     ABT_ERR_INV_POOL_ACCESS);
    GOABT_CHECK_OUT(newpool);
    goabt_pool *p = goabt_pool_new_predef(kind, access, automatic ? 1 : 0);
    if (p == NULL) return ABT_ERR_MEM;
    GOABT_LEAK_NOTE(GOABT_LEAK_POOL, p);
    *newpool = p;
    return ABT_SUCCESS;
}

int ABT_pool_free(ABT_pool *pool)
{
    GOABT_CHECK_TRUE(pool != NULL, ABT_ERR_INV_POOL);
    GOABT_POOL(p, *pool);
    /* Argobots leaves freeing a pool in use undefined; goabt refuses one a scheduler uses, one
     * with queued units, and one that parked ULTs belong to (they come back to it). Blocked
     * first: a woken ULT moves from that count to the queue at once (goabt_sched_has_work). */
    if (__atomic_load_n(&p->num_scheds, __ATOMIC_ACQUIRE) > 0 || goabt_pool_num_blocked(p) > 0 ||
        goabt_pool_size(p) > 0) {
        return ABT_ERR_POOL;
    }
    goabt_pool_delete(p);
    *pool = ABT_POOL_NULL;
    return ABT_SUCCESS;
}


int ABT_pool_get_access(ABT_pool pool, ABT_pool_access *access)
{
    GOABT_RESOLVE_POOL(p, pool, access);
    *access = (ABT_pool_access)p->access;
    return ABT_SUCCESS;
}

int ABT_pool_is_empty(ABT_pool pool, ABT_bool *is_empty)
{
    GOABT_RESOLVE_POOL(p, pool, is_empty);
    *is_empty = goabt_pool_is_empty(p) ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_pool_get_size(ABT_pool pool, size_t *size)
{
    GOABT_RESOLVE_POOL(p, pool, size);
    if (!goabt_pool_can(p, GOABT_POOL_CAN_SIZE)) return ABT_ERR_POOL;
    *size = goabt_pool_size(p);
    return ABT_SUCCESS;
}

int ABT_pool_get_total_size(ABT_pool pool, size_t *size)
{
    GOABT_RESOLVE_POOL(p, pool, size);
    if (!goabt_pool_can(p, GOABT_POOL_CAN_SIZE)) return ABT_ERR_POOL;
    long blocked = goabt_pool_num_blocked(p);
    *size = goabt_pool_size(p) + (size_t)(blocked > 0 ? blocked : 0);
    return ABT_SUCCESS;
}

/* ---- Work units by hand ------------------------------------------------------------------- */

/* Puts u, a ready work unit in no pool, into p; ctx goes to a user pool's push. The main ULT
 * too, popped by a user scheduler that moves it to another pool (as in Argobots): whichever
 * stream pops it from there hands it to the primary. */
static int push_unit(goabt_pool *p, goabt_unit *u, ABT_pool_context ctx)
{
    /* Not running, blocked, finished nor still queued. */
    GOABT_CHECK_TRUE(goabt_unit_in_no_pool(u), ABT_ERR_INV_THREAD);
    int rc = goabt_pool_member_set(p, u);
    if (rc != ABT_SUCCESS) return rc;
    goabt_pool_push_op(p, u, ctx);
    return ABT_SUCCESS;
}

int ABT_pool_push_thread_ex(ABT_pool pool, ABT_thread thread, ABT_pool_context pool_ctx)
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    if (thread == ABT_THREAD_NULL) return ABT_SUCCESS;
    GOABT_UNIT(u, thread);
    return push_unit(p, u, pool_ctx);
}

int ABT_pool_push_thread(ABT_pool pool, ABT_thread thread)
{
    return ABT_pool_push_thread_ex(pool, thread, ABT_POOL_CONTEXT_OP_POOL_OTHER);
}

int ABT_pool_push_threads_ex(ABT_pool pool, const ABT_thread *threads, size_t num,
                             ABT_pool_context pool_ctx)
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG(num == 0 || threads != NULL);
    if (p->ops->push_many != NULL && num > 0) {
        /* A pool with push_many gets them all at once, once each is checked and has its pool
         * unit; else one at a time. */
        if (num > SIZE_MAX / sizeof(goabt_unit *)) return ABT_ERR_MEM; /* num * size would wrap */
        goabt_unit **units = malloc(num * sizeof *units);
        if (units == NULL) return ABT_ERR_MEM;
        size_t n = 0;
        int rc = ABT_SUCCESS;
        for (size_t i = 0; i < num && rc == ABT_SUCCESS; i++) {
            if (threads[i] == ABT_THREAD_NULL) continue;
            goabt_unit *u = goabt_unit_of(threads[i]);
            if (u == NULL) {
                rc = ABT_ERR_INV_THREAD;
            } else if (!goabt_unit_in_no_pool(u)) {
                rc = ABT_ERR_INV_THREAD;
            } else if ((rc = goabt_pool_member_set(p, u)) == ABT_SUCCESS) {
                units[n++] = u;
            }
        }
        int done = rc == ABT_SUCCESS && goabt_pool_push_many(p, units, n, pool_ctx);
        if (!done) {
            for (size_t i = 0; i < n; i++) goabt_pool_push_op(p, units[i], pool_ctx);
        }
        free(units);
        return rc;
    }
    for (size_t i = 0; i < num; i++) {
        int rc = ABT_pool_push_thread_ex(pool, threads[i], pool_ctx);
        if (rc != ABT_SUCCESS) return rc;
    }
    return ABT_SUCCESS;
}

int ABT_pool_push_threads(ABT_pool pool, const ABT_thread *threads, size_t num)
{
    return ABT_pool_push_threads_ex(pool, threads, num, ABT_POOL_CONTEXT_OP_POOL_OTHER);
}

/* u, taken out of a pool through this API, is the caller's now: the one whose *_to calls may
 * switch to it (unit_switch.c). Returns u. */
static goabt_unit *claimed(goabt_unit *u)
{
    if (u != NULL) goabt_pool_member_claim(u, goabt_self_unit());
    return u;
}

int ABT_pool_pop_thread_ex(ABT_pool pool, ABT_thread *thread, ABT_pool_context pool_ctx)
{
    GOABT_CHECK_INIT();
    if (thread != NULL) *thread = ABT_THREAD_NULL;
    GOABT_POOL(p, pool);
    GOABT_CHECK_OUT(thread);
    goabt_unit *u = claimed(goabt_pool_pop_op(p, pool_ctx));
    *thread = u != NULL ? u : ABT_THREAD_NULL;
    return ABT_SUCCESS;
}

int ABT_pool_pop_thread(ABT_pool pool, ABT_thread *thread)
{
    return ABT_pool_pop_thread_ex(pool, thread, ABT_POOL_CONTEXT_OP_POOL_OTHER);
}

int ABT_pool_pop_threads_ex(ABT_pool pool, ABT_thread *threads, size_t len, size_t *num,
                            ABT_pool_context pool_ctx)
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG((len == 0 || threads != NULL) && num != NULL);
    size_t n = 0;
    if (goabt_pool_pop_many(p, (goabt_unit **)threads, len, num, pool_ctx)) {
        for (size_t i = 0; i < *num; i++) claimed(threads[i]);
        return ABT_SUCCESS;
    }
    while (n < len) {
        goabt_unit *u = claimed(goabt_pool_pop_op(p, pool_ctx));
        if (u == NULL) break;
        threads[n++] = u;
    }
    *num = n;
    return ABT_SUCCESS;
}

int ABT_pool_pop_threads(ABT_pool pool, ABT_thread *threads, size_t len, size_t *num)
{
    return ABT_pool_pop_threads_ex(pool, threads, len, num, ABT_POOL_CONTEXT_OP_POOL_OTHER);
}

int ABT_pool_pop_wait_thread_ex(ABT_pool pool, ABT_thread *thread, double time_secs,
                                ABT_pool_context pool_ctx)
{
    GOABT_CHECK_INIT();
    if (thread != NULL) *thread = ABT_THREAD_NULL;
    GOABT_POOL(p, pool);
    GOABT_CHECK_OUT(thread);
    int rc = ABT_SUCCESS;
    goabt_unit *u =
        claimed(goabt_pool_pop_wait_for(p, time_secs > 0 ? time_secs : 0.0, -1.0, pool_ctx, &rc));
    if (u != NULL) *thread = u;
    return rc;
}

int ABT_pool_pop_wait_thread(ABT_pool pool, ABT_thread *thread, double time_secs)
{
    return ABT_pool_pop_wait_thread_ex(pool, thread, time_secs, ABT_POOL_CONTEXT_OP_POOL_OTHER);
}

int ABT_pool_print_all_threads(ABT_pool pool, void *arg, void (*print_fn)(void *, ABT_thread))
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG(print_fn != NULL);
    return goabt_pool_print_all(p, arg, print_fn, NULL);
}

/* --- Pool units. */

int ABT_pool_pop(ABT_pool pool, ABT_unit *unit)
{
    GOABT_CHECK_INIT();
    if (unit != NULL) *unit = ABT_UNIT_NULL;
    GOABT_POOL(p, pool);
    GOABT_CHECK_OUT(unit);
    goabt_unit *u = claimed(goabt_pool_pop(p));
    if (u != NULL) *unit = goabt_unit_pool_handle(u);
    return ABT_SUCCESS;
}

static int pop_unit_until(ABT_pool pool, ABT_unit *unit, double secs, double abstime)
{
    GOABT_CHECK_INIT();
    if (unit != NULL) *unit = ABT_UNIT_NULL;
    GOABT_POOL(p, pool);
    GOABT_CHECK_OUT(unit);
    int rc = ABT_SUCCESS;
    goabt_unit *u = claimed(
        goabt_pool_pop_wait_for(p, secs, abstime, ABT_POOL_CONTEXT_OP_POOL_OTHER, &rc));
    if (u != NULL) *unit = goabt_unit_pool_handle(u);
    return rc;
}

int ABT_pool_pop_wait(ABT_pool pool, ABT_unit *unit, double time_secs)
{
    return pop_unit_until(pool, unit, time_secs > 0 ? time_secs : 0.0, -1.0);
}

int ABT_pool_pop_timedwait(ABT_pool pool, ABT_unit *unit, double abstime_secs)
{
    /* abstime_secs is on ABT_get_wtime's clock (CLOCK_MONOTONIC). */
    return pop_unit_until(pool, unit, -1.0, abstime_secs > 0 ? abstime_secs : 0.0);
}

int ABT_pool_push(ABT_pool pool, ABT_unit unit)
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_POOL_UNIT(u, unit);
    return push_unit(p, u, ABT_POOL_CONTEXT_OP_POOL_OTHER);
}

int ABT_pool_remove(ABT_pool pool, ABT_unit unit)
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_POOL_UNIT(u, unit);
    if (!goabt_pool_can(p, GOABT_POOL_CAN_REMOVE)) return ABT_ERR_POOL;
    /* Argobots ignores what the pool's remove says; goabt tells a unit that was not there
     * (written out: the removal itself, not a check, says so). */
    if (!goabt_pool_remove(p, u)) return ABT_ERR_INV_UNIT;
    claimed(u);
    return ABT_SUCCESS;
}

int ABT_pool_print_all(ABT_pool pool, void *arg, void (*print_fn)(void *, ABT_unit))
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG(print_fn != NULL);
    return goabt_pool_print_all(p, arg, NULL, print_fn);
}

int ABT_pool_get_id(ABT_pool pool, int *id)
{
    GOABT_RESOLVE_POOL(p, pool, id);
    *id = p->id;
    return ABT_SUCCESS;
}

/* ---- Schedulers --------------------------------------------------------------------------- */

int ABT_sched_create_basic(ABT_sched_predef predef, int num_pools, ABT_pool *pools,
                           ABT_sched_config config, ABT_sched *newsched)
{
    if (newsched != NULL) *newsched = ABT_SCHED_NULL;
    GOABT_CHECK_INIT();
    GOABT_CHECK_OUT(newsched);
    GOABT_CHECK_TRUE(predef == ABT_SCHED_DEFAULT || predef == ABT_SCHED_BASIC ||
                         predef == ABT_SCHED_PRIO || predef == ABT_SCHED_RANDWS ||
                         predef == ABT_SCHED_BASIC_WAIT,
                     ABT_ERR_INV_SCHED_PREDEF);
    GOABT_CHECK_ARG(num_pools >= 0 && num_pools <= GOABT_SCHED_MAX_POOLS);
    /* A predefined scheduler given no pool (an array of none) could never run a unit, and its
     * stream would die at the first push or yield: refused here, the first call that knows.
     * (Native Argobots accepts it and dies there.) pools NULL still means Argobots' default. */
    GOABT_CHECK_ARG(num_pools != 0 || pools == NULL);
    goabt_pool *list[GOABT_SCHED_MAX_POOLS];
    int n = num_pools;
    int kind = predef == ABT_SCHED_BASIC_WAIT ? ABT_POOL_FIFO_WAIT : ABT_POOL_FIFO;
    if (pools == NULL) {
        n = predef == ABT_SCHED_PRIO ? 3 : 1; /* Argobots' defaults for each predefined one */
        for (int i = 0; i < n; i++) list[i] = NULL;
    } else {
        for (int i = 0; i < n; i++) {
            GOABT_POOL_OR_NULL(p, pools[i]);
            list[i] = p;
        }
    }
    for (int i = 0; i < n; i++) {
        if (list[i] == NULL) {
            list[i] = goabt_pool_new_predef(kind, ABT_POOL_ACCESS_MPMC, 1);
            if (list[i] == NULL) return ABT_ERR_MEM;
        }
    }
    /* ABT_sched_config_automatic may say otherwise; ABT_sched_basic_freq has no effect here:
     * goabt's loop looks at requests on every round. */
    int automatic = goabt_sched_config_int(config, ABT_sched_config_automatic.idx, 1) != 0;
    goabt_sched *s = goabt_sched_new_predef(predef == ABT_SCHED_DEFAULT ? ABT_SCHED_BASIC : predef,
                                            n, list, automatic);
    if (s == NULL) return ABT_ERR_MEM;
    GOABT_LEAK_NOTE(GOABT_LEAK_SCHED, s);
    *newsched = s;
    return ABT_SUCCESS;
}

int ABT_sched_free(ABT_sched *sched)
{
    GOABT_CHECK_TRUE(sched != NULL, ABT_ERR_INV_SCHED);
    GOABT_SCHED(s, *sched);
    /* In use, or its run function is still live (replaced while it ran: it returns first). */
    if (s->used || __atomic_load_n(&s->in_run, __ATOMIC_ACQUIRE)) return ABT_ERR_SCHED;
    goabt_sched_delete(s);
    *sched = ABT_SCHED_NULL;
    return ABT_SUCCESS;
}

int ABT_sched_get_num_pools(ABT_sched sched, int *num_pools)
{
    GOABT_SCHED(s, sched);
    GOABT_CHECK_OUT(num_pools);
    *num_pools = s->num_pools;
    return ABT_SUCCESS;
}

int ABT_sched_get_pools(ABT_sched sched, int max_pools, int idx, ABT_pool *pools)
{
    GOABT_SCHED(s, sched);
    GOABT_CHECK_ARG(max_pools >= 0 && idx >= 0 && (max_pools == 0 || pools != NULL));
    /* idx + max_pools could overflow an int: compare what is left after idx instead. */
    if (idx > s->num_pools || max_pools > s->num_pools - idx) return ABT_ERR_SCHED;
    for (int i = 0; i < max_pools; i++) pools[i] = s->pools[idx + i];
    return ABT_SUCCESS;
}

/* A scheduler stacked in a pool (engine/sched_stacked.c). */
int ABT_pool_add_sched(ABT_pool pool, ABT_sched sched)
{
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    GOABT_SCHED(sc, sched);
    return goabt_sched_stack(p, sc);
}
