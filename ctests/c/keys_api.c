/* Work-unit-specific data keys, the API and its error codes: ABT_key_create/free (NULL newkey,
 * ABT_KEY_NULL, NULL, a freed key's handle); ABT_key_set/get and ABT_self_set/get_specific on
 * the main ULT, on ULTs of 4 streams (in waves, so reused descriptors start with no values), on
 * ULTs that migrate between two streams sharing a pool, and on tasklets: unset keys read NULL,
 * set NULL reads NULL, the two API names see the same values, and each unit sees only its own;
 * destructors: called at free (not at join) with the value, exactly once, only for non-NULL
 * values, not on overwrite, each key's own destructor, for ULTs ended by ABT_thread_exit and
 * freed by ABT_thread_free_many, for unnamed ULTs and tasklets at their end, for a key freed before its unit, for the main ULT at ABT_finalize; key ids reused after
 * ABT_key_free (a newer key reads NULL where the freed one had values, on ULTs, a tasklet, a
 * not-yet-started ULT and the main ULT), 10,000 create/set/free cycles on the main ULT; the
 * error order (ABT_ERR_INV_KEY, then ABT_ERR_UNINITIALIZED, then ABT_ERR_INV_XSTREAM from an
 * external thread; ABT_ERR_INV_ARG for a NULL value pointer) before ABT_init, after
 * ABT_finalize, and from a plain pthread; a key living across ABT_finalize and a second
 * ABT_init. */
// ctest-leaks: it frees its keys after ABT_finalize (allowed: keys outlive the runtime), which the check, made at ABT_finalize, counts as leaks
#include <pthread.h>
#include <stdint.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
static ABT_xstream streams[NSTREAMS]; /* [0] is the primary */
static ABT_pool pools[NSTREAMS];      /* their main pools */
static ABT_thread main_ult;

/* ---- Values and destructors --------------------------------------------------------------- */

/* A value is the address of a cell; destructor n counts its calls and marks the cell, so a check
 * can tell which destructor destroyed which value, and how often. */
struct cell {
    int destroyed; /* calls on this cell, all destructors */
    int by;        /* the last destructor that destroyed it */
};

#define NDTORS 16
static int dtor_calls[NDTORS];

static void destroy(int which, void *v)
{
    struct cell *c = v;
    __atomic_add_fetch(&c->destroyed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&c->by, which, __ATOMIC_RELAXED);
    __atomic_add_fetch(&dtor_calls[which], 1, __ATOMIC_RELEASE);
}

#define DEFINE_DTOR(n) \
    static void dtor##n(void *v) { destroy(n, v); }
DEFINE_DTOR(1)
DEFINE_DTOR(2)
DEFINE_DTOR(3)
DEFINE_DTOR(4)
DEFINE_DTOR(5)
DEFINE_DTOR(6)
DEFINE_DTOR(7)
DEFINE_DTOR(8)
DEFINE_DTOR(9)
DEFINE_DTOR(10)
DEFINE_DTOR(11)
DEFINE_DTOR(12)

static int calls(int which) { return __atomic_load_n(&dtor_calls[which], __ATOMIC_ACQUIRE); }

/* How many of cells[0..n) were destroyed exactly once, by destructor which. */
static int destroyed_once_by(struct cell *cells, int n, int which)
{
    int good = 0;
    for (int i = 0; i < n; i++) {
        good += __atomic_load_n(&cells[i].destroyed, __ATOMIC_ACQUIRE) == 1 &&
                __atomic_load_n(&cells[i].by, __ATOMIC_RELAXED) == which;
    }
    return good;
}

/* How many of cells[0..n) were never destroyed. */
static int untouched(struct cell *cells, int n)
{
    int good = 0;
    for (int i = 0; i < n; i++) good += __atomic_load_n(&cells[i].destroyed, __ATOMIC_ACQUIRE) == 0;
    return good;
}

static int once_by9(struct cell *c) { return destroyed_once_by(c, 1, 9); }

/* ---- Before ABT_init ---------------------------------------------------------------------- */

static void test_before_init(void)
{
    void *v = &v;
    CHECK_INT(ABT_key_set(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_key_get(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_set_specific(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_get_specific(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_thread_set_specific(ABT_THREAD_NULL, ABT_KEY_NULL, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_thread_get_specific(ABT_THREAD_NULL, ABT_KEY_NULL, &v), ABT_ERR_UNINITIALIZED);
}

/* ---- Create and free ---------------------------------------------------------------------- */

static void test_create_free(void)
{
    ABT_key k = ABT_KEY_NULL, k2 = ABT_KEY_NULL, k3 = ABT_KEY_NULL;
    CHECK_INT(ABT_key_create(NULL, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_key_create(dtor1, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_key_create(NULL, &k), ABT_SUCCESS);
    CHECK(k != ABT_KEY_NULL);
    CHECK_INT(ABT_key_create(dtor1, &k2), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(dtor1, &k3), ABT_SUCCESS);
    CHECK(k2 != ABT_KEY_NULL && k3 != ABT_KEY_NULL);
    CHECK(k2 != k && k3 != k && k2 != k3);
    CHECK_INT(ABT_key_free(&k), ABT_SUCCESS);
    CHECK(k == ABT_KEY_NULL);
    CHECK_INT(ABT_key_free(&k), ABT_ERR_INV_KEY);
    CHECK(k == ABT_KEY_NULL);
    CHECK_INT(ABT_key_free(NULL), ABT_ERR_INV_ARG);

    /* A freed key's handle is refused while no newer key reuses it (no key is created below). */
    ABT_key stale = k2;
    void *v = &v;
    CHECK_INT(ABT_key_free(&k2), ABT_SUCCESS);
    CHECK(k2 == ABT_KEY_NULL);
    CHECK_INT(ABT_key_set(stale, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_key_get(stale, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_set_specific(stale, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_get_specific(stale, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_thread_set_specific(main_ult, stale, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_thread_get_specific(main_ult, stale, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_key_free(&stale), ABT_ERR_INV_KEY);
    /* The other key still works. */
    CHECK_INT(ABT_key_set(k3, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_key_get(k3, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    CHECK_INT(ABT_key_free(&k3), ABT_SUCCESS);
    CHECK_INT(calls(1), 0); /* only NULL was ever set */
}

/* ---- The main ULT ------------------------------------------------------------------------- */

/* Live until after ABT_finalize: the main ULT's values are destroyed there. */
static ABT_key main_k1, main_k2, main_knull;
static struct cell main_cells[5];

static void test_main_ult(void)
{
    CHECK_INT(ABT_key_create(dtor2, &main_k1), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(dtor3, &main_k2), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(NULL, &main_knull), ABT_SUCCESS);
    void *v = &v, *w = &w, *x = &x;
    /* Unset keys read NULL, through every name. */
    CHECK_INT(ABT_key_get(main_k1, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    CHECK_INT(ABT_self_get_specific(main_k2, &w), ABT_SUCCESS);
    CHECK(w == NULL);
    CHECK_INT(ABT_thread_get_specific(main_ult, main_knull, &x), ABT_SUCCESS);
    CHECK(x == NULL);

    /* Set and read back; the two API names and get_specific on the main ULT's handle agree. */
    CHECK_INT(ABT_key_set(main_k1, &main_cells[0]), ABT_SUCCESS);
    v = w = x = NULL;
    CHECK_INT(ABT_key_get(main_k1, &v), ABT_SUCCESS);
    CHECK_INT(ABT_self_get_specific(main_k1, &w), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_specific(main_ult, main_k1, &x), ABT_SUCCESS);
    CHECK(v == &main_cells[0] && w == v && x == v);
    CHECK_INT(ABT_self_set_specific(main_k1, &main_cells[1]), ABT_SUCCESS);
    CHECK_INT(ABT_key_get(main_k1, &v), ABT_SUCCESS);
    CHECK(v == &main_cells[1]);
    CHECK_INT(ABT_thread_get_specific(main_ult, main_k1, &x), ABT_SUCCESS);
    CHECK(x == &main_cells[1]);
    /* Overwriting does not destroy the old value. */
    CHECK_INT(calls(2), 0);
    CHECK_INT(main_cells[0].destroyed, 0);
    /* Set to NULL reads NULL; then a last value, destroyed at ABT_finalize. */
    CHECK_INT(ABT_key_set(main_k1, NULL), ABT_SUCCESS);
    v = &v;
    CHECK_INT(ABT_key_get(main_k1, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    CHECK_INT(ABT_self_set_specific(main_k1, &main_cells[2]), ABT_SUCCESS);
    CHECK_INT(ABT_self_get_specific(main_k1, &v), ABT_SUCCESS);
    CHECK(v == &main_cells[2]);
    /* k2 ends NULL: its destructor never runs. knull has no destructor. */
    CHECK_INT(ABT_self_set_specific(main_k2, &main_cells[3]), ABT_SUCCESS);
    CHECK_INT(ABT_key_get(main_k2, &v), ABT_SUCCESS);
    CHECK(v == &main_cells[3]);
    CHECK_INT(ABT_key_set(main_k2, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_key_set(main_knull, &main_cells[4]), ABT_SUCCESS);
    CHECK_INT(ABT_key_get(main_knull, &v), ABT_SUCCESS);
    CHECK(v == &main_cells[4]);
    /* The keys are independent. */
    CHECK_INT(ABT_key_get(main_k1, &v), ABT_SUCCESS);
    CHECK(v == &main_cells[2]);
    CHECK_INT(ABT_key_get(main_k2, &v), ABT_SUCCESS);
    CHECK(v == NULL);

    /* Errors: the key first, then the value pointer. */
    v = &v;
    CHECK_INT(ABT_key_set(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_key_get(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_set_specific(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_get_specific(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_key_get(main_k1, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_self_get_specific(main_k1, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_key_get(ABT_KEY_NULL, NULL), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_get_specific(ABT_KEY_NULL, NULL), ABT_ERR_INV_KEY);
    /* The failed calls changed nothing. */
    CHECK_INT(ABT_key_get(main_k1, &v), ABT_SUCCESS);
    CHECK(v == &main_cells[2]);
    CHECK_INT(calls(2) + calls(3), 0);
}

/* ---- ULTs on several streams -------------------------------------------------------------- */

#define WAVE 400
#define WAVES 4
static ABT_key ult_ka, ult_kb;
static struct cell ult_cells_a[WAVES * WAVE], ult_cells_b[WAVES * WAVE];

struct ult_report {
    int unset_null;   /* both keys read NULL first */
    int readback;     /* every read after the sets saw this unit's values */
    int errors_right; /* KEY_NULL and NULL pointer refused with the right codes */
    int self_rc;
};

static struct ult_report ult_reports[WAVES * WAVE];

static void ult_body(void *arg)
{
    int i = (int)(intptr_t)arg;
    struct ult_report *r = &ult_reports[i];
    void *a = &a, *b = &b, *c = NULL;
    r->unset_null = ABT_key_get(ult_ka, &a) == ABT_SUCCESS && a == NULL &&
                    ABT_self_get_specific(ult_kb, &b) == ABT_SUCCESS && b == NULL;
    int ok = ABT_key_set(ult_ka, &ult_cells_a[i]) == ABT_SUCCESS;
    ok &= ABT_self_set_specific(ult_kb, &ult_cells_b[i]) == ABT_SUCCESS;
    ABT_thread me = ABT_THREAD_NULL;
    r->self_rc = ABT_thread_self(&me);
    for (int y = 0; y < 3; y++) {
        /* Other ULTs of this stream run and set their own values meanwhile. */
        ABT_thread_yield();
        ok &= ABT_self_get_specific(ult_ka, &a) == ABT_SUCCESS && a == &ult_cells_a[i];
        ok &= ABT_key_get(ult_kb, &b) == ABT_SUCCESS && b == &ult_cells_b[i];
        ok &= ABT_thread_get_specific(me, ult_ka, &c) == ABT_SUCCESS && c == &ult_cells_a[i];
    }
    r->readback = ok;
    void *v = &v;
    r->errors_right = ABT_key_get(ABT_KEY_NULL, &v) == ABT_ERR_INV_KEY &&
                      ABT_key_set(ABT_KEY_NULL, &v) == ABT_ERR_INV_KEY &&
                      ABT_self_get_specific(ult_ka, NULL) == ABT_ERR_INV_ARG &&
                      ABT_key_get(ult_kb, NULL) == ABT_ERR_INV_ARG;
}

static void test_ults(void)
{
    CHECK_INT(ABT_key_create(dtor4, &ult_ka), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(dtor5, &ult_kb), ABT_SUCCESS);
    ABT_thread *t = malloc(sizeof *t * WAVE);
    for (int w = 0; w < WAVES; w++) {
        /* Later waves get the descriptors (and emptied tables) of earlier ones. */
        int rc = 0;
        for (int j = 0; j < WAVE; j++) {
            int i = w * WAVE + j;
            rc |= ABT_thread_create(pools[j % NSTREAMS], ult_body, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &t[j]);
        }
        CHECK_INT(rc, ABT_SUCCESS);
        for (int j = 0; j < WAVE; j++) rc |= ABT_thread_join(t[j]);
        CHECK_INT(rc, ABT_SUCCESS);
        /* Joined, not freed: no destructor yet. */
        CHECK_INT(calls(4), w * WAVE);
        CHECK_INT(calls(5), w * WAVE);
        for (int j = 0; j < WAVE; j++) rc |= ABT_thread_free(&t[j]);
        CHECK_INT(rc, ABT_SUCCESS);
        CHECK_INT(calls(4), (w + 1) * WAVE);
        CHECK_INT(calls(5), (w + 1) * WAVE);
        int unset_null = 0, readback = 0, errors_right = 0, self_ok = 0;
        for (int j = 0; j < WAVE; j++) {
            struct ult_report *r = &ult_reports[w * WAVE + j];
            unset_null += r->unset_null;
            readback += r->readback;
            errors_right += r->errors_right;
            self_ok += r->self_rc == ABT_SUCCESS;
        }
        CHECK_INT(unset_null, WAVE);
        CHECK_INT(readback, WAVE);
        CHECK_INT(errors_right, WAVE);
        CHECK_INT(self_ok, WAVE);
    }
    free(t);
    CHECK_INT(destroyed_once_by(ult_cells_a, WAVES * WAVE, 4), WAVES * WAVE);
    CHECK_INT(destroyed_once_by(ult_cells_b, WAVES * WAVE, 5), WAVES * WAVE);
    CHECK_INT(ABT_key_free(&ult_ka), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&ult_kb), ABT_SUCCESS);
}

/* ULTs yielding on a pool two streams share: values follow a ULT from stream to stream. */
#define NMIGR 40
#define MIGR_YIELDS 300
static ABT_key migr_key; /* no destructor: the values are tokens */

struct migr {
    int wrong;       /* reads that did not return this ULT's latest value */
    unsigned ranks;  /* bit per stream rank it ran on */
};

static void migrating(void *arg)
{
    struct migr *m = arg;
    for (int i = 0; i < MIGR_YIELDS; i++) {
        void *want = (char *)m + (i % 7) + 1, *got = NULL;
        if (ABT_key_set(migr_key, want) != ABT_SUCCESS) m->wrong++;
        int rank = -1;
        if (ABT_xstream_self_rank(&rank) == ABT_SUCCESS && rank >= 0 && rank < 32) m->ranks |= 1u << rank;
        ABT_thread_yield();
        if (ABT_key_get(migr_key, &got) != ABT_SUCCESS || got != want) m->wrong++;
    }
}

static void test_migrating(void)
{
    CHECK_INT(ABT_key_create(NULL, &migr_key), ABT_SUCCESS);
    ABT_pool shared;
    ABT_xstream xs[2];
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &shared), ABT_SUCCESS);
    int rc = 0;
    for (int i = 0; i < 2; i++) rc |= ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &shared, ABT_SCHED_CONFIG_NULL, &xs[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    static struct migr m[NMIGR];
    ABT_thread t[NMIGR];
    for (int i = 0; i < NMIGR; i++) rc |= ABT_thread_create(shared, migrating, &m[i], ABT_THREAD_ATTR_NULL, &t[i]);
    for (int i = 0; i < NMIGR; i++) rc |= ABT_thread_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    int wrong = 0, migrated = 0;
    for (int i = 0; i < NMIGR; i++) {
        wrong += m[i].wrong;
        migrated += __builtin_popcount(m[i].ranks) > 1;
    }
    printf("%d of %d ULTs ran on both streams\n", migrated, NMIGR);
    CHECK_INT(wrong, 0);
    for (int i = 0; i < 2; i++) rc |= ABT_xstream_free(&xs[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&migr_key), ABT_SUCCESS);
}

/* ---- Tasklets ----------------------------------------------------------------------------- */

#define NTASKS 400
static ABT_key task_ka, task_kb;
static struct cell task_cells_a[NTASKS], task_cells_b[NTASKS];
static struct ult_report task_reports[NTASKS];

static void task_body(void *arg)
{
    int i = (int)(intptr_t)arg;
    struct ult_report *r = &task_reports[i];
    void *a = &a, *b = &b, *c = NULL;
    r->unset_null = ABT_self_get_specific(task_ka, &a) == ABT_SUCCESS && a == NULL &&
                    ABT_key_get(task_kb, &b) == ABT_SUCCESS && b == NULL;
    int ok = ABT_self_set_specific(task_ka, &task_cells_b[i]) == ABT_SUCCESS; /* overwritten below */
    ok &= ABT_key_set(task_ka, &task_cells_a[i]) == ABT_SUCCESS;
    ok &= ABT_key_set(task_kb, &task_cells_b[i]) == ABT_SUCCESS;
    ok &= ABT_key_get(task_ka, &a) == ABT_SUCCESS && a == &task_cells_a[i];
    ok &= ABT_self_get_specific(task_kb, &b) == ABT_SUCCESS && b == &task_cells_b[i];
    ABT_task me = ABT_TASK_NULL;
    r->self_rc = ABT_task_self(&me);
    ok &= ABT_task_get_specific(me, task_ka, &c) == ABT_SUCCESS && c == &task_cells_a[i];
    r->readback = ok;
    void *v = &v;
    r->errors_right = ABT_key_get(ABT_KEY_NULL, &v) == ABT_ERR_INV_KEY &&
                      ABT_self_set_specific(ABT_KEY_NULL, &v) == ABT_ERR_INV_KEY &&
                      ABT_key_get(task_ka, NULL) == ABT_ERR_INV_ARG;
}

static void test_tasklets(void)
{
    CHECK_INT(ABT_key_create(dtor6, &task_ka), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(dtor7, &task_kb), ABT_SUCCESS);
    ABT_task *t = malloc(sizeof *t * NTASKS);
    int rc = 0;
    for (int i = 0; i < NTASKS; i++) rc |= ABT_task_create(pools[i % NSTREAMS], task_body, (void *)(intptr_t)i, &t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    for (int i = 0; i < NTASKS; i++) rc |= ABT_task_join(t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(calls(6) + calls(7), 0);
    for (int i = 0; i < NTASKS; i++) rc |= ABT_task_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    free(t);
    int unset_null = 0, readback = 0, errors_right = 0, self_ok = 0;
    for (int i = 0; i < NTASKS; i++) {
        unset_null += task_reports[i].unset_null;
        readback += task_reports[i].readback;
        errors_right += task_reports[i].errors_right;
        self_ok += task_reports[i].self_rc == ABT_SUCCESS;
    }
    CHECK_INT(unset_null, NTASKS);
    CHECK_INT(readback, NTASKS);
    CHECK_INT(errors_right, NTASKS);
    CHECK_INT(self_ok, NTASKS);
    /* The first value of task_ka was overwritten: only the last one of each key is destroyed. */
    CHECK_INT(calls(6), NTASKS);
    CHECK_INT(calls(7), NTASKS);
    CHECK_INT(destroyed_once_by(task_cells_a, NTASKS, 6), NTASKS);
    CHECK_INT(destroyed_once_by(task_cells_b, NTASKS, 7), NTASKS);
    CHECK_INT(ABT_key_free(&task_ka), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&task_kb), ABT_SUCCESS);
}

/* ---- Destructors: when and with what ------------------------------------------------------ */

#define NUNNAMED 200
static ABT_key unnamed_key;
static struct cell unnamed_cells[2 * NUNNAMED];

static void unnamed_sets(void *arg)
{
    int i = (int)(intptr_t)arg;
    ABT_key_set(unnamed_key, &unnamed_cells[i]);
}

struct setter_args {
    ABT_key keys[3];
    void *values[3][3]; /* per key, the values set in order (NULL ends the list early) */
    int rc;
};

static void set_in_order(void *arg)
{
    struct setter_args *s = arg;
    for (int k = 0; k < 3; k++) {
        if (s->keys[k] == ABT_KEY_NULL) continue;
        for (int j = 0; j < 3; j++) {
            s->rc |= ABT_key_set(s->keys[k], s->values[k][j]);
        }
    }
}

static ABT_key exit_key;
static void set_then_exit(void *arg)
{
    ABT_key_set(exit_key, arg);
    if ((uintptr_t)arg / sizeof(struct cell) % 2 == 0) ABT_thread_exit(); /* every other one */
}

static ABT_thread run_setter(struct setter_args *s, int stream)
{
    ABT_thread t = ABT_THREAD_NULL;
    CHECK_INT(ABT_thread_create(pools[stream], set_in_order, s, ABT_THREAD_ATTR_NULL, &t), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(t), ABT_SUCCESS);
    CHECK_INT(s->rc, ABT_SUCCESS);
    return t;
}

static void test_destructors(void)
{
    ABT_key k8, k9, knull;
    CHECK_INT(ABT_key_create(dtor8, &k8), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(dtor9, &k9), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(NULL, &knull), ABT_SUCCESS);
    static struct cell c[24];
    void *v = NULL;

    /* At free, not at join, with the last value; an overwritten value is never destroyed. */
    struct setter_args s1 = {{k8, ABT_KEY_NULL, ABT_KEY_NULL}, {{&c[0], &c[1], &c[2]}}, 0};
    ABT_thread t = run_setter(&s1, 1);
    CHECK_INT(calls(8), 0);
    CHECK_INT(ABT_thread_get_specific(t, k8, &v), ABT_SUCCESS);
    CHECK(v == &c[2]);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(calls(8), 1);
    CHECK_INT(destroyed_once_by(&c[2], 1, 8), 1);
    CHECK_INT(untouched(&c[0], 2), 2);

    /* Only non-NULL values: a value set back to NULL is not destroyed. */
    struct setter_args s2 = {{k8, ABT_KEY_NULL, ABT_KEY_NULL}, {{&c[3], &c[4], NULL}}, 0};
    t = run_setter(&s2, 2);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(calls(8), 1);
    CHECK_INT(untouched(&c[3], 2), 2);

    /* Several keys on one unit: each key's own destructor, once, with that key's value; a key
     * without destructor leaves its value alone. */
    struct setter_args s3 = {{k8, k9, knull}, {{&c[5], &c[5], &c[5]}, {NULL, &c[6], &c[6]}, {&c[7], &c[7], &c[7]}}, 0};
    t = run_setter(&s3, 3);
    CHECK_INT(calls(8) + calls(9), 1);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(calls(8), 2);
    CHECK_INT(calls(9), 1);
    CHECK_INT(destroyed_once_by(&c[5], 1, 8), 1);
    CHECK_INT(destroyed_once_by(&c[6], 1, 9), 1);
    CHECK_INT(untouched(&c[7], 1), 1);

    /* A key freed before its unit: the destructor still runs when the unit is freed. */
    ABT_key kf;
    CHECK_INT(ABT_key_create(dtor10, &kf), ABT_SUCCESS);
    struct setter_args s4 = {{kf, ABT_KEY_NULL, ABT_KEY_NULL}, {{&c[8], &c[8], &c[8]}}, 0};
    t = run_setter(&s4, 1);
    CHECK_INT(ABT_key_free(&kf), ABT_SUCCESS);
    CHECK_INT(calls(10), 0);
    CHECK_INT(ABT_thread_free(&t), ABT_SUCCESS);
    CHECK_INT(calls(10), 1);
    CHECK_INT(destroyed_once_by(&c[8], 1, 10), 1);

    /* The same for a tasklet, on the primary stream. */
    CHECK_INT(ABT_key_create(dtor10, &kf), ABT_SUCCESS);
    struct setter_args s5 = {{kf, ABT_KEY_NULL, ABT_KEY_NULL}, {{&c[9], &c[9], &c[10]}}, 0};
    ABT_task tk;
    CHECK_INT(ABT_task_create(pools[0], set_in_order, &s5, &tk), ABT_SUCCESS);
    CHECK_INT(ABT_task_join(tk), ABT_SUCCESS);
    CHECK_INT(s5.rc, ABT_SUCCESS);
    CHECK_INT(ABT_task_get_specific(tk, kf, &v), ABT_SUCCESS);
    CHECK(v == &c[10]);
    CHECK_INT(ABT_key_free(&kf), ABT_SUCCESS);
    CHECK_INT(calls(10), 1);
    CHECK_INT(ABT_task_free(&tk), ABT_SUCCESS);
    CHECK_INT(calls(10), 2);
    CHECK_INT(destroyed_once_by(&c[10], 1, 10), 1);
    CHECK_INT(untouched(&c[9], 1), 1);

    /* ULTs that end with ABT_thread_exit, freed with ABT_thread_free_many. */
    exit_key = k9;
    ABT_thread list[8];
    int rc = 0;
    for (int i = 0; i < 8; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], set_then_exit, &c[12 + i], ABT_THREAD_ATTR_NULL, &list[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_thread_join_many(8, list), ABT_SUCCESS);
    int values_ok = 1;
    for (int i = 0; i < 8; i++) values_ok &= ABT_thread_get_specific(list[i], k9, &v) == ABT_SUCCESS && v == &c[12 + i];
    CHECK(values_ok);
    CHECK_INT(calls(9), 1);
    CHECK_INT(ABT_thread_free_many(8, list), ABT_SUCCESS);
    CHECK_INT(calls(9), 9);
    int destroyed = 0;
    for (int i = 0; i < 8; i++) destroyed += once_by9(&c[12 + i]);
    CHECK_INT(destroyed, 8);

    /* Unnamed ULTs and tasklets are freed when they end: their values are destroyed then. */
    CHECK_INT(ABT_key_create(dtor11, &unnamed_key), ABT_SUCCESS);
    for (int i = 0; i < NUNNAMED; i++) {
        rc |= ABT_thread_create(pools[i % NSTREAMS], unnamed_sets, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, NULL);
        rc |= ABT_task_create(pools[(i + 1) % NSTREAMS], unnamed_sets, (void *)(intptr_t)(NUNNAMED + i), NULL);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(wait_for(&dtor_calls[11], 2 * NUNNAMED));
    CHECK_INT(destroyed_once_by(unnamed_cells, 2 * NUNNAMED, 11), 2 * NUNNAMED);
    CHECK_INT(ABT_key_free(&unnamed_key), ABT_SUCCESS);

    CHECK_INT(ABT_key_free(&k8), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&k9), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&knull), ABT_SUCCESS);
    CHECK_INT(calls(8), 2);
    CHECK_INT(calls(9), 9);
}

/* ---- Key ids reused after ABT_key_free ---------------------------------------------------- */

/* Main-ULT values of the reuse test and of the cycles; their destructors run at ABT_finalize,
 * when the main ULT is freed, and are checked after it. */
static struct cell reuse_main_a, reuse_main_b;
static ABT_key reuse_b;
#define NCYCLES 10000
static struct cell cycle_cells[NCYCLES];
static int cycle_fresh_null, cycle_readback;

struct reuse_target {
    ABT_key *key;
    void *seen; /* what the unit read for *key when it ran */
    int rc;
};

static void read_key(void *arg)
{
    struct reuse_target *r = arg;
    r->seen = &r->seen;
    r->rc = ABT_key_get(*r->key, &r->seen);
}

static void test_reuse(void)
{
    static struct cell ra[4], rb[4];
    ABT_key a;
    CHECK_INT(ABT_key_create(dtor12, &a), ABT_SUCCESS);
    /* Values under a: a joined ULT, a joined tasklet, the main ULT, a ULT that gets nothing
     * under the newer key, and a ULT not started yet (set from here). */
    struct setter_args su1 = {{a, ABT_KEY_NULL, ABT_KEY_NULL}, {{&ra[0], &ra[0], &ra[0]}}, 0};
    struct setter_args su2 = {{a, ABT_KEY_NULL, ABT_KEY_NULL}, {{&ra[2], &ra[2], &ra[2]}}, 0};
    struct setter_args st1 = {{a, ABT_KEY_NULL, ABT_KEY_NULL}, {{&ra[1], &ra[1], &ra[1]}}, 0};
    ABT_thread u1 = run_setter(&su1, 1), u2 = run_setter(&su2, 2);
    ABT_task t1;
    CHECK_INT(ABT_task_create(pools[3], set_in_order, &st1, &t1), ABT_SUCCESS);
    CHECK_INT(ABT_task_join(t1), ABT_SUCCESS);
    CHECK_INT(st1.rc, ABT_SUCCESS);
    CHECK_INT(ABT_key_set(a, &reuse_main_a), ABT_SUCCESS);
    ABT_pool idle;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &idle), ABT_SUCCESS);
    struct reuse_target r3 = {&reuse_b, NULL, -1};
    ABT_thread u3;
    CHECK_INT(ABT_thread_create(idle, read_key, &r3, ABT_THREAD_ATTR_NULL, &u3), ABT_SUCCESS);
    CHECK_INT(ABT_thread_set_specific(u3, a, &ra[3]), ABT_SUCCESS);
    void *v = NULL;
    CHECK_INT(ABT_thread_get_specific(u3, a, &v), ABT_SUCCESS);
    CHECK(v == &ra[3]);

    CHECK_INT(ABT_key_free(&a), ABT_SUCCESS);
    CHECK_INT(ABT_key_create(dtor1, &reuse_b), ABT_SUCCESS);
    /* Nothing is set under the newer key anywhere. */
    v = &v;
    CHECK_INT(ABT_thread_get_specific(u1, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    v = &v;
    CHECK_INT(ABT_thread_get_specific(u2, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    v = &v;
    CHECK_INT(ABT_task_get_specific(t1, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    v = &v;
    CHECK_INT(ABT_key_get(reuse_b, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    v = &v;
    CHECK_INT(ABT_thread_get_specific(main_ult, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    v = &v;
    CHECK_INT(ABT_thread_get_specific(u3, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    /* The not-yet-started ULT runs and reads the newer key itself. */
    ABT_xstream drain;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &idle, ABT_SCHED_CONFIG_NULL, &drain), ABT_SUCCESS);
    CHECK_INT(ABT_thread_join(u3), ABT_SUCCESS);
    CHECK_INT(r3.rc, ABT_SUCCESS);
    CHECK(r3.seen == NULL);

    /* Values under the newer key. */
    CHECK_INT(ABT_thread_set_specific(u1, reuse_b, &rb[0]), ABT_SUCCESS);
    CHECK_INT(ABT_task_set_specific(t1, reuse_b, &rb[1]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_set_specific(u3, reuse_b, &rb[3]), ABT_SUCCESS);
    CHECK_INT(ABT_key_set(reuse_b, &reuse_main_b), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_specific(u1, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == &rb[0]);
    CHECK_INT(ABT_task_get_specific(t1, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == &rb[1]);
    CHECK_INT(ABT_thread_get_specific(u3, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == &rb[3]);
    CHECK_INT(ABT_key_get(reuse_b, &v), ABT_SUCCESS);
    CHECK(v == &reuse_main_b);
    v = &v;
    CHECK_INT(ABT_thread_get_specific(u2, reuse_b, &v), ABT_SUCCESS);
    CHECK(v == NULL);

    CHECK_INT(ABT_thread_free(&u1), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u2), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&u3), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&t1), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&drain), ABT_SUCCESS);
    /* Every unit but the main ULT is freed: each value of either key destroyed once by its own
     * key's destructor; the main ULT's are checked after ABT_finalize. */
    CHECK_INT(destroyed_once_by(ra, 4, 12), 4);
    CHECK_INT(destroyed_once_by(&rb[0], 2, 1), 2);
    CHECK_INT(destroyed_once_by(&rb[3], 1, 1), 1);
    CHECK_INT(untouched(&rb[2], 1), 1);

    /* Many keys created, set on the main ULT and freed, one after the other: each new key reads
     * NULL although its id (and the main ULT's slot) held the previous key's value. */
    for (int i = 0; i < NCYCLES; i++) {
        ABT_key k = ABT_KEY_NULL;
        void *got = &got;
        int ok = ABT_key_create(dtor3, &k) == ABT_SUCCESS;
        cycle_fresh_null += ok && ABT_key_get(k, &got) == ABT_SUCCESS && got == NULL;
        ok &= ABT_key_set(k, &cycle_cells[i]) == ABT_SUCCESS;
        cycle_readback += ok && ABT_key_get(k, &got) == ABT_SUCCESS && got == &cycle_cells[i];
        ABT_key_free(&k);
    }
    CHECK_INT(cycle_fresh_null, NCYCLES);
    CHECK_INT(cycle_readback, NCYCLES);
}

/* ---- External threads --------------------------------------------------------------------- */

struct ext_report {
    int set_rc, get_rc, self_set_rc, self_get_rc;
    int null_set_rc, null_get_rc, null_ptr_rc;
    int create_rc, free_rc;
};

static ABT_key ext_key;

static void *external(void *arg)
{
    struct ext_report *r = arg;
    void *v = &v;
    r->set_rc = ABT_key_set(ext_key, &v);
    r->get_rc = ABT_key_get(ext_key, &v);
    r->self_set_rc = ABT_self_set_specific(ext_key, &v);
    r->self_get_rc = ABT_self_get_specific(ext_key, &v);
    r->null_set_rc = ABT_key_set(ABT_KEY_NULL, &v);
    r->null_get_rc = ABT_self_get_specific(ABT_KEY_NULL, &v);
    r->null_ptr_rc = ABT_key_get(ext_key, NULL);
    /* Keys are not tied to a work unit: an external thread may create and free them. */
    ABT_key k = ABT_KEY_NULL;
    r->create_rc = ABT_key_create(dtor1, &k);
    r->free_rc = ABT_key_free(&k);
    return NULL;
}

static void test_external(void)
{
    CHECK_INT(ABT_key_create(dtor1, &ext_key), ABT_SUCCESS);
    struct ext_report r;
    memset(&r, 0xff, sizeof r);
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, external, &r), 0);
    CHECK_INT(pthread_join(th, NULL), 0);
    CHECK_INT(r.set_rc, ABT_ERR_INV_XSTREAM);
    CHECK_INT(r.get_rc, ABT_ERR_INV_XSTREAM);
    CHECK_INT(r.self_set_rc, ABT_ERR_INV_XSTREAM);
    CHECK_INT(r.self_get_rc, ABT_ERR_INV_XSTREAM);
    CHECK_INT(r.null_set_rc, ABT_ERR_INV_KEY);
    CHECK_INT(r.null_get_rc, ABT_ERR_INV_KEY);
    CHECK_INT(r.null_ptr_rc, ABT_ERR_INV_ARG);
    CHECK_INT(r.create_rc, ABT_SUCCESS);
    CHECK_INT(r.free_rc, ABT_SUCCESS);
    /* Nothing landed on the main ULT. */
    void *v = &v;
    CHECK_INT(ABT_key_get(ext_key, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    CHECK_INT(ABT_key_free(&ext_key), ABT_SUCCESS);
}

/* ---- ABT_finalize and after --------------------------------------------------------------- */

static struct cell fin_cells[2];
static ABT_key fin_key;

static void test_finalize(void)
{
    int before1 = calls(1), before2 = calls(2);
    CHECK_INT(ABT_key_create(dtor9, &fin_key), ABT_SUCCESS);
    CHECK_INT(ABT_key_set(fin_key, &fin_cells[0]), ABT_SUCCESS);
    int before9 = calls(9);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    /* The main ULT's values are destroyed at ABT_finalize, once each. */
    CHECK_INT(calls(9) - before9, 1);
    CHECK_INT(destroyed_once_by(fin_cells, 1, 9), 1);
    /* test_main_ult: only main_cells[2] (main_k1's last value). */
    CHECK_INT(destroyed_once_by(&main_cells[2], 1, 2), 1);
    CHECK_INT(untouched(main_cells, 2), 2);
    CHECK_INT(untouched(&main_cells[3], 2), 2);
    CHECK_INT(calls(2) - before2, 1);
    /* test_reuse: the freed key's value and the newer key's, on the main ULT. */
    CHECK_INT(destroyed_once_by(&reuse_main_a, 1, 12), 1);
    CHECK_INT(destroyed_once_by(&reuse_main_b, 1, 1), 1);
    CHECK_INT(calls(12), 5); /* ra[0..3] and reuse_main_a */
    CHECK_INT(calls(1) - before1, 1);
    /* The cycles: every key's value was destroyed exactly once, all at ABT_finalize (when the
     * main ULT is freed), also those whose slot the next key took over. */
    CHECK_INT(destroyed_once_by(cycle_cells, NCYCLES, 3), NCYCLES);
    CHECK_INT(calls(3), NCYCLES);

    /* Not initialized: the key is checked first, then initialization. */
    void *v = &v;
    CHECK_INT(ABT_key_set(fin_key, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_key_get(fin_key, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_self_set_specific(fin_key, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_self_get_specific(fin_key, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_key_set(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_key_get(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_set_specific(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_self_get_specific(ABT_KEY_NULL, &v), ABT_ERR_INV_KEY);
    CHECK_INT(ABT_thread_set_specific(main_ult, fin_key, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_thread_get_specific(main_ult, fin_key, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_thread_set_specific(ABT_THREAD_NULL, ABT_KEY_NULL, &v), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_thread_get_specific(ABT_THREAD_NULL, ABT_KEY_NULL, &v), ABT_ERR_UNINITIALIZED);

    /* The key outlives ABT_finalize: a new main ULT starts without values and uses it. */
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_thread main2;
    CHECK_INT(ABT_thread_self(&main2), ABT_SUCCESS);
    v = &v;
    CHECK_INT(ABT_key_get(fin_key, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    v = &v;
    CHECK_INT(ABT_thread_get_specific(main2, main_k1, &v), ABT_SUCCESS);
    CHECK(v == NULL);
    CHECK_INT(ABT_key_set(fin_key, &fin_cells[1]), ABT_SUCCESS);
    CHECK_INT(ABT_thread_get_specific(main2, fin_key, &v), ABT_SUCCESS);
    CHECK(v == &fin_cells[1]);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    CHECK_INT(destroyed_once_by(fin_cells, 2, 9), 2);
    CHECK_INT(calls(9) - before9, 2);
    /* Keys are freed after ABT_finalize. */
    CHECK_INT(ABT_key_free(&fin_key), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&main_k1), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&main_k2), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&main_knull), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&reuse_b), ABT_SUCCESS);
    CHECK(fin_key == ABT_KEY_NULL && main_k1 == ABT_KEY_NULL && reuse_b == ABT_KEY_NULL);
    CHECK_INT(calls(2) - before2, 1);
    CHECK_INT(calls(1) - before1, 1);
}

int main(void)
{
    test_before_init();
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_self(&main_ult), ABT_SUCCESS);
    int rc = start_streams(NSTREAMS, streams, pools);
    CHECK_INT(rc, ABT_SUCCESS);

    test_create_free();
    test_main_ult();
    test_ults();
    test_migrating();
    test_tasklets();
    test_destructors();
    test_reuse();
    test_external();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    test_finalize();
    return check_summary();
}
