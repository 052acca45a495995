/* ABT_init under an address-space limit (ulimit -v, RLIMIT_AS) too low for the Go runtime,
 * which reserves about 1.4 GiB when it starts: ABT_init returns ABT_ERR_MEM and says in one line
 * on stderr how much room goabt needs, instead of the process dying in the Go runtime's start
 * ("failed to reserve page summary memory", "pthread_create failed", ...), and the process
 * stays usable: with the limit raised, ABT_init starts goabt and ULTs run. Each case runs in a
 * child forked before this process used goabt (its limit is its own), with an alarm. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
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

/* The child: limit its address space to what it uses and `room` more, ABT_init; then, with the
 * limit lifted, use goabt. Exit codes: 0 all as expected. */
static int child(size_t room, int want_init)
{
    struct rlimit saved, r;
    if (getrlimit(RLIMIT_AS, &saved) != 0) return 10;
    r = saved;
    r.rlim_cur = address_space_used() + room;
    if (setrlimit(RLIMIT_AS, &r) != 0) return 11;
    int rc = ABT_init(0, NULL);
    if (rc != want_init) return 12;
    if (rc == ABT_SUCCESS) return use_goabt() == 0 && ABT_finalize() == ABT_SUCCESS ? 0 : 13;
    if (ABT_initialized() != ABT_ERR_UNINITIALIZED) return 14;
    if (setrlimit(RLIMIT_AS, &saved) != 0) return 15;
    return use_goabt() == 0 ? 0 : 16;
}

typedef struct {
    int status;
    char err[4096];
} outcome_t;

static void run(size_t room, int want_init, outcome_t *o)
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
        _exit(child(room, want_init));
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof o->err && (r = read(fds[0], o->err + got, sizeof o->err - 1 - got)) > 0) {
        got += (size_t)r;
    }
    close(fds[0]);
    waitpid(pid, &o->status, 0);
    printf("room %zu MiB: status %#x, stderr: %s\n", room >> 20, o->status, o->err);
}

int main(void)
{
    /* Nothing of goabt has run here: each child loads the Go core itself. */
    outcome_t o;
    const size_t small[] = {(size_t)100 << 20, (size_t)400 << 20, (size_t)800 << 20, (size_t)1200 << 20};
    for (int i = 0; i < 4; i++) {
        run(small[i], ABT_ERR_MEM, &o);
        CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
        CHECK(strstr(o.err, "goabt: the address-space limit (ulimit -v)") != NULL);
        int lines = 0; /* goabt's (ASan may add warnings of its own) */
        for (char *p = strstr(o.err, "goabt:"); p != NULL; p = strstr(p + 1, "goabt:")) lines++;
        CHECK_INT(lines, 1);
    }
    run((size_t)3 << 30, ABT_SUCCESS, &o); /* room enough */
    CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
    CHECK(strstr(o.err, "goabt:") == NULL); /* nothing said */
    return check_summary();
}
