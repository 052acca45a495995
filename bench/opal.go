package main

import (
	"os"
	"path/filepath"
	"regexp"
)

// opalRounds is the rounds of the OPAL table: its operations take a few seconds a round.
const opalRounds = 7

// opalSuite is the OPAL object system: bench/c/opal_bench.c compiled against goabt's
// opal_object.h and libgoabt.so, and against Debian's Open MPI header and libopen-pal.so, both
// through the include line Open MPI programs use ("opal/class/opal_object.h").
func opalSuite(root string) suite {
	lib := filepath.Join(root, "build", "lib")
	s := suite{
		title:  "OPAL object system",
		source: filepath.Join("bench", "c", "opal_bench.c"),
		goabt: impl{
			name:    "goabt",
			binary:  "opal_bench_goabt",
			cflags:  []string{"-I" + filepath.Join(root, "build", "include")},
			ldflags: []string{"-L" + lib, "-lgoabt", "-Wl,-rpath," + lib, "-lpthread"},
		},
		ref:    openMPI(),
		rounds: opalRounds,
		rows: map[string]rowInfo{
			"int_add":                  {"baseline: x++ (off) / atomic add (on), no OPAL code", false},
			"retain_release":           {"OBJ_RETAIN + OBJ_RELEASE", true},
			"new_release":              {"OBJ_NEW + OBJ_RELEASE, 3-level class", true},
			"construct_destruct":       {"OBJ_CONSTRUCT + OBJ_DESTRUCT, stack", true},
			"retain_release_2t":        {"RETAIN + RELEASE, 2 threads, own objects", true},
			"static_retain_release":    {"RETAIN + RELEASE, static object *", true},
			"static_retain_release_2t": {"RETAIN + RELEASE, 2 threads, one static object *", true},
		},
		notes: []string{
			"* OPAL_OBJ_STATIC_INIT object: immortal in goabt (RETAIN/RELEASE write nothing); an ordinary",
			"  object in Open MPI, which has no immortal objects, so its column is what immortality avoids.",
			"2-thread rows: ns per operation as seen by one thread (mean of the two threads), each",
			"  thread on a CPU of its own when the process may use two.",
			"The baseline rows run the same code in both builds: their distance from 1.00 is this run's noise.",
			"Each round runs every operation in a fresh process per build: the rounds' ratios column shows",
			"  how far one pair of processes moved from another in this run.",
		},
	}
	return s
}

// openMPI finds Debian's Open MPI development files (`make bench-deps` installs them).
func openMPI() impl {
	im := impl{name: "Open MPI", binary: "opal_bench_ompi"}
	hdrs, _ := filepath.Glob("/usr/lib/*/openmpi/include/openmpi/opal/class/opal_object.h")
	if len(hdrs) == 0 {
		hdrs, _ = filepath.Glob("/usr/lib/openmpi/include/openmpi/opal/class/opal_object.h")
	}
	if len(hdrs) == 0 {
		im.missing = "opal/class/opal_object.h not found (run `make bench-deps`)"
		return im
	}
	// .../openmpi/include/openmpi/opal/class/opal_object.h
	inner := filepath.Dir(filepath.Dir(filepath.Dir(hdrs[0])))
	outer := filepath.Dir(inner)
	libdir := filepath.Dir(filepath.Dir(outer))
	im.cflags = []string{"-I" + outer, "-I" + inner}
	im.ldflags = []string{"-L" + libdir, "-lopen-pal", "-lpthread"}
	if v, err := os.ReadFile(filepath.Join(inner, "opal", "version.h")); err == nil {
		if m := regexp.MustCompile(`#define OPAL_VERSION "([^"]+)"`).FindSubmatch(v); m != nil {
			im.version = string(m[1])
		}
	}
	return im
}
