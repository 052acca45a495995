package core

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestKeySlotOfCoversEveryIDOnce(t *testing.T) {
	seen := map[[2]uint32]bool{}
	for id := uint32(0); id < MaxKeys; id++ {
		c, o := KeySlotOf(id)
		require.Less(t, c, uint32(KeyChunks), "id %d", id)
		require.Less(t, int(o), KeyChunkSlots(c), "id %d", id)
		require.False(t, seen[[2]uint32{c, o}], "id %d shares a slot", id)
		seen[[2]uint32{c, o}] = true
	}
	c, o := KeySlotOf(15)
	require.Equal(t, [2]uint32{0, 15}, [2]uint32{c, o})
	c, o = KeySlotOf(16)
	require.Equal(t, [2]uint32{1, 0}, [2]uint32{c, o})
}

func TestKeysCreateFreeReuse(t *testing.T) {
	var k Keys
	a, err := k.Create(0)
	require.NoError(t, err)
	b, err := k.Create(0x1234)
	require.NoError(t, err)
	require.Equal(t, uint32(0), a.ID)
	require.Equal(t, uint32(1), b.ID)
	require.Equal(t, uintptr(0x1234), b.Destructor)
	require.Equal(t, uint32(KeyMagic), b.Magic)
	require.NotEqual(t, a.Serial, b.Serial)
	require.Zero(t, uintptr(unsafe.Pointer(a))%8, "aligned for C")

	serialA := a.Serial
	require.NoError(t, k.Free(a))
	require.Equal(t, uint32(KeyFreed), a.Magic, "a freed record is marked, never 0")
	require.Error(t, k.Free(a), "a second free is refused")
	require.Error(t, k.Free(nil))

	c, err := k.Create(0)
	require.NoError(t, err)
	require.Same(t, a, c, "the lowest freed id comes back, with its record")
	require.Greater(t, c.Serial, serialA, "serials never repeat")
	live, ids := k.Live()
	require.Equal(t, 2, live)
	require.Equal(t, 2, ids)
}

func TestKeysConcurrent(t *testing.T) {
	var k Keys
	var wg sync.WaitGroup
	serials := make([][]uint64, 8)
	for g := range serials {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				r, err := k.Create(0)
				if err != nil {
					t.Error(err)
					return
				}
				serials[g] = append(serials[g], r.Serial)
				if i%2 == 0 {
					if err := k.Free(r); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, s := range serials {
		for _, v := range s {
			require.False(t, seen[v], "serial %d handed out twice", v)
			seen[v] = true
		}
	}
	live, ids := k.Live()
	require.Equal(t, 8*150, live)
	require.GreaterOrEqual(t, ids, live)
}

func TestKeyTablesGrowAndDrain(t *testing.T) {
	var kt KeyTables
	tbl, err := kt.GetTable()
	require.NoError(t, err)
	require.Equal(t, AddrOf(unsafe.Pointer(&tbl.First)), tbl.Chunks[0])
	for k := uint32(1); k < KeyChunks; k++ {
		require.Zero(t, tbl.Chunks[k])
	}
	for k := uint32(1); k < KeyChunks; k++ {
		c, err := kt.GetChunk(k)
		require.NoError(t, err)
		slots := unsafe.Slice((*KeySlot)(c.Pointer()), KeyChunkSlots(k))
		slots[len(slots)-1].Value = 1 // the whole chunk is there
		tbl.Chunks[k] = c
	}
	_, err = kt.GetChunk(0)
	require.Error(t, err)
	_, err = kt.GetChunk(KeyChunks)
	require.Error(t, err)
	for k := uint32(1); k < KeyChunks; k++ {
		kt.PutChunk(k, tbl.Chunks[k])
	}
	kt.PutTable(tbl)
	kt.Drain()
}

func TestKeyTablesOutCountsWhatIsNotGivenBack(t *testing.T) {
	var kt KeyTables
	tbl, err := kt.GetTable()
	require.NoError(t, err)
	c, err := kt.GetChunk(3)
	require.NoError(t, err)
	tables, chunks := kt.Out()
	require.Equal(t, [2]int{1, 1}, [2]int{tables, chunks})
	kt.PutChunk(3, c)
	kt.PutTable(tbl)
	tables, chunks = kt.Out()
	require.Equal(t, [2]int{0, 0}, [2]int{tables, chunks})
	kt.Drain()
}
