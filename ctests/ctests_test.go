// Package ctests builds every C test program in ctests/c against include/ and the freshly
// built libgoabt.so and runs each as a subtest.
//
// A C test prints one line per check and ends with "N passed, N failed" (c/check.h). A program
// may ask to be built several ways with lines of the form
//
//	// ctest-variant: NAME [compiler flags...]
//
// (for example a plain and an OPAL debug build); without such a line it is built once. Fields
// of a variant line that do not start with "-" are environment variables that variant runs
// with (NAME=value): one program run with several configurations.
// Extra linker inputs go on a line "// ctest-libs: -lm", and environment variables the program
// runs with on a line "// ctest-env: GOGC=1".
//
// Each run of a program has a time limit: its own "// ctest-timeout: SECONDS" line, or
// defaultTimeout, times the factor of the way it runs (library.timeoutFactor: plain 1, checked
// 1.5, ASan 3, arm64 10, valgrind 20), times GOABT_TEST_TIMEOUT_SCALE (a number, 1 when unset) for slow
// machines. A program still running then is killed with its whole process group, named, and
// fails, while the others go on: no limit spans the whole run.
//
// A program is compiled once per build of the library and kept in build/ctests: a later run
// compiles it again only when its source, a header it includes (gcc -MMD) or its command line
// changed.
//
// go test -short (make test) leaves out what make check alone runs: the ways ASan and
// valgrind, the install and consumer tests, the MPI run, and the fork and scale programs
// (leftout.go lists every program a way of running leaves out, with the reason).
//
// Every program runs with GOABT_CHECK_LEAKS=fatal: one that does not free what it made (an ABT
// object at the last ABT_finalize, an OPAL object at opal_class_finalize) exits with status 23
// and fails, its leaks listed. A program that keeps objects on purpose says why on a line
// "// ctest-leaks: <reason>" and runs without the check; its own ctest-env or variant lines may
// set GOABT_CHECK_LEAKS otherwise.
package ctests

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// defaultTimeout is a program's time limit, run plainly, when it names none (ctest-timeout):
// the longest take a few seconds on 2 idle cores.
const defaultTimeout = 60 * time.Second

// timeoutScale multiplies every program's limit: GOABT_TEST_TIMEOUT_SCALE, for slow machines.
var timeoutScale = 1.0

// timeoutScaleFromEnv reads GOABT_TEST_TIMEOUT_SCALE: a positive number; 1 when unset.
func timeoutScaleFromEnv() (float64, error) {
	v := os.Getenv("GOABT_TEST_TIMEOUT_SCALE")
	if v == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("GOABT_TEST_TIMEOUT_SCALE=%q: want a positive number (2 doubles every program's time limit)", v)
	}
	return f, nil
}

var (
	repoRoot string
	binDir   string
)

// makeLibrary builds one of the library's builds with make (lib-asan, lib-checked,
// lib-valgrind), its output on stderr, or fails the test.
func makeLibrary(t *testing.T, target string) {
	cmd := exec.Command("make", "-s", target)
	cmd.Dir = repoRoot
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, cmd.Run(), "make %s", target)
}

// TestMain builds the library first: every test needs it. (make test and make check sum up
// the run with ctests/testrun, which counts each way's programs from go test's events.)
func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	repoRoot = root
	binDir = filepath.Join(repoRoot, "build", "ctests")
	scale, err := timeoutScaleFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	timeoutScale = scale
	// make decides what is stale; go build's cache makes an up-to-date library quick.
	cmd := exec.Command("make", "-s", "lib")
	cmd.Dir = repoRoot
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building libgoabt.so:", err)
		return 1
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// variant is one way of building (and running) a C test program.
type variant struct {
	name  string
	flags []string
	env   []string // NAME=value, added to the program's own
}

// program is a C test source with the ways it is built.
type program struct {
	path     string
	variants []variant
	libs     []string
	env      []string
	// keeps says why the program keeps objects past the last ABT_finalize on purpose ("": it
	// frees what it makes, and runs with the leak check fatal).
	keeps string
	// timeout is the program's time limit run plainly (ctest-timeout; defaultTimeout).
	timeout time.Duration
}

func readProgram(t *testing.T, path string) program {
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	p := program{path: path, timeout: defaultTimeout}
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "// ctest-variant:"); ok {
			fields := strings.Fields(rest)
			require.NotEmpty(t, fields, "%s: ctest-variant needs a name", path)
			v := variant{name: fields[0]}
			for _, f := range fields[1:] {
				if strings.HasPrefix(f, "-") {
					v.flags = append(v.flags, f)
				} else {
					require.Contains(t, f, "=", "%s: variant %s: %q is neither a flag nor NAME=value", path, v.name, f)
					v.env = append(v.env, f)
				}
			}
			p.variants = append(p.variants, v)
		}
		if rest, ok := strings.CutPrefix(line, "// ctest-libs:"); ok {
			p.libs = append(p.libs, strings.Fields(rest)...)
		}
		if rest, ok := strings.CutPrefix(line, "// ctest-env:"); ok {
			p.env = append(p.env, strings.Fields(rest)...)
		}
		if rest, ok := strings.CutPrefix(line, "// ctest-timeout:"); ok {
			secs, err := strconv.Atoi(strings.TrimSpace(rest))
			require.NoError(t, err, "%s: ctest-timeout takes whole seconds", path)
			require.Positive(t, secs, "%s: ctest-timeout takes whole seconds", path)
			p.timeout = time.Duration(secs) * time.Second
		}
		if rest, ok := strings.CutPrefix(line, "// ctest-leaks:"); ok {
			p.keeps = strings.TrimSpace(rest)
			require.NotEmpty(t, p.keeps, "%s: ctest-leaks needs a reason", path)
		}
	}
	if len(p.variants) == 0 {
		p.variants = []variant{{name: "default"}}
	}
	return p
}

// library is a build of libgoabt.so the C tests link: the plain one, or a checking build.
type library struct {
	name   string   // the way of running, in the summary line: plain, checked, ASan, valgrind, arm64
	dir    string   // holds libgoabt.so
	suffix string   // added to executable names
	flags  []string // extra compiler flags
	cc     string   // the C compiler its programs are built with ("": gcc)
	// checker, if set, runs exe under a checking tool: it gives the command line, and a
	// function that, once the program has ended, says what the tool found ("" for nothing).
	// leaks says whether the tool checks for leaks (not for a program that keeps objects on
	// purpose: ctest-leaks).
	checker func(exe string, leaks bool) (argv []string, findings func() string)
	// keepsEnv is what a program that keeps objects on purpose runs with besides, to turn the
	// tool's own leak check off.
	keepsEnv []string
	// timeoutFactor multiplies a program's time limit in this way of running: how much slower
	// it runs there.
	timeoutFactor float64
	// serial: its programs run one at a time, in one test's turn (under a checker that slows
	// them 20-50x, two at once starved each other's bounded waits). Its whole run is then one
	// of the parallel tests, beside one program of the other builds at a time.
	serial bool
}

var plainLibrary = library{name: "plain", dir: filepath.Join("build", "lib"), timeoutFactor: 1}

// compile builds one variant of a C test against lib and returns the executable's path. An
// executable built before by the same command line, newer than every file it was made from (its
// source and the headers gcc's -MMD listed), is kept.
func compile(t *testing.T, p program, v variant, lib library) string {
	base := strings.TrimSuffix(filepath.Base(p.path), ".c")
	exe := filepath.Join(binDir, base+"."+v.name+lib.suffix)
	libDir := filepath.Join(repoRoot, lib.dir)
	args := []string{"-Wall", "-Wextra", "-Werror", "-O2", "-g",
		"-I" + filepath.Join(repoRoot, "include"), "-I" + filepath.Join(repoRoot, "ctests", "c")}
	args = append(args, lib.flags...)
	args = append(args, v.flags...)
	args = append(args, p.path, "-o", exe, "-L"+libDir, "-lgoabt", "-Wl,-rpath,"+libDir, "-lpthread")
	args = append(args, p.libs...)
	cc := lib.cc
	if cc == "" {
		cc = "gcc"
	}
	command := cc + " " + strings.Join(args, " ") + "\n"
	if upToDate(exe, command) {
		return exe
	}
	_ = os.Remove(exe + ".cmd")
	args = append(args, "-MMD", "-MF", exe+".d")
	out, err := exec.Command(cc, args...).CombinedOutput()
	require.NoError(t, err, "%s %s\n%s", cc, strings.Join(args, " "), out)
	require.NoError(t, os.WriteFile(exe+".cmd", []byte(command), 0o644))
	return exe
}

// upToDate says whether exe was built by command (kept in exe.cmd) after the last change of
// every file its dependency list (exe.d, from gcc -MMD) names.
func upToDate(exe, command string) bool {
	built, err := os.Stat(exe)
	if err != nil {
		return false
	}
	if prev, err := os.ReadFile(exe + ".cmd"); err != nil || string(prev) != command {
		return false
	}
	deps, err := os.ReadFile(exe + ".d")
	if err != nil {
		return false
	}
	// "exe: a.c b.h \\\n c.h": the target, then the files; no path here has a space.
	_, files, ok := strings.Cut(strings.ReplaceAll(string(deps), "\\\n", " "), ":")
	if !ok {
		return false
	}
	for _, f := range strings.Fields(files) {
		st, err := os.Stat(f)
		if err != nil || !st.ModTime().Before(built.ModTime()) {
			return false
		}
	}
	return true
}

// threadStacks is what gdb, attached to process pid for at most 30 s, says of its threads'
// stacks (the innermost 24 frames of each), and the last passed check is in the program's
// output: together, where a program that hung was. Empty without gdb.
func threadStacks(pid int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb", "-p", strconv.Itoa(pid), "-batch", "-nx",
		"-ex", "info threads", "-ex", "thread apply all bt 24").CombinedOutput()
	if err != nil && len(out) == 0 {
		return ""
	}
	return "its threads when it was killed (gdb):\n" + string(out)
}

var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

// run executes a C test (under lib's checker, if it has one) within its time limit and checks
// that it ended with a clean summary and exit status 0, and that the checker found nothing.
func run(t *testing.T, lib library, exe string, env []string, leaks bool, timeout time.Duration, where surroundings) {
	passed, problem := runProgram(lib, exe, env, leaks, timeout, where)
	if problem != "" {
		t.Fatal(problem)
	}
	t.Logf("%d passed", passed)
}

// runProgram is run's work: the program's passed checks, or what is wrong.
func runProgram(lib library, exe string, env []string, leaks bool, timeout time.Duration, where surroundings) (int, string) {
	limit := time.Duration(float64(timeout) * lib.timeoutFactor * timeoutScale)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	argv, findings := []string{exe}, func() string { return "" }
	if lib.checker != nil {
		argv, findings = lib.checker(exe, leaks)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = where.dir
	// The safety timeout off: a lost wake-up must hang (and fail) here, not cost 50 ms.
	cmd.Env = append(append(append([]string{}, where.environ...), "GOABT_SAFETY_WAKEUP_MS=off"), env...)
	// At the limit the whole process group goes: the children a program forks, valgrind's. Its
	// threads' stacks are taken first, so that a hang that shows once in many runs says where.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stacks string
	cmd.Cancel = func() error {
		stacks = threadStacks(cmd.Process.Pid)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 10 * time.Second
	started := time.Now()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return 0, fmt.Sprintf("%s killed after %v: its time limit is %v (%v, times %g for the way %s, times GOABT_TEST_TIMEOUT_SCALE %g)\n%s%s",
			exe, time.Since(started).Round(time.Second), limit, timeout, lib.timeoutFactor, lib.name, timeoutScale, failedLines(out), stacks)
	}
	if found := findings(); found != "" {
		return 0, fmt.Sprintf("%s: %s\n%s", exe, failedLines(out), found)
	}
	all := summaryLine.FindAllStringSubmatch(string(out), -1)
	if len(all) == 0 {
		return 0, fmt.Sprintf("%s printed no \"N passed, N failed\" line (%v)\n%s", exe, err, failedLines(out))
	}
	last := all[len(all)-1]
	passed, _ := strconv.Atoi(last[1])
	failed, _ := strconv.Atoi(last[2])
	if err != nil || failed != 0 || passed == 0 {
		return passed, fmt.Sprintf("%s: %d passed, %d failed, exit: %v\n%s", exe, passed, failed, err, failedLines(out))
	}
	return passed, ""
}

// failedLines is what a reader of a failed program needs first: its FAIL lines, then its other
// output without the passed checks ("ok" lines), the last 60 lines of it at most.
func failedLines(out []byte) string {
	var fails, rest []string
	lastPassed := ""
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "FAIL"):
			fails = append(fails, l)
		case strings.HasPrefix(l, "ok "):
			lastPassed = l
		default:
			rest = append(rest, l)
		}
	}
	var b strings.Builder
	if len(fails) > 0 {
		b.WriteString("the program's failed checks:\n" + strings.Join(fails, "\n") + "\n")
	}
	if lastPassed != "" {
		b.WriteString("its last passed check: " + lastPassed + "\n")
	}
	if len(rest) > 60 {
		fmt.Fprintf(&b, "its other output, the last 60 of %d lines:\n", len(rest))
		rest = rest[len(rest)-60:]
	} else {
		b.WriteString("its other output:\n")
	}
	b.WriteString(strings.Join(rest, "\n"))
	return b.String()
}

// TestC compiles and runs every ctests/c/*.c program, one subtest per program and variant.
// TestC and the other builds' runs (TestASan, TestAsserts, TestValgrind, TestArm64) are parallel tests:
// they start together, once the sequential tests are done, and share go test's -parallel
// slots (the CPUs). The valgrind run, its programs one after another, takes one slot for its
// whole length, the longest of all; the others' programs take the rest, so that it is not left
// to run alone at the end.
func TestC(t *testing.T) {
	t.Parallel()
	runAll(t, plainLibrary, nil)
}

// runAll runs every C test program against lib, with env added to each program's own, one
// subtest per program and variant. What this way leaves out (leftOut) is skipped, with the reason.
func runAll(t *testing.T, lib library, env []string) {
	sources, err := filepath.Glob(filepath.Join(repoRoot, "ctests", "c", "*.c"))
	require.NoError(t, err)
	require.NotEmpty(t, sources)
	for _, src := range sources {
		p := readProgram(t, src)
		base := strings.TrimSuffix(filepath.Base(src), ".c")
		for _, v := range p.variants {
			t.Run(base+"/"+v.name, func(t *testing.T) {
				if why := leftOutOf(lib.name, base, v.name); why != "" {
					t.Skip(why)
				}
				if !lib.serial {
					t.Parallel()
				}
				runVariant(t, lib, p, v, env, surroundings{environ: os.Environ(), dir: binDir})
			})
		}
	}
}

// surroundings are what a program starts in besides its own variables: the environment and
// the working directory.
type surroundings struct {
	environ []string
	dir     string
}

// runVariant builds p's variant v against lib and runs it in where, with env and the variant's
// and program's own variables added, and the leak check fatal unless the program keeps objects
// on purpose.
func runVariant(t *testing.T, lib library, p program, v variant, env []string, where surroundings) {
	leaks := []string{"GOABT_CHECK_LEAKS=fatal"}
	all := append(append([]string{}, env...), p.env...)
	if p.keeps != "" {
		leaks = []string{"GOABT_CHECK_LEAKS=0"}
		all = append(all, lib.keepsEnv...)
	}
	run(t, lib, compile(t, p, v, lib), append(append(leaks, all...), v.env...), p.keeps == "", p.timeout, where)
}
