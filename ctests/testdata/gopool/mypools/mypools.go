// Package mypools is a pool and a scheduling policy of one's own for goabt: a LIFO pool,
// "mylifo", and a round-robin policy, "myroundrobin".
package mypools

import (
	"sync"

	"github.com/goabt/goabt/core"
)

// lifo is a pool that runs the newest unit first: one slice under a lock.
type lifo struct {
	mu    sync.Mutex
	units []core.Addr
}

func (p *lifo) Push(u core.Addr, _ core.Caller) {
	p.mu.Lock()
	p.units = append(p.units, u)
	p.mu.Unlock()
}

func (p *lifo) Pop(core.Caller) (core.Addr, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.units)
	if n == 0 {
		return 0, false
	}
	u := p.units[n-1]
	p.units = p.units[:n-1]
	return u, true
}

func (p *lifo) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.units)
}

// roundRobin is a policy that serves a scheduler's pools in turn.
type roundRobin struct{ next int }

func (r *roundRobin) Pick(v core.View) int {
	for k := range v.Sizes {
		i := (r.next + k) % len(v.Sizes)
		if v.Sizes[i] > 0 {
			r.next = i + 1
			return i
		}
	}
	return -1
}

func init() {
	core.RegisterPool("mylifo", func() core.Pool { return &lifo{} })
	core.RegisterPolicy("myroundrobin", func(numPools int) core.Policy { return &roundRobin{} })
}
