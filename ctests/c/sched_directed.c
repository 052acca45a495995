/* Directed scheduling and suspension (ABT_thread_create_to, ABT_self_suspend / suspend_to /
 * exit_to / resume_yield_to / resume_suspend_to / resume_exit_to, ABT_thread_resume,
 * ABT_self_set_associated_pool, ABT_thread_set_associated_pool), against Argobots 1.2's
 * documented semantics:
 *  - on one stream, an order log shows who runs next: create_to runs the new ULT before its
 *    creator goes on (from a ULT and from the main ULT); suspend_to and exit_to switch to the
 *    named ULT ahead of the others in the pool, whether it is still queued or popped by the
 *    caller first (Argobots 1.2's way, for yield_to too); resume_yield_to / resume_suspend_to /
 *    resume_exit_to run the resumed ULT next;
 *  - a suspended ULT is BLOCKED until ABT_thread_resume, from the same stream, another stream
 *    and an external pthread; resuming a ULT that is not suspended gives ABT_ERR_THREAD;
 *  - a resume racing with the suspend it answers (a flag set just before suspending, resumed by
 *    another stream as soon as it sees it), 2,000 times: none is lost;
 *  - a suspended ULT's requests are taken up when it is resumed, as for any blocked ULT, by
 *    resume_yield_to too: cancelled, it ends without running on; asked to migrate, it runs on
 *    in the pool it moved to;
 *  - a ULT's associated pool changed by itself or by another is where it goes when it yields or
 *    is resumed; changing it while the ULT is still queued is refused (ABT_ERR_THREAD);
 *  - 32 ULTs on both streams yield_to one another at random, 300 times each (targets queued,
 *    running elsewhere, just popped by a scheduler, done): each counts exactly its own rounds,
 *    and none runs on two streams at once;
 *  - bad input: suspend from an external thread or a tasklet, exit_to from the main ULT, invalid
 *    and self targets.
 * Every wait is bounded. */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

static char order[64];
static int norder;
static void note(char c) { order[norder++] = c; order[norder] = 0; }

static ABT_pool pool0; /* the primary's pool */
static ABT_thread ta, tb;

/* ---- create_to ---------------------------------------------------------------------------- */

static void mark_n(void *arg) { (void)arg; note('n'); }

static void creator(void *arg)
{
    (void)arg;
    note('c');
    CHECK_INT(ABT_thread_create_to(pool0, mark_n, NULL, ABT_THREAD_ATTR_NULL, NULL), ABT_SUCCESS);
    note('C');
}

static void mark_o(void *arg) { (void)arg; note('o'); }

static void test_create_to(void)
{
    norder = 0;
    ABT_thread t, other;
    CHECK_INT(ABT_thread_create(pool0, creator, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool0, mark_o, NULL, ABT_THREAD_ATTR_NULL, &other), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&other), ABT_SUCCESS);
    /* c, then the new one at once, then o (queued before the creator went back), then C. */
    CHECK_STR(order, "cnoC");
    /* From the main ULT (it cannot switch straight: the new ULT runs before it goes on). */
    norder = 0;
    ABT_thread made;
    CHECK_INT(ABT_thread_create_to(pool0, mark_n, NULL, ABT_THREAD_ATTR_NULL, &made), ABT_SUCCESS);
    note('M');
    CHECK_STR(order, "nM");
    CHECK_INT(ABT_thread_free(&made), ABT_SUCCESS);
}

/* ---- suspend_to, exit_to, resume_*_to ------------------------------------------------------- */

static void a_suspend_to_b(void *arg)
{
    (void)arg;
    note('a');
    CHECK_INT(ABT_self_suspend_to(tb), ABT_SUCCESS);
    note('A');
}

static void b_resumes_a(void *arg)
{
    (void)arg;
    note('b');
    CHECK_INT(ABT_thread_resume(ta), ABT_SUCCESS);
    note('B');
}

static void a_exit_to_b(void *arg)
{
    (void)arg;
    note('a');
    ABT_self_exit_to(tb);
    note('X'); /* never */
}

static void mark_b(void *arg) { (void)arg; note('b'); }

static void a_suspends(void *arg)
{
    (void)arg;
    note('a');
    CHECK_INT(ABT_self_suspend(), ABT_SUCCESS);
    note('A');
}

static int then_kind;
static void b_resume_to_a(void *arg)
{
    (void)arg;
    note('b');
    int rc = then_kind == 0 ? ABT_self_resume_yield_to(ta)
           : then_kind == 1 ? ABT_self_resume_suspend_to(ta)
                            : ABT_self_resume_exit_to(ta);
    CHECK_INT(rc, ABT_SUCCESS);
    note('B'); /* yield: after the others; suspend: once resumed; exit: never */
}

static void mark_x(void *arg) { (void)arg; note('x'); }

/* Argobots 1.2's way: the caller pops the target from its pool first, then switches to it. */
static void a_pops_then(void *arg)
{
    int how = (int)(intptr_t)arg;
    note('a');
    ABT_thread t = ABT_THREAD_NULL;
    CHECK_INT(ABT_pool_pop_thread(pool0, &t), ABT_SUCCESS);
    CHECK(t == tb);
    if (how == 0) CHECK_INT(ABT_self_yield_to(t), ABT_SUCCESS);
    if (how == 1) CHECK_INT(ABT_self_suspend_to(t), ABT_SUCCESS);
    if (how == 2) ABT_self_exit_to(t);
    note('A');
}

/* Runs a then b then x (queued in that order on the primary), the main ULT waiting in joins. */
static void three(void (*fa)(void *), void (*fb)(void *), int join_b_first)
{
    ABT_thread tx;
    norder = 0;
    CHECK_INT(ABT_thread_create(pool0, fa, NULL, ABT_THREAD_ATTR_NULL, &ta), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool0, fb, NULL, ABT_THREAD_ATTR_NULL, &tb), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool0, mark_x, NULL, ABT_THREAD_ATTR_NULL, &tx), ABT_SUCCESS);
    if (join_b_first) CHECK_INT(ABT_thread_join(tb), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&tx), ABT_SUCCESS);
}

static void test_directed(void)
{
    /* a suspends straight to b (ahead of x); b resumes a, which runs after x. */
    three(a_suspend_to_b, b_resumes_a, 0);
    CHECK_INT(ABT_thread_free(&tb), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
    CHECK_STR(order, "abBxA");

    /* a exits straight to b. */
    three(a_exit_to_b, mark_b, 0);
    CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&tb), ABT_SUCCESS);
    CHECK_STR(order, "abx");

    /* b resumes the suspended a and yields to it: a runs next, ahead of x. */
    then_kind = 0;
    three(a_suspends, b_resume_to_a, 0);
    CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&tb), ABT_SUCCESS);
    CHECK_STR(order, "abAxB");

    /* ... and suspends: b stays suspended until resumed. */
    then_kind = 1;
    three(a_suspends, b_resume_to_a, 0);
    CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
    CHECK_STR(order, "abAx");
    ABT_thread_state st;
    CHECK_INT(ABT_thread_get_state(tb, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_BLOCKED);
    CHECK_INT(ABT_thread_resume(tb), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&tb), ABT_SUCCESS);
    CHECK_STR(order, "abAxB");

    /* ... and exits. */
    then_kind = 2;
    three(a_suspends, b_resume_to_a, 0);
    CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&tb), ABT_SUCCESS);
    CHECK_STR(order, "abAx");

    /* The target popped from its pool by the caller (Argobots 1.2), for yield_to, suspend_to
     * and exit_to: it runs at once, ahead of x. */
    for (int how = 0; how < 3; how++) {
        ABT_thread tx;
        norder = 0;
        CHECK_INT(ABT_thread_create(pool0, a_pops_then, (void *)(intptr_t)how, ABT_THREAD_ATTR_NULL,
                                    &ta), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pool0, mark_b, NULL, ABT_THREAD_ATTR_NULL, &tb), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pool0, mark_x, NULL, ABT_THREAD_ATTR_NULL, &tx), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&tx), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&tb), ABT_SUCCESS);
        if (how == 1) CHECK_INT(ABT_thread_resume(ta), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
        CHECK_STR(order, how == 0 ? "abxA" : how == 1 ? "abxA" : "abx");
    }

    /* Not suspended: ABT_ERR_THREAD, nothing done. */
    CHECK_INT(ABT_thread_create(pool0, mark_x, NULL, ABT_THREAD_ATTR_NULL, &ta), ABT_SUCCESS);
    CHECK_INT(ABT_thread_resume(ta), ABT_ERR_THREAD);
    CHECK_INT(ABT_self_resume_yield_to(ta), ABT_ERR_THREAD);
    CHECK_INT(ABT_thread_free(&ta), ABT_SUCCESS);
}

/* ---- Suspend and resume from elsewhere -------------------------------------------------- */

static int suspended_once;
static void suspend_once(void *arg)
{
    (void)arg;
    CHECK_INT(ABT_self_suspend(), ABT_SUCCESS);
    __atomic_store_n(&suspended_once, 1, __ATOMIC_RELEASE);
}

static void *resume_from_pthread(void *arg)
{
    CHECK_INT(ABT_thread_resume(*(ABT_thread *)arg), ABT_SUCCESS);
    return NULL;
}

static int flag, lost;
#define RACES 2000
static void racer_suspend(void *arg)
{
    (void)arg;
    for (int i = 0; i < RACES; i++) {
        __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
        ABT_self_suspend();
    }
}

static void racer_resume(void *arg)
{
    ABT_thread target = *(ABT_thread *)arg;
    for (int i = 0; i < RACES; i++) {
        double end = ABT_get_wtime() + 10;
        while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE)) {
            if (ABT_get_wtime() > end) {
                lost++;
                return;
            }
            ABT_thread_yield();
        }
        __atomic_store_n(&flag, 0, __ATOMIC_RELAXED);
        /* It may not have parked yet: the resume must still land. */
        while (ABT_thread_resume(target) != ABT_SUCCESS) ABT_thread_yield();
    }
}

static void test_elsewhere(ABT_pool pool1)
{
    /* Same stream, another stream, an external pthread. */
    for (int how = 0; how < 3; how++) {
        ABT_thread t;
        suspended_once = 0;
        CHECK_INT(ABT_thread_create(how == 0 ? pool0 : pool1, suspend_once, NULL,
                                    ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
        CHECK(wait_state(t, ABT_THREAD_STATE_BLOCKED));
        CHECK_INT(suspended_once, 0);
        if (how < 2) {
            CHECK_INT(ABT_thread_resume(t), ABT_SUCCESS);
        } else {
            pthread_t th;
            CHECK_INT(pthread_create(&th, NULL, resume_from_pthread, &t), 0);
            CHECK_INT(pthread_join(th, NULL), 0);
        }
        CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
        CHECK_INT(suspended_once, 1);
    }
    /* The race. */
    ABT_thread s, r;
    CHECK_INT(ABT_thread_create(pool1, racer_suspend, NULL, ABT_THREAD_ATTR_NULL, &s), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool0, racer_resume, &s, ABT_THREAD_ATTR_NULL, &r), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&r), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&s), ABT_SUCCESS);
    CHECK_INT(lost, 0);
}

/* ---- Requests to a suspended ULT --------------------------------------------------------- */

static ABT_thread suspended;
static int suspended_rank = -1;
static void suspend_then_rank(void *arg)
{
    (void)arg;
    CHECK_INT(ABT_self_suspend(), ABT_SUCCESS);
    int rank = -1;
    CHECK_INT(ABT_self_get_xstream_rank(&rank), ABT_SUCCESS);
    __atomic_store_n(&suspended_rank, rank, __ATOMIC_RELEASE);
}

static void resume_yield_to_suspended(void *arg)
{
    (void)arg;
    CHECK_INT(ABT_self_resume_yield_to(suspended), ABT_SUCCESS);
}

/* A ULT of the primary's pool suspends and gets a request; another ULT there resumes it with
 * resume_yield_to, which would switch straight to it on the primary. */
static void test_requests(ABT_pool pool1)
{
    for (int migrate = 0; migrate < 2; migrate++) {
        suspended_rank = -1;
        ABT_thread r;
        CHECK_INT(ABT_thread_create(pool0, suspend_then_rank, NULL, ABT_THREAD_ATTR_NULL,
                                    &suspended), ABT_SUCCESS);
        CHECK(wait_state(suspended, ABT_THREAD_STATE_BLOCKED));
        if (migrate) {
            CHECK_INT(ABT_thread_migrate_to_pool(suspended, pool1), ABT_SUCCESS);
        } else {
            CHECK_INT(ABT_thread_cancel(suspended), ABT_SUCCESS);
        }
        CHECK_INT(ABT_thread_create(pool0, resume_yield_to_suspended, NULL, ABT_THREAD_ATTR_NULL,
                                    &r), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&r), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&suspended), ABT_SUCCESS);
        /* Cancelled: never past its suspend; migrated: on the stream of pool1. */
        CHECK_INT(suspended_rank, (migrate ? 1 : -1));
    }
}

/* ---- Associated pools ------------------------------------------------------------------- */

static ABT_pool target_pool;
static void move_self(void *arg)
{
    (void)arg;
    CHECK_INT(ABT_self_set_associated_pool(target_pool), ABT_SUCCESS);
    CHECK_INT(ABT_self_yield(), ABT_SUCCESS); /* lands in target_pool, which nobody serves */
    note('m');
}

static void test_associated(void)
{
    ABT_pool own;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &own), ABT_SUCCESS);
    target_pool = own;
    norder = 0;
    ABT_thread t;
    CHECK_INT(ABT_thread_create(pool0, move_self, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    size_t size = 0;
    for (double end = ABT_get_wtime() + 10; size == 0 && ABT_get_wtime() < end; ABT_thread_yield()) {
        ABT_pool_get_size(own, &size);
    }
    CHECK_INT(size, 1);
    ABT_thread got;
    CHECK_INT(ABT_pool_pop_thread(own, &got), ABT_SUCCESS);
    CHECK(got == t);
    CHECK_INT(ABT_pool_push_thread(pool0, got), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_STR(order, "m");

    /* Set by another while it is still queued: refused (it stays where it is, and runs there). */
    CHECK_INT(ABT_thread_create(pool0, mark_x, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_set_associated_pool(t, own), ABT_ERR_THREAD);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_size(own, &size), ABT_SUCCESS);
    CHECK_INT(size, 0);

    /* Set by another while it is suspended: resumed into that pool. */
    suspended_once = 0;
    CHECK_INT(ABT_thread_create(pool0, suspend_once, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK(wait_state(t, ABT_THREAD_STATE_BLOCKED));
    CHECK_INT(ABT_thread_set_associated_pool(t, own), ABT_SUCCESS);
    CHECK_INT(ABT_thread_resume(t), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_size(own, &size), ABT_SUCCESS);
    CHECK_INT(size, 1);
    CHECK_INT(ABT_pool_pop_thread(own, &got), ABT_SUCCESS);
    CHECK_INT(ABT_pool_push_thread(pool0, got), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(suspended_once, 1);
    CHECK_INT(ABT_pool_free(&own), ABT_SUCCESS);
}

/* ---- Yield_to any ULT, wherever it is ------------------------------------------------------ */

/* ULTs on both streams yield_to one another at random: the target may be queued here or on the
 * other stream, running there, just popped by a scheduler that is about to run it, or done.
 * Only a ULT that is the caller's to run (queued, taken out of its pool, or popped by the
 * caller itself) is switched to; any other leaves the caller running. A ULT switched to while
 * another stream runs it would run on two stacks at once: its count and its stack show it. */
#define ANY_ULTS 32
#define ANY_ROUNDS 300
static ABT_thread any_ults[ANY_ULTS];
static int any_ready, any_counts[ANY_ULTS];

static void yield_to_anyone(void *arg)
{
    int me = (int)(intptr_t)arg;
    uint32_t seed = (uint32_t)me * 2654435761u + 1;
    while (!__atomic_load_n(&any_ready, __ATOMIC_ACQUIRE)) ABT_thread_yield();
    for (int i = 0; i < ANY_ROUNDS; i++) {
        seed = seed * 1103515245u + 12345u;
        ABT_thread_yield_to(any_ults[(seed >> 8) % ANY_ULTS]);
        volatile int before = any_counts[me]; /* only this ULT writes its count */
        any_counts[me] = before + 1;
    }
}

static void test_yield_to_anyone(ABT_pool pool1)
{
    any_ready = 0;
    for (int i = 0; i < ANY_ULTS; i++) {
        any_counts[i] = 0;
        CHECK_INT(ABT_thread_create(i % 2 ? pool1 : pool0, yield_to_anyone, (void *)(intptr_t)i,
                                    ABT_THREAD_ATTR_NULL, &any_ults[i]),
                  ABT_SUCCESS);
    }
    __atomic_store_n(&any_ready, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < ANY_ULTS; i++) CHECK_INT(ABT_thread_join(any_ults[i]), ABT_SUCCESS);
    int wrong = 0;
    for (int i = 0; i < ANY_ULTS; i++) wrong += any_counts[i] != ANY_ROUNDS;
    CHECK_INT(wrong, 0);
    for (int i = 0; i < ANY_ULTS; i++) CHECK_INT(ABT_thread_free(&any_ults[i]), ABT_SUCCESS);
}

/* ---- Bad input -------------------------------------------------------------------------- */

static int task_rc = -1;
static void task_suspends(void *arg)
{
    (void)arg;
    task_rc = ABT_self_suspend();
}

static void *external_calls(void *arg)
{
    (void)arg;
    CHECK_INT(ABT_self_suspend(), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_thread_create_to(pool0, mark_x, NULL, ABT_THREAD_ATTR_NULL, NULL),
              ABT_ERR_INV_XSTREAM);
    return NULL;
}

static void test_bad_input(void)
{
    ABT_thread t, self;
    CHECK_INT(ABT_task_create(pool0, task_suspends, NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t), ABT_SUCCESS);
    CHECK_INT(task_rc, ABT_ERR_INV_THREAD);
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, external_calls, NULL), 0);
    CHECK_INT(pthread_join(th, NULL), 0);
    CHECK_INT(ABT_self_get_thread(&self), ABT_SUCCESS);
    CHECK_INT(ABT_self_exit_to(self), ABT_ERR_INV_THREAD); /* the main ULT */
    CHECK_INT(ABT_self_suspend_to(self), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_self_suspend_to(ABT_THREAD_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_self_resume_yield_to(ABT_THREAD_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_resume(ABT_THREAD_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_thread_set_associated_pool(self, ABT_POOL_NULL), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_self_set_associated_pool(ABT_POOL_NULL), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_thread_create_to(ABT_POOL_NULL, mark_x, NULL, ABT_THREAD_ATTR_NULL, NULL),
              ABT_ERR_INV_POOL);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream xs[2];
    ABT_pool pools[2];
    CHECK_INT(start_streams(2, xs, pools), ABT_SUCCESS);
    pool0 = pools[0];
    test_create_to();
    test_directed();
    test_elsewhere(pools[1]);
    test_requests(pools[1]);
    test_associated();
    test_yield_to_anyone(pools[1]);
    test_bad_input();
    CHECK_INT(ABT_xstream_free(&xs[1]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
