/* ABT_init under an address-space limit (ulimit -v, RLIMIT_AS) too low for the Go runtime,
 * which takes about 1.6 GiB when it starts, nearly all of it reserved (README, "ABT_init under
 * ulimit -v"): ABT_init returns ABT_ERR_MEM and says in one line on stderr the limit goabt
 * needs, instead of the process dying in the Go runtime's start ("failed to reserve page
 * summary memory", "pthread_create failed", ...), and the process stays usable: with the limit
 * raised, ABT_init starts goabt and ULTs run. At the limit the line names, ABT_init starts goabt
 * or, when the Go runtime started more threads than goabt counts on (a busy machine), returns
 * ABT_ERR_MEM and says so: it never dies, nor fails without a word; with room for two threads
 * more than counted (a stack and a malloc arena each), it starts, and the limit named leaves the
 * Go runtime the headroom goabt keeps it beyond what the start took. Each case runs in a child
 * forked before this process used goabt (its limit is its own), with an alarm. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "proc_status.h"
#include "abt_wait.h"

static void ult(void *arg) { *(int *)arg = 1; }

/* Starts goabt and runs a ULT: 0 if all went well. */
static int use_goabt(void)
{
    if (ABT_init(0, NULL) != ABT_SUCCESS) return 1;
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread t;
    int ran = 0;
    if (ABT_self_get_xstream(&self) != ABT_SUCCESS ||
        ABT_xstream_get_main_pools(self, 1, &pool) != ABT_SUCCESS ||
        ABT_thread_create(pool, ult, &ran, ABT_THREAD_ATTR_NULL, &t) != ABT_SUCCESS ||
        ABT_thread_free(&t) != ABT_SUCCESS || !ran) {
        return 2;
    }
    return ABT_finalize() == ABT_SUCCESS ? 0 : 3;
}

enum { REFUSE, START, START_OR_SAY }; /* what ABT_init must do under the limit */

/* Whether the limit ABT_init named, need bytes, is no under-count: right after a start, it
 * leaves the Go runtime the headroom goabt keeps it to grow (core.BulkHeadroom, 96 MiB) beyond
 * what the process has taken, less what the Go runtime's threads beyond the 5 it starts with
 * took (a stack and a malloc arena each, 72 MiB). */
static int leaves_headroom(size_t need)
{
    long more = threads() - 1 - 5;
    size_t extra = more > 0 ? (size_t)more * ((size_t)72 << 20) : 0;
    size_t used = address_space_used();
    printf("started: %zu KiB used, %ld threads; the limit named %zu KiB\n", used >> 10,
           threads(), need >> 10);
    fflush(stdout); /* the child ends in _exit */
    return used + ((size_t)96 << 20) <= need + extra;
}

/* The child: limit its address space to `limit` bytes, ABT_init; after a start, check the limit
 * named (need bytes) against what the process took; after a refusal and with the limit lifted,
 * use goabt. Exit codes: 0 all as expected, 20 refused as START_OR_SAY allows. */
static int child(size_t limit, size_t need, int want)
{
    struct rlimit saved, r;
    if (getrlimit(RLIMIT_AS, &saved) != 0) return 10;
    r = saved;
    r.rlim_cur = limit;
    if (setrlimit(RLIMIT_AS, &r) != 0) return 11;
    int rc = ABT_init(0, NULL);
    if (rc == ABT_SUCCESS && want == START && !leaves_headroom(need)) return 17;
    if (rc == ABT_SUCCESS && want != REFUSE) {
        return use_goabt() == 0 && ABT_finalize() == ABT_SUCCESS ? 0 : 13;
    }
    if (rc != ABT_ERR_MEM || want == START) return 12;
    if (ABT_initialized() != ABT_ERR_UNINITIALIZED) return 14;
    if (want == START_OR_SAY) return 20;
    if (setrlimit(RLIMIT_AS, &saved) != 0) return 15;
    return use_goabt() == 0 ? 0 : 16;
}

typedef struct {
    int status;
    char err[4096];
} outcome_t;

static void run(size_t limit, size_t need, int want, outcome_t *o)
{
    memset(o, 0, sizeof *o);
    int fds[2];
    if (pipe(fds) != 0) return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60 * CTEST_SLOW);
        dup2(fds[1], 2);
        close(fds[0]);
        _exit(child(limit, need, want));
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof o->err && (r = read(fds[0], o->err + got, sizeof o->err - 1 - got)) > 0) {
        got += (size_t)r;
    }
    close(fds[0]);
    waitpid(pid, &o->status, 0);
    printf("limit %zu KiB: status %#x, stderr: %s\n", limit >> 10, o->status, o->err);
}

/* How many lines goabt said (ASan may add warnings of its own). */
static int goabt_lines(const char *err)
{
    int lines = 0;
    for (const char *p = strstr(err, "goabt:"); p != NULL; p = strstr(p + 1, "goabt:")) lines++;
    return lines;
}

int main(void)
{
    /* Nothing of goabt has run here: each child loads the Go core itself. */
    outcome_t o;
    const size_t small[] = {(size_t)100 << 20, (size_t)400 << 20, (size_t)800 << 20, (size_t)1200 << 20};
    size_t need_kib = 0, more_kib = 0; /* the limit the line names, and the room */
    for (int i = 0; i < 4; i++) {
        run(address_space_used() + small[i], 0, REFUSE, &o);
        CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
        CHECK(strstr(o.err, "goabt: the address-space limit (ulimit -v)") != NULL);
        CHECK_INT(goabt_lines(o.err), 1);
        const char *more = strstr(o.err, "goabt's Go core needs ");
        const char *at = strstr(o.err, "raise the limit to at least ");
        size_t kib = 0, room = 0;
        CHECK(more != NULL && sscanf(more, "goabt's Go core needs %zu KiB more", &room) == 1);
        CHECK(at != NULL && sscanf(at, "raise the limit to at least %zu KiB", &kib) == 1);
        CHECK(more_kib == 0 || room == more_kib); /* the same process, the same room */
        need_kib = kib;
        more_kib = room;
    }
    CHECK(need_kib > 1200 * 1024);
    if (need_kib == 0) return check_summary();
    /* At the limit named: started, or refused in a line of goabt's own. */
    run(need_kib << 10, need_kib << 10, START_OR_SAY, &o);
    CHECK(WIFEXITED(o.status) && (WEXITSTATUS(o.status) == 0 || WEXITSTATUS(o.status) == 20));
    if (WIFEXITED(o.status) && WEXITSTATUS(o.status) == 20) {
        CHECK(strstr(o.err, "goabt: the address-space limit (ulimit -v)") != NULL);
    }
    /* Room for two threads more than counted: started, and nothing said. */
    run((need_kib << 10) + ((size_t)144 << 20), need_kib << 10, START, &o);
    CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
    CHECK(strstr(o.err, "goabt:") == NULL);
    return check_summary();
}
