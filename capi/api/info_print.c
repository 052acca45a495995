//go:build goabt_c_engine
/* info_print.c: ABT_info_print_* for objects and stacks, and ABT_info_trigger_print_all_thread_stacks:
 * resolve the handle, gather the facts and write the Go core's text (engine/info.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/info.h"
#include "engine/pool.h"
#include "engine/runtime.h"
#include "engine/scheduler.h"
#include "engine/stream.h"
#include "engine/unit.h"
#include "gocalls.h"
#include "info_facts.h"

/* ---- The API ---------------------------------------------------------------------------------- */

/* The streams' facts, gathered under rt.lock. */
struct streams {
    struct goabt_info_stream *s;
    int n, cap;
};

static void stream_cb(goabt_stream *s, void *arg)
{
    struct streams *all = arg;
    if (s == NULL) return;
    if (all->n == all->cap) {
        int cap = all->cap ? 2 * all->cap : 16;
        void *more = realloc(all->s, (size_t)cap * sizeof *all->s);
        if (more == NULL) return;
        all->s = more;
        all->cap = cap;
    }
    goabt_info_stream_facts(s, &all->s[all->n++]);
}

static void streams_free(struct streams *all)
{
    for (int i = 0; i < all->n; i++) free((void *)all->s[i].pool_ids);
    free(all->s);
}

int ABT_info_print_all_xstreams(FILE *fp)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_ARG(fp != NULL);
    int total = __atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED);
    struct streams all = {NULL, 0, 0};
    goabt_streams_each(stream_cb, &all);
    goabt_info_write(fp, GOABT_INFO_TEXT_STREAMS, all.s, all.n, total);
    streams_free(&all);
    return ABT_SUCCESS;
}

int ABT_info_print_xstream(FILE *fp, ABT_xstream xstream)
{
    GOABT_STREAM(s, xstream);
    GOABT_CHECK_ARG(fp != NULL);
    struct goabt_info_stream f;
    pthread_mutex_lock(&goabt_rt.lock);
    goabt_info_stream_facts(s, &f);
    pthread_mutex_unlock(&goabt_rt.lock);
    goabt_info_write(fp, GOABT_INFO_TEXT_STREAMS, &f, 1, -1);
    free((void *)f.pool_ids);
    return ABT_SUCCESS;
}

int ABT_info_print_sched(FILE *fp, ABT_sched sched)
{
    GOABT_SCHED(sc, sched);
    GOABT_CHECK_ARG(fp != NULL);
    struct goabt_info_sched f = {
        .addr = (uintptr_t)sc,
        .data = (uintptr_t)sc->data,
        .kind = goabt_info_sched_kind(sc),
        .used = sc->used,
        .automatic = sc->automatic != 0,
        .finish_req = __atomic_load_n(&sc->finish_req, __ATOMIC_RELAXED) != 0,
        .exit_req = __atomic_load_n(&sc->exit_req, __ATOMIC_RELAXED) != 0,
    };
    struct goabt_info_pool *pools = calloc((size_t)sc->num_pools + 1, sizeof *pools);
    if (pools != NULL) {
        for (int i = 0; i < sc->num_pools; i++) goabt_info_pool_facts(sc->pools[i], &pools[i]);
        f.num_pools = sc->num_pools;
        f.pools = pools;
    }
    goabt_info_write(fp, GOABT_INFO_TEXT_SCHED, &f, 0, 0);
    free(pools);
    return ABT_SUCCESS;
}

int ABT_info_print_pool(FILE *fp, ABT_pool pool)
{
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG(fp != NULL);
    struct goabt_info_pool f;
    goabt_info_pool_facts(p, &f);
    goabt_info_write(fp, GOABT_INFO_TEXT_POOL, &f, 0, 0);
    return ABT_SUCCESS;
}

/* ABT_info_print_thread, _task (with_stack 0) and _thread_stack (1). */
static void print_unit(FILE *fp, goabt_unit *u, int with_stack)
{
    struct goabt_info_unit f;
    goabt_info_unit_facts_with(u, &f, with_stack);
    goabt_info_write(fp, GOABT_INFO_TEXT_UNIT, &f, with_stack, 0);
    free((void *)f.words);
}

int ABT_info_print_thread(FILE *fp, ABT_thread thread)
{
    GOABT_UNIT(u, thread);
    GOABT_CHECK_ARG(fp != NULL);
    print_unit(fp, u, 0);
    return ABT_SUCCESS;
}

int ABT_info_print_task(FILE *fp, ABT_task task)
{
    GOABT_TASK(u, task);
    GOABT_CHECK_ARG(fp != NULL);
    print_unit(fp, u, 0);
    return ABT_SUCCESS;
}

int ABT_info_print_thread_attr(FILE *fp, ABT_thread_attr attr)
{
    GOABT_ATTR(a, attr);
    GOABT_CHECK_ARG(fp != NULL);
    struct goabt_info_attr f = {
        .addr = (uintptr_t)a,
        .stack = (uintptr_t)a->stack,
        .callback = (uintptr_t)a->callback,
        .callback_arg = (uintptr_t)a->callback_arg,
        .stacksize = a->stacksize,
        .migratable = a->migratable == ABT_TRUE,
    };
    goabt_info_write(fp, GOABT_INFO_TEXT_ATTR, &f, 0, 0);
    return ABT_SUCCESS;
}

int ABT_info_print_thread_stack(FILE *fp, ABT_thread thread)
{
    GOABT_UNIT(u, thread);
    GOABT_CHECK_ARG(fp != NULL);
    print_unit(fp, u, 1);
    return ABT_SUCCESS;
}

int ABT_info_print_thread_stacks_in_pool(FILE *fp, ABT_pool pool)
{
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG(fp != NULL);
    struct goabt_info_pool_units f;
    int rc = goabt_info_pool_units_facts(p, &f);
    goabt_info_write(fp, GOABT_INFO_TEXT_POOL_STACKS, &f, 0, 0);
    goabt_info_pool_units_free(&f);
    return rc;
}

/* Async-signal-safe: the request is atomics and a futex wake of the primary stream (engine/info.c). */
int ABT_info_trigger_print_all_thread_stacks(FILE *fp, double timeout,
                                             void (*cb_func)(ABT_bool, void *), void *arg)
{
    if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;
    goabt_info_stacks_request(fp, timeout, cb_func, arg);
    return ABT_SUCCESS;
}
