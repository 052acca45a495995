/* The ABT_info_print_* functions, ABT_info_trigger_print_all_thread_stacks, ABT_PRINT_CONFIG and
 * the warnings about bad environment values, against Argobots 1.2's documented semantics:
 *  - before ABT_init, in forked children (goabt not started in this process yet): ABT_PRINT_CONFIG=1
 *    prints the configuration once at an outermost ABT_init (not at a nested one);
 *    ABT_THREAD_STACKSIZE=lots, ABT_SET_AFFINITY=garbage and ABT_STACK_OVERFLOW_CHECK=
 *    mprotect-strict (a typo: the check is off, as in Argobots) each get one line on stderr
 *    naming the variable and the value used instead, once over two init cycles;
 *  - each object kind printed into a tmpfile: stream (its rank), all streams, pool (its id,
 *    kind, access), scheduler (its address, its pools), ULT and tasklet (their ids, state,
 *    function), ULT attribute (address, stack size), the configuration (every query kind);
 *  - invalid handles: the handle's error code and nothing printed; fp NULL: ABT_ERR_INV_ARG;
 *  - the stack of a ULT blocked in a mutex: a hex dump and code addresses (into libgoabt.so);
 *    of a ULT not started, a tasklet, the main ULT: one line each saying why none;
 *  - the stacks of a pool holding a ULT that ran and yielded, one not started, a tasklet;
 *  - ABT_info_trigger_print_all_thread_stacks from a SIGUSR1 handler, raised by a ULT on a
 *    secondary stream while yielding ULTs run on both streams: the callback comes (bounded
 *    wait), says every stream stopped, and the dump names both streams and every yielding ULT;
 *    a second request from the main thread's handler works too, and timers still fire after.
 * Every wait is bounded. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

/* ---- Helpers ---------------------------------------------------------------------------------- */

/* What was written to fp since it was opened (or last reset), NUL-terminated; free it. */
static char *contents(FILE *fp)
{
    fflush(fp);
    long n = ftell(fp);
    char *buf = malloc((size_t)(n > 0 ? n : 0) + 1);
    rewind(fp);
    size_t got = n > 0 ? fread(buf, 1, (size_t)n, fp) : 0;
    buf[got] = '\0';
    fseek(fp, 0, SEEK_END);
    return buf;
}

/* Empties fp. */
static void reset(FILE *fp)
{
    fflush(fp);
    rewind(fp);
    if (ftruncate(fileno(fp), 0) != 0) perror("ftruncate");
}

static int has(const char *text, const char *what)
{
    return strstr(text, what) != NULL;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what)) n++;
    return n;
}

/* Runs child() in a forked process with its stdout (fd 1) or stderr (fd 2) in a pipe; returns
 * what it wrote there (free it) and its exit status in *status. */
static char *run_child(void (*child)(void), int fd, int *status)
{
    int p[2];
    if (pipe(p) != 0) return NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60 * CTEST_SLOW);
        close(p[0]);
        dup2(p[1], fd);
        child();
        fflush(stdout);
        fflush(stderr);
        _exit(0);
    }
    close(p[1]);
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    ssize_t n;
    while ((n = read(p[0], out + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (cap - len < 2) out = realloc(out, cap *= 2);
    }
    out[len] = '\0';
    close(p[0]);
    waitpid(pid, status, 0);
    return out;
}

/* ---- Before ABT_init: ABT_PRINT_CONFIG and warnings, in children ------------------------------ */

static void child_print_config(void)
{
    setenv("ABT_PRINT_CONFIG", "1", 1);
    if (ABT_init(0, NULL) != ABT_SUCCESS) _exit(2);
    if (ABT_init(0, NULL) != ABT_SUCCESS) _exit(3); /* nested: prints nothing */
    ABT_bool on = ABT_FALSE;
    ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_PRINT_CONFIG, &on);
    if (on != ABT_TRUE) _exit(4);
    ABT_finalize();
    ABT_finalize();
}

static void child_bad_env(void)
{
    setenv("ABT_THREAD_STACKSIZE", "lots", 1);
    setenv("ABT_SET_AFFINITY", "garbage", 1);
    setenv("ABT_STACK_OVERFLOW_CHECK", "mprotect-strict", 1); /* a typo: none, as in Argobots */
    for (int i = 0; i < 2; i++) {
        if (ABT_init(0, NULL) != ABT_SUCCESS) _exit(2);
        size_t size = 0;
        ABT_info_query_config(ABT_INFO_QUERY_KIND_DEFAULT_THREAD_STACKSIZE, &size);
        if (size != 16384) _exit(3); /* mode none (the unusable value): Argobots' 16 KiB */
        int mode = -1;
        ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK, &mode);
        if (mode != 0) _exit(4);
        ABT_finalize();
    }
}

static void test_children(void)
{
    int status = -1;
    char *out = run_child(child_print_config, 1, &status);
    CHECK(out != NULL);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_INT(count(out, "goabt configuration"), 1);
    CHECK(has(out, "print config at init (ABT_PRINT_CONFIG): yes"));
    CHECK(has(out, "default ULT stack size (ABT_THREAD_STACKSIZE): 24576"));
    CHECK(has(out, "lazy stack allocation: "));
    free(out);

    out = run_child(child_bad_env, 2, &status);
    CHECK(out != NULL);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_INT(count(out, "goabt: ABT_THREAD_STACKSIZE=lots is not a number of bytes; using 16384\n"), 1);
    CHECK_INT(count(out, "goabt: ABT_SET_AFFINITY=\"garbage\": a CPU id or \"{\" expected at offset 0; "
                         "streams are not bound to CPUs\n"),
              1);
    CHECK_INT(count(out, "goabt: ABT_STACK_OVERFLOW_CHECK=mprotect-strict is none of none, canary, "
                         "mprotect and mprotect_strict; using none\n"),
              1);
    free(out);
}

/* ---- Objects ---------------------------------------------------------------------------------- */

static void noop(void *arg) { (void)arg; }

static void test_objects(FILE *fp, ABT_xstream s1)
{
    char want[128];
    char *out;

    /* The configuration. */
    ABT_bool on = ABT_TRUE;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_PRINT_CONFIG, &on), ABT_SUCCESS);
    CHECK_INT(on, ABT_FALSE);
    CHECK_INT(ABT_info_print_config(fp), ABT_SUCCESS);
    out = contents(fp);
    CHECK(has(out, "max execution streams (ABT_MAX_NUM_XSTREAMS): "));
    CHECK(has(out, "lazy stack allocation: "));
    CHECK(has(out, "safety wake-up (GOABT_SAFETY_WAKEUP_MS): off"));
    free(out);
    reset(fp);

    /* Streams. */
    int rank = -1;
    CHECK_INT(ABT_xstream_get_rank(s1, &rank), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_xstream(fp, s1), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "== execution stream %d (%p) ==", rank, (void *)s1);
    CHECK(has(out, want));
    CHECK(has(out, "type       : secondary"));
    CHECK(has(out, "state      : RUNNING"));
    free(out);
    reset(fp);
    CHECK_INT(ABT_info_print_all_xstreams(fp), ABT_SUCCESS);
    out = contents(fp);
    CHECK(has(out, "execution streams: 2"));
    CHECK(has(out, "== execution stream 0 ("));
    CHECK(has(out, want));
    CHECK(strstr(out, "== execution stream 0 (") < strstr(out, want)); /* by rank */
    free(out);
    reset(fp);

    /* A pool, a scheduler over it, a ULT, a tasklet and an attribute. */
    ABT_pool pool;
    int pool_id = -1;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPSC, ABT_FALSE, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(pool, &pool_id), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_pool(fp, pool), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "== pool %d (%p) ==", pool_id, (void *)pool);
    CHECK(has(out, want));
    CHECK(has(out, "kind       : FIFO\n"));
    CHECK(has(out, "access     : MPSC"));
    CHECK(has(out, "size       : 0"));
    free(out);
    reset(fp);

    ABT_sched sched;
    CHECK_INT(ABT_sched_create_basic(ABT_SCHED_PRIO, 1, &pool, ABT_SCHED_CONFIG_NULL, &sched), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_sched(fp, sched), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "== scheduler %p ==", (void *)sched);
    CHECK(has(out, want));
    CHECK(has(out, "kind       : PRIO"));
    CHECK(has(out, "used as    : unused"));
    snprintf(want, sizeof want, "  == pool %d (%p) ==", pool_id, (void *)pool);
    CHECK(has(out, want)); /* its pools, indented */
    free(out);
    reset(fp);

    ABT_thread ult;
    ABT_task task;
    ABT_unit_id ult_id = 0, task_id = 0;
    CHECK_INT(ABT_thread_create(pool, noop, (void *)0x1234, ABT_THREAD_ATTR_NULL, &ult), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pool, noop, NULL, &task), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(ult, &ult_id), ABT_SUCCESS);
    CHECK_INT(ABT_task_get_id(task, &task_id), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_thread(fp, ult), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "== ULT %llu (%p) ==", (unsigned long long)ult_id, (void *)ult);
    CHECK(has(out, want));
    CHECK(has(out, "state      : READY"));
    snprintf(want, sizeof want, "function   : %p", (void *)noop);
    CHECK(has(out, want));
    CHECK(has(out, "argument   : 0x1234"));
    snprintf(want, sizeof want, "pool       : %d (", pool_id);
    CHECK(has(out, want));
    CHECK(has(out, "stack      : none yet, 24576 bytes (goabt's")); /* taken when it runs */
    free(out);
    reset(fp);
    CHECK_INT(ABT_info_print_task(fp, task), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_thread(fp, task), ABT_SUCCESS); /* either name takes either kind */
    CHECK_INT(ABT_info_print_task(fp, ult), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "== tasklet %llu (%p) ==", (unsigned long long)task_id, (void *)task);
    CHECK_INT(count(out, want), 2);
    snprintf(want, sizeof want, "== ULT %llu (%p) ==", (unsigned long long)ult_id, (void *)ult);
    CHECK_INT(count(out, want), 1);
    free(out);
    reset(fp);

    ABT_thread self;
    CHECK_INT(ABT_self_get_thread(&self), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_thread(fp, self), ABT_SUCCESS);
    out = contents(fp);
    CHECK(has(out, "== main ULT "));
    CHECK(has(out, "state      : RUNNING"));
    CHECK(has(out, "stream     : 0 "));
    free(out);
    reset(fp);

    ABT_thread_attr attr;
    CHECK_INT(ABT_thread_attr_create(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_set_stacksize(attr, 32768), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_thread_attr(fp, attr), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "== ULT attribute %p ==", (void *)attr);
    CHECK(has(out, want));
    CHECK(has(out, "stack size : 32768"));
    free(out);
    reset(fp);

    /* Stacks of units that have none in use. */
    CHECK_INT(ABT_info_print_thread_stack(fp, ult), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_thread_stack(fp, task), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_thread_stack(fp, self), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "=== ULT %llu (%p) ===", (unsigned long long)ult_id, (void *)ult);
    CHECK(has(out, want));
    CHECK(has(out, "unused: the ULT has not run yet"));
    CHECK(has(out, "no stack: a tasklet"));
    CHECK(has(out, "not printed: the main ULT"));
    free(out);
    reset(fp);

    /* Invalid handles: the handle's error, nothing printed; fp NULL. */
    CHECK_INT(ABT_info_print_xstream(fp, ABT_XSTREAM_NULL), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_info_print_sched(fp, ABT_SCHED_NULL), ABT_ERR_INV_SCHED);
    CHECK_INT(ABT_info_print_pool(fp, ABT_POOL_NULL), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_info_print_thread(fp, ABT_THREAD_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_info_print_task(fp, ABT_TASK_NULL), ABT_ERR_INV_TASK);
    CHECK_INT(ABT_info_print_thread_attr(fp, ABT_THREAD_ATTR_NULL), ABT_ERR_INV_THREAD_ATTR);
    CHECK_INT(ABT_info_print_thread_stack(fp, ABT_THREAD_NULL), ABT_ERR_INV_THREAD);
    CHECK_INT(ABT_info_print_thread_stacks_in_pool(fp, ABT_POOL_NULL), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_info_print_xstream(fp, (ABT_xstream)pool), ABT_ERR_INV_XSTREAM); /* wrong kind */
    CHECK_INT(ABT_info_print_pool(fp, (ABT_pool)sched), ABT_ERR_INV_POOL);
    CHECK_INT(ABT_info_print_thread(fp, (ABT_thread)attr), ABT_ERR_INV_THREAD);
    out = contents(fp);
    CHECK_STR(out, "");
    free(out);
    CHECK_INT(ABT_info_print_config(NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_all_xstreams(NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_xstream(NULL, s1), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_sched(NULL, sched), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_pool(NULL, pool), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_thread(NULL, ult), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_task(NULL, task), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_thread_attr(NULL, attr), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_thread_stack(NULL, ult), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_info_print_thread_stacks_in_pool(NULL, pool), ABT_ERR_INV_ARG);

    /* Run the two units (pool is no stream's) and clean up. */
    ABT_thread t;
    for (int i = 0; i < 2; i++) {
        CHECK_INT(ABT_pool_pop_thread(pool, &t), ABT_SUCCESS);
        CHECK_INT(ABT_self_schedule(t, ABT_POOL_NULL), ABT_SUCCESS);
    }
    CHECK_INT(ABT_thread_free(&ult), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&task), ABT_SUCCESS);
    CHECK_INT(ABT_thread_attr_free(&attr), ABT_SUCCESS);
    CHECK_INT(ABT_sched_free(&sched), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&pool), ABT_SUCCESS);
}

/* ---- Stacks --------------------------------------------------------------------------------- */

static ABT_mutex mutex;

static void lock_once(void *arg)
{
    (void)arg;
    ABT_mutex_lock(mutex);
    ABT_mutex_unlock(mutex);
}

static void yield_once(void *arg)
{
    (void)arg;
    ABT_thread_yield();
}

static void test_stacks(FILE *fp, ABT_pool pool1)
{
    char want[128];
    char *out;

    /* A ULT blocked in a mutex, on the secondary stream. */
    CHECK_INT(ABT_mutex_create(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_lock(mutex), ABT_SUCCESS);
    ABT_thread blocked;
    ABT_unit_id id = 0;
    CHECK_INT(ABT_thread_create(pool1, lock_once, NULL, ABT_THREAD_ATTR_NULL, &blocked), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(blocked, &id), ABT_SUCCESS);
    CHECK(wait_state(blocked, ABT_THREAD_STATE_BLOCKED));
    CHECK_INT(ABT_info_print_thread_stack(fp, blocked), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "=== ULT %llu (%p) ===", (unsigned long long)id, (void *)blocked);
    CHECK(has(out, want));
    CHECK(has(out, "state: BLOCKED"));
    CHECK(has(out, "bytes in use"));
    CHECK(count(out, "\n  0x") >= 4); /* dump lines: address, then words */
    CHECK(has(out, "code addresses in it, newest first:"));
    CHECK(has(out, "libgoabt.so")); /* it switched out inside the library */
    free(out);
    reset(fp);
    CHECK_INT(ABT_mutex_unlock(mutex), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&blocked), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&mutex), ABT_SUCCESS);

    /* A pool with a ULT that ran and yielded, one not started, a tasklet. */
    ABT_pool pool;
    int pool_id = -1;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_pool_get_id(pool, &pool_id), ABT_SUCCESS);
    ABT_thread ran, fresh, t;
    ABT_task task;
    ABT_unit_id ran_id = 0, fresh_id = 0, task_id = 0;
    CHECK_INT(ABT_thread_create(pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, &ran), ABT_SUCCESS);
    CHECK_INT(ABT_pool_pop_thread(pool, &t), ABT_SUCCESS);
    CHECK(t == ran);
    CHECK_INT(ABT_self_schedule(ran, pool), ABT_SUCCESS); /* runs until its yield, back in pool */
    CHECK_INT(ABT_thread_create(pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, &fresh), ABT_SUCCESS);
    CHECK_INT(ABT_task_create(pool, noop, NULL, &task), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(ran, &ran_id), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_id(fresh, &fresh_id), ABT_SUCCESS);
    CHECK_INT(ABT_task_get_id(task, &task_id), ABT_SUCCESS);
    CHECK_INT(ABT_info_print_thread_stacks_in_pool(fp, pool), ABT_SUCCESS);
    out = contents(fp);
    snprintf(want, sizeof want, "== work units in pool %d (%p) ==", pool_id, (void *)pool);
    CHECK(has(out, want));
    snprintf(want, sizeof want, "=== ULT %llu (%p) ===\nstate: READY\nstack ", (unsigned long long)ran_id,
             (void *)ran);
    CHECK(has(out, want));
    snprintf(want, sizeof want, "=== ULT %llu (%p) ===\nstate: READY\nunused: ", (unsigned long long)fresh_id,
             (void *)fresh);
    CHECK(has(out, want));
    snprintf(want, sizeof want, "=== tasklet %llu (%p) ===", (unsigned long long)task_id, (void *)task);
    CHECK(has(out, want));
    CHECK_INT(count(out, "code addresses in it"), 1);
    free(out);
    reset(fp);
    for (int i = 0; i < 8; i++) { /* ran, fresh twice, task */
        if (ABT_pool_pop_thread(pool, &t) != ABT_SUCCESS || t == ABT_THREAD_NULL) break;
        ABT_self_schedule(t, pool);
    }
    size_t left = 1;
    CHECK_INT(ABT_pool_get_size(pool, &left), ABT_SUCCESS);
    CHECK_INT(left, 0);
    CHECK_INT(ABT_thread_free(&ran), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&fresh), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&task), ABT_SUCCESS);
    CHECK_INT(ABT_pool_free(&pool), ABT_SUCCESS);
}

/* ---- Triggered from a signal handler ------------------------------------------------------------ */

#define NYIELD 4

static FILE *trigger_fp;
static int trigger_done, trigger_timed_out = -1, trigger_calls, stop;

static void on_dumped(ABT_bool timed_out, void *arg)
{
    trigger_timed_out = timed_out == ABT_TRUE;
    __atomic_add_fetch(&trigger_calls, 1, __ATOMIC_RELAXED);
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

static void on_sigusr1(int sig)
{
    (void)sig;
    ABT_info_trigger_print_all_thread_stacks(trigger_fp, 10.0 * CTEST_SLOW, on_dumped, &trigger_done);
}

static int started;

static void yielder(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

static void raiser(void *arg)
{
    (void)arg;
    raise(SIGUSR1);
}

static int wait_done(void)
{
    double end = ABT_get_wtime() + 20.0 * CTEST_SLOW;
    while (!__atomic_load_n(&trigger_done, __ATOMIC_ACQUIRE)) {
        if (ABT_get_wtime() > end) return 0;
        ABT_thread_yield();
    }
    return 1;
}

static void test_trigger(ABT_pool pool0, ABT_pool pool1)
{
    char want[128];
    char *out;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    CHECK_INT(sigaction(SIGUSR1, &sa, NULL), 0);

    ABT_thread ults[2 * NYIELD], r;
    ABT_unit_id ids[2 * NYIELD];
    for (int i = 0; i < 2 * NYIELD; i++) {
        CHECK_INT(ABT_thread_create(i % 2 ? pool1 : pool0, yielder, NULL, ABT_THREAD_ATTR_NULL, &ults[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_thread_get_id(ults[i], &ids[i]), ABT_SUCCESS);
    }
    /* Every yielder has run (and has a stack in use) before the signal. */
    double end = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 2 * NYIELD && ABT_get_wtime() < end) {
        ABT_thread_yield();
    }
    CHECK_INT(__atomic_load_n(&started, __ATOMIC_ACQUIRE), 2 * NYIELD);
    CHECK_INT(ABT_thread_create(pool1, raiser, NULL, ABT_THREAD_ATTR_NULL, &r), ABT_SUCCESS);
    CHECK(wait_done());
    CHECK_INT(trigger_timed_out, 0);
    CHECK_INT(__atomic_load_n(&trigger_calls, __ATOMIC_RELAXED), 1);
    out = contents(trigger_fp);
    CHECK(has(out, "Start of ULT stacks"));
    CHECK(has(out, "End of ULT stacks"));
    CHECK(has(out, "= execution stream 0 ("));
    CHECK(has(out, "= execution stream 1 ("));
    int all = 1;
    for (int i = 0; i < 2 * NYIELD; i++) {
        snprintf(want, sizeof want, "=== ULT %llu (%p) ===\nstate: READY\nstack ", (unsigned long long)ids[i],
                 (void *)ults[i]);
        if (!has(out, want)) {
            printf("# missing from the dump: %s\n", want);
            all = 0;
        }
    }
    if (!CHECK(all)) printf("# the dump:\n%s# end of the dump\n", out);
    free(out);
    reset(trigger_fp);

    /* Again, raised on the main thread: the request was reset. */
    __atomic_store_n(&trigger_done, 0, __ATOMIC_RELEASE);
    raise(SIGUSR1);
    CHECK(wait_done());
    CHECK_INT(trigger_timed_out, 0);
    CHECK_INT(__atomic_load_n(&trigger_calls, __ATOMIC_RELAXED), 2);
    out = contents(trigger_fp);
    CHECK_INT(count(out, "Start of ULT stacks"), 1);
    free(out);

    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2 * NYIELD; i++) CHECK_INT(ABT_thread_free(&ults[i]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&r), ABT_SUCCESS);

    /* Timers still fire once the request is over: a timed wait times out. */
    ABT_mutex m;
    ABT_cond c;
    CHECK_INT(ABT_mutex_create(&m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&c), ABT_SUCCESS);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    CHECK_INT(ABT_mutex_lock(m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_timedwait(c, m, &ts), ABT_ERR_COND_TIMEDOUT);
    CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
}

int main(void)
{
    test_children(); /* first: goabt must not have started in this process before a fork */
    CHECK_INT(ABT_info_trigger_print_all_thread_stacks(stdout, 1.0, NULL, NULL), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_info_print_all_xstreams(stdout), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_info_print_config(stdout), ABT_ERR_UNINITIALIZED);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    FILE *fp = tmpfile();
    trigger_fp = tmpfile();
    CHECK(fp != NULL && trigger_fp != NULL);
    ABT_xstream s0, s1;
    ABT_pool pool0, pool1;
    CHECK_INT(ABT_xstream_self(&s0), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &s1), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(s0, 1, &pool0), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(s1, 1, &pool1), ABT_SUCCESS);

    test_objects(fp, s1);
    test_stacks(fp, pool1);
    test_trigger(pool0, pool1);

    CHECK_INT(ABT_xstream_join(s1), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&s1), ABT_SUCCESS);
    fclose(fp);
    fclose(trigger_fp);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
