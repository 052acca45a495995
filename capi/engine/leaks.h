/* leaks.h: the registries of live objects behind GOABT_CHECK_LEAKS (leaks.c, opal.c).
 *
 * A registry is a hash set of addresses under a mutex, filled only while the check is on: the
 * create and free paths test one flag (goabt_leak_check, opal_obj_leak_check), a branch not
 * taken when the check is off, and only then call here. Entries keep what the report cannot
 * read back from the object itself (an OPAL object's class and construction site); the rest
 * (a unit's function and id, a pool's kind) is read from the object when the report is made,
 * which it may be: an object in the registry was not freed. */
#ifndef GOABT_LEAKS_H
#define GOABT_LEAKS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "common.h"

typedef struct goabt_leak_entry {
    const void *obj;  /* NULL: an empty slot */
    const void *cls;  /* OPAL: the object's class */
    const char *file; /* OPAL debug builds: where it was constructed */
    uint64_t seq;     /* creation order */
    int kind;         /* GOABT_LEAK_* (below); OPAL: how it was made */
    int line;
} goabt_leak_entry;

typedef struct goabt_leak_table {
    pthread_mutex_t lock;
    goabt_leak_entry *slots; /* open addressing, linear probing; cap a power of two */
    size_t cap, count;
    uint64_t seq;
} goabt_leak_table;

#define GOABT_LEAK_TABLE_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0}

/* Adds e (an entry for an address already there replaces it: memory reused without a free
 * through the API). Out of memory, the object goes unrecorded. */
void goabt_leak_table_add(goabt_leak_table *t, goabt_leak_entry e) GOABT_HIDDEN;
/* Removes obj's entry, if there is one. */
void goabt_leak_table_remove(goabt_leak_table *t, const void *obj) GOABT_HIDDEN;
/* Empties t and returns its entries in creation order (malloc'd: free() it), *n of them;
 * NULL when there are none. */
goabt_leak_entry *goabt_leak_table_take(goabt_leak_table *t, size_t *n) GOABT_HIDDEN;

/* After a report that found leaks in mode fatal: the process exits with status when it exits
 * (an atexit handler registered when the library loads, so that it runs after the program's). */
void goabt_leaks_exit_later(int status) GOABT_HIDDEN;

/* Objects a report lists per kind (ABT) or class (OPAL); past that, it counts the rest. */
#define GOABT_LEAK_MAX_LINES 64

/* The leak check (leaks.c, GOABT_CHECK_LEAKS): 0 off, 1 report at the last ABT_finalize, 2
 * report and exit non-zero. Set at the outermost ABT_init, cleared by the report. Every API
 * create and free of an object the program must free tells the registry through
 * GOABT_LEAK_NOTE / GOABT_LEAK_FORGET: one load and a branch not taken while the check is off.
 * Kinds: GOABT_LEAK_UNIT (named units; ULT or tasklet is read at the report) and
 * GOABT_LEAK_OBJECT (object.h memory: the kind is read from its magic at the report) cover
 * several. */
enum {
    GOABT_LEAK_UNIT,
    GOABT_LEAK_ULT,
    GOABT_LEAK_TASKLET,
    GOABT_LEAK_KEY,
    GOABT_LEAK_POOL,
    GOABT_LEAK_SCHED,
    GOABT_LEAK_THREAD_ATTR,
    GOABT_LEAK_OBJECT,
    GOABT_LEAK_MUTEX,
    GOABT_LEAK_MUTEX_ATTR,
    GOABT_LEAK_COND,
    GOABT_LEAK_RWLOCK,
    GOABT_LEAK_BARRIER,
    GOABT_LEAK_XSTREAM_BARRIER,
    GOABT_LEAK_EVENTUAL,
    GOABT_LEAK_FUTURE,
    GOABT_LEAK_TIMER,
    GOABT_LEAK_SCHED_CONFIG,
    GOABT_LEAK_POOL_CONFIG,
    GOABT_LEAK_POOL_USER_DEF,
    GOABT_LEAK_KINDS
};
extern int goabt_leak_check GOABT_HIDDEN;
void goabt_leak_note(int kind, const void *obj) GOABT_HIDDEN;
void goabt_leak_forget(const void *obj) GOABT_HIDDEN;
/* At the outermost ABT_init: the mode and the exit status of a fatal report (the Go core's). */
void goabt_leaks_at_init(void) GOABT_HIDDEN;
/* At the last ABT_finalize, once everything goabt frees itself is freed: lists on stderr what
 * the program did not free, and turns the check off. */
void goabt_leaks_report(void) GOABT_HIDDEN;
/* When golib.c has loaded the Go core: GOABT_CHECK_LEAKS for OPAL objects (opal.c). */
void goabt_opal_leaks_at_load(int mode, int exit_status) GOABT_HIDDEN;
/* In the child of every fork, from golib.c's handler: OPAL's C locks are free (opal.c). */
void goabt_opal_forked(void) GOABT_HIDDEN;
#define GOABT_LEAK_NOTE(kind, obj)                                                            \
    do {                                                                                      \
        if (__builtin_expect(__atomic_load_n(&goabt_leak_check, __ATOMIC_RELAXED) != 0, 0)) {  \
            goabt_leak_note((kind), (obj));                                                   \
        }                                                                                     \
    } while (0)
#define GOABT_LEAK_FORGET(obj)                                                                \
    do {                                                                                      \
        if (__builtin_expect(__atomic_load_n(&goabt_leak_check, __ATOMIC_RELAXED) != 0, 0)) {  \
            goabt_leak_forget(obj);                                                           \
        }                                                                                     \
    } while (0)

#endif /* GOABT_LEAKS_H */
