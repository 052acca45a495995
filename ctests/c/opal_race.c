/* The debug build's race check (opal_object.h, "Race check"): with threads off, two threads that
 * update one object's count at once are reported once per object, on one line naming the class
 * and the RETAIN/RELEASE that saw it, and the count stays exact; hand-offs with proper
 * synchronization (pthread_create/join, a mutex, an Argobots join) and threads on report nothing.
 * The racing runs go on until the check has seen collisions (opal_obj_races_detected), bounded so
 * that a run that never collides ends, and fails. The abort variant runs only the
 * GOABT_OPAL_RACE_ABORT case, in a child. */
// ctest-variant: debug -DOPAL_ENABLE_DEBUG=1
// ctest-variant: abort -DOPAL_ENABLE_DEBUG=1 -DRACE_ABORT GOABT_OPAL_RACE_ABORT=yes
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include <opal_object.h>
#include "check.h"
#include "child_stderr.h"

typedef struct {
    opal_object_t super;
    int value;
} widget_t;
static int destructed;
static void widget_destruct(widget_t *w)
{
    (void)w;
    __atomic_add_fetch(&destructed, 1, __ATOMIC_RELAXED);
}
OBJ_CLASS_INSTANCE(widget_t, opal_object_t, NULL, widget_destruct);

/* Racing runs stop once the check has counted this many collisions (more than one, so that one
 * report line shows once per object), then do MORE_PAIRS more; MAX_PAIRS bounds a run that never
 * collides. */
#define COLLISIONS 3
#define MAX_PAIRS 20000000L
#define MORE_PAIRS 10000
#define HANDOFF_PAIRS 100000

static int retain_line, release_line;
static pthread_barrier_t start;

static void one_pair(widget_t *w)
{
    if (release_line == 0) { /* main learns them first, before any thread runs */
        retain_line = __LINE__ + 3;
        release_line = __LINE__ + 3;
    }
    OBJ_RETAIN(w);
    OBJ_RELEASE_NO_NULLIFY(w);
}

/* RETAIN+RELEASE pairs on w until the check's count of collisions reaches `until` (0: exactly
 * `pairs` pairs), then `more` more. */
static void pairs(widget_t *w, size_t until, long pairs, long more)
{
    for (long i = 0; i < pairs && (until == 0 || opal_obj_races_detected() < until); i++) {
        one_pair(w);
    }
    for (long i = 0; i < more; i++) one_pair(w);
}

/* What the racing runs wait for the count of collisions to reach: COLLISIONS more than it was
 * before them (set before the threads start). */
static size_t race_until;

static void *race(void *arg)
{
    pthread_barrier_wait(&start);
    pairs(arg, race_until, MAX_PAIRS, MORE_PAIRS);
    return NULL;
}

static void run_two(void *(*fn)(void *), widget_t *w)
{
    pthread_t th[2];
    pthread_barrier_init(&start, NULL, 2);
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, fn, w);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++) n += *text == '\n';
    return n;
}

/* One report line for w, with the class, the hint, and the RETAIN or RELEASE site in pairs(); the
 * other thread's last update, where given, is one of the two as well. */
static void check_report(const char *err, widget_t *w)
{
    char address[64], retain_site[300], release_site[300];
    snprintf(address, sizeof address, "object %p ", (void *)w);
    snprintf(retain_site, sizeof retain_site, "OBJ_RETAIN at %s:%d:", __FILE__, retain_line);
    snprintf(release_site, sizeof release_site, "OBJ_RELEASE at %s:%d:", __FILE__, release_line);
    CHECK_INT(count_lines(err), 1);
    CHECK(strstr(err, address) != NULL);
    CHECK(strstr(err, "of class widget_t") != NULL);
    CHECK(strstr(err, retain_site) == err + strlen("opal_object: ") ||
          strstr(err, release_site) == err + strlen("opal_object: "));
    CHECK(strstr(err, "opal_using_threads() is false") != NULL);
    const char *other = strstr(err, "that thread's last update: ");
    if (other != NULL) {
        other += strlen("that thread's last update: ");
        char retain_at[300], release_at[300];
        snprintf(retain_at, sizeof retain_at, "%s:%d)", __FILE__, retain_line);
        snprintf(release_at, sizeof release_at, "%s:%d)", __FILE__, release_line);
        CHECK(strncmp(other, retain_at, strlen(retain_at)) == 0 ||
              strncmp(other, release_at, strlen(release_at)) == 0);
    }
}

#ifndef RACE_ABORT

/* ---- stderr, captured in a file while a part runs ---- */
static FILE *captured;
static int saved_stderr;

static void capture_begin(void)
{
    fflush(stderr);
    captured = tmpfile();
    saved_stderr = dup(2);
    dup2(fileno(captured), 2);
}

static const char *capture_end(void)
{
    static char text[8192];
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(captured);
    size_t n = fread(text, 1, sizeof text - 1, captured);
    text[n] = 0;
    fclose(captured);
    printf("     stderr: %s%s", text, n > 0 && text[n - 1] == '\n' ? "" : "\n");
    return text;
}

static void *pairs_unchecked(void *arg)
{
    pthread_barrier_wait(&start);
    pairs(arg, 0, HANDOFF_PAIRS, 0);
    return NULL;
}

/* ---- (b) hand-offs with threads off ---- */
static pthread_mutex_t handoff_lock = PTHREAD_MUTEX_INITIALIZER;

static void *pairs_locked(void *arg)
{
    pthread_barrier_wait(&start);
    for (int i = 0; i < HANDOFF_PAIRS; i++) {
        pthread_mutex_lock(&handoff_lock);
        OBJ_RETAIN((widget_t *)arg);
        OBJ_RELEASE_NO_NULLIFY((widget_t *)arg);
        pthread_mutex_unlock(&handoff_lock);
    }
    return NULL;
}

static void *retain_twice(void *arg)
{
    OBJ_RETAIN((widget_t *)arg);
    OBJ_RETAIN((widget_t *)arg);
    OBJ_RELEASE_NO_NULLIFY((widget_t *)arg);
    return NULL;
}

static void retain_twice_ult(void *arg) { retain_twice(arg); }

/* ---- (d) two execution streams ---- */
static ABT_barrier ult_start;

static void race_ult(void *arg)
{
    ABT_barrier_wait(ult_start);
    pairs(arg, race_until, MAX_PAIRS, MORE_PAIRS);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK(!opal_using_threads());

    /* (a) Two pthreads race on one object: one report, the count exact. */
    widget_t *w = OBJ_NEW(widget_t);
    one_pair(w); /* learns the lines check_report looks for */
    race_until = opal_obj_races_detected() + COLLISIONS;
    capture_begin();
    run_two(race, w);
    const char *err = capture_end();
    size_t seen = opal_obj_races_detected();
    printf("     collisions: %zu\n", seen);
    CHECK(seen >= COLLISIONS);
    check_report(err, w);
    CHECK(strstr(err, "execution streams") == NULL); /* only the primary runs */
    CHECK_INT(w->super.obj_reference_count, 1);
    CHECK_INT(destructed, 0);
    OBJ_RELEASE(w);
    CHECK(w == NULL);
    CHECK_INT(destructed, 1);

    /* (b) Hand-offs with threads off: nothing reported, the counts exact. */
    seen = opal_obj_races_detected();
    w = OBJ_NEW(widget_t);
    capture_begin();
    for (int i = 0; i < 200; i++) { /* pthread_create/join */
        pthread_t th;
        pthread_create(&th, NULL, retain_twice, w);
        pthread_join(th, NULL);
        OBJ_RELEASE_NO_NULLIFY(w);
    }
    run_two(pairs_locked, w); /* a mutex */
    ABT_xstream xs;
    ABT_pool pool;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(xs, 1, &pool), ABT_SUCCESS);
    int rc = 0;
    for (int i = 0; i < 200; i++) { /* an Argobots join, the ULT on another stream */
        ABT_thread ult;
        rc |= ABT_thread_create(pool, retain_twice_ult, w, ABT_THREAD_ATTR_NULL, &ult);
        rc |= ABT_thread_free(&ult);
        OBJ_RELEASE_NO_NULLIFY(w);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    err = capture_end();
    CHECK_STR(err, "");
    CHECK_INT(opal_obj_races_detected(), seen);
    CHECK_INT(w->super.obj_reference_count, 1);

    /* (c) Threads on, two threads at once: nothing reported, the count exact. */
    opal_set_using_threads(true);
    capture_begin();
    run_two(pairs_unchecked, w);
    err = capture_end();
    opal_set_using_threads(false);
    CHECK_STR(err, "");
    CHECK_INT(opal_obj_races_detected(), seen);
    CHECK_INT(w->super.obj_reference_count, 1);
    OBJ_RELEASE(w);
    CHECK_INT(destructed, 2);

    /* (d) A ULT on each of two streams races on one object: one report, the count exact. */
    w = OBJ_NEW(widget_t);
    ABT_pool primary_pool;
    ABT_xstream primary;
    ABT_xstream_self(&primary);
    ABT_xstream_get_main_pools(primary, 1, &primary_pool);
    CHECK_INT(ABT_barrier_create(2, &ult_start), ABT_SUCCESS);
    race_until = seen + COLLISIONS;
    capture_begin();
    ABT_thread ults[2];
    rc = ABT_thread_create(primary_pool, race_ult, w, ABT_THREAD_ATTR_NULL, &ults[0]);
    rc |= ABT_thread_create(pool, race_ult, w, ABT_THREAD_ATTR_NULL, &ults[1]);
    for (int i = 0; i < 2; i++) rc |= ABT_thread_free(&ults[i]);
    err = capture_end();
    CHECK_INT(rc, ABT_SUCCESS);
    ABT_barrier_free(&ult_start);
    printf("     collisions: %zu\n", opal_obj_races_detected() - seen);
    CHECK(opal_obj_races_detected() >= seen + COLLISIONS);
    check_report(err, w);
    CHECK(strstr(err, "(2 Argobots execution streams run)") != NULL);
    CHECK_INT(w->super.obj_reference_count, 1);
    OBJ_RELEASE(w);
    CHECK_INT(destructed, 3);

    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}

#else /* RACE_ABORT */

/* The child's part: the race, until its report aborts it (or it exits 0: no collision, or
 * no abort). */
static void race_in_child(void *w)
{
    run_two(race, w);
}

/* (e) GOABT_OPAL_RACE_ABORT=yes: the first report aborts. In a child, whose stderr the parent
 * reads; the class was initialized before the fork, and the report is pure C. */
int main(void)
{
    widget_t *w = OBJ_NEW(widget_t); /* loads the Go core, which reads the switch */
    one_pair(w); /* learns the lines check_report looks for */
    race_until = COLLISIONS;
    static char err[8192];
    int status = child_stderr(race_in_child, w, 60, err, sizeof err);
    size_t n = strlen(err);
    printf("     child said: %s%s", err, n > 0 && err[n - 1] == '\n' ? "" : "\n");
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    check_report(err, w);
    CHECK(strstr(err, "GOABT_OPAL_RACE_ABORT") != NULL);
    OBJ_RELEASE(w);
    CHECK_INT(destructed, 1);
    return check_summary();
}

#endif
