/* goabt demo: what works today.
 *  - Argobots: execution streams, ULTs that yield in the middle of C code, tasklets, joins, and
 *    work-unit-specific data set on another unit (a ULT that has not started yet) from ULTs
 *    on several streams at once.
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

/* A ULT: sums its share, yielding to the others on its stream every 1000 steps. */
typedef struct {
    long from, to, sum;
    int rank_seen;
} share_t;

static void sum_share(void *arg)
{
    share_t *s = arg;
    for (long i = s->from; i < s->to; i++) {
        s->sum += i;
        if (i % 1000 == 0) ABT_thread_yield();
    }
    ABT_self_get_xstream_rank(&s->rank_seen);
}

static int tasklets_run;
static void count_tasklet(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&tasklets_run, 1, __ATOMIC_RELAXED);
}

/* Keys: every ULT of every stream leaves a value on `reader` under its own key before `reader`
 * has run; `reader` then reads them all as its own data. */
enum { KEY_STREAMS = 4, KEY_WRITERS = 32 };
static ABT_key writer_keys[KEY_WRITERS];
static ABT_thread reader;
static int values_freed;

static void write_to_reader(void *arg)
{
    long i = (long)arg;
    ABT_thread_set_specific(reader, writer_keys[i], (void *)(i + 1));
}

static void read_own_data(void *arg)
{
    long *sum = arg;
    for (int i = 0; i < KEY_WRITERS; i++) {
        void *v = NULL;
        ABT_key_get(writer_keys[i], &v);
        *sum += (long)v;
    }
}

static void value_freed(void *v)
{
    (void)v;
    values_freed++;
}

static void keys_demo(ABT_pool *pools)
{
    ABT_pool later; /* no scheduler runs it yet: reader waits there, not started */
    ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &later);
    long sum = 0;
    ABT_thread_create(later, read_own_data, &sum, ABT_THREAD_ATTR_NULL, &reader);
    ABT_thread writers[KEY_WRITERS];
    for (long i = 0; i < KEY_WRITERS; i++) {
        ABT_key_create(value_freed, &writer_keys[i]);
        ABT_thread_create(pools[i % KEY_STREAMS], write_to_reader, (void *)i, ABT_THREAD_ATTR_NULL,
                          &writers[i]);
    }
    for (int i = 0; i < KEY_WRITERS; i++) ABT_thread_free(&writers[i]);
    ABT_xstream runner;
    ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &later, ABT_SCHED_CONFIG_NULL, &runner);
    ABT_thread_free(&reader); /* joins, then runs the destructor of each value */
    ABT_xstream_free(&runner);
    for (int i = 0; i < KEY_WRITERS; i++) ABT_key_free(&writer_keys[i]);
    printf("Argobots keys: %d ULTs on %d streams set data on a ULT before it ran; it read "
           "sum %ld (%s); %d destructor calls at its free\n",
           KEY_WRITERS, KEY_STREAMS, sum, sum == KEY_WRITERS * (KEY_WRITERS + 1) / 2 ? "right" : "WRONG",
           values_freed);
}

static void argobots_demo(void)
{
    enum { STREAMS = 4, ULTS = 16 };
    ABT_init(0, NULL);
    ABT_xstream xs[STREAMS];
    ABT_pool pools[STREAMS];
    ABT_xstream_self(&xs[0]);
    for (int i = 1; i < STREAMS; i++) ABT_xstream_create(ABT_SCHED_NULL, &xs[i]);
    for (int i = 0; i < STREAMS; i++) ABT_xstream_get_main_pools(xs[i], 1, &pools[i]);

    share_t shares[ULTS];
    ABT_thread ults[ULTS];
    long n = 10000000, step = n / ULTS;
    for (int i = 0; i < ULTS; i++) {
        shares[i] = (share_t){i * step, (i + 1) * step, 0, -1};
        ABT_thread_create(pools[i % STREAMS], sum_share, &shares[i], ABT_THREAD_ATTR_NULL, &ults[i]);
    }
    for (int i = 0; i < 100; i++) ABT_task_create(pools[i % STREAMS], count_tasklet, NULL, NULL);
    long total = 0;
    int ran_on[STREAMS] = {0};
    for (int i = 0; i < ULTS; i++) {
        ABT_thread_free(&ults[i]); /* joins */
        total += shares[i].sum;
        if (shares[i].rank_seen >= 0 && shares[i].rank_seen < STREAMS) ran_on[shares[i].rank_seen]++;
    }
    keys_demo(pools);
    for (int i = 1; i < STREAMS; i++) ABT_xstream_free(&xs[i]);
    ABT_finalize(); /* runs what is left on the primary, the tasklets included */
    printf("Argobots: %d ULTs on %d streams summed 0..%ld = %ld (%s); ULTs per stream:", ULTS,
           STREAMS, n - 1, total, total == n * (n - 1) / 2 ? "right" : "WRONG");
    for (int i = 0; i < STREAMS; i++) printf(" %d", ran_on[i]);
    printf("; %d tasklets ran\n", tasklets_run);
}

int main(void)
{
    double t0 = ABT_get_wtime();
    argobots_demo();

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
