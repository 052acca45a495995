// Command testrun runs go test for make test and make check and sums up what it ran.
//
//	testrun -log DIR -name NAME -- [go test flags] packages...
//	testrun -summary DIR
//
// The first form runs `go test -json` with the flags and packages given, prints as it goes what a
// developer needs (each failed test with its output, each package's result, each program
// runner's end: TestC, TestAsserts ...), and keeps go test's events in DIR/NAME.json and its exit
// status in DIR/NAME.status. It exits 0 even when tests failed, so that make goes on to the
// next run and the summary; only a failure to start go test stops it.
//
// The second form reads every run kept in DIR and prints the summary: for each way of running
// (the C programs against the library, the checked build, ASan, valgrind, arm64 under qemu-user;
// the Go tests) how many tests passed, failed and were skipped; then every failed test by name
// with the first lines of its output; then one line "N passed, N failed, N skipped", the whole.
// A test that started and never ended (go test killed by its -timeout, or a crash) counts as
// failed, and so does a run whose go test failed with no test failed (a build error, a panic
// outside any test). It exits 1 when anything failed.
//
// Only leaf tests are counted: a C program's subtest (TestC/keys_api/default), not TestC.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	logDir := flag.String("log", "", "directory that keeps the run's events (with -name)")
	name := flag.String("name", "", "name of this run in the log directory")
	summaryDir := flag.String("summary", "", "print the summary of the runs kept in this directory")
	flag.Parse()
	switch {
	case *summaryDir != "":
		runs, err := readRuns(*summaryDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testrun:", err)
			os.Exit(2)
		}
		s := summarize(runs)
		s.print(os.Stdout)
		if s.total.failed > 0 {
			os.Exit(1)
		}
	case *logDir != "" && *name != "":
		if err := runGoTest(*logDir, *name, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "testrun:", err)
			os.Exit(2)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: testrun -log DIR -name NAME -- [go test args...] | testrun -summary DIR")
		os.Exit(2)
	}
}

// event is one line of go test -json (cmd/test2json).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// runGoTest runs go test -json args, shows its progress, and keeps its events and exit status.
func runGoTest(dir, name string, args []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(dir, name+".json"))
	if err != nil {
		return err
	}
	defer log.Close()
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	fmt.Printf("%s test %s\n", goCmd, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return err
	}
	p := newProgress(os.Stdout)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		log.Write(line)
		log.Write([]byte{'\n'})
		var e event
		if json.Unmarshal(line, &e) != nil {
			// go test prints some lines as they are (a build's errors): show them.
			fmt.Println(string(line))
			continue
		}
		p.add(e)
	}
	status := 0
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return err
		}
		status = exit.ExitCode()
	}
	return os.WriteFile(filepath.Join(dir, name+".status"), []byte(strconv.Itoa(status)+"\n"), 0o644)
}

// progress prints a run's events as they come, the way a developer reads them: failed tests
// with their output, program runners' ends, packages' results.
type progress struct {
	w      io.Writer
	output map[string][]string // test (package + " " + name) -> its output so far
	parent map[string]bool     // tests that have subtests
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, output: map[string][]string{}, parent: map[string]bool{}}
}

func (p *progress) add(e event) {
	key := e.Package + " " + e.Test
	switch e.Action {
	case "run":
		if i := strings.LastIndex(e.Test, "/"); i >= 0 {
			p.parent[e.Package+" "+e.Test[:i]] = true
		}
	case "output":
		p.output[key] = append(p.output[key], e.Output)
	case "pass", "fail", "skip":
		out := p.output[key]
		delete(p.output, key)
		elapsed := time.Duration(e.Elapsed * float64(time.Second)).Round(100 * time.Millisecond)
		switch {
		case e.Test == "":
			// The package's end: go test's own line is in its output.
			for _, l := range out {
				if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "FAIL") || e.Action == "fail" {
					fmt.Fprint(p.w, l)
				}
			}
		case e.Action == "fail" && !p.parent[key]:
			fmt.Fprintf(p.w, "--- FAIL: %s (%v)\n", e.Test, elapsed)
			for _, l := range testLines(out, 0) {
				fmt.Fprintln(p.w, "    "+l)
			}
		case !strings.Contains(e.Test, "/") && p.parent[key]:
			fmt.Fprintf(p.w, "%-4s %s (%v)\n", map[string]string{"pass": "ok", "fail": "FAIL", "skip": "skip"}[e.Action], e.Test, elapsed)
		}
	}
}

// testLines is a test's own output without go test's framing (=== RUN, --- PASS ...), its
// first max lines (0: all).
func testLines(out []string, max int) []string {
	var lines []string
	for _, o := range out {
		for _, l := range strings.Split(strings.TrimRight(o, "\n"), "\n") {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
				continue
			}
			lines = append(lines, strings.TrimRight(l, " "))
		}
	}
	if max > 0 && len(lines) > max {
		lines = append(lines[:max], fmt.Sprintf("... %d more lines", len(lines)-max))
	}
	return lines
}

// run is one go test run kept in the log directory.
type run struct {
	name   string
	events []event
	status int // go test's exit status; -1 when it was not recorded (testrun itself was killed)
}

func readRuns(dir string) ([]run, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no runs in %s", dir)
	}
	sort.Strings(files)
	var runs []run
	for _, f := range files {
		r := run{name: strings.TrimSuffix(filepath.Base(f), ".json"), status: -1}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(data), "\n") {
			var e event
			if json.Unmarshal([]byte(l), &e) == nil && e.Action != "" {
				r.events = append(r.events, e)
			}
		}
		if s, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".status"); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(s))); err == nil {
				r.status = n
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// ways are the ways of running a test, in the summary's order: a program runner's subtests
// belong to its way; every other test is a Go test.
var ways = []struct{ runner, name string }{
	{"TestC", "plain"},
	{"TestAsserts", "checked"},
	{"TestASan", "ASan"},
	{"TestValgrind", "valgrind"},
	{"TestArm64", "arm64"},
	{"", "Go tests"},
}

func wayOf(test string) string {
	top, _, _ := strings.Cut(test, "/")
	for _, w := range ways {
		if w.runner != "" && w.runner == top {
			return w.name
		}
	}
	return "Go tests"
}

type counts struct{ passed, failed, skipped int }

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.passed, c.failed, c.skipped)
}

// failure is a failed test (or run) and the first lines of what it printed.
type failure struct {
	name  string
	lines []string
}

type summary struct {
	byWay    map[string]*counts
	total    counts
	failures []failure
}

// failureLines is how many lines of a failed test's output the summary shows.
const failureLines = 12

func summarize(runs []run) summary {
	s := summary{byWay: map[string]*counts{}}
	count := func(way string) *counts {
		c := s.byWay[way]
		if c == nil {
			c = &counts{}
			s.byWay[way] = c
		}
		return c
	}
	for _, r := range runs {
		type state struct {
			pkg, name string
			action    string // "" while it runs
			output    []string
		}
		tests := map[string]*state{}
		var order []string
		pkgOutput := map[string][]string{}
		pkgFailed := map[string]bool{}
		for _, e := range r.events {
			if e.Test == "" {
				switch e.Action {
				case "output":
					pkgOutput[e.Package] = append(pkgOutput[e.Package], e.Output)
				case "fail":
					pkgFailed[e.Package] = true
				}
				continue
			}
			key := e.Package + " " + e.Test
			t := tests[key]
			if t == nil {
				t = &state{pkg: e.Package, name: e.Test}
				tests[key] = t
				order = append(order, key)
			}
			switch e.Action {
			case "output":
				t.output = append(t.output, e.Output)
			case "pass", "fail", "skip":
				t.action = e.Action
			}
		}
		hasChildren := map[string]bool{}
		childFailed := map[string]bool{}
		for _, key := range order {
			t := tests[key]
			for n := t.name; strings.Contains(n, "/"); {
				n = n[:strings.LastIndex(n, "/")]
				hasChildren[t.pkg+" "+n] = true
				if t.action != "pass" && t.action != "skip" {
					childFailed[t.pkg+" "+n] = true
				}
			}
		}
		failedHere := 0
		for _, key := range order {
			t := tests[key]
			if hasChildren[key] && (t.action != "fail" || childFailed[key]) {
				// Counted through its subtests, unless it failed by itself.
				continue
			}
			c := count(wayOf(t.name))
			switch t.action {
			case "pass":
				c.passed++
			case "skip":
				c.skipped++
			default:
				c.failed++
				failedHere++
				lines := testLines(t.output, failureLines)
				if t.action == "" {
					lines = append([]string{"did not finish: go test stopped while it ran (its -timeout, or a crash; the package's output follows)"},
						testLines(pkgOutput[t.pkg], failureLines)...)
				}
				s.failures = append(s.failures, failure{name: t.name, lines: lines})
			}
		}
		if failedHere == 0 && (r.status != 0 || len(pkgFailed) > 0) {
			// go test failed with no test failed: a build error, a panic in TestMain.
			c := count("Go tests")
			c.failed++
			var lines []string
			for pkg := range pkgFailed {
				lines = append(lines, testLines(pkgOutput[pkg], failureLines)...)
			}
			what := fmt.Sprintf("go test exited with status %d and no test failed", r.status)
			if r.status == -1 {
				what = "go test's exit status was not recorded (the run was killed)"
			}
			s.failures = append(s.failures, failure{name: "run " + r.name + ": " + what, lines: lines})
		}
	}
	for _, c := range s.byWay {
		s.total.passed += c.passed
		s.total.failed += c.failed
		s.total.skipped += c.skipped
	}
	return s
}

func (s summary) print(w io.Writer) {
	fmt.Fprintln(w, "summary:")
	for _, way := range ways {
		if c := s.byWay[way.name]; c != nil {
			fmt.Fprintf(w, "  %-9s %s\n", way.name, c)
		}
	}
	if len(s.failures) > 0 {
		fmt.Fprintln(w, "failed:")
		for _, f := range s.failures {
			fmt.Fprintln(w, "  "+f.name)
			for _, l := range f.lines {
				fmt.Fprintln(w, "      "+l)
			}
		}
	}
	fmt.Fprintln(w, s.total)
}
