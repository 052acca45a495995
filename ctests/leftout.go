package ctests

import (
	"slices"
	"strings"
	"testing"
)

// leftOutEntry is a C program, or one variant of it (program/variant), that a way of running
// does not run, and why.
type leftOutEntry struct {
	// way is "plain", "checked", "ASan", "valgrind" or "arm64" (library.name), or "make test": the plain
	// and checked ways under go test -short, which make test runs (make check runs them).
	way, program, why string
}

// leftOut is the one list of what each way of running leaves out. docs/testing.md's "What the tests
// leave out" shows the same rows (TestLeftOutListInReadme keeps the two equal), and no other
// document restates them.
var leftOut = []leftOutEntry{
	{"make test", "fork", "make check runs it: 200 children, each starting a Go runtime"},
	{"make test", "scale_gc", "make check runs it: a scale program"},
	{"make test", "scale_live", "make check runs it: a scale program"},
	{"make test", "scale_million", "make check runs it: a scale program"},

	{"ASan", "freed_handles/jemalloc", "ASan and a preloaded jemalloc both replace malloc: the program dies before main"},
	{"ASan", "exhaustion", "ASan's shadow memory is terabytes of address space: no limit of ulimit -v's size leaves it room"},

	{"valgrind", "scale_gc", "valgrind's memory-segment table (VG_N_SEGMENTS) overflows with its stacks"},
	{"valgrind", "scale_live", "valgrind's memory-segment table (VG_N_SEGMENTS) overflows with its stacks"},
	{"valgrind", "scale_million", "time: a million ULTs made, run and freed, each a valgrind stack registration"},
	{"valgrind", "fork", "time: 200 children each starting a Go runtime under valgrind (~100 s), and their 60 s alarms fire"},
	{"valgrind", "go_env", "time: the whole Argobots program four ways through Go pools, whose C side runs in go_api"},
	{"valgrind", "exhaustion", "time: 300,000 ULTs made and freed (150 s), each a valgrind stack registration"},
	{"valgrind", "sched_predef", "time: 240 execution streams made and joined, one per trial"},
	{"valgrind", "sync_mutex_mixed", "timing: its hand-over rounds need the main ULT to win a race, which it lost all 30 times under valgrind beside another program"},
	{"valgrind", "stack_guard_place/strict", "it lifts the guard page from inside a SIGSEGV handler and returns into the faulting write, which valgrind reports as invalid accesses of the handler's frames"},
	{"valgrind", "engine_blocking", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "engine_stress", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "engine_wakeup", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "engine_timer_handover", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "robust_handles", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "keys_race", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sched_mixed", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_barrier", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_cond", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_eventual", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_future", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_mutex", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_mutex_order", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_rwlock", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "sync_stress", "time: its bounded waits expired under valgrind on 2 cores"},
	{"valgrind", "opal_race", "valgrind runs one thread at a time, switching between blocks of code: the race it checks for did not happen once in 20 million RETAIN+RELEASE pairs per thread"},

	{"arm64", "hang_report", "it runs itself again (execl): without binfmt_misc the kernel cannot run an aarch64 program, and qemu-user does not follow the exec"},
	{"arm64", "main_stack_split", "qemu-user's main stack is a fixed mapping of its own, not the kernel's grows-down stack whose split this program rebuilds below it"},
	{"arm64", "init_address_limit", "ulimit -v limits qemu-user's process, whose address space holds qemu's own mappings besides the program's: the limits fall elsewhere"},
	{"arm64", "exhaustion", "ulimit -v limits qemu-user's process, whose address space holds qemu's own mappings besides the program's: the limits fall elsewhere"},
	{"arm64", "stack_oom", "ulimit -v limits qemu-user's process, whose address space holds qemu's own mappings besides the program's: the limits fall elsewhere"},
	{"arm64", "stream_address_space", "qemu-user's own thread for each of the program's gets a malloc arena of qemu's glibc: 64 MiB more address space per stream that is not the program's (gone with MALLOC_ARENA_MAX=1 for qemu alone)"},
	{"arm64", "opal_race/abort", "qemu-user fails its own assertions (cpu == current_cpu) in a child forked after the Go core started its threads, once the child starts threads of its own"},
	{"arm64", "freed_handles/jemalloc", "no aarch64 jemalloc here: the cross packages bring the C library only"},
}

// leftOutOf is why the way `way` does not run program base's variant ("" when it runs it).
func leftOutOf(way, base, variant string) string {
	for _, e := range leftOut {
		if e.program != base && e.program != base+"/"+variant {
			continue
		}
		if e.way == way || (e.way == "make test" && testing.Short() && slices.Contains([]string{"plain", "checked"}, way)) {
			return e.why
		}
	}
	return ""
}

// checkOnly skips the test under go test -short (make test): make check runs it.
func checkOnly(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("make check runs it: " + what)
	}
}

// leftOutTable is leftOut as docs/testing.md's table rows.
func leftOutTable() string {
	var b strings.Builder
	b.WriteString("| way | program | why |\n|---|---|---|\n")
	for _, e := range leftOut {
		b.WriteString("| " + e.way + " | `" + e.program + "` | " + e.why + " |\n")
	}
	return b.String()
}
