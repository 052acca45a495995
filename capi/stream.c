//go:build goabt_c_engine
/* stream.c: execution streams: their threads, creation, join, deletion and CPU binding. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include "engine.h"
#include "wait.h"

/* ---- Streams ------------------------------------------------------------------------------ */

static goabt_stream *all_streams[4096]; /* by slot; rt.lock guards it */

goabt_stream *goabt_stream_new(goabt_sched *sched, int rank)
{
    goabt_stream *s = goabt_alloc_lines(sizeof *s);
    if (s == NULL) return NULL;
    int registered = 0;
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0] && !registered; i++) {
        if (all_streams[i] == NULL) {
            all_streams[i] = s;
            registered = 1;
        }
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    if (!registered) { /* finalize must find every stream: refuse one more than it can */
        free(s);
        return NULL;
    }
    s->rank = rank;
    s->sched = sched;
    sched->used = GOABT_SCHED_MAIN;
    s->state = ABT_XSTREAM_STATE_RUNNING;
    s->magic = GOABT_MAGIC_STREAM;
    __atomic_add_fetch(&goabt_rt.num_streams, 1, __ATOMIC_RELAXED);
    return s;
}

/* The CPU a stream's rank picks: the rank-th allowed CPU, round robin, as Argobots does. */
int goabt_stream_cpu(goabt_stream *s)
{
    int n = CPU_COUNT(&goabt_rt.cpus);
    if (!goabt_rt.affinity || n == 0) return -1;
    int want = s->rank % n;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &goabt_rt.cpus) && seen++ == want) return cpu;
    }
    return -1;
}

/* Binds the stream's thread to its CPU: with two streams per core or fewer, the kernel would
 * otherwise often stack both on one core after a futex wake-up and halve their speed. */
void goabt_stream_bind(goabt_stream *s, pthread_t thread)
{
    int cpu = goabt_stream_cpu(s);
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(thread, sizeof set, &set);
}

/* Wakes every stream but s (registered streams are not freed while rt.lock is held). */
static void wake_others(goabt_stream *s)
{
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0]; i++) {
        if (all_streams[i] != NULL && all_streams[i] != s) goabt_stream_wake(all_streams[i]);
    }
    pthread_mutex_unlock(&goabt_rt.lock);
}

void goabt_streams_wake_all(void)
{
    wake_others(NULL);
}

static void *stream_thread(void *arg)
{
    goabt_stream *s = arg;
    goabt_sigstack sigstack; /* where a stack overflow is reported from (stackcheck.c) */
    goabt_sigstack_begin(&sigstack);
    goabt_set_self_stream(s);
    goabt_stream_bind(s, pthread_self());
    goabt_sched_loop(s);
    goabt_set_self_stream(NULL);
    goabt_sigstack_end(&sigstack);
    /* A deadline this stream armed (a ULT of a shared pool in a timed wait) must not be left
     * to streams that went to sleep before it existed: they look at the timers again. */
    if (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_ACQUIRE) != 0) wake_others(s);
    /* The joiners free s only after pthread_join: s stays valid until this thread ends. */
    goabt_waiter *joiners = goabt_joiners_take(&s->joiners);
    __atomic_store_n(&s->state, ABT_XSTREAM_STATE_TERMINATED, __ATOMIC_RELEASE);
    goabt_joiners_wake(joiners);
    return NULL;
}

void goabt_stream_wake(goabt_stream *s)
{
    __atomic_store_n(&s->sleep_word, 1, __ATOMIC_SEQ_CST);
    goabt_futex_wake(&s->sleep_word, 1);
}

int goabt_stream_start(goabt_stream *s)
{
    return pthread_create(&s->thread, NULL, stream_thread, s) == 0 ? ABT_SUCCESS : ABT_ERR_SYS;
}

/* Asks s to finish once its pools are empty and waits for its thread to end: a ULT caller
 * parks (its stream runs other work meanwhile), others sleep. */
void goabt_stream_join(goabt_stream *s)
{
    __atomic_or_fetch(&s->request, GOABT_REQ_FINISH, __ATOMIC_SEQ_CST);
    goabt_stream_wake(s);
    if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != ABT_XSTREAM_STATE_TERMINATED) {
        goabt_waiter w;
        goabt_waiter_init(&w, 0, 0);
        goabt_joiners_wait(&s->joiners, &w);
    }
    if (s->thread) {
        pthread_join(s->thread, NULL);
        s->thread = 0;
    }
}

void goabt_stream_delete(goabt_stream *s)
{
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0]; i++) {
        if (all_streams[i] == s) all_streams[i] = NULL;
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    __atomic_sub_fetch(&goabt_rt.num_streams, 1, __ATOMIC_RELAXED);
    goabt_sched *sc = s->sched;
    sc->used = GOABT_SCHED_UNUSED;
    if (sc->automatic) goabt_sched_delete(sc);
    goabt_units_cache_release(s);
    /* A push that found s asleep may still be about to wake it. */
    for (unsigned spins = 0; __atomic_load_n(&s->wakers, __ATOMIC_ACQUIRE) != 0; spins++) {
        goabt_backoff(spins);
    }
    s->magic = GOABT_MAGIC_FREED;
    free(s);
}

goabt_stream *goabt_stream_any_secondary(void)
{
    goabt_stream *found = NULL;
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0] && !found; i++) {
        if (all_streams[i] != NULL && !all_streams[i]->is_primary) found = all_streams[i];
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    return found;
}

