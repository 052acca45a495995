package opal

import (
	"math"
	"sync"
	"testing"
	"unsafe"

	"github.com/goabt/goabt/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goMemory stands in for malloc: it keeps each block reachable until Free and counts calls.
type goMemory struct {
	mu     sync.Mutex
	live   map[core.Addr][]uintptr
	allocs int
	frees  int
}

func newGoMemory() *goMemory { return &goMemory{live: map[core.Addr][]uintptr{}} }

func (m *goMemory) Alloc(size uintptr) core.Addr {
	block := make([]uintptr, size/unsafe.Sizeof(uintptr(0)))
	p := core.AddrOf(unsafe.Pointer(&block[0]))
	m.mu.Lock()
	m.live[p] = block
	m.allocs++
	m.mu.Unlock()
	return p
}

func (m *goMemory) Free(p core.Addr) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live[p]; !ok {
		panic("free of a block not allocated or already freed")
	}
	delete(m.live, p)
	m.frees++
}

func newTestSystem() (*System, *goMemory, *bool, *int32) {
	threads, epoch := new(bool), new(int32)
	*epoch = 1
	mem := newGoMemory()
	return NewSystem(threads, epoch, mem), mem, threads, epoch
}

// fn makes distinct non-nil stand-ins for C function pointers.
func fn() unsafe.Pointer { return unsafe.Pointer(new(byte)) }

// array reads a NULL-terminated array of function pointers.
func array(p core.Addr) []unsafe.Pointer {
	var out []unsafe.Pointer
	for q := (*uintptr)(p.Pointer()); *q != 0; q = (*uintptr)(unsafe.Add(unsafe.Pointer(q), unsafe.Sizeof(*q))) {
		out = append(out, core.Addr(*q).Pointer())
	}
	return out
}

func TestClassLayoutMatchesOpalClassT(t *testing.T) {
	var c Class
	require.Equal(t, uintptr(64), unsafe.Sizeof(c))
	require.Equal(t, uintptr(0), unsafe.Offsetof(c.Name))
	require.Equal(t, uintptr(8), unsafe.Offsetof(c.Parent))
	require.Equal(t, uintptr(16), unsafe.Offsetof(c.Construct))
	require.Equal(t, uintptr(24), unsafe.Offsetof(c.Destruct))
	require.Equal(t, uintptr(32), unsafe.Offsetof(c.Initialized))
	require.Equal(t, uintptr(36), unsafe.Offsetof(c.Depth))
	require.Equal(t, uintptr(40), unsafe.Offsetof(c.Constructs))
	require.Equal(t, uintptr(48), unsafe.Offsetof(c.Destructs))
	require.Equal(t, uintptr(56), unsafe.Offsetof(c.Size))
}

// TestInitializeOrdersFourLevels builds object <- a <- b <- c <- d, where b has no constructor
// and c no destructor: constructors base first, destructors derived first, NULLs skipped.
func TestInitializeOrdersFourLevels(t *testing.T) {
	s, mem, _, _ := newTestSystem()
	object := &Class{Initialized: 1, Depth: 1}
	ca, da, db, cc, cd, dd := fn(), fn(), fn(), fn(), fn(), fn()
	a := &Class{Parent: object, Construct: ca, Destruct: da}
	b := &Class{Parent: a, Destruct: db}
	c := &Class{Parent: b, Construct: cc}
	d := &Class{Parent: c, Construct: cd, Destruct: dd}

	s.InitializeClass(d)
	require.Equal(t, int32(1), d.Initialized)
	require.Equal(t, int32(5), d.Depth)
	require.Equal(t, []unsafe.Pointer{ca, cc, cd}, array(d.Constructs))
	require.Equal(t, []unsafe.Pointer{dd, db, da}, array(d.Destructs))
	require.Equal(t, 1, mem.allocs, "one allocation holds both arrays")

	s.InitializeClass(a)
	require.Equal(t, int32(2), a.Depth, "a class directly under opal_object_t has depth 2")
	require.Equal(t, []unsafe.Pointer{ca}, array(a.Constructs))
	require.Equal(t, []unsafe.Pointer{da}, array(a.Destructs))

	// A class with no constructors or destructors at all gets two empty arrays.
	e := &Class{Parent: object}
	s.InitializeClass(e)
	require.Empty(t, array(e.Constructs))
	require.Empty(t, array(e.Destructs))
}

func TestInitializeTwiceDoesNothing(t *testing.T) {
	s, mem, _, _ := newTestSystem()
	c := &Class{Construct: fn()}
	s.InitializeClass(c)
	first := c.Constructs
	s.InitializeClass(c)
	require.Equal(t, first, c.Constructs)
	require.Equal(t, 1, mem.allocs)
	require.Equal(t, 1, s.InitializedClasses())
}

func TestInitializeRaceBuildsOnce(t *testing.T) {
	s, mem, _, _ := newTestSystem()
	parent := &Class{Construct: fn(), Destruct: fn()}
	c := &Class{Parent: parent, Construct: fn()}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.InitializeClass(c)
			assert.Len(t, array(c.Constructs), 2)
		}()
	}
	wg.Wait()
	require.Equal(t, 1, mem.allocs)
}

func TestFinalizeFreesAndReinitializes(t *testing.T) {
	s, mem, _, epoch := newTestSystem()
	a := &Class{Construct: fn()}
	b := &Class{Parent: a, Destruct: fn()}
	s.InitializeClass(a)
	s.InitializeClass(b)
	require.Equal(t, 2, mem.allocs)

	s.FinalizeClasses()
	require.Equal(t, int32(2), *epoch)
	require.Equal(t, 2, mem.frees, "every array built is freed")
	require.Empty(t, mem.live)
	require.Equal(t, 0, s.InitializedClasses())

	s.InitializeClass(b)
	require.Equal(t, int32(2), b.Initialized)
	require.Len(t, array(b.Constructs), 1)
	require.Equal(t, 3, mem.allocs)

	s.FinalizeClasses()
	require.Equal(t, 3, mem.frees)
}

func TestFinalizeWrapsEpoch(t *testing.T) {
	s, _, _, epoch := newTestSystem()
	*epoch = math.MaxInt32
	s.FinalizeClasses()
	require.Equal(t, int32(1), *epoch)
	require.Equal(t, int32(1), s.Epoch())
}

func TestThreadMode(t *testing.T) {
	s, _, threads, _ := newTestSystem()
	require.False(t, s.UsingThreads())
	require.True(t, s.SetUsingThreads(true))
	require.True(t, *threads)
	require.False(t, s.SetUsingThreads(false))
	require.False(t, *threads)
}
