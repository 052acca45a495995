package core

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkStealingOwnQueueFIFO(t *testing.T) {
	w := NewWorkStealing()
	me := Caller{Rank: 2}
	_, ok := w.Pop(me)
	require.False(t, ok, "empty")
	for i := 1; i <= 100; i++ {
		w.Push(Addr(i), me)
	}
	require.Equal(t, 100, w.Len())
	for i := 1; i <= 100; i++ {
		u, ok := w.Pop(me)
		require.True(t, ok)
		require.Equal(t, Addr(i), u, "a stream's own units come back oldest first")
	}
	require.Equal(t, 0, w.Len())
}

func TestWorkStealingSteals(t *testing.T) {
	w := NewWorkStealing()
	for i := 1; i <= 10; i++ {
		w.Push(Addr(i), Caller{Rank: -1}) // an external thread's queue
	}
	thief := Caller{Rank: 0}
	u, ok := w.Pop(thief)
	require.True(t, ok)
	require.Equal(t, Addr(1), u, "the oldest is stolen first")
	// Half of the victim's 10 moved: 4 more in the thief's queue, 5 left in the victim's.
	require.Equal(t, 9, w.Len())
	require.Equal(t, int64(4), w.queue(0).count.Load())
	require.Equal(t, int64(5), w.queue(-1).count.Load())
	for i := 2; i <= 5; i++ {
		u, ok = w.Pop(thief)
		require.True(t, ok)
		require.Equal(t, Addr(i), u, "then its own queue, in order")
	}
	got := map[Addr]bool{}
	for {
		u, ok := w.Pop(Caller{Rank: 7})
		if !ok {
			break
		}
		got[u] = true
	}
	require.Len(t, got, 5, "another stream steals the rest")
	require.Equal(t, 0, w.Len())
}

func TestWorkStealingStealCap(t *testing.T) {
	w := NewWorkStealing()
	for i := 1; i <= 1000; i++ {
		w.Push(Addr(i), Caller{Rank: 0})
	}
	_, ok := w.Pop(Caller{Rank: 1})
	require.True(t, ok)
	require.Equal(t, int64(wsStealMax-1), w.queue(1).count.Load(), "one steal moves at most wsStealMax")
}

func TestWorkStealingHighRanks(t *testing.T) {
	w := NewWorkStealing()
	w.Push(1, Caller{Rank: 5000}) // shares a queue with a lower rank
	w.Push(2, Caller{Rank: -5})
	require.Equal(t, 2, w.Len())
	require.LessOrEqual(t, len(*w.queues.Load()), wsMaxQueues)
	seen := 0
	for {
		if _, ok := w.Pop(Caller{Rank: 3}); !ok {
			break
		}
		seen++
	}
	require.Equal(t, 2, seen)
}

func TestWorkStealingRemove(t *testing.T) {
	w := NewWorkStealing()
	for i := 1; i <= 5; i++ {
		w.Push(Addr(i), Caller{Rank: i % 2})
	}
	require.True(t, w.Remove(3))
	require.False(t, w.Remove(3), "not there any more")
	require.False(t, w.Remove(42))
	require.Equal(t, 4, w.Len())
	var got []Addr
	for {
		u, ok := w.Pop(Caller{Rank: 1})
		if !ok {
			break
		}
		got = append(got, u)
	}
	require.ElementsMatch(t, []Addr{1, 2, 4, 5}, got)
	var _ Remover = w
}

func TestWorkStealingUnits(t *testing.T) {
	w := NewWorkStealing()
	require.Empty(t, w.Units())
	for i := 1; i <= 40; i++ {
		w.Push(Addr(i), Caller{Rank: i%3 - 1})
	}
	w.Pop(Caller{Rank: 0})
	require.Len(t, w.Units(), 39)
	var _ Lister = w
}

// Streams push and pop at once: every unit comes out exactly once, wherever it was pushed.
func TestWorkStealingConcurrent(t *testing.T) {
	w := NewWorkStealing()
	const streams, each = 8, 20000
	var popped [streams * each]atomic.Int32
	var total atomic.Int64
	var wg sync.WaitGroup
	for s := 0; s < streams; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := Caller{Rank: s - 1} // one of them an external thread
			for i := 0; i < each; i++ {
				w.Push(Addr(1+s*each+i), c)
				if i%3 != 0 { // pop less than pushed: queues fill, others steal
					if u, ok := w.Pop(c); ok {
						popped[u-1].Add(1)
						total.Add(1)
					}
				}
			}
			for total.Load() < streams*each {
				if u, ok := w.Pop(c); ok {
					popped[u-1].Add(1)
					total.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for i := range popped {
		assert.Equal(t, int32(1), popped[i].Load(), "unit %d", i+1)
	}
	require.Equal(t, 0, w.Len())
}

func BenchmarkWorkStealingPushPop(b *testing.B) {
	w := NewWorkStealing()
	c := Caller{Rank: 0}
	for i := 0; i < b.N; i++ {
		w.Push(Addr(i+1), c)
		w.Pop(c)
	}
}

// A stream whose own queue never empties (a ULT that yields in a loop goes back to it) still
// gets to the units other streams pushed.
func TestWorkStealingFair(t *testing.T) {
	w := NewWorkStealing()
	me := Caller{Rank: 1}
	w.Push(1000, Caller{Rank: 0}) // pushed by another stream
	w.Push(1, me)                 // the yielding ULT
	for i := 0; i < wsFairEvery; i++ {
		u, ok := w.Pop(me)
		require.True(t, ok)
		if u == 1000 {
			return
		}
		w.Push(u, me) // it yields: back to its stream's queue
	}
	t.Fatalf("the other stream's unit did not come within %d pops", wsFairEvery)
}

// PopBatch gives a stream's own units oldest first, as many as fit, batch after batch.
func TestWorkStealingPopBatchOwnQueue(t *testing.T) {
	w := NewWorkStealing()
	me := Caller{Rank: 0}
	out := make([]Addr, 16)
	require.Equal(t, 0, w.PopBatch(me, out), "empty")
	for i := 1; i <= 40; i++ {
		w.Push(Addr(i), me)
	}
	var got []Addr
	for {
		n := w.PopBatch(me, out)
		if n == 0 {
			break
		}
		require.LessOrEqual(t, n, len(out))
		got = append(got, out[:n]...)
	}
	require.Len(t, got, 40)
	for i, u := range got {
		require.Equal(t, Addr(i+1), u, "oldest first, across batches")
	}
	require.Equal(t, 0, w.Len())
	require.Equal(t, 0, w.PopBatch(me, out[:0]), "no room, no unit")
}

// A batch that steals gives out what it stole, all of it, and keeps none in the thief's queue.
func TestWorkStealingPopBatchSteals(t *testing.T) {
	w := NewWorkStealing()
	for i := 1; i <= 10; i++ {
		w.Push(Addr(i), Caller{Rank: -1})
	}
	out := make([]Addr, 16)
	n := w.PopBatch(Caller{Rank: 0}, out)
	require.Equal(t, []Addr{1, 2, 3, 4, 5}, out[:n], "half of the victim's, oldest first")
	require.Equal(t, int64(0), w.queue(0).count.Load(), "nothing kept by the thief")
	require.Equal(t, 5, w.Len())

	w = NewWorkStealing()
	for i := 11; i <= 1000; i++ {
		w.Push(Addr(i), Caller{Rank: 2})
	}
	n = w.PopBatch(Caller{Rank: 1}, out[:8])
	require.Equal(t, []Addr{11, 12, 13, 14, 15, 16, 17, 18}, out[:n], "no more than out holds")
	n = w.PopBatch(Caller{Rank: 1}, make([]Addr, 100))
	require.Equal(t, wsStealMax, n, "no more than one steal takes")
}

// A stream whose own queue never empties gets to other streams' units within wsFairEvery units,
// batches or not.
func TestWorkStealingPopBatchFair(t *testing.T) {
	w := NewWorkStealing()
	me := Caller{Rank: 1}
	w.Push(1000, Caller{Rank: 0})
	for i := 1; i <= 3; i++ {
		w.Push(Addr(i), me)
	}
	out := make([]Addr, 2)
	for taken := 0; taken < wsFairEvery+len(out); {
		n := w.PopBatch(me, out)
		require.Positive(t, n)
		for _, u := range out[:n] {
			if u == 1000 {
				return
			}
			w.Push(u, me) // it yields: back to its stream's queue
		}
		taken += n
	}
	t.Fatalf("the other stream's unit did not come within %d units", wsFairEvery)
}

// PushBatch leaves the pool as the same Push calls would: each unit in its caller's queue, in
// order, the queues' counts and Len up to date, the queues growing past their first size.
func TestWorkStealingPushBatchAsPushes(t *testing.T) {
	batched, one := NewWorkStealing(), NewWorkStealing()
	var units []Addr
	var callers []Caller
	for i := 1; i <= 60; i++ { // runs of one rank, of several, and a thread that is no stream
		rank := []int{0, 0, 0, 1, -1, 1, 1, 2}[i%8]
		units = append(units, Addr(i))
		callers = append(callers, Caller{Rank: rank})
	}
	batched.PushBatch(units, callers)
	for i, u := range units {
		one.Push(u, callers[i])
	}
	require.Equal(t, one.Len(), batched.Len())
	for _, rank := range []int{-1, 0, 1, 2} {
		require.Equal(t, one.queue(rank).count.Load(), batched.queue(rank).count.Load(), "rank %d", rank)
		out1, out2 := make([]Addr, 64), make([]Addr, 64)
		n1 := one.queue(rank).popManyLocked(out1)
		n2 := batched.queue(rank).popManyLocked(out2)
		require.Equal(t, out1[:n1], out2[:n2], "rank %d: the same units, in the same order", rank)
		require.NotZero(t, n2)
	}
	require.Equal(t, 0, batched.Len())
}
