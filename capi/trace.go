package main

/*
#include "trace.h"
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/goabt/goabt/core"
)

// trace.h's record is core.TraceRecord, field for field (see key.go for the idiom), and its
// kinds are core's.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.goabt_trace_rec{})-unsafe.Sizeof(core.TraceRecord{})]
	_ = [1]struct{}{}[unsafe.Offsetof(C.goabt_trace_rec{}.unit)-unsafe.Offsetof(core.TraceRecord{}.Unit)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.goabt_trace_rec{}.actor)-unsafe.Offsetof(core.TraceRecord{}.Actor)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.goabt_trace_rec{}.arg)-unsafe.Offsetof(core.TraceRecord{}.Arg)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.goabt_trace_rec{}.track)-unsafe.Offsetof(core.TraceRecord{}.Track)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.goabt_trace_rec{}.kind)-unsafe.Offsetof(core.TraceRecord{}.Kind)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.goabt_trace_rec{}.depth)-unsafe.Offsetof(core.TraceRecord{}.Depth)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.goabt_trace_rec{}.aux)-unsafe.Offsetof(core.TraceRecord{}.Aux)]
	_ = [1]struct{}{}[C.GOABT_TRACE_CREATE-core.TraceCreate]
	_ = [1]struct{}{}[C.GOABT_TRACE_SWITCH-core.TraceSwitch]
	_ = [1]struct{}{}[C.GOABT_TRACE_FREE-core.TraceFree]
	_ = [1]struct{}{}[C.GOABT_TRACE_END-core.TraceEnd]
	_ = [1]struct{}{}[C.GOABT_TRACE_AUX_REVIVED-core.TraceAuxRevived]
	_ = [1]struct{}{}[C.GOABT_TRACE_AUX_TASKLET-core.TraceAuxTasklet]
	_ = [1]struct{}{}[C.GOABT_TRACE_EXTERNAL_TRACK-core.ExternalTrack]
)

// trace holds the records of the run being traced (GOABT_TRACE), from ABT_init to the last
// ABT_finalize; traceFile is the file they go to, created by that ABT_init.
var (
	trace     core.Trace
	traceFile *os.File
)

// goabt_go_trace_begin starts a trace if the configuration the last ABT_init read asks for one
// (core.Config.Trace): it creates the file, empty, so that a path that cannot be written is
// said now, while the program can still do something about it, in one line naming the path
// and the system's error; that run goes untraced, and ABT_init still succeeds (as with a
// yes/no variable's unknown word). 1 if the run is traced, else 0.
//
//export goabt_go_trace_begin
func goabt_go_trace_begin() C.int {
	trace.Take() // a run that never reached finalize left records: not this run's
	if traceFile != nil {
		traceFile.Close()
		traceFile = nil
	}
	path := rt.Config.Trace
	if path == "" {
		return 0
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "goabt: GOABT_TRACE=%s: %v; this run writes no trace\n", path, err)
		return 0
	}
	traceFile = f
	return 1
}

// goabt_go_trace_add copies n records at recs (a stream's full buffer, or one at finalize).
//
//export goabt_go_trace_add
func goabt_go_trace_add(recs C.uintptr_t, n C.int) {
	if n <= 0 {
		return
	}
	trace.Add(unsafe.Slice((*core.TraceRecord)(core.Addr(recs).Pointer()), int(n)))
}

// goabt_go_trace_write makes the timeline of the records and writes it to the file
// goabt_go_trace_begin created; a write that fails (a full disk) is said on stderr.
//
//export goabt_go_trace_write
func goabt_go_trace_write() {
	tl := core.BuildTimeline(trace.Take(), symbolName)
	f := traceFile
	traceFile = nil
	if f == nil {
		return
	}
	err := tl.WriteJSON(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goabt: GOABT_TRACE=%s: %v\n", f.Name(), err)
	}
}
