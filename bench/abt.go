package main

import "path/filepath"

// argobotsRounds is the rounds of the Argobots tables (work units, keys, synchronization): a round
// runs each of abt_bench.c's ~70 operations once per implementation, about 30 s each.
const argobotsRounds = 3

// abtSuite is the Argobots work units: bench/c/abt_bench.c compiled against goabt's abt.h and
// libgoabt.so, and against native Argobots (its libabt.so.1, with the same abt.h) when the run was
// given one (native: nativeArgobots). Its key and synchronization operations make tables of their
// own (keysSuite, syncSuite).
func abtSuite(root string, native impl) suite {
	const ult, tasklet = "ULT create + join + free", "tasklet create + join + free"
	keys, syncs := keyRows(), syncRows()
	s := argobotsSuite(root, native, "Argobots work units", func(op string) bool {
		_, key := keys[op]
		_, sync := syncs[op]
		return !key && !sync
	})
	s.rows = map[string]rowInfo{
		"ult_1":          {ult, true},
		"ult_2":          {ult, true},
		"task_1":         {tasklet, true},
		"task_2":         {tasklet, true},
		"yield":          {"ABT_thread_yield between 2 ULTs", true},
		"yield_to":       {"ABT_thread_yield_to between 2 ULTs", true},
		"yield_alone":    {"ABT_thread_yield, a ULT alone in its pool", true},
		"yield_main":     {"ABT_thread_yield, the main ULT alone", true},
		"migrate_2":      {"ULT migration round trip between 2 streams", true},
		"migrate_2_busy": {"the same, every CPU busy with another process", true},
		"init_finalize":  {"ABT_init + ABT_finalize", true},
		"cold_init":      {"a process's first ABT_init", true},
		"cold_vsize":     {"its virtual size then, in KiB (not ns)", false},
		"cold_first_ult": {"a process's first ULT create + join + free", true},
	}
	s.targets = map[string]float64{
		"ult_1":          2.0,
		"ult_2":          2.0,
		"task_1":         2.0,
		"task_2":         2.0,
		"yield":          2.5,
		"init_finalize":  1.0,
		"cold_init":      1.5,
		"cold_first_ult": 2.0,
	}
	s.notes = []string{
		"Create + join + free: rounds of 256 creates, then 256 frees (free joins); with 2 streams each",
		"  stream runs such rounds in its own pool at once, and the figure is wall time per unit over both.",
		"yield_to: the same two ULTs, each calling ABT_thread_yield_to(the other) instead of ABT_thread_yield.",
		"Yield alone (a polling loop: nothing else ready on the stream): in goabt the yielder goes on",
		"  without a switch, as the scheduler's round would pop it back.",
		"Migration round trip: one ULT moves itself to the other stream's pool and yields, and back.",
		"  In goabt each move wakes the other stream if it slept. Busy: beside one spinning process",
		"  per CPU (forked before ABT_init), where a stream that sleeps or yields waits for a CPU.",
		"Cold start: 21 fresh processes per round, each timing its first ABT_init and then its first",
		"  ULT; the median. goabt's first ABT_init loads and starts its Go core (libgoabt-go.so).",
		"  Virtual size: VmSize of /proc/self/status in those processes right after ABT_init, KiB.",
	}
	return s
}

// argobotsSuite is a table of bench/c/abt_bench.c, built against goabt and, when the run was
// given one, native Argobots (ref), over the operations ops selects; the caller adds the rows,
// targets and notes.
func argobotsSuite(root string, native impl, title string, ops func(string) bool) suite {
	return suite{
		title:   title,
		source:  filepath.Join("bench", "c", "abt_bench.c"),
		goabt:   abtGoabt(root),
		ops:     ops,
		ref:     native,
		rounds:  argobotsRounds,
		threads: "streams",
	}
}

// abtGoabt is bench/c/abt_bench.c's build against goabt's abt.h and libgoabt.so.
func abtGoabt(root string) impl {
	lib := filepath.Join(root, "build", "lib")
	return impl{
		name:    "goabt",
		binary:  "abt_bench_goabt",
		cflags:  []string{"-I" + filepath.Join(root, "build", "include")},
		ldflags: []string{"-L" + lib, "-lgoabt", "-Wl,-rpath," + lib, "-lpthread"},
	}
}

// keyOps are abt_bench.c's key operations (each with _1 and _2 for 1 and 2 streams, and again
// with task_ before it for tasklets) and the labels of their rows.
var keyOps = []struct{ op, label string }{
	{"key_get", "ABT_key_get"},
	{"key_set", "ABT_key_set, later"},
	{"key_set_first", "ABT_key_set, first"},
	{"self_get", "ABT_self_get_specific"},
	{"self_set", "ABT_self_set_specific, later"},
	{"self_set_first", "ABT_self_set_specific, first"},
	{"thread_get_self", "ABT_thread_get_specific, self"},
	{"thread_set_self", "ABT_thread_set_specific, self, later"},
	{"thread_set_self_first", "ABT_thread_set_specific, self, first"},
	{"thread_get_other", "ABT_thread_get_specific, other ULT"},
	{"thread_set_other", "ABT_thread_set_specific, other ULT, later"},
	{"thread_set_other_first", "ABT_thread_set_specific, other ULT, first"},
}

// keyRows returns the rows of the key operations by op name, all judged.
func keyRows() map[string]rowInfo {
	rows := map[string]rowInfo{}
	for _, k := range keyOps {
		for _, streams := range []string{"_1", "_2"} {
			op := k.op + streams
			rows[op] = rowInfo{k.label, true}
			rows["task_"+op] = rowInfo{"tasklet: " + k.label, true}
		}
	}
	return rows
}

// keysSuite is work-unit-specific data: the key operations of bench/c/abt_bench.c, ns per
// operation timed inside the units (with minus without the accesses), against native Argobots
// when the run was given one, as abtSuite.
func keysSuite(root string, native impl) suite {
	rows := keyRows()
	s := argobotsSuite(root, native, "Argobots work-unit-specific data (keys)",
		func(op string) bool { _, ok := rows[op]; return ok })
	s.rows = rows
	s.notes = []string{
		"ns per key operation: each stream forks and joins rounds of 256 units (ULTs, or tasklets in",
		"  the tasklet rows) as ult_2 does; each unit times its own 16 accesses to one work unit's data",
		"  (clock_gettime around the loop, so create, switch and join stay out), and by turns the same",
		"  rounds time an empty loop; a run's figure is the median over its pairs of rounds of",
		"  (with - without) / (256 x 16). With 2 streams: ns per access as a unit sees it (mean of the streams).",
		"later: the unit (or target) already has a value for the key. first: 16 sets, each into one",
		"  of 16 keys it has no value for yet (making its table is included; freeing it, at the unit's",
		"  free, is not).",
		"other ULT: every unit has a target ULT of its own, created and joined, not freed; for first,",
		"  a fresh target per unit every round. What gets read is summed and checked, and every unit",
		"  reads one value back after its sets: a broken implementation fails instead of a figure.",
		"self: ABT_thread_*_specific on the caller's own handle, from ABT_thread_self in a ULT and",
		"  from ABT_self_get_thread in a tasklet.",
	}
	return s
}
