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
}

// Init prepares the runtime for a first ABT_init: reads the environment through getenv and
// forgets every rank. (capi passes the C library's getenv: a C program may setenv before
// ABT_init, and Go's os.Getenv only sees the environment as it was when the library loaded.)
func (r *Runtime) Init(getenv func(string) string) Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Config = ConfigFromEnv(getenv, runtime.NumCPU())
	r.Ranks.Reset()
	EnsureProcs(1)
	return r.Config
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

// Finalize forgets the runtime's state after the last ABT_finalize.
func (r *Runtime) Finalize() {
	r.Ranks.Reset()
	r.Stacks.Drain()
	r.Units.Drain()
	r.KeyTables.Drain()
}
