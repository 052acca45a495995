package main

/*
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "goconfig.h"
void goabt_set_thread_stack_lookup(uintptr_t lookup); // stackbound.go

// A stream's scheduler, called from Go (goabt_go_stream_host).
static inline void goabt_run_stream_body(uintptr_t body, uintptr_t arg)
{
	((void (*)(void *))body)((void *)arg);
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"github.com/goabt/goabt/core"
)

// rt is the Go side of the runtime the C engine (engine/runtime.c and the files beside it) runs.
var rt core.Runtime

// The Go core's view of struct goabt_go_config is core.EngineConfig. Each line indexes a
// one-element array with C's figure minus Go's: it compiles only when they are equal (a larger
// C figure is an index out of range, a smaller one a constant overflow).
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{})-unsafe.Sizeof(core.EngineConfig{})]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.thread_stacksize)-unsafe.Offsetof(core.EngineConfig{}.ThreadStackSize)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.thread_stacksize)-unsafe.Sizeof(core.EngineConfig{}.ThreadStackSize)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.safety_ns)-unsafe.Offsetof(core.EngineConfig{}.SafetyNs)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.safety_ns)-unsafe.Sizeof(core.EngineConfig{}.SafetyNs)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.max_xstreams)-unsafe.Offsetof(core.EngineConfig{}.MaxXstreams)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.max_xstreams)-unsafe.Sizeof(core.EngineConfig{}.MaxXstreams)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.affinity)-unsafe.Offsetof(core.EngineConfig{}.Affinity)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.affinity)-unsafe.Sizeof(core.EngineConfig{}.Affinity)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.go_pool)-unsafe.Offsetof(core.EngineConfig{}.GoPool)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.go_pool)-unsafe.Sizeof(core.EngineConfig{}.GoPool)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.go_sched)-unsafe.Offsetof(core.EngineConfig{}.GoSched)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.go_sched)-unsafe.Sizeof(core.EngineConfig{}.GoSched)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.stack_check)-unsafe.Offsetof(core.EngineConfig{}.StackCheck)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.stack_check)-unsafe.Sizeof(core.EngineConfig{}.StackCheck)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.tool)-unsafe.Offsetof(core.EngineConfig{}.Tool)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.tool)-unsafe.Sizeof(core.EngineConfig{}.Tool)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.dump_signal)-unsafe.Offsetof(core.EngineConfig{}.DumpSignal)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.dump_signal)-unsafe.Sizeof(core.EngineConfig{}.DumpSignal)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_go_config{}.watchdog_ns)-unsafe.Offsetof(core.EngineConfig{}.WatchdogNs)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_go_config{}.watchdog_ns)-unsafe.Sizeof(core.EngineConfig{}.WatchdogNs)]
)

// goabt_go_runtime_init reads the configuration at every outermost ABT_init and writes what
// the engine reads of it to config (core.Config.Engine). It returns 0, 1 if unit memory cannot
// be set up, or 2 if a Go pool or scheduler the environment names is not registered (said on
// stderr); config is written only on 0. Variables with values it cannot use are said on
// stderr, one line each, once per process (core.Config.Warnings).
//
//export goabt_go_runtime_init
func goabt_go_runtime_init(unitSize C.size_t, config *C.struct_goabt_go_config) C.int {
	rt.Units.SetBulk(true) // what a program multiplies gives way first (core/addrspace.go)
	if rt.Units.SetSize(uintptr(unitSize)) != nil {
		return 1
	}
	c := rt.Init(cGetenv)
	for _, w := range rt.NewWarnings() {
		fmt.Fprintf(os.Stderr, "goabt: %s\n", w)
	}
	if c.Pool != "" {
		if _, err := core.LookupPool(c.Pool); err != nil {
			fmt.Fprintf(os.Stderr, "goabt: GOABT_POOL=%s: %v\n", c.Pool, err)
			return 2
		}
	}
	if c.Sched != "" {
		if _, err := core.LookupPolicy(c.Sched); err != nil {
			fmt.Fprintf(os.Stderr, "goabt: GOABT_SCHED=%s: %v\n", c.Sched, err)
			return 2
		}
	}
	*(*core.EngineConfig)(unsafe.Pointer(config)) = c.Engine()
	return 0
}

// cpuSetWords is how many 64-bit words goabt_go_affinity_sets writes per CPU set: CPU_SETSIZE
// (1024) bits.
const cpuSetWords = 16

// goabt_go_affinity_sets gives the CPU sets ranks bind to (core.AffinitySets), for the
// configuration the last goabt_go_runtime_init read: allowed holds the n CPUs the process may
// use, in increasing order. It returns how many sets there are (rank r binds to set r mod that
// number; 0: streams are not bound) and writes the first maxSets of them to out, each as
// cpuSetWords words, CPU c being bit c%64 of word c/64.
//
//export goabt_go_affinity_sets
func goabt_go_affinity_sets(allowed *C.int, n C.int, out *C.uint64_t, maxSets C.int) C.int {
	if !rt.Config.Affinity || n <= 0 {
		return 0
	}
	cpus := make([]int, int(n))
	for i, c := range unsafe.Slice((*C.int)(unsafe.Pointer(allowed)), int(n)) {
		cpus[i] = int(c)
	}
	sets, err := core.AffinitySets(rt.Config.AffinityList, cpus)
	if err != nil {
		return 0
	}
	if maxSets > 0 {
		words := unsafe.Slice((*uint64)(unsafe.Pointer(out)), int(maxSets)*cpuSetWords)
		clear(words)
		for i, set := range sets[:min(len(sets), int(maxSets))] {
			for _, cpu := range set {
				if cpu >= 0 && cpu < cpuSetWords*64 {
					words[i*cpuSetWords+cpu/64] |= 1 << (cpu % 64)
				}
			}
		}
	}
	return C.int(len(sets))
}

// goabt_go_runtime_finalize forgets the runtime after the last ABT_finalize; with
// GOABT_CHECK_LEAKS set it first says what the C engine did not give back, if anything (the
// engine lists the program's objects before, capi/engine/leaks.c).
//
//export goabt_go_runtime_finalize
func goabt_go_runtime_finalize() {
	if rt.Config.CheckLeaks {
		units, tables, chunks := rt.Outstanding()
		if units+tables+chunks > 0 {
			fmt.Fprintf(os.Stderr, "goabt: at finalize, not given back: %d unit descriptors, "+
				"%d key tables, %d key chunks\n", units, tables, chunks)
		}
	}
	rt.Finalize()
}

// goabt_go_leak_check reads GOABT_CHECK_LEAKS now (core.LeakCheckFromEnv): 0 off, 1 report,
// 2 report and exit with core.LeakExitStatus. The OPAL object system asks when it first loads
// the Go core, ABT_init at every outermost init; a bad value is said on stderr once per
// process, by whichever reads it first (a program may use OPAL and never call ABT_init).
//
//export goabt_go_leak_check
func goabt_go_leak_check() C.int {
	mode, warning := core.LeakCheckFromEnv(cGetenv)
	if warning != "" && rt.FirstTime(warning) {
		fmt.Fprintf(os.Stderr, "goabt: %s\n", warning)
	}
	return C.int(mode)
}

// goabt_go_opal_race_abort reads GOABT_OPAL_RACE_ABORT now (core.OpalRaceAbortFromEnv): 1 if
// the OPAL race check aborts after its report. golib.c asks when it loads the Go core; a bad
// value is said on stderr once per process.
//
//export goabt_go_opal_race_abort
func goabt_go_opal_race_abort() C.int {
	abort, warning := core.OpalRaceAbortFromEnv(cGetenv)
	if warning != "" && rt.FirstTime(warning) {
		fmt.Fprintf(os.Stderr, "goabt: %s\n", warning)
	}
	if abort {
		return 1
	}
	return 0
}

// goabt_go_leak_exit_status is the exit status of a process in which GOABT_CHECK_LEAKS=fatal
// found leaks (core.LeakExitStatus).
//
//export goabt_go_leak_exit_status
func goabt_go_leak_exit_status() C.int { return core.LeakExitStatus }

// goabt_go_rank_take takes a stream rank (rank < 0: the lowest free one); -1 if taken.
//
//export goabt_go_rank_take
func goabt_go_rank_take(rank C.int) C.int { return C.int(rt.TakeRank(int(rank))) }

// goabt_go_rank_release gives a stream's rank back.
//
//export goabt_go_rank_release
func goabt_go_rank_release(rank C.int) { rt.Ranks.Release(int(rank)) }

// goabt_go_rank_move moves a stream to another rank; 0 if that rank is taken.
//
//export goabt_go_rank_move
func goabt_go_rank_move(from, to C.int) C.int {
	if rt.Ranks.Move(int(from), int(to)) {
		return 1
	}
	return 0
}

// cGetenv reads the process environment as C sees it now, setenv calls included.
func cGetenv(name string) string {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if v := C.getenv(cname); v != nil {
		return C.GoString(v)
	}
	return ""
}

// C memory crosses into and out of Go as uintptr_t, never as a pointer type (core.Addr says
// why): Go then never stores a pointer into C memory, not even a result slot.

// goabt_go_stack_get maps a ULT stack of at least size usable bytes above a guard page (the
// slow path of the engine's descriptor caches): its base, and its size in *mapped; 0 when none
// could be made.
//
//export goabt_go_stack_get
func goabt_go_stack_get(size C.size_t, mapped *C.size_t) C.uintptr_t {
	st, err := rt.Stacks.Get(uintptr(size))
	if err != nil {
		return 0
	}
	*mapped = C.size_t(st.Size)
	return C.uintptr_t(st.Base)
}

// goabt_go_stack_put takes a stack back from the engine.
//
//export goabt_go_stack_put
func goabt_go_stack_put(base C.uintptr_t, mapped C.size_t) {
	_ = rt.Stacks.Put(core.StackMapping{Base: core.Addr(base), Size: uintptr(mapped)})
}

// goabt_go_unit_get hands out a zeroed unit descriptor (the slow path of the engine's
// descriptor caches); 0 when memory runs out.
//
//export goabt_go_unit_get
func goabt_go_unit_get() C.uintptr_t {
	p, err := rt.Units.Get()
	if err != nil {
		return 0
	}
	return C.uintptr_t(p)
}

// goabt_go_units_get fills out[0:n] with zeroed unit descriptors adjacent in memory (a stream's
// cache refill: see core.Blocks.GetRun); it returns how many, 0 when memory runs out.
//
//export goabt_go_units_get
func goabt_go_units_get(out *C.uintptr_t, n C.int) C.int {
	run, err := rt.Units.GetRun(unsafe.Slice((*core.Addr)(unsafe.Pointer(out)), int(n)))
	if err != nil {
		return 0
	}
	return C.int(run)
}

// goabt_go_unit_put takes a unit descriptor back.
//
//export goabt_go_unit_put
func goabt_go_unit_put(p C.uintptr_t) { rt.Units.Put(core.Addr(p)) }

// goabt_go_objects_get fills out[0:n] with zeroed blocks of at least size bytes for
// synchronization objects (the slow path of object.c's cache); how many, 0 when none.
//
//export goabt_go_objects_get
func goabt_go_objects_get(size C.size_t, out *C.uintptr_t, n C.int) C.int {
	return C.int(rt.Objects.Get(uintptr(size), unsafe.Slice((*core.Addr)(unsafe.Pointer(out)), int(n))))
}

// faultTarget is nil: goabt_go_selftest_fault writes through it.
var faultTarget *int

// goabt_go_selftest_fault dereferences a nil pointer in Go and recovers from the panic Go makes
// of the fault; 1 if it did. The C engine installs its SIGSEGV handler over the Go runtime's
// (capi/stackcheck.c) and must pass Go's own faults on to it: ctests/c/stack_overflow.c calls
// this (through dlsym) from the primary thread, a ULT on a stream and an external thread.
//
//export goabt_go_selftest_fault
func goabt_go_selftest_fault() (recovered C.int) {
	defer func() {
		if recover() != nil {
			recovered = 1
		}
	}()
	*faultTarget = 1
	return 0
}

// goabt_go_thread_stacks hands over the C engine's goabt_stream_thread_stack, where the Go
// runtime's question for a stream thread's stack bounds is answered (stackbound.go); golib.c
// calls it right after loading the Go core.
//
//export goabt_go_thread_stacks
func goabt_go_thread_stacks(lookup C.uintptr_t) {
	C.goabt_set_thread_stack_lookup(lookup)
}

// goabt_go_reschedule passes once through the Go scheduler (runtime.Gosched) on the calling
// thread, a stream's. A stream's thread keeps a P while in C (inside its host call, or between
// the primary's callbacks), and its calls into Go run on that P without passing through the
// scheduler. After 10 ms without a pass the runtime's monitor (sysmon) takes the P back as from
// a long system call; the next P the thread picks up has not been through the scheduler either
// and is taken back at the monitor's next look, so the monitor keeps looking every 20 µs. On a
// machine whose CPUs the streams fill, its wake-ups cost a Go scheduler's 2-stream row a
// quarter of its time (docs/performance.md, "the Go runtime's monitor"). A pass every 5 ms
// (engine/base.c, goabt_gate) keeps the P the stream's; it costs ~40 µs, the P handed to
// another thread and back.
//
//export goabt_go_reschedule
func goabt_go_reschedule() {
	runtime.Gosched()
}

// goabt_go_stream_host runs a secondary stream's scheduler loop, body(arg), as a call from Go
// into C (engine/stream.c). The stream's thread is then in Go's view a thread inside a cgo
// call, and every call it makes into Go meanwhile (a Go pool's pop, a policy's pick, a key
// table) is a callback nested in that one: the Go runtime skips, for those, the receive on the
// closed channel main_init_done that it makes on every call from a thread running no Go, and
// that takes a lock which the streams crossing at once contend on (golang/go#77522). Measured
// in a standalone program on the 2-core VM: a call from C into an empty Go function took 54 ns
// from a thread running no Go and 38 ns nested; from two such threads at once 160 ns each, and
// 39 ns nested.
//
//export goabt_go_stream_host
func goabt_go_stream_host(body, arg C.uintptr_t) {
	C.goabt_run_stream_body(body, arg)
}
