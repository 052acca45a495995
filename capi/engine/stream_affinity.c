//go:build goabt_c_engine
/*
 * stream_affinity.c: CPU binding of execution streams. ABT_SET_AFFINITY binds each stream to
 * the CPU set its rank picks (the sets come parsed from the Go core, core.AffinitySets), and
 * ABT_xstream_set_cpubind, _get_cpubind, _set_affinity and _get_affinity (api/xstream_affinity.c)
 * bind any stream, the caller's own, another one or the primary, and read its binding.
 *
 * A stream's binding is its OS thread's CPU mask (pthread_setaffinity_np), and the getters read
 * the thread's mask back, so what a ULT set with sched_setaffinity is what they report. A thread
 * is touched only while it runs a stream: under goabt_rt.lock, s->bind_live says that
 * s->bind_thread may be used; the thread sets it when it starts and clears it before it ends (a
 * thread that has ended but is not joined yet has no kernel id left, and pthread_setaffinity_np
 * on it would bind the caller instead). What the program asked for last is kept in s->bind_cpus,
 * which the thread takes whenever it starts, and which the getters report while no thread runs
 * s (before its thread starts, after a join).
 *
 * The CPUs a stream may be bound to are those the process could use at ABT_init (the main
 * thread's mask then, goabt_rt.cpus: what taskset, numactl or a batch system left it), the set
 * ABT_SET_AFFINITY's ids index too; and the kernel must agree: the mask is read back once set,
 * and a CPU it dropped (offline, outside the process's cpuset) fails the call with
 * ABT_ERR_CPUID, the old mask restored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include "gocalls.h"
#include "runtime.h"
#include "object.h"
#include "stream.h"

/* ---- ABT_SET_AFFINITY: the sets ranks bind to --------------------------------------------- */

int goabt_affinity_init(void)
{
    goabt_rt.affinity_sets = NULL;
    goabt_rt.num_affinity_sets = 0;
    if (!goabt_rt.affinity) return ABT_SUCCESS;
    int allowed[CPU_SETSIZE], n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &goabt_rt.cpus)) allowed[n++] = cpu;
    }
    /* On the main thread, from ABT_init: no ULT runs yet, so no gate (as runtime_init). */
    int num = goabt_go.affinity_sets(allowed, n, NULL, 0);
    if (num <= 0) {
        goabt_rt.affinity = 0;
        return ABT_SUCCESS;
    }
    enum { WORDS = CPU_SETSIZE / 64 };
    uint64_t *words = calloc((size_t)num * WORDS, sizeof *words);
    cpu_set_t *sets = calloc((size_t)num, sizeof *sets);
    if (words == NULL || sets == NULL) {
        free(words);
        free(sets);
        return ABT_ERR_MEM;
    }
    goabt_go.affinity_sets(allowed, n, words, num);
    for (int i = 0; i < num; i++) {
        CPU_ZERO(&sets[i]);
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (words[i * WORDS + cpu / 64] >> (cpu % 64) & 1) CPU_SET(cpu, &sets[i]);
        }
    }
    free(words);
    goabt_rt.affinity_sets = sets;
    goabt_rt.num_affinity_sets = num;
    return ABT_SUCCESS;
}

void goabt_affinity_finalize(void)
{
    free(goabt_rt.affinity_sets);
    goabt_rt.affinity_sets = NULL;
    goabt_rt.num_affinity_sets = 0;
}

/* The set s's rank picks, or NULL when ABT_SET_AFFINITY binds nothing. */
static const cpu_set_t *rank_set(const goabt_stream *s)
{
    if (!goabt_rt.affinity || goabt_rt.num_affinity_sets == 0) return NULL;
    return &goabt_rt.affinity_sets[s->rank % goabt_rt.num_affinity_sets];
}

/* ---- A stream's thread ------------------------------------------------------------------- */

/* Why bind by rank at all: with two streams per core or fewer, the kernel would otherwise often
 * stack both on one core after a futex wake-up and halve their speed (but see core.Config's
 * Affinity for why it is off by default). */

void goabt_stream_bind_start(goabt_stream *s)
{
    pthread_mutex_lock(&goabt_rt.lock);
    s->bind_thread = pthread_self();
    s->bind_live = 1;
    const cpu_set_t *set = s->bind_explicit ? &s->bind_cpus : rank_set(s);
    if (set != NULL) pthread_setaffinity_np(s->bind_thread, sizeof *set, set);
    pthread_mutex_unlock(&goabt_rt.lock);
}

void goabt_stream_bind_stop(goabt_stream *s)
{
    pthread_mutex_lock(&goabt_rt.lock);
    s->bind_live = 0;
    pthread_mutex_unlock(&goabt_rt.lock);
}

void goabt_stream_move_off_cpu(goabt_stream *s, int cpu)
{
    if (goabt_rt.affinity || cpu < 0 || cpu >= CPU_SETSIZE) return; /* all bound by rank */
    /* Under the lock its thread's start and end take, and ABT_xstream_set_cpubind. */
    pthread_mutex_lock(&goabt_rt.lock);
    cpu_set_t mask, others;
    if (__atomic_load_n(&s->magic, __ATOMIC_RELAXED) == GOABT_MAGIC_STREAM && s->bind_live &&
        !s->bind_explicit && pthread_getaffinity_np(s->bind_thread, sizeof mask, &mask) == 0) {
        /* A mask without cpu, then its own again: the kernel moves it at the first call. */
        others = mask;
        CPU_CLR(cpu, &others);
        if (CPU_COUNT(&others) > 0 &&
            pthread_setaffinity_np(s->bind_thread, sizeof others, &others) == 0) {
            pthread_setaffinity_np(s->bind_thread, sizeof mask, &mask);
        }
    }
    pthread_mutex_unlock(&goabt_rt.lock);
}

void goabt_stream_bind_rank(goabt_stream *s)
{
    pthread_mutex_lock(&goabt_rt.lock);
    const cpu_set_t *set = rank_set(s);
    if (set != NULL) {
        s->bind_explicit = 0; /* the rank's set replaces what the program asked for */
        if (s->bind_live) pthread_setaffinity_np(s->bind_thread, sizeof *set, set);
    }
    pthread_mutex_unlock(&goabt_rt.lock);
}

/* Binds s to want, under goabt_rt.lock: its thread now if it runs one, and whenever its thread
 * starts. Every CPU of want must be one the process could use at ABT_init, and the kernel must
 * keep them all (else the old mask comes back): ABT_ERR_CPUID otherwise. */
static int bind_locked(goabt_stream *s, const cpu_set_t *want)
{
    cpu_set_t allowed;
    CPU_AND(&allowed, want, &goabt_rt.cpus);
    if (!CPU_EQUAL(&allowed, want)) return ABT_ERR_CPUID;
    if (s->bind_live) {
        cpu_set_t old, got;
        if (pthread_getaffinity_np(s->bind_thread, sizeof old, &old) != 0) return ABT_ERR_SYS;
        int rc = pthread_setaffinity_np(s->bind_thread, sizeof *want, want);
        if (rc == EINVAL) return ABT_ERR_CPUID; /* no CPU of want may be used */
        if (rc != 0) return ABT_ERR_SYS;
        if (pthread_getaffinity_np(s->bind_thread, sizeof got, &got) != 0 || !CPU_EQUAL(&got, want)) {
            pthread_setaffinity_np(s->bind_thread, sizeof old, &old);
            return ABT_ERR_CPUID; /* some CPU of want may not */
        }
    }
    s->bind_cpus = *want;
    s->bind_explicit = 1;
    return ABT_SUCCESS;
}

int goabt_stream_bind(goabt_stream *s, const cpu_set_t *want)
{
    pthread_mutex_lock(&goabt_rt.lock);
    int rc = bind_locked(s, want);
    pthread_mutex_unlock(&goabt_rt.lock);
    return rc;
}

/* The CPUs s runs on: its thread's mask while it runs one; else those its thread will take:
 * asked for, its rank's set, or (bound by nobody) those the process could use at ABT_init. */
int goabt_stream_cpus_locked(goabt_stream *s, cpu_set_t *set)
{
    if (s->bind_live) {
        return pthread_getaffinity_np(s->bind_thread, sizeof *set, set) != 0 ? ABT_ERR_SYS
                                                                               : ABT_SUCCESS;
    }
    const cpu_set_t *planned = s->bind_explicit ? &s->bind_cpus : rank_set(s);
    *set = planned != NULL ? *planned : goabt_rt.cpus;
    return ABT_SUCCESS;
}

int goabt_stream_cpus(goabt_stream *s, cpu_set_t *set)
{
    pthread_mutex_lock(&goabt_rt.lock);
    int rc = goabt_stream_cpus_locked(s, set);
    pthread_mutex_unlock(&goabt_rt.lock);
    return rc;
}
