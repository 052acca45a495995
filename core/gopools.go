package core

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Pools and schedulers written in Go.
//
// A pool (Pool) holds ready work units; a scheduling policy (Policy) decides which of a
// scheduler's pools a stream pops next. Each is registered under a name (RegisterPool,
// RegisterPolicy), usually from an init function, and a C program reaches it without changes
// through the environment (GOABT_POOL, GOABT_SCHED: Config) or through goabt's own C entry
// points (include/goabt.h: goabt_pool_create_go, goabt_sched_create_go).
//
// What crosses from C is a work unit's handle, as an Addr: a Go pool stores and returns
// handles, never reads or writes the memory behind them. Each call from C into a Go pool or
// policy crosses the gate (capi/engine/runtime.h) and the Go runtime's entry from C, 80 to
// 240 ns, so the C engine asks Go only what C cannot answer: it counts a Go pool's units
// itself, so that the emptiness checks of idle streams never cross; it keeps a pool's pushes
// and hands them over together when the pool is next asked something (Pool); it keeps the units
// of a pool that pops several at once (Batcher) and serves pops from them; and it asks a policy
// only when some pool has work.

// Caller says who calls a pool: the rank of the calling execution stream, or -1 for a thread
// that is not one (an external thread). The engine hands PushBatch its pushes' callers in
// place, from C memory laid out as this one int (capi/gopool.go checks the layout).
type Caller struct {
	Rank int
}

// Pool is a pool of ready work units written in Go. Any number of streams call it at once:
// implementations must be safe for concurrent use.
//
// The engine pushes a unit when it becomes ready (created, yielded, woken) and pops when a
// stream looks for work. A unit is in at most one pool at a time, and pushed again only after
// it was popped (or removed). Pushes reach the pool in batches: the engine keeps up to 64 of a
// pool's pushes in C and makes the Push calls, in the order the pushes were made and each with
// the Caller that made it, in one crossing before the pool's next Pop, Remove, Units or Len
// (or when 64 wait), from whichever thread asks next. So every call sees every push made
// before it, as if each Push had taken until then.
type Pool interface {
	// Push adds a ready unit.
	Push(u Addr, c Caller)
	// Pop takes a unit out; false when the pool holds none. A pool that holds units must give
	// one: the engine, which counts pushes and pops, takes a false for "no unit now" and asks
	// again, so a pool that keeps units back keeps its streams spinning.
	Pop(c Caller) (Addr, bool)
	// Len returns how many units the pool holds. The engine asks it when the pool is freed,
	// which it refuses while units are queued (ABT_pool_free); its own emptiness checks use the
	// count it keeps in C.
	Len() int
}

// Remover is what a Pool implements to take out a unit it holds, wherever it is:
// ABT_pool_remove, and ABT_thread_yield_to, which takes its target out of its pool. Without it
// ABT_pool_remove on the pool returns ABT_ERR_POOL and a yield_to to one of its units does not
// switch.
type Remover interface {
	// Remove takes u out; false if the pool does not hold it.
	Remove(u Addr) bool
}

// Batcher is what a Pool implements to give out several units per pop, which saves the
// crossing into Go of each but the first. The engine asks it for up to 64 units when a stream
// pops the pool and the pool's C cache is empty, gives the first to that stream and keeps the
// others in the cache, in the order PopBatch wrote them, serving the pool's next pops from it (by
// any stream, through the scheduler or ABT_pool_pop) until it is empty; only then does it cross
// again, handing over the pushes made meanwhile as it does. A batch taken is out of the Go pool:
// its Len, Remove, Units and its other streams' steals no longer see those units, while the
// engine counts them in the pool's size, finds them for ABT_pool_remove and lists them first in
// ABT_pool_print_all. Without it each pop crosses once.
type Batcher interface {
	// PopBatch takes up to len(out) units out for c, writes them to out in the order they are
	// to run, and returns how many; 0 when the pool holds none (as Pop's false). out is valid
	// during the call only (it may be C memory).
	PopBatch(c Caller, out []Addr) int
}

// PushBatcher is what a Pool implements to take several pushes at once. The engine keeps a Go
// pool's pushes in C and hands them over in one crossing before the pool is next asked
// anything (its next pop, a removal, a listing) or when 64 wait: without it, one Push each, in
// order; with it, one PushBatch of them all, which may lock once for many.
type PushBatcher interface {
	// PushBatch pushes units[i] for callers[i], in order, as len(units) Push calls would.
	// Both slices are valid during the call only.
	PushBatch(units []Addr, callers []Caller)
}

// Lister is what a Pool implements to list the units it holds: ABT_pool_print_all and
// ABT_pool_print_all_threads. Without it they return ABT_ERR_POOL.
type Lister interface {
	// Units returns the units the pool holds now, in no particular order.
	Units() []Addr
}

// View is what a policy sees of its scheduler's pools when it picks one. It is valid during
// the call only: Sizes may live in C memory.
type View struct {
	// Sizes holds how many units each pool holds, in the scheduler's order (its priority
	// order for the predefined schedulers).
	Sizes []int64
	// Rank is the rank of the stream the scheduler runs on.
	Rank int
}

// Policy picks, for one scheduler, the pool its stream pops next. A scheduler runs on one
// stream at a time, so a policy is called by one thread at a time and needs no locks for its
// own state.
type Policy interface {
	// Pick returns the index of the pool to pop next, among those whose size is positive.
	// The engine asks only when some pool holds units, and never a scheduler of one pool
	// (there is nothing to choose); it pops in priority order instead if Pick returns an index
	// out of range or one whose pool turns out empty.
	Pick(v View) int
}

// Leaser is what a Policy implements to hand the engine its choices for a while, which saves
// the crossing into Go of each: after the pick, the engine pops for up to units more units and
// ns nanoseconds in the scheduler's order (the first pool holding units, as the predefined
// schedulers do) without asking, then asks again. It looks at the clock every 8 units, so a
// lease may run up to 7 units past its ns. A policy gives a lease when its rule comes
// down to that order for a while (nothing overdue soon, say). Without it, or with units <= 0,
// every unit is a Pick.
type Leaser interface {
	// PickLease returns what Pick returns, and the lease: units and ns, 0 for none.
	PickLease(v View) (pool, units int, ns int64)
}

// PoolFactory makes a new, empty pool.
type PoolFactory func() Pool

// PolicyFactory makes a policy for a scheduler of numPools pools.
type PolicyFactory func(numPools int) Policy

// ErrUnknownName is returned for a name nothing was registered under.
var ErrUnknownName = errors.New("unknown name")

var registry struct {
	mu       sync.Mutex
	pools    map[string]PoolFactory
	policies map[string]PolicyFactory
}

// RegisterPool makes f the factory of the pools called name. It panics if the name is empty
// or taken: registration happens in init functions, where a clash is a programming error.
func RegisterPool(name string, f PoolFactory) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.pools == nil {
		registry.pools = map[string]PoolFactory{}
	}
	mustBeNew(name, f != nil, registry.pools[name] != nil)
	registry.pools[name] = f
}

// RegisterPolicy makes f the factory of the scheduling policies called name. It panics as
// RegisterPool does.
func RegisterPolicy(name string, f PolicyFactory) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.policies == nil {
		registry.policies = map[string]PolicyFactory{}
	}
	mustBeNew(name, f != nil, registry.policies[name] != nil)
	registry.policies[name] = f
}

func mustBeNew(name string, haveFactory, taken bool) {
	switch {
	case name == "":
		panic("goabt: a Go pool or policy needs a name")
	case !haveFactory:
		panic(fmt.Sprintf("goabt: Go pool or policy %q registered without a factory", name))
	case taken:
		panic(fmt.Sprintf("goabt: Go pool or policy %q registered twice", name))
	}
}

// LookupPool returns the factory registered as name.
func LookupPool(name string) (PoolFactory, error) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if f := registry.pools[name]; f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w: no Go pool is registered as %q (registered: %s)", ErrUnknownName, name,
		strings.Join(sortedKeys(registry.pools), ", "))
}

// LookupPolicy returns the factory registered as name.
func LookupPolicy(name string) (PolicyFactory, error) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if f := registry.policies[name]; f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w: no Go scheduling policy is registered as %q (registered: %s)",
		ErrUnknownName, name, strings.Join(sortedKeys(registry.policies), ", "))
}

// PoolNames lists the names of the registered pools, sorted.
func PoolNames() []string {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return sortedKeys(registry.pools)
}

// PolicyNames lists the names of the registered scheduling policies, sorted.
func PolicyNames() []string {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return sortedKeys(registry.policies)
}

func sortedKeys[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Instances holds the live objects C refers to by a small integer id (a Go pool or policy
// behind an ABT_pool or ABT_sched): C memory never holds a Go pointer. Get, on every push, pop
// and pick, is two atomic loads and no lock; Add and Remove, at creation and free, lock.
type Instances[T any] struct {
	mu    sync.Mutex
	dir   atomic.Pointer[[]*instanceChunk[T]]
	free  []int // ids given back, reused first
	next  int   // the next id never used; ids start at 1
	count int
}

const instanceChunkSize = 256

type instanceChunk[T any] [instanceChunkSize]atomic.Pointer[T]

// Add stores v and returns its id, at least 1.
func (t *Instances[T]) Add(v T) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	var id int
	if n := len(t.free); n > 0 {
		id, t.free = t.free[n-1], t.free[:n-1]
	} else {
		t.next++
		id = t.next
	}
	var dir []*instanceChunk[T]
	if d := t.dir.Load(); d != nil {
		dir = *d
	}
	if c := id / instanceChunkSize; c >= len(dir) {
		grown := append(append([]*instanceChunk[T](nil), dir...), new(instanceChunk[T]))
		t.dir.Store(&grown)
		dir = grown
	}
	dir[id/instanceChunkSize][id%instanceChunkSize].Store(&v)
	t.count++
	return id
}

// Get returns the object of id; false if there is none.
func (t *Instances[T]) Get(id int) (T, bool) {
	var zero T
	d := t.dir.Load()
	if d == nil || id <= 0 || id/instanceChunkSize >= len(*d) {
		return zero, false
	}
	p := (*d)[id/instanceChunkSize][id%instanceChunkSize].Load()
	if p == nil {
		return zero, false
	}
	return *p, true
}

// Remove forgets id and returns its object; false if there was none.
func (t *Instances[T]) Remove(id int) (T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.Get(id)
	if !ok {
		return v, false
	}
	(*t.dir.Load())[id/instanceChunkSize][id%instanceChunkSize].Store(nil)
	t.free = append(t.free, id)
	t.count--
	return v, true
}

// Len returns how many objects are stored.
func (t *Instances[T]) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count
}
