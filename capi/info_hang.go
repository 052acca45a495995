package main

/*
#include <stdint.h>
#include "abt.h"
#include "info_facts.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/goabt/goabt/core"
)

// What a unit waits on crosses as ABT_sync_event_type's values (core.HangWait): they must agree.
var (
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_UNKNOWN-core.HangWaitUnknown]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_USER-core.HangWaitUser]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_OTHER-core.HangWaitOther]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_XSTREAM_JOIN-core.HangWaitStreamJoin]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_THREAD_JOIN-core.HangWaitJoin]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_MUTEX-core.HangWaitMutex]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_COND-core.HangWaitCond]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_RWLOCK-core.HangWaitRWLock]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_EVENTUAL-core.HangWaitEventual]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_FUTURE-core.HangWaitFuture]
	_ = [1]struct{}{}[C.ABT_SYNC_EVENT_TYPE_BARRIER-core.HangWaitBarrier]
	_ = [1]struct{}{}[C.GOABT_INFO_WAIT_SUSPENDED-core.HangSuspended]
	_ = [1]struct{}{}[C.GOABT_INFO_WAIT_NONE-core.HangWaitNone]
)

// goabt_go_info_hang is the hang report's text (core.HangText).
//
//export goabt_go_info_hang
func goabt_go_info_hang(h *C.struct_goabt_info_hang) *C.char {
	r := core.HangReport{Watchdog: time.Duration(h.watchdog_ns), Quiet: time.Duration(h.quiet_ns),
		Signal: int(h.signal)}
	for _, s := range cSlice(h.streams, h.num_streams) {
		r.Streams = append(r.Streams, core.HangStream{Rank: int(s.rank), Primary: s.primary != 0,
			Running: uint64(s.running), HasUnit: s.has_unit != 0, Tasklet: s.tasklet != 0})
	}
	units := cSlice(h.units, h.num_units)
	for i := range units {
		u := &units[i]
		r.Units = append(r.Units, core.HangUnit{InfoUnit: infoUnit(&u.unit), Wait: core.HangWait(u.wait),
			Object: core.Addr(u.object), Deadline: u.timed != 0})
	}
	code := codeLookup()
	code.Dladdr = dladdrWithSymtab
	return cText(core.HangText(r, code))
}

// dladdrWithSymtab is dladdrInfo, with the function from the file's symbol table when dladdr
// names none: goabt's own internal functions (hidden from the dynamic symbols), a program's
// static ones. The hang report's stacks are mostly those.
func dladdrWithSymtab(addr core.Addr) core.DlInfo {
	d := dladdrInfo(addr)
	if !d.OK || d.Sym != "" {
		return d
	}
	file := d.File
	if file == "" {
		file = "/proc/self/exe"
	}
	symbols.mu.Lock()
	name, start := symbols.files.LookupStart(file, uint64(d.Base), uint64(addr))
	symbols.mu.Unlock()
	if name != "" {
		d.Sym, d.SymAddr = name, core.Addr(start)
	}
	return d
}

// goabt_go_unit_slabs writes the first max (address, length) pairs of the unit descriptors'
// slabs to out and returns how many slabs there are.
//
//export goabt_go_unit_slabs
func goabt_go_unit_slabs(out *C.uintptr_t, max C.int) C.int {
	slabs := rt.Units.Slabs()
	if max > 0 && out != nil {
		dst := unsafe.Slice(out, 2*int(max))
		for i, s := range slabs {
			if i >= int(max) {
				break
			}
			dst[2*i], dst[2*i+1] = C.uintptr_t(s[0]), C.uintptr_t(s[1])
		}
	}
	return C.int(len(slabs))
}
