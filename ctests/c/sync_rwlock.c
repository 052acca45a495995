/* Readers-writer locks (ABT_rwlock_*), against Argobots 1.2's documented semantics:
 *  - create (before ABT_init too), free (also while locked); one ULT read-locks
 *    twice and unlocks twice; write lock and unlock;
 *  - readers share: 8 ULTs on 4 streams and 2 external pthreads are all inside at once;
 *  - a writer excludes: while the main ULT holds the write lock, reader and writer ULTs and
 *    pthreads stay out, then all get in, writers alone;
 *  - readers exclude writers: while the main ULT holds a read lock, a writer ULT and a writer
 *    pthread stay out (a new reader still gets in: rdlock blocks only on a writer), then get in;
 *  - stress: 128 ULTs on 4 streams and 2 external pthreads, one operation in four a write: no
 *    writer ever has company, readers never see the data change, the data counts every write;
 *  - bad input: ABT_RWLOCK_NULL, NULL pointers, freed and wrong-kind handles give
 *    ABT_ERR_INV_RWLOCK or ABT_ERR_INV_ARG; rdlock and wrlock from a tasklet give ABT_ERR_RWLOCK
 *    (Argobots 1.x);
 *  - misuse, where Argobots leaves the outcome undefined and goabt refuses: unlock of a lock
 *    nobody holds, and free while someone waits, give ABT_ERR_RWLOCK and change nothing;
 *  - a tasklet may unlock (Argobots allows it): it releases a read lock the main ULT took;
 *  - goabt's hand-off order: once free, the lock goes to the longest waiter, or, if that one
 *    is a reader, to every waiting reader together (Argobots wakes all to race for it).
 * Every wait is bounded: when one expires the program reports it and exits. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
#include "sync_util.h"

/* ---- Helpers ----------------------------------------------------------------------------- */

static void bump_max(int *max, int v)
{
    int m = load(max);
    while (v > m && !__atomic_compare_exchange_n(max, &m, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
}

/* Who is inside the lock under test. */
static ABT_rwlock lk;
static int readers_in, writers_in, max_readers, violations, op_errors;

/* Enter as a reader or a writer; a writer must be alone, a reader with no writer. */
static int enter(int writer)
{
    int rc = writer ? ABT_rwlock_wrlock(lk) : ABT_rwlock_rdlock(lk);
    if (rc != ABT_SUCCESS) {
        inc(&op_errors);
        return 0;
    }
    if (writer) {
        if (inc(&writers_in) != 1 || load(&readers_in) != 0) inc(&violations);
    } else {
        bump_max(&max_readers, inc(&readers_in));
        if (load(&writers_in) != 0) inc(&violations);
    }
    return 1;
}

static void leave(int writer)
{
    if (writer) {
        if (load(&readers_in) != 0) inc(&violations);
        dec(&writers_in);
    } else {
        if (load(&writers_in) != 0) inc(&violations);
        dec(&readers_in);
    }
    if (ABT_rwlock_unlock(lk) != ABT_SUCCESS) inc(&op_errors);
}

static void reset_counts(void) { readers_in = writers_in = max_readers = violations = op_errors = 0; }

/* ---- Basics ------------------------------------------------------------------------------- */

static void test_basic(void)
{
    printf("basics:\n");
    ABT_rwlock l = ABT_RWLOCK_NULL;
    CHECK_INT(ABT_rwlock_create(&l), ABT_SUCCESS);
    CHECK(l != ABT_RWLOCK_NULL);
    if (l == ABT_RWLOCK_NULL) return;
    CHECK_INT(ABT_rwlock_rdlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_rdlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_wrlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_rdlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&l), ABT_SUCCESS);
    CHECK(l == ABT_RWLOCK_NULL);
    /* Argobots frees a rwlock whether it is locked or not. */
    CHECK_INT(ABT_rwlock_create(&l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_wrlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&l), ABT_SUCCESS);
    CHECK(l == ABT_RWLOCK_NULL);
    CHECK_INT(ABT_rwlock_create(&l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_rdlock(l), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&l), ABT_SUCCESS);
}

/* ---- Readers share ------------------------------------------------------------------------ */

#define SH_ULTS 8
#define SH_EXT 2
#define SH_ALL (SH_ULTS + SH_EXT)
static int sh_arrived, sh_met, sh_done;

/* Each reader stays inside until all have arrived inside (yielding meanwhile): nobody leaves
 * before the last one is in, so all are inside at once. */
static void sh_reader(void)
{
    if (enter(0)) {
        inc(&sh_arrived);
        if (until(&sh_arrived, SH_ALL)) inc(&sh_met);
        leave(0);
    }
    inc(&sh_done);
}
static void sh_ult(void *arg)
{
    (void)arg;
    sh_reader();
}
static void *sh_pthread(void *arg)
{
    (void)arg;
    sh_reader();
    return NULL;
}

static void test_readers_share(void)
{
    reset_counts();
    sh_arrived = sh_met = sh_done = 0;
    ABT_thread t[SH_ULTS];
    pthread_t p[SH_EXT];
    int rc = 0;
    for (int i = 0; i < SH_ULTS; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], sh_ult, NULL, ABT_THREAD_ATTR_NULL, &t[i]);
    for (int i = 0; i < SH_EXT; i++) pthread_create(&p[i], NULL, sh_pthread, NULL);
    MUST(until(&sh_done, SH_ALL));
    for (int i = 0; i < SH_ULTS; i++) rc |= ABT_thread_free(&t[i]);
    for (int i = 0; i < SH_EXT; i++) pthread_join(p[i], NULL);
    printf("%d ULTs and %d pthreads read-locked at once:\n", SH_ULTS, SH_EXT);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(op_errors, 0);
    CHECK_INT(sh_met, SH_ALL);
    CHECK_INT(max_readers, SH_ALL);
    CHECK_INT(violations, 0);
}

/* ---- Exclusion while the main ULT holds the lock ------------------------------------------ */

static int ex_trying, ex_got, ex_done;

/* arg: 1 for a writer. Counts itself in once trying, and again once inside. */
static void ex_unit(int writer)
{
    inc(&ex_trying);
    if (enter(writer)) {
        inc(&ex_got);
        relax();
        leave(writer);
    }
    inc(&ex_done);
}
static void ex_ult(void *arg) { ex_unit((int)(intptr_t)arg); }
static void *ex_pthread(void *arg)
{
    ex_unit((int)(intptr_t)arg);
    return NULL;
}

/* Starts the units of kinds[] (1 writer, 0 reader; ULTs first, then nthreads pthreads). */
static void ex_start(int nults, const int *ult_kinds, int nthreads, const int *ext_kinds, ABT_thread *t, pthread_t *p)
{
    int rc = 0;
    for (int i = 0; i < nults; i++) {
        rc |= ABT_thread_create(pools[1 + i % (NSTREAMS - 1)], ex_ult, (void *)(intptr_t)ult_kinds[i], ABT_THREAD_ATTR_NULL, &t[i]);
    }
    CHECK_INT(rc, ABT_SUCCESS);
    for (int i = 0; i < nthreads; i++) pthread_create(&p[i], NULL, ex_pthread, (void *)(intptr_t)ext_kinds[i]);
}

static void ex_finish(int nults, ABT_thread *t, int nthreads, pthread_t *p)
{
    MUST(until(&ex_done, nults + nthreads));
    int rc = 0;
    for (int i = 0; i < nults; i++) rc |= ABT_thread_free(&t[i]);
    for (int i = 0; i < nthreads; i++) pthread_join(p[i], NULL);
    CHECK_INT(rc, ABT_SUCCESS);
}

static void test_writer_excludes(void)
{
    reset_counts();
    ex_trying = ex_got = ex_done = 0;
    const int ult_kinds[5] = { 0, 0, 1, 0, 1 }, ext_kinds[2] = { 0, 1 };
    ABT_thread t[5];
    pthread_t p[2];
    CHECK_INT(ABT_rwlock_wrlock(lk), ABT_SUCCESS);
    inc(&writers_in);
    ex_start(5, ult_kinds, 2, ext_kinds, t, p);
    MUST(until(&ex_trying, 7));
    pause_for(0.02);
    int early = load(&ex_got);
    dec(&writers_in);
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_SUCCESS);
    ex_finish(5, t, 2, p);
    printf("the main ULT's write lock kept 5 ULTs and 2 pthreads out:\n");
    CHECK_INT(early, 0);
    CHECK_INT(ex_got, 7);
    CHECK_INT(op_errors, 0);
    CHECK_INT(violations, 0);
}

static void test_readers_exclude(void)
{
    reset_counts();
    ex_trying = ex_got = ex_done = 0;
    const int writers[1] = { 1 }, ext_writers[1] = { 1 }, readers[1] = { 0 };
    ABT_thread t[1], r[1];
    pthread_t p[1];
    CHECK_INT(ABT_rwlock_rdlock(lk), ABT_SUCCESS);
    inc(&readers_in);
    ex_start(1, writers, 1, ext_writers, t, p);
    MUST(until(&ex_trying, 2));
    pause_for(0.02);
    int early = load(&ex_got);
    /* Writers wait; a new reader still gets in: rdlock blocks only while a writer holds it. */
    ex_start(1, readers, 0, NULL, r, NULL);
    int reader_in = until(&ex_got, 1);
    int writer_early = 0;
    pause_for(0.005);
    writer_early = load(&writers_in) != 0;
    dec(&readers_in);
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_SUCCESS);
    MUST(until(&ex_done, 3));
    CHECK_INT(ABT_thread_free(&r[0]), ABT_SUCCESS);
    ex_finish(1, t, 1, p);
    printf("the main ULT's read lock kept a writer ULT and a writer pthread out:\n");
    CHECK_INT(early, 0);
    CHECK(reader_in);
    CHECK(!writer_early);
    CHECK_INT(ex_got, 3);
    CHECK_INT(op_errors, 0);
    CHECK_INT(violations, 0);
}

/* ---- Stress ------------------------------------------------------------------------------- */

#define ST_PER_STREAM 32
#define ST_ULTS (NSTREAMS * ST_PER_STREAM)
#define ST_ITERS 100
#define ST_EXT 2
#define ST_EXT_ITERS 1000
static long st_data;
static int st_writes, st_torn, st_done;

static void st_run(int seed, int iters)
{
    int writes = 0, torn = 0;
    for (int i = 0; i < iters; i++) {
        int writer = (i + seed) % 4 == 0;
        if (!enter(writer)) continue;
        long v = st_data;
        if ((i + seed) % 3 == 0) relax(); /* lets other readers in with this one */
        if (writer) {
            st_data = v + 1;
            writes++;
        } else {
            torn += st_data != v;
        }
        leave(writer);
    }
    __atomic_add_fetch(&st_writes, writes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&st_torn, torn, __ATOMIC_RELAXED);
    inc(&st_done);
}
static void st_ult(void *arg) { st_run((int)(intptr_t)arg, ST_ITERS); }
static void *st_pthread(void *arg)
{
    st_run((int)(intptr_t)arg, ST_EXT_ITERS);
    return NULL;
}

static void test_stress(void)
{
    reset_counts();
    st_data = 0;
    st_writes = st_torn = st_done = 0;
    static ABT_thread t[ST_ULTS];
    pthread_t p[ST_EXT];
    int rc = 0;
    double t0 = ABT_get_wtime();
    for (int i = 0; i < ST_ULTS; i++) rc |= ABT_thread_create(pools[i % NSTREAMS], st_ult, (void *)(intptr_t)i, ABT_THREAD_ATTR_NULL, &t[i]);
    for (int i = 0; i < ST_EXT; i++) pthread_create(&p[i], NULL, st_pthread, (void *)(intptr_t)(1000 + i));
    MUST(until(&st_done, ST_ULTS + ST_EXT));
    for (int i = 0; i < ST_ULTS; i++) rc |= ABT_thread_free(&t[i]);
    for (int i = 0; i < ST_EXT; i++) pthread_join(p[i], NULL);
    printf("%d ULTs and %d pthreads, one in four a writer (%.2f s, at most %d readers inside at once):\n", ST_ULTS, ST_EXT,
           ABT_get_wtime() - t0, max_readers);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(op_errors, 0);
    CHECK_INT(violations, 0);
    CHECK_INT(st_torn, 0);
    CHECK_INT(st_writes, (ST_ULTS * ST_ITERS + ST_EXT * ST_EXT_ITERS) / 4);
    CHECK_INT(st_data, st_writes);
    CHECK_INT(readers_in, 0);
    CHECK_INT(writers_in, 0);
}

/* ---- Bad input ---------------------------------------------------------------------------- */

static void refuse_rwlock(ABT_rwlock h, const char *what)
{
    printf("not a readers-writer lock: %s\n", what);
    CHECK_INT(ABT_rwlock_rdlock(h), ABT_ERR_INV_RWLOCK);
    CHECK_INT(ABT_rwlock_wrlock(h), ABT_ERR_INV_RWLOCK);
    CHECK_INT(ABT_rwlock_unlock(h), ABT_ERR_INV_RWLOCK);
    ABT_rwlock copy = h;
    CHECK_INT(ABT_rwlock_free(&copy), ABT_ERR_INV_RWLOCK);
    CHECK(copy == h);
}

static int tk_rd_rc, tk_wr_rc;
static void tk_body(void *arg)
{
    (void)arg;
    tk_rd_rc = ABT_rwlock_rdlock(lk);
    tk_wr_rc = ABT_rwlock_wrlock(lk);
}

static void test_bad_input(void)
{
    printf("bad input:\n");
    CHECK_INT(ABT_rwlock_create(NULL), ABT_ERR_INV_ARG);
    int rc = ABT_rwlock_free(NULL);
    CHECK(rc == ABT_ERR_INV_RWLOCK || rc == ABT_ERR_INV_ARG);
    refuse_rwlock(ABT_RWLOCK_NULL, "ABT_RWLOCK_NULL");

    /* A freed handle, checked before anything else is created. */
    ABT_rwlock l = ABT_RWLOCK_NULL;
    CHECK_INT(ABT_rwlock_create(&l), ABT_SUCCESS);
    ABT_rwlock stale = l;
    CHECK_INT(ABT_rwlock_free(&l), ABT_SUCCESS);
    if (stale != ABT_RWLOCK_NULL) refuse_rwlock(stale, "a freed rwlock");

    /* Handles of other kinds, left unharmed. */
    ABT_mutex m = ABT_MUTEX_NULL;
    if (ABT_mutex_create(&m) == ABT_SUCCESS) {
        refuse_rwlock((ABT_rwlock)m, "a mutex");
        CHECK_INT(ABT_mutex_trylock(m), ABT_SUCCESS);
        CHECK_INT(ABT_mutex_unlock(m), ABT_SUCCESS);
        CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    } else {
        printf("(no ABT_mutex: wrong-kind check skipped)\n");
    }
    ABT_cond c = ABT_COND_NULL;
    if (ABT_cond_create(&c) == ABT_SUCCESS) {
        refuse_rwlock((ABT_rwlock)c, "a condition variable");
        CHECK_INT(ABT_cond_free(&c), ABT_SUCCESS);
    } else {
        printf("(no ABT_cond: wrong-kind check skipped)\n");
    }
    ABT_eventual ev = ABT_EVENTUAL_NULL;
    if (ABT_eventual_create(0, &ev) == ABT_SUCCESS) {
        refuse_rwlock((ABT_rwlock)ev, "an eventual");
        CHECK_INT(ABT_eventual_free(&ev), ABT_SUCCESS);
    } else {
        printf("(no ABT_eventual: wrong-kind check skipped)\n");
    }
    refuse_rwlock((ABT_rwlock)pools[1], "a pool");

    /* rdlock and wrlock from a tasklet: ABT_ERR_RWLOCK in Argobots 1.x, nothing taken. */
    printf("rdlock and wrlock from a tasklet:\n");
    tk_rd_rc = tk_wr_rc = -1;
    ABT_task k;
    CHECK_INT(ABT_task_create(pools[1], tk_body, NULL, &k), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&k), ABT_SUCCESS);
    CHECK_INT(tk_rd_rc, ABT_ERR_RWLOCK);
    CHECK_INT(tk_wr_rc, ABT_ERR_RWLOCK);
    CHECK_INT(ABT_rwlock_wrlock(lk), ABT_SUCCESS); /* still free */
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_SUCCESS);
}

/* ---- Misuse, tasklet unlock, hand-off order --------------------------------------------- */

/* Waiters for these tests run on the primary stream's pool, so the main ULT resumes from a
 * yield only once the ULT before it in that pool has run and blocked: who waits, and in what
 * order, is then known without timing. */
static int ord_log[8], ord_n, ord_started;

static void ord_unit(void *arg)
{
    int id = (int)(intptr_t)arg, writer = id >= 10; /* ids 10+ are writers */
    inc(&ord_started);
    if (!enter(writer)) return;
    ord_log[inc(&ord_n) - 1] = id;
    if (!writer) until(&readers_in, 2); /* the two readers must be inside together */
    relax();
    leave(writer);
}

static int tk_unlock_rc;
static void tk_unlock(void *arg)
{
    (void)arg;
    tk_unlock_rc = ABT_rwlock_unlock(lk);
}

static void test_misuse_and_order(void)
{
    printf("unlock of a free lock is refused:\n");
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_ERR_RWLOCK);
    CHECK_INT(ABT_rwlock_wrlock(lk), ABT_SUCCESS); /* still free, and consistent */
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_ERR_RWLOCK);

    printf("a tasklet releases the main ULT's read lock:\n");
    CHECK_INT(ABT_rwlock_rdlock(lk), ABT_SUCCESS);
    tk_unlock_rc = -1;
    ABT_task k;
    CHECK_INT(ABT_task_create(pools[1], tk_unlock, NULL, &k), ABT_SUCCESS);
    CHECK_INT(ABT_task_free(&k), ABT_SUCCESS);
    CHECK_INT(tk_unlock_rc, ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_wrlock(lk), ABT_SUCCESS); /* no reader left */
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_SUCCESS);

    printf("hand-off order: writer 10, readers 1 and 2, writer 11 queued behind the main ULT:\n");
    reset_counts();
    ord_n = ord_started = 0;
    const int ids[4] = {10, 1, 2, 11};
    ABT_thread t[4];
    CHECK_INT(ABT_rwlock_wrlock(lk), ABT_SUCCESS);
    inc(&writers_in);
    for (int i = 0; i < 4; i++) {
        CHECK_INT(ABT_thread_create(pools[0], ord_unit, (void *)(intptr_t)ids[i], ABT_THREAD_ATTR_NULL, &t[i]), ABT_SUCCESS);
        MUST(until(&ord_started, i + 1)); /* it has run and is now waiting */
    }
    /* Someone waits: free is refused and the lock stays whole. */
    ABT_rwlock copy = lk;
    CHECK_INT(ABT_rwlock_free(&copy), ABT_ERR_RWLOCK);
    CHECK(copy == lk);
    CHECK_INT(ord_n, 0);
    dec(&writers_in);
    CHECK_INT(ABT_rwlock_unlock(lk), ABT_SUCCESS);
    int rc = 0;
    for (int i = 0; i < 4; i++) rc |= ABT_thread_free(&t[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ord_n, 4);
    CHECK_INT(ord_log[0], 10);
    CHECK((ord_log[1] == 1 && ord_log[2] == 2) || (ord_log[1] == 2 && ord_log[2] == 1));
    CHECK_INT(ord_log[3], 11);
    CHECK_INT(max_readers, 2);
    CHECK_INT(violations, 0);
    CHECK_INT(op_errors, 0);
}

int main(void)
{
    ABT_rwlock l0 = ABT_RWLOCK_NULL;
    CHECK_INT(ABT_rwlock_create(&l0), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&l0), ABT_SUCCESS);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    CHECK_INT(start_streams(NSTREAMS, streams, pools), ABT_SUCCESS);
    test_basic();
    lk = ABT_RWLOCK_NULL;
    CHECK_INT(ABT_rwlock_create(&lk), ABT_SUCCESS);
    if (lk != ABT_RWLOCK_NULL) {
        test_readers_share();
        test_writer_excludes();
        test_readers_exclude();
        test_stress();
        test_bad_input();
        test_misuse_and_order();
        CHECK_INT(ABT_rwlock_free(&lk), ABT_SUCCESS);
    } else {
        printf("no rwlock: the rest is skipped\n");
    }
    int rc = 0;
    for (int i = 1; i < NSTREAMS; i++) rc |= ABT_xstream_free(&streams[i]);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
