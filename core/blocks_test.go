package core

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlocksGetPutDrain(t *testing.T) {
	var u Blocks
	_, err := u.Get()
	require.Error(t, err, "size must be set first")
	require.NoError(t, u.SetSize(200))
	a, err := u.Get()
	require.NoError(t, err)
	require.Zero(t, uintptr(a)%64, "cache-line aligned")
	block := a.Bytes(256)
	for i := range block {
		block[i] = 0xff
	}
	u.Put(a)
	b, err := u.Get()
	require.NoError(t, err)
	require.Equal(t, a, b, "a freed block is reused")
	for _, v := range b.Bytes(256) {
		require.Zero(t, v, "reused blocks come back zeroed")
	}
	// Blocks never overlap, even across slabs.
	seen := map[Addr]bool{b: true}
	for i := 0; i < 1000; i++ {
		p, err := u.Get()
		require.NoError(t, err)
		require.False(t, seen[p])
		seen[p] = true
	}
	out, slabs := u.Out()
	require.Equal(t, 1001, out)
	require.Greater(t, slabs, 1)
	require.Error(t, u.SetSize(512), "no size change while descriptors exist")
	u.Drain()
	out, slabs = u.Out()
	require.Zero(t, out)
	require.Zero(t, slabs)
}

func TestBlocksConcurrent(t *testing.T) {
	var u Blocks
	require.NoError(t, u.SetSize(192))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				p, err := u.Get()
				if !assert.NoError(t, err) {
					return
				}
				*(*byte)(p.Pointer()) = 1
				u.Put(p)
			}
		}()
	}
	wg.Wait()
	out, _ := u.Out()
	require.Zero(t, out)
	u.Drain()
}

func TestBlocksLargerThanASlab(t *testing.T) {
	var b Blocks
	require.NoError(t, b.SetSize(100<<10))
	p, err := b.Get()
	require.NoError(t, err)
	q, err := b.Get()
	require.NoError(t, err)
	require.NotEqual(t, p, q)
	last := p.Bytes(100 << 10)
	last[len(last)-1] = 1 // the whole block is mapped
	_, slabs := b.Out()
	require.Equal(t, 2, slabs, "one slab per block that does not fit a shared one")
	b.Drain()
}

func TestBlocksGetRunIsContiguousAndOnItsOwnPages(t *testing.T) {
	var b Blocks
	require.NoError(t, b.SetSize(152)) // rounded to 192, as a unit descriptor
	_, err := b.Get()                  // leaves the fresh region off a page boundary
	require.NoError(t, err)
	var first, second [64]Addr
	n, err := b.GetRun(first[:])
	require.NoError(t, err)
	require.Equal(t, 64, n)
	n, err = b.GetRun(second[:])
	require.NoError(t, err)
	require.Equal(t, 64, n)
	for _, run := range [][64]Addr{first, second} {
		require.Zero(t, uintptr(run[0])%4096, "a run starts a page")
		for i := 1; i < len(run); i++ {
			require.Equal(t, uintptr(run[i-1])+192, uintptr(run[i]), "adjacent, ascending")
		}
	}
	lastPage := (uintptr(first[63]) + 191) / 4096
	require.Less(t, lastPage, uintptr(second[0])/4096, "two runs share no page")
	out, _ := b.Out()
	require.Equal(t, 129, out)

	// Blocks given back come back in runs before fresh ones are carved.
	given := map[Addr]bool{}
	for _, p := range first {
		b.Put(p)
		given[p] = true
	}
	var again [64]Addr
	n, err = b.GetRun(again[:])
	require.NoError(t, err)
	require.Equal(t, 64, n)
	for _, p := range again {
		require.True(t, given[p], "a block given back, not a fresh one")
	}
	b.Drain()
}

func TestObjectMemorySizeClasses(t *testing.T) {
	var m ObjectMemory
	var out [8]Addr
	require.Equal(t, 8, m.Get(40, out[:]))
	seen := map[Addr]bool{}
	for _, a := range out {
		require.Zero(t, uintptr(a)%64, "cache-line aligned")
		require.False(t, seen[a])
		seen[a] = true
		a.Bytes(64)[63] = 1 // a whole 64-byte block
	}
	require.Equal(t, 8, m.Get(200, out[:]))
	out[0].Bytes(256)[255] = 1
	require.Equal(t, 8, m.Get(3456, out[:]))
	for _, a := range out {
		require.Zero(t, uintptr(a)%128, "large classes are 128-aligned")
	}
	require.Zero(t, m.Get(4097, out[:]), "no class that large")
}

func TestBlocksSlabsHoldEveryBlock(t *testing.T) {
	var b Blocks
	require.NoError(t, b.SetSize(256))
	defer b.Drain()
	var got []Addr
	for i := 0; i < 600; i++ { // more than one 64 KiB slab
		a, err := b.Get()
		require.NoError(t, err)
		got = append(got, a)
	}
	slabs := b.Slabs()
	require.GreaterOrEqual(t, len(slabs), 2)
	for _, a := range got {
		in := false
		for _, s := range slabs {
			in = in || (uintptr(a) >= s[0] && uintptr(a)+256 <= s[0]+s[1])
		}
		require.True(t, in, "block %#x in no slab", uintptr(a))
	}
	b.Drain()
	require.Empty(t, b.Slabs())
}
