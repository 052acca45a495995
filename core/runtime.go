package core

import (
	"runtime"
	"sync"
)

// Runtime is the Go side of one initialized Argobots runtime: its configuration and the
// registries the C engine asks about on slow paths. capi holds the only one.
type Runtime struct {
	mu     sync.Mutex
	Config Config
	Ranks  Ranks
	Stacks Stacks
	Units  Blocks // unit descriptors
	// Keys outlives ABT_finalize (a key may be created once and used across init cycles);
	// KeyTables goes with the unit descriptors that hold the tables.
	Keys      Keys
	KeyTables KeyTables
	// Objects is the memory of synchronization objects (mutexes, condition variables ...), by
	// size class. Never drained: a handle stays readable after its object is freed (and after
	// ABT_finalize), so a freed or stale handle is refused by its magic instead of read from
	// unmapped memory.
	Objects ObjectMemory
	// warned holds the configuration warnings already handed out (NewWarnings): each is said
	// once per process, not at every ABT_init.
	warned map[string]bool
}

// ObjectMemory hands out blocks for the C engine's synchronization objects in size classes.
type ObjectMemory struct {
	once    sync.Once
	classes [len(ObjectSizes)]Blocks
}

// ObjectSizes are the object size classes, in bytes: 64 holds the objects that also have a
// static form (ABT_mutex_memory and friends are 64 bytes), 128 and 256 the other
// synchronization objects, and every class holds the other handles' objects (pools,
// schedulers, streams, attributes, configurations: capi/object.c), which must never go back to
// malloc so that a freed handle stays readable. Blocks of 256 bytes and more are 128-aligned.
var ObjectSizes = [...]uintptr{64, 128, 256, 512, 1024, 2048, 4096}

// Get fills out with zeroed blocks of at least size bytes; how many (0: size too large or no
// memory).
func (m *ObjectMemory) Get(size uintptr, out []Addr) int {
	m.once.Do(func() {
		for i, s := range ObjectSizes {
			_ = m.classes[i].SetSize(s)
		}
	})
	for i, s := range ObjectSizes {
		if size <= s {
			n, err := m.classes[i].GetMany(out)
			if err != nil {
				return 0
			}
			return n
		}
	}
	return 0
}

// Init prepares the runtime for a first ABT_init: reads the environment through getenv and
// forgets every rank. (capi passes the C library's getenv: a C program may setenv before
// ABT_init, and Go's os.Getenv only sees the environment as it was when the library loaded.)
func (r *Runtime) Init(getenv func(string) string) Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Config = ConfigFromEnv(getenv, runtime.NumCPU())
	r.Stacks.SetStrict(r.Config.StackCheck == StackCheckStrict)
	r.Ranks.Reset()
	EnsureProcs(1)
	return r.Config
}

// NewWarnings returns the warnings of the configuration the last Init read that no earlier
// call returned: what a bad environment variable gets on stderr, once per process.
func (r *Runtime) NewWarnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var fresh []string
	for _, w := range r.Config.Warnings {
		if r.firstTimeLocked(w) {
			fresh = append(fresh, w)
		}
	}
	return fresh
}

// FirstTime says whether warning w is said for the first time in the process, and notes it
// said: for a variable read before ABT_init (GOABT_CHECK_LEAKS, by the OPAL object system),
// whose warning NewWarnings then does not hand out again.
func (r *Runtime) FirstTime(w string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstTimeLocked(w)
}

func (r *Runtime) firstTimeLocked(w string) bool {
	if r.warned == nil {
		r.warned = map[string]bool{}
	}
	if r.warned[w] {
		return false
	}
	r.warned[w] = true
	return true
}

// TakeRank takes a rank for a new stream (rank < 0: the lowest free one) and sizes GOMAXPROCS
// for the streams now running. -1 if the rank is taken.
func (r *Runtime) TakeRank(rank int) int {
	got := r.Ranks.Take(rank)
	if got >= 0 {
		EnsureProcs(r.Ranks.InUse())
	}
	return got
}

// Outstanding counts the unit descriptors, key tables and key chunks handed out to C and not
// given back: all zero at finalize once the program has freed every unit it made.
func (r *Runtime) Outstanding() (units, tables, chunks int) {
	units, _ = r.Units.Out()
	tables, chunks = r.KeyTables.Out()
	return units, tables, chunks
}

// Finalize forgets the runtime's state after the last ABT_finalize. Unit descriptors stay
// mapped, for the next init to reuse: a handle kept past ABT_finalize still reads a descriptor,
// whose magic (a new one at every init, capi/engine/handles.h) refuses it, instead of faulting.
func (r *Runtime) Finalize() {
	r.Ranks.Reset()
	r.Stacks.Drain()
	r.KeyTables.Drain()
}
