package core

// GOABT_CHECK_LEAKS's registries and reports. With the check on, the C engine notes every
// object the API hands to the program and forgets it wherever it is freed
// (capi/engine/leaks.c), and the OPAL header does the same for objects (capi/api/opal.c); what
// is left at the last ABT_finalize, or at opal_class_finalize, is a leak. The registries live here; the facts a
// report line needs from an object (a unit's id, function and state, a pool's kind ...) are
// read by C when the report is made, which it may do: an object still registered was not
// freed. With the check off nothing reaches Go: C tests one flag.

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// LeakKind is the kind of an object the ABT report lists (GOABT_LEAK_* of capi/engine/leaks.h:
// capi checks). LeakUnit and LeakObject are what C notes when the kind is known only later: a named
// unit (ULT or tasklet) and a synchronization object's memory (its magic says which).
type LeakKind int

const (
	LeakUnit LeakKind = iota
	LeakULT
	LeakTasklet
	LeakKey
	LeakPool
	LeakSched
	LeakThreadAttr
	LeakObject
	LeakMutex
	LeakMutexAttr
	LeakCond
	LeakRWLock
	LeakBarrier
	LeakXstreamBarrier
	LeakEventual
	LeakFuture
	LeakTimer
	LeakSchedConfig
	LeakPoolConfig
	LeakPoolUserDef
	LeakKinds
)

// leakKinds says what each kind is called and how the program frees one.
var leakKinds = [LeakKinds]struct{ name, free string }{
	LeakULT:            {"ULT", "ABT_thread_free"},
	LeakTasklet:        {"tasklet", "ABT_task_free"},
	LeakKey:            {"key", "ABT_key_free"},
	LeakPool:           {"pool", "ABT_pool_free"},
	LeakSched:          {"scheduler", "ABT_sched_free"},
	LeakThreadAttr:     {"ULT attribute", "ABT_thread_attr_free"},
	LeakMutex:          {"mutex", "ABT_mutex_free"},
	LeakMutexAttr:      {"mutex attribute", "ABT_mutex_attr_free"},
	LeakCond:           {"condition variable", "ABT_cond_free"},
	LeakRWLock:         {"readers-writer lock", "ABT_rwlock_free"},
	LeakBarrier:        {"barrier", "ABT_barrier_free"},
	LeakXstreamBarrier: {"execution-stream barrier", "ABT_xstream_barrier_free"},
	LeakEventual:       {"eventual", "ABT_eventual_free"},
	LeakFuture:         {"future", "ABT_future_free"},
	LeakTimer:          {"timer", "ABT_timer_free"},
	LeakSchedConfig:    {"scheduler configuration", "ABT_sched_config_free"},
	LeakPoolConfig:     {"pool configuration", "ABT_pool_config_free"},
	LeakPoolUserDef:    {"pool definition", "ABT_pool_user_def_free"},
}

// LeakMaxLines is how many objects a report lists per kind (ABT) or class (OPAL); past that,
// it counts the rest.
const LeakMaxLines = 64

// LiveObject is one entry of a registry: what is known when the object is made.
type LiveObject struct {
	Addr Addr
	Kind LeakKind // ABT: LeakUnit, LeakObject or the kind itself; OPAL: unused
	Seq  uint64   // creation order
	// OPAL: the object's class, whether OBJ_CONSTRUCT made it in place, and where it was
	// constructed in debug builds (a C string's address, the program's __FILE__; 0 if none).
	Class   Addr
	InPlace bool
	File    Addr
	Line    int
}

// LiveObjects is a registry of live objects by address. Safe for concurrent use.
type LiveObjects struct {
	mu  sync.Mutex
	seq uint64
	m   map[Addr]LiveObject
}

// Note records o; an entry for the same address is replaced (memory reused without a free
// through the API).
func (r *LiveObjects) Note(o LiveObject) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[Addr]LiveObject{}
	}
	r.seq++
	o.Seq = r.seq
	r.m[o.Addr] = o
}

// Forget drops the entry for a, if there is one.
func (r *LiveObjects) Forget(a Addr) {
	r.mu.Lock()
	delete(r.m, a)
	r.mu.Unlock()
}

// Take empties r and returns its entries in creation order.
func (r *LiveObjects) Take() []LiveObject {
	r.mu.Lock()
	m := r.m
	r.m = nil
	r.mu.Unlock()
	out := make([]LiveObject, 0, len(m))
	for _, o := range m {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Leak is an ABT object left at the last ABT_finalize, with the facts C read from it.
type Leak struct {
	Addr Addr
	Kind LeakKind // never LeakUnit nor LeakObject: C resolved them
	Seq  uint64
	// ULT, tasklet: its id, function and state. Key: its id and destructor (Func, 0: none).
	ID    uint64
	Func  Addr
	State UnitState
	// Pool: its kind; scheduler: its kind and number of pools; both: whether automatic.
	PoolKind  PoolKind
	SchedKind SchedKind
	NumPools  int
	Automatic bool
}

func (s UnitState) leakName() string {
	switch s {
	case UnitReady:
		return "ready"
	case UnitRunning:
		return "running"
	case UnitBlocked:
		return "blocked"
	case UnitTerminated:
		return "terminated"
	}
	return "unknown"
}

func (k PoolKind) leakName() string {
	switch k {
	case PoolKindGo:
		return "a Go pool"
	case PoolKindUser:
		return "user-defined"
	case PoolKindFIFO:
		return "ABT_POOL_FIFO"
	case PoolKindFIFOWait:
		return "ABT_POOL_FIFO_WAIT"
	case PoolKindRandWS:
		return "ABT_POOL_RANDWS"
	}
	return "basic"
}

func (k SchedKind) leakName() string {
	switch k {
	case SchedKindGo:
		return "a Go scheduler"
	case SchedKindUser:
		return "user-defined"
	case SchedKindBasic:
		return "ABT_SCHED_BASIC"
	case SchedKindBasicWait:
		return "ABT_SCHED_BASIC_WAIT"
	case SchedKindPrio:
		return "ABT_SCHED_PRIO"
	case SchedKindRandWS:
		return "ABT_SCHED_RANDWS"
	}
	return "predefined"
}

// describeFunction is "name at 0x..." for a function, or, without a dynamic symbol for it (a
// static function, a program linked without -rdynamic), "0x... (file+0xoffset)", which
// addr2line reads.
func (c CodeLookup) describeFunction(fn Addr) string {
	if fn != 0 && c.Dladdr != nil {
		if d := c.Dladdr(fn); d.OK {
			if d.Sym != "" && d.SymAddr == fn {
				return fmt.Sprintf("%s at %s", d.Sym, cptr(fn))
			}
			if d.HasFile {
				return fmt.Sprintf("%s (%s+%#x)", cptr(fn), d.File, uint64(fn-d.Base))
			}
		}
	}
	return cptr(fn)
}

// describe is what a report line says between the kind's name and how to free it.
func (l Leak) describe(code CodeLookup) string {
	switch l.Kind {
	case LeakULT, LeakTasklet:
		return fmt.Sprintf("%d (function %s), %s", l.ID, code.describeFunction(l.Func), l.State.leakName())
	case LeakKey:
		if l.Func == 0 {
			return fmt.Sprintf("%d (no destructor)", l.ID)
		}
		return fmt.Sprintf("%d (destructor %s)", l.ID, code.describeFunction(l.Func))
	case LeakPool:
		auto := ""
		if l.Automatic {
			auto = ", automatic"
		}
		return fmt.Sprintf("%d (%s%s)", l.ID, l.PoolKind.leakName(), auto)
	case LeakSched:
		plural, auto := "s", ""
		if l.NumPools == 1 {
			plural = ""
		}
		if l.Automatic {
			auto = ", automatic"
		}
		return fmt.Sprintf("%s (%s, %d pool%s%s)", cptr(l.Addr), l.SchedKind.leakName(), l.NumPools, plural, auto)
	}
	return cptr(l.Addr)
}

// LeakReport is the report of the last ABT_finalize: one line per object, grouped by kind, in
// creation order; "" when there is nothing to report.
func LeakReport(leaks []Leak, code CodeLookup) string {
	var kept []Leak
	for _, l := range leaks {
		if l.Kind >= 0 && l.Kind < LeakKinds && leakKinds[l.Kind].name != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].Kind != kept[j].Kind {
			return kept[i].Kind < kept[j].Kind
		}
		return kept[i].Seq < kept[j].Seq
	})
	var b strings.Builder
	if len(kept) == 1 {
		b.WriteString("goabt: GOABT_CHECK_LEAKS: 1 object the program created was not freed at the last ABT_finalize:\n")
	} else {
		fmt.Fprintf(&b, "goabt: GOABT_CHECK_LEAKS: %d objects the program created were not freed at the last ABT_finalize:\n", len(kept))
	}
	for i := 0; i < len(kept); {
		k := leakKinds[kept[i].Kind]
		j, listed := i, 0
		for ; j < len(kept) && kept[j].Kind == kept[i].Kind; j++ {
			if listed == LeakMaxLines {
				continue
			}
			fmt.Fprintf(&b, "goabt: leaked %s %s; free it with %s\n", k.name, kept[j].describe(code), k.free)
			listed++
		}
		if j-i > listed {
			fmt.Fprintf(&b, "goabt: leaked %d more of kind %s (not listed)\n", j-i-listed, k.name)
		}
		i = j
	}
	return b.String()
}

// OPALLeak is an OPAL object alive at opal_class_finalize: its entry, its class's name (read
// by C, "(unnamed)" if the class has none) and where it was constructed (debug builds; "" if
// unknown).
type OPALLeak struct {
	Addr      Addr
	Seq       uint64
	Class     Addr
	ClassName string
	InPlace   bool
	File      string
	Line      int
}

// OPALLeakReport is the report of opal_class_finalize: one line per class, then one per object
// of it, in creation order; "" when no object is alive.
func OPALLeakReport(leaks []OPALLeak) string {
	if len(leaks) == 0 {
		return ""
	}
	all := append([]OPALLeak(nil), leaks...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Class != all[j].Class {
			return all[i].Class < all[j].Class
		}
		return all[i].Seq < all[j].Seq
	})
	var b strings.Builder
	if len(all) == 1 {
		b.WriteString("goabt: GOABT_CHECK_LEAKS: 1 OPAL object is still alive at opal_class_finalize:\n")
	} else {
		fmt.Fprintf(&b, "goabt: GOABT_CHECK_LEAKS: %d OPAL objects are still alive at opal_class_finalize:\n", len(all))
	}
	for i := 0; i < len(all); {
		name := all[i].ClassName
		j := i
		for j < len(all) && all[j].Class == all[i].Class {
			j++
		}
		plural := "s"
		if j-i == 1 {
			plural = ""
		}
		fmt.Fprintf(&b, "goabt: class %s: %d object%s alive\n", name, j-i, plural)
		for k := i; k < j && k-i < LeakMaxLines; k++ {
			how := "OBJ_NEW"
			if all[k].InPlace {
				how = "OBJ_CONSTRUCT"
			}
			if all[k].File != "" {
				fmt.Fprintf(&b, "goabt:   %s %s made by %s at %s:%d\n", name, cptr(all[k].Addr), how, all[k].File, all[k].Line)
			} else {
				fmt.Fprintf(&b, "goabt:   %s %s made by %s\n", name, cptr(all[k].Addr), how)
			}
		}
		if j-i > LeakMaxLines {
			fmt.Fprintf(&b, "goabt:   and %d more %s\n", j-i-LeakMaxLines, name)
		}
		i = j
	}
	return b.String()
}
