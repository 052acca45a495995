/* mutex.h: what condition variables (cond.c) need of mutexes (mutex.c). */
#ifndef GOABT_MUTEX_H
#define GOABT_MUTEX_H

#include "engine/handles.h"

/* goabt_mutex and goabt_mutex_of, the resolver: handles.h. */
/* Whether the calling unit (or OS thread) holds m. */
int goabt_mutex_held_by_caller(goabt_mutex *m) GOABT_HIDDEN;
/* Releases m whole, all recursive levels, and returns how many extra levels it had; retake
 * locks it again (waiting if needed) and restores them. */
int goabt_mutex_release_all(goabt_mutex *m) GOABT_HIDDEN;
void goabt_mutex_retake(goabt_mutex *m, int nesting) GOABT_HIDDEN;

#endif /* GOABT_MUTEX_H */
