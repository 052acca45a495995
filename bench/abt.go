package main

import "path/filepath"

// abtSuite is the Argobots work units: bench/c/abt_bench.c compiled against goabt's abt.h and
// libgoabt.so. Native Argobots cannot be installed on the benchmark machine (Debian has no
// package), so its column is figures recorded earlier for native Argobots 1.2 on this machine kind,
// not measured in the run.
func abtSuite(root string) suite {
	lib := filepath.Join(root, "build", "lib")
	const ult, tasklet = "ULT create + join + free", "tasklet create + join + free"
	return suite{
		title:  "Argobots work units",
		source: filepath.Join("bench", "c", "abt_bench.c"),
		goabt: impl{
			name:    "goabt",
			binary:  "abt_bench_goabt",
			cflags:  []string{"-I" + filepath.Join(root, "build", "include")},
			ldflags: []string{"-L" + lib, "-lgoabt", "-Wl,-rpath," + lib, "-lpthread"},
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
			recordedFrom: "Argobots 1.2 column: native Argobots 1.2, measured earlier on this machine kind (2 cores) " +
				"and recorded in\n  the project's issue; not measured in this run (native Argobots is not " +
				"installable here). The issue gives\n  69, 41, 28 ns and 1.9 ms for ULT create+join+free on 1 " +
				"and 2 streams, tasklets and init+finalize;\n  yield (28 ns) comes from " +
				"../shared/design/engine.md; the 1-stream tasklet figure stands for 2 streams too.",
		},
		threads: "streams",
		rows: map[string]rowInfo{
			"ult_1":         {ult, true},
			"ult_2":         {ult, true},
			"task_1":        {tasklet, true},
			"task_2":        {tasklet, true},
			"yield":         {"ABT_thread_yield between 2 ULTs", true},
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
		notes: []string{
			"Create + join + free: rounds of 256 creates, then 256 frees (free joins); with 2 streams each",
			"  stream runs such rounds in its own pool at once, and the figure is wall time per unit over both.",
			"The reference does not move with this run's load: a busy machine raises goabt's column, and the",
			"  ratio, alone (see the warning line and the OPAL baseline row).",
		},
	}
}
