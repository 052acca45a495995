package core

import (
	"runtime"
	"sync"
)

// Ranks hands out execution-stream ranks: each running stream holds one, the primary holds 0.
type Ranks struct {
	mu   sync.Mutex
	used map[int]bool
}

// Take takes rank, or the lowest free rank when rank < 0. It returns the rank taken, or -1 when
// the rank asked for is taken already.
func (r *Ranks) Take(rank int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.used == nil {
		r.used = map[int]bool{}
	}
	if rank < 0 {
		rank = 0
		for r.used[rank] {
			rank++
		}
	}
	if r.used[rank] {
		return -1
	}
	r.used[rank] = true
	return rank
}

// Release gives a rank back.
func (r *Ranks) Release(rank int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.used, rank)
}

// Move moves a stream from rank from to rank to; false (and nothing changes) if to is taken.
func (r *Ranks) Move(from, to int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if from == to {
		return true
	}
	if r.used[to] {
		return false
	}
	delete(r.used, from)
	r.used[to] = true
	return true
}

// InUse returns how many ranks are taken.
func (r *Ranks) InUse() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.used)
}

// Reset frees every rank (at finalize).
func (r *Ranks) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.used = nil
}

// ProcsFor returns the GOMAXPROCS a process with streams execution streams wants: every stream
// may call Go at once, and so may the main thread and an external thread or two (docs/design.md
// rule 6: with fewer Ps a call can park for tens of milliseconds).
func ProcsFor(streams int) int { return streams + 2 }

// EnsureProcs raises GOMAXPROCS to ProcsFor(streams) if it is lower; it never lowers it.
func EnsureProcs(streams int) {
	if want := ProcsFor(streams); runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}
