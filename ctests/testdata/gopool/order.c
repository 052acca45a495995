/* The program of ctests/gopool_test.go: six ULTs, three in each of two pools made by
 * ABT_pool_create_basic, run by one secondary stream whose scheduler ABT_sched_create_basic
 * makes (PRIO). It prints the order they ran in, one line, "order: a0 a1 a2 b0 b1 b2" under
 * goabt's own FIFO pools and PRIO policy; GOABT_POOL and GOABT_SCHED change the pools and the
 * policy without a change here. */
#include <abt.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        int ret_ = (call);                                                                   \
        if (ret_ != ABT_SUCCESS) {                                                           \
            printf("FAIL %s: error %d\n", #call, ret_);                                      \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

enum { NUM_POOLS = 2, PER_POOL = 3 };

static char order[NUM_POOLS * PER_POOL * 3 + 1];

/* Only the one secondary stream runs these, one at a time; main reads after the joins. */
static void work(void *arg)
{
    strcat(order, " ");
    strcat(order, (const char *)arg);
}

int main(void)
{
    static const char *names[NUM_POOLS][PER_POOL] = {{"a0", "a1", "a2"}, {"b0", "b1", "b2"}};
    ABT_pool pools[NUM_POOLS];
    ABT_thread threads[NUM_POOLS][PER_POOL];
    ABT_sched sched;
    ABT_xstream xstream;

    CHECK(ABT_init(0, NULL));
    for (int p = 0; p < NUM_POOLS; p++)
        CHECK(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &pools[p]));
    /* Every unit waits in its pool before a stream serves the pools. */
    for (int p = 0; p < NUM_POOLS; p++)
        for (int i = 0; i < PER_POOL; i++)
            CHECK(ABT_thread_create(pools[p], work, (void *)names[p][i], ABT_THREAD_ATTR_NULL,
                                    &threads[p][i]));
    CHECK(ABT_sched_create_basic(ABT_SCHED_PRIO, NUM_POOLS, pools, ABT_SCHED_CONFIG_NULL, &sched));
    CHECK(ABT_xstream_create(sched, &xstream));
    for (int p = 0; p < NUM_POOLS; p++)
        for (int i = 0; i < PER_POOL; i++)
            CHECK(ABT_thread_free(&threads[p][i]));
    CHECK(ABT_xstream_join(xstream));
    CHECK(ABT_xstream_free(&xstream));
    CHECK(ABT_finalize());
    printf("order:%s\n", order);
    return 0;
}
