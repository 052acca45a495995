package core

import (
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestStacksGetPutReuseDrain(t *testing.T) {
	var s Stacks
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

// TestStackGuardPageFaults writes into the guard page in a child process, which must die.
func TestStackGuardPageFaults(t *testing.T) {
	if os.Getenv("GOABT_GUARD_CHILD") == "1" {
		var s Stacks
		st, err := s.Get(16384)
		if err != nil {
			os.Exit(3)
		}
		*(*byte)(st.Base.Pointer()) = 1 // the guard page
		os.Exit(0)                      // not reached if the guard works
	}
	cmd := exec.Command(os.Args[0], "-test.run=TestStackGuardPageFaults")
	cmd.Env = append(os.Environ(), "GOABT_GUARD_CHILD=1")
	err := cmd.Run()
	require.Error(t, err, "writing the guard page must kill the process")
	exit, ok := err.(*exec.ExitError)
	require.True(t, ok)
	require.NotEqual(t, 3, exit.ExitCode(), "the stack was mapped")
}

// TestStacksPastTheGuardedLimit takes more stacks than get a guard page each: the rest come
// from slabs, distinct and writable over their whole usable range, and go back for reuse.
func TestStacksPastTheGuardedLimit(t *testing.T) {
	var s Stacks
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
	var s Stacks
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
