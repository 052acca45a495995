/* The hang report (capi/api/info_hang.c): GOABT_WATCHDOG and GOABT_DUMP_SIGNAL print every unit
 * that is not finished on stderr. Each case runs in a child (this program again, with the case's
 * name), which sets the variables before ABT_init; the parent reads the child's stderr until
 * the report's last line, kills the child, and checks what the report says:
 *   eventual  two ULTs wait on each other's eventual, the main ULT joins one: the watchdog
 *             names both eventual waits, both functions, and the main ULT's join;
 *   mutex     two ULTs lock two mutexes in opposite orders: two mutex waits;
 *   tasklet   a tasklet waits for a mutex that a ULT holds while it waits on a future nobody
 *             sets: the tasklet's mutex wait and the ULT's future wait;
 *   join      a ULT joins a ULT that suspended itself: a join and a suspension;
 *   signal    the eventual deadlock, no watchdog, GOABT_DUMP_SIGNAL=SIGUSR2: the report comes
 *             when the parent sends the signal (once both ULTs are blocked);
 * and these run to their end with no report:
 *   timer     a ULT waits on a condition variable with a deadline past the watchdog's period;
 *   external  the main ULT waits on an eventual that a thread of the program's sets within
 *             the watchdog's period;
 *   handled   the program handles SIGUSR2 before ABT_init: goabt says it leaves it alone, and
 *             the program's handler runs.
 * Last, in this process, goabt_info_print_units from a ULT while another waits on an eventual:
 * the same report, on the FILE* it is given. */
// ctest-libs: -rdynamic
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include <goabt.h>
#include "check.h"

/* The watchdog's period in the children, in seconds. */
#define WATCHDOG "1"

/* ---- The children ------------------------------------------------------------------------ */

static ABT_eventual ev_a, ev_b;

void waits_for_b(void *arg)
{
    (void)arg;
    ABT_eventual_wait(ev_b, NULL);
    ABT_eventual_set(ev_a, NULL, 0);
}

void waits_for_a(void *arg)
{
    (void)arg;
    ABT_eventual_wait(ev_a, NULL);
    ABT_eventual_set(ev_b, NULL, 0);
}

static int printed_rc = -1;
void prints_units(void *arg) { printed_rc = goabt_info_print_units(arg); }

static ABT_mutex mx_a, mx_b;
static int has_a, has_b;

void locks_a_then_b(void *arg)
{
    (void)arg;
    ABT_mutex_lock(mx_a);
    __atomic_store_n(&has_a, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&has_b, __ATOMIC_ACQUIRE)) ABT_thread_yield();
    ABT_mutex_lock(mx_b);
}

void locks_b_then_a(void *arg)
{
    (void)arg;
    ABT_mutex_lock(mx_b);
    __atomic_store_n(&has_b, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&has_a, __ATOMIC_ACQUIRE)) ABT_thread_yield();
    ABT_mutex_lock(mx_a);
}

static ABT_future never;

void holds_and_waits(void *arg)
{
    (void)arg;
    ABT_mutex_lock(mx_a);
    __atomic_store_n(&has_a, 1, __ATOMIC_RELEASE);
    ABT_future_wait(never);
}

void tasklet_locks(void *arg)
{
    (void)arg;
    ABT_mutex_lock(mx_a);
}

void suspends(void *arg)
{
    (void)arg;
    ABT_self_suspend();
}

void joins(void *arg) { ABT_thread_join(*(ABT_thread *)arg); }

void waits_with_deadline(void *arg)
{
    (void)arg;
    ABT_mutex m;
    ABT_cond c;
    ABT_mutex_create(&m);
    ABT_cond_create(&c);
    struct timeval now;
    gettimeofday(&now, NULL);
    struct timespec until = {now.tv_sec + 2, now.tv_usec * 1000}; /* twice the period */
    ABT_mutex_lock(m);
    int rc = ABT_cond_timedwait(c, m, &until);
    ABT_mutex_unlock(m);
    ABT_cond_free(&c);
    ABT_mutex_free(&m);
    printf("timedwait %s\n", rc == ABT_ERR_COND_TIMEDOUT ? "timed out" : "did not time out");
}

static void *sets_soon(void *arg)
{
    struct timespec later = {0, 200 * 1000 * 1000}; /* a fifth of the period: the program's latency */
    nanosleep(&later, NULL);
    ABT_eventual_set(*(ABT_eventual *)arg, NULL, 0);
    return NULL;
}

/* Says "ready" on stdout once both threads are BLOCKED: the parent's cue for the signal. */
static ABT_thread watched[2];
static void *say_when_blocked(void *arg)
{
    (void)arg;
    for (;;) {
        ABT_thread_state s0, s1;
        if (ABT_thread_get_state(watched[0], &s0) == ABT_SUCCESS &&
            ABT_thread_get_state(watched[1], &s1) == ABT_SUCCESS && s0 == ABT_THREAD_STATE_BLOCKED &&
            s1 == ABT_THREAD_STATE_BLOCKED) {
            break;
        }
        sched_yield();
    }
    printf("ready\n");
    fflush(stdout);
    return NULL;
}

static int handled;
static void program_handler(int sig) { (void)sig; handled = 1; }

static int child(const char *what)
{
    if (strcmp(what, "signal") == 0 || strcmp(what, "handled") == 0) {
        setenv("GOABT_DUMP_SIGNAL", "SIGUSR2", 1);
    } else {
        setenv("GOABT_WATCHDOG", WATCHDOG, 1);
    }
    if (strcmp(what, "handled") == 0) signal(SIGUSR2, program_handler);
    if (ABT_init(0, NULL) != ABT_SUCCESS) return 2;
    ABT_xstream x2;
    ABT_pool pool2;
    ABT_xstream_create(ABT_SCHED_NULL, &x2);
    ABT_xstream_get_main_pools(x2, 1, &pool2);
    ABT_thread a, b;
    if (strcmp(what, "eventual") == 0 || strcmp(what, "signal") == 0) {
        ABT_eventual_create(0, &ev_a);
        ABT_eventual_create(0, &ev_b);
        ABT_thread_create(pool2, waits_for_b, NULL, ABT_THREAD_ATTR_NULL, &a);
        ABT_thread_create(pool2, waits_for_a, NULL, ABT_THREAD_ATTR_NULL, &b);
        if (strcmp(what, "signal") == 0) {
            watched[0] = a;
            watched[1] = b;
            pthread_t t;
            pthread_create(&t, NULL, say_when_blocked, NULL);
        }
        ABT_thread_join(a);
    } else if (strcmp(what, "mutex") == 0) {
        ABT_mutex_create(&mx_a);
        ABT_mutex_create(&mx_b);
        ABT_thread_create(pool2, locks_a_then_b, NULL, ABT_THREAD_ATTR_NULL, &a);
        ABT_thread_create(pool2, locks_b_then_a, NULL, ABT_THREAD_ATTR_NULL, &b);
        ABT_thread_join(a);
    } else if (strcmp(what, "tasklet") == 0) {
        ABT_mutex_create(&mx_a);
        ABT_future_create(1, NULL, &never);
        ABT_thread_create(pool2, holds_and_waits, NULL, ABT_THREAD_ATTR_NULL, &a);
        while (!__atomic_load_n(&has_a, __ATOMIC_ACQUIRE)) ABT_thread_yield();
        /* The main ULT joins the ULT, not the tasklet: a join of a tasklet polls (yields), and
         * a ULT that keeps running is progress to the watchdog. */
        ABT_task_create(pool2, tasklet_locks, NULL, NULL);
        ABT_thread_join(a);
    } else if (strcmp(what, "join") == 0) {
        ABT_thread_create(pool2, suspends, NULL, ABT_THREAD_ATTR_NULL, &b);
        ABT_thread_create(pool2, joins, &b, ABT_THREAD_ATTR_NULL, &a);
        ABT_thread_join(a);
    } else if (strcmp(what, "timer") == 0) {
        ABT_thread_create(pool2, waits_with_deadline, NULL, ABT_THREAD_ATTR_NULL, &a);
        ABT_thread_free(&a);
    } else if (strcmp(what, "external") == 0) {
        ABT_eventual ev;
        ABT_eventual_create(0, &ev);
        pthread_t t;
        pthread_create(&t, NULL, sets_soon, &ev);
        ABT_eventual_wait(ev, NULL);
        pthread_join(t, NULL);
        ABT_eventual_free(&ev);
    } else if (strcmp(what, "handled") == 0) {
        raise(SIGUSR2);
        printf("the program's handler %s\n", handled ? "ran" : "did not run");
    }
    ABT_xstream_free(&x2);
    ABT_finalize();
    printf("finished\n");
    return 0;
}

/* ---- The parent -------------------------------------------------------------------------- */

/* Runs this program as the child `what`, its stdout and stderr into one pipe; sends SIGUSR2
 * when the child says "ready"; reads until the report's end, the child's exit, or the bound.
 * Returns what the child printed (malloc'd); *exited: whether it ended by itself. */
static char *run_child(const char *self, const char *what, int *exited)
{
    int fds[2];
    if (pipe(fds) != 0) return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execl(self, self, what, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap);
    int signalled = 0, eof = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long bound_ms = 60000L * CTEST_SLOW;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = bound_ms - ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000);
        if (left <= 0) break;
        struct pollfd p = {fds[0], POLLIN, 0};
        if (poll(&p, 1, (int)left) <= 0) continue;
        if (len + 4096 >= cap) {
            cap *= 2;
            out = realloc(out, cap);
        }
        ssize_t n = read(fds[0], out + len, cap - len - 1);
        if (n <= 0) { /* the child ended */
            eof = 1;
            break;
        }
        len += (size_t)n;
        out[len] = 0;
        if (!signalled && strstr(out, "ready\n") != NULL) {
            kill(pid, SIGUSR2);
            signalled = 1;
        }
        if (strstr(out, "goabt: end of the work units\n") != NULL) break;
    }
    close(fds[0]);
    int status;
    if (!eof) kill(pid, SIGKILL); /* it printed the report, or ran out of time: it hangs */
    waitpid(pid, &status, 0);
    *exited = eof && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return out;
}

/* How many times s occurs in text. */
static int count(const char *text, const char *s)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, s)) != NULL; p += strlen(s)) n++;
    return n;
}

static void expect_report(const char *self, const char *what, const char *const *wants, int times_first)
{
    int exited;
    char *out = run_child(self, what, &exited);
    printf("-- %s: the child printed:\n%s\n", what, out ? out : "(nothing)");
    CHECK(out != NULL && !exited);
    if (out == NULL) return;
    CHECK(count(out, "goabt: end of the work units\n") == 1);
    CHECK_INT(count(out, wants[0]), times_first);
    for (int i = 1; wants[i] != NULL; i++) {
        if (!CHECK(strstr(out, wants[i]) != NULL)) printf("   missing: %s\n", wants[i]);
    }
    free(out);
}

static void expect_no_report(const char *self, const char *what, const char *said)
{
    int exited;
    char *out = run_child(self, what, &exited);
    printf("-- %s: the child printed:\n%s\n", what, out ? out : "(nothing)");
    CHECK(out != NULL && exited);
    if (out == NULL) return;
    CHECK(strstr(out, "goabt: watchdog") == NULL && strstr(out, "work units not finished") == NULL);
    CHECK(strstr(out, said) != NULL);
    CHECK(strstr(out, "finished\n") != NULL);
    free(out);
}

int main(int argc, char **argv)
{
    if (argc > 1) return child(argv[1]);
    const char *eventual[] = {"waiting on eventual", "goabt: watchdog (GOABT_WATCHDOG=" WATCHDOG ")",
                              "waits_for_a", "waits_for_b", "goabt: main ULT",
                              "waiting on join of work unit", NULL};
    expect_report(argv[0], "eventual", eventual, 2);
    const char *mutex[] = {"waiting on mutex", "locks_a_then_b", "locks_b_then_a", NULL};
    expect_report(argv[0], "mutex", mutex, 2);
    const char *tasklet[] = {"waiting on future", "goabt: tasklet", "tasklet_locks", "holds_and_waits",
                             "waiting on mutex", "running tasklet", NULL};
    expect_report(argv[0], "tasklet", tasklet, 1);
    const char *join[] = {"waiting on join of work unit", "[BLOCKED, waiting on suspend", "suspends", "joins",
                          NULL};
    expect_report(argv[0], "join", join, 2);
    const char *sig[] = {"waiting on eventual", "goabt: signal 12 (GOABT_DUMP_SIGNAL)", "waits_for_a",
                         "waits_for_b", "code addresses on its stack", NULL};
    expect_report(argv[0], "signal", sig, 2);
    expect_no_report(argv[0], "timer", "timedwait timed out");
    expect_no_report(argv[0], "external", "finished");
    expect_no_report(argv[0], "handled", "the program's handler ran");

    CHECK_INT(goabt_info_print_units(stdout), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(goabt_info_print_units(NULL), ABT_ERR_INV_ARG);
    ABT_pool pool;
    ABT_xstream self;
    ABT_xstream_self(&self);
    ABT_xstream_get_main_pools(self, 1, &pool);
    ABT_eventual_create(0, &ev_b);
    ABT_eventual_create(0, &ev_a);
    ABT_thread waiter, printer;
    ABT_thread_create(pool, waits_for_b, NULL, ABT_THREAD_ATTR_NULL, &waiter);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    /* The waiter runs first (FIFO) and parks; then the printer prints. */
    ABT_thread_create(pool, prints_units, mem, ABT_THREAD_ATTR_NULL, &printer);
    ABT_thread_free(&printer);
    fclose(mem);
    printf("-- goabt_info_print_units printed:\n%s\n", text);
    CHECK(strncmp(text, "goabt: goabt_info_print_units: the work units\n", 46) == 0);
    CHECK(strstr(text, "[BLOCKED, waiting on eventual") != NULL);
    CHECK(strstr(text, "waits_for_b") != NULL);
    CHECK(strstr(text, "[RUNNING]") != NULL && strstr(text, "prints_units") != NULL);
    CHECK_INT(printed_rc, ABT_SUCCESS);
    free(text);
    ABT_eventual_set(ev_b, NULL, 0);
    ABT_thread_free(&waiter);
    ABT_eventual_free(&ev_a);
    ABT_eventual_free(&ev_b);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
