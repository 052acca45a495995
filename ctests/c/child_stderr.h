/* child_stderr.h: a part of a test run in a forked child, whose stderr the parent reads (a
 * report that aborts the process, a line written once per process). */
#ifndef GOABT_CHILD_STDERR_H
#define GOABT_CHILD_STDERR_H

#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

/* Runs fn(arg) in a child that exits with status 0 when fn returns, within alarm_s seconds (a
 * child that hangs must not outlive the test); what it wrote on stderr goes to err (size bytes,
 * NUL-terminated, qemu's own line cut: check_cut_qemu_line). Returns the child's wait status,
 * or -1 if no child could be made. */
static inline int child_stderr(void (*fn)(void *), void *arg, unsigned alarm_s, char *err,
                               size_t size)
{
    err[0] = '\0';
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(alarm_s);
        dup2(fds[1], 2);
        close(fds[0]);
        fn(arg);
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return -1;
    }
    size_t n = 0;
    ssize_t r;
    while (n < size - 1 && (r = read(fds[0], err + n, size - 1 - n)) > 0) n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    check_cut_qemu_line(err);
    return status;
}

#endif
