//go:build goabt_c_engine
/* ULTs (ABT_thread_*) and their attributes (ABT_thread_attr_*). In Argobots 1.2 a tasklet is an
 * ABT_thread too: the functions that make sense for one accept it. */
#include <stdlib.h>
#include "args.h"
#include "engine/context.h"
#include "engine/handles.h"
#include "engine/keys.h"
#include "engine/leaks.h"
#include "engine/object.h"
#include "engine/pool.h"
#include "engine/pool_member.h"
#include "engine/runtime.h"
#include "engine/scheduler.h"
#include "engine/stream.h"
#include "engine/unit.h"


/* ---- Creation ---------------------------------------------------------------------------- */

static int create_ult(goabt_pool *p, void (*func)(void *), void *arg, ABT_thread_attr attr,
                      ABT_thread *newthread)
{
    GOABT_ATTR_OR_NULL(a, attr);
    GOABT_CHECK_ARG(func != NULL);
    return goabt_unit_create(p, GOABT_ULT, func, arg, a, newthread != NULL, newthread);
}

int ABT_thread_create(ABT_pool pool, void (*thread_func)(void *), void *arg, ABT_thread_attr attr,
                      ABT_thread *newthread)
{
    if (newthread != NULL) *newthread = ABT_THREAD_NULL;
    GOABT_CHECK_INIT();
    GOABT_POOL(p, pool);
    return create_ult(p, thread_func, arg, attr, newthread);
}

int ABT_thread_create_to(ABT_pool pool, void (*thread_func)(void *), void *arg,
                         ABT_thread_attr attr, ABT_thread *newthread)
{
    if (newthread != NULL) *newthread = ABT_THREAD_NULL;
    GOABT_SELF(s, self); /* a work unit's call: ABT_ERR_INV_XSTREAM from an external thread */
    GOABT_CHECK_TRUE(self->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    GOABT_POOL(p, pool);
    GOABT_ATTR_OR_NULL(a, attr);
    GOABT_CHECK_ARG(thread_func != NULL);
    goabt_unit *u;
    int rc = goabt_unit_create(p, GOABT_ULT, thread_func, arg, a,
                               (newthread != NULL) | GOABT_CREATE_HELD, &u);
    if (rc != ABT_SUCCESS) return rc;
    if (newthread != NULL) *newthread = u;
    goabt_unit_start_to(u, ABT_POOL_CONTEXT_OP_THREAD_CREATE_TO); /* the caller goes back */
    return ABT_SUCCESS;
}

int ABT_thread_resume(ABT_thread thread)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    return goabt_unit_resume(u) ? ABT_SUCCESS : ABT_ERR_THREAD;
}

int ABT_thread_set_associated_pool(ABT_thread thread, ABT_pool pool)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    GOABT_POOL(p, pool);
    /* Still in a pool (Argobots leaves that undefined; ABT_thread_migrate_to_pool moves such a
     * unit): the pool unit a user pool holds for it would be freed under that pool. */
    goabt_pool *in = u->pool;
    if (in != NULL && goabt_pool_is_queued(in, u)) return ABT_ERR_THREAD;
    /* Takes effect when the unit is next pushed (it yields, is woken or resumed). */
    return goabt_pool_member_set(p, u);
}

int ABT_thread_create_on_xstream(ABT_xstream xstream, void (*thread_func)(void *), void *arg,
                                 ABT_thread_attr attr, ABT_thread *newthread)
{
    if (newthread != NULL) *newthread = ABT_THREAD_NULL;
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    /* A user-defined scheduler may have no pool: nothing to push into (Argobots crashes). */
    GOABT_CHECK_TRUE(s->sched->num_pools != 0, ABT_ERR_INV_POOL);
    return create_ult(s->sched->pools[0], thread_func, arg, attr, newthread);
}

int ABT_thread_create_many(int num_threads, ABT_pool *pool_list, void (**thread_func_list)(void *),
                           void **arg_list, ABT_thread_attr attr, ABT_thread *newthread_list)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_ARG(num_threads >= 0 &&
                    (num_threads == 0 || (pool_list != NULL && thread_func_list != NULL)));
    GOABT_ATTR_OR_NULL(a, attr);
    /* One user stack cannot serve several ULTs. */
    GOABT_CHECK_TRUE(a == NULL || a->stack == NULL, ABT_ERR_INV_THREAD_ATTR);
    for (int i = 0; i < num_threads; i++) {
        ABT_thread *out = newthread_list != NULL ? &newthread_list[i] : NULL;
        if (out != NULL) *out = ABT_THREAD_NULL;
        GOABT_POOL(p, pool_list[i]);
        int rc = create_ult(p, thread_func_list[i], arg_list != NULL ? arg_list[i] : NULL, attr, out);
        if (rc != ABT_SUCCESS) return rc;
    }
    return ABT_SUCCESS;
}

/* ---- Join and free ----------------------------------------------------------------------- */

/* The unit behind a handle that the caller may join or free: a named unit other than the main
 * ULT and the caller itself. */
static goabt_unit *joinable(ABT_thread thread, int *rc)
{
    goabt_unit *u = goabt_unit_of(thread);
    *rc = ABT_ERR_INV_THREAD;
    if (u == NULL || (u->flags & GOABT_UNIT_MAIN) || !(u->flags & GOABT_UNIT_NAMED)) return NULL;
    if (u == goabt_self_unit()) return NULL;
    *rc = ABT_SUCCESS;
    return u;
}

int ABT_thread_join(ABT_thread thread)
{
    GOABT_CHECK_INIT();
    int rc;
    goabt_unit *u = joinable(thread, &rc);
    return u != NULL ? goabt_unit_join(u) : rc;
}

int ABT_thread_join_many(int num_threads, ABT_thread *thread_list)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_ARG(num_threads >= 0 && (num_threads == 0 || thread_list != NULL));
    for (int i = 0; i < num_threads; i++) {
        if (thread_list[i] == ABT_THREAD_NULL) continue;
        int rc = ABT_thread_join(thread_list[i]);
        if (rc != ABT_SUCCESS) return rc;
    }
    return ABT_SUCCESS;
}

int ABT_thread_free(ABT_thread *thread)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_TRUE(thread != NULL, ABT_ERR_INV_THREAD);
    int rc;
    goabt_unit *u = joinable(*thread, &rc);
    if (u == NULL) return rc;
    rc = goabt_unit_join(u) == ABT_ERR_MEM ? ABT_ERR_MEM : ABT_SUCCESS; /* it never ran */
    goabt_unit_free(u);
    *thread = ABT_THREAD_NULL;
    return rc;
}

int ABT_thread_free_many(int num_threads, ABT_thread *thread_list)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_ARG(num_threads >= 0 && (num_threads == 0 || thread_list != NULL));
    for (int i = 0; i < num_threads; i++) {
        if (thread_list[i] == ABT_THREAD_NULL) continue;
        int rc = ABT_thread_free(&thread_list[i]);
        if (rc != ABT_SUCCESS) return rc;
    }
    return ABT_SUCCESS;
}

/* ---- The calling ULT --------------------------------------------------------------------- */

int ABT_thread_yield(void)
{
    goabt_unit *self = goabt_self_unit();
    /* From an external thread or a tasklet there is nothing to yield: Argobots 1.x succeeds.
     * A forked child's thread is no stream's (runtime.h, goabt_forked): it gets an error. */
    if (self != NULL && self->kind == GOABT_ULT) {
        goabt_unit_yield();
    } else {
        GOABT_CHECK_NOT_FORKED();
    }
    return ABT_SUCCESS;
}

int ABT_thread_yield_to(ABT_thread thread)
{
    goabt_unit *self = goabt_self_unit();
    if (self == NULL || self->kind != GOABT_ULT) {
        GOABT_CHECK_NOT_FORKED();
        return ABT_SUCCESS;
    }
    GOABT_UNIT(t, thread);
    GOABT_CHECK_TRUE(t->kind == GOABT_ULT && t != self, ABT_ERR_INV_THREAD);
    goabt_unit_yield_to(t);
    return ABT_SUCCESS;
}

int ABT_thread_exit(void)
{
    GOABT_SELF_STREAM(s);
    goabt_unit *self = s->current;
    GOABT_CHECK_TRUE(self != NULL && self->kind == GOABT_ULT && !(self->flags & GOABT_UNIT_MAIN),
                     ABT_ERR_INV_THREAD);
    goabt_unit_exit();
}

int ABT_thread_self(ABT_thread *thread)
{
    if (thread != NULL) *thread = ABT_THREAD_NULL;
    GOABT_SELF_STREAM(s);
    goabt_unit *u = goabt_self_or_sched(s); /* as ABT_self_get_thread */
    GOABT_CHECK_TRUE(u != NULL && u->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    GOABT_CHECK_OUT(thread);
    *thread = u;
    return ABT_SUCCESS;
}

int ABT_thread_self_id(ABT_unit_id *id)
{
    GOABT_SELF_STREAM(s);
    goabt_unit *u = goabt_self_or_sched(s);
    GOABT_CHECK_TRUE(u != NULL && u->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    GOABT_CHECK_OUT(id);
    *id = goabt_unit_id(u);
    return ABT_SUCCESS;
}

/* ---- Queries on any unit ----------------------------------------------------------------- */


int ABT_thread_get_id(ABT_thread thread, ABT_unit_id *thread_id)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, thread_id);
    *thread_id = goabt_unit_id(u);
    return ABT_SUCCESS;
}

int ABT_thread_get_state(ABT_thread thread, ABT_thread_state *state)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, state);
    *state = (ABT_thread_state)__atomic_load_n(&u->state, __ATOMIC_ACQUIRE);
    goabt_give_way_to_main(); /* unit.h: a polling loop */
    return ABT_SUCCESS;
}

int ABT_thread_get_last_pool(ABT_thread thread, ABT_pool *pool)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, pool);
    *pool = u->pool != NULL ? u->pool : ABT_POOL_NULL;
    return ABT_SUCCESS;
}

int ABT_thread_get_last_pool_id(ABT_thread thread, int *id)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, id);
    *id = u->pool != NULL ? u->pool->id : -1;
    return ABT_SUCCESS;
}

int ABT_thread_get_last_xstream(ABT_thread thread, ABT_xstream *xstream)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, xstream);
    *xstream = u->last_stream != NULL ? u->last_stream : ABT_XSTREAM_NULL;
    return ABT_SUCCESS;
}

int ABT_thread_get_unit(ABT_thread thread, ABT_unit *unit)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, unit);
    /* A user pool's unit for it, else the unit itself: built-in pools hold work units. */
    *unit = goabt_unit_pool_handle(u);
    return ABT_SUCCESS;
}

int ABT_unit_get_thread(ABT_unit unit, ABT_thread *thread)
{
    goabt_unit *u = goabt_unit_of_pool_unit(unit);
    /* ABT_self_get_unit's answer in a scheduler's context: the scheduler as a ULT, whose unit is
     * itself (it is in no pool; pool calls refuse it). */
    if (u == NULL) u = goabt_unit_or_sched_of((ABT_thread)unit);
    GOABT_CHECK_TRUE(u != NULL, ABT_ERR_INV_UNIT);
    GOABT_CHECK_OUT(thread);
    *thread = u;
    return ABT_SUCCESS;
}

int ABT_thread_is_primary(ABT_thread thread, ABT_bool *is_primary)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, is_primary);
    *is_primary = (u->flags & GOABT_UNIT_MAIN) ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_thread_is_unnamed(ABT_thread thread, ABT_bool *is_unnamed)
{
    GOABT_RESOLVE_UNIT_OR_SCHED(u, thread, is_unnamed);
    *is_unnamed = (u->flags & GOABT_UNIT_NAMED) ? ABT_FALSE : ABT_TRUE;
    return ABT_SUCCESS;
}

int ABT_thread_equal(ABT_thread thread1, ABT_thread thread2, ABT_bool *result)
{
    GOABT_CHECK_OUT(result);
    if (thread1 == (ABT_thread)ABT_TASK_NULL) thread1 = ABT_THREAD_NULL;
    if (thread2 == (ABT_thread)ABT_TASK_NULL) thread2 = ABT_THREAD_NULL;
    *result = thread1 == thread2 ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_thread_get_stacksize(ABT_thread thread, size_t *stacksize)
{
    GOABT_RESOLVE_UNIT(u, thread, stacksize);
    *stacksize = u->kind == GOABT_ULT ? u->stacksize : 0;
    return ABT_SUCCESS;
}

int ABT_thread_get_stack(ABT_thread thread, void **stackaddr, size_t *stacksize)
{
    GOABT_UNIT(u, thread);
    int has_stack = u->kind == GOABT_ULT && !(u->flags & GOABT_UNIT_MAIN);
    if (stackaddr != NULL) *stackaddr = has_stack ? u->stack : NULL;
    if (stacksize != NULL) *stacksize = has_stack ? u->stacksize : 0;
    return ABT_SUCCESS;
}

int ABT_thread_set_arg(ABT_thread thread, void *arg)
{
    GOABT_UNIT(u, thread);
    u->arg = arg;
    return ABT_SUCCESS;
}

int ABT_thread_get_arg(ABT_thread thread, void **arg)
{
    GOABT_RESOLVE_UNIT(u, thread, arg);
    *arg = u->arg;
    return ABT_SUCCESS;
}

int ABT_thread_get_thread_func(ABT_thread thread, void (**thread_func)(void *))
{
    GOABT_RESOLVE_UNIT(u, thread, thread_func);
    *thread_func = u->func;
    return ABT_SUCCESS;
}

int ABT_thread_set_migratable(ABT_thread thread, ABT_bool migratable)
{
    GOABT_UNIT(u, thread);
    if (u->flags & GOABT_UNIT_MAIN) return ABT_SUCCESS; /* a silent no-op, as in Argobots 1.x */
    if (migratable) {
        __atomic_or_fetch(&u->flags, (uint16_t)GOABT_UNIT_MIGRATABLE, __ATOMIC_RELAXED);
    } else {
        __atomic_and_fetch(&u->flags, (uint16_t)~GOABT_UNIT_MIGRATABLE, __ATOMIC_RELAXED);
    }
    return ABT_SUCCESS;
}

int ABT_thread_is_migratable(ABT_thread thread, ABT_bool *is_migratable)
{
    GOABT_RESOLVE_UNIT(u, thread, is_migratable);
    *is_migratable = (u->flags & GOABT_UNIT_MIGRATABLE) ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

int ABT_thread_get_attr(ABT_thread thread, ABT_thread_attr *attr)
{
    GOABT_RESOLVE_UNIT(u, thread, attr);
    GOABT_CHECK_TRUE(u->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    goabt_attr *a = goabt_mem_new(sizeof *a);
    if (a == NULL) return ABT_ERR_MEM;
    int has_stack = !(u->flags & GOABT_UNIT_MAIN);
    a->stack = has_stack ? u->stack : NULL;
    a->stacksize = has_stack ? u->stacksize : 0;
    a->migratable = (u->flags & GOABT_UNIT_MIGRATABLE) ? ABT_TRUE : ABT_FALSE;
    a->magic = GOABT_MAGIC_ATTR;
    GOABT_LEAK_NOTE(GOABT_LEAK_THREAD_ATTR, a); /* the program frees it */
    *attr = a;
    return ABT_SUCCESS;
}

/* ---- Attributes --------------------------------------------------------------------------- */

int ABT_thread_attr_create(ABT_thread_attr *newattr)
{
    GOABT_CHECK_OUT(newattr);
    *newattr = ABT_THREAD_ATTR_NULL;
    GOABT_CHECK_INIT();
    goabt_attr *a = goabt_mem_new(sizeof *a);
    if (a == NULL) return ABT_ERR_MEM;
    a->migratable = ABT_TRUE;
    a->stacksize = goabt_rt.thread_stacksize;
    a->magic = GOABT_MAGIC_ATTR;
    GOABT_LEAK_NOTE(GOABT_LEAK_THREAD_ATTR, a);
    *newattr = a;
    return ABT_SUCCESS;
}

int ABT_thread_attr_free(ABT_thread_attr *attr)
{
    GOABT_CHECK_TRUE(attr != NULL, ABT_ERR_INV_THREAD_ATTR);
    GOABT_ATTR(a, *attr);
    GOABT_LEAK_FORGET(a);
    goabt_mem_delete(a, sizeof *a);
    *attr = ABT_THREAD_ATTR_NULL;
    return ABT_SUCCESS;
}

int ABT_thread_attr_set_stack(ABT_thread_attr attr, void *stackaddr, size_t stacksize)
{
    GOABT_ATTR(a, attr);
    /* A user stack must be aligned and large enough to run C on (docs/design.md rule 2). */
    GOABT_CHECK_ARG(stackaddr == NULL ||
                    (((uintptr_t)stackaddr & 7) == 0 && goabt_ctx_stack_size_ok(stacksize)));
    a->stack = stackaddr;
    a->stacksize = stacksize;
    return ABT_SUCCESS;
}

int ABT_thread_attr_get_stack(ABT_thread_attr attr, void **stackaddr, size_t *stacksize)
{
    GOABT_ATTR(a, attr);
    GOABT_CHECK_ARG(stackaddr != NULL && stacksize != NULL);
    *stackaddr = a->stack;
    *stacksize = a->stacksize;
    return ABT_SUCCESS;
}

int ABT_thread_attr_set_stacksize(ABT_thread_attr attr, size_t stacksize)
{
    GOABT_ATTR(a, attr);
    a->stacksize = stacksize;
    return ABT_SUCCESS;
}

int ABT_thread_attr_get_stacksize(ABT_thread_attr attr, size_t *stacksize)
{
    GOABT_ATTR(a, attr);
    GOABT_CHECK_OUT(stacksize);
    *stacksize = a->stacksize;
    return ABT_SUCCESS;
}

int ABT_thread_attr_set_callback(ABT_thread_attr attr, void (*cb_func)(ABT_thread, void *),
                                 void *cb_arg)
{
    GOABT_ATTR(a, attr);
    a->callback = cb_func; /* run once the ULT has moved (unit_join.c, goabt_unit_migrate_now) */
    a->callback_arg = cb_arg;
    return ABT_SUCCESS;
}

int ABT_thread_attr_set_migratable(ABT_thread_attr attr, ABT_bool is_migratable)
{
    GOABT_ATTR(a, attr);
    a->migratable = is_migratable ? ABT_TRUE : ABT_FALSE;
    return ABT_SUCCESS;
}

/* ---- Work-unit-specific data of any unit (keys.h) ----------------------------------------- */

int ABT_thread_set_specific(ABT_thread thread, ABT_key key, void *value)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT_OR_SCHED(u, thread);
    GOABT_KEY(k, key);
    return goabt_keys_set(u, k, value);
}

int ABT_thread_get_specific(ABT_thread thread, ABT_key key, void **value)
{
    /* The initialized check after the handle's: a unit of this runtime's generation exists
     * only between ABT_init and ABT_finalize (handles.h), so only a refused handle asks. */
    goabt_unit *u = goabt_unit_of(thread);
    if (__builtin_expect(u == NULL, 0)) {
        GOABT_CHECK_INIT();
        u = goabt_unit_or_sched_of(thread);
        GOABT_CHECK_TRUE(u != NULL, ABT_ERR_INV_THREAD);
    }
    GOABT_KEY(k, key);
    GOABT_CHECK_OUT(value);
    *value = goabt_keys_get(u, k);
    return ABT_SUCCESS;
}

/* ---- Migration ------------------------------------------------------------------------------
 *
 * A migration is a request on the unit (unit_join.c, goabt_unit_request_migration): a unit
 * waiting in a pool that can give it back moves at once; otherwise it moves at its next
 * scheduling point (popped to run, yielding, woken). Its callback runs then, on whichever thread moves it. */

static int migrate_to_pool(goabt_unit *u, goabt_pool *p)
{
    GOABT_CHECK_TRUE(!(u->flags & GOABT_UNIT_MAIN) && (u->flags & GOABT_UNIT_MIGRATABLE),
                     ABT_ERR_INV_THREAD);
    GOABT_CHECK_TRUE(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) != ABT_THREAD_STATE_TERMINATED,
                     ABT_ERR_INV_THREAD);
    if (p == NULL) return ABT_ERR_MIGRATION_TARGET;
    if (u->pool == p) return ABT_ERR_MIGRATION_TARGET;
    goabt_unit_request_migration(u, p);
    return ABT_SUCCESS;
}

int ABT_thread_migrate_to_pool(ABT_thread thread, ABT_pool pool)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    GOABT_POOL(p, pool);
    return migrate_to_pool(u, p);
}

int ABT_thread_migrate_to_sched(ABT_thread thread, ABT_sched sched)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    GOABT_SCHED(sc, sched);
    return migrate_to_pool(u, goabt_sched_migration_pool(sc));
}

int ABT_thread_migrate_to_xstream(ABT_thread thread, ABT_xstream xstream)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    GOABT_STREAM(s, xstream);
    GOABT_CHECK_TRUE(__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != ABT_XSTREAM_STATE_TERMINATED,
                     ABT_ERR_INV_XSTREAM);
    return migrate_to_pool(u, goabt_sched_migration_pool(s->sched));
}

int ABT_thread_migrate(ABT_thread thread)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    goabt_stream *from = u->last_stream;
    if (from == NULL && u->pool != NULL) from = goabt_self_stream();
    goabt_stream *to = goabt_stream_other_running(from);
    if (to == NULL) return ABT_ERR_MIGRATION_NA; /* no other stream to go to */
    return migrate_to_pool(u, goabt_sched_migration_pool(to->sched));
}

int ABT_thread_set_callback(ABT_thread thread, void (*cb_func)(ABT_thread, void *), void *cb_arg)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    if (cb_func == NULL) {
        __atomic_and_fetch(&u->flags, (uint16_t)~GOABT_UNIT_MIGRATE_CB, __ATOMIC_RELEASE);
        return ABT_SUCCESS;
    }
    u->migrate_cb = cb_func;
    u->migrate_cb_arg = cb_arg;
    __atomic_or_fetch(&u->flags, (uint16_t)GOABT_UNIT_MIGRATE_CB, __ATOMIC_RELEASE);
    return ABT_SUCCESS;
}

/* ---- Cancel and revive ---------------------------------------------------------------------- */

int ABT_thread_cancel(ABT_thread thread)
{
    GOABT_CHECK_INIT();
    GOABT_UNIT(u, thread);
    GOABT_CHECK_TRUE(!(u->flags & GOABT_UNIT_MAIN), ABT_ERR_INV_THREAD);
    if (__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_TERMINATED) {
        return ABT_SUCCESS; /* nothing left to cancel */
    }
    goabt_unit_request_cancel(u);
    return ABT_SUCCESS;
}

int goabt_unit_revive_api(ABT_pool pool, void (*func)(void *), void *arg, ABT_thread *thread,
                          int kind, int to)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_TRUE(thread != NULL, ABT_ERR_INV_THREAD);
    GOABT_UNIT(u, *thread);
    GOABT_CHECK_TRUE(kind == 0 || u->kind == kind, ABT_ERR_INV_THREAD);
    GOABT_CHECK_TRUE(!(u->flags & GOABT_UNIT_MAIN), ABT_ERR_INV_THREAD);
    GOABT_CHECK_TRUE(__atomic_load_n(&u->state, __ATOMIC_ACQUIRE) == ABT_THREAD_STATE_TERMINATED,
                     ABT_ERR_INV_THREAD);
    GOABT_POOL(p, pool);
    GOABT_CHECK_ARG(func != NULL);
    if (to) {
        goabt_unit *self = goabt_self_unit();
        GOABT_CHECK_TRUE(self != NULL,
                         goabt_self_stream() ? ABT_ERR_INV_THREAD : ABT_ERR_INV_XSTREAM);
        GOABT_CHECK_TRUE(self->kind == GOABT_ULT, ABT_ERR_INV_THREAD);
    }
    return goabt_unit_revive(u, p, func, arg, to);
}

int ABT_thread_revive(ABT_pool pool, void (*thread_func)(void *), void *arg, ABT_thread *thread)
{
    return goabt_unit_revive_api(pool, thread_func, arg, thread, 0, 0);
}

int ABT_thread_revive_to(ABT_pool pool, void (*thread_func)(void *), void *arg, ABT_thread *thread)
{
    return goabt_unit_revive_api(pool, thread_func, arg, thread, 0, 1);
}
