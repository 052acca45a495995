/* bench_args.h: what every benchmark program shares: its command line (no argument runs every
 * operation, OP names run only those, -l lists the names), CHECK, now_ns and cmp_double. */
#ifndef GOABT_BENCH_ARGS_H
#define GOABT_BENCH_ARGS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic time in ns. */
static inline uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* qsort's order for doubles. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* CHECK(call): an ABT_* call must return ABT_SUCCESS, or the benchmark stops with its error. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0) {                                                                            \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, rc_);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* ops is an array of n structs of stride bytes whose first member is the operation's name.
 * Sets want[i] for each operation to run; returns -1 to go on, or the exit status to end with. */
static inline int bench_select(int argc, char **argv, const void *ops, size_t stride, size_t n,
                               int *want)
{
#define BENCH_NAME(i) (*(const char *const *)((const char *)ops + (i) * stride))
    for (size_t i = 0; i < n; i++) want[i] = argc < 2;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-l") == 0) {
            for (size_t i = 0; i < n; i++) printf("%s\n", BENCH_NAME(i));
            return 0;
        }
        size_t i = 0;
        while (i < n && strcmp(BENCH_NAME(i), argv[a]) != 0) i++;
        if (i == n) {
            fprintf(stderr, "usage: %s [-l | OP...]: no operation %s\n", argv[0], argv[a]);
            return 2;
        }
        want[i] = 1;
    }
    return -1;
#undef BENCH_NAME
}

#endif
