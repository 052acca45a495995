package core

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// WorkStealingName is the name the work-stealing pool is registered under.
const WorkStealingName = "ws"

func init() {
	RegisterPool(WorkStealingName, func() Pool { return NewWorkStealing() })
}

// WorkStealing is a pool that keeps one FIFO queue per execution stream: a push goes to the
// queue of the stream that pushes (a ULT that yields or is woken goes back to the stream it
// ran on, or that woke it; units created by a thread that is no stream share one more queue),
// a stream pops from its own queue first and, when it is empty, steals half of another's
// (oldest first, the victim picked at random, up to wsStealMax units at once). It gives out
// several units per pop (Batcher): those of the stream's own queue, oldest first, or those one
// steal takes. Every wsFairEvery-th unit a stream takes, it looks at the other queues first: a ULT that yields goes back to
// its stream's own queue, and a stream whose own queue never empties (a ULT yielding in a loop,
// waiting for a unit that another stream pushed) would never run the others' units otherwise.
// Shared by the streams of several schedulers, it balances them; behind one stream's scheduler
// it is a FIFO that the creating stream fills and the serving stream steals from.
//
// Each queue has its own lock and its own cache lines; a stream that finds its queue empty
// skips empty victims without locking them.
type WorkStealing struct {
	mu     sync.Mutex                 // grows queues
	queues atomic.Pointer[[]*wsQueue] // index rank+1; index 0: threads that are no stream
}

const (
	// wsMaxQueues bounds the queues of one pool; higher ranks share them (rank modulo).
	wsMaxQueues = 1024
	// wsStealMax is the most units one steal moves.
	wsStealMax = 32
	// wsFairEvery: every wsFairEvery-th pop of a stream steals first.
	wsFairEvery = 16
)

// wsQueue is one stream's FIFO: a ring buffer under a lock, padded to two cache lines.
type wsQueue struct {
	mu    sync.Mutex
	buf   []Addr // len is 0 or a power of two
	head  int
	n     int
	count atomic.Int64 // n, read without the lock
	pops  int          // units its stream took since it last stole first, under the lock
	_     [64]byte
}

var _ interface {
	Pool
	Batcher
	PushBatcher
	Remover
	Lister
} = (*WorkStealing)(nil)

// NewWorkStealing returns an empty work-stealing pool.
func NewWorkStealing() *WorkStealing { return &WorkStealing{} }

// queue returns the queue of the stream of rank (-1: no stream), making it if needed.
func (w *WorkStealing) queue(rank int) *wsQueue {
	i := 0
	if rank >= 0 {
		i = 1 + rank%(wsMaxQueues-1)
	}
	if qs := w.queues.Load(); qs != nil && i < len(*qs) {
		return (*qs)[i]
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var qs []*wsQueue
	if p := w.queues.Load(); p != nil {
		qs = *p
	}
	if i < len(qs) {
		return qs[i]
	}
	grown := append([]*wsQueue(nil), qs...)
	for len(grown) <= i {
		grown = append(grown, &wsQueue{})
	}
	w.queues.Store(&grown)
	return grown[i]
}

// Push adds u to the calling stream's queue.
func (w *WorkStealing) Push(u Addr, c Caller) {
	q := w.queue(c.Rank)
	q.mu.Lock()
	q.pushLocked(u)
	q.mu.Unlock()
}

// PushBatch adds each unit to its caller's queue, in order, locking a queue once for each run
// of units pushed by the same stream.
func (w *WorkStealing) PushBatch(units []Addr, callers []Caller) {
	for i := 0; i < len(units); {
		rank := callers[i].Rank
		q := w.queue(rank)
		q.mu.Lock()
		for ; i < len(units) && callers[i].Rank == rank; i++ {
			q.addLocked(units[i])
		}
		q.count.Store(int64(q.n))
		q.mu.Unlock()
	}
}

// Pop takes the oldest unit of the calling stream's queue, or else steals: the first unit
// stolen is returned, the others go to the stream's queue. Every wsFairEvery-th unit its stream
// takes, it steals first.
func (w *WorkStealing) Pop(c Caller) (Addr, bool) {
	own := w.queue(c.Rank)
	if own.count.Load() > 0 {
		own.mu.Lock()
		fair := own.pops >= wsFairEvery-1
		var u Addr
		var ok bool
		if fair {
			own.pops = 0
		} else if u, ok = own.popLocked(); ok {
			own.pops++
		}
		own.mu.Unlock()
		if ok {
			return u, true
		}
		if fair {
			if u, ok := w.stealOne(own); ok {
				return u, true
			}
			own.mu.Lock()
			u, ok = own.popLocked()
			own.mu.Unlock()
			if ok {
				return u, true
			}
		}
	}
	return w.stealOne(own)
}

// stealOne steals for own's stream: the first unit stolen, the others into own's queue.
func (w *WorkStealing) stealOne(own *wsQueue) (Addr, bool) {
	var got [wsStealMax]Addr
	n := w.steal(own, got[:])
	if n == 0 {
		return 0, false
	}
	if n > 1 {
		own.mu.Lock()
		for _, u := range got[1:n] {
			own.pushLocked(u)
		}
		own.mu.Unlock()
	}
	return got[0], true
}

// PopBatch takes up to len(out) units, as Pop takes one, all given out: the oldest of the
// calling stream's queue, or else those a steal takes (none kept in the stream's queue).
func (w *WorkStealing) PopBatch(c Caller, out []Addr) int {
	if len(out) == 0 {
		return 0
	}
	return w.take(w.queue(c.Rank), out)
}

// take takes up to len(out) of the oldest units of own's queue into out, or else steals up to
// len(out) into it (as Pop does, a fair turn stealing first): how many.
func (w *WorkStealing) take(own *wsQueue, out []Addr) int {
	if own.count.Load() > 0 {
		own.mu.Lock()
		fair := own.pops >= wsFairEvery-1
		n := 0
		if fair {
			own.pops = 0
		} else {
			n = own.popManyLocked(out)
			own.pops += n
		}
		own.mu.Unlock()
		if n > 0 {
			return n
		}
		if fair {
			if n := w.steal(own, out); n > 0 {
				return n
			}
			own.mu.Lock()
			n = own.popManyLocked(out)
			own.mu.Unlock()
			if n > 0 {
				return n
			}
		}
	}
	return w.steal(own, out)
}

// steal takes half of a victim's units (at most wsStealMax and len(out)), oldest first, into
// out: how many.
func (w *WorkStealing) steal(own *wsQueue, out []Addr) int {
	qs := *w.queues.Load()
	n := len(qs)
	start := rand.IntN(n)
	for k := 0; k < n; k++ {
		v := qs[(start+k)%n]
		if v == own || v.count.Load() == 0 {
			continue
		}
		v.mu.Lock()
		m := v.popManyLocked(out[:min((v.n+1)/2, wsStealMax, len(out))])
		v.mu.Unlock()
		if m > 0 {
			return m
		}
	}
	return 0
}

// Len returns how many units the pool holds.
func (w *WorkStealing) Len() int {
	qs := w.queues.Load()
	if qs == nil {
		return 0
	}
	n := int64(0)
	for _, q := range *qs {
		n += q.count.Load()
	}
	return int(n)
}

// Remove takes u out of whichever queue holds it.
func (w *WorkStealing) Remove(u Addr) bool {
	qs := w.queues.Load()
	if qs == nil {
		return false
	}
	for _, q := range *qs {
		if q.count.Load() == 0 {
			continue
		}
		q.mu.Lock()
		ok := q.removeLocked(u)
		q.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// Units lists the units the pool holds, queue by queue, each oldest first.
func (w *WorkStealing) Units() []Addr {
	qs := w.queues.Load()
	if qs == nil {
		return nil
	}
	var all []Addr
	for _, q := range *qs {
		q.mu.Lock()
		for i := 0; i < q.n; i++ {
			all = append(all, q.buf[(q.head+i)&(len(q.buf)-1)])
		}
		q.mu.Unlock()
	}
	return all
}

func (q *wsQueue) popLocked() (Addr, bool) {
	if q.n == 0 {
		return 0, false
	}
	u := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	q.count.Store(int64(q.n))
	return u, true
}

func (q *wsQueue) pushLocked(u Addr) {
	q.addLocked(u)
	q.count.Store(int64(q.n))
}

// addLocked appends u, leaving count behind until the caller stores it.
func (q *wsQueue) addLocked(u Addr) {
	if q.n == len(q.buf) {
		grown := make([]Addr, max(16, 2*len(q.buf)))
		for i := 0; i < q.n; i++ {
			grown[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = u
	q.n++
}

// popManyLocked takes up to len(out) units, oldest first, into out: how many.
func (q *wsQueue) popManyLocked(out []Addr) int {
	n := 0
	for n < len(out) && q.n > 0 {
		out[n] = q.buf[q.head]
		q.head = (q.head + 1) & (len(q.buf) - 1)
		q.n--
		n++
	}
	q.count.Store(int64(q.n))
	return n
}

func (q *wsQueue) removeLocked(u Addr) bool {
	mask := len(q.buf) - 1
	for i := 0; i < q.n; i++ {
		if q.buf[(q.head+i)&mask] != u {
			continue
		}
		for j := i; j < q.n-1; j++ { // close the gap, keeping the order
			q.buf[(q.head+j)&mask] = q.buf[(q.head+j+1)&mask]
		}
		q.n--
		q.count.Store(int64(q.n))
		return true
	}
	return false
}
