/*
 * opal_object.h: the Open MPI OPAL object system, served by libgoabt.so.
 *
 * Source-compatible with Open MPI's opal/class/opal_object.h: single-inheritance classes
 * (opal_class_t) and reference-counted objects (opal_object_t) whose first member is their
 * parent. Code written for Open MPI's header compiles against this one unchanged.
 *
 * What is inline here and what is in the library:
 *  - OBJ_RETAIN / OBJ_RELEASE change the count inline, with no library call. While
 *    opal_using_threads() is false the change is a plain load/add/store; while it is true it is
 *    an atomic add. Single-threaded programs thus pay no atomic instruction.
 *  - OBJ_NEW / OBJ_CONSTRUCT run the class's constructor array inline. The first use of a class
 *    in an epoch calls opal_class_initialize() in the library, which builds the arrays once,
 *    under a lock, and publishes them.
 *  - Fork: everything here works in any process, a child forked after its parent used goabt
 *    included (abt.h, "Fork": Argobots calls fail there): classes the parent never initialized
 *    initialize there too, without goabt's Go core; opal_class_finalize() there frees the arrays
 *    the child built (those the parent built before the fork stay allocated).
 *  - Immortal objects (goabt's addition): objects made with OPAL_OBJ_STATIC_INIT, or marked with
 *    OBJ_SET_IMMORTAL, are never freed. While threads are on their RETAIN/RELEASE change nothing
 *    and write nothing, so they cost no atomic and no cache-line transfer; while threads are off
 *    their count moves as a plain add (cheaper than a test) but never frees them.
 *  - Leak report (goabt's): with GOABT_CHECK_LEAKS=1 in the environment, opal_class_finalize()
 *    lists the objects still alive, per class (see there). Making and destroying an object then
 *    also calls the library; with the variable unset it costs a load and a branch not taken.
 *  - Debug mode: define OPAL_ENABLE_DEBUG to 1 before including this header. Objects then carry
 *    a magic id and the file:line that constructed them, and misuse (RETAIN, RELEASE or DESTRUCT
 *    of an object already destroyed or never constructed, a count taken below zero) prints one
 *    line naming the class, the operation and the construction site, then aborts.
 *  - Race check (debug mode, goabt's): while threads are off, RETAIN/RELEASE publish the new
 *    count with a compare-and-swap instead of a plain store. It fails exactly when another thread
 *    changed the count since it was read, which a plain store would have undone: the update is
 *    then applied atomically (the count stays exact) and opal_obj_report_race prints one line per
 *    object (the class, the RETAIN/RELEASE that saw it, the other thread's last update where
 *    known, and that threads run while opal_using_threads() is false), then goes on, or aborts
 *    with GOABT_OPAL_RACE_ABORT=yes in the environment. Threads on: atomic adds, no check. Builds
 *    without debug keep their plain update.
 */
#ifndef OPAL_OBJECT_H
#define OPAL_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(OPAL_ENABLE_DEBUG) && OPAL_ENABLE_DEBUG
#include <pthread.h> /* pthread_self: the race check records who updated a count last */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef OPAL_ENABLE_DEBUG
#define OPAL_ENABLE_DEBUG 0
#endif
#ifndef OPAL_DECLSPEC
#define OPAL_DECLSPEC
#endif

/* ---- Thread mode ------------------------------------------------------------------------- */

/* True while more than one thread may use objects at once: RETAIN/RELEASE are then atomic.
 * Read inline on every RETAIN/RELEASE; change it only through opal_set_using_threads(). */
OPAL_DECLSPEC extern bool opal_uses_threads;

/* Whether RETAIN/RELEASE are atomic now. False until opal_set_using_threads(true). */
static inline bool opal_using_threads(void) { return opal_uses_threads; }

/* Turns atomic reference counting on or off and returns the new setting. Switch before other
 * threads touch shared objects: a count updated by two threads while it is off can lose updates
 * (debug builds catch that: "Race check", at the top of this file). */
OPAL_DECLSPEC bool opal_set_using_threads(bool have);

/* goabt's: how many times a debug build's race check ("Race check", above) saw another thread
 * change a count during an update while threads were off, in this process; 0 in programs built
 * without debug. Every one is counted, reported or not. */
OPAL_DECLSPEC size_t opal_obj_races_detected(void);

/* ---- Classes ----------------------------------------------------------------------------- */

typedef struct opal_object_t opal_object_t;
typedef struct opal_class_t opal_class_t;
typedef void (*opal_construct_t)(opal_object_t *);
typedef void (*opal_destruct_t)(opal_object_t *);

/* A class: its name, its parent, its own constructor and destructor (either may be NULL), and,
 * once initialized, the flattened arrays that OBJ_NEW and OBJ_RELEASE walk. Same layout as Open
 * MPI's (64 bytes). */
struct opal_class_t {
    const char *cls_name;                  /* the type's name, as written in OBJ_CLASS_INSTANCE */
    opal_class_t *cls_parent;              /* NULL only for opal_object_t */
    opal_construct_t cls_construct;        /* this class's own constructor, or NULL */
    opal_destruct_t cls_destruct;          /* this class's own destructor, or NULL */
    int cls_initialized;                   /* epoch of the last initialization */
    int cls_depth;                         /* classes from here up to opal_object_t, inclusive */
    opal_construct_t *cls_construct_array; /* base class first, NULL-terminated */
    opal_destruct_t *cls_destruct_array;   /* most derived first, NULL-terminated */
    size_t cls_sizeof;                     /* what OBJ_NEW allocates */
};

/* Classes initialized in an older epoch initialize again on their next use. Starts at 1;
 * opal_class_finalize() moves it on. */
OPAL_DECLSPEC extern int opal_class_init_epoch;

/* The root class, already initialized, with no constructor or destructor. */
OPAL_DECLSPEC extern opal_class_t opal_object_t_class;

/* Builds cls's constructor and destructor arrays for the current epoch if that is not done yet.
 * Thread safe; OBJ_NEW and OBJ_CONSTRUCT call it on a class's first use. */
OPAL_DECLSPEC void opal_class_initialize(opal_class_t *cls);

/* Frees every array opal_class_initialize built and starts a new epoch, so that each class
 * initializes again on its next use. No object may be in use across it. Returns 0.
 *
 * goabt's leak report: with GOABT_CHECK_LEAKS=1 in the environment (read when the library
 * first needs its Go core, at the first class initialization or ABT_init), it first lists on
 * stderr the objects still alive, per class: one line per class with how many, then one line
 * per object (at most 64 per class) saying whether OBJ_NEW or OBJ_CONSTRUCT made it, and in
 * debug mode the file:line that did. An object is alive from OBJ_NEW until its last
 * OBJ_RELEASE, or from OBJ_CONSTRUCT until OBJ_DESTRUCT (or a last OBJ_RELEASE); immortal
 * objects (OPAL_OBJ_STATIC_INIT, OBJ_SET_IMMORTAL) are never listed. Nothing is printed when
 * none is alive. The exit status is unchanged, unless GOABT_CHECK_LEAKS=fatal: then a process
 * whose report listed something exits with status 23 (LeakSanitizer's) when it exits, its
 * atexit handlers run first; ABT_finalize's report counts the same way (abt.h). */
OPAL_DECLSPEC int opal_class_finalize(void);

/* The class of type NAME: &NAME_class. */
#define OBJ_CLASS(NAME) (&(NAME##_class))

/* Declares the class of type NAME, for a header. */
#define OBJ_CLASS_DECLARATION(NAME) OPAL_DECLSPEC extern opal_class_t NAME##_class

/* Defines the class of type NAME, whose first member is a PARENT. CONSTRUCTOR and DESTRUCTOR take
 * a NAME * and may be NULL. */
#define OBJ_CLASS_INSTANCE(NAME, PARENT, CONSTRUCTOR, DESTRUCTOR)                             \
    opal_class_t NAME##_class = {#NAME,                                                       \
                                 OBJ_CLASS(PARENT),                                           \
                                 (opal_construct_t)(CONSTRUCTOR),                             \
                                 (opal_destruct_t)(DESTRUCTOR),                               \
                                 0,                                                           \
                                 0,                                                           \
                                 NULL,                                                        \
                                 NULL,                                                        \
                                 sizeof(NAME)}

/* ---- Objects ----------------------------------------------------------------------------- */

/* goabt's leak check (GOABT_CHECK_LEAKS, see opal_class_finalize): nonzero while the library
 * records which objects are alive. Read inline wherever an object is made or destroyed: with
 * the check off that costs a load and a branch not taken, and the two calls below are never
 * made. opal_obj_leak_note records object (of class cls, made in place by OBJ_CONSTRUCT when
 * in_place, at file:line in debug builds, else NULL and 0); opal_obj_leak_forget drops it. */
OPAL_DECLSPEC extern int opal_obj_leak_check;
OPAL_DECLSPEC void opal_obj_leak_note(opal_object_t *object, opal_class_t *cls, const char *file,
                                      int line, int in_place);
OPAL_DECLSPEC void opal_obj_leak_forget(opal_object_t *object);

/* obj_flags bits. OPAL_OBJ_FLAG_IMMORTAL: never freed, and with threads on RETAIN/RELEASE write
 * nothing (see opal_obj_update_count). In debug builds
 * the high 16 bits record how an object died, so that a later misuse can say so. */
#define OPAL_OBJ_FLAG_IMMORTAL 0x1u
#define OPAL_OBJ_STATE_MASK 0xffff0000u
#define OPAL_OBJ_STATE_DESTRUCTED 0xdead0000u /* OBJ_DESTRUCT ran */
#define OPAL_OBJ_STATE_RELEASED 0xdeaf0000u   /* the last OBJ_RELEASE ran */

/* The magic id debug builds store in every live object. */
#define OPAL_OBJ_MAGIC_ID ((0xdeafbeedULL << 32) + 0xdeafbeedULL)

/* The base of every object. Without debug: 16 bytes, class at 0, count at 8, as Open MPI.
 * With debug: 40 bytes, magic 0, class 8, count 16, file 24, line 32, as Open MPI. obj_flags
 * sits in what is tail padding in Open MPI's layout, so sizes and offsets are unchanged. */
struct opal_object_t {
#if OPAL_ENABLE_DEBUG
    uint64_t obj_magic_id;             /* OPAL_OBJ_MAGIC_ID while the object is alive */
#endif
    opal_class_t *obj_class;           /* the most derived class */
    volatile int32_t obj_reference_count;
#if OPAL_ENABLE_DEBUG
    const char *cls_init_file_name;    /* where the object was constructed */
    int cls_init_lineno;
#endif
    uint32_t obj_flags;                /* OPAL_OBJ_FLAG_*, goabt's */
};

/* An initializer for a statically allocated object of class BASE_CLASS: count 1, immortal. The
 * class is not initialized and no constructor runs. */
#if OPAL_ENABLE_DEBUG
#define OPAL_OBJ_STATIC_INIT(BASE_CLASS)                                                      \
    {                                                                                         \
        .obj_magic_id = OPAL_OBJ_MAGIC_ID, .obj_class = OBJ_CLASS(BASE_CLASS),                \
        .obj_reference_count = 1, .cls_init_file_name = __FILE__,                             \
        .cls_init_lineno = __LINE__, .obj_flags = OPAL_OBJ_FLAG_IMMORTAL                      \
    }
#else
#define OPAL_OBJ_STATIC_INIT(BASE_CLASS)                                                      \
    {                                                                                         \
        .obj_class = OBJ_CLASS(BASE_CLASS), .obj_reference_count = 1,                         \
        .obj_flags = OPAL_OBJ_FLAG_IMMORTAL                                                   \
    }
#endif

/* Marks an object immortal: from now on it is never freed, and with threads on RETAIN/RELEASE
 * leave it alone (nor does the leak report list it). Mark it before other threads can see it. */
static inline uint32_t opal_obj_set_immortal(opal_object_t *object)
{
    if (__builtin_expect(opal_obj_leak_check != 0, 0)) {
        opal_obj_leak_forget(object);
    }
    return object->obj_flags |= OPAL_OBJ_FLAG_IMMORTAL;
}
#define OBJ_SET_IMMORTAL(object) opal_obj_set_immortal((opal_object_t *)(object))

/* Whether an object is immortal. */
#define OBJ_IS_IMMORTAL(object)                                                               \
    ((((opal_object_t *)(object))->obj_flags & OPAL_OBJ_FLAG_IMMORTAL) != 0)

/* Runs the constructors of object's class on it, base class first. */
static inline void opal_obj_run_constructors(opal_object_t *object)
{
    opal_construct_t *ctor = object->obj_class->cls_construct_array;
    while (NULL != *ctor) {
        (*ctor)(object);
        ctor++;
    }
}

/* Runs the destructors of object's class on it, most derived first. */
static inline void opal_obj_run_destructors(opal_object_t *object)
{
    opal_destruct_t *dtor = object->obj_class->cls_destruct_array;
    while (NULL != *dtor) {
        (*dtor)(object);
        dtor++;
    }
}

/* Initializes cls if this epoch has not. The acquire load pairs with the library's publication,
 * so the arrays are complete when the epoch matches. */
static inline void opal_class_ensure_initialized(opal_class_t *cls)
{
    if (__atomic_load_n(&cls->cls_initialized, __ATOMIC_ACQUIRE) != opal_class_init_epoch) {
        opal_class_initialize(cls);
    }
}

/* Adds inc to object's count and returns the new count: atomic while threads are on, a plain
 * update otherwise. While threads are on an immortal object is left alone (no atomic, no write:
 * its cache line stays shared) and reports its count unchanged. While they are off its count
 * moves like any other, because a plain add costs less than testing the flag; only the final
 * release looks at the flag, and never frees it. Debug builds leave immortal objects alone in
 * both modes (opal_obj_update_debug). */
static inline int opal_obj_update_count(opal_object_t *object, int inc)
{
    if (opal_uses_threads) {
        if (__builtin_expect((object->obj_flags & OPAL_OBJ_FLAG_IMMORTAL) != 0, 0)) {
            return object->obj_reference_count;
        }
        return __atomic_add_fetch(&object->obj_reference_count, inc, __ATOMIC_ACQ_REL);
    }
    int32_t count = object->obj_reference_count + inc;
    object->obj_reference_count = count;
    return count;
}

/* Count 1 and no flags. Without debug the two are neighbours and go in one 8-byte store: two
 * 4-byte stores measured about 10% slower on OBJ_CONSTRUCT + OBJ_DESTRUCT (make bench). */
static inline void opal_obj_set_fresh(opal_object_t *object)
{
#if OPAL_ENABLE_DEBUG || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    object->obj_reference_count = 1;
    object->obj_flags = 0;
#else
    const uint64_t count_and_flags = 1; /* count 1 in the low half, flags 0 in the high half */
    __builtin_memcpy((char *)object + offsetof(opal_object_t, obj_reference_count),
                     &count_and_flags, sizeof count_and_flags);
#endif
}

/* Sets up an object on memory the caller owns, as class cls, with count 1; file:line (debug
 * builds) made it. */
static inline void opal_obj_construct_at(opal_object_t *object, opal_class_t *cls,
                                         const char *file, int line)
{
    opal_class_ensure_initialized(cls);
    object->obj_class = cls;
    opal_obj_set_fresh(object);
    opal_obj_run_constructors(object);
    if (__builtin_expect(opal_obj_leak_check != 0, 0)) {
        opal_obj_leak_note(object, cls, file, line, 1);
    }
}

/* Sets up an object on memory the caller owns, as class cls, with count 1. */
static inline void opal_obj_construct(opal_object_t *object, opal_class_t *cls)
{
    opal_obj_construct_at(object, cls, NULL, 0);
}

/* Runs the destructors of an object the caller owns (OBJ_DESTRUCT), which is no longer alive. */
static inline void opal_obj_destruct(opal_object_t *object)
{
    if (__builtin_expect(opal_obj_leak_check != 0, 0)) {
        opal_obj_leak_forget(object);
    }
    opal_obj_run_destructors(object);
}

/* Allocates cls->cls_sizeof bytes and constructs an object of class cls there, remembering in
 * debug builds that file:line made it. NULL when out of memory. */
static inline opal_object_t *opal_obj_new_at(opal_class_t *cls, const char *file, int line)
{
    /* The library's opal_object_t_class records the non-debug size; a debug object is larger. */
    size_t size = cls->cls_sizeof < sizeof(opal_object_t) ? sizeof(opal_object_t) : cls->cls_sizeof;
    opal_object_t *object = (opal_object_t *)malloc(size);
    opal_class_ensure_initialized(cls);
    if (NULL == object) {
        return NULL;
    }
    object->obj_class = cls;
    opal_obj_set_fresh(object);
#if OPAL_ENABLE_DEBUG
    object->obj_magic_id = OPAL_OBJ_MAGIC_ID;
    object->cls_init_file_name = file;
    object->cls_init_lineno = line;
#endif
    opal_obj_run_constructors(object);
    if (__builtin_expect(opal_obj_leak_check != 0, 0)) {
        opal_obj_leak_note(object, cls, file, line, 0);
    }
    return object;
}

/* Allocates and constructs an object of class cls (what OBJ_NEW does). */
static inline opal_object_t *opal_obj_new(opal_class_t *cls) { return opal_obj_new_at(cls, NULL, 0); }

#if !OPAL_ENABLE_DEBUG

/* Adds inc to object's reference count and returns the new count. */
static inline int opal_obj_update(opal_object_t *object, int inc)
{
    return opal_obj_update_count(object, inc);
}

/* GCC cannot see that an object reaching the free below is never static (static objects are
 * immortal), and would warn on OBJ_RELEASE(&static_object). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif
/* Drops one reference; at zero runs the destructors and frees the object. Returns whether it did.
 * The last release is marked unlikely: the compiler then keeps both modes' "still referenced"
 * path straight (without the mark it shared one test between them, reached by a jump), which
 * make bench's OPAL rows show (goabt's docs/performance.md, "OPAL release"). */
static inline bool opal_obj_release(opal_object_t *object)
{
    if (__builtin_expect(0 == opal_obj_update_count(object, -1), 0) && !OBJ_IS_IMMORTAL(object)) {
        if (__builtin_expect(opal_obj_leak_check != 0, 0)) {
            opal_obj_leak_forget(object);
        }
        opal_obj_run_destructors(object);
        free(object);
        return true;
    }
    return false;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Allocates and constructs an object of class type (type *). */
#define OBJ_NEW(type) ((type *)opal_obj_new(OBJ_CLASS(type)))

/* Adds a reference. */
#define OBJ_RETAIN(object) ((void)opal_obj_update_count((opal_object_t *)(object), 1))

/* Drops a reference; at zero destroys and frees the object and sets the variable to NULL. */
#define OBJ_RELEASE(object)                                                                   \
    do {                                                                                      \
        if (opal_obj_release((opal_object_t *)(object))) {                                    \
            (object) = NULL;                                                                  \
        }                                                                                     \
    } while (0)

/* OBJ_RELEASE without touching the variable. */
#define OBJ_RELEASE_NO_NULLIFY(object) ((void)opal_obj_release((opal_object_t *)(object)))

/* Constructs an object of class type on memory the caller owns (count 1). */
#define OBJ_CONSTRUCT(object, type) OBJ_CONSTRUCT_INTERNAL((object), OBJ_CLASS(type))
#define OBJ_CONSTRUCT_INTERNAL(object, cls) opal_obj_construct((opal_object_t *)(object), (cls))

/* Runs the destructors of an object the caller owns, whatever its count; changes neither the
 * count nor the class and frees nothing. As in Open MPI, the object must have been constructed
 * in this class epoch (debug mode checks it; this build trusts it, to cost no more than Open
 * MPI's). */
#define OBJ_DESTRUCT(object) opal_obj_destruct((opal_object_t *)(object))

#else /* OPAL_ENABLE_DEBUG */

/* What went wrong, for opal_obj_report_misuse. */
enum opal_obj_misuse {
    OPAL_OBJ_MISUSE_NOT_ALIVE = 1, /* no magic id: destroyed, released, or never constructed */
    OPAL_OBJ_MISUSE_NEGATIVE = 2   /* the count went below zero */
};

/* Prints one line saying what went wrong with object, where (file:line of the operation op) and
 * where the object was constructed, then aborts. In the library. */
OPAL_DECLSPEC void opal_obj_report_misuse(opal_object_t *object, int misuse, const char *op,
                                          const char *file, int line) __attribute__((noreturn));

/* Holds a released object's memory back for a while before freeing it, so that a second release
 * is reported instead of reading reused memory. In the library. */
OPAL_DECLSPEC void opal_obj_quarantine(opal_object_t *object);

static inline void opal_obj_check_alive(opal_object_t *object, const char *op, const char *file,
                                        int line)
{
    if (NULL == object || OPAL_OBJ_MAGIC_ID != object->obj_magic_id || NULL == object->obj_class) {
        opal_obj_report_misuse(object, OPAL_OBJ_MISUSE_NOT_ALIVE, op, file, line);
    }
}

/* The race check's record of each object's last update while threads are off, in a slot picked
 * by the object's address: which object, where, by which thread (pthread_self). Written with
 * relaxed stores, the object last, and read only by a race report, which trusts a slot that
 * still names the object and thread it read first: a diagnostic, "where known". */
struct opal_obj_update_site {
    opal_object_t *object;
    const char *file;
    int line;
    uintptr_t thread;
};
#define OPAL_OBJ_UPDATE_SITES 1024
OPAL_DECLSPEC extern struct opal_obj_update_site opal_obj_update_sites[OPAL_OBJ_UPDATE_SITES];

static inline struct opal_obj_update_site *opal_obj_update_site_of(const opal_object_t *object)
{
    /* Fibonacci hashing of the address without its alignment bits: neighbours spread. */
    uint32_t key = (uint32_t)((uintptr_t)object >> 4) * 2654435761u;
    return &opal_obj_update_sites[key >> 22];
}

static inline void opal_obj_note_update(opal_object_t *object, const char *file, int line)
{
    struct opal_obj_update_site *site = opal_obj_update_site_of(object);
    __atomic_store_n(&site->file, file, __ATOMIC_RELAXED);
    __atomic_store_n(&site->line, line, __ATOMIC_RELAXED);
    __atomic_store_n(&site->thread, (uintptr_t)pthread_self(), __ATOMIC_RELAXED);
    __atomic_store_n(&site->object, object, __ATOMIC_RELAXED);
}

/* Another thread changed object's count while op at file:line updated it with threads off:
 * adds inc atomically and returns the new count, after reporting it (once per object) and
 * aborting if GOABT_OPAL_RACE_ABORT says so. In the library. */
OPAL_DECLSPEC int opal_obj_report_race(opal_object_t *object, int inc, const char *op,
                                       const char *file, int line)
    __attribute__((noinline, cold));

/* Nonzero while some object has been reported: OBJ_DESTRUCT then calls opal_obj_race_forget,
 * so that a new object at its address is reported again (a last release does it in
 * opal_obj_quarantine). In the library. */
OPAL_DECLSPEC extern int opal_obj_races_reported;
OPAL_DECLSPEC void opal_obj_race_forget(opal_object_t *object);

static inline int opal_obj_update_debug(opal_object_t *object, int inc, const char *op,
                                        const char *file, int line)
{
    opal_obj_check_alive(object, op, file, line);
    if (OBJ_IS_IMMORTAL(object)) return object->obj_reference_count;
    int count;
    if (opal_uses_threads) {
        count = opal_obj_update_count(object, inc); /* atomic, as without debug */
    } else {
        /* The race check: the plain update, published only if nobody changed the count since. */
        int32_t old = object->obj_reference_count;
        count = old + inc;
        if (__builtin_expect(!__atomic_compare_exchange_n(&object->obj_reference_count, &old,
                                                          count, false, __ATOMIC_RELAXED,
                                                          __ATOMIC_RELAXED),
                             0)) {
            count = opal_obj_report_race(object, inc, op, file, line);
        }
        opal_obj_note_update(object, file, line);
    }
    if (count < 0) {
        opal_obj_report_misuse(object, OPAL_OBJ_MISUSE_NEGATIVE, op, file, line);
    }
    return count;
}

/* Adds inc to object's reference count and returns the new count (checked). */
#define opal_obj_update(object, inc)                                                          \
    opal_obj_update_debug((object), (inc), "opal_obj_update", __FILE__, __LINE__)

static inline opal_object_t *opal_obj_new_debug(opal_class_t *cls, const char *file, int line)
{
    return opal_obj_new_at(cls, file, line);
}

static inline bool opal_obj_release_debug(opal_object_t *object, const char *file, int line)
{
    if (0 == opal_obj_update_debug(object, -1, "OBJ_RELEASE", file, line)) {
        object->obj_magic_id = 0;
        object->obj_flags = (object->obj_flags & ~OPAL_OBJ_STATE_MASK) | OPAL_OBJ_STATE_RELEASED;
        if (__builtin_expect(opal_obj_leak_check != 0, 0)) {
            opal_obj_leak_forget(object);
        }
        opal_obj_run_destructors(object);
        opal_obj_quarantine(object);
        return true;
    }
    return false;
}

static inline void opal_obj_construct_debug(opal_object_t *object, opal_class_t *cls,
                                            const char *file, int line)
{
    object->obj_magic_id = OPAL_OBJ_MAGIC_ID;
    object->cls_init_file_name = file;
    object->cls_init_lineno = line;
    opal_obj_construct_at(object, cls, file, line);
}

static inline void opal_obj_destruct_debug(opal_object_t *object, const char *file, int line)
{
    opal_obj_check_alive(object, "OBJ_DESTRUCT", file, line);
    if (__builtin_expect(opal_obj_races_reported != 0, 0)) {
        opal_obj_race_forget(object);
    }
    object->obj_magic_id = 0;
    object->obj_flags = (object->obj_flags & ~OPAL_OBJ_STATE_MASK) | OPAL_OBJ_STATE_DESTRUCTED;
    opal_class_ensure_initialized(object->obj_class);
    opal_obj_destruct(object);
}

#define OBJ_NEW(type) ((type *)opal_obj_new_debug(OBJ_CLASS(type), __FILE__, __LINE__))
#define OBJ_RETAIN(object)                                                                    \
    ((void)opal_obj_update_debug((opal_object_t *)(object), 1, "OBJ_RETAIN", __FILE__, __LINE__))
#define OBJ_RELEASE(object)                                                                   \
    do {                                                                                      \
        if (opal_obj_release_debug((opal_object_t *)(object), __FILE__, __LINE__)) {          \
            (object) = NULL;                                                                  \
        }                                                                                     \
    } while (0)
#define OBJ_RELEASE_NO_NULLIFY(object)                                                        \
    ((void)opal_obj_release_debug((opal_object_t *)(object), __FILE__, __LINE__))
#define OBJ_CONSTRUCT(object, type) OBJ_CONSTRUCT_INTERNAL((object), OBJ_CLASS(type))
#define OBJ_CONSTRUCT_INTERNAL(object, cls)                                                   \
    opal_obj_construct_debug((opal_object_t *)(object), (cls), __FILE__, __LINE__)
#define OBJ_DESTRUCT(object) opal_obj_destruct_debug((opal_object_t *)(object), __FILE__, __LINE__)

#endif /* OPAL_ENABLE_DEBUG */

#ifdef __cplusplus
}
#endif

#endif /* OPAL_OBJECT_H */
