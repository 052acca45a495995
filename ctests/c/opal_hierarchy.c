/* Constructor and destructor order over four levels below opal_object_t, NULL constructors and
 * destructors skipped, the arrays the library builds, and class re-initialization after
 * opal_class_finalize (epoch, fresh arrays, objects still correct). */
// ctest-variant: plain
// ctest-variant: debug -DOPAL_ENABLE_DEBUG=1
#include <limits.h>
#include <opal_object.h>
#include "check.h"

typedef struct { opal_object_t super; } level1_t;
typedef struct { level1_t super; } level2_t; /* no constructor */
typedef struct { level2_t super; } level3_t; /* no destructor */
typedef struct { level3_t super; } level4_t;

static char trace[64];
static int trace_len;
static void mark(char c) { trace[trace_len++] = c; trace[trace_len] = 0; }

static void c1(level1_t *o) { (void)o; mark('1'); }
static void d1(level1_t *o) { (void)o; mark('a'); }
static void d2(level2_t *o) { (void)o; mark('b'); }
static void c3(level3_t *o) { (void)o; mark('3'); }
static void c4(level4_t *o) { (void)o; mark('4'); }
static void d4(level4_t *o) { (void)o; mark('d'); }

OBJ_CLASS_INSTANCE(level1_t, opal_object_t, c1, d1);
OBJ_CLASS_INSTANCE(level2_t, level1_t, NULL, d2);
OBJ_CLASS_INSTANCE(level3_t, level2_t, c3, NULL);
OBJ_CLASS_INSTANCE(level4_t, level3_t, c4, d4);

static int array_len(void *arr)
{
    void **p = arr;
    int n = 0;
    while (p[n] != NULL) n++;
    return n;
}

static void check_arrays(void)
{
    opal_class_t *c = OBJ_CLASS(level4_t);
    CHECK_INT(c->cls_depth, 5);
    CHECK_INT(array_len(c->cls_construct_array), 3);
    CHECK(c->cls_construct_array[0] == (opal_construct_t)c1);
    CHECK(c->cls_construct_array[1] == (opal_construct_t)c3);
    CHECK(c->cls_construct_array[2] == (opal_construct_t)c4);
    CHECK_INT(array_len(c->cls_destruct_array), 3);
    CHECK(c->cls_destruct_array[0] == (opal_destruct_t)d4);
    CHECK(c->cls_destruct_array[1] == (opal_destruct_t)d2);
    CHECK(c->cls_destruct_array[2] == (opal_destruct_t)d1);
}

static void new_and_release(void)
{
    trace_len = 0;
    level4_t *o = OBJ_NEW(level4_t);
    CHECK_STR(trace, "134");
    OBJ_RELEASE(o);
    CHECK_STR(trace, "134dba");

    trace_len = 0;
    level4_t local;
    OBJ_CONSTRUCT(&local, level4_t);
    OBJ_DESTRUCT(&local);
    CHECK_STR(trace, "134dba");
}

int main(void)
{
    /* Nothing is initialized before first use. */
    CHECK_INT(level4_t_class.cls_initialized, 0);
    CHECK_INT(level1_t_class.cls_initialized, 0);

    new_and_release();
    check_arrays();
    CHECK_INT(level4_t_class.cls_initialized, 1);
    /* Parents are not initialized by a child's initialization: only the class used is. */
    CHECK_INT(level2_t_class.cls_initialized, 0);

    /* Each level initializes to its own depth and arrays. */
    level2_t *two = OBJ_NEW(level2_t);
    CHECK_INT(level2_t_class.cls_depth, 3);
    CHECK_INT(array_len(level2_t_class.cls_construct_array), 1);
    CHECK_INT(array_len(level2_t_class.cls_destruct_array), 2);
    OBJ_RELEASE(two);
    level1_t *one = OBJ_NEW(level1_t);
    CHECK_INT(level1_t_class.cls_depth, 2);
    OBJ_RELEASE(one);

    /* Initializing an initialized class changes nothing. */
    opal_construct_t *arrays_before = level4_t_class.cls_construct_array;
    opal_class_initialize(OBJ_CLASS(level4_t));
    CHECK(level4_t_class.cls_construct_array == arrays_before);
    CHECK_INT(level4_t_class.cls_initialized, 1);

    /* Finalize: new epoch, every class initializes again on its next use, objects still work. */
    for (int cycle = 0; cycle < 100; cycle++) {
        int epoch = opal_class_init_epoch;
        CHECK_INT(opal_class_finalize(), 0);
        CHECK_INT(opal_class_init_epoch, epoch + 1);
        CHECK(level4_t_class.cls_initialized != opal_class_init_epoch);
        new_and_release();
        CHECK_INT(level4_t_class.cls_initialized, opal_class_init_epoch);
        check_arrays();
        /* The root class too. */
        opal_object_t *root = OBJ_NEW(opal_object_t);
        CHECK(root != NULL);
        CHECK_INT(opal_object_t_class.cls_initialized, opal_class_init_epoch);
        CHECK_INT(opal_object_t_class.cls_depth, 1);
        OBJ_RELEASE(root);
    }

    /* The epoch wraps from INT_MAX to 1. */
    opal_class_init_epoch = INT_MAX;
    opal_class_finalize();
    CHECK_INT(opal_class_init_epoch, 1);
    new_and_release();
    CHECK_INT(level4_t_class.cls_initialized, 1);
    return check_summary();
}
