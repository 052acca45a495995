package main

/*
#include <stdlib.h>
#include "abt.h"
#include "info_facts.h"
*/
import "C"

import (
	"strings"
	"time"
	"unsafe"

	"github.com/goabt/goabt/core"
)

// The numbers C hands over in the facts (info_facts.h) are core's. Each line indexes a
// one-element array with C's figure minus core's: it compiles only when they are equal.
var (
	_ = [1]struct{}{}[C.ABT_THREAD_STATE_READY-core.UnitReady]
	_ = [1]struct{}{}[C.ABT_THREAD_STATE_RUNNING-core.UnitRunning]
	_ = [1]struct{}{}[C.ABT_THREAD_STATE_BLOCKED-core.UnitBlocked]
	_ = [1]struct{}{}[C.ABT_THREAD_STATE_TERMINATED-core.UnitTerminated]
	_ = [1]struct{}{}[C.ABT_POOL_ACCESS_PRIV-core.PoolAccessPriv]
	_ = [1]struct{}{}[C.ABT_POOL_ACCESS_SPSC-core.PoolAccessSPSC]
	_ = [1]struct{}{}[C.ABT_POOL_ACCESS_MPSC-core.PoolAccessMPSC]
	_ = [1]struct{}{}[C.ABT_POOL_ACCESS_SPMC-core.PoolAccessSPMC]
	_ = [1]struct{}{}[C.ABT_POOL_ACCESS_MPMC-core.PoolAccessMPMC]
	_ = [1]struct{}{}[C.GOABT_INFO_POOL_UNKNOWN-core.PoolKindUnknown]
	_ = [1]struct{}{}[C.GOABT_INFO_POOL_FIFO-core.PoolKindFIFO]
	_ = [1]struct{}{}[C.GOABT_INFO_POOL_FIFO_WAIT-core.PoolKindFIFOWait]
	_ = [1]struct{}{}[C.GOABT_INFO_POOL_RANDWS-core.PoolKindRandWS]
	_ = [1]struct{}{}[C.GOABT_INFO_POOL_USER-core.PoolKindUser]
	_ = [1]struct{}{}[C.GOABT_INFO_POOL_GO-core.PoolKindGo]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_UNKNOWN-core.SchedKindUnknown]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_DEFAULT-core.SchedKindDefault]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_BASIC-core.SchedKindBasic]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_PRIO-core.SchedKindPrio]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_RANDWS-core.SchedKindRandWS]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_BASIC_WAIT-core.SchedKindBasicWait]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_USER-core.SchedKindUser]
	_ = [1]struct{}{}[C.GOABT_INFO_SCHED_GO-core.SchedKindGo]
	// One name per query kind.
	_ = [1]struct{}{}[C.ABT_INFO_QUERY_KIND_ENABLED_LAZY_STACK_ALLOC+1-len(core.ConfigQueries)]
	_ = [1]struct{}{}[C.GOABT_INFO_STACK_MAX-core.InfoStackMax]
)

// Flags goabt_go_config_info returns.
const (
	configPrintAtInit = 1 // ABT_PRINT_CONFIG: print the configuration at ABT_init
	configCheckLeaks  = 2 // GOABT_CHECK_LEAKS
	configLeaksFatal  = 4 // GOABT_CHECK_LEAKS=fatal
)

// goabt_go_config_info describes the configuration the last ABT_init read beyond what
// goabt_go_runtime_init hands over, for ABT_info_print_config and ABT_PRINT_CONFIG (api/info.c): the
// names of the Go pool and scheduling policy that replace the predefined ones ("" for none)
// go to pool and sched, NUL-terminated and cut to their lengths; it returns configPrintAtInit
// configCheckLeaks and configLeaksFatal bits.
//
//export goabt_go_config_info
func goabt_go_config_info(pool *C.char, poolLen C.size_t, sched *C.char, schedLen C.size_t) C.int {
	c := rt.Config
	copyCString(pool, poolLen, c.Pool)
	copyCString(sched, schedLen, c.Sched)
	flags := 0
	if c.PrintConfig {
		flags |= configPrintAtInit
	}
	if c.CheckLeaks {
		flags |= configCheckLeaks
	}
	if c.CheckLeaksFatal {
		flags |= configLeaksFatal
	}
	return C.int(flags)
}

// copyCString writes s into the C buffer dst of n bytes, cut to fit, NUL-terminated.
func copyCString(dst *C.char, n C.size_t, s string) {
	if dst == nil || n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(dst)), int(n))
	k := copy(b[:len(b)-1], s)
	b[k] = 0
}

// The ABT_info_print_* texts (core/info.go) from the facts engine/info.c gathers. Each
// returns the text in malloc'd memory, which C writes to the program's FILE* and frees.

func cText(s string) *C.char { return C.CString(s) }

// cSlice is n elements of C memory at p (none if p is NULL), read while the call lasts.
func cSlice[T any](p *T, n C.int) []T {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice(p, int(n))
}

func cInts(p *C.int, n C.int) []int {
	var out []int
	for _, v := range cSlice(p, n) {
		out = append(out, int(v))
	}
	if out == nil {
		out = []int{}
	}
	return out
}

// cpuList is the CPUs set in a cpu_set_t's bits.
func cpuList(bits *[16]C.uint64_t) []int {
	cpus := []int{}
	for i, w := range bits {
		for b := 0; b < 64; b++ {
			if uint64(w)&(1<<b) != 0 {
				cpus = append(cpus, 64*i+b)
			}
		}
	}
	return cpus
}

func infoPool(p *C.struct_goabt_info_pool) core.InfoPool {
	return core.InfoPool{Addr: core.Addr(p.addr), ID: int(p.id), Kind: core.PoolKind(p.kind),
		Access: core.PoolAccess(p.access), Automatic: p.automatic != 0, HasSize: p.has_size != 0,
		Size: uint64(p.size), Blocked: int64(p.blocked), Scheds: int(p.num_scheds),
		Data: core.Addr(p.data)}
}

func infoUnit(u *C.struct_goabt_info_unit) core.InfoUnit {
	out := core.InfoUnit{Valid: u.valid != 0, Addr: core.Addr(u.addr), ID: uint64(u.id),
		Tasklet: u.tasklet != 0, Main: u.main != 0, State: core.UnitState(u.state),
		LastStream: int(u.last_stream), Pool: core.Addr(u.pool), PoolID: int(u.pool_id),
		Func: core.Addr(u._func), Arg: core.Addr(u.arg), Stack: core.Addr(u.stack),
		StackSize: uint64(u.stacksize), UserStack: u.user_stack != 0, Mapped: u.mapped != 0,
		Migratable: u.migratable != 0, Named: u.named != 0, SP: core.Addr(u.sp),
		Used: uint64(u.used)}
	for _, w := range cSlice(u.words, C.int(u.num_words)) {
		out.Words = append(out.Words, uint64(w))
	}
	return out
}

func infoPoolUnits(p *C.struct_goabt_info_pool_units) core.InfoPoolUnits {
	out := core.InfoPoolUnits{ID: int(p.id), Addr: core.Addr(p.addr), NoPrintAll: p.no_print_all != 0}
	units := cSlice(p.units, p.num_units)
	for i := range units {
		out.Units = append(out.Units, infoUnit(&units[i]))
	}
	return out
}

// goabt_go_info_config is ABT_info_print_config's text.
//
//export goabt_go_info_config
func goabt_go_info_config(c *C.struct_goabt_info_config) *C.char {
	out := core.InfoConfig{Version: C.GoString(c.version), GoPool: C.GoString(c.go_pool),
		GoSched: C.GoString(c.go_sched), NumStreams: int(c.num_streams), CPUs: int(c.cpus),
		SafetyNS: int64(c.safety_ns), CheckLeaks: core.LeakCheck(c.check_leaks),
		Affinity: c.affinity != 0}
	for k, q := range cSlice(c.queries, c.num_queries) {
		if k < len(out.Answers) {
			out.Answers[k].OK = q.ok != 0
			copy(out.Answers[k].Raw[:], unsafe.Slice((*byte)(unsafe.Pointer(&q.raw)), 8))
		}
	}
	sets := cSlice(c.affinity_sets, c.num_affinity_sets)
	for i := range sets {
		out.AffinitySets = append(out.AffinitySets, cpuList(&sets[i]))
	}
	return cText(core.InfoConfigText(out))
}

// goabt_go_info_streams is ABT_info_print_all_xstreams's text (total, the number of streams,
// first), or with total < 0 ABT_info_print_xstream's.
//
//export goabt_go_info_streams
func goabt_go_info_streams(s *C.struct_goabt_info_stream, n C.int, total C.int) *C.char {
	var streams []core.InfoStream
	for _, f := range cSlice(s, n) {
		st := core.InfoStream{Addr: core.Addr(f.addr), Rank: int(f.rank), Primary: f.primary != 0,
			Terminated: f.terminated != 0, Running: core.Addr(f.running), FinishReq: f.finish_req != 0,
			Sched: core.Addr(f.sched), SchedKind: core.SchedKind(f.sched_kind),
			PoolIDs: cInts(f.pool_ids, f.num_pools)}
		if f.has_cpus != 0 {
			st.CPUs = cpuList(&f.cpus)
		}
		streams = append(streams, st)
	}
	return cText(core.InfoStreamsText(int(total), streams))
}

// goabt_go_info_sched is ABT_info_print_sched's text, its pools below it.
//
//export goabt_go_info_sched
func goabt_go_info_sched(sc *C.struct_goabt_info_sched) *C.char {
	out := core.InfoSched{Addr: core.Addr(sc.addr), Kind: core.SchedKind(sc.kind),
		Used: core.SchedUse(sc.used), Automatic: sc.automatic != 0, FinishReq: sc.finish_req != 0,
		ExitReq: sc.exit_req != 0, Data: core.Addr(sc.data)}
	pools := cSlice(sc.pools, sc.num_pools)
	for i := range pools {
		out.Pools = append(out.Pools, infoPool(&pools[i]))
	}
	var b strings.Builder
	core.WriteSched(&b, out, "", true)
	return cText(b.String())
}

// goabt_go_info_pool is ABT_info_print_pool's text.
//
//export goabt_go_info_pool
func goabt_go_info_pool(p *C.struct_goabt_info_pool) *C.char {
	var b strings.Builder
	core.WritePool(&b, infoPool(p), "")
	return cText(b.String())
}

// goabt_go_info_unit is ABT_info_print_thread's (and _task's) text, or with stack
// ABT_info_print_thread_stack's.
//
//export goabt_go_info_unit
func goabt_go_info_unit(u *C.struct_goabt_info_unit, stack C.int) *C.char {
	if stack != 0 {
		return cText(core.InfoUnitStackText(infoUnit(u), codeLookup()))
	}
	return cText(core.InfoUnitText(infoUnit(u), codeLookup()))
}

// goabt_go_info_attr is ABT_info_print_thread_attr's text.
//
//export goabt_go_info_attr
func goabt_go_info_attr(a *C.struct_goabt_info_attr) *C.char {
	return cText(core.InfoAttrText(core.InfoAttr{Addr: core.Addr(a.addr), Stack: core.Addr(a.stack),
		StackSize: uint64(a.stacksize), Migratable: a.migratable != 0,
		Callback: core.Addr(a.callback), CallbackArg: core.Addr(a.callback_arg)}, codeLookup()))
}

// goabt_go_info_pool_stacks is ABT_info_print_thread_stacks_in_pool's text.
//
//export goabt_go_info_pool_stacks
func goabt_go_info_pool_stacks(p *C.struct_goabt_info_pool_units) *C.char {
	return cText(core.InfoPoolStacksText(infoPoolUnits(p), codeLookup()))
}

// goabt_go_info_dump is the text of the stack dump ABT_info_trigger_print_all_thread_stacks
// asks for.
//
//export goabt_go_info_dump
func goabt_go_info_dump(d *C.struct_goabt_info_dump) *C.char {
	out := core.InfoDump{TimedOut: d.timed_out != 0, Arrived: int(d.arrived), Running: int(d.running),
		Start: time.Unix(int64(d.start), 0), End: time.Unix(int64(d.end), 0)}
	for _, s := range cSlice(d.streams, d.num_streams) {
		out.Streams = append(out.Streams, core.InfoDumpStream{Rank: int(s.rank), Addr: core.Addr(s.addr),
			Sched: core.Addr(s.sched), PoolIDs: cInts(s.pool_ids, s.num_pools)})
	}
	pools := cSlice(d.pools, d.num_pools)
	for i := range pools {
		out.Pools = append(out.Pools, infoPoolUnits(&pools[i]))
	}
	return cText(core.InfoDumpText(out, codeLookup()))
}
