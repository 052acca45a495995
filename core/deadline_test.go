package core

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ ns int64 }

func (c *fakeClock) now() int64 { return c.ns }

func TestDeadlinePriorityOrder(t *testing.T) {
	var clk fakeClock
	d := NewDeadline(3, clk.now)
	require.Equal(t, -1, d.Pick(View{Sizes: []int64{0, 0, 0}}), "nothing to run")
	require.Equal(t, 1, d.Pick(View{Sizes: []int64{0, 4, 9}}), "the first pool with units")
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{1, 4, 9}}))
	require.Equal(t, 2, d.Pick(View{Sizes: []int64{0, 0, 9}}))
}

func TestDeadlineOverdue(t *testing.T) {
	var clk fakeClock
	d := NewDeadline(3, clk.now)
	base := int64(DeadlineBase)
	busy := View{Sizes: []int64{100, 100, 100}}
	require.Equal(t, 0, d.Pick(busy), "at 0 all start waiting; none is overdue")
	clk.ns = 2*base - 1
	require.Equal(t, 0, d.Pick(busy), "pool 1 may wait 2 x base")
	clk.ns = 2 * base
	require.Equal(t, 1, d.Pick(busy), "pool 1 is due")
	require.Equal(t, 0, d.Pick(busy), "served: its wait starts again")
	clk.ns = 4 * base
	// Pools 1 (since 2 base, due 4 base) and 2 (since 0, due 4 base) are both due; pool 0 too
	// (its wait restarted at 2 base when served, due 3 base): the earliest deadline wins.
	require.Equal(t, 0, d.Pick(busy))
	got := []int{d.Pick(busy), d.Pick(busy)}
	require.ElementsMatch(t, []int{1, 2}, got, "then the other two overdue ones")
}

// A pool that empties stops waiting: when it gets units again, its wait starts afresh.
func TestDeadlineEmptyResets(t *testing.T) {
	var clk fakeClock
	d := NewDeadline(2, clk.now)
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{5, 1}}))
	clk.ns = 10 * int64(DeadlineBase)
	// Both overdue: pool 0 (due at 1 base) before pool 1 (due at 2 base), then pool 1.
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{5, 1}}))
	require.Equal(t, 1, d.Pick(View{Sizes: []int64{5, 1}}), "overdue")
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{5, 0}}))
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{5, 1}}), "pool 1's new unit starts waiting now")
	clk.ns = 12*int64(DeadlineBase) - 1
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{5, 1}}), "not yet due")
	clk.ns++
	require.Equal(t, 1, d.Pick(View{Sizes: []int64{5, 1}}), "due 2 base after it got its unit")
}

// Under constant load, every pool gets a share: none starves, and pool 0 gets the most.
func TestDeadlineNoStarvation(t *testing.T) {
	var clk fakeClock
	d := NewDeadline(4, clk.now)
	served := make([]int, 4)
	busy := View{Sizes: []int64{9, 9, 9, 9}}
	for i := 0; i < 100000; i++ {
		clk.ns += 1000 // a unit runs 1 µs
		served[d.Pick(busy)]++
	}
	for i, n := range served {
		require.Positive(t, n, "pool %d", i)
	}
	require.Greater(t, served[0], served[1]+served[2]+served[3])
	// Pool 3 (budget 800 µs) is served about once per 800 µs of the 100 ms.
	require.InDelta(t, 100000/800, served[3], 20)
}

// A pool alone in holding units is served without reading the clock, and starts waiting only
// once another pool holds units too.
func TestDeadlineAloneWaitsForNothing(t *testing.T) {
	reads := 0
	var clk fakeClock
	d := NewDeadline(2, func() int64 { reads++; return clk.now() })
	for i := 0; i < 10; i++ {
		clk.ns += 10 * int64(DeadlineBase)
		require.Equal(t, 1, d.Pick(View{Sizes: []int64{0, 5}}))
	}
	require.Zero(t, reads)
	// Pool 1 was served alone all along: it is not overdue when pool 0 comes.
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{3, 5}}))
	require.Equal(t, 1, reads)
}

func TestDeadlineMorePoolsThanPlanned(t *testing.T) {
	var clk fakeClock
	d := NewDeadline(1, clk.now)
	require.Equal(t, 0, d.Pick(View{Sizes: []int64{1, 1}}), "only the pools it was made for")
	require.Equal(t, -1, d.Pick(View{Sizes: []int64{0, 1}}))
	big := NewDeadline(40, clk.now)
	require.Equal(t, int64(DeadlineBase)<<deadlineMaxShift, big.budget[39])
}

// The state every pick writes (since, waiting) lies in cache lines of its own: policies made one
// after the other, as a program's streams make theirs, never share a line.
func TestDeadlineStateOnLinesOfItsOwn(t *testing.T) {
	const line = 64 // x86-64's and arm64's
	for _, pools := range []int{1, 2, 3, 9, 40} {
		var policies []*Deadline
		for i := 0; i < 8; i++ {
			policies = append(policies, NewDeadline(pools, Monotonic))
		}
		owner := map[uintptr]int{}
		for i, d := range policies {
			require.Zero(t, uintptr(unsafe.Pointer(&d.since[0]))%line, "%d pools: since starts a line", pools)
			require.Zero(t, uintptr(unsafe.Pointer(&d.waiting[0]))%line, "%d pools: waiting starts a line", pools)
			last := unsafe.Pointer(&d.waiting[pools-1])
			for p := uintptr(unsafe.Pointer(&d.since[0])); p <= uintptr(last); p += line {
				other, taken := owner[p/line]
				require.False(t, taken && other != i, "%d pools: policies %d and %d share a line", pools, other, i)
				owner[p/line] = i
			}
		}
	}
}

// A lease is given when the pick is the first pool holding units, and lasts until the first
// other waiting pool could be overdue, deadlineLeaseMax at most; an overdue pick gives none.
func TestDeadlinePickLease(t *testing.T) {
	var clk fakeClock
	d := NewDeadline(3, clk.now)
	base := int64(DeadlineBase)
	pool, units, ns := d.PickLease(View{Sizes: []int64{0, 5, 0}})
	require.Equal(t, 1, pool)
	require.Positive(t, units, "alone: nothing else can become due")
	require.Equal(t, int64(deadlineLeaseMax), ns)

	busy := View{Sizes: []int64{100, 100, 100}}
	pool, units, ns = d.PickLease(busy) // at 0 all start waiting; pool 1 due at 2 base
	require.Equal(t, 0, pool)
	require.Positive(t, units)
	require.Equal(t, int64(deadlineLeaseMax), ns, "the nearest deadline is far")

	clk.ns = 2*base - 1000
	pool, units, ns = d.PickLease(busy)
	require.Equal(t, 0, pool)
	require.Positive(t, units)
	require.Equal(t, int64(1000), ns, "until pool 1 could be overdue")

	clk.ns = 2 * base
	pool, units, ns = d.PickLease(busy)
	require.Equal(t, 1, pool, "pool 1 is due")
	require.Zero(t, units, "an overdue pick is not priority order: no lease")
	require.Zero(t, ns)

	pool, units, _ = d.PickLease(View{Sizes: []int64{0, 0, 0}})
	require.Equal(t, -1, pool)
	require.Zero(t, units, "nothing to run, nothing to lease")
}
