package core

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLiveObjectsKeepWhatIsNotForgottenInCreationOrder(t *testing.T) {
	var r LiveObjects
	require.Empty(t, r.Take())
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				a := Addr(0x10000*(g+1) + 16*i)
				r.Note(LiveObject{Addr: a, Kind: LeakKey})
				if i%10 != 0 {
					r.Forget(a)
				}
			}
		}(g)
	}
	wg.Wait()
	r.Note(LiveObject{Addr: 0x10000, Kind: LeakPool}) // the same address again: replaced
	r.Forget(0x999)                                   // never noted
	live := r.Take()
	require.Len(t, live, 400)
	for i := 1; i < len(live); i++ {
		require.Less(t, live[i-1].Seq, live[i].Seq)
	}
	last := live[len(live)-1]
	require.Equal(t, Addr(0x10000), last.Addr)
	require.Equal(t, LeakPool, last.Kind)
	require.Empty(t, r.Take(), "Take empties it")
}

func TestLeakReport(t *testing.T) {
	require.Equal(t, "", LeakReport(nil, fakeCode))
	require.Equal(t, "", LeakReport([]Leak{{Kind: -1}, {Kind: LeakObject}}, fakeCode),
		"objects no longer ours are not reported")
	leaks := []Leak{
		{Addr: 0x5000, Kind: LeakSched, Seq: 9, SchedKind: SchedKindPrio, NumPools: 1, Automatic: true},
		{Addr: 0x4000, Kind: LeakPool, Seq: 8, ID: 3, PoolKind: PoolKindFIFOWait},
		{Addr: 0x1000, Kind: LeakULT, Seq: 2, ID: 5, Func: 0x7f0000001000, State: UnitTerminated},
		{Addr: 0x2000, Kind: LeakTasklet, Seq: 1, ID: 4, Func: 0x1010, State: UnitReady},
		{Addr: 0x3000, Kind: LeakKey, Seq: 3, ID: 0},
		{Addr: 0x3100, Kind: LeakKey, Seq: 4, ID: 1, Func: 0x99},
		{Addr: 0x6000, Kind: LeakTimer, Seq: 5},
		{Addr: 0x7000, Kind: LeakSched, Seq: 10, SchedKind: SchedKindDefault, NumPools: 2},
	}
	require.Equal(t, `goabt: GOABT_CHECK_LEAKS: 8 objects the program created were not freed at the last ABT_finalize:
goabt: leaked ULT 5 (function foo at 0x7f0000001000), terminated; free it with ABT_thread_free
goabt: leaked tasklet 4 (function 0x1010 (+0x810)), ready; free it with ABT_task_free
goabt: leaked key 0 (no destructor); free it with ABT_key_free
goabt: leaked key 1 (destructor 0x99); free it with ABT_key_free
goabt: leaked pool 3 (ABT_POOL_FIFO_WAIT); free it with ABT_pool_free
goabt: leaked scheduler 0x5000 (ABT_SCHED_PRIO, 1 pool, automatic); free it with ABT_sched_free
goabt: leaked scheduler 0x7000 (predefined, 2 pools); free it with ABT_sched_free
goabt: leaked timer 0x6000; free it with ABT_timer_free
`, LeakReport(leaks, fakeCode))

	one := LeakReport([]Leak{{Addr: 0x4000, Kind: LeakPool, ID: 2, PoolKind: PoolKindGo, Automatic: true}}, fakeCode)
	require.Equal(t, "goabt: GOABT_CHECK_LEAKS: 1 object the program created was not freed at the last ABT_finalize:\n"+
		"goabt: leaked pool 2 (a Go pool, automatic); free it with ABT_pool_free\n", one)

	var many []Leak
	for i := 0; i < LeakMaxLines+3; i++ {
		many = append(many, Leak{Addr: Addr(0x100 * (i + 1)), Kind: LeakMutex, Seq: uint64(i)})
	}
	text := LeakReport(many, fakeCode)
	require.Equal(t, LeakMaxLines, strings.Count(text, "goabt: leaked mutex 0x"))
	require.True(t, strings.HasSuffix(text, "goabt: leaked 3 more of kind mutex (not listed)\n"))
}

func TestOPALLeakReport(t *testing.T) {
	require.Equal(t, "", OPALLeakReport(nil))
	leaks := []OPALLeak{
		{Addr: 0x30, Seq: 3, Class: 0x2000, ClassName: "gadget_t", InPlace: true, File: "a.c", Line: 7},
		{Addr: 0x10, Seq: 1, Class: 0x1000, ClassName: "widget_t"},
		{Addr: 0x20, Seq: 2, Class: 0x1000, ClassName: "widget_t", File: "a.c", Line: 5},
	}
	require.Equal(t, `goabt: GOABT_CHECK_LEAKS: 3 OPAL objects are still alive at opal_class_finalize:
goabt: class widget_t: 2 objects alive
goabt:   widget_t 0x10 made by OBJ_NEW
goabt:   widget_t 0x20 made by OBJ_NEW at a.c:5
goabt: class gadget_t: 1 object alive
goabt:   gadget_t 0x30 made by OBJ_CONSTRUCT at a.c:7
`, OPALLeakReport(leaks))
	require.True(t, strings.HasPrefix(OPALLeakReport(leaks[:1]),
		"goabt: GOABT_CHECK_LEAKS: 1 OPAL object is still alive at opal_class_finalize:\n"))

	var many []OPALLeak
	for i := 0; i < LeakMaxLines+2; i++ {
		many = append(many, OPALLeak{Addr: Addr(i + 1), Seq: uint64(i), Class: 0x1000, ClassName: "x_t"})
	}
	text := OPALLeakReport(many)
	require.Contains(t, text, fmt.Sprintf("goabt: class x_t: %d objects alive\n", LeakMaxLines+2))
	require.Equal(t, LeakMaxLines, strings.Count(text, "made by OBJ_NEW"))
	require.True(t, strings.HasSuffix(text, "goabt:   and 2 more x_t\n"))
}
