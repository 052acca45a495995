/* proc_status.h: a field of /proc/self/status, for the tests that count this process's threads
 * or memory. */
#ifndef GOABT_PROC_STATUS_H
#define GOABT_PROC_STATUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after name (say "Threads:") in /proc/self/status; 0 when it cannot be read. */
static inline long proc_status_field(const char *name)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    long n = 0;
    size_t len = strlen(name);
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, name, len) == 0) n = strtol(line + len, NULL, 10);
    }
    if (f != NULL) fclose(f);
    return n;
}

/* The threads of this process. */
static inline long threads(void)
{
    return proc_status_field("Threads:");
}

#endif
