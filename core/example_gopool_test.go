package core_test

import (
	"fmt"
	"sync"

	"github.com/goabt/goabt/core"
)

// This file is docs/go-extensions.md's "Writing a pool or scheduler in Go" pool and policy as an example
// inside core's tests: a third pool and a third policy, registered as lifo and roundrobin in
// core's test binary only. The document's own, a package of one's own built into the library with
// make lib GOPOOLS=dir, is ctests/testdata/gopool/mypools (names mylifo and myroundrobin).

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
	core.RegisterPool("lifo", func() core.Pool { return &lifo{} })
	core.RegisterPolicy("roundrobin", func(numPools int) core.Policy { return &roundRobin{} })
}

// Example: what goabt does with a registered pool and policy when a C program asks for them
// by name (GOABT_POOL=lifo, goabt_sched_create_go("roundrobin", ...)).
func Example() {
	newPool, _ := core.LookupPool("lifo")
	p := newPool()
	for u := core.Addr(1); u <= 3; u++ {
		p.Push(u, core.Caller{Rank: 0})
	}
	u, _ := p.Pop(core.Caller{Rank: 1})
	fmt.Println("popped", u, "left", p.Len())

	newPolicy, _ := core.LookupPolicy("roundrobin")
	rr := newPolicy(3)
	for i := 0; i < 4; i++ {
		fmt.Print(rr.Pick(core.View{Sizes: []int64{2, 0, 5}}), " ")
	}
	fmt.Println()
	// Output:
	// popped 3 left 2
	// 0 2 0 2
}
