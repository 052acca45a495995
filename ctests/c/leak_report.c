/* GOABT_CHECK_LEAKS: the leak report of the last ABT_finalize and of opal_class_finalize.
 *  - a program that frees everything it creates reports nothing, in modes 1 and fatal, and exits
 *    0 (objects goabt frees itself, such as an automatic scheduler and pools with their stream
 *    or a stream the program left to ABT_finalize, and static, unnamed or immortal objects, are
 *    not leaks);
 *  - a program that leaks one object of each kind gets one line per object naming its kind (a
 *    ULT's and a tasklet's with the id the program read and the function's symbol), exits 0 with
 *    GOABT_CHECK_LEAKS=1, with status 23 with =fatal, and prints nothing with it unset; a value
 *    that is neither yes, no nor fatal keeps the check off, as every yes/no variable keeps its
 *    default, and says so in one line, whether ABT_init or OPAL reads it first;
 *  - an OPAL program that leaks an OBJ_NEW'd and an OBJ_CONSTRUCT'ed object of user classes gets
 *    one line per class and one per object at opal_class_finalize, with the file:line that made
 *    each in debug builds; same exit statuses.
 * Each program runs in a child forked before anything of goabt ran in this process (the parent
 * never uses goabt: a Go runtime does not survive fork), whose stderr the parent reads through a
 * pipe. -rdynamic: the functions' symbols are in the dynamic symbol table, where dladdr looks.
 * Variant in_go: every predefined pool and scheduler is a Go one (GOABT_POOL, GOABT_SCHED),
 * whose definitions goabt makes through the API for itself and keeps: not the program's leaks. */
// ctest-variant: plain -rdynamic
// ctest-variant: debug -rdynamic -DOPAL_ENABLE_DEBUG=1
// ctest-variant: in_go -rdynamic GOABT_POOL=ws GOABT_SCHED=deadline
// ctest-leaks: its children leak on purpose, for the reports it checks; it sets GOABT_CHECK_LEAKS itself
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include <opal_object.h>
#include "check.h"

/* ---- Running a program in a child --------------------------------------------------------- */

static char said[64 * 1024];

/* Runs fn in a child with GOABT_CHECK_LEAKS=mode (unset if NULL), its stderr in said; returns
 * the child's exit status, or -1 if it did not exit (a signal: printed). */
static int in_child(void (*fn)(void), const char *mode)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        alarm(CTEST_SLOW * 120);
        if (mode != NULL) {
            setenv("GOABT_CHECK_LEAKS", mode, 1);
        } else {
            unsetenv("GOABT_CHECK_LEAKS");
        }
        fn();
        exit(0); /* exit, not _exit: in mode fatal goabt's atexit handler sets the status */
    }
    close(fds[1]);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fds[0], said + len, sizeof said - 1 - len);
        if (n <= 0) break;
        len += (size_t)n;
    }
    said[len] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    printf("     child (GOABT_CHECK_LEAKS=%s) said:\n%s", mode ? mode : "(unset)", said);
    if (!WIFEXITED(status)) {
        printf("     child died: status %#x\n", status);
        return -1;
    }
    return WEXITSTATUS(status);
}

/* Lines of said that start with prefix. */
static int count_lines(const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *l = said; *l != '\0';) {
        if (strncmp(l, prefix, len) == 0) n++;
        const char *nl = strchr(l, '\n');
        if (nl == NULL) break;
        l = nl + 1;
    }
    return n;
}

/* Lines "goabt: leaked <kind> " followed by a digit (an id, or an address: "0x"), so that
 * "mutex" does not count "mutex attribute". */
static int count_kind(const char *kind)
{
    char prefix[128];
    int n = 0;
    for (char d = '0'; d <= '9'; d++) {
        snprintf(prefix, sizeof prefix, "goabt: leaked %s %c", kind, d);
        n += count_lines(prefix);
    }
    return n;
}

/* The value after "child: name " in said (what the child read, e.g. a ULT's id). */
static unsigned long long child_value(const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "child: %s ", name);
    const char *p = strstr(said, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : ~0ull;
}

/* ---- The programs ------------------------------------------------------------------------- */

typedef struct {
    opal_object_t super;
    int value;
} widget_t;
static void widget_construct(widget_t *w) { w->value = 7; }
OBJ_CLASS_INSTANCE(widget_t, opal_object_t, widget_construct, NULL);

typedef struct {
    widget_t super;
    int more;
} gadget_t;
OBJ_CLASS_INSTANCE(gadget_t, widget_t, NULL, NULL);

/* Non-static, so that -rdynamic puts them in the dynamic symbol table. */
void leaky_ult(void *arg);
void leaky_task(void *arg);
void leaky_key_destructor(void *value);
void leaky_ult(void *arg) { (void)arg; }
void leaky_task(void *arg) { (void)arg; }
void leaky_key_destructor(void *value) { (void)value; }

static ABT_mutex_memory static_mutex = ABT_MUTEX_INITIALIZER;

static int failures; /* in a child: calls that failed */
#define MUST(call) (failures += (call) != ABT_SUCCESS)

/* Every kind, created and freed; streams and automatic schedulers and pools left to goabt. */
static void clean_program(void)
{
    MUST(ABT_init(0, NULL));
    ABT_xstream self, extra, left;
    ABT_pool pool, auto_pool;
    MUST(ABT_xstream_self(&self));
    MUST(ABT_xstream_get_main_pools(self, 1, &pool));
    ABT_thread t;
    ABT_task task;
    MUST(ABT_thread_create(pool, leaky_ult, NULL, ABT_THREAD_ATTR_NULL, &t));
    MUST(ABT_thread_create(pool, leaky_ult, NULL, ABT_THREAD_ATTR_NULL, NULL)); /* unnamed */
    MUST(ABT_task_create(pool, leaky_task, NULL, &task));
    ABT_thread_attr attr, got;
    MUST(ABT_thread_attr_create(&attr));
    MUST(ABT_thread_join(t));
    MUST(ABT_thread_get_attr(t, &got));
    MUST(ABT_thread_free(&t));
    MUST(ABT_task_free(&task));
    MUST(ABT_thread_attr_free(&attr));
    MUST(ABT_thread_attr_free(&got));
    ABT_key key;
    MUST(ABT_key_create(leaky_key_destructor, &key));
    MUST(ABT_key_free(&key));
    /* An automatic pool and scheduler: they go with the stream. */
    ABT_sched sched;
    MUST(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &auto_pool));
    MUST(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &auto_pool, ABT_SCHED_CONFIG_NULL, &sched));
    MUST(ABT_xstream_create(sched, &extra));
    MUST(ABT_xstream_free(&extra));
    MUST(ABT_xstream_create(ABT_SCHED_NULL, &left)); /* left to ABT_finalize */
    /* A pool and a scheduler that are not automatic: the program frees them. */
    ABT_pool own_pool;
    ABT_sched own_sched;
    ABT_sched_config config;
    MUST(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &own_pool));
    MUST(ABT_sched_config_create(&config, ABT_sched_config_automatic, 0, ABT_sched_config_var_end));
    MUST(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &own_pool, config, &own_sched));
    MUST(ABT_sched_free(&own_sched));
    MUST(ABT_pool_free(&own_pool));
    MUST(ABT_sched_config_free(&config));
    ABT_pool_config pool_config;
    MUST(ABT_pool_config_create(&pool_config));
    MUST(ABT_pool_config_free(&pool_config));
    /* Synchronization objects and timers. */
    ABT_mutex m;
    ABT_mutex_attr ma;
    ABT_cond c;
    ABT_rwlock rw;
    ABT_barrier b;
    ABT_xstream_barrier xb;
    ABT_eventual e;
    ABT_future f;
    ABT_timer tm, tm2;
    MUST(ABT_mutex_attr_create(&ma));
    MUST(ABT_mutex_create_with_attr(ma, &m));
    MUST(ABT_cond_create(&c));
    MUST(ABT_rwlock_create(&rw));
    MUST(ABT_barrier_create(2, &b));
    MUST(ABT_xstream_barrier_create(1, &xb));
    MUST(ABT_eventual_create(8, &e));
    MUST(ABT_future_create(1, NULL, &f));
    MUST(ABT_timer_create(&tm));
    MUST(ABT_timer_dup(tm, &tm2));
    MUST(ABT_mutex_lock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_mutex))); /* static: never created */
    MUST(ABT_mutex_unlock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_mutex)));
    MUST(ABT_mutex_free(&m));
    MUST(ABT_mutex_attr_free(&ma));
    MUST(ABT_cond_free(&c));
    MUST(ABT_rwlock_free(&rw));
    MUST(ABT_barrier_free(&b));
    MUST(ABT_xstream_barrier_free(&xb));
    MUST(ABT_eventual_free(&e));
    MUST(ABT_future_free(&f));
    MUST(ABT_timer_free(&tm));
    MUST(ABT_timer_free(&tm2));
    MUST(ABT_finalize());
    /* OPAL: every object released or destructed; immortal ones never count. */
    widget_t *w = OBJ_NEW(widget_t);
    OBJ_RETAIN(w);
    OBJ_RELEASE(w);
    OBJ_RELEASE(w);
    gadget_t g;
    OBJ_CONSTRUCT(&g, gadget_t);
    OBJ_DESTRUCT(&g);
    static widget_t forever = {.super = OPAL_OBJ_STATIC_INIT(widget_t)};
    OBJ_RETAIN(&forever);
    widget_t *immortal = OBJ_NEW(widget_t);
    OBJ_SET_IMMORTAL(immortal);
    opal_class_finalize();
    fprintf(stderr, "child: failures %d\n", failures);
}

/* One object of each kind, none freed. */
static void leaky_program(void)
{
    MUST(ABT_init(0, NULL));
    ABT_xstream self;
    ABT_pool pool;
    MUST(ABT_xstream_self(&self));
    MUST(ABT_xstream_get_main_pools(self, 1, &pool));
    ABT_thread t;
    ABT_task task;
    MUST(ABT_thread_create(pool, leaky_ult, NULL, ABT_THREAD_ATTR_NULL, &t));
    MUST(ABT_task_create(pool, leaky_task, NULL, &task));
    ABT_unit_id tid = 0, kid = 0;
    MUST(ABT_thread_get_id(t, &tid));
    MUST(ABT_thread_get_id(task, &kid));
    fprintf(stderr, "child: ult %llu\nchild: tasklet %llu\n", (unsigned long long)tid,
            (unsigned long long)kid);
    ABT_key key;
    MUST(ABT_key_create(leaky_key_destructor, &key));
    ABT_pool own_pool;
    MUST(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &own_pool));
    int pool_id = -1;
    MUST(ABT_pool_get_id(own_pool, &pool_id));
    fprintf(stderr, "child: pool %d\n", pool_id);
    ABT_sched sched;
    MUST(ABT_sched_create_basic(ABT_SCHED_BASIC, 0, NULL, ABT_SCHED_CONFIG_NULL, &sched));
    ABT_thread_attr attr;
    MUST(ABT_thread_attr_create(&attr));
    ABT_mutex m;
    ABT_mutex_attr ma;
    ABT_cond c;
    ABT_rwlock rw;
    ABT_barrier b;
    ABT_xstream_barrier xb;
    ABT_eventual e;
    ABT_future f;
    ABT_timer tm;
    ABT_sched_config config;
    ABT_pool_config pool_config;
    MUST(ABT_mutex_create(&m));
    MUST(ABT_mutex_attr_create(&ma));
    MUST(ABT_cond_create(&c));
    MUST(ABT_rwlock_create(&rw));
    MUST(ABT_barrier_create(2, &b));
    MUST(ABT_xstream_barrier_create(1, &xb));
    MUST(ABT_eventual_create(8, &e));
    MUST(ABT_future_create(1, NULL, &f));
    MUST(ABT_timer_create(&tm));
    MUST(ABT_sched_config_create(&config, ABT_sched_config_var_end));
    MUST(ABT_pool_config_create(&pool_config));
    MUST(ABT_mutex_lock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_mutex))); /* static: not a leak */
    MUST(ABT_mutex_unlock(ABT_MUTEX_MEMORY_GET_HANDLE(&static_mutex)));
    fprintf(stderr, "child: failures %d\n", failures);
    MUST(ABT_finalize());
}

static int new_line, construct_line; /* in the child; the parent reads them from its stderr */
static gadget_t kept_gadget;

static void opal_leaky_program(void)
{
    new_line = __LINE__ + 1;
    widget_t *w = OBJ_NEW(widget_t);
    construct_line = __LINE__ + 1;
    OBJ_CONSTRUCT(&kept_gadget, gadget_t);
    widget_t *gone = OBJ_NEW(widget_t);
    OBJ_RELEASE(gone);
    widget_t *immortal = OBJ_NEW(widget_t);
    OBJ_SET_IMMORTAL(immortal);
    fprintf(stderr, "child: widget %p\nchild: value %d\nchild: new_line %d\nchild: construct_line %d\n",
            (void *)w, w->value, new_line, construct_line);
    opal_class_finalize();
}

/* ---- Checks ------------------------------------------------------------------------------- */

static const char *const kinds[] = {
    "ULT", "tasklet", "key", "pool", "scheduler", "ULT attribute", "mutex", "mutex attribute",
    "condition variable", "readers-writer lock", "barrier", "execution-stream barrier", "eventual",
    "future", "timer", "scheduler configuration", "pool configuration",
};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

static void test_clean(void)
{
    const char *modes[] = {"1", "fatal"};
    for (int i = 0; i < 2; i++) {
        CHECK_INT(in_child(clean_program, modes[i]), 0);
        CHECK_INT(child_value("failures"), 0);
        CHECK_INT(count_lines("goabt:"), 0); /* nothing reported, for ABT or OPAL */
    }
}

static void test_leaky(void)
{
    CHECK_INT(in_child(leaky_program, "1"), 0);
    CHECK_INT(child_value("failures"), 0);
    CHECK_INT(count_lines("goabt: GOABT_CHECK_LEAKS: 17 objects the program created were not "
                          "freed at the last ABT_finalize:"),
              1);
    /* One line per object, naming its kind: "goabt: leaked <kind> <id or address>". */
    for (int k = 0; k < NKINDS; k++) {
        int n = count_kind(kinds[k]);
        printf("     %d line(s) for kind %s\n", n, kinds[k]);
        CHECK_INT(n, 1);
    }
    CHECK_INT(count_lines("goabt: leaked"), NKINDS);
    char want[256];
    snprintf(want, sizeof want, "goabt: leaked ULT %llu (function leaky_ult at 0x",
             child_value("ult"));
    CHECK_INT(count_lines(want), 1);
    snprintf(want, sizeof want, "goabt: leaked tasklet %llu (function leaky_task at 0x",
             child_value("tasklet"));
    CHECK_INT(count_lines(want), 1);
    CHECK(strstr(said, "goabt: leaked key 0 (destructor leaky_key_destructor at 0x") != NULL);
    bool go_pool = getenv("GOABT_POOL") != NULL, go_sched = getenv("GOABT_SCHED") != NULL;
    snprintf(want, sizeof want, "goabt: leaked pool %llu (%s)", child_value("pool"),
             go_pool ? "a Go pool" : "ABT_POOL_FIFO");
    CHECK_INT(count_lines(want), 1);
    snprintf(want, sizeof want, "(%s, 1 pool, automatic); free it with ABT_sched_free",
             go_sched ? "a Go scheduler" : "ABT_SCHED_BASIC");
    CHECK(strstr(said, "goabt: leaked scheduler 0x") != NULL && strstr(said, want) != NULL);
    CHECK(strstr(said, "; free it with ABT_mutex_free\n") != NULL);
    /* The Go core's count: the two units' descriptors are still out. */
    CHECK(strstr(said, "not given back: 2 unit descriptors") != NULL);
    CHECK(strstr(said, "fatal") == NULL);

    CHECK_INT(in_child(leaky_program, "fatal"), 23);
    CHECK_INT(count_lines("goabt: leaked"), NKINDS);
    CHECK_INT(count_lines("goabt: GOABT_CHECK_LEAKS=fatal found leaks (above): exit status 23"), 1);

    CHECK_INT(in_child(leaky_program, NULL), 0);
    CHECK_INT(count_lines("goabt:"), 0);
    CHECK_INT(in_child(leaky_program, "0"), 0);
    CHECK_INT(count_lines("goabt:"), 0);
    CHECK_INT(in_child(leaky_program, "sure"), 0);
    CHECK_INT(count_lines("goabt: GOABT_CHECK_LEAKS=sure is neither yes, no nor fatal; using no\n"), 1);
    CHECK_INT(count_lines("goabt:"), 1);
}

static void test_opal_leaky(void)
{
    CHECK_INT(in_child(opal_leaky_program, "1"), 0);
    CHECK_INT(child_value("value"), 7);
    CHECK_INT(count_lines("goabt: GOABT_CHECK_LEAKS: 2 OPAL objects are still alive at "
                          "opal_class_finalize:"),
              1);
    CHECK_INT(count_lines("goabt: class widget_t: 1 object alive"), 1);
    CHECK_INT(count_lines("goabt: class gadget_t: 1 object alive"), 1);
    CHECK_INT(count_lines("goabt: class "), 2);
    char want[256];
    const char *w = strstr(said, "child: widget ");
    char addr[32] = "?";
    if (w != NULL) sscanf(w + strlen("child: widget "), "%31s", addr);
#if OPAL_ENABLE_DEBUG
    snprintf(want, sizeof want, "goabt:   widget_t %s made by OBJ_NEW at %s:%d\n", addr, __FILE__,
             (int)child_value("new_line"));
    CHECK(strstr(said, want) != NULL);
    snprintf(want, sizeof want, "goabt:   gadget_t %p made by OBJ_CONSTRUCT at %s:%d\n",
             (void *)&kept_gadget, __FILE__, (int)child_value("construct_line"));
    CHECK(strstr(said, want) != NULL);
#else
    snprintf(want, sizeof want, "goabt:   widget_t %s made by OBJ_NEW\n", addr);
    CHECK(strstr(said, want) != NULL);
    snprintf(want, sizeof want, "goabt:   gadget_t %p made by OBJ_CONSTRUCT\n",
             (void *)&kept_gadget);
    CHECK(strstr(said, want) != NULL);
#endif
    CHECK_INT(count_lines("goabt:   "), 2);

    CHECK_INT(in_child(opal_leaky_program, "fatal"), 23);
    CHECK_INT(count_lines("goabt: class "), 2);
    CHECK_INT(in_child(opal_leaky_program, NULL), 0);
    CHECK_INT(count_lines("goabt:"), 0);
    CHECK_INT(in_child(opal_leaky_program, "sure"), 0);
    CHECK_INT(count_lines("goabt: GOABT_CHECK_LEAKS=sure is neither yes, no nor fatal; using no\n"), 1);
    CHECK_INT(count_lines("goabt:"), 1);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_clean();
    test_leaky();
    test_opal_leaky();
    return check_summary();
}
