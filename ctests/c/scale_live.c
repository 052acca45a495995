/* Many ULTs alive at once, past what stacks with a guard page each allow (the kernel's
 * vm.max_map_count, 65,530 regions by default, capped goabt at about 32,600 live ULTs):
 *  - 100,000 ULTs created on one pool before any of them runs, then run, joined and freed;
 *  - 4 streams x 100,000 ULTs that all start (each touching 2 KiB of its stack) and yield until
 *    released, so that every one of them holds a stack it has used at the same time; then
 *    released, joined and freed; the process's peak RSS must stay under 2 GiB (issue goal:
 *    one page of stack each for such ULTs, plus the descriptor). Under AddressSanitizer, whose
 *    shadow memory doubles that, 4 x 25,000 and no RSS check.
 * Counts are exact. Stacks come from slabs, with lightweight guard pages that cost no memory
 * region (on kernels before 6.13, past core.GuardedStacks live stacks, without a guard page:
 * core/stacks.go); make bench's scale table measures the cost and RSS. */
// ctest-timeout: 120
#include <stdlib.h>
#include <sys/resource.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define CREATED 100000
#define NSTREAMS 4
#ifdef GOABT_CTEST_ASAN
#define PER_STREAM 25000
#else
#define PER_STREAM 100000
#endif
#define RSS_LIMIT_KIB (2L * 1024 * 1024)

static int ran, started, release;

static void count(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

static void hold(void *arg)
{
    (void)arg;
    volatile char used[2048]; /* touch a little of the stack, as real work would */
    for (size_t i = 0; i < sizeof used; i += 256) used[i] = (char)i;
    __atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE)) ABT_thread_yield();
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

int main(void)
{
    static ABT_thread t[CREATED > NSTREAMS * PER_STREAM ? CREATED : NSTREAMS * PER_STREAM];
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream xs[NSTREAMS];
    ABT_pool pools[NSTREAMS];
    CHECK_INT(start_streams(1, xs, pools), ABT_SUCCESS);

    int created = 0;
    for (int i = 0; i < CREATED; i++) {
        created += ABT_thread_create(pools[0], count, NULL, ABT_THREAD_ATTR_NULL, &t[i]) ==
                   ABT_SUCCESS;
    }
    CHECK_INT(created, CREATED);
    int freed = 0;
    for (int i = 0; i < created; i++) freed += ABT_thread_free(&t[i]) == ABT_SUCCESS;
    CHECK_INT(freed, CREATED);
    CHECK_INT(ran, CREATED);

    /* All started at once, on 4 streams. */
    ran = 0;
    CHECK_INT(start_streams(NSTREAMS, xs, pools), ABT_SUCCESS);
    created = 0;
    for (int i = 0; i < NSTREAMS * PER_STREAM; i++) {
        created += ABT_thread_create(pools[i % NSTREAMS], hold, NULL, ABT_THREAD_ATTR_NULL,
                                     &t[i]) == ABT_SUCCESS;
    }
    CHECK_INT(created, NSTREAMS * PER_STREAM);
    double end = ABT_get_wtime() + 120;
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < created && ABT_get_wtime() < end) {
        ABT_thread_yield();
    }
    CHECK_INT(__atomic_load_n(&started, __ATOMIC_ACQUIRE), NSTREAMS * PER_STREAM);
#ifndef GOABT_CTEST_ASAN
    struct rusage ru;
    CHECK_INT(getrusage(RUSAGE_SELF, &ru), 0);
    printf("peak RSS with %d started ULTs: %ld MiB\n", NSTREAMS * PER_STREAM, ru.ru_maxrss / 1024);
    CHECK(ru.ru_maxrss < RSS_LIMIT_KIB);
#endif
    __atomic_store_n(&release, 1, __ATOMIC_RELEASE);
    freed = 0;
    for (int i = 0; i < created; i++) freed += ABT_thread_free(&t[i]) == ABT_SUCCESS;
    CHECK_INT(freed, NSTREAMS * PER_STREAM);
    CHECK_INT(ran, NSTREAMS * PER_STREAM);
    for (int i = 1; i < NSTREAMS; i++) CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
