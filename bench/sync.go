package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// syncOps are bench/c/abt_bench.c's synchronization operations, the labels of their rows, and
// whether a row is judged (the floor is no Argobots call: its ratio is this run's noise).
var syncOps = []struct {
	op, label string
	judged    bool
}{
	{"sync_floor", "floor: 2 locked RMW of one word (no Argobots call)", false},
	{"sync_mutex", "mutex lock + unlock, in a ULT", true},
	{"sync_mutex_main", "mutex lock + unlock, in the main ULT", true},
	{"sync_mutex_handoff", "mutex handed between 2 ULTs, per contended lock", true},
	{"sync_cond", "cond ping-pong, 2 ULTs, per hand-off", true},
	{"sync_eventual", "eventual create + set + wait + free", true},
	{"sync_eventual_trip", "eventual round trip between 2 ULTs", true},
	{"sync_barrier", "barrier of 2 ULTs, per pass", true},
	{"sync_rwlock_rd", "rwlock read lock + unlock, in a ULT", true},
	{"sync_future", "future of 4: create, 4 sets, wait, free", true},
	{"sync_mutex_4x4", "mutex, 4 ULTs per stream contending, per lock", true},
}

// syncRows returns the rows of the synchronization operations by op name.
func syncRows() map[string]rowInfo {
	rows := map[string]rowInfo{}
	for _, o := range syncOps {
		rows[o.op] = rowInfo{o.label, o.judged}
	}
	return rows
}

// syncSuite is the synchronization objects (mutexes, condition variables, eventuals, futures,
// barriers, readers-writer locks): the sync_ operations of bench/c/abt_bench.c against native
// Argobots when the run was given one, as abtSuite.
func syncSuite(root string, native impl) suite {
	rows := syncRows()
	s := argobotsSuite(root, native, "Argobots synchronization",
		func(op string) bool { _, ok := rows[op]; return ok })
	s.rows = rows
	s.rowNote = func(r row, goabt, ref []map[string]string) string {
		switch r.op {
		case "sync_mutex_4x4":
			return spreadNote(r, goabt)
		case "sync_mutex_handoff":
			return handoffNote(r, goabt, ref, s.ref.name)
		}
		return ""
	}
	s.notes = []string{
		"Each run makes its objects, forks its ULTs into the streams' pools (1 stream: the primary's; the",
		"  main ULT waits in ABT_thread_free) and frees them; the figure is the run's wall time over its",
		"  operations (handed: see below). floor: two atomic exchanges of one word in the main thread, no",
		"  Argobots call: what two locked read-modify-writes cost on this machine (goabt's uncontended",
		"  lock + unlock makes two); not judged, its ratio is this run's noise. mutex: lock + unlock",
		"  around an increment of a shared counter. handed: each ULT locks, yields (the other then waits",
		"  for the mutex) and unlocks; ns per lock while both ULTs want the mutex: from the start until",
		"  the first ULT to finish made its last unlock, over the locks of both until then (the other",
		"  then locks alone, uncontended). goabt hands the mutex to a waiter that has lost it for 1 ms",
		"  (none starves), and a ULT finding the mutex held yields and looks again (16 times) before it",
		"  parks; who takes the mutex after an unlock may differ between the two implementations, so",
		"  this row compares the cost of the same program, not the same sequence of locks. The lines on",
		"  it below say, for each, how often the mutex changed hands, when the first ULT ended, and ns",
		"  per lock over the whole run, the locks made alone included.",
		"cond: a turn is lock, ABT_cond_wait while it is the other ULT's turn, pass the turn, signal,",
		"  unlock; ns per turn. eventual: 8 bytes, set to the iteration and read back; the round trip:",
		"  ULT 0 sets one eventual and waits on a second, ULT 1 waits on the first, resets it and sets",
		"  the second (ULT 0 resets it): ns per round trip, two hand-offs. barrier: ABT_barrier_create(2),",
		"  ns per pass of both ULTs. future: 4 compartments, no callback; wait finds it ready.",
		"4 streams x 4 ULTs: 16 ULTs (4 in each stream's pool) lock until N locks have been counted in",
		"  all; ns per counted lock (wall time / N), on this machine's CPUs for 4 streams. In goabt unlock",
		"  wakes the longest waiter, but a running ULT may take the mutex before it runs: a ULT that never",
		"  waits never yields, and the other ULTs of its stream wait for it (the spread line below: how",
		"  evenly goabt's ULTs got the mutex in this run). A waiter that loses for 1 ms is handed the mutex.",
		"Every run checks its counts (operations, critical sections: a lost update shows), that no",
		"  ULT saw another holder inside its critical section or passed the barrier alone, and the",
		"  values read; once per run a future with a callback is checked for readiness and values.",
	}
	return s
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

// handoffNote says, for sync_mutex_handoff, how the locks went in each implementation: how
// often the mutex went from one ULT to the other (per 1000 locks), when the first ULT to finish
// did (a fraction of the run: 1.00, they took turns to the end; 0.50, one made all its locks
// while the other waited, then the other made its own alone, without a rival), and ns per lock
// over the whole run, those made alone included (the row's figure counts the locks until then,
// while both ULTs wanted the mutex).
func handoffNote(r row, goabt, ref []map[string]string, refName string) string {
	type side struct {
		name   string
		rounds []map[string]string
	}
	var parts []string
	for _, sd := range []side{{"goabt", goabt}, {refName, ref}} {
		h, e, b := spread(sd.rounds, "handovers"), spread(sd.rounds, "first_end"), spread(sd.rounds, "all_ns")
		if math.IsNaN(h[0]) || math.IsNaN(e[0]) || math.IsNaN(b[0]) {
			continue
		}
		parts = append(parts, fmt.Sprintf("  %s: %.2f to %.2f handovers per 1000 locks; the first ULT done at %.2f to %.2f\n"+
			"    of the run, %.1f to %.1f ns per lock over the whole run", sd.name, h[0], h[1], e[0], e[1], b[0], b[1]))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s, in each round's median run (%d rounds):\n%s", syncRows()[r.op].label,
		len(goabt), strings.Join(parts, "\n"))
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
