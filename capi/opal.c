//go:build goabt_c_engine
/* The C half of the OPAL object system: the variables the header's inline code reads, the entry
 * points that forward to the Go core (capi/opal.go -> core/opal), and the debug-mode misuse
 * report. The report is C because it must work from any stack and print even when the object
 * it describes is garbage. */
#define OPAL_ENABLE_DEBUG 1 /* the report reads the debug layout */
#include <stdio.h>
#include <stdlib.h>
#include "engine.h"
#include "gocalls.h"
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

/* Each entry point reaches Go (capi/opal.go) through the gate: objects are also made inside
 * ULTs, whose stacks Go must not run on (engine.md rule 3). Without the Go core (a process
 * forked after it started, golib.c) a class cannot be initialized: that is said and the
 * process stops, rather than hand out objects without constructors. */
static void class_initialize_gated(void *cls)
{
    if (!goabt_go_available()) {
        fprintf(stderr, "goabt: cannot initialize OPAL class %s without the Go core\n",
                ((opal_class_t *)cls)->cls_name ? ((opal_class_t *)cls)->cls_name : "?");
        abort();
    }
    goabt_go.opal_class_initialize(cls);
}
static void class_finalize_gated(void *unused)
{
    (void)unused;
    if (goabt_go_available()) goabt_go.opal_class_finalize();
}
static void set_using_threads_gated(void *have)
{
    if (goabt_go_available()) {
        *(bool *)have = goabt_go.opal_set_using_threads(*(bool *)have);
    } else {
        opal_uses_threads = *(bool *)have; /* the flag the header reads is ours anyway */
    }
}

void opal_class_initialize(opal_class_t *cls)
{
    goabt_gate(class_initialize_gated, cls);
}

int opal_class_finalize(void)
{
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
