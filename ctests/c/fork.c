/* fork, as test runners (one child per test) and daemons do it:
 *  - 200 children forked at once before the program used goabt at all, each running a small
 *    Argobots and OPAL program (2 streams, ULTs, a key, a class with a constructor, ABT_init and
 *    ABT_finalize twice): every one succeeds (a Go runtime started at load time used to leave
 *    them hanging in their first ABT_init);
 *  - after the parent used goabt (ABT_init, ABT_finalize): a child's ABT_init fails at once with
 *    ABT_ERR_OTHER and one line on stderr saying why, and OPAL works there: objects of a class
 *    the parent initialized, and of classes it never did (a base and a derived class:
 *    constructors base first, destructors derived first), before and after
 *    opal_class_finalize;
 *  - children forked while the parent runs: ULTs churn on 3 streams (each round creates and
 *    frees ULTs and tasklets, locks a mutex, sets a key), ULTs wait in a join, a mutex, a
 *    condition variable, an eventual, a future and a barrier, and the forking ULT holds a mutex
 *    and a write lock. 32 children forked by the main ULT and 8 by a ULT on a secondary stream
 *    each make about 200 calls across the API on what they inherited (pools, streams,
 *    schedulers, work units, keys, every kind of synchronization object, attributes, timers,
 *    configurations, a static mutex used and one never used) and anew (creates, self calls,
 *    ABT_init, ABT_finalize): every call returns an error, the documented one (abt.h, "Fork":
 *    ABT_ERR_UNINITIALIZED, or for a call that takes a handle the invalid-handle error of its
 *    kind; ABT_init ABT_ERR_OTHER), none hangs or aborts; the handle comparisons still answer;
 *    OPAL works there as above; stderr has one line;
 *  - a child forked inside a ULT, and one inside a tasklet, whose function then returns: the
 *    child exits with status 0 (as a process whose last thread returns);
 *  - fork while streams run: the child exits at once, the parent's streams go on.
 * Every child has an alarm: a hang shows up as a failure, not as a stuck test. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include <opal_object.h>
#include "check.h"
#include "abt_wait.h"

typedef struct {
    opal_object_t super;
    int value;
} thing_t;
static void thing_construct(thing_t *t) { t->value = 42; }
OBJ_CLASS_INSTANCE(thing_t, opal_object_t, thing_construct, NULL);

/* OPAL classes no parent ever initializes: base <- derived, each with a constructor and a
 * destructor that log their order. */
typedef struct {
    opal_object_t super;
    char log[16];
    int n;
} base_t;
typedef struct {
    base_t super;
} derived_t;
static char destroyed[16];
static int ndestroyed;
static void base_construct(base_t *b)
{
    b->n = 0; /* OBJ_NEW's memory is malloc's */
    b->log[b->n++] = 'b';
}
static void base_destruct(base_t *b) { (void)b; destroyed[ndestroyed++] = 'b'; }
static void derived_construct(derived_t *d) { d->super.log[d->super.n++] = 'd'; }
static void derived_destruct(derived_t *d) { (void)d; destroyed[ndestroyed++] = 'd'; }
OBJ_CLASS_INSTANCE(base_t, opal_object_t, base_construct, base_destruct);
OBJ_CLASS_INSTANCE(derived_t, base_t, derived_construct, derived_destruct);

/* OPAL in a child forked after the parent used goabt: a class the parent used, and classes it
 * never initialized (constructors base first, destructors derived first), again after
 * opal_class_finalize; the number of things that went wrong. */
static int opal_in_child(void)
{
    int bad = 0;
    thing_t *th = OBJ_NEW(thing_t);
    bad += th == NULL || th->value != 42;
    OBJ_RELEASE(th);
    for (int round = 0; round < 2; round++) {
        ndestroyed = 0;
        derived_t *d = OBJ_NEW(derived_t);
        bad += d == NULL || d->super.n != 2 || memcmp(d->super.log, "bd", 2) != 0;
        OBJ_RETAIN(d);
        OBJ_RELEASE(d);
        bad += d == NULL || ndestroyed != 0;
        OBJ_RELEASE(d);
        bad += d != NULL || ndestroyed != 2 || memcmp(destroyed, "db", 2) != 0;
        base_t *b = OBJ_NEW(base_t);
        bad += b == NULL || b->n != 1 || b->log[0] != 'b';
        OBJ_RELEASE(b);
        opal_class_finalize(); /* a new epoch: the classes initialize again */
    }
    return bad;
}

static int sum;
static void add(void *arg) { __atomic_add_fetch(&sum, (int)(intptr_t)arg, __ATOMIC_RELAXED); }

/* A small program; 0 if everything in it worked. */
static int small_program(void)
{
    int bad = 0;
    for (int round = 0; round < 2; round++) {
        sum = 0;
        bad += ABT_init(0, NULL) != ABT_SUCCESS;
        ABT_xstream xs[2];
        ABT_pool pools[2];
        bad += start_streams(2, xs, pools) != ABT_SUCCESS;
        ABT_key key;
        bad += ABT_key_create(NULL, &key) != ABT_SUCCESS;
        ABT_thread t[8];
        for (int i = 0; i < 8; i++) {
            bad += ABT_thread_create(pools[i % 2], add, (void *)(intptr_t)(i + 1),
                                     ABT_THREAD_ATTR_NULL, &t[i]) != ABT_SUCCESS;
            bad += ABT_thread_set_specific(t[i], key, &t[i]) != ABT_SUCCESS;
        }
        for (int i = 0; i < 8; i++) bad += ABT_thread_free(&t[i]) != ABT_SUCCESS;
        bad += sum != 36;
        thing_t *th = OBJ_NEW(thing_t);
        bad += th == NULL || th->value != 42;
        OBJ_RELEASE(th);
        bad += ABT_key_free(&key) != ABT_SUCCESS;
        bad += ABT_xstream_free(&xs[1]) != ABT_SUCCESS;
        bad += ABT_finalize() != ABT_SUCCESS;
    }
    return bad;
}

/* Forks n children running child(arg) with an alarm; returns how many exited with 0. When err
 * is not NULL, the first child's stderr is read into it. */
static int fork_children(int n, int (*child)(void), char *err, size_t errlen)
{
    pid_t pids[256];
    int fds[2] = {-1, -1};
    if (err != NULL && pipe(fds) != 0) return -1;
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            alarm(60);
            if (err != NULL) {
                dup2(fds[1], 2);
                close(fds[0]);
            }
            _exit(child());
        }
    }
    if (err != NULL) {
        close(fds[1]);
        size_t got = 0;
        ssize_t r;
        while (got + 1 < errlen && (r = read(fds[0], err + got, errlen - 1 - got)) > 0) got += r;
        err[got] = '\0';
        close(fds[0]);
    }
    int ok = 0;
    for (int i = 0; i < n; i++) {
        int st;
        if (pids[i] > 0 && waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) &&
            WEXITSTATUS(st) == 0) {
            ok++;
        }
    }
    return ok;
}

/* In a child of a parent that used goabt: ABT_init refuses, OPAL objects work. */
static int child_after_use(void)
{
    if (ABT_init(0, NULL) != ABT_ERR_OTHER) return 1;
    if (ABT_init(0, NULL) != ABT_ERR_OTHER) return 2; /* and again, without hanging */
    if (opal_in_child() != 0) return 3;
    return 0;
}

static int child_exits(void) { return 0; }

static int spin_stop;
static void spinner(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&spin_stop, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

/* ---- Children forked while goabt runs ------------------------------------------------------- */

/* What the parent has while it forks; the children call the API on all of it. */
static struct {
    ABT_xstream xs[3];
    ABT_pool pools[3];
    ABT_pool spare_pool; /* made, used by nobody */
    ABT_sched sched1;    /* stream 1's main scheduler */
    ABT_sched spare_sched;
    ABT_thread main_ult, ended, joiner, waiters[6];
    ABT_thread task_ended;
    ABT_key key;
    ABT_mutex held, cond_mutex;
    ABT_cond cond;
    ABT_rwlock rwlock;
    ABT_eventual eventual;
    ABT_future future;
    ABT_barrier barrier;
    ABT_xstream_barrier xbarrier;
    ABT_thread_attr thread_attr;
    ABT_mutex_attr mutex_attr;
    ABT_timer timer;
    ABT_sched_config sched_config;
    ABT_pool_config pool_config;
} inh;
static ABT_mutex_memory static_used = ABT_MUTEX_INITIALIZER;
static ABT_mutex_memory static_unused = ABT_MUTEX_INITIALIZER;
static int cond_go, churn_stop;

/* A child's checks: failures are printed (a FAIL line each) and counted in child_bad, which
 * becomes its exit status. */
static int child_bad;
static void child_expect(const char *what, int line, int rc, int want, int or_want)
{
    if (rc == want || rc == or_want) return;
    printf("FAIL child %d, fork.c:%d: %s returned %d, want %d or %d\n", (int)getpid(), line, what,
           rc, want, or_want);
    fflush(stdout);
    child_bad++;
}
/* A call that takes no handle: ABT_ERR_UNINITIALIZED. */
#define NONE(call) child_expect(#call, __LINE__, (call), ABT_ERR_UNINITIALIZED, ABT_ERR_UNINITIALIZED)
/* A call on an inherited handle: ABT_ERR_UNINITIALIZED or the invalid-handle error `inv`. */
#define HANDLE(inv, call) child_expect(#call, __LINE__, (call), ABT_ERR_UNINITIALIZED, inv)
static void child_check(const char *what, int line, int ok)
{
    if (ok) return;
    printf("FAIL child %d, fork.c:%d: %s\n", (int)getpid(), line, what);
    fflush(stdout);
    child_bad++;
}
#define CHILD_CHECK(cond) child_check(#cond, __LINE__, !!(cond))

static void noop(void *arg) { (void)arg; }
static void noop_destructor(void *v) { (void)v; }

static ABT_unit pu_create_unit(ABT_pool p, ABT_thread t) { (void)p; return (ABT_unit)t; }
static void pu_free_unit(ABT_pool p, ABT_unit u) { (void)p; (void)u; }
static ABT_bool pu_is_empty(ABT_pool p) { (void)p; return ABT_TRUE; }
static ABT_thread pu_pop(ABT_pool p, ABT_pool_context c) { (void)p; (void)c; return ABT_THREAD_NULL; }
static void pu_push(ABT_pool p, ABT_unit u, ABT_pool_context c) { (void)p; (void)u; (void)c; }
static void tool_cb(ABT_thread t, ABT_xstream x, uint64_t e, ABT_tool_context c, void *a)
{
    (void)t; (void)x; (void)e; (void)c; (void)a;
}

/* The calls of a child forked while the parent runs; the number of wrong answers. */
static int child_calls(void)
{
    child_bad = 0;
    ABT_thread t = ABT_THREAD_NULL;
    ABT_thread ts[2] = {inh.ended, inh.waiters[0]};
    ABT_task task = ABT_TASK_NULL;
    ABT_xstream x = ABT_XSTREAM_NULL;
    ABT_pool p = ABT_POOL_NULL;
    ABT_sched sc = ABT_SCHED_NULL;
    ABT_unit unit = ABT_UNIT_NULL;
    ABT_key k = ABT_KEY_NULL;
    ABT_mutex m = ABT_MUTEX_NULL;
    ABT_cond c = ABT_COND_NULL;
    ABT_rwlock rw = ABT_RWLOCK_NULL;
    ABT_eventual ev = ABT_EVENTUAL_NULL;
    ABT_future fu = ABT_FUTURE_NULL;
    ABT_barrier b = ABT_BARRIER_NULL;
    ABT_xstream_barrier xb = ABT_XSTREAM_BARRIER_NULL;
    ABT_thread_attr ta = ABT_THREAD_ATTR_NULL;
    ABT_mutex_attr ma = ABT_MUTEX_ATTR_NULL;
    ABT_timer tm = ABT_TIMER_NULL;
    ABT_sched_config scfg = ABT_SCHED_CONFIG_NULL;
    ABT_pool_config pcfg = ABT_POOL_CONFIG_NULL;
    ABT_pool_user_def def = ABT_POOL_USER_DEF_NULL;
    ABT_thread_state st;
    ABT_xstream_state xst;
    ABT_unit_type type;
    ABT_unit_id id;
    ABT_bool flag;
    size_t size;
    int n, rank;
    void *v;
    double secs;
    char buf[64];
    ABT_mutex su = ABT_MUTEX_MEMORY_GET_HANDLE(&static_used);
    ABT_mutex sn = ABT_MUTEX_MEMORY_GET_HANDLE(&static_unused);

    /* The runtime. */
    NONE(ABT_initialized());
    CHILD_CHECK(ABT_init(0, NULL) == ABT_ERR_OTHER);
    CHILD_CHECK(ABT_init(0, NULL) == ABT_ERR_OTHER);
    NONE(ABT_initialized());
    NONE(ABT_finalize());
    NONE(ABT_info_query_config(ABT_INFO_QUERY_KIND_DEFAULT_THREAD_STACKSIZE, &size));
    NONE(ABT_info_print_config(stdout));
    NONE(ABT_info_print_all_xstreams(stdout));
    NONE(ABT_info_trigger_print_all_thread_stacks(stdout, 1.0, NULL, NULL));
    NONE(ABT_error_get_str(ABT_ERR_MEM, buf, NULL));
    NONE(ABT_tool_register_thread_callback(tool_cb, ABT_TOOL_EVENT_THREAD_ALL, NULL));

    /* ULTs and tasklets on inherited pools, streams and units. */
    for (int i = 0; i < 3; i++) {
        HANDLE(ABT_ERR_INV_POOL, ABT_thread_create(inh.pools[i], noop, NULL, ABT_THREAD_ATTR_NULL, &t));
        CHILD_CHECK(t == ABT_THREAD_NULL);
        HANDLE(ABT_ERR_INV_POOL, ABT_thread_create(inh.pools[i], noop, NULL, ABT_THREAD_ATTR_NULL, NULL));
        HANDLE(ABT_ERR_INV_POOL, ABT_task_create(inh.pools[i], noop, NULL, &task));
        HANDLE(ABT_ERR_INV_POOL, ABT_task_create(inh.pools[i], noop, NULL, NULL));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_thread_create_on_xstream(inh.xs[i], noop, NULL, ABT_THREAD_ATTR_NULL, &t));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_task_create_on_xstream(inh.xs[i], noop, NULL, &task));
    }
    HANDLE(ABT_ERR_INV_POOL, ABT_thread_create(inh.spare_pool, noop, NULL, inh.thread_attr, &t));
    HANDLE(ABT_ERR_INV_POOL, ABT_thread_create_to(inh.pools[0], noop, NULL, ABT_THREAD_ATTR_NULL, &t));
    void (*fns[2])(void *) = {noop, noop};
    HANDLE(ABT_ERR_INV_POOL, ABT_thread_create_many(2, inh.pools, fns, NULL, ABT_THREAD_ATTR_NULL, ts));
    ts[0] = inh.ended;
    ts[1] = inh.waiters[0];
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_join(inh.ended));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_join(inh.waiters[0]));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_join(inh.joiner));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_join_many(2, ts));
    t = inh.ended;
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_free(&t));
    CHILD_CHECK(t == inh.ended);
    t = inh.waiters[1];
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_free(&t));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_free_many(2, ts));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_cancel(inh.waiters[2]));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_resume(inh.waiters[2]));
    t = inh.ended;
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_revive(inh.pools[1], noop, NULL, &t));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_state(inh.waiters[3], &st));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_id(inh.main_ult, &id));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_last_pool(inh.waiters[3], &p));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_last_xstream(inh.waiters[3], &x));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_arg(inh.waiters[3], &v));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_stacksize(inh.waiters[3], &size));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_attr(inh.waiters[3], &ta));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_unit(inh.waiters[3], &unit));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_is_primary(inh.main_ult, &flag));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_set_migratable(inh.waiters[3], ABT_FALSE));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_migrate_to_pool(inh.waiters[3], inh.pools[2]));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_migrate(inh.waiters[3]));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_set_associated_pool(inh.ended, inh.pools[2]));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_set_specific(inh.main_ult, inh.key, &t));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_get_specific(inh.main_ult, inh.key, &v));
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_set_specific(inh.waiters[3], inh.key, &t));
    HANDLE(ABT_ERR_INV_THREAD, ABT_info_print_thread(stdout, inh.waiters[3]));
    HANDLE(ABT_ERR_INV_TASK, ABT_task_join(inh.task_ended));
    task = inh.task_ended;
    HANDLE(ABT_ERR_INV_TASK, ABT_task_free(&task));
    HANDLE(ABT_ERR_INV_TASK, ABT_task_get_state(inh.task_ended, (ABT_task_state *)&st));
    NONE(ABT_thread_self(&t));
    NONE(ABT_thread_self_id(&id));
    NONE(ABT_task_self(&task));
    NONE(ABT_thread_yield());
    HANDLE(ABT_ERR_INV_THREAD, ABT_thread_yield_to(inh.waiters[3]));
    NONE(ABT_thread_exit());
    NONE(ABT_thread_attr_create(&ta));
    HANDLE(ABT_ERR_INV_THREAD_ATTR, ABT_thread_attr_set_stacksize(inh.thread_attr, 32768));
    HANDLE(ABT_ERR_INV_THREAD_ATTR, ABT_thread_attr_get_stacksize(inh.thread_attr, &size));
    ta = inh.thread_attr;
    HANDLE(ABT_ERR_INV_THREAD_ATTR, ABT_thread_attr_free(&ta));

    /* Self. */
    NONE(ABT_self_get_thread(&t));
    NONE(ABT_self_get_thread_id(&id));
    NONE(ABT_self_get_xstream(&x));
    NONE(ABT_self_get_xstream_rank(&rank));
    NONE(ABT_self_get_type(&type));
    NONE(ABT_self_is_primary(&flag));
    NONE(ABT_self_on_primary_xstream(&flag));
    NONE(ABT_self_get_last_pool(&p));
    NONE(ABT_self_get_unit(&unit));
    NONE(ABT_self_get_arg(&v));
    NONE(ABT_self_yield());
    NONE(ABT_self_suspend());
    NONE(ABT_self_exit());
    HANDLE(ABT_ERR_INV_POOL, ABT_self_set_associated_pool(inh.pools[1]));
    HANDLE(ABT_ERR_INV_THREAD, ABT_self_yield_to(inh.waiters[3]));
    HANDLE(ABT_ERR_INV_THREAD, ABT_self_schedule(inh.waiters[3], ABT_POOL_NULL));

    /* Keys. */
    NONE(ABT_key_create(noop_destructor, &k));
    CHILD_CHECK(k == ABT_KEY_NULL);
    HANDLE(ABT_ERR_INV_KEY, ABT_key_set(inh.key, &t));
    HANDLE(ABT_ERR_INV_KEY, ABT_key_get(inh.key, &v));
    HANDLE(ABT_ERR_INV_KEY, ABT_self_set_specific(inh.key, &t));
    HANDLE(ABT_ERR_INV_KEY, ABT_self_get_specific(inh.key, &v));
    k = inh.key;
    HANDLE(ABT_ERR_INV_KEY, ABT_key_free(&k));

    /* Streams, pools, schedulers. */
    NONE(ABT_xstream_create(ABT_SCHED_NULL, &x));
    CHILD_CHECK(x == ABT_XSTREAM_NULL);
    NONE(ABT_xstream_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &x));
    NONE(ABT_xstream_self(&x));
    NONE(ABT_xstream_self_rank(&rank));
    NONE(ABT_xstream_get_num(&n));
    NONE(ABT_xstream_exit());
    for (int i = 0; i < 3; i++) {
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_get_rank(inh.xs[i], &rank));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_get_state(inh.xs[i], &xst));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_is_primary(inh.xs[i], &flag));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_get_main_pools(inh.xs[i], 1, &p));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_get_main_sched(inh.xs[i], &sc));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_set_rank(inh.xs[i], 7));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_join(inh.xs[i]));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_cancel(inh.xs[i]));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_revive(inh.xs[i]));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_set_main_sched_basic(inh.xs[i], ABT_SCHED_BASIC, 0, NULL));
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_info_print_xstream(stdout, inh.xs[i]));
        x = inh.xs[i];
        HANDLE(ABT_ERR_INV_XSTREAM, ABT_xstream_free(&x));
        CHILD_CHECK(x == inh.xs[i]);
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_get_size(inh.pools[i], &size));
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_get_total_size(inh.pools[i], &size));
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_is_empty(inh.pools[i], &flag));
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_get_id(inh.pools[i], &n));
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_pop_thread(inh.pools[i], &t));
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_pop_wait_thread(inh.pools[i], &t, 0.01));
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_push_thread(inh.pools[i], inh.ended));
        HANDLE(ABT_ERR_INV_POOL, ABT_pool_set_data(inh.pools[i], &t));
        HANDLE(ABT_ERR_INV_POOL, ABT_info_print_pool(stdout, inh.pools[i]));
    }
    NONE(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &p));
    CHILD_CHECK(p == ABT_POOL_NULL);
    p = inh.spare_pool;
    HANDLE(ABT_ERR_INV_POOL, ABT_pool_free(&p));
    NONE(ABT_sched_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &sc));
    HANDLE(ABT_ERR_INV_SCHED, ABT_sched_get_num_pools(inh.sched1, &n));
    HANDLE(ABT_ERR_INV_SCHED, ABT_sched_get_pools(inh.sched1, 1, 0, &p));
    HANDLE(ABT_ERR_INV_SCHED, ABT_sched_get_size(inh.sched1, &size));
    HANDLE(ABT_ERR_INV_SCHED, ABT_sched_has_to_stop(inh.sched1, &flag));
    HANDLE(ABT_ERR_INV_SCHED, ABT_sched_finish(inh.sched1));
    HANDLE(ABT_ERR_INV_SCHED, ABT_sched_exit(inh.sched1));
    HANDLE(ABT_ERR_INV_SCHED, ABT_xstream_check_events(inh.sched1));
    HANDLE(ABT_ERR_INV_SCHED, ABT_info_print_sched(stdout, inh.sched1));
    sc = inh.spare_sched;
    HANDLE(ABT_ERR_INV_SCHED, ABT_sched_free(&sc));
    NONE(ABT_sched_config_create(&scfg, ABT_sched_config_var_end));
    HANDLE(ABT_ERR_INV_SCHED_CONFIG, ABT_sched_config_set(inh.sched_config, 0, ABT_SCHED_CONFIG_INT, &n));
    scfg = inh.sched_config;
    HANDLE(ABT_ERR_INV_SCHED_CONFIG, ABT_sched_config_free(&scfg));
    NONE(ABT_pool_config_create(&pcfg));
    n = 1;
    HANDLE(ABT_ERR_INV_POOL_CONFIG, ABT_pool_config_set(inh.pool_config, 0, ABT_POOL_CONFIG_INT, &n));
    pcfg = inh.pool_config;
    HANDLE(ABT_ERR_INV_POOL_CONFIG, ABT_pool_config_free(&pcfg));
    NONE(ABT_pool_user_def_create(pu_create_unit, pu_free_unit, pu_is_empty, pu_pop, pu_push, &def));
    CHILD_CHECK(def == ABT_POOL_USER_DEF_NULL);

    /* Synchronization objects: inherited (held, waited for, or idle in the parent), static,
     * and new. None may hang. */
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_lock(inh.held));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_lock_high(inh.held));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_lock_low(inh.held));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_spinlock(inh.held));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_trylock(inh.held));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_unlock(inh.held));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_lock(inh.cond_mutex));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_lock(su));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_unlock(su));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_lock(sn));
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_get_attr(inh.held, &ma));
    m = inh.held;
    HANDLE(ABT_ERR_INV_MUTEX, ABT_mutex_free(&m));
    CHILD_CHECK(m == inh.held);
    NONE(ABT_mutex_create(&m));
    CHILD_CHECK(m == ABT_MUTEX_NULL);
    NONE(ABT_mutex_attr_create(&ma));
    HANDLE(ABT_ERR_INV_MUTEX_ATTR, ABT_mutex_attr_set_recursive(inh.mutex_attr, ABT_TRUE));
    HANDLE(ABT_ERR_INV_MUTEX_ATTR, ABT_mutex_create_with_attr(inh.mutex_attr, &m));
    ma = inh.mutex_attr;
    HANDLE(ABT_ERR_INV_MUTEX_ATTR, ABT_mutex_attr_free(&ma));
    HANDLE(ABT_ERR_INV_COND, ABT_cond_wait(inh.cond, inh.cond_mutex));
    struct timespec soon = {0, 0};
    HANDLE(ABT_ERR_INV_COND, ABT_cond_timedwait(inh.cond, inh.cond_mutex, &soon));
    HANDLE(ABT_ERR_INV_COND, ABT_cond_signal(inh.cond));
    HANDLE(ABT_ERR_INV_COND, ABT_cond_broadcast(inh.cond));
    c = inh.cond;
    HANDLE(ABT_ERR_INV_COND, ABT_cond_free(&c));
    NONE(ABT_cond_create(&c));
    HANDLE(ABT_ERR_INV_RWLOCK, ABT_rwlock_rdlock(inh.rwlock));
    HANDLE(ABT_ERR_INV_RWLOCK, ABT_rwlock_wrlock(inh.rwlock));
    HANDLE(ABT_ERR_INV_RWLOCK, ABT_rwlock_unlock(inh.rwlock));
    rw = inh.rwlock;
    HANDLE(ABT_ERR_INV_RWLOCK, ABT_rwlock_free(&rw));
    NONE(ABT_rwlock_create(&rw));
    HANDLE(ABT_ERR_INV_EVENTUAL, ABT_eventual_wait(inh.eventual, &v));
    HANDLE(ABT_ERR_INV_EVENTUAL, ABT_eventual_test(inh.eventual, &v, &n));
    HANDLE(ABT_ERR_INV_EVENTUAL, ABT_eventual_set(inh.eventual, NULL, 0));
    HANDLE(ABT_ERR_INV_EVENTUAL, ABT_eventual_reset(inh.eventual));
    ev = inh.eventual;
    HANDLE(ABT_ERR_INV_EVENTUAL, ABT_eventual_free(&ev));
    NONE(ABT_eventual_create(0, &ev));
    HANDLE(ABT_ERR_INV_FUTURE, ABT_future_wait(inh.future));
    HANDLE(ABT_ERR_INV_FUTURE, ABT_future_test(inh.future, &flag));
    HANDLE(ABT_ERR_INV_FUTURE, ABT_future_set(inh.future, NULL));
    HANDLE(ABT_ERR_INV_FUTURE, ABT_future_reset(inh.future));
    fu = inh.future;
    HANDLE(ABT_ERR_INV_FUTURE, ABT_future_free(&fu));
    NONE(ABT_future_create(2, NULL, &fu));
    HANDLE(ABT_ERR_INV_BARRIER, ABT_barrier_wait(inh.barrier));
    HANDLE(ABT_ERR_INV_BARRIER, ABT_barrier_reinit(inh.barrier, 3));
    HANDLE(ABT_ERR_INV_BARRIER, ABT_barrier_get_num_waiters(inh.barrier, (uint32_t *)&n));
    b = inh.barrier;
    HANDLE(ABT_ERR_INV_BARRIER, ABT_barrier_free(&b));
    NONE(ABT_barrier_create(2, &b));
    HANDLE(ABT_ERR_INV_XSTREAM_BARRIER, ABT_xstream_barrier_wait(inh.xbarrier));
    xb = inh.xbarrier;
    HANDLE(ABT_ERR_INV_XSTREAM_BARRIER, ABT_xstream_barrier_free(&xb));
    NONE(ABT_xstream_barrier_create(2, &xb));

    /* Timers. */
    NONE(ABT_timer_create(&tm));
    NONE(ABT_timer_get_overhead(&secs));
    HANDLE(ABT_ERR_INV_TIMER, ABT_timer_start(inh.timer));
    HANDLE(ABT_ERR_INV_TIMER, ABT_timer_stop_and_read(inh.timer, &secs));
    HANDLE(ABT_ERR_INV_TIMER, ABT_timer_dup(inh.timer, &tm));
    tm = inh.timer;
    HANDLE(ABT_ERR_INV_TIMER, ABT_timer_free(&tm));

    /* What still answers: comparisons of handle values, and the clock. */
    flag = ABT_FALSE;
    CHILD_CHECK(ABT_thread_equal(inh.ended, inh.ended, &flag) == ABT_SUCCESS && flag == ABT_TRUE);
    CHILD_CHECK(ABT_xstream_equal(inh.xs[0], inh.xs[1], &flag) == ABT_SUCCESS && flag == ABT_FALSE);
    CHILD_CHECK(ABT_mutex_equal(inh.held, inh.held, &flag) == ABT_SUCCESS && flag == ABT_TRUE);
    CHILD_CHECK(ABT_get_wtime() > 0.0);

    /* OPAL works. */
    CHILD_CHECK(opal_in_child() == 0);
    fflush(stdout);
    return child_bad > 100 ? 100 : child_bad;
}

/* Forks n children running child_calls, all at once, their stderr in one pipe (read into err),
 * and returns how many exited with 0 (each other one is named on stdout). */
static int fork_callers(int n, char *err, size_t errlen)
{
    pid_t pids[64];
    int fds[2];
    if (n > 64 || pipe(fds) != 0) return -1;
    for (int i = 0; i < n; i++) {
        fflush(stdout);
        pids[i] = fork();
        if (pids[i] == 0) {
            alarm(30 * CTEST_SLOW);
            dup2(fds[1], 2);
            close(fds[0]);
            _exit(child_calls());
        }
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < errlen && (r = read(fds[0], err + got, errlen - 1 - got)) > 0) got += r;
    err[got] = '\0';
    close(fds[0]);
    int ok = 0;
    for (int i = 0; i < n; i++) {
        int st;
        if (pids[i] > 0 && waitpid(pids[i], &st, 0) == pids[i]) {
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
                ok++;
            } else {
                printf("child %d: %s %d\n", (int)pids[i], WIFEXITED(st) ? "exit status" : "signal",
                       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            }
        }
    }
    return ok;
}

/* The number of lines of err. */
static int count_lines(const char *err)
{
    int lines = 0;
    for (const char *p = err; *p; p++) lines += *p == '\n';
    return lines;
}

/* Each round makes and frees ULTs and tasklets in its own pool, locks a mutex and sets a key. */
static void churn(void *arg)
{
    ABT_pool pool = arg;
    while (!__atomic_load_n(&churn_stop, __ATOMIC_ACQUIRE)) {
        ABT_thread t[8];
        for (int i = 0; i < 8; i++) {
            if (i % 2 == 0) {
                ABT_thread_create(pool, noop, NULL, ABT_THREAD_ATTR_NULL, &t[i]);
            } else {
                ABT_task_create(pool, noop, NULL, &t[i]);
            }
            ABT_thread_set_specific(t[i], inh.key, &t[i]);
        }
        for (int i = 0; i < 8; i++) ABT_thread_free(&t[i]);
        ABT_mutex_lock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_used));
        ABT_mutex_unlock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_used));
        ABT_thread_yield();
    }
}

/* ULTs that wait in the parent while it forks: a join, each kind of object. */
static void wait_join(void *arg) { ABT_thread_join(*(ABT_thread *)arg); }
static void wait_mutex(void *arg)
{
    (void)arg;
    ABT_mutex_lock(inh.held);
    ABT_mutex_unlock(inh.held);
}
static void wait_cond(void *arg)
{
    (void)arg;
    ABT_mutex_lock(inh.cond_mutex);
    while (!__atomic_load_n(&cond_go, __ATOMIC_ACQUIRE)) ABT_cond_wait(inh.cond, inh.cond_mutex);
    ABT_mutex_unlock(inh.cond_mutex);
}
static void wait_eventual(void *arg)
{
    (void)arg;
    void *v;
    ABT_eventual_wait(inh.eventual, &v);
}
static void wait_future(void *arg)
{
    (void)arg;
    ABT_future_wait(inh.future);
}
static void wait_barrier(void *arg)
{
    (void)arg;
    ABT_barrier_wait(inh.barrier);
}
static void wait_rwlock(void *arg)
{
    (void)arg;
    ABT_rwlock_rdlock(inh.rwlock);
    ABT_rwlock_unlock(inh.rwlock);
}

/* A ULT on a secondary stream that forks callers while the others churn. */
static int ult_forked_ok = -1, ult_forked_lines = -1;
static void ult_forker(void *arg)
{
    (void)arg;
    char err[4096];
    ult_forked_ok = fork_callers(8, err, sizeof err);
    ult_forked_lines = count_lines(err);
}

/* A child forked inside a work unit, whose function then returns: status 0 if its calls went
 * as documented and goabt ended it when the function returned, 1-100 if not, 101 if the function
 * returned to its caller in the child. */
static pid_t unit_child = -1;
static void fork_and_return(void *arg)
{
    (void)arg;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(30 * CTEST_SLOW);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2); /* ABT_init's line, checked above */
        int bad = child_calls();
        if (bad != 0) _exit(bad);
        return; /* goabt ends the child here */
    }
    unit_child = pid;
}
static int unit_child_status(void)
{
    int st;
    if (unit_child <= 0 || waitpid(unit_child, &st, 0) != unit_child) return -1;
    if (!WIFEXITED(st)) printf("unit child: signal %d\n", WTERMSIG(st));
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

static void test_fork_while_running(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(start_streams(3, inh.xs, inh.pools), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_sched(inh.xs[1], &inh.sched1), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &inh.spare_pool),
              ABT_SUCCESS);
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &inh.spare_sched),
              ABT_SUCCESS);
    CHECK_INT(ABT_self_get_thread(&inh.main_ult), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(noop_destructor, &inh.key), ABT_SUCCESS);
    CHECK_INT(ABT_key_set(inh.key, &inh), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&inh.held), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&inh.cond_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&inh.cond), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_create(&inh.rwlock), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_create(0, &inh.eventual), ABT_SUCCESS);
    CHECK_INT(ABT_future_create(2, NULL, &inh.future), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(inh.future, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_create(2, &inh.barrier), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_create(2, &inh.xbarrier), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_create(&inh.thread_attr), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_create(&inh.mutex_attr), ABT_SUCCESS);
    CHECK_INT(ABT_timer_create(&inh.timer), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_create(&inh.sched_config, ABT_sched_config_var_end), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_create(&inh.pool_config), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(inh.pools[1], noop, NULL, ABT_THREAD_ATTR_NULL, &inh.ended), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(inh.ended), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(inh.pools[2], noop, NULL, &inh.task_ended), ABT_SUCCESS);
    CHECK_INT(ABT_task_join(inh.task_ended), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_used)), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_used)), ABT_SUCCESS);

    /* The waiters, and the locks the forking ULT holds. */
    CHECK_INT(ABT_mutex_lock(inh.held), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_wrlock(inh.rwlock), ABT_SUCCESS);
    void (*waits[6])(void *) = {wait_mutex, wait_cond, wait_eventual, wait_future, wait_barrier,
                                wait_rwlock};
    for (int i = 0; i < 6; i++) {
        CHECK_INT(ABT_thread_create(inh.pools[1 + i % 2], waits[i], NULL, ABT_THREAD_ATTR_NULL,
                                    &inh.waiters[i]),
                  ABT_SUCCESS);
    }
    CHECK_INT(ABT_thread_create(inh.pools[2], wait_join, &inh.waiters[2], ABT_THREAD_ATTR_NULL,
                                &inh.joiner),
              ABT_SUCCESS);
    for (int i = 0; i < 6; i++) CHECK(wait_state(inh.waiters[i], ABT_THREAD_STATE_BLOCKED));
    CHECK(wait_state(inh.joiner, ABT_THREAD_STATE_BLOCKED));

    /* Churn on every stream, then the forks. */
    ABT_thread churners[3];
    for (int i = 0; i < 3; i++) {
        CHECK_INT(ABT_thread_create(inh.pools[i], churn, inh.pools[i], ABT_THREAD_ATTR_NULL,
                                    &churners[i]),
                  ABT_SUCCESS);
    }
    char err[8192];
    CHECK_INT(fork_callers(32, err, sizeof err), 32);
    CHECK_INT(count_lines(err), 32); /* one line each: ABT_init's */
    CHECK(strstr(err, "forked after goabt started") != NULL);
    ABT_thread forker;
    CHECK_INT(ABT_thread_create(inh.pools[1], ult_forker, NULL, ABT_THREAD_ATTR_NULL, &forker),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&forker), ABT_SUCCESS);
    CHECK_INT(ult_forked_ok, 8);
    CHECK_INT(ult_forked_lines, 8);

    /* Forked inside a ULT, and inside a tasklet, whose functions return in the child. */
    ABT_thread u;
    CHECK_INT(ABT_thread_create(inh.pools[2], fork_and_return, NULL, ABT_THREAD_ATTR_NULL, &u),
              ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
    CHECK_INT(unit_child_status(), 0);
    unit_child = -1;
    CHECK_INT(ABT_task_create(inh.pools[1], fork_and_return, NULL, &u), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&u), ABT_SUCCESS);
    CHECK_INT(unit_child_status(), 0);

    /* The parent goes on: everything is released and freed as usual. */
    __atomic_store_n(&churn_stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 3; i++) CHECK_INT(ABT_thread_free(&churners[i]), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(inh.held), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(inh.rwlock), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(inh.cond_mutex), ABT_SUCCESS);
    __atomic_store_n(&cond_go, 1, __ATOMIC_RELEASE);
    CHECK_INT(ABT_cond_signal(inh.cond), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_unlock(inh.cond_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_set(inh.eventual, NULL, 0), ABT_SUCCESS);
    CHECK_INT(ABT_future_set(inh.future, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_wait(inh.barrier), ABT_SUCCESS);
    for (int i = 0; i < 6; i++) CHECK_INT(ABT_thread_free(&inh.waiters[i]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&inh.joiner), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&inh.ended), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&inh.task_ended), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&inh.held), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&inh.cond_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&inh.cond), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&inh.rwlock), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_free(&inh.eventual), ABT_SUCCESS);
    CHECK_INT(ABT_future_free(&inh.future), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_free(&inh.barrier), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_barrier_free(&inh.xbarrier), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&inh.thread_attr), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_attr_free(&inh.mutex_attr), ABT_SUCCESS);
    CHECK_INT(ABT_timer_free(&inh.timer), ABT_SUCCESS);
    CHECK_INT(ABT_sched_config_free(&inh.sched_config), ABT_SUCCESS);
    CHECK_INT(ABT_pool_config_free(&inh.pool_config), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&inh.key), ABT_SUCCESS);
    CHECK_INT(ABT_sched_free(&inh.spare_sched), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&inh.spare_pool), ABT_SUCCESS);
    for (int i = 1; i < 3; i++) CHECK_INT(ABT_xstream_free(&inh.xs[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

int main(void)
{
    /* Nothing of goabt has run in this process yet. */
    CHECK_INT(fork_children(200, small_program, NULL, 0), 200);

    /* Now the parent uses goabt itself. */
    CHECK_INT(small_program(), 0);
    char err[4096];
    CHECK_INT(fork_children(1, child_after_use, err, sizeof err), 1);
    CHECK(strstr(err, "forked after goabt started") != NULL);
    int lines = 0;
    for (char *p = err; *p; p++) lines += *p == '\n';
    CHECK_INT(lines, 1);
    printf("child's stderr: %s", err);

    /* Forks while goabt runs. */
    test_fork_while_running();

    /* Fork while streams run. */
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream xs[3];
    ABT_pool pools[3];
    CHECK_INT(start_streams(3, xs, pools), ABT_SUCCESS);
    ABT_thread s[4];
    for (int i = 0; i < 4; i++) {
        CHECK_INT(ABT_thread_create(pools[i % 3], spinner, NULL, ABT_THREAD_ATTR_NULL, &s[i]),
                  ABT_SUCCESS);
    }
    CHECK_INT(fork_children(8, child_exits, NULL, 0), 8);
    __atomic_store_n(&spin_stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 4; i++) CHECK_INT(ABT_thread_free(&s[i]), ABT_SUCCESS);
    for (int i = 1; i < 3; i++) CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
