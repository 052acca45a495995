/* args.h: the argument checks of the ABT_* entry points, shared by every API file. An entry
 * checks in Argobots' order (initialized, then handles, then output pointers), and turns a
 * handle into its object only through handles.h's resolvers (the one place that does). These
 * two checks are also what keeps a forked child out (runtime.h, goabt_forked). */
#ifndef GOABT_ARGS_H
#define GOABT_ARGS_H

#include "engine/common.h"
#include "engine/handles.h"
#include "engine/runtime.h"
#include "engine/stream.h"

/* Returns ABT_ERR_UNINITIALIZED outside ABT_init ... ABT_finalize. */
#define GOABT_CHECK_INIT()                                                                    \
    do {                                                                                      \
        if (!goabt_initialized()) return ABT_ERR_UNINITIALIZED;                               \
    } while (0)

/* Returns ABT_ERR_UNINITIALIZED in a process forked after goabt started (runtime.h,
 * goabt_forked): for the few entries that neither need ABT_init nor take a handle, whose checks
 * cover every other entry there. */
#define GOABT_CHECK_NOT_FORKED()                                                              \
    do {                                                                                      \
        if (goabt_forked()) return ABT_ERR_UNINITIALIZED;                                     \
    } while (0)

/* Returns err unless cond holds: every other invalid-argument or invalid-handle check. */
#define GOABT_CHECK_TRUE(cond, err)                                                           \
    do {                                                                                      \
        if (!(cond)) return (err);                                                            \
    } while (0)

/* Returns ABT_ERR_INV_ARG unless cond holds (a count, a range, an input pointer). */
#define GOABT_CHECK_ARG(cond) GOABT_CHECK_TRUE(cond, ABT_ERR_INV_ARG)

/* Returns ABT_ERR_INV_ARG for a NULL output pointer. */
#define GOABT_CHECK_OUT(out) GOABT_CHECK_ARG((out) != NULL)

/* Declares `var`, the object of kind `type` behind handle `h` (resolved by `of`), returning
 * `err` if h is not a live object of that kind, then ABT_ERR_INV_ARG if `out` is NULL. */
#define GOABT_RESOLVE(type, var, of, h, err, out)                                             \
    type *var = of(h);                                                                        \
    if (var == NULL) return (err);                                                            \
    GOABT_CHECK_OUT(out)

#define GOABT_RESOLVE_UNIT(var, h, out)                                                       \
    GOABT_RESOLVE(goabt_unit, var, goabt_unit_of, h, ABT_ERR_INV_THREAD, out)
#define GOABT_RESOLVE_UNIT_OR_SCHED(var, h, out)                                              \
    GOABT_RESOLVE(goabt_unit, var, goabt_unit_or_sched_of, h, ABT_ERR_INV_THREAD, out)
#define GOABT_RESOLVE_STREAM(var, h, out)                                                     \
    GOABT_RESOLVE(goabt_stream, var, goabt_stream_of, h, ABT_ERR_INV_XSTREAM, out)
#define GOABT_RESOLVE_POOL(var, h, out)                                                       \
    GOABT_RESOLVE(goabt_pool, var, goabt_pool_of, h, ABT_ERR_INV_POOL, out)

/* The same without an output pointer to check. */
#define GOABT_HANDLE(type, var, of, h, err)                                                   \
    type *var = of(h);                                                                        \
    if (var == NULL) return (err)
#define GOABT_UNIT(var, h) GOABT_HANDLE(goabt_unit, var, goabt_unit_of, h, ABT_ERR_INV_THREAD)
#define GOABT_UNIT_OR_SCHED(var, h)                                                           \
    GOABT_HANDLE(goabt_unit, var, goabt_unit_or_sched_of, h, ABT_ERR_INV_THREAD)
#define GOABT_POOL(var, h) GOABT_HANDLE(goabt_pool, var, goabt_pool_of, h, ABT_ERR_INV_POOL)
#define GOABT_SCHED(var, h) GOABT_HANDLE(goabt_sched, var, goabt_sched_of, h, ABT_ERR_INV_SCHED)
/* A unit named as an ABT_task: refused with ABT_ERR_INV_TASK (ABT_task_*, ABT_info_print_task). */
#define GOABT_TASK(var, h) GOABT_HANDLE(goabt_unit, var, goabt_unit_of, h, ABT_ERR_INV_TASK)
#define GOABT_STREAM(var, h)                                                                  \
    GOABT_HANDLE(goabt_stream, var, goabt_stream_of, h, ABT_ERR_INV_XSTREAM)
#define GOABT_ATTR(var, h)                                                                    \
    GOABT_HANDLE(goabt_attr, var, goabt_attr_of, h, ABT_ERR_INV_THREAD_ATTR)
#define GOABT_KEY(var, h) GOABT_HANDLE(goabt_key, var, goabt_key_of, h, ABT_ERR_INV_KEY)
#define GOABT_POOL_USER_DEF(var, h)                                                           \
    GOABT_HANDLE(goabt_pool_user_def, var, goabt_pool_user_def_of, h, ABT_ERR_INV_POOL_USER_DEF)
#define GOABT_POOL_CONFIG(var, h)                                                             \
    GOABT_HANDLE(struct ABT_pool_config_opaque, var, goabt_pool_config_of, h,                 \
                 ABT_ERR_INV_POOL_CONFIG)
#define GOABT_SCHED_CONFIG(var, h)                                                            \
    GOABT_HANDLE(struct ABT_sched_config_opaque, var, goabt_sched_config_of, h,               \
                 ABT_ERR_INV_SCHED_CONFIG)
/* The same for an optional handle: `var` is NULL when h is `none`, else h's object or err (h
 * is read more than once: no side effects). */
#define GOABT_HANDLE_OR_NONE(type, var, of, h, none, err)                                     \
    type *var = (h) == (none) ? NULL : of(h);                                                 \
    if (var == NULL && (h) != (none)) return (err)
#define GOABT_POOL_OR_NULL(var, h)                                                            \
    GOABT_HANDLE_OR_NONE(goabt_pool, var, goabt_pool_of, h, ABT_POOL_NULL, ABT_ERR_INV_POOL)
#define GOABT_ATTR_OR_NULL(var, h)                                                            \
    GOABT_HANDLE_OR_NONE(goabt_attr, var, goabt_attr_of, h, ABT_THREAD_ATTR_NULL,             \
                         ABT_ERR_INV_THREAD_ATTR)
/* A pool unit (ABT_unit): a user pool's, or a built-in pool's (the work unit itself). */
#define GOABT_POOL_UNIT(var, h)                                                               \
    GOABT_HANDLE(goabt_unit, var, goabt_unit_of_pool_unit, h, ABT_ERR_INV_UNIT)

/* Declares `var`, the synchronization object of C type `type` behind handle `h` (object.h):
 * it must carry `magic`, or be static memory of that kind when `statics` is 1; else returns
 * err. */
#define GOABT_RESOLVE_OBJECT(type, var, h, magic, statics, err)                               \
    type *var = goabt_object_of(h, magic, statics);                                           \
    if (var == NULL) return (err)

/* The caller's stream, for the stream-level ABT_self_* queries: any unit, and a user
 * scheduler's run function (on its stream's own context, no unit current). */
#define GOABT_SELF_STREAM(s)                                                                  \
    GOABT_CHECK_INIT();                                                                       \
    goabt_stream *s = goabt_self_stream();                                                    \
    if (s == NULL) return ABT_ERR_INV_XSTREAM

/* Declares `s` and `u`, the calling stream and unit, returning ABT_ERR_UNINITIALIZED or, from
 * an external thread, ABT_ERR_INV_XSTREAM. */
#define GOABT_SELF(s, u)                                                                      \
    GOABT_CHECK_INIT();                                                                       \
    goabt_stream *s = goabt_self_stream();                                                    \
    if (s == NULL || s->current == NULL) return ABT_ERR_INV_XSTREAM;                          \
    goabt_unit *u = s->current

/* The same for the self calls that read the caller (its handle, id, type, unit ...) or keep its
 * data (keys): from a scheduler's context `u` is the stream's scheduler as a ULT
 * (goabt_stream_sched_self). */
#define GOABT_SELF_OR_SCHED(s, u)                                                             \
    GOABT_SELF_STREAM(s);                                                                     \
    goabt_unit *u = goabt_self_or_sched(s);                                                   \
    if (u == NULL) return ABT_ERR_INV_XSTREAM

/* The int a configuration stores at key, or def (also for a NULL or invalid handle; config.c,
 * over the Go core): the entries that make a scheduler or a pool read theirs with these. */
int goabt_sched_config_int(ABT_sched_config config, int key, int def) GOABT_HIDDEN;
int goabt_pool_config_int(ABT_pool_config config, int key, int def) GOABT_HIDDEN;

#endif /* GOABT_ARGS_H */
