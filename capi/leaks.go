package main

/*
#include <stdlib.h>
#include "leaks.h"
*/
import "C"

import (
	"unsafe"

	"github.com/goabt/goabt/core"
)

// C's leak kinds (engine/leaks.h) are core's; each line compiles only when they are equal.
var (
	_ = [1]struct{}{}[C.GOABT_LEAK_UNIT-core.LeakUnit]
	_ = [1]struct{}{}[C.GOABT_LEAK_OBJECT-core.LeakObject]
	_ = [1]struct{}{}[C.GOABT_LEAK_SCHED-core.LeakSched]
	_ = [1]struct{}{}[C.GOABT_LEAK_MUTEX-core.LeakMutex]
	_ = [1]struct{}{}[C.GOABT_LEAK_TIMER-core.LeakTimer]
	_ = [1]struct{}{}[C.GOABT_LEAK_POOL_USER_DEF-core.LeakPoolUserDef]
	_ = [1]struct{}{}[C.GOABT_LEAK_KINDS-core.LeakKinds]
)

// leakRegistries are GOABT_CHECK_LEAKS's registries of live objects, by leaks.h's
// GOABT_LEAKS_ABT and GOABT_LEAKS_OPAL. The C engine calls here only while the check is on.
var leakRegistries [2]core.LiveObjects

func leakRegistry(r C.int) *core.LiveObjects {
	if r < 0 || int(r) >= len(leakRegistries) {
		return nil
	}
	return &leakRegistries[r]
}

// goabt_go_leak_apply records n notes and forgets of live objects, in order (leaks.c's
// queue).
//
//export goabt_go_leak_apply
func goabt_go_leak_apply(ops *C.struct_goabt_leak_op, n C.int) {
	for _, op := range cSlice(ops, n) {
		r := leakRegistry(op.registry)
		switch {
		case r == nil:
		case op.note == 0:
			r.Forget(core.Addr(op.obj))
		case op.registry == C.GOABT_LEAKS_OPAL:
			r.Note(core.LiveObject{Addr: core.Addr(op.obj), Class: core.Addr(op.cls),
				InPlace: op.kind != 0, File: core.Addr(op.file), Line: int(op.line)})
		default:
			r.Note(core.LiveObject{Addr: core.Addr(op.obj), Kind: core.LeakKind(op.kind)})
		}
	}
}

// goabt_go_leak_take empties a registry and hands its entries to C in creation order, in
// calloc'd memory C fills in and frees; NULL when there are none.
//
//export goabt_go_leak_take
func goabt_go_leak_take(registry C.int, n *C.size_t) *C.struct_goabt_leak_fact {
	*n = 0
	r := leakRegistry(registry)
	if r == nil {
		return nil
	}
	live := r.Take()
	if len(live) == 0 {
		return nil
	}
	p := (*C.struct_goabt_leak_fact)(C.calloc(C.size_t(len(live)), C.size_t(unsafe.Sizeof(C.struct_goabt_leak_fact{}))))
	if p == nil {
		return nil
	}
	facts := unsafe.Slice(p, len(live))
	for i, o := range live {
		f := &facts[i]
		f.obj, f.cls, f.file = C.uintptr_t(o.Addr), C.uintptr_t(o.Class), C.uintptr_t(o.File)
		f.seq, f.kind, f.line = C.uint64_t(o.Seq), C.int(o.Kind), C.int(o.Line)
		if o.InPlace {
			f.in_place = 1
		}
	}
	*n = C.size_t(len(live))
	return p
}

// goabt_go_leak_report is a registry's report from the facts C read at the last ABT_finalize
// or at opal_class_finalize, malloc'd; NULL when there is nothing to report.
//
//export goabt_go_leak_report
func goabt_go_leak_report(registry C.int, p *C.struct_goabt_leak_fact, n C.size_t) *C.char {
	if p == nil || n == 0 {
		return nil
	}
	facts := unsafe.Slice(p, int(n))
	text := ""
	switch registry {
	case C.GOABT_LEAKS_ABT:
		leaks := make([]core.Leak, 0, len(facts))
		for _, f := range facts {
			leaks = append(leaks, core.Leak{Addr: core.Addr(f.obj), Kind: core.LeakKind(f.kind),
				Seq: uint64(f.seq), ID: uint64(f.id), Func: core.Addr(f.fn),
				State: core.UnitState(f.state), PoolKind: core.PoolKind(f.pool_kind),
				SchedKind: core.SchedKind(f.sched_kind), NumPools: int(f.num_pools),
				Automatic: f.automatic != 0})
		}
		text = core.LeakReport(leaks, core.CodeLookup{Dladdr: dladdrInfo})
	case C.GOABT_LEAKS_OPAL:
		leaks := make([]core.OPALLeak, 0, len(facts))
		for _, f := range facts {
			l := core.OPALLeak{Addr: core.Addr(f.obj), Seq: uint64(f.seq), Class: core.Addr(f.cls),
				ClassName: "(unnamed)", InPlace: f.in_place != 0, Line: int(f.line)}
			if f.name != 0 {
				l.ClassName = C.GoString((*C.char)(core.Addr(f.name).Pointer()))
			}
			if f.file != 0 {
				l.File = C.GoString((*C.char)(core.Addr(f.file).Pointer()))
			}
			leaks = append(leaks, l)
		}
		text = core.OPALLeakReport(leaks)
	}
	if text == "" {
		return nil
	}
	return C.CString(text)
}
