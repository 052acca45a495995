//go:build goabt_c_engine
/* sched.c: the scheduler entry points (ABT_sched_*, and what a user scheduler's run function
 * calls: ABT_xstream_run_unit, ABT_self_schedule, ABT_xstream_check_events); the loop and user
 * schedulers' runs are engine/sched.c and engine/sched_user.c, the predefined schedulers'
 * creation api/pool.c, configurations api/config.c. */
#include "args.h"
#include "engine/handles.h"
#include "engine/leaks.h"
#include "engine/pool.h"
#include "engine/runtime.h"
#include "engine/scheduler.h"
#include "engine/stream.h"
#include "engine/unit.h"
#include "engine/wait.h"

/* ---- Creating ------------------------------------------------------------------------------ */

int ABT_sched_create(ABT_sched_def *def, int num_pools, ABT_pool *pools, ABT_sched_config config,
                     ABT_sched *newsched)
{
    if (newsched != NULL) *newsched = ABT_SCHED_NULL;
    GOABT_CHECK_INIT();
    GOABT_CHECK_ARG(newsched != NULL && def != NULL && def->run != NULL);
    GOABT_CHECK_ARG(num_pools >= 0 && num_pools <= GOABT_SCHED_MAX_POOLS);
    goabt_pool *list[GOABT_SCHED_MAX_POOLS];
    for (int i = 0; i < num_pools; i++) {
        GOABT_POOL_OR_NULL(p, pools != NULL ? pools[i] : ABT_POOL_NULL);
        list[i] = p;
    }
    for (int i = 0; i < num_pools; i++) { /* ABT_POOL_NULL (or no array): a new FIFO pool */
        if (list[i] == NULL &&
            (list[i] = goabt_pool_new_predef(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPSC, 1)) == NULL) {
            return ABT_ERR_MEM;
        }
    }
    /* Not freed automatically unless the configuration says so (Argobots' default for user
     * schedulers). */
    int automatic = goabt_sched_config_int(config, ABT_sched_config_automatic.idx, 0) != 0;
    goabt_sched *sc = goabt_sched_new(&goabt_sched_user_ops, -1, num_pools, list, automatic);
    if (sc == NULL) return ABT_ERR_MEM;
    sc->def = *def;
    if (def->init != NULL) {
        int rc = def->init(sc, config);
        if (rc != ABT_SUCCESS) {
            sc->def.free = NULL; /* not initialized: not finalized either */
            goabt_sched_delete(sc);
            return rc;
        }
    }
    GOABT_LEAK_NOTE(GOABT_LEAK_SCHED, sc);
    *newsched = sc;
    return ABT_SUCCESS;
}

int ABT_xstream_run_unit(ABT_unit unit, ABT_pool pool)
{
    GOABT_CHECK_INIT();
    GOABT_POOL_UNIT(u, unit);
    GOABT_POOL(p, pool);
    return goabt_sched_run_unit(u, p);
}

int ABT_self_schedule(ABT_thread thread, ABT_pool pool)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    GOABT_POOL_OR_NULL(p, pool);
    return goabt_sched_run_unit(u, p);
}

int ABT_xstream_check_events(ABT_sched sched)
{
    GOABT_CHECK_INIT();
    GOABT_SCHED(sc, sched);
    goabt_stream *s = goabt_self_stream();
    GOABT_CHECK_TRUE(s != NULL, ABT_ERR_INV_XSTREAM);
    goabt_unit *self = s->current;
    if (self != NULL) {
        /* A ULT (a stacked scheduler's, or one running units itself) may step aside; a
         * tasklet only fires due timers. */
        if (self->kind == GOABT_ULT) {
            /* Idle: nothing queued, or only a stacked scheduler that just stepped aside. */
            goabt_sched_ult_events(sc, goabt_sched_queued(sc) == 0 || s->aside);
        } else if (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_RELAXED) != 0 &&
                   goabt_timers_due()) {
            goabt_timers_fire();
        }
        return ABT_SUCCESS;
    }
    if (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_RELAXED) != 0 && goabt_timers_due()) {
        goabt_timers_fire();
    }
    if (s->is_primary && __atomic_load_n(&s->main_handoff, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&s->main_handoff, 0, __ATOMIC_RELAXED);
        goabt_unit_resume_main(s);
    }
    return ABT_SUCCESS;
}

int ABT_sched_has_to_stop(ABT_sched sched, ABT_bool *stop)
{
    GOABT_CHECK_INIT();
    GOABT_SCHED(sc, sched);
    GOABT_CHECK_OUT(stop);
    goabt_stream *s = goabt_self_stream();
    /* Asked of a scheduler other than the caller's stream's: only its own requests count. */
    if (s != NULL && s->sched != sc && sc->used) s = NULL;
    *stop = goabt_sched_stop_now(s, sc) ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

/* ---- Controls and queries --------------------------------------------------------------------- */

int ABT_sched_finish(ABT_sched sched)
{
    GOABT_SCHED(sc, sched);
    __atomic_store_n(&sc->finish_req, 1, __ATOMIC_RELEASE);
    goabt_streams_wake_all();
    return ABT_SUCCESS;
}

int ABT_sched_exit(ABT_sched sched)
{
    GOABT_SCHED(sc, sched);
    __atomic_store_n(&sc->exit_req, 1, __ATOMIC_RELEASE);
    goabt_streams_wake_all();
    return ABT_SUCCESS;
}

int ABT_sched_set_data(ABT_sched sched, void *data)
{
    GOABT_SCHED(sc, sched);
    sc->data = data;
    return ABT_SUCCESS;
}

int ABT_sched_get_data(ABT_sched sched, void **data)
{
    GOABT_SCHED(sc, sched);
    GOABT_CHECK_OUT(data);
    *data = sc->data;
    return ABT_SUCCESS;
}

static int sched_size(ABT_sched sched, size_t *size, int with_blocked)
{
    GOABT_SCHED(sc, sched);
    GOABT_CHECK_OUT(size);
    size_t n = 0;
    for (int i = 0; i < sc->num_pools; i++) {
        goabt_pool *p = sc->pools[i];
        if (!goabt_pool_can(p, GOABT_POOL_CAN_SIZE)) return ABT_ERR_POOL;
        n += goabt_pool_size(p);
        if (with_blocked) {
            long blocked = goabt_pool_num_blocked(p);
            n += blocked > 0 ? (size_t)blocked : 0;
        }
    }
    *size = n;
    return ABT_SUCCESS;
}

int ABT_sched_get_size(ABT_sched sched, size_t *size) { return sched_size(sched, size, 0); }

int ABT_sched_get_total_size(ABT_sched sched, size_t *size) { return sched_size(sched, size, 1); }
