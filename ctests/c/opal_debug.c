/* Debug mode (OPAL_ENABLE_DEBUG 1): magic id and construction site are stored, the magic is
 * cleared on destruct and on the last release, and each misuse prints one line naming the
 * operation, the class and the file:line of construction, then aborts. Each misuse runs in a
 * child process; the parent checks the child's message and that it did not exit cleanly. */
// ctest-variant: debug -DOPAL_ENABLE_DEBUG=1
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>
#include <opal_object.h>
#include "check.h"
#include "child_stderr.h"

typedef struct {
    opal_object_t super;
    int value;
} widget_t;
OBJ_CLASS_INSTANCE(widget_t, opal_object_t, NULL, NULL);

static int new_line, construct_line;

/* fn, called by child_stderr. */
static void call(void *fn)
{
    (*(void (**)(void))fn)();
}

/* Runs fn in a child with stderr captured; returns the message, sets *clean when the child
 * exited with status 0. The child must not need Go (the runtime cannot run in a fork child):
 * every class it uses is initialized before the fork, and misuse reports are pure C. */
static const char *in_child(void (*fn)(void), bool *clean)
{
    static char msg[4096];
    int status = child_stderr(call, &fn, 20, msg, sizeof msg);
    if (status == -1) return "fork failed";
    *clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return msg;
}

static widget_t *make_widget(void)
{
    new_line = __LINE__ + 1;
    return OBJ_NEW(widget_t);
}

static void release_twice(void)
{
    widget_t *w = make_widget();
    widget_t *alias = w;
    OBJ_RELEASE(w);
    OBJ_RELEASE(alias);
}

static void retain_after_release(void)
{
    widget_t *w = make_widget();
    widget_t *alias = w;
    OBJ_RELEASE(w);
    OBJ_RETAIN(alias);
}

static bool learn_line_only;

static void destruct_twice(void)
{
    widget_t w;
    construct_line = __LINE__ + 1;
    OBJ_CONSTRUCT(&w, widget_t);
    OBJ_DESTRUCT(&w);
    if (learn_line_only) return;
    OBJ_DESTRUCT(&w);
}

static void release_after_destruct(void)
{
    widget_t *w = make_widget();
    OBJ_DESTRUCT(w);
    OBJ_RELEASE(w);
}

static void retain_never_constructed(void)
{
    widget_t w;
    memset(&w, 0, sizeof w);
    OBJ_RETAIN(&w);
}

/* The child dies on the report with w alive: kept where memcheck sees it, not a leak of ours
 * (no leak registry holds it in a child forked after the Go core started). */
static widget_t *volatile below_zero_widget;

static void count_below_zero(void)
{
    widget_t *w = make_widget();
    below_zero_widget = w;
    opal_obj_update(&w->super, -2);
}

static void no_misuse(void)
{
    widget_t *w = make_widget();
    OBJ_RETAIN(w);
    OBJ_RELEASE(w);
    OBJ_RELEASE(w);
}

static void expect(void (*fn)(void), const char *op, const char *what, int line)
{
    bool clean = true;
    const char *msg = in_child(fn, &clean);
    char site[256];
    snprintf(site, sizeof site, "constructed at %s:%d", __FILE__, line);
    printf("     child said: %s", msg);
    CHECK(!clean);
    CHECK(strstr(msg, op) != NULL);
    CHECK(strstr(msg, "widget_t") != NULL);
    CHECK(strstr(msg, what) != NULL);
    CHECK(strstr(msg, site) != NULL);
    CHECK(strchr(msg, '\n') == msg + strlen(msg) - 1); /* one line */
}

int main(void)
{
    /* What debug mode stores. */
    widget_t *w = make_widget();
    CHECK(w->super.obj_magic_id == OPAL_OBJ_MAGIC_ID);
    CHECK_STR(w->super.cls_init_file_name, __FILE__);
    CHECK_INT(w->super.cls_init_lineno, new_line);
    OBJ_RELEASE(w);

    widget_t local;
    int line = __LINE__ + 1;
    OBJ_CONSTRUCT(&local, widget_t);
    CHECK(local.super.obj_magic_id == OPAL_OBJ_MAGIC_ID);
    CHECK_INT(local.super.cls_init_lineno, line);
    OBJ_DESTRUCT(&local);
    CHECK(local.super.obj_magic_id == 0);

    static widget_t static_widget = { OPAL_OBJ_STATIC_INIT(widget_t), 1 };
    CHECK(static_widget.super.obj_magic_id == OPAL_OBJ_MAGIC_ID);

    /* A correct program exits cleanly and says nothing. */
    bool clean = false;
    const char *msg = in_child(no_misuse, &clean);
    CHECK(clean);
    CHECK_STR(msg, "");

    /* Each misuse: one line, the operation, the class, what went wrong, the construction site. */
    make_widget(); /* sets new_line */
    expect(release_twice, "OBJ_RELEASE", "already released", new_line);
    expect(retain_after_release, "OBJ_RETAIN", "already released", new_line);
    learn_line_only = true;
    destruct_twice(); /* sets construct_line, stopping before the misuse */
    learn_line_only = false;
    expect(destruct_twice, "OBJ_DESTRUCT", "already destroyed", construct_line);
    expect(release_after_destruct, "OBJ_RELEASE", "already destroyed", new_line);
    expect(count_below_zero, "opal_obj_update", "below zero", new_line);

    /* Never constructed: nothing about it can be trusted, so no class is named. */
    clean = true;
    msg = in_child(retain_never_constructed, &clean);
    printf("     child said: %s", msg);
    CHECK(!clean);
    CHECK(strstr(msg, "OBJ_RETAIN") != NULL);
    CHECK(strstr(msg, "never constructed") != NULL);
    CHECK(strstr(msg, __FILE__) != NULL);
    return check_summary();
}
