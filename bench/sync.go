package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
)

// syncOps are bench/c/abt_bench.c's synchronization operations, the labels of their rows, and
// native Argobots 1.2's ns per operation on this machine kind from the project's issue (0: no
// figure; the row is shown, not judged).
var syncOps = []struct {
	op, label string
	recorded  float64
}{
	{"sync_floor", "floor: 2 locked RMW of one word (no Argobots call)", 0},
	{"sync_mutex", "mutex lock + unlock, in a ULT", 9.8},
	{"sync_mutex_main", "mutex lock + unlock, in the main ULT", 9.4},
	{"sync_mutex_handoff", "mutex handed between 2 ULTs, per lock", 50},
	{"sync_cond", "cond ping-pong, 2 ULTs, per hand-off", 57},
	{"sync_eventual", "eventual create + set + wait + free", 118},
	{"sync_eventual_trip", "eventual round trip between 2 ULTs", 110},
	{"sync_barrier", "barrier of 2 ULTs, per pass", 42},
	{"sync_rwlock_rd", "rwlock read lock + unlock, in a ULT", 16},
	{"sync_future", "future of 4: create, 4 sets, wait, free", 103},
	{"sync_mutex_4x4", "mutex, 4 ULTs per stream contending, per lock", 0},
}

// syncRows returns the rows of the synchronization operations by op name, judged where a
// recorded figure stands beside them.
func syncRows() map[string]rowInfo {
	rows := map[string]rowInfo{}
	for _, o := range syncOps {
		rows[o.op] = rowInfo{o.label, o.recorded != 0}
	}
	return rows
}

// syncSuite is the synchronization objects (mutexes, condition variables, eventuals, futures,
// barriers, readers-writer locks): the sync_ operations of bench/c/abt_bench.c against native
// Argobots 1.2 figures recorded earlier, as abtSuite.
func syncSuite(root string) suite {
	rows := syncRows()
	recorded := map[string]float64{}
	for _, o := range syncOps {
		if o.recorded != 0 {
			recorded[o.op] = o.recorded
		}
	}
	return suite{
		title:  "Argobots synchronization",
		source: filepath.Join("bench", "c", "abt_bench.c"),
		goabt:  abtGoabt(root),
		ops:    func(op string) bool { _, ok := rows[op]; return ok },
		ref: impl{
			name:         "Argobots",
			version:      "1.2",
			recorded:     recorded,
			recordedFrom: argobotsRecorded + ", 1 stream; not measured in this run.",
		},
		threads: "streams",
		rows:    rows,
		rowNote: spreadNote,
		notes: append([]string{
			"Each run makes its objects, forks its ULTs into the streams' pools (1 stream: the primary's; the",
			"  main ULT waits in ABT_thread_free) and frees them; the figure is the run's wall time over its",
			"  operations. floor: two atomic exchanges of one word in the main thread, the least an",
			"  uncontended lock + unlock that sees whether anyone waits executes (native Argobots 1.2 and",
			"  goabt both make two locked read-modify-writes): where it is above a recorded figure, that",
			"  figure came from a machine where they cost less. mutex: lock + unlock around an increment",
			"  of a shared counter. handed: each ULT locks, yields (the other then waits for the mutex) and",
			"  unlocks; ns per lock of either ULT. Argobots' unlock wakes the waiter but never hands it the",
			"  mutex: the holder takes it again before the woken ULT runs, so one ULT takes its n locks while",
			"  the other wakes and waits again each time, then the other takes its n alone (half the locks",
			"  uncontended). goabt hands the mutex to a waiter that has lost it for 1 ms (none starves): the",
			"  two alternate and nearly every lock is contended; what keeps that cheap is that a ULT finding",
			"  the mutex held yields and looks again (16 times) before it parks, so most of the lost races",
			"  cost two yields, not a park and a wake-up.",
			"cond: a turn is lock, ABT_cond_wait while it is the other ULT's turn, pass the turn, signal,",
			"  unlock; ns per turn. eventual: 8 bytes, set to the iteration and read back; the round trip:",
			"  ULT 0 sets one eventual and waits on a second, ULT 1 waits on the first, resets it and sets",
			"  the second (ULT 0 resets it): ns per round trip, two hand-offs. barrier: ABT_barrier_create(2),",
			"  ns per pass of both ULTs. future: 4 compartments, no callback; wait finds it ready.",
			"4 streams x 4 ULTs: 16 ULTs (4 in each stream's pool) lock until N locks have been counted in",
			"  all; ns per counted lock (wall time / N), on 2 cores for 4 streams. Not judged: no figure.",
			"  Unlock wakes the longest waiter, but a running ULT may take the mutex before it runs (as in",
			"  Argobots): a ULT that never waits never yields, so the other ULTs of its stream seldom run",
			"  (least 0.00, most up to 16.00). A waiter that loses for 1 ms is handed the mutex.",
			"Every run checks its counts (operations, critical sections: a lost update shows), that no",
			"  ULT saw another holder inside its critical section or passed the barrier alone, and the",
			"  values read; once per run a future with a callback is checked for readiness and values.",
			"Measured once beside a build of Argobots 1.2-era sources on one of our VMs (2026-12-02; this",
			"  bench's abt_bench.c built against both, run alternately, 5 rounds, medians; native/goabt ns):",
			"  floor 12.5/12.5, mutex 18.4/14.6, in the main ULT 18.4/14.8, handed 83.1/68.7, cond",
			"  92.9/85.3, eventual 88.7/37.1, round trip 139.3/109.2, barrier 63.2/55.8, rwlock 41.5/16.8,",
			"  future 110.4/65.9: on the same machine every row costs less in goabt.",
		}, recordedLoadNote...),
	}
}

// spreadNote shows how evenly sync_mutex_4x4's ULTs got the mutex: the lowest and highest
// share of the locks one ULT took (1.00: an even split) in each round's median run.
func spreadNote(r row, rounds []map[string]string) string {
	lo, hi := spread(rounds, "share_min"), spread(rounds, "share_max")
	if math.IsNaN(lo[0]) || math.IsNaN(hi[0]) {
		return ""
	}
	return fmt.Sprintf("%s, %s streams: one ULT's locks over an even\n"+
		"  share (1.00), in each round's median run: fewest %.2f to %.2f, most %.2f to %.2f (%d rounds)",
		syncRows()[r.op].label, r.threads, lo[0], lo[1], hi[0], hi[1], len(rounds))
}

// spread returns the least and greatest value of key over the rounds, NaNs if none has it.
func spread(rounds []map[string]string, key string) [2]float64 {
	out := [2]float64{math.NaN(), math.NaN()}
	for _, f := range rounds {
		x, err := strconv.ParseFloat(f[key], 64)
		if err != nil {
			continue
		}
		if math.IsNaN(out[0]) || x < out[0] {
			out[0] = x
		}
		if math.IsNaN(out[1]) || x > out[1] {
			out[1] = x
		}
	}
	return out
}
