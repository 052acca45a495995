package ctests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValgrind runs the C test programs under valgrind's memcheck against the valgrind build of
// the libraries (`make lib-valgrind`, build/valgrind/): a C engine that registers every ULT
// stack with valgrind and prepares the gate's hop to the system stack
// (capi/engine/valgrind_stacks.h), and a Go core built with the valgrind tag, with which the Go
// runtime describes its own heap and goroutine stacks to valgrind. No error is allowed: an invalid read
// or write, a use of uninitialized memory, a bad free, any memcheck report fails the program.
// The only suppressions are the Go runtime's own reports, in valgrind.supp, each with what it
// is and why it is not goabt's. A program built here has GOABT_CTEST_VALGRIND defined: its bounded
// waits are CTEST_SLOW (c/check.h) times longer, and it leaves out what valgrind makes
// meaningless (resident-memory bounds: RSS is mostly valgrind's own there).
//
// How the programs run, and why:
//   - --leak-check=full, definite leaks as errors: a malloc'd block nothing points to at exit
//     fails the program. The Go heap's garbage not yet collected is suppressed (valgrind.supp:
//     the Go runtime describes its heap to valgrind, block by block); goabt's own objects are
//     checked by GOABT_CHECK_LEAKS, which every program runs with (ctests_test.go).
//   - GODEBUG=cpu.rdtscp=off: the Go runtime reads the clock with RDTSCP, which valgrind does
//     not emulate (the program dies of SIGILL).
//   - GODEBUG=asyncpreemptoff=1: Go preempts a goroutine by a signal whose handler makes the
//     goroutine call runtime.asyncPreempt by editing its saved registers, a stack push memcheck
//     does not see: it reports the frame asyncPreempt then writes and reads as invalid (in 7
//     programs; scale_gc also showed invalid writes at arbitrary instructions of the runtime,
//     in typePointers.next and scanObject, where such a signal can land). None with it off.
//     Goroutines are then preempted at function calls only, which changes nothing goabt does:
//     its Go code is short calls from C.
//   - --fair-sched=yes: valgrind runs one thread at a time, and the engine's spin-then-yield
//     waits (spinlocks, a joiner waiting for TERMINATED) spin until the thread they wait for
//     runs; with valgrind's default lock a thread that yields often takes the lock back at
//     once, the fair scheduler hands it over in turn (keys_api: 12 s without it, 2 s with it).
//
// Left out (leftout.go, with the reasons): the scale tests, whose tens of thousands of ULT
// stacks overflow valgrind's table of memory segments, and programs that take too long under
// it or whose bounded waits expire there. Everything else runs: ULT stacks (goabt's and user
// stacks), context switches (directed ones too), the gate into Go, streams, tasklets, user pools
// and schedulers, Go pools through their C entry points, keys and OPAL objects. They run one at a
// time (lib.serial), beside the other builds' programs (TestC).
func TestValgrind(t *testing.T) {
	checkOnly(t, "the C programs under valgrind")
	t.Parallel()
	vg, env := valgrindLibrary(t)
	runAll(t, vg, env)
}

// valgrindLibrary builds the valgrind build of the libraries and returns the way to run programs
// under memcheck against it, and the variables every program runs with there.
func valgrindLibrary(t *testing.T) (library, []string) {
	valgrindPath, err := exec.LookPath("valgrind")
	require.NoError(t, err, "valgrind is needed: `make check` installs it")
	makeLibrary(t, "lib-valgrind")
	suppressions := filepath.Join(repoRoot, "ctests", "valgrind.supp")
	require.FileExists(t, suppressions)

	vg := library{
		name:   "valgrind",
		dir:    filepath.Join("build", "valgrind"),
		suffix: ".vg",
		flags:  []string{"-DGOABT_CTEST_VALGRIND=1"},
		serial: true,
		// Programs run 20-50x slower under memcheck.
		timeoutFactor: 20,
		checker: func(exe string, leaks bool) ([]string, func() string) {
			log := exe + ".valgrind.log"
			_ = os.Remove(log)
			leakCheck := []string{"--leak-check=full", "--show-leak-kinds=definite",
				"--errors-for-leak-kinds=definite"}
			if !leaks {
				leakCheck = []string{"--leak-check=no"}
			}
			argv := append([]string{valgrindPath, "--tool=memcheck", "--error-exitcode=97"}, leakCheck...)
			argv = append(argv, "--fair-sched=yes", "--suppressions="+suppressions,
				"--log-file="+log, exe)
			return argv, func() string { return valgrindFindings(log) }
		},
	}
	// GOGC=off: the Go runtime tells valgrind of each heap block it allocates but not of the
	// blocks its collector frees, so a block reused after a collection is described again over
	// the old one, and valgrind's leak search stops there ("the 'impossible' happened": blocks
	// overlap). Without collections no block is reused; the runs are short enough for that.
	return vg, []string{"GODEBUG=cpu.rdtscp=off,asyncpreemptoff=1", "GOGC=off"}
}

var valgrindBanner = regexp.MustCompile(`^==\d+== (Memcheck, |Copyright |Using Valgrind|Command: |Parent PID: )`)

var errorSummary = regexp.MustCompile(`(?m)^==\d+== ERROR SUMMARY: (\d+) errors`)

// valgrindFindings reads a valgrind log: "" if it holds an error summary and every summary in it
// (one per process: a forked child writes to the same log) counts 0 errors, else what is wrong,
// and the log.
func valgrindFindings(log string) string {
	data, err := os.ReadFile(log)
	if err != nil {
		return fmt.Sprintf("no valgrind log: %v", err)
	}
	text := string(data)
	summaries := errorSummary.FindAllStringSubmatch(text, -1)
	errors := 0
	for _, m := range summaries {
		n, _ := strconv.Atoi(m[1])
		errors += n
	}
	if len(summaries) > 0 && errors == 0 {
		return ""
	}
	// valgrind's banner and its own warnings (about the Go library's debug information) say
	// nothing about the program: the reader gets the error records, 80 lines at most.
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "--") || valgrindBanner.MatchString(l) {
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) > 80 {
		lines = append(lines[:80], fmt.Sprintf("... %d more lines in %s", len(lines)-80, log))
	}
	what := fmt.Sprintf("valgrind found %d errors", errors)
	if len(summaries) == 0 {
		what = "valgrind printed no error summary (did the program die?)"
	}
	return what + " (log " + log + "):\n" + strings.Join(lines, "\n")
}
