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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// programTimeout bounds one C test run; a hung program fails instead of stalling the suite.
const programTimeout = 3 * time.Minute

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

func TestMain(m *testing.M) {
	code := runMain(m)
	// One line that sums up each way of running. go test shows a package's output only when it
	// fails or with -v, so the line goes to a file, which make test prints after go test's lines.
	if line := tally.summary(); line != "" {
		if testing.Verbose() {
			fmt.Println(line)
		}
		_ = os.WriteFile(filepath.Join(binDir, "summary.txt"), []byte(line+"\n"), 0o644)
	}
	os.Exit(code)
}

func runMain(m *testing.M) int {
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	repoRoot = root
	binDir = filepath.Join(repoRoot, "build", "ctests")
	_ = os.Remove(filepath.Join(binDir, "summary.txt"))
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

// counts are the programs of one way of running (plain, checked, ASan, valgrind) that passed, failed
// and were skipped, with the failed ones' names.
type counts struct {
	passed, failed, skipped int
	failedNames             []string
}

// programTally counts each way of running's programs, for the summary line.
type programTally struct {
	mu    sync.Mutex
	order []string
	ways  map[string]*counts
}

var tally = &programTally{order: []string{"plain", "checked", "ASan", "valgrind"}, ways: map[string]*counts{}}

// record counts t, a program's subtest under the way `way`, once it has ended.
func (p *programTally) record(way string, t *testing.T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.ways[way]
	if c == nil {
		c = &counts{}
		p.ways[way] = c
		if !slices.Contains(p.order, way) {
			p.order = append(p.order, way)
		}
	}
	switch {
	case t.Failed():
		c.failed++
		c.failedNames = append(c.failedNames, t.Name())
	case t.Skipped():
		c.skipped++
	default:
		c.passed++
	}
}

// summary is one line: each way's counts, then the failed programs by name; "" if no program
// ran.
func (p *programTally) summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ways) == 0 {
		return ""
	}
	var parts, failed []string
	for _, way := range p.order {
		c := p.ways[way]
		if c == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d passed, %d failed, %d skipped", way, c.passed, c.failed, c.skipped))
		failed = append(failed, c.failedNames...)
	}
	line := "C test programs: " + strings.Join(parts, "; ")
	if len(failed) > 0 {
		line += "; failed: " + strings.Join(failed, " ")
	}
	return line
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
}

func readProgram(t *testing.T, path string) program {
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	p := program{path: path}
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
	name   string   // the way of running, in the summary line: plain, checked, ASan, valgrind
	dir    string   // holds libgoabt.so
	suffix string   // added to executable names
	flags  []string // extra compiler flags
	// checker, if set, runs exe under a checking tool: it gives the command line, and a
	// function that, once the program has ended, says what the tool found ("" for nothing).
	// leaks says whether the tool checks for leaks (not for a program that keeps objects on
	// purpose: ctest-leaks).
	checker func(exe string, leaks bool) (argv []string, findings func() string)
	// keepsEnv is what a program that keeps objects on purpose runs with besides, to turn the
	// tool's own leak check off.
	keepsEnv []string
	// skip lists the programs (base names) or variants (base/variant) this build does not run,
	// with the reason.
	skip map[string]string
	// serial: its programs run one at a time, in one test's turn (under a checker that slows
	// them 20-50x, two at once starved each other's bounded waits). Its whole run is then one
	// of the parallel tests, beside one program of the other builds at a time.
	serial bool
}

var plainLibrary = library{name: "plain", dir: filepath.Join("build", "lib")}

// compile builds one variant of a C test against lib and returns the executable's path.
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
	out, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %s\n%s", strings.Join(args, " "), out)
	return exe
}

var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

// run executes a C test (under lib's checker, if it has one) and checks that it ended with a
// clean summary and exit status 0, and that the checker found nothing.
func run(t *testing.T, lib library, exe string, env []string, leaks bool) {
	ctx, cancel := context.WithTimeout(context.Background(), programTimeout)
	defer cancel()
	argv, findings := []string{exe}, func() string { return "" }
	if lib.checker != nil {
		argv, findings = lib.checker(exe, leaks)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = binDir
	// The safety timeout off: a lost wake-up must hang (and fail) here, not cost 50 ms.
	cmd.Env = append(append(os.Environ(), "GOABT_SAFETY_WAKEUP_MS=off"), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s timed out after %v\n%s", exe, programTimeout, failedLines(out))
	}
	if found := findings(); found != "" {
		t.Fatalf("%s: %s\n%s", exe, failedLines(out), found)
	}
	all := summaryLine.FindAllStringSubmatch(string(out), -1)
	if len(all) == 0 {
		t.Fatalf("%s printed no \"N passed, N failed\" line (%v)\n%s", exe, err, failedLines(out))
	}
	last := all[len(all)-1]
	passed, _ := strconv.Atoi(last[1])
	failed, _ := strconv.Atoi(last[2])
	if err != nil || failed != 0 || passed == 0 {
		t.Fatalf("%s: %d passed, %d failed, exit: %v\n%s", exe, passed, failed, err, failedLines(out))
	}
	t.Logf("%d passed", passed)
}

// failedLines is what a reader of a failed program needs first: its FAIL lines, then its other
// output without the passed checks ("ok" lines), the last 60 lines of it at most.
func failedLines(out []byte) string {
	var fails, rest []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "FAIL"):
			fails = append(fails, l)
		case strings.HasPrefix(l, "ok "):
		default:
			rest = append(rest, l)
		}
	}
	var b strings.Builder
	if len(fails) > 0 {
		b.WriteString("the program's failed checks:\n" + strings.Join(fails, "\n") + "\n")
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
// TestC and the other builds' runs (TestASan, TestAsserts, TestValgrind) are parallel tests:
// they start together, once the sequential tests are done, and share go test's -parallel
// slots (the CPUs). The valgrind run, its programs one after another, takes one slot for its
// whole length, the longest of all; the others' programs take the rest, so that it is not left
// to run alone at the end.
func TestC(t *testing.T) {
	t.Parallel()
	runAll(t, plainLibrary, nil)
}

// runAll runs every C test program against lib, with env added to each program's own, one
// subtest per program and variant.
func runAll(t *testing.T, lib library, env []string) {
	sources, err := filepath.Glob(filepath.Join(repoRoot, "ctests", "c", "*.c"))
	require.NoError(t, err)
	require.NotEmpty(t, sources)
	for _, src := range sources {
		p := readProgram(t, src)
		base := strings.TrimSuffix(filepath.Base(src), ".c")
		for _, v := range p.variants {
			t.Run(base+"/"+v.name, func(t *testing.T) {
				t.Cleanup(func() { tally.record(lib.name, t) })
				if why, ok := lib.skip[base]; ok {
					t.Skip(why)
				}
				if why, ok := lib.skip[base+"/"+v.name]; ok {
					t.Skip(why)
				}
				if !lib.serial {
					t.Parallel()
				}
				leaks := []string{"GOABT_CHECK_LEAKS=fatal"}
				all := append(append([]string{}, env...), p.env...)
				if p.keeps != "" {
					leaks = []string{"GOABT_CHECK_LEAKS=0"}
					all = append(all, lib.keepsEnv...)
				}
				run(t, lib, compile(t, p, v, lib), append(append(leaks, all...), v.env...), p.keeps == "")
			})
		}
	}
}
