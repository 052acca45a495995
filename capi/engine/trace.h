/* trace.h: the timeline trace (GOABT_TRACE=path): what the engine records, and where.
 *
 * The trace is a second listener of the tool interface's event sites (tool.c, GOABT_TOOL_EVENT):
 * while GOABT_TRACE is set, goabt_tool_mask also carries the trace's bits (every work-unit event
 * and GOABT_TRACE_EVENT_SWITCH, which no tool sees), and goabt_tool_fire records each event
 * before it calls a registered tool. With the variable unset nothing changes: the sites test the
 * same word as before, which is 0 when no tool listens.
 *
 * A record (goabt_trace_rec, core.TraceRecord's layout, checked by capi/trace.go) goes into the
 * recording stream's buffer (stream->trace: one writer, its thread, no lock), or, from an
 * external thread, into one shared buffer under a spinlock. A full buffer is handed to the Go
 * core through the gate (core.Trace.Add copies it) and reused; at the outermost ABT_finalize
 * every buffer is handed over and the Go core writes the file (core.BuildTimeline, WriteJSON;
 * function names from dladdr, else the ELF symbol table). Timestamps: CLOCK_MONOTONIC (vDSO,
 * one clock for every thread). Design of the timeline: core/trace.go. */
#ifndef GOABT_TRACE_H
#define GOABT_TRACE_H

#include <stdint.h>
#include "common.h"

/* What a record says (core.TraceKind, same values). */
enum {
    GOABT_TRACE_CREATE = 1,
    GOABT_TRACE_RUN,
    GOABT_TRACE_SWITCH,
    GOABT_TRACE_YIELD,
    GOABT_TRACE_BLOCK,
    GOABT_TRACE_WAKE,
    GOABT_TRACE_FINISH,
    GOABT_TRACE_CANCEL,
    GOABT_TRACE_JOIN,
    GOABT_TRACE_FREE,
    GOABT_TRACE_INIT,
    GOABT_TRACE_FINALIZE,
    GOABT_TRACE_END,
};
/* aux of a create (core.TraceAuxRevived, TraceAuxTasklet) */
enum { GOABT_TRACE_AUX_REVIVED = 1, GOABT_TRACE_AUX_TASKLET = 2 };
/* Tracks of external threads start here (core.ExternalTrack). */
#define GOABT_TRACE_EXTERNAL_TRACK (1 << 20)

typedef struct goabt_trace_rec {
    uint64_t ts;    /* CLOCK_MONOTONIC ns */
    uint64_t unit;  /* the unit's id + 1, 0: none */
    uint64_t actor; /* the unit running on the recording thread, id + 1; 0: none */
    uint64_t arg;   /* a function's address, or a synchronization object's */
    int32_t track;  /* the stream's rank, or GOABT_TRACE_EXTERNAL_TRACK + n */
    uint16_t kind;  /* GOABT_TRACE_* */
    uint16_t depth; /* the stream's child runs in progress */
    uint32_t aux;
    uint32_t pad;
} goabt_trace_rec;

#define GOABT_TRACE_BUF_RECS 4096

/* A stream's buffer (stream->trace), made at its first record. */
struct goabt_trace_buf {
    int n;
    goabt_trace_rec rec[GOABT_TRACE_BUF_RECS];
};

/* At ABT_init (after goabt_tool_reset): starts a trace if GOABT_TRACE is set and the Go core
 * could create its file (it says on stderr when it could not: the run goes on untraced). */
void goabt_trace_init(void) GOABT_HIDDEN;
/* At the outermost ABT_finalize, on the main ULT: records mark where the main ULT steps aside
 * (begin, before the primary runs what is left) and the end; end hands every buffer to the Go
 * core, which writes the file, and stops the trace. */
void goabt_trace_finalize_begin(void) GOABT_HIDDEN;
void goabt_trace_finalize_end(void) GOABT_HIDDEN;
/* s is being freed (its thread has ended): its records go to the Go core, its buffer goes. */
void goabt_trace_stream_delete(goabt_stream *s) GOABT_HIDDEN;
/* Records a tool event (goabt_tool_fire, when the trace listens). */
void goabt_trace_event(goabt_unit *u, uint64_t event, int sync_type, void *sync) GOABT_HIDDEN;

#endif /* GOABT_TRACE_H */
