/* goabt demo: what works today. It grows with the engine.
 *  - Argobots: the error strings and the clock.
 *  - OPAL: a small class hierarchy, reference counting with and without threads, an immortal
 *    object, and class re-initialization after opal_class_finalize. */
#include <pthread.h>
#include <stdio.h>
#include <abt.h>
#include <opal_object.h>

typedef struct {
    opal_object_t super;
    char name[32];
} animal_t;

typedef struct {
    animal_t super;
    int lives;
} cat_t;

static void animal_construct(animal_t *a) { snprintf(a->name, sizeof a->name, "animal"); }
static void animal_destruct(animal_t *a) { printf("  destroying %s\n", a->name); }
static void cat_construct(cat_t *c)
{
    c->lives = 9;
    snprintf(c->super.name, sizeof c->super.name, "cat with %d lives", c->lives);
}
OBJ_CLASS_INSTANCE(animal_t, opal_object_t, animal_construct, animal_destruct);
OBJ_CLASS_INSTANCE(cat_t, animal_t, cat_construct, NULL);

static animal_t forever = { OPAL_OBJ_STATIC_INIT(animal_t), "immortal animal" };

static void *share(void *arg)
{
    cat_t *cat = arg;
    for (int i = 0; i < 1000000; i++) {
        OBJ_RETAIN(cat);
        OBJ_RELEASE_NO_NULLIFY(cat);
        OBJ_RETAIN(&forever);
        OBJ_RELEASE_NO_NULLIFY(&forever);
    }
    return NULL;
}

int main(void)
{
    char msg[64];
    ABT_error_get_str(ABT_ERR_FEATURE_NA, msg, NULL);
    printf("Argobots: error %d is %s; ABT_initialized() = %d (the engine comes next)\n",
           ABT_ERR_FEATURE_NA, msg, ABT_initialized());
    double t0 = ABT_get_wtime();

    printf("OPAL: a cat is an animal is an opal_object_t\n");
    cat_t *cat = OBJ_NEW(cat_t);
    printf("  new %s, class %s, depth %d, count %d\n", cat->super.name,
           cat->super.super.obj_class->cls_name, OBJ_CLASS(cat_t)->cls_depth,
           cat->super.super.obj_reference_count);

    opal_set_using_threads(true);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, share, cat);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    opal_set_using_threads(false);
    printf("  2 threads x 1M retain/release with atomics on: count %d; immortal count %d\n",
           cat->super.super.obj_reference_count, forever.super.obj_reference_count);

    OBJ_RETAIN(cat);
    OBJ_RELEASE(cat);
    printf("  after retain+release the variable still points at the cat: %s\n",
           cat ? "yes" : "no");
    OBJ_RELEASE(cat);
    printf("  after the last release the variable is %s\n", cat ? "set" : "NULL");

    opal_class_finalize();
    cat = OBJ_NEW(cat_t);
    printf("  after opal_class_finalize: epoch %d, the class initialized again: %s\n",
           opal_class_init_epoch,
           OBJ_CLASS(cat_t)->cls_initialized == opal_class_init_epoch ? "yes" : "no");
    OBJ_RELEASE(cat);
    printf("demo done in %.3f ms\n", (ABT_get_wtime() - t0) * 1e3);
    return 0;
}
