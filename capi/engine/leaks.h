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

typedef struct goabt_leak_entry {
    const void *obj;  /* NULL: an empty slot */
    const void *cls;  /* OPAL: the object's class */
    const char *file; /* OPAL debug builds: where it was constructed */
    uint64_t seq;     /* creation order */
    int kind;         /* GOABT_LEAK_* (engine.h); OPAL: how it was made */
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
void goabt_leak_table_add(goabt_leak_table *t, goabt_leak_entry e) __attribute__((visibility("hidden")));
/* Removes obj's entry, if there is one. */
void goabt_leak_table_remove(goabt_leak_table *t, const void *obj) __attribute__((visibility("hidden")));
/* Empties t and returns its entries in creation order (malloc'd: free() it), *n of them;
 * NULL when there are none. */
goabt_leak_entry *goabt_leak_table_take(goabt_leak_table *t, size_t *n) __attribute__((visibility("hidden")));

/* After a report that found leaks in mode fatal: the process exits with status when it exits
 * (an atexit handler registered when the library loads, so that it runs after the program's). */
void goabt_leaks_exit_later(int status) __attribute__((visibility("hidden")));

/* Objects a report lists per kind (ABT) or class (OPAL); past that, it counts the rest. */
#define GOABT_LEAK_MAX_LINES 64

#endif /* GOABT_LEAKS_H */
