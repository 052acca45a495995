/* The main ULT, stolen by another stream, while a ULT on the primary polls (#36, item 1: the
 * MPICH hang). MPICH's threads test mt_iprobe_sendrecv hung under goabt about 1 run in 6: its
 * secondary stream runs ABT_SCHED_RANDWS over its own pool and the primary's, a ULT on the
 * primary polled MPI_Iprobe (which takes and releases MPICH's global mutex, never yielding), and
 * the main ULT, queued behind it and popped by the secondary, never ran again: it runs only on
 * the main thread (docs/design.md rule 1), where Argobots runs it on the stream that popped it.
 * Now the calls a polling loop makes give way to the main ULT on the primary
 * (capi/engine/unit.h, goabt_give_way_to_main).
 *
 * For each polling call, ROUNDS times: a ULT S in the primary's pool polls with that call until
 * the main ULT, which yields until S has started, says it may stop. S runs on the primary every
 * round: before S is made, a blocker ULT in the secondary's own pool keeps the secondary busy,
 * without yielding, until S has started, so that the secondary cannot take S; then it ends, and
 * the secondary is free to pop the main ULT queued behind S. Before the fix, the first round
 * hung (the program's time limit then fails it). */
#include <stdio.h>
#include <abt.h>
#include "check.h"
// ctest-timeout: 30

#define ROUNDS 200

enum poll_kind { POLL_MUTEX, POLL_TRYLOCK, POLL_RWLOCK, POLL_EVENTUAL, POLL_FUTURE, POLL_STATE, NKINDS };
static const char *kind_names[NKINDS] = {"mutex lock/unlock", "mutex trylock", "rwlock unlock",
                                         "eventual test", "future test", "thread get_state"};

static ABT_pool pools[2];
static ABT_mutex mutex, held; /* held: locked by the main ULT while S polls it */
static ABT_rwlock rwlock;
static ABT_eventual eventual;
static ABT_future future;
static ABT_thread main_ult;
static enum poll_kind kind;
static int started = -1; /* the stream S started on (atomic) */
static int done;         /* atomic: S may stop */
static int blocking;     /* atomic: the blocker runs on the secondary */

/* Keeps the secondary stream busy, without yielding, until S has started. */
static void blocker(void *arg)
{
    (void)arg;
    __atomic_store_n(&blocking, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 0) {
    }
}

static void poller(void *arg)
{
    (void)arg;
    int rank = -1;
    ABT_xstream_self_rank(&rank);
    __atomic_store_n(&started, rank, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        ABT_bool ready;
        ABT_thread_state state;
        switch (kind) {
        case POLL_MUTEX:
            ABT_mutex_lock(mutex);
            ABT_mutex_unlock(mutex);
            break;
        case POLL_TRYLOCK:
            if (ABT_mutex_trylock(held) == ABT_SUCCESS) ABT_mutex_unlock(held);
            break;
        case POLL_RWLOCK:
            ABT_rwlock_rdlock(rwlock);
            ABT_rwlock_unlock(rwlock);
            break;
        case POLL_EVENTUAL:
            ABT_eventual_test(eventual, NULL, &ready);
            break;
        case POLL_FUTURE:
            ABT_future_test(future, &ready);
            break;
        case POLL_STATE:
            ABT_thread_get_state(main_ult, &state);
            break;
        default:
            break;
        }
    }
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream primary, secondary;
    ABT_xstream_self(&primary);
    ABT_xstream_get_main_pools(primary, 1, &pools[0]);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &pools[1]),
              ABT_SUCCESS);
    ABT_pool stealing[2] = {pools[1], pools[0]};
    ABT_sched sched;
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_RANDWS, 2, stealing, ABT_SCHED_CONFIG_NULL, &sched),
              ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(sched, &secondary), ABT_SUCCESS);
    ABT_mutex_create(&mutex);
    ABT_mutex_create(&held);
    ABT_rwlock_create(&rwlock);
    ABT_eventual_create(0, &eventual);
    ABT_future_create(1, NULL, &future);
    ABT_thread_self(&main_ult);

    for (kind = 0; kind < NKINDS; kind++) {
        int on_primary = 0, finished = 0;
        if (kind == POLL_TRYLOCK) ABT_mutex_lock(held);
        for (int round = 0; round < ROUNDS; round++) {
            __atomic_store_n(&done, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&started, -1, __ATOMIC_RELAXED);
            __atomic_store_n(&blocking, 0, __ATOMIC_RELAXED);
            ABT_thread b, s;
            if (ABT_thread_create(pools[1], blocker, NULL, ABT_THREAD_ATTR_NULL, &b) != ABT_SUCCESS) {
                break;
            }
            while (!__atomic_load_n(&blocking, __ATOMIC_ACQUIRE)) ABT_thread_yield();
            if (ABT_thread_create(pools[0], poller, NULL, ABT_THREAD_ATTR_NULL, &s) != ABT_SUCCESS) {
                break;
            }
            while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 0) ABT_thread_yield();
            if (__atomic_load_n(&started, __ATOMIC_RELAXED) == 0) on_primary++;
            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
            if (ABT_thread_free(&s) == ABT_SUCCESS && ABT_thread_free(&b) == ABT_SUCCESS) finished++;
        }
        if (kind == POLL_TRYLOCK) ABT_mutex_unlock(held);
        printf("%s: %d rounds, the poller on the primary in %d\n", kind_names[kind], finished,
               on_primary);
        CHECK_INT(finished, ROUNDS);
        CHECK_INT(on_primary, ROUNDS); /* the case that hung, every round */
    }
    ABT_mutex_free(&mutex);
    ABT_mutex_free(&held);
    ABT_rwlock_free(&rwlock);
    ABT_eventual_free(&eventual);
    ABT_future_free(&future);
    CHECK_INT(ABT_xstream_free(&secondary), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
