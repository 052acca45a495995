//go:build goabt_c_engine
/* stream.c: execution streams: their threads, creation, join and deletion (CPU binding:
 * stream_affinity.c). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gocalls.h"
#include "object.h"
#include "keys.h"
#include "object.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "trace.h"
#include "unit.h"
#include "wait.h"

/* ---- Streams ------------------------------------------------------------------------------ */

static goabt_stream *all_streams[4096]; /* by slot; rt.lock guards it */

goabt_stream *goabt_stream_new(goabt_sched *sched, int rank)
{
    goabt_stream *s = goabt_mem_new(sizeof *s);
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
        goabt_mem_delete(s, sizeof *s);
        return NULL;
    }
    s->rank = rank;
    s->sched = sched;
    s->go_sched_at = goabt_monotonic_ns(); /* its first pass through Go's scheduler: base.c */
    GOABT_ASSERT_MSG(sched->used == GOABT_SCHED_UNUSED, "a scheduler runs one stream, or is stacked");
    sched->used = GOABT_SCHED_MAIN;
    s->state = ABT_XSTREAM_STATE_RUNNING;
    s->magic = GOABT_MAGIC_STREAM;
    __atomic_add_fetch(&goabt_rt.num_streams, 1, __ATOMIC_RELAXED);
    return s;
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

/* The stream whose thread this is (not the primary's), for goabt_stream_thread_stack. */
static __thread goabt_stream *thread_owner __attribute__((tls_model("initial-exec")));

int goabt_stream_thread_stack(void **addr, size_t *size)
{
    goabt_stream *s = thread_owner;
    if (s == NULL || s->thread_stack == NULL) return 0;
    size_t guard = (size_t)sysconf(_SC_PAGESIZE);
    *addr = (char *)s->thread_stack + guard;
    *size = s->thread_stack_size - guard;
    return 1;
}

/* The part of a stream's thread that runs inside a call from Go (goabt_go_stream_host,
 * capi/runtime.go): its scheduler loop. */
static void stream_body(void *arg)
{
    goabt_sched_loop(arg);
}

static void *stream_thread(void *arg)
{
    goabt_stream *s = arg;
    thread_owner = s;
    GOABT_ASSERT(goabt_self_stream() == NULL && !s->is_primary);
    GOABT_ASSERT(__atomic_load_n(&s->state, __ATOMIC_RELAXED) == ABT_XSTREAM_STATE_RUNNING);
    goabt_sigstack_begin(&s->sigstack); /* where a stack overflow is reported from */
    goabt_set_self_stream(s);
    goabt_stream_bind_start(s);
    /* Streams start after ABT_init, which loaded the Go core. */
    goabt_go.stream_host((uintptr_t)stream_body, (uintptr_t)s);
    GOABT_ASSERT_MSG(s->current == NULL && s->nested == 0 && !s->run_live,
                     "a stream ends from its scheduler's context");
    for (int i = 0; i < GOABT_SCHED_MAX_POOLS; i++) GOABT_ASSERT(!s->sleep_nodes[i].linked);
    goabt_stream_bind_stop(s);
    goabt_set_self_stream(NULL);
    /* The signal stack stays until the thread is gone (goabt_stream_join frees it): the Go
     * runtime may keep this thread's M until the thread exits, and a signal that finds the
     * stack it was given disabled meanwhile is fatal to it ("non-Go code disabled
     * sigaltstack"). */
    /* A deadline this stream armed (a ULT of a shared pool in a timed wait) must not be left
     * to streams that went to sleep before it existed: they look at the timers again. */
    if (__atomic_load_n(&goabt_timers_earliest, __ATOMIC_ACQUIRE) != 0) wake_others(s);
    /* TERMINATED before the joiners are taken (a unit's end does the reverse, as its owner may
     * free it once TERMINATED): a joiner that finds the stack taken returns and looks at the
     * state, which must be TERMINATED by then. s stays valid meanwhile: its joiners free it
     * only after pthread_join. */
    __atomic_store_n(&s->state, ABT_XSTREAM_STATE_TERMINATED, __ATOMIC_RELEASE);
    GOABT_RACE_WINDOW();
    goabt_joiners_wake(goabt_joiners_take(&s->joiners));
    return NULL;
}

void goabt_stream_wake(goabt_stream *s)
{
    __atomic_store_n(&s->sleep_word, 1, __ATOMIC_SEQ_CST);
    goabt_futex_wake(&s->sleep_word, 1);
}

/* A stream's thread gets a stack goabt maps, of the size a thread created without attributes
 * gets (ulimit -s, as native Argobots' streams have) and a guard page below it as glibc puts
 * one, so that goabt knows its bounds without asking glibc (goabt_stream_thread_stack). Refused
 * memory is ABT_ERR_SYS, as pthread_create's own refusal to map a stack is. */
int goabt_stream_start(goabt_stream *s)
{
    pthread_attr_t attr;
    size_t size = 0, guard = (size_t)sysconf(_SC_PAGESIZE);
    if (pthread_getattr_default_np(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &size);
        pthread_attr_destroy(&attr);
    }
    if (size < (size_t)1 << 20) size = (size_t)8 << 20; /* unknown: glibc's usual */
    size = (size + guard - 1) & ~(guard - 1);
    char *m = mmap(NULL, size + guard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return ABT_ERR_SYS;
    int ok = mprotect(m, guard, PROT_NONE) == 0 && pthread_attr_init(&attr) == 0;
    if (ok) {
        ok = pthread_attr_setstack(&attr, m + guard, size) == 0;
        s->thread_stack = m;
        s->thread_stack_size = size + guard;
        ok = ok && pthread_create(&s->thread, &attr, stream_thread, s) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!ok) {
        munmap(m, size + guard);
        s->thread_stack = NULL;
        s->thread = 0;
        return ABT_ERR_SYS;
    }
    return ABT_SUCCESS;
}

/* Asks s to finish once its pools are empty and waits for its thread to end: a ULT caller
 * parks (its stream runs other work meanwhile), others sleep. */
void goabt_stream_join(goabt_stream *s)
{
    GOABT_ASSERT_MSG(s != goabt_self_stream() && !s->is_primary, "a stream never joins itself");
    __atomic_or_fetch(&s->request, GOABT_REQ_FINISH, __ATOMIC_SEQ_CST);
    goabt_stream_wake(s);
    if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != ABT_XSTREAM_STATE_TERMINATED) {
        GOABT_RACE_WINDOW(); /* meanwhile the stream may end: the stack below may be taken */
        goabt_waiter w;
        goabt_waiter_init(&w, 0, 0);
        goabt_joiners_wait(&s->joiners, &w, ABT_SYNC_EVENT_TYPE_XSTREAM_JOIN, s);
    }
    GOABT_ASSERT(__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == ABT_XSTREAM_STATE_TERMINATED);
    if (s->thread) {
        pthread_join(s->thread, NULL);
        s->thread = 0;
        goabt_sigstack_release(&s->sigstack);
        munmap(s->thread_stack, s->thread_stack_size);
        s->thread_stack = NULL;
    }
}

void goabt_stream_delete(goabt_stream *s)
{
    /* Its thread has ended (a joined secondary, or the primary at finalize): nothing runs on it,
     * and no pool lists it asleep. */
    GOABT_ASSERT(s != goabt_self_stream() && s->current == NULL && s->thread == 0);
    GOABT_ASSERT(s->is_primary ||
                 __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == ABT_XSTREAM_STATE_TERMINATED);
    for (int i = 0; i < GOABT_SCHED_MAX_POOLS; i++) {
        GOABT_ASSERT_MSG(!s->sleep_nodes[i].linked, "stream %d freed while listed asleep", s->rank);
    }
    /* The values of its scheduler as a ULT go first, as a ULT's when it is freed: their
     * destructors may still look at the stream, its scheduler and pools. */
    if (s->sched_self != NULL) goabt_keys_destroy(s->sched_self);
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0]; i++) {
        if (all_streams[i] == s) all_streams[i] = NULL;
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    __atomic_sub_fetch(&goabt_rt.num_streams, 1, __ATOMIC_RELAXED);
    goabt_sched *sc = s->sched;
    GOABT_ASSERT(sc->used == GOABT_SCHED_MAIN);
    sc->used = GOABT_SCHED_UNUSED;
    if (sc->automatic) goabt_sched_delete(sc);
    goabt_units_cache_release(s);
    goabt_user_sched_stack_free(s); /* the primary's run stack, if it had one */
    /* A push that found s asleep may still be about to wake it. */
    for (unsigned spins = 0; __atomic_load_n(&s->wakers, __ATOMIC_ACQUIRE) != 0; spins++) {
        goabt_backoff(spins);
    }
    goabt_trace_stream_delete(s); /* its thread has ended: its records go to the Go core */
    if (s->sched_self != NULL) { /* its values went first (above) */
        goabt_unit *u = s->sched_self;
        goabt_keys_release_spare(u);
        u->magic = GOABT_MAGIC_FREED;
        goabt_unit_put(u);
    }
    goabt_mem_delete(s, sizeof *s);
}

/* ---- Stream calls against finalize ---------------------------------------------------------
 *
 * Any OS thread may create, join, free or revive streams, while the main ULT finalizes too.
 * Finalize joins and frees every stream left: a free of the same stream on another thread would
 * join it a second time (pthread_join of a thread already collected: a hang or a crash), and a
 * stream created after finalize's sweep would outlive the runtime. So those calls are counted
 * in flight, and finalize, once the primary's own work is done, closes them and waits for the
 * count to drain: a call that comes later returns ABT_ERR_UNINITIALIZED, as it would once
 * finalize has returned, and a handle finalize freed is refused by its magic. */

int goabt_stream_calls_enter(void)
{
    int rc = ABT_SUCCESS;
    pthread_mutex_lock(&goabt_rt.lock);
    if (goabt_rt.stream_calls_closed || !goabt_initialized()) {
        rc = ABT_ERR_UNINITIALIZED;
    } else {
        goabt_rt.stream_calls++;
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    return rc;
}

void goabt_stream_calls_exit(void)
{
    pthread_mutex_lock(&goabt_rt.lock);
    GOABT_ASSERT(goabt_rt.stream_calls > 0);
    if (--goabt_rt.stream_calls == 0 && goabt_rt.stream_calls_closed) {
        pthread_cond_broadcast(&goabt_rt.stream_calls_done);
    }
    pthread_mutex_unlock(&goabt_rt.lock);
}

void goabt_stream_calls_close(void)
{
    pthread_mutex_lock(&goabt_rt.lock);
    goabt_rt.stream_calls_closed = 1;
    while (goabt_rt.stream_calls > 0) pthread_cond_wait(&goabt_rt.stream_calls_done, &goabt_rt.lock);
    pthread_mutex_unlock(&goabt_rt.lock);
}

void goabt_stream_calls_open(void)
{
    pthread_mutex_lock(&goabt_rt.lock);
    GOABT_ASSERT(goabt_rt.stream_calls == 0);
    goabt_rt.stream_calls_closed = 0;
    pthread_mutex_unlock(&goabt_rt.lock);
}

goabt_unit *goabt_stream_sched_self(goabt_stream *s)
{
    if (s->sched_self != NULL) return s->sched_self;
    GOABT_ASSERT_MSG(s == goabt_self_stream(), "made by the stream's own thread");
    goabt_unit *u = goabt_unit_get(); /* zeroed: no pool, no keys, no stack */
    if (u == NULL) return NULL;
    u->kind = GOABT_ULT;
    u->flags = GOABT_UNIT_NAMED; /* nobody frees it but the stream */
    u->state = ABT_THREAD_STATE_RUNNING;
    u->last_stream = s;
    u->magic = GOABT_MAGIC_SCHED_SELF;
    s->sched_self = u;
    return u;
}

goabt_stream *goabt_stream_other_running(goabt_stream *not)
{
    static unsigned next; /* where the last search started, for spread */
    size_t n = sizeof all_streams / sizeof all_streams[0];
    size_t start = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) % n;
    goabt_stream *found = NULL;
    pthread_mutex_lock(&goabt_rt.lock);
    for (size_t k = 0; k < n && found == NULL; k++) {
        goabt_stream *s = all_streams[(start + k) % n];
        if (s != NULL && s != not &&
            __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == ABT_XSTREAM_STATE_RUNNING) {
            found = s;
        }
    }
    pthread_mutex_unlock(&goabt_rt.lock);
    return found;
}

int goabt_stream_revive(goabt_stream *s)
{
    /* Joined: its thread is gone, nobody else touches it. */
    GOABT_ASSERT_MSG(s->thread == 0 && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) ==
                                           ABT_XSTREAM_STATE_TERMINATED,
                     "only a joined stream is revived");
    GOABT_ASSERT(s->sched->used == GOABT_SCHED_MAIN && !s->is_primary);
    __atomic_store_n(&s->request, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->sched->finish_req, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->sched->exit_req, 0, __ATOMIC_RELAXED);
    s->joiners = NULL;
    __atomic_store_n(&s->state, ABT_XSTREAM_STATE_RUNNING, __ATOMIC_RELEASE);
    int rc = goabt_stream_start(s);
    if (rc != ABT_SUCCESS) {
        s->joiners = GOABT_JOIN_DONE;
        __atomic_store_n(&s->state, ABT_XSTREAM_STATE_TERMINATED, __ATOMIC_RELEASE);
    }
    return rc;
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


int goabt_streams_each(void (*fn)(goabt_stream *s, void *arg), void *arg)
{
    int count = 0, last = -1;
    pthread_mutex_lock(&goabt_rt.lock);
    for (;;) { /* by rank, without an array: streams are few, and this runs on ULT stacks too */
        goabt_stream *next = NULL;
        for (size_t i = 0; i < sizeof all_streams / sizeof all_streams[0]; i++) {
            goabt_stream *s = all_streams[i];
            if (s != NULL && s->rank > last && (next == NULL || s->rank < next->rank)) next = s;
        }
        if (next == NULL) break;
        last = next->rank;
        count++;
        fn(next, arg);
    }
    fn(NULL, arg);
    pthread_mutex_unlock(&goabt_rt.lock);
    return count;
}
