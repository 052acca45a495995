/* OPAL objects used from Argobots ULTs on several execution streams: the first use of a class
 * happens inside a ULT (the library initializes it through the gate, off the ULT's stack), and
 * reference counts shared across streams stay exact with threads on. */
// ctest-variant: plain
// ctest-variant: debug -DOPAL_ENABLE_DEBUG=1
// ctest-leaks: an object it constructed lives across opal_class_finalize on purpose (the class goes stale under it)
#include <abt.h>
#include <opal_object.h>
#include "check.h"

typedef struct {
    opal_object_t super;
    int value;
} item_t;

static int constructed, destructed;
static void item_construct(item_t *it)
{
    it->value = 5;
    __atomic_add_fetch(&constructed, 1, __ATOMIC_RELAXED);
}
static void item_destruct(item_t *it)
{
    (void)it;
    __atomic_add_fetch(&destructed, 1, __ATOMIC_RELAXED);
}
OBJ_CLASS_INSTANCE(item_t, opal_object_t, item_construct, item_destruct);

#define NSTREAMS 3
#define NULTS 300
#define ITER 1000

static item_t *shared;
static int bad_values;

static void work(void *arg)
{
    (void)arg;
    item_t *mine = OBJ_NEW(item_t); /* the very first OBJ_NEW of item_t runs in some ULT */
    if (mine->value != 5) __atomic_add_fetch(&bad_values, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < ITER; i++) {
        OBJ_RETAIN(shared);
        if (i % 100 == 0) ABT_thread_yield();
        OBJ_RELEASE_NO_NULLIFY(shared);
    }
    OBJ_RELEASE(mine);
}

int main(void)
{
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    opal_set_using_threads(true);
    ABT_xstream xs[NSTREAMS];
    ABT_pool pools[NSTREAMS];
    for (int i = 0; i < NSTREAMS; i++) {
        CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs[i]), ABT_SUCCESS);
        ABT_xstream_get_main_pools(xs[i], 1, &pools[i]);
    }
    for (int round = 0; round < 3; round++) {
        constructed = destructed = 0;
        CHECK(item_t_class.cls_initialized != opal_class_init_epoch);
        shared = malloc(sizeof *shared); /* constructed below, in a ULT-free spot */
        OBJ_CONSTRUCT(shared, item_t);
        constructed = 0;
        /* make the first OBJ_NEW happen in a ULT: finalize again so the class is stale */
        opal_class_finalize();
        ABT_thread ults[NULTS];
        int rc = 0;
        for (int i = 0; i < NULTS; i++) {
            rc |= ABT_thread_create(pools[i % NSTREAMS], work, NULL, ABT_THREAD_ATTR_NULL, &ults[i]);
        }
        CHECK_INT(rc, ABT_SUCCESS);
        for (int i = 0; i < NULTS; i++) rc |= ABT_thread_free(&ults[i]);
        CHECK_INT(rc, ABT_SUCCESS);
        CHECK_INT(constructed, NULTS);
        CHECK_INT(destructed, NULTS);
        CHECK_INT(bad_values, 0);
        CHECK_INT(shared->super.obj_reference_count, 1);
        CHECK_INT(item_t_class.cls_initialized, opal_class_init_epoch);
        OBJ_DESTRUCT(shared);
        free(shared);
        opal_class_finalize();
    }
    opal_set_using_threads(false);
    for (int i = 0; i < NSTREAMS; i++) CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
