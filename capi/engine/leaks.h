/* leaks.h: GOABT_CHECK_LEAKS: the flag the create and free paths test, and the registries of
 * live objects (leaks.c, api/opal.c), kept by the Go core (core/leaks.go, capi/leaks.go).
 *
 * The create and free paths test one flag (goabt_leak_check, opal_obj_leak_check), a branch
 * not taken when the check is off, and only then call here, which queues the operation and hands
 * the queue to Go (through the gate) a batch at a time.
 * Entries keep what the report cannot read back from the object itself (an OPAL object's class
 * and construction site); the rest (a unit's function and id, a pool's kind) is read from the
 * object when the report is made, which it may be: an object in the registry was not freed. */
#ifndef GOABT_LEAKS_H
#define GOABT_LEAKS_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"

/* The registries: the program's Argobots objects, and OPAL objects. */
enum { GOABT_LEAKS_ABT, GOABT_LEAKS_OPAL };

/* One object left at a report: what the registry kept (obj, seq, kind; OPAL: cls, in_place,
 * file, line), then what C read from the object (the rest; OPAL: the class's name). Integers
 * only, addresses as uintptr_t: the Go core fills the first part (docs/design.md rule 11). */
struct goabt_leak_fact {
    uintptr_t obj, cls, file, name;
    uintptr_t fn;   /* a unit's function, a key's destructor */
    uint64_t seq, id;
    int kind;       /* GOABT_LEAK_* (below); -1: not ours any more, not reported */
    int in_place, line;
    int state, pool_kind, sched_kind, num_pools, automatic;
};

/* One note (note 1) or forget of the queue the Go core applies in order (leaks.c). */
struct goabt_leak_op {
    uintptr_t obj, cls, file;
    int registry, note, kind, line;
};

/* Records obj in registry (an entry for an address already there is replaced: memory reused
 * without a free through the API). ABT: kind; OPAL: kind is 1 for OBJ_CONSTRUCT, cls the
 * class, file and line where it was made in debug builds (else NULL and 0). */
void goabt_leak_registry_note(int registry, int kind, const void *obj, const void *cls,
                              const char *file, int line) GOABT_HIDDEN;
/* Removes obj's entry, if there is one. */
void goabt_leak_registry_forget(int registry, const void *obj) GOABT_HIDDEN;
/* Empties registry and returns its entries in creation order (malloc'd: free() it), *n of
 * them; NULL when there are none. */
struct goabt_leak_fact *goabt_leak_registry_take(int registry, size_t *n) GOABT_HIDDEN;
/* Writes the report of facts on stderr, as the Go core makes it; 1 if it listed anything. */
int goabt_leak_registry_report(int registry, const struct goabt_leak_fact *facts,
                               size_t n) GOABT_HIDDEN;

/* After a report that found leaks in mode fatal: the process exits with status when it exits
 * (an atexit handler registered when the library loads, so that it runs after the program's). */
void goabt_leaks_exit_later(int status) GOABT_HIDDEN;

/* The leak check (leaks.c, GOABT_CHECK_LEAKS): 0 off, 1 report at the last ABT_finalize, 2
 * report and exit non-zero. Set at the outermost ABT_init, cleared by the report. Every API
 * create and free of an object the program must free tells the registry (the Go core's)
 * through GOABT_LEAK_NOTE / GOABT_LEAK_FORGET: one load and a branch not taken while the check
 * is off, which calls no Go. Values are core.LeakKind's (capi/leaks.go checks).
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
/* In a child forked after the Go core started: the checks go off (leaks.c). */
void goabt_leaks_forked(void) GOABT_HIDDEN;
/* GOABT_CHECK_LEAKS=fatal's exit status for OPAL objects, set by golib.c when it loads the Go
 * core (with opal_obj_leak_check, opal_object.h), read by api/opal.c's report (leaks.c). */
extern int goabt_opal_leak_exit_status GOABT_HIDDEN;
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
