/* Pools and schedulers written in Go, selected by the environment: a plain Argobots program
 * (it calls nothing of goabt.h's but the waiting-state query its pusher waits with) run as it is (fifo), with GOABT_POOL=ws (every pool goabt would make
 * a FIFO is a Go work-stealing pool), with GOABT_SCHED=deadline (every predefined scheduler
 * picks its pools with the Go priority/deadline policy) and with both:
 *  - 4 streams with the default scheduler (the primary's included): 4,000 ULTs that yield and
 *    take a contended mutex, and 1,000 tasklets, round-robin into their pools: exact sum, no
 *    lost update; again on a pool of ABT_pool_create_basic shared by two more streams of
 *    ABT_xstream_create_basic;
 *  - a predefined ABT_SCHED_PRIO scheduler whose first pool holds a ULT that yields forever:
 *    the ULT in its second pool starves under goabt's predefined schedulers, and runs within
 *    its budget under the deadline policy (which the program tells by reading GOABT_SCHED);
 *  - by hand, on a pool no scheduler serves: a unit pushed by the calling stream comes before
 *    one pushed earlier by an external thread under the work-stealing pool (own queue first),
 *    after it under the FIFO; ABT_pool_get_size, ABT_pool_remove, ABT_pool_pop_wait (nothing
 *    after its time; a unit pushed meanwhile by another thread), ABT_thread_yield_to;
 *  - by hand, more units than a Go pool keeps in C before handing them over (200 ULTs created
 *    into it, engine/pool_go.c): the size, ABT_pool_print_all_threads and ABT_pool_remove of
 *    the last one see them all; after the first pop, which takes a batch out of the
 *    work-stealing pool (core.Batcher), the size, the listing (in order), ABT_pool_remove of a
 *    unit of the batch and ABT_pool_free (refused) still see the batch's units; popping gives
 *    the others back in the order they were made;
 *  - after ABT_finalize, ABT_init with GOABT_POOL or GOABT_SCHED naming nothing registered
 *    returns ABT_ERR_INV_ARG, and works again once they are put back.
 * Every wait is bounded.
 */
// ctest-variant: fifo
// ctest-variant: ws GOABT_POOL=ws
// ctest-variant: deadline GOABT_SCHED=deadline
// ctest-variant: ws_deadline GOABT_POOL=ws GOABT_SCHED=deadline
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "go_work.h"

#define NSTREAMS 4

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, value) == 0;
}

/* ---- By hand ------------------------------------------------------------------------------- */

static void nothing(void *arg) { (void)arg; }

struct pusher {
    ABT_pool pool;
    ABT_thread t;
    int wait_for_popper; /* push once a caller blocks in the pool's pop_wait */
    int rc;
};

static void *push_from_thread(void *arg)
{
    struct pusher *p = arg;
    if (p->wait_for_popper && !wait_idle_streams(p->pool, 1)) {
        check_record(0, __FILE__, __LINE__, "nobody blocked in the pool's pop_wait");
    }
    p->rc = ABT_pool_push_thread(p->pool, p->t);
    return NULL;
}

static void push_from_external(ABT_pool pool, ABT_thread t)
{
    struct pusher p = {pool, t, 0, -1};
    pthread_t th;
    pthread_create(&th, NULL, push_from_thread, &p);
    pthread_join(th, NULL);
    CHECK_INT(p.rc, ABT_SUCCESS);
}

static void by_hand(ABT_pool served)
{
    printf("-- by hand\n");
    int ws = env_is("GOABT_POOL", "ws");
    ABT_pool u;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &u), ABT_SUCCESS);
    ABT_thread a, b, c, got = ABT_THREAD_NULL;
    CHECK_INT(ABT_thread_create(u, nothing, NULL, ABT_THREAD_ATTR_NULL, &a), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(u, nothing, NULL, ABT_THREAD_ATTR_NULL, &b), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(u, nothing, NULL, ABT_THREAD_ATTR_NULL, &c), ABT_SUCCESS);
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(u, &size), ABT_SUCCESS);
    CHECK_INT(size, 3);
    ABT_bool empty = ABT_TRUE;
    CHECK_INT(ABT_pool_is_empty(u, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_FALSE);

    /* Remove c by its pool unit. */
    ABT_unit cu = ABT_UNIT_NULL;
    CHECK_INT(ABT_thread_get_unit(c, &cu), ABT_SUCCESS);
    CHECK_INT(ABT_pool_remove(u, cu), ABT_SUCCESS);
    CHECK_INT(ABT_pool_remove(u, cu), ABT_ERR_INV_UNIT); /* not there any more */
    CHECK_INT(ABT_pool_get_size(u, &size), ABT_SUCCESS);
    CHECK_INT(size, 2);

    /* Take a and b out, then b back in from an external thread, a from this stream. */
    ABT_thread first = ABT_THREAD_NULL, second = ABT_THREAD_NULL;
    CHECK_INT(ABT_pool_pop_thread(u, &first), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(u, &second), ABT_SUCCESS);
    CHECK(first == a && second == b);
    CHECK_INT(ABT_pool_pop_thread(u, &got), ABT_SUCCESS);
    CHECK(got == ABT_THREAD_NULL);
    push_from_external(u, b);
    CHECK_INT(ABT_pool_push_thread(u, a), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(u, &first), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(u, &second), ABT_SUCCESS);
    if (ws) {
        CHECK(first == a && second == b); /* this stream's own queue first */
    } else {
        CHECK(first == b && second == a); /* FIFO */
    }

    /* pop_wait: nothing comes in 50 ms; then a unit pushed by another thread while it waits. */
    double t0 = ABT_get_wtime();
    CHECK_INT(ABT_pool_pop_wait_thread(u, &got, 0.05), ABT_SUCCESS);
    CHECK(got == ABT_THREAD_NULL);
    CHECK(ABT_get_wtime() - t0 >= 0.04);
    struct pusher p = {u, c, 1, -1};
    pthread_t th;
    pthread_create(&th, NULL, push_from_thread, &p);
    CHECK_INT(ABT_pool_pop_wait_thread(u, &got, 10.0), ABT_SUCCESS);
    pthread_join(th, NULL);
    CHECK_INT(p.rc, ABT_SUCCESS);
    CHECK(got == c);

    CHECK_INT(ABT_pool_push_thread(served, a), ABT_SUCCESS);
    CHECK_INT(ABT_pool_push_thread(served, b), ABT_SUCCESS);
    CHECK_INT(ABT_pool_push_thread(served, c), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&a), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&b), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&c), ABT_SUCCESS);
    CHECK_INT(ABT_pool_is_empty(u, &empty), ABT_SUCCESS);
    CHECK_INT(empty, ABT_TRUE);
    CHECK_INT(ABT_pool_free(&u), ABT_SUCCESS);
}

/* Many by hand: more pushes than a Go pool buffers in C (GO_PUSH_BATCH, 64), all from this
 * stream, so the same order out of the work-stealing pool as of the FIFO. */
#define MANY 200
#define CACHED 5 /* one of the first batch a Go pool that pops several at once (ws) gives out */

static ABT_thread made[MANY];

static ABT_thread listed[MANY];
static int nlisted;

static void list_thread(void *arg, ABT_thread t)
{
    (void)arg;
    if (nlisted < MANY) listed[nlisted] = t;
    nlisted++;
}

/* ABT_pool_print_all_threads lists made[from..to) and nothing else, in that order (a Go pool
 * lists the units of its batch kept in C first, then the Go pool's, queue by queue: all were
 * pushed by this stream). */
static int lists_in_order(ABT_pool pool, int from, int to, int skip)
{
    nlisted = 0;
    CHECK_INT(ABT_pool_print_all_threads(pool, NULL, list_thread), ABT_SUCCESS);
    int k = 0, ok = 1;
    for (int i = from; i < to; i++) {
        if (i == skip) continue;
        ok &= k < nlisted && listed[k] == made[i];
        k++;
    }
    return ok && k == nlisted;
}

static void many_by_hand(void)
{
    printf("-- many by hand\n");
    ABT_pool u;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &u), ABT_SUCCESS);
    for (int i = 0; i < MANY; i++) {
        CHECK_INT(ABT_thread_create(u, nothing, NULL, ABT_THREAD_ATTR_NULL, &made[i]), ABT_SUCCESS);
    }
    size_t size = 0;
    CHECK_INT(ABT_pool_get_size(u, &size), ABT_SUCCESS);
    CHECK_INT(size, MANY);
    CHECK(lists_in_order(u, 0, MANY, -1));
    /* The last one made: still among the pushes a Go pool keeps in C. */
    ABT_unit last = ABT_UNIT_NULL;
    CHECK_INT(ABT_thread_get_unit(made[MANY - 1], &last), ABT_SUCCESS);
    CHECK_INT(ABT_pool_remove(u, last), ABT_SUCCESS);
    /* The first pop: from ws, a batch out of Go, whose others wait in C (engine/pool_go.c). The
     * pool's size, its listing and a removal still see them, and it is not freed with them. */
    ABT_thread got = ABT_THREAD_NULL;
    CHECK_INT(ABT_pool_pop_thread(u, &got), ABT_SUCCESS);
    CHECK(got == made[0]);
    CHECK_INT(ABT_pool_get_size(u, &size), ABT_SUCCESS);
    CHECK_INT(size, MANY - 2);
    CHECK(lists_in_order(u, 1, MANY - 1, -1));
    ABT_unit cached = ABT_UNIT_NULL;
    CHECK_INT(ABT_thread_get_unit(made[CACHED], &cached), ABT_SUCCESS);
    CHECK_INT(ABT_pool_remove(u, cached), ABT_SUCCESS);
    CHECK_INT(ABT_pool_remove(u, cached), ABT_ERR_INV_UNIT);
    CHECK_INT(ABT_pool_get_size(u, &size), ABT_SUCCESS);
    CHECK_INT(size, MANY - 3);
    CHECK(lists_in_order(u, 1, MANY - 1, CACHED));
    CHECK_INT(ABT_pool_free(&u), ABT_ERR_POOL);
    int in_order = 1;
    for (int i = 1; i < MANY - 1; i++) {
        if (i == CACHED) continue;
        got = ABT_THREAD_NULL;
        CHECK_INT(ABT_pool_pop_thread(u, &got), ABT_SUCCESS);
        in_order &= got == made[i];
    }
    CHECK(in_order);
    CHECK_INT(ABT_pool_get_size(u, &size), ABT_SUCCESS);
    CHECK_INT(size, 0);
    ABT_thread none = (ABT_thread)1;
    CHECK_INT(ABT_pool_pop_thread(u, &none), ABT_SUCCESS);
    CHECK(none == ABT_THREAD_NULL);
    CHECK_INT(ABT_pool_free(&u), ABT_SUCCESS);
    /* Run and free them where a scheduler serves them. */
    ABT_xstream self;
    ABT_pool mine;
    CHECK_INT(ABT_xstream_self(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &mine), ABT_SUCCESS);
    for (int i = 0; i < MANY; i++) CHECK_INT(ABT_pool_push_thread(mine, made[i]), ABT_SUCCESS);
    for (int i = 0; i < MANY; i++) CHECK_INT(ABT_thread_free(&made[i]), ABT_SUCCESS);
}

/* yield_to: a ULT creates another into its own stream's pool and yields to it; it runs at once
 * (taken out of the pool), before anything else. */
static int target_ran;
static void target(void *arg)
{
    (void)arg;
    target_ran = 1;
}

static void yielder(void *arg)
{
    ABT_pool pool = arg;
    ABT_thread t;
    target_ran = 0;
    CHECK_INT(ABT_thread_create(pool, target, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_yield_to(t), ABT_SUCCESS);
    CHECK_INT(target_ran, 1);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
}

static void yield_to(void)
{
    printf("-- yield_to\n");
    ABT_xstream xs;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &pool), ABT_SUCCESS);
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool, yielder, pool, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
}

/* ---- Main ---------------------------------------------------------------------------------- */

int main(void)
{
    int deadline = env_is("GOABT_SCHED", "deadline");
    printf("GOABT_POOL=%s GOABT_SCHED=%s\n", getenv("GOABT_POOL") ? getenv("GOABT_POOL") : "",
           getenv("GOABT_SCHED") ? getenv("GOABT_SCHED") : "");
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);

    ABT_xstream streams[NSTREAMS];
    ABT_pool pools[NSTREAMS];
    CHECK_INT(start_streams(NSTREAMS, streams, pools), ABT_SUCCESS);
    run_work("default schedulers, 4 streams", pools, NSTREAMS);

    /* One pool of ABT_pool_create_basic shared by two streams of ABT_xstream_create_basic. */
    ABT_pool shared;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO_WAIT, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &shared),
              ABT_SUCCESS);
    ABT_xstream two[2];
    for (int i = 0; i < 2; i++) {
        CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &shared, ABT_SCHED_CONFIG_NULL, &two[i]),
                  ABT_SUCCESS);
    }
    run_work("one shared pool, 2 streams", &shared, 1);
    for (int i = 0; i < 2; i++) CHECK_INT(ABT_xstream_free(&two[i]), ABT_SUCCESS);

    /* Starvation under ABT_SCHED_PRIO. */
    printf("-- starvation\n");
    ABT_pool q[2];
    for (int i = 0; i < 2; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &q[i]),
                  ABT_SUCCESS);
    }
    ABT_sched prio;
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_PRIO, 2, q, ABT_SCHED_CONFIG_NULL, &prio), ABT_SUCCESS);
    int in_time = run_starvation(prio, q);
    printf("the second pool's ULT ran %s\n", in_time ? "in time" : "only once the first was empty");
    CHECK_INT(in_time, deadline);
    for (int i = 0; i < 2; i++) CHECK_INT(ABT_pool_free(&q[i]), ABT_SUCCESS);

    by_hand(pools[1]);
    many_by_hand();
    yield_to();

    for (int i = 1; i < NSTREAMS; i++) CHECK_INT(ABT_xstream_free(&streams[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    /* Names nothing is registered under. */
    printf("-- unknown names\n");
    char *pool_env = getenv("GOABT_POOL") ? strdup(getenv("GOABT_POOL")) : NULL;
    char *sched_env = getenv("GOABT_SCHED") ? strdup(getenv("GOABT_SCHED")) : NULL;
    setenv("GOABT_POOL", "no-such-pool", 1);
    CHECK_INT(ABT_init(0, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);
    if (pool_env) setenv("GOABT_POOL", pool_env, 1); else unsetenv("GOABT_POOL");
    setenv("GOABT_SCHED", "ws", 1); /* a pool's name, not a scheduler's */
    CHECK_INT(ABT_init(0, NULL), ABT_ERR_INV_ARG);
    if (sched_env) setenv("GOABT_SCHED", sched_env, 1); else unsetenv("GOABT_SCHED");
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(start_streams(2, streams, pools), ABT_SUCCESS);
    run_work("again, 2 streams", pools, 2);
    CHECK_INT(ABT_xstream_free(&streams[1]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    free(pool_env);
    free(sched_env);
    return check_summary();
}
