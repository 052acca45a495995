/* Stress: blocking objects under every kind of scheduler and pool at once, as an RPC framework's
 * process mixes them. 25 rounds of ABT_init, each on 4 streams laid out one of two ways:
 *  - flat (4 rounds of 5): the primary with its default scheduler and pool; a BASIC_WAIT
 *    scheduler over a FIFO_WAIT pool and a user-defined FIFO pool (a mutex-guarded list, as
 *    users write them); a user scheduler (pop and ABT_self_schedule, check_events and
 *    has_to_stop every 8 rounds) over that same user pool and a FIFO pool; a PRIO scheduler
 *    over two FIFO pools. Workers start in the six pools and move among them;
 *  - stacked (every 5th round): every stream runs a basic scheduler over its pool, with that
 *    user scheduler stacked on it and a basic one stacked on the user one. Workers start in the
 *    two stacked schedulers' pools (where they block, and the stacked schedulers step aside
 *    through each other) and move to the streams' pools;
 * 48 worker ULTs, 2 external pthreads, and a pthread that resumes suspended ULTs. Every worker
 * does 60 steps chosen by its own PRNG: lock a mutex around a read, a yield and a write of a
 * counter; take and give back one of 5 tokens (a mutex and a condition variable); read
 * (checking) or write (yielding halfway) an array under a readers-writer lock; migrate itself
 * to a random pool; wait on an eventual that a child ULT in a random pool sets;
 * a 200 us ABT_cond_timedwait on the tokens' condition variable (a signal it takes is passed
 * on); suspend until the resumer pthread resumes it; yield. Halfway, all 48 pass a barrier. The
 * pthreads lock the mutex and take tokens meanwhile. Checked each round: the counter equals the
 * increments made (a lost update shows), all tokens are back, every array entry equals the
 * writes, every suspend was resumed, every step was taken, and no call failed; then everything
 * is freed and ABT_finalize runs. The safety wake-ups are off (as in every ctest): a lost
 * wake-up hangs the round, and an alarm kills the program after 60 s. Run as it is, and again
 * with the predefined pools and schedulers made Go pools and policies. */
// ctest-variant: default
// ctest-variant: in_go GOABT_POOL=ws GOABT_SCHED=deadline
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"
// ctest-timeout: 180
/* (A hang catcher: about 10 s on 2 idle cores; beside two other make test runs, a load of 18,
 * it passed 60.) */

#define ROUNDS 25
#define NW 48
#define STEPS 60
#define NEXT 2
#define TOKENS 5
#define NARR 4
#define MAXPOOLS 6
#define STACKED_EVERY 5 /* every 5th round: the stacked layout */

static int bad; /* failed calls, anywhere (atomic) */
#define GOOD(call)                                                                            \
    do {                                                                                      \
        if ((call) != ABT_SUCCESS) __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);             \
    } while (0)

/* ---- A user-defined FIFO pool --------------------------------------------------------------- */

typedef struct ufifo_unit {
    ABT_thread thread;
    struct ufifo_unit *next;
} ufifo_unit;

typedef struct {
    pthread_mutex_t lock;
    ufifo_unit *head, *tail;
    long size; /* atomic reads */
} ufifo;

static ufifo *ufifo_of(ABT_pool pool)
{
    void *data = NULL;
    ABT_pool_get_data(pool, &data);
    return data;
}

static ABT_unit ufifo_create_unit(ABT_pool pool, ABT_thread thread)
{
    (void)pool;
    ufifo_unit *u = calloc(1, sizeof *u);
    if (u == NULL) return ABT_UNIT_NULL;
    u->thread = thread;
    return (ABT_unit)u;
}

static void ufifo_free_unit(ABT_pool pool, ABT_unit unit)
{
    (void)pool;
    free((void *)unit);
}

static ABT_bool ufifo_is_empty(ABT_pool pool)
{
    return __atomic_load_n(&ufifo_of(pool)->size, __ATOMIC_ACQUIRE) == 0 ? ABT_TRUE : ABT_FALSE;
}

static size_t ufifo_get_size(ABT_pool pool)
{
    return (size_t)__atomic_load_n(&ufifo_of(pool)->size, __ATOMIC_ACQUIRE);
}

static void ufifo_push(ABT_pool pool, ABT_unit unit, ABT_pool_context context)
{
    (void)context;
    ufifo *f = ufifo_of(pool);
    ufifo_unit *u = (ufifo_unit *)unit;
    u->next = NULL;
    pthread_mutex_lock(&f->lock);
    if (f->tail != NULL) {
        f->tail->next = u;
    } else {
        f->head = u;
    }
    f->tail = u;
    __atomic_add_fetch(&f->size, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&f->lock);
}

static ABT_thread ufifo_pop(ABT_pool pool, ABT_pool_context context)
{
    (void)context;
    ufifo *f = ufifo_of(pool);
    pthread_mutex_lock(&f->lock);
    ufifo_unit *u = f->head;
    if (u != NULL) {
        f->head = u->next;
        if (f->head == NULL) f->tail = NULL;
        __atomic_sub_fetch(&f->size, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&f->lock);
    return u != NULL ? u->thread : ABT_THREAD_NULL;
}

static int ufifo_init(ABT_pool pool, ABT_pool_config config)
{
    (void)config;
    ufifo *f = calloc(1, sizeof *f);
    if (f == NULL) return ABT_ERR_MEM;
    pthread_mutex_init(&f->lock, NULL);
    return ABT_pool_set_data(pool, f);
}

static void ufifo_free(ABT_pool pool)
{
    ufifo *f = ufifo_of(pool);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

static ABT_pool ufifo_create(void)
{
    ABT_pool_user_def def = ABT_POOL_USER_DEF_NULL;
    ABT_pool pool = ABT_POOL_NULL;
    CHECK_INT(ABT_pool_user_def_create(ufifo_create_unit, ufifo_free_unit, ufifo_is_empty,
                                       ufifo_pop, ufifo_push, &def),
              ABT_SUCCESS);
    GOOD(ABT_pool_user_def_set_init(def, ufifo_init));
    GOOD(ABT_pool_user_def_set_free(def, ufifo_free));
    GOOD(ABT_pool_user_def_set_get_size(def, ufifo_get_size));
    CHECK_INT(ABT_pool_create(def, ABT_POOL_CONFIG_NULL, &pool), ABT_SUCCESS);
    GOOD(ABT_pool_user_def_free(&def));
    return pool;
}

/* ---- A user scheduler: the loop Argobots' documentation shows -------------------------------- */

static void user_run(ABT_sched sched)
{
    int n = 0;
    ABT_pool pools[MAXPOOLS];
    GOOD(ABT_sched_get_num_pools(sched, &n));
    GOOD(ABT_sched_get_pools(sched, n, 0, pools));
    for (unsigned round = 1;; round++) {
        for (int i = 0; i < n; i++) {
            ABT_thread t = ABT_THREAD_NULL;
            GOOD(ABT_pool_pop_thread(pools[i], &t));
            if (t != ABT_THREAD_NULL) {
                GOOD(ABT_self_schedule(t, ABT_POOL_NULL));
                break;
            }
        }
        if (round % 8 == 0) {
            ABT_bool stop = ABT_FALSE;
            GOOD(ABT_sched_has_to_stop(sched, &stop));
            if (stop == ABT_TRUE) break;
            GOOD(ABT_xstream_check_events(sched));
        }
    }
}

static ABT_sched_def user_def = {.type = ABT_SCHED_TYPE_ULT, .run = user_run};

/* ---- The round's shared state ---------------------------------------------------------------- */

static ABT_pool pools[MAXPOOLS];
static int npools;
static ABT_mutex mutex, tokens_mutex;
static ABT_cond tokens_cond;
static int tokens;
static long counter, increments; /* counter under mutex; increments atomic */
static ABT_rwlock rwlock;
static long arr[NARR], writes;   /* under rwlock */
static ABT_barrier barrier;
static long steps, suspends, resumes; /* atomic */

/* The resumer pthread's slots: a worker about to suspend puts its handle in its slot. */
static ABT_thread slots[NW];
static int resumer_stop;

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void take_token(void)
{
    GOOD(ABT_mutex_lock(tokens_mutex));
    while (tokens == 0) GOOD(ABT_cond_wait(tokens_cond, tokens_mutex));
    tokens--;
    GOOD(ABT_mutex_unlock(tokens_mutex));
}

static void give_token(void)
{
    GOOD(ABT_mutex_lock(tokens_mutex));
    tokens++;
    GOOD(ABT_cond_signal(tokens_cond));
    GOOD(ABT_mutex_unlock(tokens_mutex));
}

static void increment(uint64_t *s)
{
    GOOD(ABT_mutex_lock(mutex));
    long c = counter;
    if (s != NULL && (next_rand(s) & 1)) ABT_thread_yield();
    counter = c + 1;
    __atomic_add_fetch(&increments, 1, __ATOMIC_RELAXED);
    GOOD(ABT_mutex_unlock(mutex));
}

static void set_eventual(void *arg)
{
    ABT_thread_yield();
    GOOD(ABT_eventual_set((ABT_eventual)arg, NULL, 0));
}

static void read_or_write(uint64_t *s)
{
    if (next_rand(s) % 4 == 0) {
        GOOD(ABT_rwlock_wrlock(rwlock));
        for (int i = 0; i < NARR; i++) {
            arr[i]++;
            if (i == NARR / 2) ABT_thread_yield();
        }
        writes++;
        GOOD(ABT_rwlock_unlock(rwlock));
    } else {
        GOOD(ABT_rwlock_rdlock(rwlock));
        long first = arr[0];
        ABT_thread_yield();
        for (int i = 1; i < NARR; i++) {
            if (arr[i] != first) __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        }
        GOOD(ABT_rwlock_unlock(rwlock));
    }
}

static void timed_wait(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 200000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    GOOD(ABT_mutex_lock(tokens_mutex));
    int rc = ABT_cond_timedwait(tokens_cond, tokens_mutex, &ts);
    if (rc == ABT_SUCCESS) {
        GOOD(ABT_cond_signal(tokens_cond)); /* a token-giver's signal: pass it on */
    } else if (rc != ABT_ERR_COND_TIMEDOUT) {
        __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    }
    GOOD(ABT_mutex_unlock(tokens_mutex));
}

static void worker(void *arg)
{
    int id = (int)(intptr_t)arg % NW;
    uint64_t s = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
    ABT_thread self = ABT_THREAD_NULL;
    GOOD(ABT_self_get_thread(&self));
    for (int step = 0; step < STEPS; step++) {
        if (step == STEPS / 2) GOOD(ABT_barrier_wait(barrier));
        switch (next_rand(&s) % 9) {
        case 0:
        case 1:
            increment(&s);
            break;
        case 2:
            take_token();
            if (next_rand(&s) & 1) ABT_thread_yield();
            give_token();
            break;
        case 3:
            read_or_write(&s);
            break;
        case 4: {
            int rc = ABT_thread_migrate_to_pool(self, pools[next_rand(&s) % npools]);
            if (rc != ABT_SUCCESS && rc != ABT_ERR_MIGRATION_TARGET) {
                __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
            }
            ABT_thread_yield();
            break;
        }
        case 5: {
            ABT_eventual ev = ABT_EVENTUAL_NULL;
            ABT_thread child = ABT_THREAD_NULL;
            GOOD(ABT_eventual_create(0, &ev));
            GOOD(ABT_thread_create(pools[next_rand(&s) % npools], set_eventual, ev,
                                   ABT_THREAD_ATTR_NULL, &child));
            GOOD(ABT_eventual_wait(ev, NULL));
            GOOD(ABT_thread_free(&child));
            GOOD(ABT_eventual_free(&ev));
            break;
        }
        case 6:
            timed_wait();
            break;
        case 7:
            __atomic_add_fetch(&suspends, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&slots[id], self, __ATOMIC_RELEASE);
            GOOD(ABT_self_suspend());
            break;
        default:
            ABT_thread_yield();
        }
        __atomic_add_fetch(&steps, 1, __ATOMIC_RELAXED);
    }
}

/* Resumes each worker that put itself in its slot once it is suspended (BLOCKED). */
static void *resumer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&resumer_stop, __ATOMIC_ACQUIRE)) {
        for (int i = 0; i < NW; i++) {
            ABT_thread t = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
            ABT_thread_state state = ABT_THREAD_STATE_READY;
            if (t == ABT_THREAD_NULL) continue;
            GOOD(ABT_thread_get_state(t, &state));
            if (state != ABT_THREAD_STATE_BLOCKED) continue;
            __atomic_store_n(&slots[i], ABT_THREAD_NULL, __ATOMIC_RELEASE);
            GOOD(ABT_thread_resume(t));
            __atomic_add_fetch(&resumes, 1, __ATOMIC_RELAXED);
        }
        sched_yield();
    }
    return NULL;
}

static int external_stop;

static void *external(void *arg)
{
    uint64_t s = (uint64_t)(uintptr_t)arg + 77;
    while (!__atomic_load_n(&external_stop, __ATOMIC_ACQUIRE)) {
        if (next_rand(&s) & 1) {
            increment(NULL);
        } else {
            take_token();
            give_token();
        }
    }
    return NULL;
}

/* ---- The round's layouts ------------------------------------------------------------------- */

/* Its streams and what is freed after them; homes: where workers start. */
typedef struct {
    ABT_xstream xs[4];
    ABT_sched user_sched;          /* flat: the third stream's scheduler */
    ABT_sched stacked[8];          /* stacked: added once the workers are made, freed once stopped */
    int nstacked;
    ABT_pool stacked_pools[8];     /* stacked: their pools */
    ABT_sched_config not_automatic;
    ABT_pool homes[8];
    int nhomes;
} layout;

/* Flat: one scheduler per stream, of each kind (top of file); workers migrate among all six
 * pools. */
static void flat_layout(layout *l)
{
    ABT_pool wait_pool, user_pool, plain, high, low;
    CHECK_INT(ABT_xstream_self(&l->xs[0]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(l->xs[0], 1, &pools[0]), ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO_WAIT, ABT_POOL_ACCESS_MPMC, ABT_FALSE,
                                    &wait_pool),
              ABT_SUCCESS);
    user_pool = ufifo_create();
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &plain),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &high),
              ABT_SUCCESS);
    CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &low),
              ABT_SUCCESS);
    ABT_pool waits[2] = {wait_pool, user_pool}, users[2] = {user_pool, plain}, prio[2] = {high, low};
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC_WAIT, 2, waits, ABT_SCHED_CONFIG_NULL,
                                       &l->xs[1]),
              ABT_SUCCESS);
    CHECK_INT(ABT_sched_create(&user_def, 2, users, ABT_SCHED_CONFIG_NULL, &l->user_sched),
              ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(l->user_sched, &l->xs[2]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_PRIO, 2, prio, ABT_SCHED_CONFIG_NULL, &l->xs[3]),
              ABT_SUCCESS);
    npools = 0;
    pools[npools++] = pools[0];
    pools[npools++] = wait_pool;
    pools[npools++] = user_pool;
    pools[npools++] = plain;
    pools[npools++] = high;
    pools[npools++] = low;
    for (int i = 0; i < npools; i++) l->homes[i] = pools[i];
    l->nhomes = npools;
}

/* Stacked: on each stream a user scheduler stacked on the stream's pool, and a predefined one
 * stacked on the user one's pool; workers start in those two pools and migrate among the
 * streams' pools (a stacked scheduler stops once its pools are empty: a worker moved into one
 * later would wait there for good). */
static void stacked_layout(layout *l)
{
    CHECK_INT(ABT_sched_config_create(&l->not_automatic, ABT_sched_config_automatic, 0,
                                      ABT_sched_config_var_end),
              ABT_SUCCESS);
    CHECK_INT(ABT_xstream_self(&l->xs[0]), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(l->xs[0], 1, &pools[0]), ABT_SUCCESS);
    for (int i = 1; i < 4; i++) {
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_TRUE, &pools[i]),
                  ABT_SUCCESS);
        CHECK_INT(ABT_xstream_create_basic(ABT_SCHED_BASIC, 1, &pools[i], ABT_SCHED_CONFIG_NULL,
                                           &l->xs[i]),
                  ABT_SUCCESS);
    }
    npools = 4;
    l->nstacked = l->nhomes = 0;
    for (int i = 0; i < 4; i++) {
        ABT_pool mid, inner;
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &mid),
                  ABT_SUCCESS);
        CHECK_INT(ABT_pool_create_basic(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &inner),
                  ABT_SUCCESS);
        CHECK_INT(ABT_sched_create(&user_def, 1, &mid, l->not_automatic, &l->stacked[l->nstacked]),
                  ABT_SUCCESS);
        l->stacked_pools[l->nstacked++] = mid;
        CHECK_INT(ABT_sched_create_basic(ABT_SCHED_BASIC, 1, &inner, l->not_automatic,
                                         &l->stacked[l->nstacked]),
                  ABT_SUCCESS);
        l->stacked_pools[l->nstacked++] = inner;
        l->homes[l->nhomes++] = mid;
        l->homes[l->nhomes++] = inner;
    }
}

/* Stacked: the schedulers go into their parents' pools, now that their own hold workers. */
static void stacked_start(layout *l)
{
    for (int i = 0; i < l->nstacked; i += 2) {
        CHECK_INT(ABT_pool_add_sched(l->stacked_pools[i], l->stacked[i + 1]), ABT_SUCCESS);
        CHECK_INT(ABT_pool_add_sched(pools[i / 2], l->stacked[i]), ABT_SUCCESS);
    }
}

static void free_layout(layout *l, int stacked)
{
    for (int i = 0; i < l->nstacked; i++) {
        CHECK_INT(free_when_stopped(&l->stacked[i]), ABT_SUCCESS);
        CHECK_INT(ABT_pool_free(&l->stacked_pools[i]), ABT_SUCCESS);
    }
    for (int i = 1; i < 4; i++) {
        CHECK_INT(ABT_xstream_join(l->xs[i]), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_free(&l->xs[i]), ABT_SUCCESS);
    }
    if (stacked) {
        CHECK_INT(ABT_sched_config_free(&l->not_automatic), ABT_SUCCESS);
    } else {
        CHECK_INT(ABT_sched_free(&l->user_sched), ABT_SUCCESS);
        for (int i = 1; i < npools; i++) CHECK_INT(ABT_pool_free(&pools[i]), ABT_SUCCESS);
    }
}

/* ---- A round -------------------------------------------------------------------------------- */

static void run_round(int r)
{
    int stacked = r % STACKED_EVERY == STACKED_EVERY - 1;
    layout l = {.nstacked = 0};
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    if (stacked) {
        stacked_layout(&l);
    } else {
        flat_layout(&l);
    }
    CHECK_INT(ABT_mutex_create(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_create(&tokens_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_cond_create(&tokens_cond), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_create(&rwlock), ABT_SUCCESS);
    CHECK_INT(ABT_barrier_create(NW, &barrier), ABT_SUCCESS);
    tokens = TOKENS;
    counter = increments = writes = steps = suspends = resumes = 0;
    for (int i = 0; i < NARR; i++) arr[i] = 0;
    for (int i = 0; i < NW; i++) slots[i] = ABT_THREAD_NULL;
    resumer_stop = external_stop = 0;
    pthread_t ext[NEXT], res;
    for (int i = 0; i < NEXT; i++) {
        CHECK_INT(pthread_create(&ext[i], NULL, external, (void *)(uintptr_t)(i + r * 100)), 0);
    }
    CHECK_INT(pthread_create(&res, NULL, resumer, NULL), 0);

    ABT_thread w[NW];
    for (int i = 0; i < NW; i++) {
        CHECK_INT(ABT_thread_create(l.homes[i % l.nhomes], worker, (void *)(intptr_t)(i + NW * r),
                                    ABT_THREAD_ATTR_NULL, &w[i]),
                  ABT_SUCCESS);
    }
    if (stacked) stacked_start(&l);
    for (int i = 0; i < NW; i++) CHECK_INT(ABT_thread_free(&w[i]), ABT_SUCCESS);
    __atomic_store_n(&external_stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < NEXT; i++) pthread_join(ext[i], NULL);
    __atomic_store_n(&resumer_stop, 1, __ATOMIC_RELEASE);
    pthread_join(res, NULL);

    CHECK_INT(counter, increments);
    CHECK_INT(tokens, TOKENS);
    for (int i = 0; i < NARR; i++) CHECK_INT(arr[i], writes);
    CHECK_INT(resumes, suspends);
    CHECK_INT(steps, NW * STEPS);
    CHECK_INT(bad, 0);

    free_layout(&l, stacked);
    CHECK_INT(ABT_barrier_free(&barrier), ABT_SUCCESS);
    CHECK_INT(ABT_rwlock_free(&rwlock), ABT_SUCCESS);
    CHECK_INT(ABT_cond_free(&tokens_cond), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&tokens_mutex), ABT_SUCCESS);
    CHECK_INT(ABT_mutex_free(&mutex), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

int main(void)
{
    alarm(60 * CTEST_SLOW); /* a hang (deadlock or lost wake-up) ends the program: SIGALRM */
    for (int r = 0; r < ROUNDS && check_failed == 0; r++) run_round(r);
    return check_summary();
}
