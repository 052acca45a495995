/* OPAL classes and objects: layout, class instances, lazy initialization, OBJ_NEW, RETAIN,
 * RELEASE, CONSTRUCT, DESTRUCT, opal_obj_update and the thread-mode flag (opal-object.md). */
// ctest-variant: plain
// ctest-variant: debug -DOPAL_ENABLE_DEBUG=1
#include <opal_object.h>
#include "check.h"

typedef struct {
    opal_object_t super;
    int value;
} base_t;

typedef struct {
    base_t super;
    double extra;
} derived_t;

static int base_constructed, base_destructed, derived_constructed, derived_destructed;
static opal_class_t *class_seen_by_ctor;
static int count_seen_by_ctor = -1, count_seen_by_dtor = -1;

static void base_construct(base_t *b)
{
    base_constructed++;
    class_seen_by_ctor = b->super.obj_class;
    count_seen_by_ctor = b->super.obj_reference_count;
    b->value = 7;
}
static void base_destruct(base_t *b)
{
    base_destructed++;
    count_seen_by_dtor = b->super.obj_reference_count;
}
static void derived_construct(derived_t *d)
{
    derived_constructed++;
    d->extra = d->super.value * 2.0; /* the base constructor ran first */
}
static void derived_destruct(derived_t *d)
{
    (void)d;
    derived_destructed++;
}

OBJ_CLASS_DECLARATION(base_t);
OBJ_CLASS_INSTANCE(base_t, opal_object_t, base_construct, base_destruct);
OBJ_CLASS_INSTANCE(derived_t, base_t, derived_construct, derived_destruct);

static void reset_counts(void)
{
    base_constructed = base_destructed = derived_constructed = derived_destructed = 0;
}

int main(void)
{
    /* Layout, as Open MPI's. */
    CHECK_INT(sizeof(opal_class_t), 64);
    CHECK_INT(offsetof(opal_class_t, cls_name), 0);
    CHECK_INT(offsetof(opal_class_t, cls_parent), 8);
    CHECK_INT(offsetof(opal_class_t, cls_construct), 16);
    CHECK_INT(offsetof(opal_class_t, cls_destruct), 24);
    CHECK_INT(offsetof(opal_class_t, cls_initialized), 32);
    CHECK_INT(offsetof(opal_class_t, cls_depth), 36);
    CHECK_INT(offsetof(opal_class_t, cls_construct_array), 40);
    CHECK_INT(offsetof(opal_class_t, cls_destruct_array), 48);
    CHECK_INT(offsetof(opal_class_t, cls_sizeof), 56);
#if OPAL_ENABLE_DEBUG
    CHECK_INT(sizeof(opal_object_t), 40);
    CHECK_INT(offsetof(opal_object_t, obj_magic_id), 0);
    CHECK_INT(offsetof(opal_object_t, obj_class), 8);
    CHECK_INT(offsetof(opal_object_t, obj_reference_count), 16);
    CHECK_INT(offsetof(opal_object_t, cls_init_file_name), 24);
    CHECK_INT(offsetof(opal_object_t, cls_init_lineno), 32);
#else
    CHECK_INT(sizeof(opal_object_t), 16);
    CHECK_INT(offsetof(opal_object_t, obj_class), 0);
    CHECK_INT(offsetof(opal_object_t, obj_reference_count), 8);
#endif
    CHECK_INT(_Alignof(opal_object_t), 8);

    /* The root class exists, initialized, with no constructors. */
    CHECK_STR(opal_object_t_class.cls_name, "opal_object_t");
    CHECK(opal_object_t_class.cls_parent == NULL);
    CHECK(opal_object_t_class.cls_construct == NULL);
    CHECK(opal_object_t_class.cls_destruct == NULL);
    CHECK_INT(opal_class_init_epoch, 1);
    CHECK_INT(opal_object_t_class.cls_initialized, opal_class_init_epoch);

    /* OBJ_CLASS_INSTANCE fills the class as Open MPI does; nothing is initialized yet. */
    CHECK(OBJ_CLASS(base_t) == &base_t_class);
    CHECK_STR(base_t_class.cls_name, "base_t");
    CHECK(base_t_class.cls_parent == &opal_object_t_class);
    CHECK(base_t_class.cls_construct == (opal_construct_t)base_construct);
    CHECK(base_t_class.cls_destruct == (opal_destruct_t)base_destruct);
    CHECK_INT(base_t_class.cls_initialized, 0);
    CHECK_INT(base_t_class.cls_depth, 0);
    CHECK(base_t_class.cls_construct_array == NULL);
    CHECK(base_t_class.cls_destruct_array == NULL);
    CHECK_INT(base_t_class.cls_sizeof, sizeof(base_t));
    CHECK(derived_t_class.cls_parent == &base_t_class);

    /* Thread mode: off until set; the setter returns its argument. */
    CHECK(!opal_using_threads());
    CHECK(opal_set_using_threads(true) == true);
    CHECK(opal_using_threads());
    CHECK(opal_set_using_threads(false) == false);
    CHECK(!opal_using_threads());

    for (int threads = 0; threads < 2; threads++) {
        opal_set_using_threads(threads);
        reset_counts();

        /* OBJ_NEW: most-derived class, count 1, constructors base first, seeing both. */
        derived_t *d = OBJ_NEW(derived_t);
        CHECK(d != NULL);
        CHECK(d->super.super.obj_class == OBJ_CLASS(derived_t));
        CHECK_INT(d->super.super.obj_reference_count, 1);
        CHECK_INT(base_constructed, 1);
        CHECK_INT(derived_constructed, 1);
        CHECK(class_seen_by_ctor == OBJ_CLASS(derived_t));
        CHECK_INT(count_seen_by_ctor, 1);
        CHECK_INT(d->super.value, 7);
        CHECK(d->extra == 14.0);
        /* The first use initialized the class and its parent chain depth. */
        CHECK_INT(derived_t_class.cls_initialized, opal_class_init_epoch);
        CHECK_INT(derived_t_class.cls_depth, 3);

        /* RETAIN adds one, opal_obj_update returns the new count, RELEASE drops one. */
        OBJ_RETAIN(d);
        CHECK_INT(d->super.super.obj_reference_count, 2);
        CHECK_INT(opal_obj_update(&d->super.super, 3), 5);
        CHECK_INT(opal_obj_update(&d->super.super, -3), 2);
        derived_t *alias = d;
        OBJ_RELEASE(alias);
        CHECK(alias == d); /* not the last reference: the variable is kept */
        CHECK_INT(d->super.super.obj_reference_count, 1);
        CHECK_INT(base_destructed, 0);

        /* The last RELEASE runs destructors (derived first, seeing count 0) and NULLs the variable. */
        OBJ_RELEASE(d);
        CHECK(d == NULL);
        CHECK_INT(derived_destructed, 1);
        CHECK_INT(base_destructed, 1);
        CHECK_INT(count_seen_by_dtor, 0);

        /* OBJ_RELEASE_NO_NULLIFY leaves the variable alone. */
        base_t *b = OBJ_NEW(base_t);
        base_t *kept = b;
        OBJ_RELEASE_NO_NULLIFY(b);
        CHECK(b == kept);
        CHECK_INT(base_destructed, 2);

        /* OBJ_CONSTRUCT on caller memory: count 1, constructors; OBJ_DESTRUCT whatever the count,
         * changing neither count nor class. */
        reset_counts();
        derived_t local;
        OBJ_CONSTRUCT(&local, derived_t);
        CHECK_INT(local.super.super.obj_reference_count, 1);
        CHECK(local.super.super.obj_class == OBJ_CLASS(derived_t));
        CHECK_INT(base_constructed, 1);
        CHECK_INT(derived_constructed, 1);
        OBJ_RETAIN(&local);
        OBJ_RETAIN(&local);
        OBJ_DESTRUCT(&local);
        CHECK_INT(derived_destructed, 1);
        CHECK_INT(base_destructed, 1);
        CHECK_INT(local.super.super.obj_reference_count, 3);
        CHECK(local.super.super.obj_class == OBJ_CLASS(derived_t));

        /* The root class can be instantiated too. */
        opal_object_t *root = OBJ_NEW(opal_object_t);
        CHECK(root != NULL);
        CHECK(root->obj_class == &opal_object_t_class);
        OBJ_RELEASE(root);
        CHECK(root == NULL);
    }
    opal_set_using_threads(false);
    return check_summary();
}
