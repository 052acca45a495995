//go:build goabt_c_engine
/* The C half of the OPAL object system: the variables the header's inline code reads, the entry
 * points that forward to the Go core (capi/opal.go -> core/opal), and the debug-mode misuse
 * report. The report is C because it must work from any stack and print even when the object
 * it describes is garbage. */
#define OPAL_ENABLE_DEBUG 1 /* the report reads the debug layout */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "gocalls.h"
#include "engine/leaks.h"
#include "engine/runtime.h"
#include "opal_object.h"

_Static_assert(sizeof(opal_class_t) == 64, "opal_class_t layout");
_Static_assert(offsetof(opal_class_t, cls_initialized) == 32, "opal_class_t layout");
_Static_assert(offsetof(opal_class_t, cls_sizeof) == 56, "opal_class_t layout");
_Static_assert(sizeof(opal_object_t) == 40, "debug opal_object_t layout");
_Static_assert(offsetof(opal_object_t, obj_reference_count) == 16, "debug opal_object_t layout");

bool opal_uses_threads = false;
int opal_class_init_epoch = 1;

/* The root class's arrays hold only their terminators, so that OBJ_NEW(opal_object_t) works
 * before the first opal_class_finalize(). */
static opal_construct_t root_no_constructors[1] = {NULL};
static opal_destruct_t root_no_destructors[1] = {NULL};

opal_class_t opal_object_t_class = {
    "opal_object_t", NULL, NULL, NULL, 1, 1, root_no_constructors, root_no_destructors,
    16 /* sizeof(opal_object_t) without debug; OBJ_NEW(opal_object_t) in a debug build gets 40 */,
};

/* ---- Classes without the Go core ------------------------------------------------------------
 * Where the Go core cannot run (a process forked after it started, golib.c; one where it could
 * not be loaded), classes are initialized here, as core/opal does it: Open MPI's object system
 * has no such limit, and a child forked by a program that used goabt may make objects of
 * classes its parent never used. Built arrays are malloc'd and listed here; opal_class_finalize
 * frees them and moves the epoch on. Arrays the Go core built before a fork stay allocated in
 * the child (their list is the Go core's, which cannot run there). */
static int c_classes_lock; /* spinlock: class initialization is rare, and a fork frees it */
static void **c_arrays;    /* one allocation per class initialized in this epoch */
static size_t c_num_arrays, c_cap_arrays;

static void c_classes_out_of_memory(const opal_class_t *cls)
{
    fprintf(stderr, "goabt: out of memory initializing OPAL class %s\n",
            cls->cls_name != NULL ? cls->cls_name : "?");
    abort(); /* as core/opal: OBJ_NEW has no way to say it */
}

static void class_initialize_c(opal_class_t *cls)
{
    goabt_spin_lock(&c_classes_lock);
    int epoch = __atomic_load_n(&opal_class_init_epoch, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&cls->cls_initialized, __ATOMIC_ACQUIRE) == epoch) {
        goabt_spin_unlock(&c_classes_lock);
        return;
    }
    int depth = 0, nc = 0, nd = 0;
    for (opal_class_t *k = cls; k != NULL; k = k->cls_parent) {
        depth++;
        nc += k->cls_construct != NULL;
        nd += k->cls_destruct != NULL;
    }
    /* One allocation: constructors base class first, NULL, destructors most derived first,
     * NULL. */
    opal_construct_t *cons =
        malloc((size_t)(nc + 1) * sizeof *cons + (size_t)(nd + 1) * sizeof(opal_destruct_t));
    if (cons == NULL) c_classes_out_of_memory(cls);
    opal_destruct_t *des = (opal_destruct_t *)(cons + nc + 1);
    int i = nc, j = 0;
    for (opal_class_t *k = cls; k != NULL; k = k->cls_parent) {
        if (k->cls_construct != NULL) cons[--i] = k->cls_construct;
        if (k->cls_destruct != NULL) des[j++] = k->cls_destruct;
    }
    cons[nc] = NULL;
    des[nd] = NULL;
    if (c_num_arrays == c_cap_arrays) {
        size_t cap = c_cap_arrays ? 2 * c_cap_arrays : 16;
        void **grown = realloc(c_arrays, cap * sizeof *grown);
        if (grown == NULL) c_classes_out_of_memory(cls);
        c_arrays = grown;
        c_cap_arrays = cap;
    }
    c_arrays[c_num_arrays++] = cons;
    cls->cls_depth = depth;
    cls->cls_construct_array = cons;
    cls->cls_destruct_array = des;
    __atomic_store_n(&cls->cls_initialized, epoch, __ATOMIC_RELEASE); /* publishes the arrays */
    goabt_spin_unlock(&c_classes_lock);
}

static void class_finalize_c(void)
{
    goabt_spin_lock(&c_classes_lock);
    int epoch = __atomic_load_n(&opal_class_init_epoch, __ATOMIC_RELAXED);
    __atomic_store_n(&opal_class_init_epoch, epoch == INT_MAX ? 1 : epoch + 1, __ATOMIC_RELEASE);
    for (size_t i = 0; i < c_num_arrays; i++) free(c_arrays[i]);
    c_num_arrays = 0;
    goabt_spin_unlock(&c_classes_lock);
}

/* Whether the Go core serves OPAL here; not in a forked child, where OPAL works without it
 * and nothing is said (goabt_go_available would say that goabt cannot run). */
static int go_core(void) { return !goabt_forked() && goabt_go_available(); }

/* Each entry point reaches Go (capi/opal.go) through the gate: objects are also made inside
 * ULTs, whose stacks Go must not run on (docs/design.md rule 3). Without the Go core the C above
 * does the work. */
static void class_initialize_gated(void *cls)
{
    if (go_core()) {
        goabt_go.opal_class_initialize(cls);
    } else {
        class_initialize_c(cls);
    }
}
static void class_finalize_gated(void *unused)
{
    (void)unused;
    if (go_core()) {
        goabt_go.opal_class_finalize();
    } else {
        class_finalize_c();
    }
}
static void set_using_threads_gated(void *have)
{
    if (go_core()) {
        *(bool *)have = goabt_go.opal_set_using_threads(*(bool *)have);
    } else {
        opal_uses_threads = *(bool *)have; /* the flag the header reads is ours anyway */
    }
}

void opal_class_initialize(opal_class_t *cls)
{
    goabt_gate(class_initialize_gated, cls);
}

static void leaks_report(void);

int opal_class_finalize(void)
{
    leaks_report(); /* GOABT_CHECK_LEAKS: before the classes' arrays go */
    goabt_gate(class_finalize_gated, NULL);
    return 0;
}

bool opal_set_using_threads(bool have)
{
    goabt_gate(set_using_threads_gated, &have);
    return have;
}

/* The debug-mode quarantine: the last QUARANTINE_SIZE objects released wait here before their
 * memory goes back to malloc, so that a second release of one still finds its class, its death
 * record and where it was constructed. C, not Go: it runs on every final release in debug
 * builds, from any stack, and in forked children (tests check misuse reports in a child
 * process), where the Go runtime cannot run. */
#define QUARANTINE_SIZE 1024
static opal_object_t *quarantine[QUARANTINE_SIZE];
static unsigned quarantine_next;
static int quarantine_lock;

void opal_obj_quarantine(opal_object_t *object)
{
    if (object == NULL) return;
    if (__atomic_load_n(&opal_obj_races_reported, __ATOMIC_RELAXED) != 0) {
        opal_obj_race_forget(object);
    }
    while (__atomic_exchange_n(&quarantine_lock, 1, __ATOMIC_ACQUIRE)) {
    }
    opal_object_t *oldest = quarantine[quarantine_next];
    quarantine[quarantine_next] = object;
    quarantine_next = (quarantine_next + 1) % QUARANTINE_SIZE;
    __atomic_store_n(&quarantine_lock, 0, __ATOMIC_RELEASE);
    free(oldest);
}

static const char *class_name(const opal_object_t *object)
{
    if (NULL == object->obj_class || NULL == object->obj_class->cls_name) {
        return "(unknown class)";
    }
    return object->obj_class->cls_name;
}

void opal_obj_report_misuse(opal_object_t *object, int misuse, const char *op, const char *file,
                            int line)
{
    const char *site = object && object->cls_init_file_name ? object->cls_init_file_name : "?";
    int site_line = object ? object->cls_init_lineno : 0;
    uint32_t state = object ? object->obj_flags & OPAL_OBJ_STATE_MASK : 0;

    if (NULL == object) {
        fprintf(stderr, "opal_object: %s at %s:%d: NULL object\n", op, file, line);
    } else if (OPAL_OBJ_MISUSE_NEGATIVE == misuse) {
        fprintf(stderr,
                "opal_object: %s at %s:%d: reference count of object %p of class %s went below "
                "zero (%d); object constructed at %s:%d\n",
                op, file, line, (void *)object, class_name(object),
                (int)object->obj_reference_count, site, site_line);
    } else if (OPAL_OBJ_STATE_RELEASED == state) {
        fprintf(stderr,
                "opal_object: %s at %s:%d: object %p of class %s was already released and "
                "destroyed; object constructed at %s:%d\n",
                op, file, line, (void *)object, class_name(object), site, site_line);
    } else if (OPAL_OBJ_STATE_DESTRUCTED == state) {
        fprintf(stderr,
                "opal_object: %s at %s:%d: object %p of class %s was already destroyed by "
                "OBJ_DESTRUCT; object constructed at %s:%d\n",
                op, file, line, (void *)object, class_name(object), site, site_line);
    } else {
        /* No magic and no death record: the class pointer cannot be trusted, so it is not read. */
        fprintf(stderr,
                "opal_object: %s at %s:%d: %p is not a constructed object (no magic id): it was "
                "never constructed, or its memory was overwritten\n",
                op, file, line, (void *)object);
    }
    fflush(stderr);
    abort();
}

/* ---- The race check -------------------------------------------------------------------------
 * The header's debug RETAIN/RELEASE call opal_obj_report_race when, threads off, another thread
 * changed a count under them (opal_object.h, "Race check"). Each object is reported once: its
 * address stays in `reported` until it is released or destructed. C, as the misuse report: it
 * runs from any stack, and in forked children. */
struct opal_obj_update_site opal_obj_update_sites[OPAL_OBJ_UPDATE_SITES];
int opal_obj_races_reported; /* entries in reported */
int goabt_opal_race_abort;   /* gocalls.h */
static size_t races_detected;
static int races_lock; /* spinlock: held for a look through a few addresses; a fork frees it */
static opal_object_t **reported;
static size_t reported_cap;

size_t opal_obj_races_detected(void) { return __atomic_load_n(&races_detected, __ATOMIC_RELAXED); }

/* Records object as reported; false if it was already. */
static bool race_first_report(opal_object_t *object)
{
    bool first = true;
    goabt_spin_lock(&races_lock);
    size_t n = (size_t)opal_obj_races_reported;
    for (size_t i = 0; i < n && first; i++) first = reported[i] != object;
    if (first && n == reported_cap) {
        size_t cap = reported_cap ? 2 * reported_cap : 16;
        opal_object_t **grown = realloc(reported, cap * sizeof *grown);
        if (grown != NULL) {
            reported = grown;
            reported_cap = cap;
        }
    }
    if (first && n < reported_cap) { /* out of memory: reported again next time, not lost */
        reported[n] = object;
        __atomic_store_n(&opal_obj_races_reported, (int)n + 1, __ATOMIC_RELAXED);
    }
    goabt_spin_unlock(&races_lock);
    return first;
}

void opal_obj_race_forget(opal_object_t *object)
{
    goabt_spin_lock(&races_lock);
    size_t n = (size_t)opal_obj_races_reported;
    for (size_t i = 0; i < n; i++) {
        if (reported[i] == object) {
            reported[i] = reported[n - 1];
            __atomic_store_n(&opal_obj_races_reported, (int)n - 1, __ATOMIC_RELAXED);
            break;
        }
    }
    goabt_spin_unlock(&races_lock);
}

int opal_obj_report_race(opal_object_t *object, int inc, const char *op, const char *file,
                         int line)
{
    /* First the update the caller could not publish: the count stays exact. */
    int count = __atomic_add_fetch(&object->obj_reference_count, inc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&races_detected, 1, __ATOMIC_RELAXED);
    if (!race_first_report(object)) return count;

    /* The other thread's last update, if the slot still names this object and another thread
     * after its fields were read (the caller has not written its own yet). */
    char other[256] = "";
    struct opal_obj_update_site *site = opal_obj_update_site_of(object);
    opal_object_t *site_object = __atomic_load_n(&site->object, __ATOMIC_RELAXED);
    uintptr_t site_thread = __atomic_load_n(&site->thread, __ATOMIC_RELAXED);
    const char *site_file = __atomic_load_n(&site->file, __ATOMIC_RELAXED);
    int site_line = __atomic_load_n(&site->line, __ATOMIC_RELAXED);
    if (site_object == object && site_thread != (uintptr_t)pthread_self() && site_file != NULL &&
        __atomic_load_n(&site->object, __ATOMIC_RELAXED) == object &&
        __atomic_load_n(&site->thread, __ATOMIC_RELAXED) == site_thread) {
        snprintf(other, sizeof other, " (that thread's last update: %s:%d)", site_file, site_line);
    }
    char streams[96] = "";
    int num_streams = goabt_forked() || !goabt_initialized()
                          ? 0
                          : __atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED);
    if (num_streams > 1) {
        snprintf(streams, sizeof streams, " (%d Argobots execution streams run)", num_streams);
    }
    fprintf(stderr,
            "opal_object: %s at %s:%d: another thread changed the reference count of object %p "
            "of class %s during this update%s; the program runs threads while "
            "opal_using_threads() is false%s: call opal_set_using_threads(true) before threads "
            "share objects (count kept exact: %d)%s\n",
            op, file, line, (void *)object, class_name(object), other, streams, count,
            goabt_opal_race_abort ? "; GOABT_OPAL_RACE_ABORT: aborting" : "");
    fflush(stderr);
    if (goabt_opal_race_abort) abort();
    return count;
}

/* ---- GOABT_CHECK_LEAKS ----------------------------------------------------------------------
 * Live objects are recorded in a registry of the Go core (leaks.h) while opal_obj_leak_check is
 * set, which the header tests inline where objects are made and destroyed; opal_class_finalize
 * lists what is left. Entries keep the class and construction site, so the report never reads
 * an object, whose memory a program that forgot OBJ_DESTRUCT may have freed or reused; only the
 * class's name is read here, at the report. A child forked after the Go core started has no
 * registry: the check goes off there (golib.c). */
int opal_obj_leak_check = 0; /* set by golib.c when it loads the Go core */

void opal_obj_leak_note(opal_object_t *object, opal_class_t *cls, const char *file, int line,
                        int in_place)
{
    goabt_leak_registry_note(GOABT_LEAKS_OPAL, in_place, object, cls, file, line);
}

void opal_obj_leak_forget(opal_object_t *object)
{
    goabt_leak_registry_forget(GOABT_LEAKS_OPAL, object);
}

static void leaks_report(void)
{
    int mode = __atomic_load_n(&opal_obj_leak_check, __ATOMIC_RELAXED);
    if (mode == 0) return;
    size_t n;
    struct goabt_leak_fact *all = goabt_leak_registry_take(GOABT_LEAKS_OPAL, &n);
    for (size_t i = 0; i < n; i++) {
        const opal_class_t *cls = (const opal_class_t *)all[i].cls;
        all[i].name = (uintptr_t)(cls != NULL ? cls->cls_name : NULL);
    }
    int found = n > 0 && goabt_leak_registry_report(GOABT_LEAKS_OPAL, all, n);
    free(all);
    if (found && mode == 2) goabt_leaks_exit_later(goabt_opal_leak_exit_status);
}

/* In the child of every fork (golib.c): the child's only thread runs this, so a lock that a
 * thread left behind held is free. */
/* In the child of every fork: OPAL's C locks are free (a thread that held one did not come
 * along). Registered when libgoabt.so loads. */
static void opal_after_fork_child(void)
{
    c_classes_lock = 0;
    quarantine_lock = 0;
    races_lock = 0;
}

__attribute__((constructor)) static void opal_register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, opal_after_fork_child);
}
