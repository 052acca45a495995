/* What a stream's thread adds to the process's address space (#37, item 5): its stack, and
 * little more. A thread's first malloc or free gives it a glibc malloc arena of its own, 64 MiB
 * of address space, and glibc's pthread_getattr_np, which the Go runtime calls the first time a
 * thread enters Go, allocates: every stream used to cost 72 MiB (its 8 MiB stack and an arena),
 * against 20 MiB in native Argobots. goabt now maps its streams' stacks itself and answers the
 * Go runtime's question from them (engine/stream.c, capi/stackbound.go).
 *
 * STREAMS streams each run a ULT that makes and frees ULTs of its own (their descriptors come
 * from the Go core, so the stream's thread enters Go); then the address space the process grew
 * by (/proc/self/statm) must be within what the streams' stacks and memory take, beside what
 * the Go runtime's threads started meanwhile may take (a stack and an arena each), counted
 * from /proc/self/status (the malloc arenas glibc made meanwhile are printed, from
 * malloc_info). */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <abt.h>
#include "check.h"
#include "proc_status.h"

#define STREAMS 4
#define MIB ((long)1 << 20)

static long address_space(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    long pages = 0;
    if (f == NULL || fscanf(f, "%ld", &pages) != 1) pages = 0;
    if (f != NULL) fclose(f);
    return pages * 4096;
}

/* The malloc arenas glibc made besides the main one (malloc_info's heaps, less heap 0). */
static long malloc_arenas(void)
{
    static char xml[1 << 16];
    FILE *f = fmemopen(xml, sizeof xml - 1, "w");
    if (f == NULL) return -1;
    int rc = malloc_info(0, f);
    fclose(f);
    if (rc != 0) return -1;
    long n = 0;
    for (const char *p = strstr(xml, "<heap nr="); p != NULL; p = strstr(p + 1, "<heap nr=")) n++;
    return n - 1;
}

static void nothing(void *arg) { (void)arg; }

/* On a stream: ULTs made and freed from its own pool. */
static void make_ults(void *arg)
{
    ABT_pool pool = arg;
    for (int i = 0; i < 64; i++) {
        ABT_thread t;
        if (ABT_thread_create(pool, nothing, NULL, ABT_THREAD_ATTR_NULL, &t) == ABT_SUCCESS) {
            ABT_thread_free(&t);
        }
    }
}

int main(void)
{
    size_t stack = 8 * MIB;
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &stack);
        pthread_attr_destroy(&attr);
    }
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    long before = address_space(), threads_before = threads(), arenas_before = malloc_arenas();
    ABT_xstream xs[STREAMS];
    ABT_thread t[STREAMS];
    for (int i = 0; i < STREAMS; i++) {
        ABT_pool pool;
        CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_get_main_pools(xs[i], 1, &pool), ABT_SUCCESS);
        CHECK_INT(ABT_thread_create(pool, make_ults, pool, ABT_THREAD_ATTR_NULL, &t[i]), ABT_SUCCESS);
    }
    for (int i = 0; i < STREAMS; i++) CHECK_INT(ABT_thread_free(&t[i]), ABT_SUCCESS);
    long grown = address_space() - before, more_threads = threads() - threads_before;
    long go_threads = more_threads > STREAMS ? more_threads - STREAMS : 0;
    long arenas = malloc_arenas() - arenas_before;
    /* A stream: its stack, its signal stack and ULT stacks (4 MiB); a Go runtime thread: its
     * stack and a malloc arena; besides, two 64 MiB regions at most: a Go heap arena more, or a
     * malloc arena of a thread that started a Go runtime thread (cgo's thread start mallocs in
     * the starting thread, which may be a stream's, in Go for a moment). Seen on a busy machine:
     * 97 MiB for 4 streams 7 times in 30 (one malloc arena more, no thread more), 161 MiB once.
     * Streams with an arena each would be 289 MiB. */
    long allowed = STREAMS * ((long)stack + 4 * MIB) + go_threads * ((long)stack + 64 * MIB) + 128 * MIB;
    printf("%d streams: %ld MiB more address space (%ld MiB each), %ld Go runtime threads more, "
           "%ld malloc arenas more; allowed %ld MiB\n",
           STREAMS, grown / MIB, grown / STREAMS / MIB, go_threads, arenas, allowed / MIB);
    CHECK(grown <= allowed);
    for (int i = 0; i < STREAMS; i++) {
        CHECK_INT(ABT_xstream_join(xs[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    }
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
