/* OBJ_RETAIN/OBJ_RELEASE from several threads with threads on: 4 threads retain and release one
 * object 1M times each, and the count ends exact with exactly one destructor call. Also: threads
 * racing on the first use of a class all see it initialized, and immortal objects stay at
 * count 1 under the same storm. */
// ctest-variant: plain
// ctest-variant: debug -DOPAL_ENABLE_DEBUG=1
#include <pthread.h>
#include <opal_object.h>
#include "check.h"

#define NTHREADS 4
#define ITERATIONS 1000000

typedef struct {
    opal_object_t super;
    int payload;
} shared_t;

static int destructed, constructed;
static void shared_construct(shared_t *s) { __atomic_add_fetch(&constructed, 1, __ATOMIC_RELAXED); s->payload = 42; }
static void shared_destruct(shared_t *s) { (void)s; __atomic_add_fetch(&destructed, 1, __ATOMIC_RELAXED); }
OBJ_CLASS_INSTANCE(shared_t, opal_object_t, shared_construct, shared_destruct);

typedef struct { opal_object_t super; int payload; } racy_t;
static void racy_construct(racy_t *r) { r->payload = 9; }
OBJ_CLASS_INSTANCE(racy_t, opal_object_t, racy_construct, NULL);

static shared_t *target;
static shared_t immortal_static = { OPAL_OBJ_STATIC_INIT(shared_t), 5 };
static pthread_barrier_t start;

static void *hammer(void *arg)
{
    shared_t *obj = arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < ITERATIONS; i++) {
        OBJ_RETAIN(obj);
        OBJ_RELEASE_NO_NULLIFY(obj);
    }
    return NULL;
}

static void *retain_only(void *arg)
{
    shared_t *obj = arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < ITERATIONS; i++) {
        OBJ_RETAIN(obj);
    }
    return NULL;
}

static int racy_ok;
static void *first_use(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    racy_t *r = OBJ_NEW(racy_t);
    if (r->payload == 9 && racy_t_class.cls_initialized == opal_class_init_epoch) {
        __atomic_add_fetch(&racy_ok, 1, __ATOMIC_RELAXED);
    }
    OBJ_RELEASE(r);
    return NULL;
}

static void run_threads(void *(*fn)(void *), void *arg)
{
    pthread_t th[NTHREADS];
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, fn, arg);
    for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
}

int main(void)
{
    CHECK(opal_set_using_threads(true));

    /* Retain+release pairs: the count returns to exactly 1, then one release destroys. */
    target = OBJ_NEW(shared_t);
    run_threads(hammer, target);
    CHECK_INT(target->super.obj_reference_count, 1);
    CHECK_INT(destructed, 0);
    OBJ_RELEASE(target);
    CHECK(target == NULL);
    CHECK_INT(destructed, 1);
    CHECK_INT(constructed, 1);

    /* Retains only: every increment is counted (atomics lose nothing). */
    target = OBJ_NEW(shared_t);
    run_threads(retain_only, target);
    CHECK_INT(target->super.obj_reference_count, 1 + NTHREADS * ITERATIONS);
    opal_obj_update(&target->super, -NTHREADS * ITERATIONS);
    OBJ_RELEASE(target);
    CHECK_INT(destructed, 2);

    /* Threads racing on a class's first use all get constructed objects. */
    run_threads(first_use, NULL);
    CHECK_INT(racy_ok, NTHREADS);

    /* An immortal object under the same storm: count stays 1, never destroyed. */
    run_threads(hammer, &immortal_static);
    CHECK_INT(immortal_static.super.obj_reference_count, 1);
    CHECK_INT(destructed, 2);
    CHECK_INT(immortal_static.payload, 5);

    opal_set_using_threads(false);
    return check_summary();
}
