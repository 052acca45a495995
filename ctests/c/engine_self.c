/* The calling unit (ABT_self_*, ABT_xstream_self(_rank), ABT_thread_self(_id),
 * ABT_task_self(_id), yield and exit) from every kind of caller, the table of Argobots 1.2's
 * self.c (spec §7): the main ULT, a ULT on a secondary stream, a ULT on the primary stream, an
 * unnamed ULT, a tasklet (secondary and primary stream), an external pthread, before ABT_init
 * and after ABT_finalize. Checks return codes and the values written on error (EXT, FALSE, -1,
 * NULL handles), get_type, is_primary, on_primary_xstream, get_xstream/rank, get_thread/id,
 * is_unnamed, last pool and its id, get_unit and the ABT_unit_get_thread round trip,
 * set_arg/get_arg, get_thread_func, and yield/exit from a tasklet or external thread. */
#include <pthread.h>
#include <abt.h>
#include "check.h"

/* Everything one caller sees. */
struct report {
    int type_rc, is_primary_rc, on_primary_rc, xs_rc, rank_rc, thread_rc, thread_id_rc;
    int unnamed_rc, pool_rc, pool_id_rc, unit_rc, unit_thread_rc, thread_unit_rc;
    int set_arg_rc, get_arg_rc, func_rc, xstream_self_rc, xstream_self_rank_rc;
    int thread_self_rc, thread_self_id_rc, task_self_rc, task_self_id_rc;
    int thread_yield_rc, self_yield_rc, self_exit_rc, thread_exit_rc;
    ABT_unit_type type;
    ABT_bool is_primary, on_primary, unnamed;
    ABT_xstream xs, xstream_self;
    int rank, xstream_self_rank, pool_id;
    ABT_thread thread, unit_thread, thread_self;
    ABT_task task_self;
    ABT_unit_id thread_id, thread_self_id;
    uint64_t task_self_id;
    ABT_pool pool;
    ABT_unit unit, thread_unit;
    void *arg_before, *arg_after;
    void (*func)(void *);
    int exits; /* whether to call the exit functions (they return only on error) */
};

static char marker;

/* Fills r from the caller's point of view. Outputs start as garbage so that the values written
 * on error are seen. */
static void probe(struct report *r)
{
    void *junk = (void *)&marker;
    r->type = (ABT_unit_type)77;
    r->is_primary = r->on_primary = r->unnamed = (ABT_bool)77;
    r->xs = r->xstream_self = (ABT_xstream)junk;
    r->thread = r->thread_self = r->unit_thread = (ABT_thread)junk;
    r->task_self = (ABT_task)junk;
    r->pool = (ABT_pool)junk;
    r->pool_id = 77;
    r->arg_before = r->arg_after = junk;

    r->type_rc = ABT_self_get_type(&r->type);
    r->is_primary_rc = ABT_self_is_primary(&r->is_primary);
    r->on_primary_rc = ABT_self_on_primary_xstream(&r->on_primary);
    r->xs_rc = ABT_self_get_xstream(&r->xs);
    r->rank_rc = ABT_self_get_xstream_rank(&r->rank);
    r->thread_rc = ABT_self_get_thread(&r->thread);
    r->thread_id_rc = ABT_self_get_thread_id(&r->thread_id);
    r->unnamed_rc = ABT_self_is_unnamed(&r->unnamed);
    r->pool_rc = ABT_self_get_last_pool(&r->pool);
    r->pool_id_rc = ABT_self_get_last_pool_id(&r->pool_id);
    r->unit_rc = ABT_self_get_unit(&r->unit);
    r->unit_thread_rc = r->unit_rc == ABT_SUCCESS ? ABT_unit_get_thread(r->unit, &r->unit_thread) : -1;
    r->thread_unit_rc = r->thread_rc == ABT_SUCCESS ? ABT_thread_get_unit(r->thread, &r->thread_unit) : -1;
    r->get_arg_rc = ABT_self_get_arg(&r->arg_before);
    r->set_arg_rc = ABT_self_set_arg(&marker);
    ABT_self_get_arg(&r->arg_after);
    if (r->set_arg_rc == ABT_SUCCESS) ABT_self_set_arg(r->arg_before);
    r->func_rc = ABT_self_get_thread_func(&r->func);
    r->xstream_self_rc = ABT_xstream_self(&r->xstream_self);
    r->xstream_self_rank_rc = ABT_xstream_self_rank(&r->xstream_self_rank);
    r->thread_self_rc = ABT_thread_self(&r->thread_self);
    r->thread_self_id_rc = ABT_thread_self_id(&r->thread_self_id);
    r->task_self_rc = ABT_task_self(&r->task_self);
    r->task_self_id_rc = ABT_task_self_id(&r->task_self_id);
    r->thread_yield_rc = ABT_thread_yield();
    r->self_yield_rc = ABT_self_yield();
    if (r->exits) {
        r->self_exit_rc = ABT_self_exit();
        r->thread_exit_rc = ABT_thread_exit();
    }
}

static void probe_unit(void *arg) { probe((struct report *)arg); }

static void *probe_pthread(void *arg)
{
    probe((struct report *)arg);
    return NULL;
}

/* ---- Expectations for each kind of caller --------------------------------------------------- */

static void expect_refused(const struct report *r, int rc)
{
    CHECK_INT(r->type_rc, rc);
    CHECK_INT(r->type, ABT_UNIT_TYPE_EXT);
    CHECK_INT(r->is_primary_rc, rc);
    CHECK_INT(r->is_primary, ABT_FALSE);
    CHECK_INT(r->on_primary_rc, rc);
    CHECK_INT(r->on_primary, ABT_FALSE);
    CHECK_INT(r->xs_rc, rc);
    CHECK_INT(r->rank_rc, rc);
    CHECK_INT(r->thread_rc, rc);
    CHECK_INT(r->thread_id_rc, rc);
    CHECK_INT(r->unnamed_rc, rc);
    CHECK_INT(r->pool_rc, rc);
    CHECK_INT(r->pool_id_rc, rc);
    CHECK_INT(r->pool_id, -1);
    CHECK_INT(r->unit_rc, rc);
    CHECK_INT(r->get_arg_rc, rc);
    CHECK(r->arg_before == NULL);
    CHECK_INT(r->set_arg_rc, rc);
    CHECK_INT(r->func_rc, rc);
    CHECK_INT(r->xstream_self_rc, rc);
    CHECK(r->xstream_self == ABT_XSTREAM_NULL);
    CHECK_INT(r->xstream_self_rank_rc, rc);
    CHECK_INT(r->thread_self_rc, rc);
    CHECK(r->thread_self == ABT_THREAD_NULL);
    CHECK_INT(r->thread_self_id_rc, rc);
    CHECK_INT(r->task_self_rc, rc);
    CHECK(r->task_self == ABT_TASK_NULL);
    CHECK_INT(r->task_self_id_rc, rc);
    CHECK_INT(r->self_yield_rc, rc);
    CHECK_INT(r->self_exit_rc, rc);
    CHECK_INT(r->thread_exit_rc, rc);
}

/* What every work unit (ULT or tasklet) sees the same way. */
static void expect_unit_common(const struct report *r, ABT_xstream xs, int rank, ABT_pool pool,
                               void (*func)(void *), void *arg)
{
    CHECK_INT(r->xs_rc, ABT_SUCCESS);
    CHECK(r->xs == xs);
    CHECK_INT(r->rank_rc, ABT_SUCCESS);
    CHECK_INT(r->rank, rank);
    CHECK_INT(r->xstream_self_rc, ABT_SUCCESS);
    CHECK(r->xstream_self == xs);
    CHECK_INT(r->xstream_self_rank_rc, ABT_SUCCESS);
    CHECK_INT(r->xstream_self_rank, rank);
    CHECK_INT(r->on_primary_rc, ABT_SUCCESS);
    CHECK_INT(r->on_primary, rank == 0 ? ABT_TRUE : ABT_FALSE);
    CHECK_INT(r->thread_rc, ABT_SUCCESS);
    CHECK_INT(r->thread_id_rc, ABT_SUCCESS);
    if (r->unnamed != ABT_TRUE) { /* an unnamed unit is gone once it finished */
        ABT_unit_id id = 0;
        CHECK_INT(ABT_thread_get_id(r->thread, &id), ABT_SUCCESS);
        CHECK(id == r->thread_id);
    }
    CHECK_INT(r->pool_rc, ABT_SUCCESS);
    CHECK(r->pool == pool);
    int pid = -7;
    CHECK_INT(ABT_pool_get_id(pool, &pid), ABT_SUCCESS);
    CHECK_INT(r->pool_id_rc, ABT_SUCCESS);
    CHECK_INT(r->pool_id, pid);
    CHECK_INT(r->unit_rc, ABT_SUCCESS);
    CHECK_INT(r->unit_thread_rc, ABT_SUCCESS);
    CHECK(r->unit_thread == r->thread);
    CHECK_INT(r->thread_unit_rc, ABT_SUCCESS);
    CHECK(r->thread_unit == r->unit);
    CHECK_INT(r->get_arg_rc, ABT_SUCCESS);
    CHECK(r->arg_before == arg);
    CHECK_INT(r->set_arg_rc, ABT_SUCCESS);
    CHECK(r->arg_after == &marker);
    CHECK_INT(r->func_rc, ABT_SUCCESS);
    CHECK(r->func == func);
    CHECK_INT(r->thread_yield_rc, ABT_SUCCESS);
    CHECK_INT(r->unnamed_rc, ABT_SUCCESS);
}

static void expect_ult(const struct report *r, ABT_thread handle, ABT_xstream xs, int rank,
                       ABT_pool pool, ABT_bool primary, ABT_bool unnamed, void (*func)(void *),
                       void *arg)
{
    expect_unit_common(r, xs, rank, pool, func, arg);
    CHECK_INT(r->type_rc, ABT_SUCCESS);
    CHECK_INT(r->type, ABT_UNIT_TYPE_THREAD);
    CHECK_INT(r->is_primary_rc, ABT_SUCCESS);
    CHECK_INT(r->is_primary, primary);
    CHECK_INT(r->unnamed, unnamed);
    if (handle != ABT_THREAD_NULL) CHECK(r->thread == handle);
    CHECK_INT(r->thread_self_rc, ABT_SUCCESS);
    CHECK(r->thread_self == r->thread);
    CHECK_INT(r->thread_self_id_rc, ABT_SUCCESS);
    CHECK(r->thread_self_id == r->thread_id);
    CHECK_INT(r->task_self_rc, ABT_ERR_INV_TASK);
    CHECK(r->task_self == ABT_TASK_NULL);
    CHECK_INT(r->task_self_id_rc, ABT_ERR_INV_TASK);
    CHECK_INT(r->self_yield_rc, ABT_SUCCESS);
}

static void expect_tasklet(const struct report *r, ABT_task handle, ABT_xstream xs, int rank,
                           ABT_pool pool)
{
    expect_unit_common(r, xs, rank, pool, probe_unit, (void *)r);
    CHECK_INT(r->type_rc, ABT_SUCCESS);
    CHECK_INT(r->type, ABT_UNIT_TYPE_TASK);
    CHECK_INT(r->is_primary_rc, ABT_ERR_INV_THREAD);
    CHECK_INT(r->is_primary, ABT_FALSE);
    CHECK_INT(r->unnamed, ABT_FALSE);
    CHECK(r->thread == handle);
    CHECK_INT(r->thread_self_rc, ABT_ERR_INV_THREAD);
    CHECK(r->thread_self == ABT_THREAD_NULL);
    CHECK_INT(r->thread_self_id_rc, ABT_ERR_INV_THREAD);
    CHECK_INT(r->task_self_rc, ABT_SUCCESS);
    CHECK(r->task_self == handle);
    CHECK_INT(r->task_self_id_rc, ABT_SUCCESS);
    CHECK(r->task_self_id == r->thread_id);
    CHECK_INT(r->self_yield_rc, ABT_ERR_INV_THREAD);
    CHECK_INT(r->self_exit_rc, ABT_ERR_INV_THREAD);
    CHECK_INT(r->thread_exit_rc, ABT_ERR_INV_THREAD);
}

/* A ULT that exits through ABT_self_exit: nothing after it runs. */
static int after_self_exit;
static void self_exiting(void *arg)
{
    (void)arg;
    ABT_self_exit();
    after_self_exit = 1;
}

int main(void)
{
    struct report r;

    printf("# before ABT_init\n");
    memset(&r, 0, sizeof r);
    r.exits = 1;
    probe(&r);
    expect_refused(&r, ABT_ERR_UNINITIALIZED);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream primary, second;
    ABT_pool primary_pool, second_pool;
    ABT_thread main_ult;
    CHECK_INT(ABT_xstream_self(&primary), ABT_SUCCESS);
    CHECK_INT(ABT_thread_self(&main_ult), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(primary, 1, &primary_pool), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, 3, &second), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(second, 1, &second_pool), ABT_SUCCESS);

    printf("# the main ULT\n");
    memset(&r, 0, sizeof r);
    r.exits = 1;
    void *main_arg = (void *)&marker;
    CHECK_INT(ABT_self_get_arg(&main_arg), ABT_SUCCESS);
    probe(&r);
    expect_ult(&r, main_ult, primary, 0, primary_pool, ABT_TRUE, ABT_TRUE, NULL, main_arg);
    CHECK_INT(r.self_exit_rc, ABT_ERR_INV_THREAD);
    CHECK_INT(r.thread_exit_rc, ABT_ERR_INV_THREAD);
    CHECK(main_arg == NULL);

    printf("# a named ULT on a secondary stream\n");
    memset(&r, 0, sizeof r);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(second_pool, probe_unit, &r, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    expect_ult(&r, t, second, 3, second_pool, ABT_FALSE, ABT_FALSE, probe_unit, &r);
    void *arg_now = NULL;
    CHECK_INT(ABT_thread_get_arg(t, &arg_now), ABT_SUCCESS);
    CHECK(arg_now == &r); /* probe put the argument back */
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);

    printf("# a named ULT on the primary stream\n");
    memset(&r, 0, sizeof r);
    CHECK_INT(ABT_thread_create(primary_pool, probe_unit, &r, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    expect_ult(&r, t, primary, 0, primary_pool, ABT_FALSE, ABT_FALSE, probe_unit, &r);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);

    printf("# an unnamed ULT on a secondary stream\n");
    memset(&r, 0, sizeof r);
    ABT_pool user_pool;
    ABT_xstream third;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &user_pool), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(user_pool, probe_unit, &r, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &user_pool, ABT_SCHED_CONFIG_NULL, &third), ABT_SUCCESS);
    int third_rank = -1;
    CHECK_INT(ABT_xstream_get_rank(third, &third_rank), ABT_SUCCESS);
    /* Nobody may join an unnamed ULT: freeing its stream runs everything queued first. */
    ABT_xstream drain = third;
    CHECK_INT(ABT_xstream_free(&drain), ABT_SUCCESS);
    expect_ult(&r, ABT_THREAD_NULL, third, third_rank, user_pool, ABT_FALSE, ABT_TRUE, probe_unit, &r);
    CHECK_INT(ABT_pool_free(&user_pool), ABT_SUCCESS); /* not automatic: it outlives the stream */

    printf("# a tasklet on a secondary stream\n");
    memset(&r, 0, sizeof r);
    r.exits = 1;
    ABT_task k;
    CHECK_INT(ABT_task_create(second_pool, probe_unit, &r, &k), ABT_SUCCESS);
    CHECK_INT(ABT_task_join(k), ABT_SUCCESS);
    expect_tasklet(&r, k, second, 3, second_pool);
    CHECK_INT(ABT_task_free(&k), ABT_SUCCESS);

    printf("# a tasklet on the primary stream\n");
    memset(&r, 0, sizeof r);
    r.exits = 1;
    CHECK_INT(ABT_task_create(primary_pool, probe_unit, &r, &k), ABT_SUCCESS);
    CHECK_INT(ABT_task_join(k), ABT_SUCCESS);
    expect_tasklet(&r, k, primary, 0, primary_pool);
    CHECK_INT(ABT_task_free(&k), ABT_SUCCESS);

    printf("# an external pthread\n");
    memset(&r, 0, sizeof r);
    r.exits = 1;
    pthread_t ext;
    pthread_create(&ext, NULL, probe_pthread, &r);
    pthread_join(ext, NULL);
    expect_refused(&r, ABT_ERR_INV_XSTREAM);
    CHECK_INT(r.thread_yield_rc, ABT_SUCCESS); /* a no-op, as in Argobots 1.x */

    printf("# ABT_self_exit from a ULT\n");
    CHECK_INT(ABT_thread_create(second_pool, self_exiting, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(after_self_exit, 0);

    CHECK_INT(ABT_xstream_free(&second), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    printf("# after ABT_finalize\n");
    memset(&r, 0, sizeof r);
    r.exits = 1;
    probe(&r);
    expect_refused(&r, ABT_ERR_UNINITIALIZED);
    return check_summary();
}
