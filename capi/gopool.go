package main

/*
#include <stdint.h>
*/
import "C"

import (
	"unsafe"

	"github.com/goabt/goabt/core"
)

// Pools and schedulers written in Go (core.Pool, core.Policy) as the C engine reaches them
// (capi/engine/pool_go.c): an ABT_pool or ABT_sched made from one keeps the id of its Go object in
// goPools or goPolicies, and every call passes it. Work units cross as their handles'
// addresses.

var (
	goPools    core.Instances[core.Pool]
	goPolicies core.Instances[core.Policy]
)

// configured returns name as a Go string, or the name the environment gave (env) when name is
// NULL.
func configured(name *C.char, env string) string {
	if name == nil {
		return env
	}
	return C.GoString(name)
}

// goabt_go_pool_new makes a Go pool of the registered name (NULL: the one GOABT_POOL names)
// and returns its id; 0 if no pool is registered under that name.
//
//export goabt_go_pool_new
func goabt_go_pool_new(name *C.char) C.int {
	f, err := core.LookupPool(configured(name, rt.Config.Pool))
	if err != nil {
		return 0
	}
	return C.int(goPools.Add(f()))
}

// goabt_go_pool_push_pop pushes into pool id the n work units at units[0:n], in order, each for
// the stream of its rank in ranks[0:n] (-1: no stream), then pops up to max units for the
// stream of rank into out[0:max] and returns how many. More than one only from a core.Batcher
// (goabt_go_pool_caps: capBatch), whose PopBatch it calls when max > 1. The engine keeps a pool's
// pushes in C and hands them over this way, in one crossing, before the pool's next pop, and
// keeps the units of a batch in C too (capi/engine/pool_go.c).
//
//export goabt_go_pool_push_pop
func goabt_go_pool_push_pop(id C.int, units *C.uintptr_t, ranks *C.intptr_t, n C.int, rank C.int, out *C.uintptr_t, max C.int) C.int {
	p, ok := goPools.Get(int(id))
	if !ok {
		return 0
	}
	if n > 0 {
		push(p, unsafe.Slice(units, int(n)), unsafe.Slice(ranks, int(n)))
	}
	return pop(p, rank, out, max)
}

// goabt_go_pool_pop pops up to max work units from pool id for the stream of rank into
// out[0:max], as goabt_go_pool_push_pop does with no pushes, and returns how many.
//
//export goabt_go_pool_pop
func goabt_go_pool_pop(id C.int, rank C.int, out *C.uintptr_t, max C.int) C.int {
	if p, ok := goPools.Get(int(id)); ok {
		return pop(p, rank, out, max)
	}
	return 0
}

// The pushes' ranks cross as C intptr_t, read in place as []core.Caller: each line indexes a
// one-element array with C's figure minus Go's, so it compiles only when the layouts match
// (as runtime.go does for the configuration).
var (
	_ = [1]struct{}{}[unsafe.Sizeof(core.Caller{})-unsafe.Sizeof(C.intptr_t(0))]
	_ = [1]struct{}{}[unsafe.Sizeof(C.intptr_t(0))-unsafe.Sizeof(core.Caller{})]
	_ = [1]struct{}{}[unsafe.Offsetof(core.Caller{}.Rank)]
	_ = [1]struct{}{}[unsafe.Sizeof(core.Caller{}.Rank)-unsafe.Sizeof(C.intptr_t(0))]
)

// push pushes units[i] for the stream of ranks[i], in order: in one PushBatch when p is a
// core.PushBatcher, else one Push each. Both are read in place, in C memory, allocating
// nothing: a crossing made for one push and one pop allocated 1 KiB on Go's heap when they
// were copied into arrays, which escaped, and cost 500 ns more.
func push(p core.Pool, units []C.uintptr_t, ranks []C.intptr_t) {
	us := unsafe.Slice((*core.Addr)(unsafe.Pointer(&units[0])), len(units))
	cs := unsafe.Slice((*core.Caller)(unsafe.Pointer(&ranks[0])), len(ranks))
	if b, ok := p.(core.PushBatcher); ok {
		b.PushBatch(us, cs)
		return
	}
	for i, u := range us {
		p.Push(u, cs[i])
	}
}

// pop pops up to max units of p into out: from PopBatch when p is a core.Batcher and max > 1,
// else one from Pop. How many, at most max whatever PopBatch returns.
func pop(p core.Pool, rank C.int, out *C.uintptr_t, max C.int) C.int {
	if max <= 0 {
		return 0
	}
	c := core.Caller{Rank: int(rank)}
	if max > 1 {
		if b, ok := p.(core.Batcher); ok {
			got := b.PopBatch(c, unsafe.Slice((*core.Addr)(unsafe.Pointer(out)), int(max)))
			return C.int(min(got, int(max)))
		}
	}
	if u, ok := p.Pop(c); ok {
		*out = C.uintptr_t(u)
		return 1
	}
	return 0
}

// goabt_go_pool_remove takes unit out of pool id: 1 if it was there, 0 if not, -1 if the pool
// cannot remove units (it is no core.Remover).
//
//export goabt_go_pool_remove
func goabt_go_pool_remove(id C.int, unit C.uintptr_t) C.int {
	p, ok := goPools.Get(int(id))
	if !ok {
		return 0
	}
	r, ok := p.(core.Remover)
	if !ok {
		return -1
	}
	if r.Remove(core.Addr(unit)) {
		return 1
	}
	return 0
}

// What a Go pool can do beyond push and pop (goabt_go_pool_caps), as bits.
const (
	capRemove = 1 // a core.Remover: ABT_pool_remove, yield_to
	capList   = 2 // a core.Lister: ABT_pool_print_all
	capBatch  = 4 // a core.Batcher: pops several units per crossing
)

// goabt_go_pool_caps says what pool id can do beyond push and pop: capRemove | capList |
// capBatch bits.
//
//export goabt_go_pool_caps
func goabt_go_pool_caps(id C.int) C.int {
	p, _ := goPools.Get(int(id))
	caps := 0
	if _, ok := p.(core.Remover); ok {
		caps |= capRemove
	}
	if _, ok := p.(core.Lister); ok {
		caps |= capList
	}
	if _, ok := p.(core.Batcher); ok {
		caps |= capBatch
	}
	return C.int(caps)
}

// goabt_go_pool_units writes up to n of the units pool id holds into out[0:n] and returns how
// many it holds (more than n: call again with more room); -1 if it cannot list them.
//
//export goabt_go_pool_units
func goabt_go_pool_units(id C.int, out *C.uintptr_t, n C.int) C.int {
	p, _ := goPools.Get(int(id))
	l, ok := p.(core.Lister)
	if !ok {
		return -1
	}
	units := l.Units()
	if n > 0 {
		copy(unsafe.Slice((*core.Addr)(unsafe.Pointer(out)), int(n)), units)
	}
	return C.int(len(units))
}

// goabt_go_pool_free forgets pool id and returns how many units it still held (the engine
// frees only empty pools: anything else is a pool that lost count).
//
//export goabt_go_pool_free
func goabt_go_pool_free(id C.int) C.long {
	p, ok := goPools.Remove(int(id))
	if !ok {
		return 0
	}
	return C.long(p.Len())
}

// goabt_go_sched_new makes a scheduling policy of the registered name (NULL: the one
// GOABT_SCHED names) for numPools pools and returns its id; 0 if no policy is registered
// under that name.
//
//export goabt_go_sched_new
func goabt_go_sched_new(name *C.char, numPools C.int) C.int {
	f, err := core.LookupPolicy(configured(name, rt.Config.Sched))
	if err != nil || numPools < 0 {
		return 0
	}
	return C.int(goPolicies.Add(f(int(numPools))))
}

// goabt_go_sched_pick asks policy id which pool the stream of rank pops next, given the units
// each of its n pools holds (sizes[0:n]); the pool's index, or -1. A core.Leaser also says for
// how many more units and ns the pick stands, in lease[0] and lease[1] (0 and 0 otherwise).
//
//export goabt_go_sched_pick
func goabt_go_sched_pick(id C.int, sizes *C.int64_t, n C.int, rank C.int, lease *C.int64_t) C.int {
	l := unsafe.Slice((*int64)(unsafe.Pointer(lease)), 2)
	l[0], l[1] = 0, 0
	p, ok := goPolicies.Get(int(id))
	if !ok || n <= 0 {
		return -1
	}
	v := core.View{Sizes: unsafe.Slice((*int64)(unsafe.Pointer(sizes)), int(n)), Rank: int(rank)}
	if lp, ok := p.(core.Leaser); ok {
		pool, units, ns := lp.PickLease(v)
		l[0], l[1] = int64(units), ns
		return C.int(pool)
	}
	return C.int(p.Pick(v))
}

// goabt_go_sched_free forgets policy id.
//
//export goabt_go_sched_free
func goabt_go_sched_free(id C.int) { goPolicies.Remove(int(id)) }
