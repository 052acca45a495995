package core

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeCode knows two loaded objects: a program with a static function at 0x1000 (no symbol)
// and a library exporting foo at 0x7f0000001000; code is [0x1000,0x2000) and
// [0x7f0000001000,0x7f0000002000).
var fakeCode = CodeLookup{
	Dladdr: func(a Addr) DlInfo {
		switch {
		case a >= 0x1000 && a < 0x2000:
			return DlInfo{OK: true, HasFile: true, File: "", Base: 0x800}
		case a >= 0x7f0000001000 && a < 0x7f0000002000:
			return DlInfo{OK: true, HasFile: true, File: "/usr/lib/libfoo.so", Base: 0x7f0000000000,
				Sym: "foo", SymAddr: 0x7f0000001000}
		}
		return DlInfo{}
	},
	IsCode: func(a Addr) bool {
		return a >= 0x1000 && a < 0x2000 || a >= 0x7f0000001000 && a < 0x7f0000002000
	},
}

func TestInfoSchedWithPools(t *testing.T) {
	sc := InfoSched{Addr: 0x5000, Kind: SchedKindDefault, Used: SchedMain, Automatic: true,
		Pools: []InfoPool{
			{Addr: 0x6000, ID: 3, Kind: PoolKindFIFOWait, Access: PoolAccessSPSC, HasSize: true, Size: 2, Blocked: 1, Scheds: 1},
			{Addr: 0x7000, ID: 4, Kind: PoolKindUser, Access: PoolAccessMPMC, Data: 0x42},
		}}
	var b strings.Builder
	WriteSched(&b, sc, "", true)
	require.Equal(t, `== scheduler 0x5000 ==
 kind       : BASIC
 used as    : main scheduler of a stream
 automatic  : yes
 finish req.: no
 exit req.  : no
 data       : (nil)
 pools      : 2: 3 4 (by id, in priority order)
  == pool 3 (0x6000) ==
   id         : 3
   kind       : FIFO_WAIT
   access     : SPSC
   automatic  : no
   size       : 2
   blocked    : 1
   schedulers : 1
   data       : (nil)
  == pool 4 (0x7000) ==
   id         : 4
   kind       : user-defined
   access     : MPMC
   automatic  : no
   size       : unknown (no get_size)
   blocked    : 0
   schedulers : 0
   data       : 0x42
`, b.String())
}

func TestInfoStreams(t *testing.T) {
	s := []InfoStream{
		{Addr: 0x1000, Rank: 0, Primary: true, CPUs: []int{0, 1}, Running: 0x2000, Sched: 0x3000,
			SchedKind: SchedKindGo, PoolIDs: []int{0}},
		{Addr: 0x4000, Rank: 1, Terminated: true, FinishReq: true},
	}
	require.Equal(t, `execution streams: 2
== execution stream 0 (0x1000) ==
 rank       : 0
 type       : primary
 state      : RUNNING
 CPUs       : 0 1
 running    : 0x2000
 finish req.: no
 main sched : 0x3000 (goabt's loop with a Go policy (goabt_sched_create_go, GOABT_SCHED))
 pools      : 1: 0 (by id)
== execution stream 1 (0x4000) ==
 rank       : 1
 type       : secondary
 state      : TERMINATED
 running    : (nil)
 finish req.: yes
`, InfoStreamsText(2, s))
	require.False(t, strings.HasPrefix(InfoStreamsText(-1, s[:1]), "execution streams"))
}

func TestInfoUnitAndAttr(t *testing.T) {
	u := InfoUnit{Valid: true, Addr: 0x9000, ID: 7, State: UnitReady, LastStream: -1, Pool: 0x6000,
		PoolID: 3, Func: 0x1234, StackSize: 16384, Migratable: true, Named: true}
	require.Equal(t, `== ULT 7 (0x9000) ==
 id         : 7
 kind       : ULT
 state      : READY
 stream     : none yet
 pool       : 3 (0x6000)
 function   : 0x1234 (the program+0xa34)
 argument   : (nil)
 stack      : none yet, 16384 bytes (goabt's, taken when it first runs)
 migratable : yes
 named      : yes
`, InfoUnitText(u, fakeCode))
	u.Stack, u.Mapped, u.LastStream, u.Func = 0xa0000, true, 1, 0x7f0000001010
	text := InfoUnitText(u, fakeCode)
	require.Contains(t, text, " stream     : 1 (the last it ran on)\n")
	require.Contains(t, text, " function   : 0x7f0000001010 (foo+0x10 in libfoo.so)\n")
	require.Contains(t, text, " stack      : 0xa0000, 16384 bytes (goabt's)\n")
	u.Func = 0x99
	require.Contains(t, InfoUnitText(u, fakeCode), " function   : 0x99 (?)\n")
	task := InfoUnit{Valid: true, Tasklet: true, ID: 8, State: UnitTerminated, LastStream: 0}
	require.Contains(t, InfoUnitText(task, fakeCode), " stack      : none (runs on its stream's stack)\n")

	require.Equal(t, `== ULT attribute 0x100 ==
 stack      : the program's, 0x200
 stack size : 65536
 migratable : no
 migration callback: 0x7f0000001000 (foo+0x0 in libfoo.so), argument 0x1234
`, InfoAttrText(InfoAttr{Addr: 0x100, Stack: 0x200, StackSize: 65536, Callback: 0x7f0000001000,
		CallbackArg: 0x1234}, fakeCode))
	none := InfoAttrText(InfoAttr{Addr: 0x100}, fakeCode)
	require.Contains(t, none, " stack      : goabt allocates it (nil)\n")
	require.Contains(t, none, " migration callback: (nil) (none), argument (nil)\n")
}

func TestInfoStackDump(t *testing.T) {
	u := InfoUnit{Valid: true, Addr: 0x9000, ID: 7, State: UnitBlocked, Stack: 0x10000,
		StackSize: 0x1000, SP: 0x10fd0, Used: 0x30,
		Words: []uint64{0, 0x1010, 0xdead, 0x7f0000001abc, 5, 6}}
	require.Equal(t, `=== ULT 7 (0x9000) ===
state: BLOCKED
stack 0x10000-0x11000: 48 of 4096 bytes in use, 48 shown, from the saved stack pointer up
  0x10fd0: 0000000000000000 0000000000001010 000000000000dead 00007f0000001abc
  0x10ff0: 0000000000000005 0000000000000006
code addresses in it, newest first:
  sp+0x8: 0000000000001010 the program+0x810
  sp+0x18: 00007f0000001abc foo+0xabc in libfoo.so
`, InfoUnitStackText(u, fakeCode))

	say := func(u InfoUnit) string {
		lines := strings.SplitN(InfoUnitStackText(u, fakeCode), "\n", 3)
		return lines[2]
	}
	v := u
	v.Words = []uint64{1, 2}
	require.Contains(t, say(v), "code addresses in it, newest first:\n  none\n")
	v = u
	v.SP = 0x20000
	require.Equal(t, "not printed: the saved stack pointer 0x20000 is outside its stack 0x10000-0x11000\n", say(v))
	v.SP = 0
	require.Equal(t, "unused: the ULT has not run yet (stack 0x10000, 4096 bytes)\n", say(v))
	v.State = UnitRunning
	require.Equal(t, "not printed: the ULT is running\n", say(v))
	v.State = UnitTerminated
	require.Equal(t, "no stack: the ULT has terminated\n", say(v))
	v.Main = true
	require.Equal(t, "not printed: the main ULT runs on the main thread's stack\n", say(v))
	v.Tasklet = true
	require.Equal(t, "no stack: a tasklet runs on its stream's stack\n", say(v))
	require.Equal(t, "=== unknown work unit ===\n", InfoUnitStackText(InfoUnit{}, fakeCode))

	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	d := InfoDump{TimedOut: true, Arrived: 1, Running: 2, Start: start, End: start.Add(time.Second),
		Streams: []InfoDumpStream{{Rank: 0, Addr: 0x1000, Sched: 0x2000, PoolIDs: []int{0, 1}}},
		Pools:   []InfoPoolUnits{{ID: 0, Addr: 0x3000}, {ID: 1, Addr: 0x4000, NoPrintAll: true}}}
	require.Equal(t, `ABT_info_trigger_print_all_thread_stacks: timed out: 1 of 2 execution streams stopped; printing anyway
Start of ULT stacks, 2026-01-02 03:04:05
= execution stream 0 (0x1000): main scheduler 0x2000, pools: 0 1
== work units in pool 0 (0x3000) ==
== work units in pool 1 (0x4000) ==
not printed: the pool has no print_all
End of ULT stacks, 2026-01-02 03:04:06
`, InfoDumpText(d, fakeCode))
}

func TestInfoConfig(t *testing.T) {
	c := InfoConfig{Version: "1.2", NumStreams: 2, CPUs: 4, SafetyNS: 50e6, GoPool: "ws",
		CheckLeaks: LeakCheckFatal, Affinity: true, AffinitySets: [][]int{{0, 1}, {}, {3}}}
	answer32 := func(v uint32) (a ConfigAnswer) {
		a.OK = true
		binary.NativeEndian.PutUint32(a.Raw[:], v)
		return a
	}
	c.Answers[0] = answer32(1)    // debug: an ABT_bool
	c.Answers[16] = answer32(256) // max streams: an unsigned int
	c.Answers[17].OK = true       // stack size: a size_t
	binary.NativeEndian.PutUint64(c.Answers[17].Raw[:], 1<<48)
	c.Answers[25] = answer32(0xffffffff) // stack check: an int
	text := InfoConfigText(c)
	require.Equal(t, `goabt configuration (Argobots 1.2 API)
 - debug: yes
 - max execution streams (ABT_MAX_NUM_XSTREAMS): 256
 - default ULT stack size (ABT_THREAD_STACKSIZE): 281474976710656
 - stack overflow check (0 none, 1 canary, 2-3 guard page): -1
 - execution streams now: 2
 - CPUs the process may use: 4
 - safety wake-up (GOABT_SAFETY_WAKEUP_MS): 50 ms
 - Go pool replacing predefined pools (GOABT_POOL): ws
 - Go policy replacing predefined schedulers (GOABT_SCHED): none
 - leak report at finalize (GOABT_CHECK_LEAKS): fatal
 CPU binding (ABT_SET_AFFINITY): rank r on set r mod 3: {0,1},},{3}
`, text)
	c.Affinity, c.SafetyNS, c.CheckLeaks = false, 0, LeakCheckOff
	text = InfoConfigText(c)
	require.Contains(t, text, " - safety wake-up (GOABT_SAFETY_WAKEUP_MS): off\n")
	require.Contains(t, text, " - leak report at finalize (GOABT_CHECK_LEAKS): no\n")
	require.True(t, strings.HasSuffix(text, " CPU binding (ABT_SET_AFFINITY): off\n"))
}
