//go:build goabt_c_engine
/* Pools and schedulers as the API sees them (ABT_pool_*, ABT_sched_*); the queues themselves
 * are in pool.c. */
#include "args.h"
#include "engine.h"

int ABT_pool_create_basic(ABT_pool_kind kind, ABT_pool_access access, ABT_bool automatic,
                          ABT_pool *newpool)
{
    if (newpool != NULL) *newpool = ABT_POOL_NULL;
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    /* ABT_POOL_RANDWS is served by the same queue: any order a pool pops in is a valid one. */
    if (kind != ABT_POOL_FIFO && kind != ABT_POOL_FIFO_WAIT && kind != ABT_POOL_RANDWS) {
        return ABT_ERR_INV_POOL_KIND;
    }
    if ((int)access < ABT_POOL_ACCESS_PRIV || access > ABT_POOL_ACCESS_MPMC) {
        return ABT_ERR_INV_POOL_ACCESS;
    }
    if (newpool == NULL) return ABT_ERR_INV_ARG;
    goabt_pool *p = goabt_pool_new(kind, access, automatic ? 1 : 0);
    if (p == NULL) return ABT_ERR_MEM;
    *newpool = p;
    return ABT_SUCCESS;
}

int ABT_pool_free(ABT_pool *pool)
{
    if (pool == NULL) return ABT_ERR_INV_POOL;
    goabt_pool *p = goabt_pool_of(*pool);
    if (p == NULL) return ABT_ERR_INV_POOL;
    /* Argobots leaves freeing a pool in use undefined; goabt refuses one a scheduler uses, one
     * with queued units, and one that parked ULTs belong to (they come back to it). */
    if (__atomic_load_n(&p->num_scheds, __ATOMIC_ACQUIRE) > 0 ||
        __atomic_load_n(&p->size, __ATOMIC_ACQUIRE) > 0 ||
        goabt_pool_num_blocked(p) > 0) {
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
    *is_empty = __atomic_load_n(&p->size, __ATOMIC_ACQUIRE) == 0 ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_pool_get_size(ABT_pool pool, size_t *size)
{
    GOABT_RESOLVE_POOL(p, pool, size);
    *size = __atomic_load_n(&p->size, __ATOMIC_ACQUIRE);
    return ABT_SUCCESS;
}

int ABT_pool_get_total_size(ABT_pool pool, size_t *size)
{
    GOABT_RESOLVE_POOL(p, pool, size);
    long blocked = goabt_pool_num_blocked(p);
    *size = __atomic_load_n(&p->size, __ATOMIC_ACQUIRE) + (size_t)(blocked > 0 ? blocked : 0);
    return ABT_SUCCESS;
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
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    if (newsched == NULL) return ABT_ERR_INV_ARG;
    if (predef != ABT_SCHED_DEFAULT && predef != ABT_SCHED_BASIC && predef != ABT_SCHED_PRIO &&
        predef != ABT_SCHED_RANDWS && predef != ABT_SCHED_BASIC_WAIT) {
        return ABT_ERR_INV_SCHED_PREDEF;
    }
    if (num_pools < 0 || num_pools > GOABT_SCHED_MAX_POOLS) return ABT_ERR_INV_ARG;
    goabt_pool *list[GOABT_SCHED_MAX_POOLS];
    int n = num_pools;
    int kind = predef == ABT_SCHED_BASIC_WAIT ? ABT_POOL_FIFO_WAIT : ABT_POOL_FIFO;
    if (pools == NULL) {
        n = predef == ABT_SCHED_PRIO ? 3 : 1; /* Argobots' defaults for each predefined one */
        for (int i = 0; i < n; i++) list[i] = NULL;
    } else {
        for (int i = 0; i < n; i++) {
            if (pools[i] == ABT_POOL_NULL) {
                list[i] = NULL;
            } else if ((list[i] = goabt_pool_of(pools[i])) == NULL) {
                return ABT_ERR_INV_POOL;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        if (list[i] == NULL) {
            list[i] = goabt_pool_new(kind, ABT_POOL_ACCESS_MPMC, 1);
            if (list[i] == NULL) return ABT_ERR_MEM;
        }
    }
    /* ABT_sched_config_automatic may say otherwise; ABT_sched_basic_freq has no effect here:
     * goabt's loop looks at requests on every round. */
    int automatic = goabt_sched_config_int(config, ABT_sched_config_automatic.idx, 1) != 0;
    goabt_sched *s = goabt_sched_new(predef == ABT_SCHED_DEFAULT ? ABT_SCHED_BASIC : predef, n,
                                     list, automatic);
    if (s == NULL) return ABT_ERR_MEM;
    *newsched = s;
    return ABT_SUCCESS;
}

int ABT_sched_free(ABT_sched *sched)
{
    if (sched == NULL) return ABT_ERR_INV_SCHED;
    goabt_sched *s = goabt_sched_of(*sched);
    if (s == NULL) return ABT_ERR_INV_SCHED;
    if (s->used) return ABT_ERR_SCHED;
    goabt_sched_delete(s);
    *sched = ABT_SCHED_NULL;
    return ABT_SUCCESS;
}

int ABT_sched_get_num_pools(ABT_sched sched, int *num_pools)
{
    goabt_sched *s = goabt_sched_of(sched);
    if (s == NULL) return ABT_ERR_INV_SCHED;
    if (num_pools == NULL) return ABT_ERR_INV_ARG;
    *num_pools = s->num_pools;
    return ABT_SUCCESS;
}

int ABT_sched_get_pools(ABT_sched sched, int max_pools, int idx, ABT_pool *pools)
{
    goabt_sched *s = goabt_sched_of(sched);
    if (s == NULL) return ABT_ERR_INV_SCHED;
    if (max_pools < 0 || idx < 0 || (max_pools > 0 && pools == NULL)) return ABT_ERR_INV_ARG;
    if (idx + max_pools > s->num_pools) return ABT_ERR_SCHED;
    for (int i = 0; i < max_pools; i++) pools[i] = s->pools[idx + i];
    return ABT_SUCCESS;
}
