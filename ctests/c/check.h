/* check.h: the few macros every C test uses. Each check prints one line, "ok" or "FAIL" with its
 * file:line; check_summary() prints "N passed, N failed" and gives the exit status. Counters are
 * atomic so that checks may run on several threads at once. */
#ifndef GOABT_CHECK_H
#define GOABT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CTEST_SLOW: how many times longer the bounds of waits that only catch a hang (a wait for
 * something due in milliseconds) are in a program built to run under valgrind, which runs it
 * 20 to 50 times slower (ctests/valgrind_test.go); 1 otherwise. */
#ifdef GOABT_CTEST_VALGRIND
#define CTEST_SLOW 5
#else
#define CTEST_SLOW 1
#endif

static int check_passed, check_failed;

static inline int check_record(int ok, const char *file, int line, const char *what)
{
    if (ok) {
        __atomic_add_fetch(&check_passed, 1, __ATOMIC_RELAXED);
        printf("ok   %s:%d: %s\n", file, line, what);
    } else {
        __atomic_add_fetch(&check_failed, 1, __ATOMIC_RELAXED);
        printf("FAIL %s:%d: %s\n", file, line, what);
    }
    fflush(stdout);
    return ok;
}

/* CHECK(cond): cond must hold. */
#define CHECK(cond) check_record(!!(cond), __FILE__, __LINE__, #cond)

/* CHECK_INT(got, want): two integers must be equal; prints both when they are not. */
#define CHECK_INT(got, want)                                                                  \
    do {                                                                                      \
        long long check_got_ = (long long)(got), check_want_ = (long long)(want);            \
        char check_buf_[512];                                                                 \
        snprintf(check_buf_, sizeof check_buf_, "%s == %s (got %lld, want %lld)", #got, #want, \
                 check_got_, check_want_);                                                    \
        check_record(check_got_ == check_want_, __FILE__, __LINE__, check_buf_);              \
    } while (0)

/* CHECK_STR(got, want): two C strings must be equal. */
#define CHECK_STR(got, want)                                                                  \
    do {                                                                                      \
        const char *check_got_ = (got), *check_want_ = (want);                                \
        char check_buf_[512];                                                                 \
        snprintf(check_buf_, sizeof check_buf_, "%s == \"%s\" (got \"%s\")", #got,            \
                 check_want_, check_got_ ? check_got_ : "(null)");                           \
        check_record(check_got_ && strcmp(check_got_, check_want_) == 0, __FILE__, __LINE__, \
                     check_buf_);                                                             \
    } while (0)

/* check_summary prints the closing line the test harness reads and returns the exit status. */
static inline int check_summary(void)
{
    int passed = __atomic_load_n(&check_passed, __ATOMIC_RELAXED);
    int failed = __atomic_load_n(&check_failed, __ATOMIC_RELAXED);
    printf("%d passed, %d failed\n", passed, failed);
    fflush(stdout);
    return failed == 0 && passed > 0 ? 0 : 1;
}

/* Under qemu-user (ctests/arm64_test.go), qemu's own line that a program died by a signal
 * ("qemu: uncaught target signal 6 (Aborted) - core dumped"), the last of a child's stderr that
 * a parent captured: cut off, since the child did not write it. Elsewhere nothing. */
static inline void check_cut_qemu_line(char *err)
{
#if defined(GOABT_CTEST_QEMU)
    char *said = strstr(err, "qemu: uncaught target signal");
    if (said != NULL && strchr(said, '\n') == err + strlen(err) - 1) *said = '\0';
#else
    (void)err;
#endif
}

#endif
