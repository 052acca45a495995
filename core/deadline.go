package core

import (
	"math"
	"time"
	"unsafe"
)

// DeadlineName is the name the priority/deadline scheduling policy is registered under.
const DeadlineName = "deadline"

// DeadlineBase is how long pool 0 of a deadline scheduler may wait while no pool is overdue;
// pool i may wait DeadlineBase << i (pool 1: 200 µs, pool 2: 400 µs ...).
const DeadlineBase = 100 * time.Microsecond

// deadlineMaxShift caps the doubling: pools from 20 on may all wait about 105 s.
const deadlineMaxShift = 20

func init() {
	RegisterPolicy(DeadlineName, func(n int) Policy { return NewDeadline(n, Monotonic) })
}

// Deadline is a priority scheduler that no pool starves under: pools are served in priority
// order (pool 0 first, as the predefined schedulers do), except that a pool that has had units
// waiting longer than its budget (DeadlineBase << its index) is overdue, and the overdue pool
// whose deadline came first is served before any other. A pool's wait starts when the policy
// first sees it hold units while another pool does too, and starts again after each unit it
// gives, while it holds more; a pool that is alone in holding units is served and waits for
// nothing (and the clock is not read).
//
// So a low-priority pool is served at least about once per budget however busy the pools
// above it are, and a stream whose pools are not contended runs them by priority alone. While
// priority order is its rule it leases it to the engine (PickLease), for an eighth of the
// base budget at most.
type Deadline struct {
	budget  []int64 // ns
	since   []int64 // when pool i started waiting (valid while waiting[i])
	waiting []bool
	now     func() int64
}

// deadlineLine is a cache line: the state a policy writes on every pick (since, waiting) is
// allocated in whole lines, so that the policies of two streams, made one after the other,
// never share one (a write by each on every unit made the line travel between their CPUs).
const deadlineLine = 64

// NewDeadline returns the policy for numPools pools, reading time (ns) from now.
func NewDeadline(numPools int, now func() int64) *Deadline {
	d := &Deadline{budget: make([]int64, numPools), now: now}
	// One allocation of whole lines, since first, then waiting, each from a line's start: Go's
	// size classes from 64 bytes up are whole lines, in page-aligned spans.
	sinceBytes := (numPools*8 + deadlineLine - 1) / deadlineLine * deadlineLine
	waitingBytes := (numPools + deadlineLine - 1) / deadlineLine * deadlineLine
	words := make([]int64, (sinceBytes+waitingBytes)/8)
	d.since = words[:numPools:numPools]
	d.waiting = unsafe.Slice((*bool)(unsafe.Pointer(&words[sinceBytes/8])), numPools)
	for i := range d.budget {
		d.budget[i] = int64(DeadlineBase) << min(i, deadlineMaxShift)
	}
	return d
}

// Pick returns the overdue pool with the earliest deadline, else the first pool holding units.
func (d *Deadline) Pick(v View) int {
	best, _, _ := d.pick(v)
	return best
}

// pick is Pick, which also says which pool holds units first and when it read the clock (0
// when it did not: one pool or none holds units, and none waits).
func (d *Deadline) pick(v View) (best, first int, now int64) {
	sizes := v.Sizes[:min(len(v.Sizes), len(d.budget))]
	first = -1
	holding := 0
	for i, n := range sizes {
		if n <= 0 {
			d.waiting[i] = false
			continue
		}
		holding++
		if first < 0 {
			first = i
		}
	}
	if holding <= 1 {
		if first >= 0 {
			d.waiting[first] = false // alone: nothing waits for it
		}
		return first, first, 0
	}
	now = d.now()
	best = -1
	bestDue := int64(0)
	for i, n := range sizes {
		if n <= 0 {
			continue
		}
		if !d.waiting[i] {
			d.waiting[i], d.since[i] = true, now
		}
		if due := d.since[i] + d.budget[i]; due <= now && (best < 0 || due < bestDue) {
			best, bestDue = i, due
		}
	}
	if best < 0 {
		best = first
	}
	// Its next unit waits from now on, if it has one.
	d.waiting[best] = sizes[best] > 1
	d.since[best] = now
	return best, first, now
}

// deadlineLeaseMax bounds a lease (PickLease): a pool that gets units during one starts
// waiting only when the policy is next asked, up to this much later than it would have.
const deadlineLeaseMax = DeadlineBase / 8

var _ Leaser = (*Deadline)(nil)

// PickLease picks as Pick does. When that is the first pool holding units (nothing overdue),
// priority order is the rule until a waiting pool could become overdue: the lease lasts that
// long, deadlineLeaseMax at most. The units the engine pops meanwhile are not seen here: a
// pool served in the lease waits, for the next Pick, from the lease's start.
func (d *Deadline) PickLease(v View) (pool, units int, ns int64) {
	best, first, now := d.pick(v)
	if best < 0 || best != first {
		return best, 0, 0
	}
	ns = int64(deadlineLeaseMax)
	for i, waiting := range d.waiting {
		if !waiting {
			continue
		}
		if left := d.since[i] + d.budget[i] - now; left < ns {
			ns = left
		}
	}
	if ns <= 0 {
		return best, 0, 0
	}
	return best, math.MaxInt32, ns
}

var monotonicBase = time.Now()

// Monotonic returns nanoseconds on a monotonic clock.
func Monotonic() int64 { return int64(time.Since(monotonicBase)) }
