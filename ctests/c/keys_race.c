/* Work-unit-specific data under races and at scale, on 4 streams (primary + 3):
 *  - 4 streams x 64 ULTs released at once set the same 32 values on ONE not-yet-started ULT
 *    (its table and chunks are created by whichever setter comes first), and each one more key
 *    of its own, reading back as they go; the target then runs, reads all values with
 *    ABT_key_get, and its free destroys each exactly once; keys consecutive and spread over several chunks; the same with tasklet setters
 *    and a not-yet-started tasklet target;
 *  - 8 setters on 4 streams racing over the first entries of 256 fresh targets each, once with
 *    the targets not started and once with the targets running and setting their own key at the
 *    same time;
 *  - set_specific on a unit (ULT or tasklet) that finishes concurrently: the last value each
 *    setter wrote is what get_specific returns afterwards, and the free destroys it, once;
 *  - 8 setters racing to set a newer key on 64 targets whose slot (the same id) still holds a
 *    freed key's value: that value destroyed exactly once, and only at the target's free (the
 *    target may still use it), the newer one once too;
 *  - tasklets on 3 streams filling the main ULT's table while the main ULT sets its own keys;
 *  - 16 ULTs on 4 streams creating, using and freeing keys concurrently (ids reused under them);
 *  - 1100 keys live at once, all set and read back on 4 ULTs at once, on a tasklet, and on a
 *    not-yet-started ULT by 4 concurrent setters;
 *  - 100,000 ULTs and tasklets in batches over 2 streams, each setting a key with a counting
 *    destructor: exactly 100,000 calls, each value once.
 * Destructor counts are exact: every value is the address of its own counter. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define NSTREAMS 4
static ABT_xstream streams[NSTREAMS]; /* [0] is the primary */
static ABT_pool pools[NSTREAMS];      /* their main pools */
static ABT_thread main_ult;

/* ---- Values and the counting destructor --------------------------------------------------- */

/* A value is the address of an int; the destructor increments it and a global total. */
static long dtor_total;
static void count_dtor(void *v)
{
    __atomic_add_fetch((int *)v, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&dtor_total, 1, __ATOMIC_RELEASE);
}
static long total(void) { return __atomic_load_n(&dtor_total, __ATOMIC_ACQUIRE); }

/* How many of hits[0..n) are exactly 1. */
static int ones(int *hits, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) c += __atomic_load_n(&hits[i], __ATOMIC_ACQUIRE) == 1;
    return c;
}

static int sum(int *hits, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) c += __atomic_load_n(&hits[i], __ATOMIC_ACQUIRE);
    return c;
}

/* 300 keys: the races pick from them, so that their slots fall in several chunks. */
#define NALL 300
static ABT_key all_keys[NALL];

static int yield_until(int *flag, int want)
{
    double end = ABT_get_wtime() + 10.0;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < want) {
        if (ABT_get_wtime() > end) return 0;
        ABT_thread_yield();
    }
    return 1;
}

/* For tasklets, which cannot yield. */
static int spin_until(int *flag, int want)
{
    double end = ABT_get_wtime() + 10.0;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < want) {
        if (ABT_get_wtime() > end) return 0;
    }
    return 1;
}

static ABT_xstream drain_pool(ABT_pool p)
{
    ABT_xstream xs = ABT_XSTREAM_NULL;
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &p, ABT_SCHED_CONFIG_NULL, &xs), ABT_SUCCESS);
    return xs;
}

static ABT_pool idle_pool(void)
{
    ABT_pool p = ABT_POOL_NULL;
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &p), ABT_SUCCESS);
    return p;
}

/* ---- (1) Many setters, one not-yet-started target ---------------------------------------- */

#define R1_PER_STREAM 64
#define R1_SETTERS (NSTREAMS * R1_PER_STREAM)
#define R1_KEYS 32
#define R1_ROUNDS 12
static ABT_key r1_keys[R1_KEYS];
static int r1_hits[R1_KEYS]; /* the value of r1_keys[k] is &r1_hits[k], for every setter */
/* Besides, setter s alone sets r1_own_keys[s] to &r1_own_hits[s]: a write lost to a race (a
 * table or chunk replaced under it) is not repaired by another setter writing the same value. */
static ABT_key r1_own_keys[R1_SETTERS];
static int r1_own_hits[R1_SETTERS];
static ABT_thread r1_target;
static int r1_ready, r1_go, r1_bad_reads, r1_rc, r1_timeouts, r1_target_mismatch;
static int r1_nsetters; /* this round's */

static void r1_set_own(int s, int *rc, int *bad)
{
    void *v = NULL;
    *rc |= ABT_thread_set_specific(r1_target, r1_own_keys[s], &r1_own_hits[s]);
    *rc |= ABT_thread_get_specific(r1_target, r1_own_keys[s], &v);
    *bad += v != &r1_own_hits[s];
}

static void r1_set_all(int s)
{
    int rc = 0, bad = 0;
    /* Half the setters start with their own key, half with the shared ones. */
    if (s % 2) r1_set_own(s, &rc, &bad);
    for (int j = 0; j < R1_KEYS; j++) {
        int k = s % 2 ? (s + j) % R1_KEYS : (s + R1_KEYS - j) % R1_KEYS;
        void *v = NULL, *w = NULL;
        rc |= ABT_thread_set_specific(r1_target, r1_keys[k], &r1_hits[k]);
        /* Every setter writes the same value: it reads back its own at once... */
        rc |= ABT_thread_get_specific(r1_target, r1_keys[k], &v);
        bad += v != &r1_hits[k];
        /* ... and any other key reads unset or its value, never anything else. */
        int k2 = (k + 7) % R1_KEYS;
        rc |= ABT_thread_get_specific(r1_target, r1_keys[k2], &w);
        bad += w != NULL && w != &r1_hits[k2];
    }
    if (s % 2 == 0) r1_set_own(s, &rc, &bad);
    __atomic_or_fetch(&r1_rc, rc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&r1_bad_reads, bad, __ATOMIC_RELAXED);
}

static void r1_ult_setter(void *arg)
{
    __atomic_add_fetch(&r1_ready, 1, __ATOMIC_RELEASE);
    if (!yield_until(&r1_go, 1)) __atomic_add_fetch(&r1_timeouts, 1, __ATOMIC_RELAXED);
    r1_set_all((int)(intptr_t)arg);
}

static void r1_task_setter(void *arg)
{
    /* The first tasklet of each stream spins until all are created; the others queue behind. */
    if (!spin_until(&r1_go, 1)) __atomic_add_fetch(&r1_timeouts, 1, __ATOMIC_RELAXED);
    r1_set_all((int)(intptr_t)arg);
}

static void r1_target_body(void *arg)
{
    (void)arg;
    int mismatch = 0;
    for (int k = 0; k < R1_KEYS; k++) {
        void *v = NULL;
        if (ABT_key_get(r1_keys[k], &v) != ABT_SUCCESS || v != &r1_hits[k]) mismatch++;
    }
    for (int s = 0; s < r1_nsetters; s++) {
        void *v = NULL;
        if (ABT_key_get(r1_own_keys[s], &v) != ABT_SUCCESS || v != &r1_own_hits[s]) mismatch++;
    }
    __atomic_add_fetch(&r1_target_mismatch, mismatch, __ATOMIC_RELAXED);
}

/* One round; tasklets: setters are tasklets on streams 1..3 (a spinning tasklet on the primary
 * stream would keep the main ULT from releasing them) and the target is a tasklet. */
static void r1_round(int round, int tasklets, int *main_mismatch, int *destroyed_ok, long *delta)
{
    for (int k = 0; k < R1_KEYS; k++) {
        /* Even rounds: 32 consecutive keys (chunks 0-1); odd: spread over chunks 0-4. */
        r1_keys[k] = round % 2 ? all_keys[k * 9] : all_keys[k];
        r1_hits[k] = 0;
    }
    memset(r1_own_hits, 0, sizeof r1_own_hits);
    r1_ready = r1_go = 0;
    ABT_pool idle = idle_pool();
    if (tasklets) {
        CHECK_INT(ABT_task_create(idle, r1_target_body, NULL, &r1_target), ABT_SUCCESS);
    } else {
        CHECK_INT(ABT_thread_create(idle, r1_target_body, NULL, ABT_THREAD_ATTR_NULL, &r1_target), ABT_SUCCESS);
    }
    static ABT_thread setters[R1_SETTERS];
    int n = tasklets ? (NSTREAMS - 1) * R1_PER_STREAM : R1_SETTERS;
    int rc = 0;
    r1_nsetters = n;
    for (int s = 0; s < n; s++) {
        if (tasklets) {
            rc |= ABT_task_create(pools[1 + s % (NSTREAMS - 1)], r1_task_setter, (void *)(intptr_t)s, &setters[s]);
        } else {
            rc |= ABT_thread_create(pools[s % NSTREAMS], r1_ult_setter, (void *)(intptr_t)s, ABT_THREAD_ATTR_NULL, &setters[s]);
        }
    }
    if (!tasklets && !yield_until(&r1_ready, n)) r1_timeouts++;
    __atomic_store_n(&r1_go, 1, __ATOMIC_RELEASE);
    for (int s = 0; s < n; s++) rc |= tasklets ? ABT_task_free(&setters[s]) : ABT_thread_free(&setters[s]);
    __atomic_or_fetch(&r1_rc, rc, __ATOMIC_RELAXED);
    /* All 32 values landed, seen from here before the target runs. */
    for (int k = 0; k < R1_KEYS; k++) {
        void *v = NULL;
        if (ABT_thread_get_specific(r1_target, r1_keys[k], &v) != ABT_SUCCESS || v != &r1_hits[k]) (*main_mismatch)++;
    }
    for (int s = 0; s < n; s++) {
        void *v = NULL;
        if (ABT_thread_get_specific(r1_target, r1_own_keys[s], &v) != ABT_SUCCESS || v != &r1_own_hits[s]) (*main_mismatch)++;
    }
    ABT_xstream drain = drain_pool(idle);
    long before = total();
    if (tasklets) {
        CHECK_INT(ABT_task_free(&r1_target), ABT_SUCCESS);
    } else {
        CHECK_INT(ABT_thread_free(&r1_target), ABT_SUCCESS);
    }
    *delta += total() - before;
    *destroyed_ok += ones(r1_hits, R1_KEYS) == R1_KEYS && ones(r1_own_hits, n) == n &&
                     sum(r1_own_hits, R1_SETTERS) == n;
    CHECK_INT(ABT_xstream_free(&drain), ABT_SUCCESS);
}

static void test_one_target(void)
{
    int rc = 0;
    for (int s = 0; s < R1_SETTERS; s++) rc |= ABT_key_create(count_dtor, &r1_own_keys[s]);
    CHECK_INT(rc, ABT_SUCCESS);
    for (int tasklets = 0; tasklets < 2; tasklets++) {
        int n = tasklets ? (NSTREAMS - 1) * R1_PER_STREAM : R1_SETTERS;
        int main_mismatch = 0, destroyed_ok = 0;
        long delta = 0;
        r1_bad_reads = r1_rc = r1_timeouts = r1_target_mismatch = 0;
        for (int round = 0; round < R1_ROUNDS; round++) r1_round(round, tasklets, &main_mismatch, &destroyed_ok, &delta);
        printf("%s setters, %d rounds:\n", tasklets ? "tasklet" : "ULT", R1_ROUNDS);
        CHECK_INT(r1_rc, ABT_SUCCESS);
        CHECK_INT(r1_timeouts, 0);
        CHECK_INT(r1_bad_reads, 0);
        CHECK_INT(main_mismatch, 0);
        CHECK_INT(r1_target_mismatch, 0);   /* the target read every value itself */
        CHECK_INT(destroyed_ok, R1_ROUNDS); /* each value destroyed exactly once at its free */
        CHECK_INT(delta, R1_ROUNDS * (R1_KEYS + n));
    }
    for (int s = 0; s < R1_SETTERS; s++) rc |= ABT_key_free(&r1_own_keys[s]);
    CHECK_INT(rc, ABT_SUCCESS);
}

/* ---- (1b) Many setters, many fresh targets ------------------------------------------------ */

#define MT_TARGETS 256
#define MT_SETTERS 8
#define MT_KEYS 4
#define MT_ROUNDS 6
static ABT_key mt_keys[MT_KEYS], mt_own_key;
static ABT_thread mt_targets[MT_TARGETS];
static int mt_hits[MT_TARGETS][MT_KEYS + 1]; /* [MT_KEYS]: the target's own value */
/* Setter s alone sets mt_setter_keys[s] on every target (not repaired if lost). */
static ABT_key mt_setter_keys[MT_SETTERS];
static int mt_setter_hits[MT_TARGETS][MT_SETTERS];
static int mt_ready, mt_go, mt_setters_done, mt_rc, mt_bad_reads, mt_timeouts, mt_mismatch;
static int mt_concurrent; /* the targets run (and set their own key) while the setters set */

static void mt_setter(void *arg)
{
    int s = (int)(intptr_t)arg, rc = 0, bad = 0;
    __atomic_add_fetch(&mt_ready, 1, __ATOMIC_RELEASE);
    if (!yield_until(&mt_go, 1)) __atomic_add_fetch(&mt_timeouts, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < MT_TARGETS; i++) {
        /* Setters walk the targets in different orders, from different keys: first entries of
         * tables and chunks collide. */
        int t = s % 2 ? (i + s * 37) % MT_TARGETS : (MT_TARGETS - 1 - i + s * 37) % MT_TARGETS;
        void *u = NULL;
        if (s % 2) rc |= ABT_thread_set_specific(mt_targets[t], mt_setter_keys[s], &mt_setter_hits[t][s]);
        for (int j = 0; j < MT_KEYS; j++) {
            int k = (j + s) % MT_KEYS;
            void *v = NULL;
            rc |= ABT_thread_set_specific(mt_targets[t], mt_keys[k], &mt_hits[t][k]);
            rc |= ABT_thread_get_specific(mt_targets[t], mt_keys[k], &v);
            bad += v != &mt_hits[t][k];
        }
        if (s % 2 == 0) rc |= ABT_thread_set_specific(mt_targets[t], mt_setter_keys[s], &mt_setter_hits[t][s]);
        rc |= ABT_thread_get_specific(mt_targets[t], mt_setter_keys[s], &u);
        bad += u != &mt_setter_hits[t][s];
        void *w = NULL;
        rc |= ABT_thread_get_specific(mt_targets[t], mt_own_key, &w);
        bad += w != NULL && w != &mt_hits[t][MT_KEYS];
    }
    __atomic_or_fetch(&mt_rc, rc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&mt_bad_reads, bad, __ATOMIC_RELAXED);
}

static void mt_target_body(void *arg)
{
    int t = (int)(intptr_t)arg, mismatch = 0;
    if (mt_concurrent) {
        /* Its first entry races with the setters' first entries. */
        if (ABT_key_set(mt_own_key, &mt_hits[t][MT_KEYS]) != ABT_SUCCESS) mismatch++;
        if (!yield_until(&mt_setters_done, 1)) __atomic_add_fetch(&mt_timeouts, 1, __ATOMIC_RELAXED);
    }
    for (int k = 0; k < MT_KEYS; k++) {
        void *v = NULL;
        if (ABT_key_get(mt_keys[k], &v) != ABT_SUCCESS || v != &mt_hits[t][k]) mismatch++;
    }
    for (int s = 0; s < MT_SETTERS; s++) {
        void *v = NULL;
        if (ABT_key_get(mt_setter_keys[s], &v) != ABT_SUCCESS || v != &mt_setter_hits[t][s]) mismatch++;
    }
    if (!mt_concurrent && ABT_key_set(mt_own_key, &mt_hits[t][MT_KEYS]) != ABT_SUCCESS) mismatch++;
    void *own = NULL;
    if (ABT_key_get(mt_own_key, &own) != ABT_SUCCESS || own != &mt_hits[t][MT_KEYS]) mismatch++;
    __atomic_add_fetch(&mt_mismatch, mismatch, __ATOMIC_RELAXED);
}

static void test_many_targets(void)
{
    mt_keys[0] = all_keys[3];   /* chunk 0 */
    mt_keys[1] = all_keys[30];  /* chunk 1 */
    mt_keys[2] = all_keys[77];  /* chunk 2 */
    mt_keys[3] = all_keys[290]; /* chunk 4 */
    mt_own_key = all_keys[140]; /* chunk 3 */
    for (int s = 0; s < MT_SETTERS; s++) mt_setter_keys[s] = all_keys[8 + 37 * s]; /* chunks 0-4 */
    for (mt_concurrent = 0; mt_concurrent < 2; mt_concurrent++) {
        mt_rc = mt_bad_reads = mt_timeouts = mt_mismatch = 0;
        int destroyed_ok = 0, rc = 0;
        long delta = 0;
        for (int round = 0; round < MT_ROUNDS; round++) {
            memset(mt_hits, 0, sizeof mt_hits);
            memset(mt_setter_hits, 0, sizeof mt_setter_hits);
            mt_ready = mt_go = mt_setters_done = 0;
            ABT_pool idle = idle_pool();
            for (int t = 0; t < MT_TARGETS; t++) {
                rc |= ABT_thread_create(idle, mt_target_body, (void *)(intptr_t)t, ABT_THREAD_ATTR_NULL, &mt_targets[t]);
            }
            ABT_thread setters[MT_SETTERS];
            for (int s = 0; s < MT_SETTERS; s++) {
                rc |= ABT_thread_create(pools[s % NSTREAMS], mt_setter, (void *)(intptr_t)s, ABT_THREAD_ATTR_NULL, &setters[s]);
            }
            if (!yield_until(&mt_ready, MT_SETTERS)) mt_timeouts++;
            ABT_xstream drain = ABT_XSTREAM_NULL;
            __atomic_store_n(&mt_go, 1, __ATOMIC_RELEASE);
            if (mt_concurrent) drain = drain_pool(idle);
            for (int s = 0; s < MT_SETTERS; s++) rc |= ABT_thread_free(&setters[s]);
            __atomic_store_n(&mt_setters_done, 1, __ATOMIC_RELEASE);
            if (!mt_concurrent) drain = drain_pool(idle);
            long before = total();
            for (int t = 0; t < MT_TARGETS; t++) rc |= ABT_thread_free(&mt_targets[t]);
            delta += total() - before;
            destroyed_ok += ones(&mt_hits[0][0], MT_TARGETS * (MT_KEYS + 1)) == MT_TARGETS * (MT_KEYS + 1) &&
                            ones(&mt_setter_hits[0][0], MT_TARGETS * MT_SETTERS) == MT_TARGETS * MT_SETTERS;
            rc |= ABT_xstream_free(&drain);
        }
        printf("%d fresh targets x %d rounds, targets %s:\n", MT_TARGETS, MT_ROUNDS,
               mt_concurrent ? "running meanwhile" : "not started");
        CHECK_INT(rc, ABT_SUCCESS);
        CHECK_INT(mt_rc, ABT_SUCCESS);
        CHECK_INT(mt_timeouts, 0);
        CHECK_INT(mt_bad_reads, 0);
        CHECK_INT(mt_mismatch, 0);
        CHECK_INT(destroyed_ok, MT_ROUNDS);
        CHECK_INT(delta, MT_ROUNDS * MT_TARGETS * (MT_KEYS + 1 + MT_SETTERS));
    }
}

/* ---- (2) Setting on a unit that finishes concurrently ------------------------------------- */

#define FIN_ROUNDS 200
#define FIN_SETTERS 3
#define FIN_VALUES 64
#define FIN_AFTER 16 /* sets each setter makes after it saw the victim terminated */
static ABT_key fin_keys[FIN_SETTERS], fin_own_key;
static int fin_hits[FIN_SETTERS][FIN_VALUES], fin_own_hit;
static ABT_thread fin_victim;
static int fin_victim_is_task, fin_started, fin_rc, fin_timeouts;
static int fin_sets_before_end; /* sets made while the victim had not terminated yet */

struct fin_setter {
    int s, last;
};

static int victim_terminated(int *rc)
{
    if (fin_victim_is_task) {
        ABT_task_state st = ABT_TASK_STATE_READY;
        *rc |= ABT_task_get_state(fin_victim, &st);
        return st == ABT_TASK_STATE_TERMINATED;
    }
    ABT_thread_state st = ABT_THREAD_STATE_READY;
    *rc |= ABT_thread_get_state(fin_victim, &st);
    return st == ABT_THREAD_STATE_TERMINATED;
}

static void fin_setter_body(void *arg)
{
    struct fin_setter *f = arg;
    int rc = 0, after = 0, before_end = 0;
    __atomic_add_fetch(&fin_started, 1, __ATOMIC_RELEASE);
    double end = ABT_get_wtime() + 10.0;
    for (int i = 0;; i++) {
        int term = victim_terminated(&rc);
        rc |= ABT_thread_set_specific(fin_victim, fin_keys[f->s], &fin_hits[f->s][i % FIN_VALUES]);
        f->last = i;
        before_end += !term;
        if (term && ++after >= FIN_AFTER) break;
        if (ABT_get_wtime() > end) {
            __atomic_add_fetch(&fin_timeouts, 1, __ATOMIC_RELAXED);
            break;
        }
    }
    __atomic_or_fetch(&fin_rc, rc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&fin_sets_before_end, before_end, __ATOMIC_RELAXED);
}

static void fin_victim_body(void *arg)
{
    int spins = (int)(intptr_t)arg;
    ABT_key_set(fin_own_key, &fin_own_hit);
    /* Wait for the setters on streams 2 and 3, then finish after a while. */
    double end = ABT_get_wtime() + 10.0;
    while (__atomic_load_n(&fin_started, __ATOMIC_ACQUIRE) < 2 && ABT_get_wtime() < end) {
    }
    for (int i = 0; i < spins; i++) {
        void *v;
        ABT_key_get(fin_keys[i % FIN_SETTERS], &v);
    }
}

static void test_finishing(void)
{
    int rc = 0, last_ok = 0, destroyed_ok = 0, own_ok = 0;
    long delta = 0;
    for (int s = 0; s < FIN_SETTERS; s++) fin_keys[s] = all_keys[150 + 60 * s];
    fin_own_key = all_keys[5];
    for (int round = 0; round < FIN_ROUNDS; round++) {
        memset(fin_hits, 0, sizeof fin_hits);
        fin_own_hit = 0;
        fin_started = 0;
        fin_victim_is_task = round % 2;
        void *spins = (void *)(intptr_t)(round * 37 % 500);
        /* The victim on stream 1; setters on streams 2, 3 and the primary (which runs its setter
         * only when the main ULT blocks below, often after the victim has finished). */
        if (fin_victim_is_task) {
            rc |= ABT_task_create(pools[1], fin_victim_body, spins, &fin_victim);
        } else {
            rc |= ABT_thread_create(pools[1], fin_victim_body, spins, ABT_THREAD_ATTR_NULL, &fin_victim);
        }
        struct fin_setter f[FIN_SETTERS];
        ABT_thread t[FIN_SETTERS];
        for (int s = 0; s < FIN_SETTERS; s++) {
            f[s] = (struct fin_setter){s, -1};
            rc |= ABT_thread_create(pools[(2 + s) % NSTREAMS], fin_setter_body, &f[s], ABT_THREAD_ATTR_NULL, &t[s]);
        }
        for (int s = 0; s < FIN_SETTERS; s++) rc |= ABT_thread_free(&t[s]);
        rc |= fin_victim_is_task ? ABT_task_join(fin_victim) : ABT_thread_join(fin_victim);
        /* The last value each setter wrote is the one there. */
        int all_last = 1;
        for (int s = 0; s < FIN_SETTERS; s++) {
            void *v = NULL;
            rc |= ABT_thread_get_specific(fin_victim, fin_keys[s], &v);
            all_last &= f[s].last >= 0 && v == &fin_hits[s][f[s].last % FIN_VALUES];
        }
        void *own = NULL;
        rc |= ABT_thread_get_specific(fin_victim, fin_own_key, &own);
        own_ok += own == &fin_own_hit;
        last_ok += all_last;
        long before = total();
        rc |= fin_victim_is_task ? ABT_task_free(&fin_victim) : ABT_thread_free(&fin_victim);
        delta += total() - before;
        /* Exactly one destructor call per setter key, with its last value, and one for own. */
        int good = fin_own_hit == 1;
        for (int s = 0; s < FIN_SETTERS; s++) {
            good &= sum(fin_hits[s], FIN_VALUES) == 1 && fin_hits[s][f[s].last % FIN_VALUES] == 1;
        }
        destroyed_ok += good;
    }
    printf("%d sets landed before the victim terminated, over %d rounds\n", fin_sets_before_end, FIN_ROUNDS);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(fin_rc, ABT_SUCCESS);
    CHECK_INT(fin_timeouts, 0);
    CHECK_INT(last_ok, FIN_ROUNDS);
    CHECK_INT(own_ok, FIN_ROUNDS);
    CHECK_INT(destroyed_ok, FIN_ROUNDS);
    CHECK_INT(delta, FIN_ROUNDS * (FIN_SETTERS + 1));
}

/* ---- (3) Tasklets filling the main ULT's table -------------------------------------------- */

#define MAIN_OWN 16             /* keys 0..15, set by the main ULT itself */
#define MAIN_TASKS 12           /* 4 per stream 1..3 */
#define MAIN_PER_TASK 8         /* keys 16..111 set by tasklets */
#define MAIN_KEYS (MAIN_OWN + MAIN_TASKS * MAIN_PER_TASK)
static int main_hits[MAIN_KEYS]; /* destroyed at ABT_finalize */
static int main_go, main_task_rc, main_timeouts;

static void main_filler(void *arg)
{
    int t = (int)(intptr_t)arg, rc = 0;
    if (!spin_until(&main_go, 1)) __atomic_add_fetch(&main_timeouts, 1, __ATOMIC_RELAXED);
    for (int j = 0; j < MAIN_PER_TASK; j++) {
        int k = MAIN_OWN + t * MAIN_PER_TASK + j;
        void *v = NULL;
        rc |= ABT_thread_set_specific(main_ult, all_keys[k], &main_hits[k]);
        rc |= ABT_task_get_specific(main_ult, all_keys[k], &v);
        if (v != &main_hits[k]) rc |= 0x1000;
    }
    __atomic_or_fetch(&main_task_rc, rc, __ATOMIC_RELAXED);
}

static void test_main_table(void)
{
    /* Runs first: the main ULT has no table yet, so its creation races too. */
    ABT_task t[MAIN_TASKS];
    int rc = 0;
    for (int i = 0; i < MAIN_TASKS; i++) rc |= ABT_task_create(pools[1 + i % (NSTREAMS - 1)], main_filler, (void *)(intptr_t)i, &t[i]);
    __atomic_store_n(&main_go, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < MAIN_OWN; k++) rc |= ABT_key_set(all_keys[k], &main_hits[k]);
    for (int i = 0; i < MAIN_TASKS; i++) rc |= ABT_task_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(main_task_rc, ABT_SUCCESS);
    CHECK_INT(main_timeouts, 0);
    int mismatch = 0;
    for (int k = 0; k < MAIN_KEYS; k++) {
        void *v = NULL;
        if (ABT_key_get(all_keys[k], &v) != ABT_SUCCESS || v != &main_hits[k]) mismatch++;
    }
    CHECK_INT(mismatch, 0);
    CHECK_INT(sum(main_hits, MAIN_KEYS), 0);
}

/* ---- A freed key's slot, raced for by a newer key ---------------------------------------- */

/* Targets hold a value of key A; A is freed and B created (goabt gives B A's id, so B's first set
 * on a target finds A's value in its slot). Setters on 4 streams race to set B on every target:
 * A's value must be destroyed exactly once, at the target's free and not when B takes its slot
 * (the target may still use it), and B's value once at the free. */
#define RU_TARGETS 64
#define RU_SETTERS 8
#define RU_ROUNDS 20
static ABT_thread ru_targets[RU_TARGETS];
static int ru_hits_a[RU_TARGETS], ru_hits_b[RU_TARGETS];
static ABT_key ru_b;
static int ru_ready, ru_go, ru_rc, ru_bad, ru_timeouts;

static void ru_setter(void *arg)
{
    int s = (int)(intptr_t)arg, rc = 0, bad = 0;
    __atomic_add_fetch(&ru_ready, 1, __ATOMIC_RELEASE);
    if (!yield_until(&ru_go, 1)) __atomic_add_fetch(&ru_timeouts, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < RU_TARGETS; i++) {
        int t = s % 2 ? i : RU_TARGETS - 1 - i;
        void *v = NULL;
        rc |= ABT_thread_set_specific(ru_targets[t], ru_b, &ru_hits_b[t]);
        rc |= ABT_thread_get_specific(ru_targets[t], ru_b, &v);
        bad += v != &ru_hits_b[t];
    }
    __atomic_or_fetch(&ru_rc, rc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ru_bad, bad, __ATOMIC_RELAXED);
}

static void nothing(void *arg) { (void)arg; }

static void test_reuse_race(void)
{
    int rc = 0, fresh_not_null = 0, a_once = 0, b_once = 0;
    long delta = 0, early = 0;
    for (int round = 0; round < RU_ROUNDS; round++) {
        memset(ru_hits_a, 0, sizeof ru_hits_a);
        memset(ru_hits_b, 0, sizeof ru_hits_b);
        ru_ready = ru_go = 0;
        ABT_key a = ABT_KEY_NULL;
        rc |= ABT_key_create(count_dtor, &a);
        ABT_pool idle = idle_pool();
        for (int t = 0; t < RU_TARGETS; t++) {
            rc |= ABT_thread_create(idle, nothing, NULL, ABT_THREAD_ATTR_NULL, &ru_targets[t]);
            rc |= ABT_thread_set_specific(ru_targets[t], a, &ru_hits_a[t]);
        }
        long before = total();
        rc |= ABT_key_free(&a);
        rc |= ABT_key_create(count_dtor, &ru_b);
        for (int t = 0; t < RU_TARGETS; t++) {
            void *v = &v;
            rc |= ABT_thread_get_specific(ru_targets[t], ru_b, &v);
            fresh_not_null += v != NULL;
        }
        ABT_thread setters[RU_SETTERS];
        for (int s = 0; s < RU_SETTERS; s++) {
            rc |= ABT_thread_create(pools[s % NSTREAMS], ru_setter, (void *)(intptr_t)s, ABT_THREAD_ATTR_NULL, &setters[s]);
        }
        if (!yield_until(&ru_ready, RU_SETTERS)) ru_timeouts++;
        __atomic_store_n(&ru_go, 1, __ATOMIC_RELEASE);
        for (int s = 0; s < RU_SETTERS; s++) rc |= ABT_thread_free(&setters[s]);
        /* The targets may still use the freed key's values: nothing is destroyed before their
         * free, even though the newer key took the values' slots over. */
        early += total() - before;
        ABT_xstream drain = drain_pool(idle);
        for (int t = 0; t < RU_TARGETS; t++) rc |= ABT_thread_free(&ru_targets[t]);
        rc |= ABT_xstream_free(&drain);
        rc |= ABT_key_free(&ru_b);
        delta += total() - before;
        a_once += ones(ru_hits_a, RU_TARGETS) == RU_TARGETS;
        b_once += ones(ru_hits_b, RU_TARGETS) == RU_TARGETS;
    }
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ru_rc, ABT_SUCCESS);
    CHECK_INT(ru_timeouts, 0);
    CHECK_INT(ru_bad, 0);
    CHECK_INT(fresh_not_null, 0);
    CHECK_INT(early, 0);
    CHECK_INT(a_once, RU_ROUNDS); /* the freed key's values: once each, at the targets' free */
    CHECK_INT(b_once, RU_ROUNDS);
    CHECK_INT(delta, 2 * RU_ROUNDS * RU_TARGETS);
}

/* ---- Keys created and freed concurrently -------------------------------------------------- */

#define KC_ULTS 16
#define KC_CYCLES 500
static int kc_hits[KC_ULTS][KC_CYCLES];
static int kc_rc, kc_fresh_not_null, kc_wrong;

static void kc_body(void *arg)
{
    int u = (int)(intptr_t)arg, rc = 0, fresh = 0, wrong = 0;
    for (int c = 0; c < KC_CYCLES; c++) {
        ABT_key k = ABT_KEY_NULL;
        void *v = &v;
        rc |= ABT_key_create(count_dtor, &k);
        /* The id may have served a key of this ULT before: a new key still reads NULL. */
        rc |= ABT_key_get(k, &v);
        fresh += v != NULL;
        rc |= ABT_key_set(k, &kc_hits[u][c]);
        if (c % 3 == 0) ABT_thread_yield();
        rc |= ABT_key_get(k, &v);
        wrong += v != &kc_hits[u][c];
        rc |= ABT_key_free(&k);
    }
    __atomic_or_fetch(&kc_rc, rc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&kc_fresh_not_null, fresh, __ATOMIC_RELAXED);
    __atomic_add_fetch(&kc_wrong, wrong, __ATOMIC_RELAXED);
}

static void test_key_churn(void)
{
    ABT_thread t[KC_ULTS];
    int rc = 0;
    long before = total();
    for (int u = 0; u < KC_ULTS; u++) rc |= ABT_thread_create(pools[u % NSTREAMS], kc_body, (void *)(intptr_t)u, ABT_THREAD_ATTR_NULL, &t[u]);
    for (int u = 0; u < KC_ULTS; u++) rc |= ABT_thread_free(&t[u]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(kc_rc, ABT_SUCCESS);
    CHECK_INT(kc_fresh_not_null, 0);
    CHECK_INT(kc_wrong, 0);
    /* Every value destroyed once, at the ULT's free: also those whose slot a newer key took. */
    CHECK_INT(total() - before, KC_ULTS * KC_CYCLES);
    CHECK_INT(ones(&kc_hits[0][0], KC_ULTS * KC_CYCLES), KC_ULTS * KC_CYCLES);
}

/* ---- 1100 keys at once -------------------------------------------------------------------- */

#define NBIG 1100
#define BIG_UNITS 6 /* 4 ULTs setting their own, 1 tasklet, 1 target set by 4 setters */
static ABT_key big_keys[NBIG];
static int big_hits[BIG_UNITS][NBIG];
static int big_rc, big_fresh_not_null, big_mismatch;
static ABT_thread big_target;

static void big_self(void *arg)
{
    int u = (int)(intptr_t)arg, rc = 0, fresh = 0, mismatch = 0;
    for (int k = 0; k < NBIG; k++) {
        void *v = &v;
        rc |= ABT_key_get(big_keys[k], &v);
        fresh += v != NULL;
        rc |= ABT_key_set(big_keys[k], &big_hits[u][k]);
    }
    for (int k = NBIG - 1; k >= 0; k--) {
        void *v = NULL;
        rc |= ABT_self_get_specific(big_keys[k], &v);
        mismatch += v != &big_hits[u][k];
    }
    __atomic_or_fetch(&big_rc, rc, __ATOMIC_RELAXED);
    __atomic_add_fetch(&big_fresh_not_null, fresh, __ATOMIC_RELAXED);
    __atomic_add_fetch(&big_mismatch, mismatch, __ATOMIC_RELAXED);
}

static void big_setter(void *arg)
{
    int s = (int)(intptr_t)arg, rc = 0;
    for (int j = 0; j < NBIG; j++) {
        int k = s % 2 ? NBIG - 1 - j : (j + s * 275) % NBIG;
        rc |= ABT_thread_set_specific(big_target, big_keys[k], &big_hits[BIG_UNITS - 1][k]);
    }
    __atomic_or_fetch(&big_rc, rc, __ATOMIC_RELAXED);
}

static void big_target_body(void *arg)
{
    (void)arg;
    int mismatch = 0;
    for (int k = 0; k < NBIG; k++) {
        void *v = NULL;
        if (ABT_key_get(big_keys[k], &v) != ABT_SUCCESS || v != &big_hits[BIG_UNITS - 1][k]) mismatch++;
    }
    __atomic_add_fetch(&big_mismatch, mismatch, __ATOMIC_RELAXED);
}

static void test_many_keys(void)
{
    int rc = 0;
    for (int k = 0; k < NBIG; k++) rc |= ABT_key_create(count_dtor, &big_keys[k]);
    CHECK_INT(rc, ABT_SUCCESS);
    long before = total();
    /* Four ULTs, one per stream, fill their own tables at once; a tasklet fills its own. */
    ABT_thread u[4];
    ABT_task tk;
    for (int i = 0; i < 4; i++) rc |= ABT_thread_create(pools[i], big_self, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &u[i]);
    rc |= ABT_task_create(pools[2], big_self, (void *)(intptr_t)4, &tk);
    /* Four setters, one per stream, fill one not-yet-started ULT's table. */
    ABT_pool idle = idle_pool();
    rc |= ABT_thread_create(idle, big_target_body, NULL, ABT_THREAD_ATTR_NULL, &big_target);
    ABT_thread s[4];
    for (int i = 0; i < 4; i++) rc |= ABT_thread_create(pools[i], big_setter, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &s[i]);
    for (int i = 0; i < 4; i++) rc |= ABT_thread_free(&s[i]);
    for (int i = 0; i < 4; i++) rc |= ABT_thread_join(u[i]);
    rc |= ABT_task_join(tk);
    CHECK_INT(rc, ABT_SUCCESS);
    /* Read all back from here as well. */
    int mismatch = 0;
    for (int k = 0; k < NBIG; k++) {
        void *v = NULL;
        rc |= ABT_thread_get_specific(u[k % 4], big_keys[k], &v);
        mismatch += v != &big_hits[k % 4][k];
        rc |= ABT_task_get_specific(tk, big_keys[k], &v);
        mismatch += v != &big_hits[4][k];
        rc |= ABT_thread_get_specific(big_target, big_keys[k], &v);
        mismatch += v != &big_hits[5][k];
    }
    CHECK_INT(mismatch, 0);
    ABT_xstream drain = drain_pool(idle);
    CHECK_INT(ABT_thread_join(big_target), ABT_SUCCESS);
    CHECK_INT(total() - before, 0);
    for (int i = 0; i < 4; i++) rc |= ABT_thread_free(&u[i]);
    rc |= ABT_task_free(&tk);
    rc |= ABT_thread_free(&big_target);
    rc |= ABT_xstream_free(&drain);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(big_rc, ABT_SUCCESS);
    CHECK_INT(big_fresh_not_null, 0);
    CHECK_INT(big_mismatch, 0);
    CHECK_INT(total() - before, BIG_UNITS * NBIG);
    CHECK_INT(ones(&big_hits[0][0], BIG_UNITS * NBIG), BIG_UNITS * NBIG);
    for (int k = 0; k < NBIG; k++) rc |= ABT_key_free(&big_keys[k]);
    CHECK_INT(rc, ABT_SUCCESS);
}

/* ---- 100,000 units ------------------------------------------------------------------------ */

#define SCALE_UNITS 100000
#define SCALE_BATCH 1000
static ABT_key scale_key;
static int scale_hits[SCALE_UNITS];
static int scale_bad;

static void scale_body(void *arg)
{
    int i = (int)(intptr_t)arg;
    void *v = &v;
    int bad = ABT_key_get(scale_key, &v) != ABT_SUCCESS || v != NULL;
    bad |= ABT_key_set(scale_key, &scale_hits[i]) != ABT_SUCCESS;
    bad |= ABT_key_get(scale_key, &v) != ABT_SUCCESS || v != &scale_hits[i];
    if (bad) __atomic_add_fetch(&scale_bad, 1, __ATOMIC_RELAXED);
}

static void test_scale(void)
{
    CHECK_INT(ABT_key_create(count_dtor, &scale_key), ABT_SUCCESS);
    long before = total();
    static ABT_thread h[SCALE_BATCH];
    int rc = 0;
    double t0 = ABT_get_wtime();
    for (int b = 0; b < SCALE_UNITS; b += SCALE_BATCH) {
        for (int j = 0; j < SCALE_BATCH; j++) {
            int i = b + j;
            ABT_pool p = pools[1 + j % 2];
            if ((j / 2) % 2) {
                rc |= ABT_task_create(p, scale_body, (void *)(intptr_t)i, &h[j]);
            } else {
                rc |= ABT_thread_create(p, scale_body, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &h[j]);
            }
        }
        for (int j = 0; j < SCALE_BATCH; j++) rc |= (j / 2) % 2 ? ABT_task_free(&h[j]) : ABT_thread_free(&h[j]);
    }
    printf("%d units in %.2f s\n", SCALE_UNITS, ABT_get_wtime() - t0);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(scale_bad, 0);
    CHECK_INT(total() - before, SCALE_UNITS);
    CHECK_INT(ones(scale_hits, SCALE_UNITS), SCALE_UNITS);
    CHECK_INT(ABT_key_free(&scale_key), ABT_SUCCESS);
}

/* ---- Nothing leaked ------------------------------------------------------------------------ */

/* With GOABT_CHECK_LEAKS set, the last ABT_finalize lists on stderr what the program did not
 * free (keys, here: these are freed after it), then, if any, the unit descriptors, key tables
 * and key chunks the engine did not give back to the Go core. These capture the report:
 * stderr goes to a temporary file between leak_capture_start and leak_capture_end. (The report
 * itself is ctests/c/leak_report.c's.) */
static int leak_fd = -1, leak_saved_stderr = -1;
static char leak_report[64 * 1024];

static void leak_capture_start(void)
{
    char path[] = "/tmp/goabt_keys_race_XXXXXX";
    leak_fd = mkstemp(path);
    unlink(path);
    fflush(stderr);
    leak_saved_stderr = dup(2);
    dup2(leak_fd, 2);
}

static const char *leak_capture_end(void)
{
    fflush(stderr);
    dup2(leak_saved_stderr, 2);
    close(leak_saved_stderr);
    ssize_t n = pread(leak_fd, leak_report, sizeof leak_report - 1, 0);
    leak_report[n > 0 ? n : 0] = '\0';
    close(leak_fd);
    printf("finalize said: %s", leak_report[0] ? leak_report : "(nothing)\n");
    return leak_report;
}

static void leak_body(void *arg) { (void)arg; }

/* The check can fail: a ULT that is never freed keeps its descriptor and its table. */
static void test_leak_check_sees_a_leak(void)
{
    leak_capture_start();
    int rc = ABT_init(0, NULL);
    ABT_key k = ABT_KEY_NULL;
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread leaked = ABT_THREAD_NULL;
    rc |= ABT_key_create(NULL, &k);
    rc |= ABT_xstream_self(&self);
    rc |= ABT_xstream_get_main_pools(self, 1, &pool);
    rc |= ABT_thread_create(pool, leak_body, NULL, ABT_THREAD_ATTR_NULL, &leaked);
    rc |= ABT_thread_join(leaked);
    rc |= ABT_thread_set_specific(leaked, k, &rc);
    rc |= ABT_finalize();
    const char *said = leak_capture_end();
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK(strstr(said, "not given back: 1 unit descriptors, 1 key tables, 0 key chunks") != NULL);
    CHECK(strstr(said, "goabt: leaked ULT ") != NULL); /* the program's own leaks, listed */
    CHECK(strstr(said, "goabt: leaked key ") != NULL);
    CHECK_INT(ABT_key_free(&k), ABT_SUCCESS);
}

int main(void)
{
    setenv("GOABT_CHECK_LEAKS", "1", 1);
    leak_capture_start();
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_thread_self(&main_ult), ABT_SUCCESS);
    int rc = start_streams(NSTREAMS, streams, pools);
    for (int k = 0; k < NALL; k++) rc |= ABT_key_create(count_dtor, &all_keys[k]);
    CHECK_INT(rc, ABT_SUCCESS);

    test_main_table();
    test_one_target();
    test_many_targets();
    test_finishing();
    test_reuse_race();
    test_key_churn();
    test_many_keys();
    test_scale();

    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    long before = total();
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    /* Every table and chunk that racing setters made, and every descriptor, came back. */
    const char *said = leak_capture_end();
    CHECK(strstr(said, "not given back") == NULL);
    CHECK(strstr(said, "goabt: leaked ULT ") == NULL);
    /* The main ULT's values (test_main_table), each once. */
    CHECK_INT(total() - before, MAIN_KEYS);
    CHECK_INT(ones(main_hits, MAIN_KEYS), MAIN_KEYS);
    for (int k = 0; k < NALL; k++) rc |= ABT_key_free(&all_keys[k]);
    CHECK_INT(rc, ABT_SUCCESS);
    test_leak_check_sees_a_leak();
    return check_summary();
}
