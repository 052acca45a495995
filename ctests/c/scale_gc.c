/* Many ULTs while Go's garbage collector runs all the time (GOGC=1): 32,000 ULTs alive at once
 * on one pool, and on two streams at once, in rounds, each with a key set on it from outside.
 * Every create whose descriptor cache misses asks the Go core for a batch of descriptors, every
 * stack and key table comes from it too, and the collector runs through those calls. A pointer
 * that Go stored into C memory holding garbage made the collector abort the process ("found
 * bad pointer in Go heap") in about one run in eight of the single-pool round; the program must
 * get through every round. */
// ctest-env: GOGC=1
#include <stdlib.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define LIVE 32000 /* below what default vm.max_map_count allows for separately mapped stacks */
#define ROUNDS 4

static int ran;

static void work(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

static ABT_thread ults[LIVE];
static ABT_key key;

/* Creates n ULTs on pool into out, sets key on each (its table comes from the Go core), then
 * joins and frees them; how many steps failed. */
static int fork_join(ABT_pool pool, ABT_thread *out, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (ABT_thread_create(pool, work, NULL, ABT_THREAD_ATTR_NULL, &out[i]) != ABT_SUCCESS) {
            failed++;
            out[i] = ABT_THREAD_NULL;
            continue;
        }
        failed += ABT_thread_set_specific(out[i], key, &out[i]) != ABT_SUCCESS;
    }
    for (int i = 0; i < n; i++) {
        if (out[i] == ABT_THREAD_NULL) continue;
        failed += ABT_thread_free(&out[i]) != ABT_SUCCESS;
    }
    return failed;
}

/* A ULT on the second stream forking half of the units there, in its own pool. */
struct half {
    ABT_pool pool;
    int failed;
};

static void fork_half(void *arg)
{
    struct half *h = arg;
    h->failed = fork_join(h->pool, ults + LIVE / 2, LIVE / 2);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(NULL, &key), ABT_SUCCESS);
    ABT_xstream streams[2];
    ABT_pool pools[2];
    CHECK_INT(start_streams(2, streams, pools), ABT_SUCCESS);

    for (int r = 0; r < ROUNDS; r++) {
        CHECK_INT(fork_join(pools[0], ults, LIVE), 0);
    }
    CHECK_INT(__atomic_load_n(&ran, __ATOMIC_RELAXED), LIVE * ROUNDS);

    /* Both streams refill their caches from the Go core at once. */
    __atomic_store_n(&ran, 0, __ATOMIC_RELAXED);
    for (int r = 0; r < ROUNDS; r++) {
        struct half h = {pools[1], 0};
        ABT_thread helper;
        CHECK_INT(ABT_thread_create(pools[1], fork_half, &h, ABT_THREAD_ATTR_NULL, &helper),
                  ABT_SUCCESS);
        int failed = fork_join(pools[0], ults, LIVE / 2);
        CHECK_INT(ABT_thread_free(&helper), ABT_SUCCESS);
        CHECK_INT(failed + h.failed, 0);
    }
    CHECK_INT(__atomic_load_n(&ran, __ATOMIC_RELAXED), LIVE * ROUNDS);

    CHECK_INT(ABT_xstream_free(&streams[1]), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&key), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
