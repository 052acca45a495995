/* Idle streams sleep: an idle scheduler polls its pools for a bounded time before it sleeps
 * (capi/engine/sched.c, idle_wait), never for as long as it stays idle. Two streams (the
 * primary, whose main ULT waits on an eventual, and a secondary) are left without work for
 * 1 s, then given one small ULT every 10 ms for 1 s (a fresh idle spell after each); the CPU
 * time the whole process used over each second (getrusage: time consumed, not elapsed, so a
 * busy machine makes it no larger) must stay a small part of it. A stream that kept polling
 * would use up to a CPU per stream, as native Argobots' schedulers, which never sleep, do.
 * The waits below are the length of the idle spells measured, not waits for a state. */
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <abt.h>
#include "check.h"

/* CPU seconds (user + system) the process has used so far. */
static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
}

static ABT_eventual done;
static ABT_pool secondary_pool;
static int ran;

static void tick(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

/* An external thread: the idle second, then a ULT every 10 ms for a second, then it sets done,
 * which the main ULT waits on meanwhile (so the primary is idle too). */
static double idle_cpu, sparse_cpu;
static void *pacer(void *arg)
{
    (void)arg;
    double before = cpu_seconds();
    pause_ms(1000);
    double middle = cpu_seconds();
    for (int i = 0; i < 100; i++) {
        if (ABT_thread_create(secondary_pool, tick, NULL, ABT_THREAD_ATTR_NULL, NULL) !=
            ABT_SUCCESS) {
            break;
        }
        pause_ms(10);
    }
    double after = cpu_seconds();
    idle_cpu = middle - before;
    sparse_cpu = after - middle;
    ABT_eventual_set(done, NULL, 0);
    return NULL;
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream secondary;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &secondary), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(secondary, 1, &secondary_pool), ABT_SUCCESS);
    CHECK_INT(ABT_eventual_create(0, &done), ABT_SUCCESS);
    pthread_t t;
    CHECK_INT(pthread_create(&t, NULL, pacer, NULL), 0);
    CHECK_INT(ABT_eventual_wait(done, NULL), ABT_SUCCESS);
    CHECK_INT(pthread_join(t, NULL), 0);
    CHECK_INT(__atomic_load_n(&ran, __ATOMIC_RELAXED), 100);
    printf("CPU seconds used: %.3f over the idle second, %.3f over the sparse one\n", idle_cpu,
           sparse_cpu);
    /* Two streams polling would use up to 2 s of each; sleeping ones ~0 and ~0.02 (more under
     * valgrind, which runs one thread at a time, CTEST_SLOW). */
    CHECK(idle_cpu >= 0 && idle_cpu < 0.2 * CTEST_SLOW);
    CHECK(sparse_cpu >= 0 && sparse_cpu < 0.3 * CTEST_SLOW);
    CHECK_INT(ABT_eventual_free(&done), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_join(secondary), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&secondary), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
