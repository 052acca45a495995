package core

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRoomUnderLeavesGoHeadroom(t *testing.T) {
	const limit = 1 << 30
	for _, h := range []uintptr{GoHeadroom, BulkHeadroom} {
		require.True(t, roomUnder(limit, 0, limit-h, h))
		require.False(t, roomUnder(limit, 0, limit-h+1, h))
		require.True(t, roomUnder(limit, 100<<20, limit-h-(100<<20), h))
		require.False(t, roomUnder(limit, 100<<20, limit-h-(100<<20)+1, h))
		// Past the limit already, or a size past it: no room, and no wrap-around.
		require.False(t, roomUnder(limit, limit+1, 0, h))
		require.False(t, roomUnder(limit, 0, ^uintptr(0), h))
	}
	// What bulk memory leaves, the rest may still take.
	require.True(t, roomUnder(limit, limit-BulkHeadroom, BulkHeadroom-GoHeadroom, GoHeadroom))
}

func TestAddressSpaceUsedReadsStatmWithoutAllocating(t *testing.T) {
	b, err := os.ReadFile("/proc/self/statm")
	require.NoError(t, err)
	pages, err := strconv.ParseUint(strings.Fields(string(b))[0], 10, 64)
	require.NoError(t, err)
	got := addressSpaceUsed()
	// The address space moves a little between the two reads (other goroutines map memory).
	require.InDelta(t, float64(pages*uint64(pageSize())), float64(got), 64<<20)
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = addressSpaceUsed() }))
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = roomFor(1<<20, BulkHeadroom) }))
}
