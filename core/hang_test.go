package core

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHangWaitValues(t *testing.T) {
	// ABT_sync_event_type's values, as abt.h numbers them (capi checks them too).
	require.Equal(t, HangWait(0), HangWaitUnknown)
	require.Equal(t, HangWait(2), HangWaitOther)
	require.Equal(t, HangWait(4), HangWaitJoin)
	require.Equal(t, HangWait(10), HangWaitBarrier)
}

func TestHangText(t *testing.T) {
	code := CodeLookup{
		Dladdr: func(a Addr) DlInfo {
			switch a {
			case 0x1000, 0x1010:
				return DlInfo{OK: true, HasFile: true, File: "/bin/prog", Base: 0, Sym: "waiter_a", SymAddr: 0x1000}
			case 0x2000:
				return DlInfo{OK: true, HasFile: true, File: "/lib/libgoabt.so", Base: 0, Sym: "ABT_eventual_wait", SymAddr: 0x1ff0}
			}
			return DlInfo{}
		},
		IsCode: func(a Addr) bool { return a == 0x1010 || a == 0x2000 },
	}
	r := HangReport{Watchdog: 2 * time.Second, Quiet: 2100 * time.Millisecond,
		Streams: []HangStream{{Rank: 0, Primary: true}, {Rank: 1, HasUnit: true, Running: 7, Tasklet: true}},
		Units: []HangUnit{
			{InfoUnit: InfoUnit{ID: 0, Main: true, State: UnitBlocked, LastStream: 0}, Wait: HangWaitJoin, Object: 0xabc},
			{InfoUnit: InfoUnit{ID: 3, State: UnitBlocked, Func: 0x1000, Pool: 0x5, PoolID: 1, LastStream: 1,
				Words: []uint64{0x2000, 42, 0x1010}}, Wait: HangWaitEventual, Object: 0xe1},
			{InfoUnit: InfoUnit{ID: 4, State: UnitBlocked, Func: 0x1000, LastStream: -1}, Wait: HangWaitCond, Deadline: true},
			{InfoUnit: InfoUnit{ID: 7, Tasklet: true, State: UnitRunning, Func: 0x1000, LastStream: 1}, Wait: HangWaitNone},
		}}
	require.Equal(t, 2, r.Waiting(), "the timed wait and the running tasklet do not count")
	text := HangText(r, code)
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		require.True(t, strings.HasPrefix(l, "goabt: "), "%q", l)
	}
	for _, want := range []string{
		"goabt: watchdog (GOABT_WATCHDOG=2): no work unit has run for 2.1 s while 2 wait with nothing due to wake them\n",
		"goabt: execution stream 0 (primary): running its scheduler (no unit)\n",
		"goabt: execution stream 1: running tasklet 7\n",
		"goabt: main ULT 0 [BLOCKED, waiting on join of work unit 0xabc]\n",
		"goabt:   function: main (the program's main thread)\n",
		"goabt: ULT 3 [BLOCKED, waiting on eventual 0xe1]\n",
		"goabt:   function: waiter_a+0x0 in prog, argument (nil)\n",
		"goabt:   pool 1, last on execution stream 1\n",
		"goabt:   code addresses on its stack, newest first:\ngoabt:     ABT_eventual_wait+0x10 in libgoabt.so\ngoabt:     waiter_a+0x10 in prog\n",
		"goabt: ULT 4 [BLOCKED, waiting on condition variable (timed: it wakes by itself)]\n",
		"goabt:   no pool, not run yet\n",
		"goabt: tasklet 7 [RUNNING]\n",
	} {
		require.Contains(t, text, want)
	}
	require.True(t, strings.HasSuffix(text, "goabt: end of the work units\n"))

	sig := HangText(HangReport{Signal: 12}, code)
	require.True(t, strings.HasPrefix(sig, "goabt: signal 12 (GOABT_DUMP_SIGNAL): the work units\n"), sig)
	call := HangText(HangReport{}, code)
	require.True(t, strings.HasPrefix(call, "goabt: goabt_info_print_units: the work units\n"), call)
}
