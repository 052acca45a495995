package main

import "path/filepath"

// argobotsRecorded begins the line under each Argobots table that says where its reference
// column comes from.
const argobotsRecorded = "Argobots 1.2 column: native Argobots 1.2, measured earlier on this machine kind (2 cores) " +
	"and kept in\n  bench/abt.go and bench/sync.go"

// recordedLoadNote ends the notes of a table against recorded figures.
var recordedLoadNote = []string{
	"The reference does not move with this run's load: a busy machine raises goabt's column, and the",
	"  ratio, alone (see the warning line and the OPAL baseline row).",
}

// abtSuite is the Argobots work units: bench/c/abt_bench.c compiled against goabt's abt.h and
// libgoabt.so. Native Argobots cannot be installed on the benchmark machine (Debian has no
// package), so its column is figures recorded earlier for native Argobots 1.2 on this machine kind,
// not measured in the run. Its key and synchronization operations make tables of their own
// (keysSuite, syncSuite).
func abtSuite(root string) suite {
	const ult, tasklet = "ULT create + join + free", "tasklet create + join + free"
	keys, syncs := keyRows(), syncRows()
	return suite{
		title:  "Argobots work units",
		source: filepath.Join("bench", "c", "abt_bench.c"),
		goabt:  abtGoabt(root),
		ops: func(op string) bool {
			_, key := keys[op]
			_, sync := syncs[op]
			return !key && !sync
		},
		ref: impl{
			name:    "Argobots",
			version: "1.2",
			// ns per operation, native Argobots 1.2, from the project's issue.
			recorded: map[string]float64{
				"ult_1":         69,
				"ult_2":         41,
				"task_1":        28,
				"task_2":        28, // recorded on one stream only; stands for both
				"yield":         28,
				"init_finalize": 1_900_000,
			},
			recordedFrom: argobotsRecorded + "; not measured in this run (native Argobots is not " +
				"installable here):\n  69, 41, 28 ns and 1.9 ms for ULT create+join+free on 1 " +
				"and 2 streams, tasklets and init+finalize,\n  and 28 ns for yield; " +
				"the 1-stream tasklet figure stands for 2 streams too.",
		},
		threads: "streams",
		rows: map[string]rowInfo{
			"ult_1":         {ult, true},
			"ult_2":         {ult, true},
			"task_1":        {tasklet, true},
			"task_2":        {tasklet, true},
			"yield":         {"ABT_thread_yield between 2 ULTs", true},
			"yield_to":      {"ABT_thread_yield_to between 2 ULTs", false},
			"yield_alone":   {"ABT_thread_yield, a ULT alone in its pool", false},
			"yield_main":    {"ABT_thread_yield, the main ULT alone", false},
			"migrate_2":     {"ULT migration round trip between 2 streams", false},
			"init_finalize": {"ABT_init + ABT_finalize", true},
		},
		targets: map[string]float64{
			"ult_1":         2.0,
			"ult_2":         2.0,
			"task_1":        2.0,
			"task_2":        2.0,
			"yield":         2.5,
			"init_finalize": 1.0,
		},
		notes: append([]string{
			"Create + join + free: rounds of 256 creates, then 256 frees (free joins); with 2 streams each",
			"  stream runs such rounds in its own pool at once, and the figure is wall time per unit over both.",
			"yield_to: no native figure was recorded, so the row is shown, not judged; next to yield it shows",
			"  what the direct switch saves (no trip through the scheduler).",
			"Yield alone (a polling loop: nothing else ready on the stream): no native figure recorded, shown,",
			"  not judged; the yielder goes on without a switch, as the scheduler's round would pop it back.",
			"Migration round trip: one ULT moves itself to the other stream's pool and yields, and back;",
			"  no native figure recorded, shown, not judged. Each move wakes the other stream if it slept.",
		}, recordedLoadNote...),
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
	{"self_get", "ABT_self_get_specific *"},
	{"self_set", "ABT_self_set_specific, later *"},
	{"self_set_first", "ABT_self_set_specific, first *"},
	{"thread_get_self", "ABT_thread_get_specific, self"},
	{"thread_set_self", "ABT_thread_set_specific, self, later"},
	{"thread_set_self_first", "ABT_thread_set_specific, self, first"},
	{"thread_get_other", "ABT_thread_get_specific, other ULT"},
	{"thread_set_other", "ABT_thread_set_specific, other ULT, later"},
	{"thread_set_other_first", "ABT_thread_set_specific, other ULT, first"},
}

// keyRows returns the rows of the key operations by op name, judged only where a recorded figure
// stands beside them (keysSuite).
func keyRows() map[string]rowInfo {
	recorded := keyRecorded()
	rows := map[string]rowInfo{}
	for _, k := range keyOps {
		for _, streams := range []string{"_1", "_2"} {
			op := k.op + streams
			_, judged := recorded[op]
			rows[op] = rowInfo{k.label, judged}
			rows["task_"+op] = rowInfo{"tasklet: " + k.label, false}
		}
	}
	return rows
}

// keyRecorded is native Argobots 1.2's ns per key operation on this machine kind, 1 stream, in
// ULTs, from the project's issue; ABT_self_*_specific has no figure of its own and takes
// ABT_key_get/set's, which natively is the same code.
func keyRecorded() map[string]float64 {
	return map[string]float64{
		"key_get_1":                4.6,
		"key_set_1":                6.5,
		"key_set_first_1":          16.2,
		"self_get_1":               4.6,  // key_get_1's
		"self_set_1":               6.5,  // key_set_1's
		"self_set_first_1":         16.2, // key_set_first_1's
		"thread_get_other_1":       2.7,
		"thread_set_other_1":       6.8,
		"thread_set_other_first_1": 12.3,
	}
}

// keysSuite is work-unit-specific data: the key operations of bench/c/abt_bench.c, ns per
// operation timed inside the units (with minus without the accesses), against native Argobots
// 1.2 figures recorded earlier, as abtSuite.
func keysSuite(root string) suite {
	rows := keyRows()
	return suite{
		title:  "Argobots work-unit-specific data (keys)",
		source: filepath.Join("bench", "c", "abt_bench.c"),
		goabt:  abtGoabt(root),
		ops:    func(op string) bool { _, ok := rows[op]; return ok },
		ref: impl{
			name:     "Argobots",
			version:  "1.2",
			recorded: keyRecorded(),
			recordedFrom: argobotsRecorded + ", for 1 stream and ULTs only; not measured in this run. " +
				"* ABT_self_get/set_specific:\n  no figure of their own; natively they are ABT_key_get/set's code, " +
				"whose figures stand in.",
		},
		threads: "streams",
		rows:    rows,
		notes: []string{
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
			"Rows without an Argobots figure (2 streams, tasklets, on self) are shown, not judged.",
		},
	}
}
