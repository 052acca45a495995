/* fork, as test runners (one child per test) and daemons do it:
 *  - 200 children forked at once before the program used goabt at all, each running a small
 *    Argobots and OPAL program (2 streams, ULTs, a key, a class with a constructor, ABT_init and
 *    ABT_finalize twice): every one succeeds (a Go runtime started at load time used to leave
 *    them hanging in their first ABT_init);
 *  - after the parent used goabt (ABT_init, ABT_finalize): a child's ABT_init fails at once with
 *    ABT_ERR_OTHER and one line on stderr saying why, and OPAL works there: objects of a class
 *    the parent initialized, and of classes it never did (a base and a derived class:
 *    constructors base first, destructors derived first), before and after
 *    opal_class_finalize;
 *  - fork while streams run: the child exits at once, the parent's streams go on.
 * Every child has an alarm: a hang shows up as a failure, not as a stuck test. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include <opal_object.h>
#include "check.h"
#include "abt_wait.h"

typedef struct {
    opal_object_t super;
    int value;
} thing_t;
static void thing_construct(thing_t *t) { t->value = 42; }
OBJ_CLASS_INSTANCE(thing_t, opal_object_t, thing_construct, NULL);

/* OPAL classes no parent ever initializes: base <- derived, each with a constructor and a
 * destructor that log their order. */
typedef struct {
    opal_object_t super;
    char log[16];
    int n;
} base_t;
typedef struct {
    base_t super;
} derived_t;
static char destroyed[16];
static int ndestroyed;
static void base_construct(base_t *b)
{
    b->n = 0; /* OBJ_NEW's memory is malloc's */
    b->log[b->n++] = 'b';
}
static void base_destruct(base_t *b) { (void)b; destroyed[ndestroyed++] = 'b'; }
static void derived_construct(derived_t *d) { d->super.log[d->super.n++] = 'd'; }
static void derived_destruct(derived_t *d) { (void)d; destroyed[ndestroyed++] = 'd'; }
OBJ_CLASS_INSTANCE(base_t, opal_object_t, base_construct, base_destruct);
OBJ_CLASS_INSTANCE(derived_t, base_t, derived_construct, derived_destruct);

/* OPAL in a child forked after the parent used goabt: a class the parent used, and classes it
 * never initialized (constructors base first, destructors derived first), again after
 * opal_class_finalize; the number of things that went wrong. */
static int opal_in_child(void)
{
    int bad = 0;
    thing_t *th = OBJ_NEW(thing_t);
    bad += th == NULL || th->value != 42;
    OBJ_RELEASE(th);
    for (int round = 0; round < 2; round++) {
        ndestroyed = 0;
        derived_t *d = OBJ_NEW(derived_t);
        bad += d == NULL || d->super.n != 2 || memcmp(d->super.log, "bd", 2) != 0;
        OBJ_RETAIN(d);
        OBJ_RELEASE(d);
        bad += d == NULL || ndestroyed != 0;
        OBJ_RELEASE(d);
        bad += d != NULL || ndestroyed != 2 || memcmp(destroyed, "db", 2) != 0;
        base_t *b = OBJ_NEW(base_t);
        bad += b == NULL || b->n != 1 || b->log[0] != 'b';
        OBJ_RELEASE(b);
        opal_class_finalize(); /* a new epoch: the classes initialize again */
    }
    return bad;
}

static int sum;
static void add(void *arg) { __atomic_add_fetch(&sum, (int)(intptr_t)arg, __ATOMIC_RELAXED); }

/* A small program; 0 if everything in it worked. */
static int small_program(void)
{
    int bad = 0;
    for (int round = 0; round < 2; round++) {
        sum = 0;
        bad += ABT_init(0, NULL) != ABT_SUCCESS;
        ABT_xstream xs[2];
        ABT_pool pools[2];
        bad += start_streams(2, xs, pools) != ABT_SUCCESS;
        ABT_key key;
        bad += ABT_key_create(NULL, &key) != ABT_SUCCESS;
        ABT_thread t[8];
        for (int i = 0; i < 8; i++) {
            bad += ABT_thread_create(pools[i % 2], add, (void *)(intptr_t)(i + 1),
                                     ABT_THREAD_ATTR_NULL, &t[i]) != ABT_SUCCESS;
            bad += ABT_thread_set_specific(t[i], key, &t[i]) != ABT_SUCCESS;
        }
        for (int i = 0; i < 8; i++) bad += ABT_thread_free(&t[i]) != ABT_SUCCESS;
        bad += sum != 36;
        thing_t *th = OBJ_NEW(thing_t);
        bad += th == NULL || th->value != 42;
        OBJ_RELEASE(th);
        bad += ABT_key_free(&key) != ABT_SUCCESS;
        bad += ABT_xstream_free(&xs[1]) != ABT_SUCCESS;
        bad += ABT_finalize() != ABT_SUCCESS;
    }
    return bad;
}

/* Forks n children running child(arg) with an alarm; returns how many exited with 0. When err
 * is not NULL, the first child's stderr is read into it. */
static int fork_children(int n, int (*child)(void), char *err, size_t errlen)
{
    pid_t pids[256];
    int fds[2] = {-1, -1};
    if (err != NULL && pipe(fds) != 0) return -1;
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            alarm(60);
            if (err != NULL) {
                dup2(fds[1], 2);
                close(fds[0]);
            }
            _exit(child());
        }
    }
    if (err != NULL) {
        close(fds[1]);
        size_t got = 0;
        ssize_t r;
        while (got + 1 < errlen && (r = read(fds[0], err + got, errlen - 1 - got)) > 0) got += r;
        err[got] = '\0';
        close(fds[0]);
    }
    int ok = 0;
    for (int i = 0; i < n; i++) {
        int st;
        if (pids[i] > 0 && waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) &&
            WEXITSTATUS(st) == 0) {
            ok++;
        }
    }
    return ok;
}

/* In a child of a parent that used goabt: ABT_init refuses, OPAL objects work. */
static int child_after_use(void)
{
    if (ABT_init(0, NULL) != ABT_ERR_OTHER) return 1;
    if (ABT_init(0, NULL) != ABT_ERR_OTHER) return 2; /* and again, without hanging */
    if (opal_in_child() != 0) return 3;
    return 0;
}

static int child_exits(void) { return 0; }

static int spin_stop;
static void spinner(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&spin_stop, __ATOMIC_ACQUIRE)) ABT_thread_yield();
}

int main(void)
{
    /* Nothing of goabt has run in this process yet. */
    CHECK_INT(fork_children(200, small_program, NULL, 0), 200);

    /* Now the parent uses goabt itself. */
    CHECK_INT(small_program(), 0);
    char err[4096];
    CHECK_INT(fork_children(1, child_after_use, err, sizeof err), 1);
    CHECK(strstr(err, "forked after goabt started") != NULL);
    int lines = 0;
    for (char *p = err; *p; p++) lines += *p == '\n';
    CHECK_INT(lines, 1);
    printf("child's stderr: %s", err);

    /* Fork while streams run. */
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream xs[3];
    ABT_pool pools[3];
    CHECK_INT(start_streams(3, xs, pools), ABT_SUCCESS);
    ABT_thread s[4];
    for (int i = 0; i < 4; i++) {
        CHECK_INT(ABT_thread_create(pools[i % 3], spinner, NULL, ABT_THREAD_ATTR_NULL, &s[i]),
                  ABT_SUCCESS);
    }
    CHECK_INT(fork_children(8, child_exits, NULL, 0), 8);
    __atomic_store_n(&spin_stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 4; i++) CHECK_INT(ABT_thread_free(&s[i]), ABT_SUCCESS);
    for (int i = 1; i < 3; i++) CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
