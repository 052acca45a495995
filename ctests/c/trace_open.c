/* GOABT_TRACE's file is created by ABT_init, so that a path that cannot be written is said while
 * the program can still act on it. The program sets GOABT_TRACE itself before each outermost
 * ABT_init (goabt reads the C library's environment) and captures its own stderr (fd 2, in a
 * temporary file) around ABT_init and around ABT_finalize:
 *  - a path in a directory that does not exist, and a path that is a directory: ABT_init returns
 *    ABT_SUCCESS and has said, before it returned, one line naming the path and the system's
 *    error; the run goes on untraced: a ULT runs, ABT_finalize returns ABT_SUCCESS and says
 *    nothing more about the trace, and no file appears;
 *  - a path that can be written: ABT_init says nothing and the file exists, empty, when it
 *    returns; ABT_finalize writes the trace into it;
 *  - a second init/finalize cycle on that path: ABT_init creates the file again, empty, and
 *    ABT_finalize writes that cycle's trace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

/* ---- Capturing stderr ----------------------------------------------------------------------- */

static FILE *captured;
static int saved_stderr = -1;

static void capture_begin(void)
{
    fflush(stderr);
    captured = tmpfile();
    saved_stderr = dup(2);
    if (captured == NULL || saved_stderr < 0 || dup2(fileno(captured), 2) < 0) {
        printf("FAIL cannot capture stderr: %s\n", strerror(errno));
        exit(1);
    }
}

/* Ends the capture and returns what was written to fd 2 meanwhile (free it); it is also
 * printed, for the test's log. */
static char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    off_t len = lseek(fileno(captured), 0, SEEK_END); /* fd 2 wrote through the same offset */
    if (len < 0) len = 0;
    char *text = calloc(1, (size_t)len + 1);
    rewind(captured);
    if (len > 0 && fread(text, 1, (size_t)len, captured) != (size_t)len) text[0] = '\0';
    fclose(captured);
    if (text[0] != '\0') printf("     stderr said: %s", text);
    return text;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what)) n++;
    return n;
}

/* ---- The runs -------------------------------------------------------------------------------- */

static int ran;

static void ult(void *arg)
{
    (void)arg;
    ran++;
}

static void run_one_ult(void)
{
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread t;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    CHECK_INT(ABT_thread_create(pool, ult, NULL, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
}

/* file_size is path's size, or -1 if it does not exist (or is no regular file). */
static long file_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return (long)st.st_size;
}

/* A run with GOABT_TRACE=path, which cannot be written for the reason error (as the Go core
 * spells it): said once, at ABT_init; the run goes on. */
static void run_unwritable(const char *path, const char *error)
{
    setenv("GOABT_TRACE", path, 1);
    int before = ran;
    capture_begin();
    int rc = ABT_init(0, NULL);
    char *said = capture_end();
    CHECK_INT(rc, ABT_SUCCESS);
    char want[512];
    snprintf(want, sizeof want, "goabt: GOABT_TRACE=%s: ", path);
    CHECK_INT(count(said, "GOABT_TRACE"), 1);
    /* The line starts a line of its own (under ASan, a warning of ASan's may come first). */
    const char *line = strstr(said, want);
    CHECK(line != NULL && (line == said || line[-1] == '\n'));
    CHECK(strstr(said, error) != NULL);
    CHECK(strstr(said, "; this run writes no trace\n") != NULL);
    free(said);
    if (rc != ABT_SUCCESS) return;
    run_one_ult();
    CHECK_INT(ran, before + 1);
    capture_begin();
    rc = ABT_finalize();
    said = capture_end();
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(count(said, "GOABT_TRACE"), 0);
    free(said);
}

/* A run with GOABT_TRACE=path, which can be written: the file is there, empty, when ABT_init
 * returns, and holds the trace after ABT_finalize. */
static void run_writable(const char *path)
{
    setenv("GOABT_TRACE", path, 1);
    capture_begin();
    int rc = ABT_init(0, NULL);
    char *said = capture_end();
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(count(said, "GOABT_TRACE"), 0);
    free(said);
    CHECK_INT(file_size(path), 0);
    if (rc != ABT_SUCCESS) return;
    run_one_ult();
    capture_begin();
    rc = ABT_finalize();
    said = capture_end();
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(count(said, "GOABT_TRACE"), 0);
    free(said);
    CHECK(file_size(path) > 0);
}

int main(void)
{
    char dir[] = "/tmp/goabt-trace-open-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char missing[256], trace[256];
    snprintf(missing, sizeof missing, "%s/no-such-dir/trace.json", dir);
    snprintf(trace, sizeof trace, "%s/trace.json", dir);

    run_unwritable(missing, "no such file or directory");
    CHECK_INT(file_size(missing), -1);
    run_unwritable(dir, "is a directory");
    run_writable(trace);
    run_writable(trace); /* created again by the second cycle's ABT_init */

    unsetenv("GOABT_TRACE");
    CHECK_INT(unlink(trace), 0);
    CHECK_INT(rmdir(dir), 0);
    return check_summary();
}
