//go:build goabt_c_engine
/* runtime.c: the runtime as a whole: init and finalize, and what a fork leaves (the calling
 * thread's state, the gate into Go and futexes are base.c's). The engine's design is at the top of its headers (common.h: the roles; unit.h:
 * switching and blocking); the rules it follows are in docs/design.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <time.h>
#include <unistd.h>
#include "gocalls.h"
#include "context.h"
#include "object.h"
#include "info.h"
#include "keys.h"
#include "leaks.h"
#include "pool.h"
#include "pool_member.h"
#include "runtime.h"
#include "scheduler.h"
#include "stream.h"
#include "tool.h"
#include "trace.h"
#include "unit.h"
#include "valgrind_stacks.h"

struct goabt_runtime goabt_rt = {
    .thread_stacksize = 16384,
    .unit_magic = GOABT_MAGIC_UNIT - 1, /* engine_init counts it up */
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .stream_calls_done = PTHREAD_COND_INITIALIZER,
    .stack_check = 2,
    .ult_entry = goabt_ult_entry,
};

/* ---- Init and finalize -------------------------------------------------------------------- */

/* Units of earlier inits (handles kept past ABT_finalize) no longer carry the current magic. */
static void next_unit_generation(void)
{
    uint32_t gen = (goabt_rt.unit_magic + 1) & 0xffff;
    __atomic_store_n(&goabt_rt.unit_magic, (GOABT_MAGIC_UNIT & 0xffff0000u) | gen,
                     __ATOMIC_RELAXED);
}

void goabt_engine_forked(void)
{
    /* The child's only thread, before fork returns: no other thread reads these yet. */
    goabt_rt.forked = 1;
    goabt_rt.init_depth = 0;
    next_unit_generation();
    goabt_set_self_stream(NULL); /* the forking thread may have been a stream's; here it is nobody's */
}

void goabt_forked_unit_returned(void)
{
    exit(0);
}

static void warm_body(void *arg) { (void)arg; }

/* The first ABT_init of a process runs one ULT through create, run, join and free on the
 * primary, so that the code and data those touch are faulted in here and not under the
 * program's first ULT (make bench's cold_first_ult row; docs/performance.md, "warm ULT"). Nobody
 * sees it: it takes no id (ids are given on first query), no tool callback can be registered
 * yet, the trace starts after it, and the leak check sees it freed. */
static void run_warm_ult(goabt_stream *s)
{
    static int warmed;
    if (warmed) return;
    warmed = 1;
    /* Not under an address-space limit: the stack it would take may be the last there is, and
     * the out-of-memory line, said once, would name this ULT instead of the program's. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) return;
    goabt_unit *u;
    if (goabt_unit_create(s->sched->pools[0], GOABT_ULT, warm_body, NULL, NULL, 1, &u) != ABT_SUCCESS) {
        return;
    }
    goabt_unit_join(u);
    goabt_unit_free(u);
}

/* ABT_init's ABT_ERR_MEM once the Go core has started: under an address-space limit, said on
 * stderr once. golib.c let the Go core start only with room for what it takes as it starts,
 * but on a busy machine the Go runtime may start a thread or two more meanwhile (a stack and a
 * malloc arena each), and what is left can be short of the headroom goabt keeps it
 * (core/addrspace.go). */
static int init_out_of_memory(void)
{
    static int said;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
        fprintf(stderr,
                "goabt: the address-space limit (ulimit -v) is %llu KiB and the Go runtime took "
                "more of it as it started than goabt counted on: too little is left for "
                "goabt's own memory: raise the limit (ABT_init returns ABT_ERR_MEM)\n",
                (unsigned long long)rl.rlim_cur / 1024);
    }
    return ABT_ERR_MEM;
}

int goabt_engine_init(void)
{
    goabt_rt.next_unit_id = 0;
    goabt_rt.next_pool_id = 0;
    next_unit_generation();
    /* The first call into Go: on the main thread, which runs no ULT yet, so no gate. */
    GOABT_ASSERT_MSG(goabt_self_stream() == NULL && goabt_rt.primary == NULL,
                     "the engine starts once, on a thread that is no stream's");
    if (!goabt_go_available()) return goabt_go_unavailable_error();
    goabt_signals_take(); /* golib_signals.c: before the stack check chains its handler on */
    struct goabt_go_config config;
    int rc = goabt_go.runtime_init(sizeof(goabt_unit), &config);
    if (rc != 0) return rc == 2 ? ABT_ERR_INV_ARG : ABT_ERR_OTHER; /* 2: GOABT_POOL/SCHED unknown */
    goabt_rt.thread_stacksize = config.thread_stacksize;
    goabt_rt.safety_ns = config.safety_ns;
    goabt_rt.max_xstreams = config.max_xstreams;
    goabt_rt.affinity = config.affinity;
    goabt_rt.go_pool = config.go_pool;
    goabt_rt.go_sched = config.go_sched;
    goabt_rt.stack_check = config.stack_check;
    goabt_rt.tool = config.tool;
    goabt_rt.watchdog_ns = config.watchdog_ns;
    goabt_rt.dump_signal = config.dump_signal;
    goabt_info_at_init();
    goabt_leaks_at_init();
    goabt_rt.asym_fence = 0; /* decided at the first user C pool: goabt_asym_fence_decide */
    goabt_asym_fence_reset();
    goabt_tool_reset();
    if (sched_getaffinity(0, sizeof goabt_rt.cpus, &goabt_rt.cpus) != 0) goabt_rt.affinity = 0;
    pthread_getaffinity_np(pthread_self(), sizeof goabt_rt.main_cpus, &goabt_rt.main_cpus);
    if (goabt_affinity_init() != ABT_SUCCESS) return init_out_of_memory();
    goabt_stream_calls_open();

    goabt_pool *pool = goabt_pool_new_predef(ABT_POOL_FIFO, ABT_POOL_ACCESS_MPMC, 1);
    if (pool == NULL) return init_out_of_memory();
    goabt_rt.next_pool_id++; /* Argobots numbers the primary's internal root pool 1 */
    goabt_sched *sched = goabt_sched_new_predef(ABT_SCHED_BASIC, 1, &pool, 1);
    goabt_stream *s = sched ? goabt_stream_new(sched, goabt_rank_take(0)) : NULL;
    goabt_unit *m = goabt_unit_get(); /* unit memory: a stale handle to it stays readable */
    if (sched == NULL || s == NULL || m == NULL) return init_out_of_memory();
    s->is_primary = 1;
    s->thread = 0; /* never joined */
    m->kind = GOABT_ULT;
    m->flags = GOABT_UNIT_MAIN | GOABT_UNIT_MIGRATABLE;
    m->state = ABT_THREAD_STATE_RUNNING;
    goabt_pool_member_redirect(m, pool);
    m->last_stream = s;
    m->magic = goabt_rt.unit_magic;
    goabt_rt.primary = s;
    goabt_rt.main_unit = m;
    s->current = m;
    goabt_stream_bind_start(s);
    goabt_set_self_stream(s);
    goabt_units_warm(s);
    goabt_stackcheck_init(); /* the Go runtime's signal handlers are in place: runtime_init ran */
    run_warm_ult(s);
    goabt_trace_init(); /* GOABT_TRACE: the main ULT runs, the trace starts */
    goabt_hang_start(); /* GOABT_WATCHDOG, GOABT_DUMP_SIGNAL */
    return ABT_SUCCESS;
}

/* The main ULT waiting in ABT_finalize: it is in no pool and no wait list; the primary's
 * scheduler resumes it once it finds no work (goabt_sched_loop). */
static void finalize_parked(goabt_unit *u, void *arg)
{
    (void)u;
    (void)arg;
    GOABT_ASSERT(u == goabt_rt.main_unit && u->next == NULL && u->prev == NULL);
}

void goabt_engine_finalize(void)
{
    goabt_stream *p = goabt_rt.primary;
    GOABT_ASSERT_MSG(goabt_self_stream() == p && p->current == goabt_rt.main_unit,
                     "the main ULT finalizes, on the primary");
    goabt_trace_finalize_begin();
    /* Run what is left in the primary's pools (and wait for its parked ULTs): the main ULT
     * steps aside, out of every pool, until the scheduler finds no work. A user scheduler's
     * run that ran the main ULT is waiting for it on its own stack (sched_user.c): it goes on,
     * finds it has to stop and returns, as in Argobots, before its scheduler is freed. */
    if (goabt_sched_has_work(p->sched) || p->run_ctx != NULL) {
        __atomic_or_fetch(&p->request, GOABT_REQ_FINISH, __ATOMIC_SEQ_CST);
        goabt_unit_switch_out(p, goabt_rt.main_unit, finalize_parked, NULL);
        /* Resumed by the loop once it found no work, which took the request back. */
        GOABT_ASSERT(!(__atomic_load_n(&p->request, __ATOMIC_ACQUIRE) & GOABT_REQ_FINISH));
        GOABT_ASSERT(p->current == goabt_rt.main_unit && p->run_ctx == NULL);
    }
    /* Argobots leaves streams the program did not free undefined; goabt joins and frees them,
     * once the calls of other threads that create or free streams are over (stream.c). */
    goabt_stream_calls_close();
    goabt_stream *s;
    while ((s = goabt_stream_any_secondary()) != NULL) {
        goabt_stream_join(s);
        goabt_rank_release(s->rank);
        goabt_stream_delete(s);
    }
    GOABT_ASSERT_MSG(__atomic_load_n(&goabt_rt.num_streams, __ATOMIC_RELAXED) == 1,
                     "%d streams left after every secondary was freed", goabt_rt.num_streams);
    goabt_hang_stop(); /* before the unit descriptors it walks go back to the Go core */
    goabt_trace_finalize_end(); /* every stream's records are in: the file is written */
    goabt_stackcheck_finalize(); /* no ULT runs any more */
    goabt_unit *m = goabt_rt.main_unit;
    goabt_keys_destroy(m); /* the main ULT's values, as Argobots does at finalize */
    /* The primary's scheduler as a ULT: its values too, while its scheduler and pools live. */
    if (p->sched_self != NULL) goabt_keys_destroy(p->sched_self);
    goabt_keys_release_spare(m);
    /* From here the main thread is no stream's: the calls into Go below (ranks, caches) must not
     * read the main ULT or the primary stream through the gate once they are freed. */
    goabt_set_self_stream(NULL);
    p->current = NULL;
    m->magic = GOABT_MAGIC_FREED;
    goabt_unit_put(m);
    /* The primary's scheduler and its pools go, automatic or not, as in Argobots. */
    goabt_sched *sc = p->sched;
    for (int i = 0; i < sc->num_pools; i++) sc->pools[i]->automatic = 1;
    sc->automatic = 1;
    goabt_rank_release(p->rank);
    goabt_stream_bind_stop(p);
    int rebind = goabt_rt.affinity || p->bind_explicit;
    goabt_stream_delete(p);
    goabt_pools_free_retired();
    goabt_units_cache_drain();
    goabt_rt.primary = NULL;
    goabt_rt.main_unit = NULL;
    next_unit_generation(); /* handles used after ABT_finalize are refused too */
    /* The program's main thread gets back the CPUs it had before ABT_init, if goabt bound it. */
    if (rebind) pthread_setaffinity_np(pthread_self(), sizeof goabt_rt.main_cpus, &goabt_rt.main_cpus);
    goabt_affinity_finalize();
    goabt_leaks_report(); /* GOABT_CHECK_LEAKS: what the program did not free */
    goabt_go.runtime_finalize();
    /* Last: the stack check and the hang report have taken their handlers off. */
    goabt_signals_give_back();
}
