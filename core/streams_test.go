package core

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRanks(t *testing.T) {
	var r Ranks
	require.Equal(t, 0, r.Take(0))
	require.Equal(t, -1, r.Take(0), "rank 0 is taken")
	require.Equal(t, 1, r.Take(-1), "lowest free")
	require.Equal(t, 5, r.Take(5))
	require.Equal(t, 2, r.Take(-1))
	r.Release(1)
	require.Equal(t, 1, r.Take(-1), "a released rank is reused")
	require.False(t, r.Move(1, 5), "moving onto a taken rank fails")
	require.True(t, r.Move(1, 7))
	require.Equal(t, 1, r.Take(-1), "the old rank is free after a move")
	require.True(t, r.Move(7, 7))
	require.Equal(t, 5, r.InUse())
	r.Reset()
	require.Equal(t, 0, r.InUse())
	require.Equal(t, 0, r.Take(-1))
}

func TestRanksConcurrent(t *testing.T) {
	var r Ranks
	var wg sync.WaitGroup
	got := make([]int, 64)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = r.Take(-1)
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, g := range got {
		assert.False(t, seen[g], "rank %d handed out twice", g)
		assert.True(t, g >= 0 && g < 64)
		seen[g] = true
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	c := ConfigFromEnv(getenv, 2)
	// Mode mprotect (the default) keeps the guard page inside the stack and makes the default
	// two pages larger, as Argobots does; modes none and canary keep Argobots' 16 KiB.
	require.Equal(t, uintptr(DefaultThreadStackSize)+2*pageSize(), c.ThreadStackSize)
	require.Equal(t, 2, c.MaxXstreams)
	for mode, want := range map[string]uintptr{"none": DefaultThreadStackSize, "canary": DefaultThreadStackSize,
		"mprotect": DefaultThreadStackSize + 2*pageSize(), "mprotect_strict": DefaultThreadStackSize + 2*pageSize()} {
		m := map[string]string{"ABT_STACK_OVERFLOW_CHECK": mode}
		require.Equal(t, want, ConfigFromEnv(func(k string) string { return m[k] }, 2).ThreadStackSize, mode)
	}

	env["ABT_THREAD_STACKSIZE"] = "65536"
	require.Equal(t, uintptr(65536), ConfigFromEnv(getenv, 2).ThreadStackSize)
	env["ABT_THREAD_STACKSIZE"] = "20000"
	require.Equal(t, uintptr(20032), ConfigFromEnv(getenv, 2).ThreadStackSize, "rounded up to 64")
	env["ABT_THREAD_STACKSIZE"] = "100"
	require.Equal(t, uintptr(MinThreadStackSize), ConfigFromEnv(getenv, 2).ThreadStackSize, "clamped")
	env["ABT_THREAD_STACKSIZE"] = "lots"
	require.Equal(t, uintptr(DefaultThreadStackSize)+2*pageSize(), ConfigFromEnv(getenv, 2).ThreadStackSize)
	delete(env, "ABT_THREAD_STACKSIZE")
	env["ABT_ENV_THREAD_STACKSIZE"] = "32768"
	require.Equal(t, uintptr(32768), ConfigFromEnv(getenv, 2).ThreadStackSize, "ABT_ENV_ prefix")
	env["ABT_MAX_NUM_XSTREAMS"] = "12"
	require.Equal(t, 12, ConfigFromEnv(getenv, 2).MaxXstreams)
	require.Equal(t, 1, ConfigFromEnv(func(string) string { return "" }, 0).MaxXstreams)
	require.False(t, ConfigFromEnv(getenv, 2).Affinity, "off by default")
	for _, off := range []string{"no", "OFF", "false", "n"} {
		env["ABT_SET_AFFINITY"] = off
		require.False(t, ConfigFromEnv(getenv, 2).Affinity, off)
	}
	for _, on := range []string{"yes", "1", "0"} { // as in Argobots, "0" is a CPU list, not a no
		env["ABT_SET_AFFINITY"] = on
		require.True(t, ConfigFromEnv(getenv, 2).Affinity, on)
	}
	require.False(t, ConfigFromEnv(getenv, 2).CheckLeaks, "off by default")
	env["GOABT_CHECK_LEAKS"] = "0"
	require.False(t, ConfigFromEnv(getenv, 2).CheckLeaks)
	env["GOABT_CHECK_LEAKS"] = "1"
	require.True(t, ConfigFromEnv(getenv, 2).CheckLeaks)

	require.Equal(t, DefaultSafetyWakeup, ConfigFromEnv(getenv, 2).SafetyWakeup)
	for _, off := range []string{"off", "0", "NO"} {
		env["GOABT_SAFETY_WAKEUP_MS"] = off
		require.Zero(t, ConfigFromEnv(getenv, 2).SafetyWakeup, off)
	}
	env["GOABT_SAFETY_WAKEUP_MS"] = "250"
	require.Equal(t, 250*time.Millisecond, ConfigFromEnv(getenv, 2).SafetyWakeup)
	env["GOABT_SAFETY_WAKEUP_MS"] = "soon"
	require.Equal(t, DefaultSafetyWakeup, ConfigFromEnv(getenv, 2).SafetyWakeup, "unparsed: default")

	require.Empty(t, ConfigFromEnv(getenv, 2).Pool)
	require.Empty(t, ConfigFromEnv(getenv, 2).Sched)
	env["GOABT_POOL"] = " ws "
	env["GOABT_SCHED"] = "deadline"
	c = ConfigFromEnv(getenv, 2)
	require.Equal(t, "ws", c.Pool)
	require.Equal(t, "deadline", c.Sched)
}

func TestEnsureProcsNeverLowers(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	EnsureProcs(before + 3)
	require.Equal(t, ProcsFor(before+3), runtime.GOMAXPROCS(0))
	EnsureProcs(1)
	require.Equal(t, ProcsFor(before+3), runtime.GOMAXPROCS(0))
}
