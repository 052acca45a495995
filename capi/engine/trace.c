//go:build goabt_c_engine
/* trace.c: the timeline trace's recording side (GOABT_TRACE; the design is at the top of
 * trace.h, the timeline's in core/trace.go). Everything here runs only while a trace is on:
 * the event sites reach it through goabt_tool_fire, whose mask bit is 0 otherwise. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "gocalls.h"
#include "runtime.h"
#include "stream.h"
#include "tool.h"
#include "trace.h"
#include "unit.h"

static int trace_on; /* atomic: a trace is being recorded (between init and finalize) */

/* External threads share one buffer under a lock; each gets a track of its own. */
static int ext_lock;
static struct goabt_trace_buf *ext_buf;
static int ext_threads; /* atomic: how many external threads have a track */
static __thread int ext_track_plus1;
/* The rank of the stream this thread ran last, + 1: a stream's thread records its last events
 * (waking its joiners) after it stopped being the stream's; they go on the stream's track. */
static __thread int last_rank_plus1;

static uint64_t trace_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

struct trace_flush_call {
    struct goabt_trace_buf *buf;
};

static void trace_flush_gated(void *p)
{
    struct trace_flush_call *c = p;
    if (goabt_go_available()) goabt_go.trace_add((uintptr_t)c->buf->rec, c->buf->n);
}

/* Hands buf's records to the Go core (through the gate: any stack) and empties it. */
static void trace_flush(struct goabt_trace_buf *buf)
{
    if (buf == NULL || buf->n == 0) return;
    struct trace_flush_call c = {buf};
    goabt_gate(trace_flush_gated, &c);
    buf->n = 0;
}

static uint64_t unit_ref(goabt_unit *u) { return u != NULL ? goabt_unit_id(u) + 1 : 0; }

static void trace_record(int kind, goabt_unit *u, uint64_t arg, uint32_t aux)
{
    if (!__atomic_load_n(&trace_on, __ATOMIC_ACQUIRE)) return;
    goabt_stream *s = goabt_self_stream();
    goabt_trace_rec r;
    r.ts = trace_now();
    r.unit = unit_ref(u);
    r.actor = unit_ref(s != NULL ? s->current : NULL);
    r.arg = arg;
    r.kind = (uint16_t)kind;
    r.depth = s != NULL ? (uint16_t)s->nested : 0;
    r.aux = aux;
    r.pad = 0;
    if (s != NULL) {
        struct goabt_trace_buf *buf = s->trace;
        if (buf == NULL) {
            buf = malloc(sizeof *buf);
            if (buf == NULL) return; /* a record lost, not the run */
            buf->n = 0;
            s->trace = buf;
        }
        r.track = s->rank;
        last_rank_plus1 = s->rank + 1;
        buf->rec[buf->n++] = r;
        if (buf->n == GOABT_TRACE_BUF_RECS) trace_flush(buf);
        return;
    }
    if (last_rank_plus1 != 0) {
        r.track = last_rank_plus1 - 1;
    } else {
        if (ext_track_plus1 == 0) ext_track_plus1 = __atomic_add_fetch(&ext_threads, 1, __ATOMIC_RELAXED);
        r.track = GOABT_TRACE_EXTERNAL_TRACK + ext_track_plus1 - 1;
    }
    goabt_spin_lock(&ext_lock);
    if (ext_buf != NULL) {
        ext_buf->rec[ext_buf->n++] = r;
        /* Under the lock, on the caller's own stack (an external thread: no gate needed). */
        if (ext_buf->n == GOABT_TRACE_BUF_RECS) trace_flush(ext_buf);
    }
    goabt_spin_unlock(&ext_lock);
}

void goabt_trace_event(goabt_unit *u, uint64_t event, int sync_type, void *sync)
{
    switch (event) {
    case ABT_TOOL_EVENT_THREAD_CREATE:
        trace_record(GOABT_TRACE_CREATE, u, (uintptr_t)u->func,
                     u->kind == GOABT_TASKLET ? GOABT_TRACE_AUX_TASKLET : 0);
        break;
    case ABT_TOOL_EVENT_THREAD_REVIVE:
        trace_record(GOABT_TRACE_CREATE, u, (uintptr_t)u->func,
                     GOABT_TRACE_AUX_REVIVED |
                         (u->kind == GOABT_TASKLET ? GOABT_TRACE_AUX_TASKLET : 0));
        break;
    case ABT_TOOL_EVENT_THREAD_RUN:
        trace_record(GOABT_TRACE_RUN, u, (uintptr_t)u->func, 0);
        break;
    case GOABT_TRACE_EVENT_SWITCH:
        trace_record(GOABT_TRACE_SWITCH, u, (uintptr_t)u->func, 0);
        break;
    case ABT_TOOL_EVENT_THREAD_YIELD:
        trace_record(GOABT_TRACE_YIELD, u, 0, (uint32_t)sync_type);
        break;
    case ABT_TOOL_EVENT_THREAD_SUSPEND:
        trace_record(GOABT_TRACE_BLOCK, u, (uintptr_t)sync, (uint32_t)sync_type);
        break;
    case ABT_TOOL_EVENT_THREAD_RESUME:
        trace_record(GOABT_TRACE_WAKE, u, 0, (uint32_t)sync_type);
        break;
    case ABT_TOOL_EVENT_THREAD_FINISH:
        trace_record(GOABT_TRACE_FINISH, u, 0, 0);
        break;
    case ABT_TOOL_EVENT_THREAD_CANCEL:
        trace_record(GOABT_TRACE_CANCEL, u, 0, 0);
        break;
    case ABT_TOOL_EVENT_THREAD_JOIN:
        trace_record(GOABT_TRACE_JOIN, u, 0, 0);
        break;
    case ABT_TOOL_EVENT_THREAD_FREE:
        trace_record(GOABT_TRACE_FREE, u, 0, 0);
        break;
    default:
        break;
    }
}

struct trace_begin_call {
    int on;
};

static void trace_begin_gated(void *p)
{
    struct trace_begin_call *c = p;
    c->on = goabt_go_available() ? goabt_go.trace_begin() : 0;
}

void goabt_trace_init(void)
{
    struct trace_begin_call c = {0};
    goabt_gate(trace_begin_gated, &c);
    if (!c.on) return;
    goabt_spin_lock(&ext_lock);
    if (ext_buf == NULL) ext_buf = malloc(sizeof *ext_buf);
    if (ext_buf != NULL) ext_buf->n = 0;
    goabt_spin_unlock(&ext_lock);
    __atomic_store_n(&trace_on, 1, __ATOMIC_RELEASE);
    goabt_tool_set_trace(ABT_TOOL_EVENT_THREAD_ALL | GOABT_TRACE_EVENT_SWITCH);
    trace_record(GOABT_TRACE_INIT, NULL, 0, 0);
}

void goabt_trace_finalize_begin(void)
{
    trace_record(GOABT_TRACE_FINALIZE, NULL, 0, 0);
}

void goabt_trace_stream_delete(goabt_stream *s)
{
    struct goabt_trace_buf *buf = s->trace;
    if (buf == NULL) return;
    s->trace = NULL;
    if (__atomic_load_n(&trace_on, __ATOMIC_ACQUIRE)) trace_flush(buf);
    free(buf);
}

static void trace_write_gated(void *p)
{
    (void)p;
    if (goabt_go_available()) goabt_go.trace_write();
}

void goabt_trace_finalize_end(void)
{
    if (!__atomic_load_n(&trace_on, __ATOMIC_ACQUIRE)) return;
    trace_record(GOABT_TRACE_END, NULL, 0, 0);
    goabt_tool_set_trace(0);
    __atomic_store_n(&trace_on, 0, __ATOMIC_RELEASE);
    /* Every other stream is gone (and flushed); external threads may still record: under the
     * lock, which they take too. */
    goabt_stream *p = goabt_self_stream();
    if (p != NULL) {
        trace_flush(p->trace);
        free(p->trace);
        p->trace = NULL;
    }
    goabt_spin_lock(&ext_lock);
    trace_flush(ext_buf);
    goabt_spin_unlock(&ext_lock);
    goabt_gate(trace_write_gated, NULL);
}
