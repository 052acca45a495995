//go:build goabt_c_engine
/* goabt.c: goabt's own entry points beside Argobots' (include/goabt.h): pools and schedulers
 * written in Go, made by name; their engine is engine/pool_go.c. (The waiting-state queries of
 * goabt.h are with their objects: mutex.c, eventual.c.) */
#include "args.h"
#include "goabt.h"
#include "engine/handles.h"
#include "engine/leaks.h"
#include "engine/pool.h"
#include "engine/scheduler.h"

int goabt_pool_create_go(const char *name, ABT_pool_access access, ABT_bool automatic,
                         ABT_pool *newpool)
{
    if (newpool != NULL) *newpool = ABT_POOL_NULL;
    GOABT_CHECK_INIT();
    GOABT_CHECK_TRUE((int)access >= ABT_POOL_ACCESS_PRIV && access <= ABT_POOL_ACCESS_MPMC,
                     ABT_ERR_INV_POOL_ACCESS);
    GOABT_CHECK_ARG(name != NULL && newpool != NULL);
    goabt_pool *p;
    int rc = goabt_pool_new_go(name, access, automatic ? 1 : 0, &p);
    if (rc == ABT_SUCCESS) {
        GOABT_LEAK_NOTE(GOABT_LEAK_POOL, p);
        *newpool = p;
    }
    return rc;
}

int goabt_sched_create_go(const char *name, int num_pools, ABT_pool *pools,
                          ABT_sched_config config, ABT_sched *newsched)
{
    if (newsched != NULL) *newsched = ABT_SCHED_NULL;
    GOABT_CHECK_INIT();
    GOABT_CHECK_ARG(name != NULL && newsched != NULL);
    GOABT_CHECK_ARG(num_pools >= 1 && num_pools <= GOABT_SCHED_MAX_POOLS);
    goabt_pool *list[GOABT_SCHED_MAX_POOLS];
    for (int i = 0; i < num_pools; i++) {
        GOABT_POOL_OR_NULL(p, pools != NULL ? pools[i] : ABT_POOL_NULL);
        list[i] = p;
    }
    int automatic = goabt_sched_config_int(config, ABT_sched_config_automatic.idx, 1) != 0;
    goabt_sched *sc;
    int rc = goabt_sched_new_go(name, num_pools, list, automatic, &sc);
    if (rc == ABT_SUCCESS) {
        GOABT_LEAK_NOTE(GOABT_LEAK_SCHED, sc);
        *newsched = sc;
    }
    return rc;
}
