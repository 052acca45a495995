/* Immortal objects: OPAL_OBJ_STATIC_INIT and OBJ_SET_IMMORTAL objects are never freed, with
 * threads off or on, and with threads on their RETAIN/RELEASE write nothing. To prove "write
 * nothing", the object sits in a page made read-only before it is retained and released: any
 * write would fault. (Without debug, threads off, an immortal's count moves as a plain add;
 * debug builds leave it alone in both modes.) */
// ctest-variant: plain
// ctest-variant: debug -DOPAL_ENABLE_DEBUG=1
// ctest-leaks: immortal objects are never freed, by design (what it checks)
#include <sys/mman.h>
#include <unistd.h>
#include <opal_object.h>
#include "check.h"

typedef struct {
    opal_object_t super;
    int value;
} item_t;

static int destructed;
static void item_destruct(item_t *it) { (void)it; destructed++; }
OBJ_CLASS_INSTANCE(item_t, opal_object_t, NULL, item_destruct);

static item_t static_item = { OPAL_OBJ_STATIC_INIT(item_t), 3 };
static opal_object_t static_root = OPAL_OBJ_STATIC_INIT(opal_object_t);

int main(void)
{
    /* A static object: count 1, class set, class not initialized, immortal. */
    CHECK_INT(static_item.super.obj_reference_count, 1);
    CHECK(static_item.super.obj_class == OBJ_CLASS(item_t));
    CHECK_INT(item_t_class.cls_initialized, 0);
    CHECK(OBJ_IS_IMMORTAL(&static_item));
    CHECK(OBJ_IS_IMMORTAL(&static_root));

    /* Releasing it to "zero" and beyond frees nothing (Open MPI would free static memory here),
     * with threads off and on. */
    for (int threads = 0; threads < 2; threads++) {
        opal_set_using_threads(threads);
        item_t *p = &static_item;
        for (int i = 0; i < 5; i++) {
            OBJ_RELEASE(p);
            CHECK(p == &static_item);
        }
        for (int i = 0; i < 5; i++) OBJ_RETAIN(&static_item);
        CHECK_INT(destructed, 0);
    }
    opal_set_using_threads(false);
    /* With threads on, or in a debug build, the count never moved. */
#if OPAL_ENABLE_DEBUG
    CHECK_INT(static_item.super.obj_reference_count, 1);
#endif
    opal_object_t *r = &static_root;
    OBJ_RELEASE(r);
    CHECK(r == &static_root);

    /* A heap object made immortal. */
    item_t *heap = OBJ_NEW(item_t);
    CHECK(!OBJ_IS_IMMORTAL(heap));
    OBJ_SET_IMMORTAL(heap);
    CHECK(OBJ_IS_IMMORTAL(heap));
    item_t *h = heap;
    for (int i = 0; i < 3; i++) OBJ_RELEASE(h);
    CHECK(h == heap);
    CHECK_INT(destructed, 0);
    opal_set_using_threads(true);
    int before = heap->super.obj_reference_count;
    CHECK_INT(opal_obj_update(&heap->super, 10), before);
    CHECK_INT(heap->super.obj_reference_count, before);
    opal_set_using_threads(false);

    /* Read-only page: immortal RETAIN/RELEASE must not write while threads are on (in debug
     * builds, not at all). */
    long page = sysconf(_SC_PAGESIZE);
    item_t *ro = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    OBJ_CONSTRUCT(ro, item_t);
    OBJ_SET_IMMORTAL(ro);
    CHECK_INT(mprotect(ro, page, PROT_READ), 0);
    for (int threads = OPAL_ENABLE_DEBUG ? 0 : 1; threads < 2; threads++) {
        opal_set_using_threads(threads);
        item_t *q = ro;
        for (int i = 0; i < 1000; i++) {
            OBJ_RETAIN(q);
            OBJ_RELEASE(q);
        }
        OBJ_RELEASE(q);
        CHECK(q == ro);
        CHECK_INT(ro->super.obj_reference_count, 1);
    }
    opal_set_using_threads(false);
    CHECK_INT(destructed, 0);

    /* OBJ_CONSTRUCT makes an object mortal again. */
    CHECK_INT(mprotect(ro, page, PROT_READ | PROT_WRITE), 0);
    OBJ_CONSTRUCT(ro, item_t);
    CHECK(!OBJ_IS_IMMORTAL(ro));
    OBJ_RETAIN(ro);
    CHECK_INT(ro->super.obj_reference_count, 2);
    OBJ_DESTRUCT(ro);
    CHECK_INT(destructed, 1);
    munmap(ro, page);
    return check_summary();
}
