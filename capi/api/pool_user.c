//go:build goabt_c_engine
/* pool_user.c: the entry points of user-defined pools: their definitions
 * (ABT_pool_user_def_*), ABT_pool_create, pool data, and ABT_unit_set_associated_pool. Pool
 * configurations (ABT_pool_config_*): config.c. How the engine runs such a pool (its copy of the
 * definition, pool units): engine/pool_user.c. */
#include <stdlib.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/leaks.h"
#include "engine/object.h"
#include "engine/pool.h"
#include "engine/pool_member.h"

/* ---- Definitions ------------------------------------------------------------------------------ */

int ABT_pool_user_def_create(ABT_pool_user_create_unit_fn p_create_unit,
                             ABT_pool_user_free_unit_fn p_free_unit,
                             ABT_pool_user_is_empty_fn p_is_empty, ABT_pool_user_pop_fn p_pop,
                             ABT_pool_user_push_fn p_push, ABT_pool_user_def *newdef)
{
    if (newdef != NULL) *newdef = ABT_POOL_USER_DEF_NULL;
    GOABT_CHECK_NOT_FORKED();
    GOABT_CHECK_ARG(newdef != NULL && p_create_unit && p_free_unit && p_is_empty && p_pop &&
                    p_push);
    goabt_pool_user_def *d = goabt_pool_user_def_new(p_create_unit, p_free_unit, p_is_empty, p_pop,
                                                     p_push);
    if (d == NULL) return ABT_ERR_MEM;
    GOABT_LEAK_NOTE(GOABT_LEAK_POOL_USER_DEF, d);
    *newdef = (ABT_pool_user_def)d;
    return ABT_SUCCESS;
}

int ABT_pool_user_def_free(ABT_pool_user_def *def)
{
    GOABT_CHECK_OUT(def);
    GOABT_POOL_USER_DEF(d, *def);
    GOABT_LEAK_FORGET(d);
    goabt_mem_delete(d, sizeof *d);
    *def = ABT_POOL_USER_DEF_NULL;
    return ABT_SUCCESS;
}

#define SET_USER_FN(field, value)                                                              \
    do {                                                                                       \
        GOABT_POOL_USER_DEF(d, def);                                                           \
        d->field = (value);                                                                    \
        return ABT_SUCCESS;                                                                    \
    } while (0)

int ABT_pool_user_def_set_init(ABT_pool_user_def def, ABT_pool_user_init_fn p_init)
{
    SET_USER_FN(init, p_init);
}

int ABT_pool_user_def_set_free(ABT_pool_user_def def, ABT_pool_user_free_fn p_free)
{
    SET_USER_FN(free, p_free);
}

int ABT_pool_user_def_set_get_size(ABT_pool_user_def def, ABT_pool_user_get_size_fn p_get_size)
{
    SET_USER_FN(get_size, p_get_size);
}

int ABT_pool_user_def_set_pop_wait(ABT_pool_user_def def, ABT_pool_user_pop_wait_fn p_pop_wait)
{
    SET_USER_FN(pop_wait, p_pop_wait);
}

int ABT_pool_user_def_set_pop_many(ABT_pool_user_def def, ABT_pool_user_pop_many_fn p_pop_many)
{
    SET_USER_FN(pop_many, p_pop_many);
}

int ABT_pool_user_def_set_push_many(ABT_pool_user_def def, ABT_pool_user_push_many_fn p_push_many)
{
    SET_USER_FN(push_many, p_push_many);
}

int ABT_pool_user_def_set_print_all(ABT_pool_user_def def, ABT_pool_user_print_all_fn p_print_all)
{
    SET_USER_FN(print_all, p_print_all);
}

/* ---- Creating a user pool --------------------------------------------------------------------- */

int ABT_pool_create(ABT_pool_user_def def, ABT_pool_config config, ABT_pool *newpool)
{
    if (newpool != NULL) *newpool = ABT_POOL_NULL;
    GOABT_CHECK_INIT();
    GOABT_CHECK_OUT(newpool);
    GOABT_CHECK_TRUE((uintptr_t)def >= 4096, ABT_ERR_INV_POOL_USER_DEF);
    struct ABT_pool_config_opaque *c = NULL;
    if (config != ABT_POOL_CONFIG_NULL && config != NULL) {
        c = goabt_pool_config_of(config);
        GOABT_CHECK_TRUE(c != NULL, ABT_ERR_INV_POOL_CONFIG);
    }
    struct goabt_pool_user *pu = calloc(1, sizeof *pu);
    if (pu == NULL) return ABT_ERR_MEM;
    int access = ABT_POOL_ACCESS_MPMC;
    if (*(const int *)def == GOABT_USER_DEF_TAG) {
        goabt_pool_user_def *d = goabt_pool_user_def_of(def);
        if (d == NULL) {
            free(pu); /* written out: pu, allocated first (ABT_ERR_MEM wins), is freed */
            return ABT_ERR_INV_POOL_USER_DEF;
        }
        pu->def = *d;
    } else {
        /* The older definition: it must at least make, free, push and pop units and count
         * them (what Argobots requires of it). */
        const struct ABT_pool_def *old = def;
        if ((int)old->access < ABT_POOL_ACCESS_PRIV || old->access > ABT_POOL_ACCESS_MPMC ||
            !old->u_create_from_thread || !old->u_free || !old->p_get_size || !old->p_push ||
            !old->p_pop) {
            free(pu); /* written out, as above */
            return ABT_ERR_INV_POOL_USER_DEF;
        }
        pu->old_style = 1;
        pu->old = *old;
        access = old->access;
    }
    int automatic = goabt_pool_config_int(c, ABT_pool_config_automatic.key, 0) != 0;
    goabt_asym_fence_decide(); /* before any push into a user C pool */
    goabt_pool *p = goabt_user_pool_new(pu, access, automatic);
    if (p == NULL) {
        free(pu);
        return ABT_ERR_MEM;
    }
    ABT_pool_init_fn init = pu->old_style ? pu->old.p_init : pu->def.init;
    if (init != NULL) {
        int rc = init(p, c != NULL ? (ABT_pool_config)c : ABT_POOL_CONFIG_NULL);
        if (rc != ABT_SUCCESS) {
            /* Not initialized: its free function is not called. */
            p->kind_state = NULL;
            free(pu);
            goabt_pool_delete(p);
            return rc;
        }
    }
    GOABT_LEAK_NOTE(GOABT_LEAK_POOL, p);
    *newpool = p;
    return ABT_SUCCESS;
}

/* ---- Pool data and pool units from the API ------------------------------------------------------ */

int ABT_pool_set_data(ABT_pool pool, void *data)
{
    GOABT_POOL(p, pool);
    p->data = data;
    return ABT_SUCCESS;
}

int ABT_pool_get_data(ABT_pool pool, void **data)
{
    GOABT_POOL(p, pool);
    GOABT_CHECK_OUT(data);
    *data = p->data;
    return ABT_SUCCESS;
}

int ABT_unit_set_associated_pool(ABT_unit unit, ABT_pool pool)
{
    GOABT_POOL_UNIT(u, unit);
    GOABT_POOL(p, pool);
    return goabt_pool_member_set(p, u);
}
