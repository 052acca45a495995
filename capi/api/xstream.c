//go:build goabt_c_engine
/* Execution streams (ABT_xstream_*). */
#include "args.h"
#include "engine/handles.h"
#include "engine/pool.h"
#include "engine/pool_member.h"
#include "engine/runtime.h"
#include "engine/scheduler.h"
#include "engine/stream.h"
#include "engine/unit.h"
#include "engine/wait.h"
#include "gocalls.h"


/* The scheduler a new stream runs: sched, or a new default one for ABT_SCHED_NULL. */
static int stream_sched(ABT_sched sched, goabt_sched **out)
{
    if (sched == ABT_SCHED_NULL) {
        goabt_pool *p = goabt_pool_new_predef(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, 1);
        if (p == NULL) return ABT_ERR_MEM;
        *out = goabt_sched_new_predef(ABT_SCHED_BASIC, 1, &p, 1);
        if (*out == NULL) {
            goabt_pool_delete(p);
            return ABT_ERR_MEM;
        }
        return ABT_SUCCESS;
    }
    GOABT_SCHED(sc, sched);
    GOABT_CHECK_TRUE(!sc->used, ABT_ERR_INV_SCHED);
    *out = sc;
    return ABT_SUCCESS;
}

static int create_stream_entered(ABT_sched sched, int rank, ABT_xstream *newxstream)
{
    GOABT_CHECK_OUT(newxstream);
    goabt_sched *sc;
    int rc = stream_sched(sched, &sc);
    if (rc != ABT_SUCCESS) return rc;
    int got = goabt_rank_take(rank);
    if (got < 0) {
        if (sched == ABT_SCHED_NULL) goabt_sched_delete(sc);
        return ABT_ERR_INV_XSTREAM_RANK; /* written out: the default scheduler is freed first */
    }
    goabt_stream *s = goabt_stream_new(sc, got);
    if (s == NULL) {
        goabt_rank_release(got);
        if (sched == ABT_SCHED_NULL) goabt_sched_delete(sc);
        return ABT_ERR_MEM;
    }
    __atomic_add_fetch(&goabt_rt.next_pool_id, 1, __ATOMIC_RELAXED); /* Argobots' root pool id */
    rc = goabt_stream_start(s);
    if (rc != ABT_SUCCESS) {
        goabt_rank_release(got);
        s->sched->automatic = sched == ABT_SCHED_NULL;
        goabt_stream_delete(s);
        return rc;
    }
    *newxstream = s;
    return ABT_SUCCESS;
}

/* Creates a stream, unless finalize has begun (stream.c, goabt_stream_calls_enter). */
static int create_stream(ABT_sched sched, int rank, ABT_xstream *newxstream)
{
    int rc = goabt_stream_calls_enter();
    if (rc != ABT_SUCCESS) return rc;
    rc = create_stream_entered(sched, rank, newxstream);
    goabt_stream_calls_exit();
    return rc;
}

int ABT_xstream_create(ABT_sched sched, ABT_xstream *newxstream)
{
    if (newxstream != NULL) *newxstream = ABT_XSTREAM_NULL;
    GOABT_CHECK_INIT();
    return create_stream(sched, -1, newxstream);
}

int ABT_xstream_create_with_rank(ABT_sched sched, int rank, ABT_xstream *newxstream)
{
    if (newxstream != NULL) *newxstream = ABT_XSTREAM_NULL;
    GOABT_CHECK_INIT();
    GOABT_CHECK_TRUE(rank >= 0, ABT_ERR_INV_XSTREAM_RANK);
    return create_stream(sched, rank, newxstream);
}

int ABT_xstream_create_basic(ABT_sched_predef predef, int num_pools, ABT_pool *pools,
                             ABT_sched_config config, ABT_xstream *newxstream)
{
    if (newxstream != NULL) *newxstream = ABT_XSTREAM_NULL;
    GOABT_CHECK_INIT();
    ABT_sched sched;
    int rc = ABT_sched_create_basic(predef, num_pools, pools, config, &sched);
    if (rc != ABT_SUCCESS) return rc;
    rc = create_stream(sched, -1, newxstream);
    if (rc != ABT_SUCCESS) ABT_sched_free(&sched);
    return rc;
}

/* A stream the caller may join or free: not the primary, not the one the caller runs on. */
static goabt_stream *joinable(ABT_xstream xstream)
{
    goabt_stream *s = goabt_stream_of(xstream);
    if (s == NULL || s->is_primary || s == goabt_self_stream()) return NULL;
    return s;
}

/* After a join, a ULT lets the units readied on its own stream meanwhile run before it goes
 * on, as it would have under Argobots, whose join yields while it waits: a program may take
 * the joins as the point where its other ULTs have caught up (Argobots' own barrier test resets
 * what they use right after joining the streams; with the joiner resumed first, the primary's
 * ULTs still queued ran against the reset state). */
static void after_join(void)
{
    if (goabt_caller_parks()) goabt_unit_yield();
}

/* Join, free and revive run between goabt_stream_calls_enter and _exit: finalize, which joins
 * and frees the streams left, waits for them, and they lose to a finalize that began first. */
int ABT_xstream_join(ABT_xstream xstream)
{
    GOABT_CHECK_INIT();
    int rc = goabt_stream_calls_enter();
    if (rc != ABT_SUCCESS) return rc;
    goabt_stream *s = joinable(xstream);
    if (s != NULL) goabt_stream_join(s);
    goabt_stream_calls_exit();
    GOABT_CHECK_TRUE(s != NULL, ABT_ERR_INV_XSTREAM);
    after_join();
    return ABT_SUCCESS;
}

int ABT_xstream_free(ABT_xstream *xstream)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_TRUE(xstream != NULL, ABT_ERR_INV_XSTREAM);
    int rc = goabt_stream_calls_enter();
    if (rc != ABT_SUCCESS) return rc;
    goabt_stream *s = joinable(*xstream);
    if (s != NULL) {
        goabt_stream_join(s);
        goabt_rank_release(s->rank);
        goabt_stream_delete(s);
        *xstream = ABT_XSTREAM_NULL;
    }
    goabt_stream_calls_exit();
    GOABT_CHECK_TRUE(s != NULL, ABT_ERR_INV_XSTREAM);
    after_join();
    return ABT_SUCCESS;
}

int ABT_xstream_revive(ABT_xstream xstream)
{
    GOABT_CHECK_INIT();
    int rc = goabt_stream_calls_enter();
    if (rc != ABT_SUCCESS) return rc;
    goabt_stream *s = joinable(xstream);
    rc = ABT_ERR_INV_XSTREAM;
    /* Only once joined: terminated, and its thread collected. */
    if (s != NULL && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == ABT_XSTREAM_STATE_TERMINATED &&
        s->thread == 0) {
        rc = goabt_stream_revive(s);
    }
    goabt_stream_calls_exit();
    return rc;
}

/* Stops s's main scheduler at once, whatever is left in its pools: s ends. */
static void stop_stream(goabt_stream *s)
{
    __atomic_store_n(&s->sched->exit_req, 1, __ATOMIC_RELEASE);
    goabt_stream_wake(s);
}

int ABT_xstream_exit(void)
{
    GOABT_SELF(s, self);
    GOABT_CHECK_TRUE(self->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    GOABT_CHECK_TRUE(!s->is_primary, ABT_ERR_INV_XSTREAM);
    stop_stream(s);
    goabt_unit_exit(); /* the stream's scheduler sees the request once the caller is gone */
}

int ABT_xstream_cancel(ABT_xstream xstream)
{
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    GOABT_CHECK_TRUE(!s->is_primary, ABT_ERR_INV_XSTREAM);
    stop_stream(s);
    return ABT_SUCCESS;
}

int ABT_xstream_self(ABT_xstream *xstream)
{
    if (xstream != NULL) *xstream = ABT_XSTREAM_NULL;
    GOABT_SELF_STREAM(s);
    GOABT_CHECK_OUT(xstream);
    *xstream = s;
    return ABT_SUCCESS;
}

int ABT_xstream_self_rank(int *rank)
{
    GOABT_SELF_STREAM(s);
    GOABT_CHECK_OUT(rank);
    *rank = s->rank;
    return ABT_SUCCESS;
}


int ABT_xstream_get_rank(ABT_xstream xstream, int *rank)
{
    GOABT_RESOLVE_STREAM(s, xstream, rank);
    *rank = s->rank;
    return ABT_SUCCESS;
}

int ABT_xstream_set_rank(ABT_xstream xstream, int rank)
{
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    GOABT_CHECK_TRUE(!s->is_primary, ABT_ERR_INV_XSTREAM);
    GOABT_CHECK_TRUE(rank >= 0, ABT_ERR_INV_XSTREAM_RANK);
    if (!goabt_rank_move(s->rank, rank)) return ABT_ERR_INV_XSTREAM_RANK; /* the move itself */
    s->rank = rank;
    goabt_stream_bind_rank(s); /* a new rank, new CPUs, as in Argobots */
    return ABT_SUCCESS;
}

int ABT_xstream_get_main_pools(ABT_xstream xstream, int max_pools, ABT_pool *pools)
{
    GOABT_STREAM(s, xstream);
    GOABT_CHECK_ARG(max_pools >= 0 && (max_pools == 0 || pools != NULL));
    for (int i = 0; i < max_pools && i < s->sched->num_pools; i++) pools[i] = s->sched->pools[i];
    return ABT_SUCCESS;
}

int ABT_xstream_get_main_sched(ABT_xstream xstream, ABT_sched *sched)
{
    GOABT_RESOLVE_STREAM(s, xstream, sched);
    *sched = s->sched;
    return ABT_SUCCESS;
}

int ABT_xstream_get_state(ABT_xstream xstream, ABT_xstream_state *state)
{
    GOABT_RESOLVE_STREAM(s, xstream, state);
    *state = (ABT_xstream_state)__atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
    return ABT_SUCCESS;
}

int ABT_xstream_is_primary(ABT_xstream xstream, ABT_bool *is_primary)
{
    GOABT_RESOLVE_STREAM(s, xstream, is_primary);
    *is_primary = s->is_primary ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_xstream_equal(ABT_xstream xstream1, ABT_xstream xstream2, ABT_bool *result)
{
    GOABT_CHECK_OUT(result);
    *result = xstream1 == xstream2 ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_xstream_get_num(int *num_xstreams)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_OUT(num_xstreams);
    *num_xstreams = __atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED);
    return ABT_SUCCESS;
}

/* Whether pool p is one of sc's pools. */
static int sched_has_pool(goabt_sched *sc, goabt_pool *p)
{
    for (int i = 0; i < sc->num_pools; i++) {
        if (sc->pools[i] == p) return 1;
    }
    return 0;
}

/* Replaces s's main scheduler with sc. The loop of s picks sc up at its next round. Units queued
 * in pools that go away with the old scheduler move to sc's first pool, and so does the caller
 * if its pool is one of the old scheduler's. An old user scheduler whose run function is still
 * live on s, below the caller (it ran the caller with ABT_xstream_run_unit; on the primary it
 * may wait below the main ULT it ran, sched_user.c), is retired when that run returns (it sees
 * ABT_sched_has_to_stop), as in Argobots: freed now, it would run on in freed memory. */
static void replace_main_sched(goabt_stream *s, goabt_sched *sc, goabt_unit *self)
{
    goabt_sched *old = s->sched;
    sc->used = GOABT_SCHED_MAIN;
    sc->retire_deferred = 0; /* main again before its run returned: it stays */
    s->sched = sc;
    old->used = GOABT_SCHED_UNUSED;
    if (self != NULL && sched_has_pool(old, self->pool) && !sched_has_pool(sc, self->pool)) {
        goabt_pool_member_redirect(self, sc->pools[0]);
    }
    if (!old->automatic) return;
    if (s->user_run == old) {
        old->retire_deferred = 1;
        return;
    }
    goabt_sched_retire(s, old);
}

int ABT_xstream_set_main_sched(ABT_xstream xstream, ABT_sched sched)
{
    GOABT_SELF_STREAM(self_stream);
    goabt_unit *self = self_stream->current;
    GOABT_CHECK_TRUE(self != NULL && self->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    GOABT_STREAM(s, xstream);
    /* A running stream changes its scheduler only from a ULT running on it. */
    if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == ABT_XSTREAM_STATE_RUNNING &&
        s != self_stream) {
        return ABT_ERR_XSTREAM_STATE;
    }
    goabt_sched *sc;
    int rc = stream_sched(sched, &sc);
    if (rc != ABT_SUCCESS) return rc;
    /* The caller goes on in the new scheduler's first pool: a user-defined scheduler without
     * one would leave it nowhere (Argobots crashes at its next yield). */
    GOABT_CHECK_TRUE(s != self_stream || sc->num_pools != 0, ABT_ERR_INV_SCHED);
    replace_main_sched(s, sc, s == self_stream ? self : NULL);
    /* A replaced user scheduler of the primary whose run ran the main ULT waits below it for it
     * to step aside (sched_user.c): the caller yields until that run has seen it has to stop
     * and returned, as Argobots' caller waits for the old scheduler to finish. */
    while (s->run_ctx != NULL && s->user_run != s->sched) goabt_unit_yield();
    return ABT_SUCCESS;
}

int ABT_xstream_set_main_sched_basic(ABT_xstream xstream, ABT_sched_predef predef, int num_pools,
                                     ABT_pool *pools)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_TRUE(goabt_self_stream() != NULL, ABT_ERR_INV_XSTREAM);
    ABT_sched sched;
    int rc = ABT_sched_create_basic(predef, num_pools, pools, ABT_SCHED_CONFIG_NULL, &sched);
    if (rc != ABT_SUCCESS) return rc;
    rc = ABT_xstream_set_main_sched(xstream, sched);
    if (rc != ABT_SUCCESS) ABT_sched_free(&sched);
    return rc;
}
