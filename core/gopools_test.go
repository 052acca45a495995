package core

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegistryShipped(t *testing.T) {
	f, err := LookupPool(WorkStealingName)
	require.NoError(t, err)
	require.NotNil(t, f())
	g, err := LookupPolicy(DeadlineName)
	require.NoError(t, err)
	require.NotNil(t, g(3))
	assert.Contains(t, PoolNames(), WorkStealingName)
	assert.Contains(t, PolicyNames(), DeadlineName)
}

func TestRegistryErrors(t *testing.T) {
	_, err := LookupPool("no-such-pool")
	require.True(t, errors.Is(err, ErrUnknownName))
	assert.Contains(t, err.Error(), `"no-such-pool"`)
	assert.Contains(t, err.Error(), WorkStealingName, "the error lists what is registered")
	_, err = LookupPolicy("no-such-policy")
	require.True(t, errors.Is(err, ErrUnknownName))
	_, err = LookupPool(DeadlineName)
	require.Error(t, err, "pools and policies have names of their own")

	assert.Panics(t, func() { RegisterPool("", func() Pool { return NewWorkStealing() }) })
	assert.Panics(t, func() { RegisterPool("registry-test-nil", nil) })
	assert.Panics(t, func() { RegisterPool(WorkStealingName, func() Pool { return NewWorkStealing() }) })
	assert.Panics(t, func() { RegisterPolicy(DeadlineName, func(int) Policy { return nil }) })
	RegisterPolicy("registry-test", func(n int) Policy { return NewDeadline(n, Monotonic) })
	_, err = LookupPolicy("registry-test")
	require.NoError(t, err)
}

func TestInstances(t *testing.T) {
	var tab Instances[string]
	_, ok := tab.Get(1)
	require.False(t, ok, "empty table")
	a := tab.Add("a")
	b := tab.Add("b")
	require.GreaterOrEqual(t, a, 1)
	require.NotEqual(t, a, b)
	v, ok := tab.Get(b)
	require.True(t, ok)
	require.Equal(t, "b", v)
	v, ok = tab.Remove(a)
	require.True(t, ok)
	require.Equal(t, "a", v)
	_, ok = tab.Get(a)
	require.False(t, ok, "removed")
	_, ok = tab.Remove(a)
	require.False(t, ok, "removed twice")
	require.Equal(t, a, tab.Add("c"), "ids are reused")
	for _, id := range []int{0, -1, 1 << 20} {
		_, ok = tab.Get(id)
		require.False(t, ok, "id %d", id)
	}
	// Past one chunk.
	ids := map[int]bool{}
	for i := 0; i < 3*instanceChunkSize; i++ {
		id := tab.Add("x")
		require.False(t, ids[id])
		ids[id] = true
	}
	require.Equal(t, 2+3*instanceChunkSize, tab.Len())
}

// Concurrent Get while others Add and Remove: a reader sees an object or nothing, never
// another's.
func TestInstancesConcurrent(t *testing.T) {
	var tab Instances[int]
	var wg sync.WaitGroup
	var bad atomic.Int64
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				v := g*1_000_000 + i
				id := tab.Add(v)
				if got, ok := tab.Get(id); !ok || got != v {
					bad.Add(1)
				}
				if i%2 == 0 {
					if got, ok := tab.Remove(id); !ok || got != v {
						bad.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, bad.Load())
	require.Equal(t, 8*1000, tab.Len())
}
