package core

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// mappingGuards is a Stacks that makes its guard pages the way kernels without lightweight
// guard regions need: a mapping and a PROT_NONE page each, up to GuardedStacks.
func mappingGuards() *Stacks { return &Stacks{guard: guardMapping} }

func TestStacksGetPutReuseDrain(t *testing.T) {
	s := mappingGuards()
	page := pageSize()
	a, err := s.Get(16384)
	require.NoError(t, err)
	require.Equal(t, uintptr(16384)+page, a.Size)
	// The usable part is writable.
	usable := unsafe.Slice((*byte)(unsafe.Add(a.Base.Pointer(), page)), a.Size-page)
	usable[0], usable[len(usable)-1] = 1, 2

	small, err := s.Get(100)
	require.NoError(t, err)
	require.Equal(t, uintptr(MinThreadStackSize)+page, small.Size, "at least the minimum")

	require.NoError(t, s.Put(a))
	b, err := s.Get(16000) // rounds to the same 16 KiB
	require.NoError(t, err)
	require.Equal(t, a, b, "a kept stack of the same size is reused")

	var notOurs [16]byte
	require.Error(t, s.Put(StackMapping{Base: AddrOf(unsafe.Pointer(&notOurs[0])), Size: 8192}), "not ours")
	require.NoError(t, s.Put(b))
	require.NoError(t, s.Put(small))
	kept, mapped := s.Kept()
	require.Equal(t, 2, kept)
	require.Equal(t, 2, mapped)
	s.Drain()
	kept, mapped = s.Kept()
	require.Equal(t, 0, kept)
	require.Equal(t, 0, mapped)
}

// TestStackGuardPageFaults writes into the guard page of the last of GOABT_GUARD_CHILD stacks
// in a child process, which must die: the first stack, and with lightweight guards one past
// the count that gets a mapping of its own without them.
func TestStackGuardPageFaults(t *testing.T) {
	if n, err := strconv.Atoi(os.Getenv("GOABT_GUARD_CHILD")); err == nil {
		var s Stacks
		var st StackMapping
		for i := 0; i < n; i++ {
			if st, err = s.Get(16384); err != nil {
				os.Exit(3)
			}
		}
		*(*byte)(st.Base.Pointer()) = 1 // the guard page
		os.Exit(0)                      // not reached if the guard works
	}
	counts := []int{1}
	if (&Stacks{}).LightGuards() {
		counts = append(counts, GuardedStacks+slabStacks+1)
	} else {
		t.Log("no lightweight guard regions in this kernel: stacks past GuardedStacks are not guarded")
	}
	for _, n := range counts {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStackGuardPageFaults$")
		cmd.Env = append(os.Environ(), "GOABT_GUARD_CHILD="+strconv.Itoa(n))
		err := cmd.Run()
		require.Error(t, err, "writing the guard page of stack %d must kill the process", n)
		exit, ok := err.(*exec.ExitError)
		require.True(t, ok)
		require.NotEqual(t, 3, exit.ExitCode(), "the stacks were mapped")
	}
}

// TestStacksLightGuards: with lightweight guard regions every stack comes from a slab, the
// guards add no memory regions (a slab is one), and stacks go back for reuse.
func TestStacksLightGuards(t *testing.T) {
	var s Stacks
	if !s.LightGuards() {
		t.Skip("this kernel has no MADV_GUARD_INSTALL (Linux 6.13)")
	}
	page := pageSize()
	before := mapsCount(t)
	n := GuardedStacks + 3*slabStacks + 7
	all := make([]StackMapping, 0, n)
	seen := map[Addr]bool{}
	for i := 0; i < n; i++ {
		st, err := s.Get(16384)
		require.NoError(t, err)
		require.Equal(t, uintptr(16384)+page, st.Size)
		require.False(t, seen[st.Base], "stack %d handed out twice", i)
		seen[st.Base] = true
		usable := unsafe.Slice((*byte)(unsafe.Add(st.Base.Pointer(), page)), st.Size-page)
		usable[0], usable[len(usable)-1] = 1, 2
		all = append(all, st)
	}
	own, carved := s.Out()
	require.Zero(t, own, "no stack needs a mapping of its own")
	require.Equal(t, n, carved)
	slabs := (n + slabStacks - 1) / slabStacks
	require.LessOrEqual(t, mapsCount(t)-before, slabs+16, "one region a slab at most, guards none")
	last := all[len(all)-1]
	require.NoError(t, s.Put(last))
	again, err := s.Get(16384)
	require.NoError(t, err)
	require.Equal(t, last, again, "a stack given back is reused")
	for _, st := range all {
		require.NoError(t, s.Put(st))
	}
	s.Drain()
	_, carved = s.Out()
	require.Zero(t, carved)
	require.Empty(t, s.slabs, "Drain unmapped the slabs")
}

// mapsCount is how many memory regions the process has.
func mapsCount(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/maps")
	require.NoError(t, err)
	return bytes.Count(b, []byte("\n"))
}

// TestStacksPastTheGuardedLimit takes more stacks than get a guard page each: the rest come
// from slabs, distinct and writable over their whole usable range, and go back for reuse.
func TestStacksPastTheGuardedLimit(t *testing.T) {
	s := mappingGuards()
	page := pageSize()
	n := GuardedStacks + 2*slabStacks + 5
	all := make([]StackMapping, 0, n)
	seen := map[Addr]bool{}
	for i := 0; i < n; i++ {
		st, err := s.Get(16384)
		require.NoError(t, err)
		require.Equal(t, uintptr(16384)+page, st.Size, "same geometry either way")
		require.False(t, seen[st.Base], "stack %d handed out twice", i)
		seen[st.Base] = true
		all = append(all, st)
	}
	guarded, carved := s.Out()
	require.Equal(t, GuardedStacks, guarded)
	require.Equal(t, 2*slabStacks+5, carved)
	for _, st := range all[GuardedStacks:] {
		usable := unsafe.Slice((*byte)(unsafe.Add(st.Base.Pointer(), page)), st.Size-page)
		usable[0], usable[len(usable)-1] = 1, 2 // no overlap with a neighbour: checked below
	}
	for _, st := range all[GuardedStacks:] {
		usable := unsafe.Slice((*byte)(unsafe.Add(st.Base.Pointer(), page)), st.Size-page)
		require.Equal(t, [2]byte{1, 2}, [2]byte{usable[0], usable[len(usable)-1]})
	}
	// A slab stack given back is reused before a new slab is mapped.
	last := all[len(all)-1]
	require.NoError(t, s.Put(last))
	again, err := s.Get(16384)
	require.NoError(t, err)
	require.Equal(t, last, again)
	for _, st := range all {
		require.NoError(t, s.Put(st))
	}
	guarded, carved = s.Out()
	require.Zero(t, guarded)
	require.Zero(t, carved)
	s.Drain()
	_, mapped := s.Kept()
	require.Zero(t, mapped)
}

// TestStacksStrict: with Strict (ABT_STACK_OVERFLOW_CHECK=mprotect_strict) the stacks past
// GuardedStacks get a guard page each too; none comes from a slab.
func TestStacksStrict(t *testing.T) {
	s := mappingGuards()
	s.SetStrict(true)
	n := GuardedStacks + 5
	all := make([]StackMapping, 0, n)
	for i := 0; i < n; i++ {
		st, err := s.Get(8192)
		require.NoError(t, err)
		all = append(all, st)
	}
	guarded, carved := s.Out()
	require.Equal(t, n, guarded)
	require.Zero(t, carved)
	for _, st := range all {
		require.NoError(t, s.Put(st))
	}
	s.SetStrict(false)
	s.Drain()
	_, mapped := s.Kept()
	require.Zero(t, mapped)
}

// TestStacksStrictUsesMprotect: in strict mode a guard is a PROT_NONE page of a mapping of its
// own even where the kernel has lightweight guards, so that a program may lift it with
// mprotect, as it could under Argobots: lifted, the page takes a write.
func TestStacksStrictUsesMprotect(t *testing.T) {
	s := &Stacks{guard: guardLight}
	s.SetStrict(true)
	st, err := s.Get(8192)
	require.NoError(t, err)
	guarded, carved := s.Out()
	require.Equal(t, 1, guarded)
	require.Zero(t, carved)
	m := s.live[st.Base]
	require.NotNil(t, m, "a mapping of its own")
	page := pageSize()
	require.NoError(t, syscall.Mprotect(m[:page], syscall.PROT_READ|syscall.PROT_WRITE))
	m[0] = 1
	require.NoError(t, syscall.Mprotect(m[:page], syscall.PROT_NONE))
	require.NoError(t, s.Put(st))
	s.SetStrict(false)
	s.Drain()
}

// TestStacksHugeSizes: a size no address space holds is refused, not carved with an overflowing
// product (a 2^62-byte stack used to panic in the slab carve), and a large stack gets a mapping
// of its own instead of a slab of 64 of them.
func TestStacksHugeSizes(t *testing.T) {
	for _, guard := range []guardKind{guardLight, guardMapping} {
		s := &Stacks{guard: guard}
		for _, size := range []uintptr{1 << 62, ^uintptr(0), MaxStackSize + 1} {
			_, err := s.Get(size)
			require.Error(t, err, "%#x", size)
		}
		st, err := s.Get(2 << 20)
		require.NoError(t, err)
		guarded, carved := s.Out()
		require.Equal(t, 1, guarded, "a mapping of its own")
		require.Zero(t, carved)
		require.Equal(t, uintptr(2<<20)+pageSize(), st.Size)
		require.NoError(t, s.Put(st))
		s.Drain()
	}
}
