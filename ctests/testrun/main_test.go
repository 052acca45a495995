package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func ev(action, test, output string) event {
	return event{Action: action, Package: "p", Test: test, Output: output}
}

func TestSummaryCountsLeavesByWay(t *testing.T) {
	r := run{name: "ctests", events: []event{
		ev("run", "TestC", ""),
		ev("run", "TestC/a/default", ""),
		ev("pass", "TestC/a/default", ""),
		ev("run", "TestC/b/default", ""),
		ev("output", "TestC/b/default", "=== RUN   TestC/b/default\n"),
		ev("output", "TestC/b/default", "    ctests_test.go:10: b: 1 passed, 1 failed\n"),
		ev("output", "TestC/b/default", "        FAIL x == 1\n"),
		ev("output", "TestC/b/default", "--- FAIL: TestC/b/default (0.10s)\n"),
		ev("fail", "TestC/b/default", ""),
		ev("fail", "TestC", ""),
		ev("run", "TestASan", ""),
		ev("run", "TestASan/a/default", ""),
		ev("skip", "TestASan/a/default", ""),
		ev("pass", "TestASan", ""),
		ev("run", "TestABI", ""),
		ev("pass", "TestABI", ""),
		ev("fail", "", ""),
	}, status: 1}
	s := summarize([]run{r})
	require.Equal(t, counts{passed: 1, failed: 1}, *s.byWay["plain"])
	require.Equal(t, counts{skipped: 1}, *s.byWay["ASan"])
	require.Equal(t, counts{passed: 1}, *s.byWay["Go tests"])
	require.Equal(t, counts{passed: 2, failed: 1, skipped: 1}, s.total)
	require.Len(t, s.failures, 1)
	require.Equal(t, "TestC/b/default", s.failures[0].name)
	require.Equal(t, []string{"    ctests_test.go:10: b: 1 passed, 1 failed", "        FAIL x == 1"}, s.failures[0].lines)

	var out bytes.Buffer
	s.print(&out)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Equal(t, "2 passed, 1 failed, 1 skipped", lines[len(lines)-1], "the last line sums up:\n%s", out.String())
	require.Contains(t, out.String(), "  plain     1 passed, 1 failed, 0 skipped\n")
	require.Contains(t, out.String(), "failed:\n  TestC/b/default\n")
}

func TestSummaryCountsWhatNeverEnded(t *testing.T) {
	// go test's -timeout panics while a program runs: that test never ends.
	r := run{name: "ctests", events: []event{
		ev("run", "TestValgrind", ""),
		ev("run", "TestValgrind/slow/default", ""),
		ev("run", "TestValgrind/quick/default", ""),
		ev("pass", "TestValgrind/quick/default", ""),
		ev("output", "", "panic: test timed out after 1m0s\n"),
		ev("fail", "", ""),
	}, status: 1}
	s := summarize([]run{r})
	require.Equal(t, counts{passed: 1, failed: 1}, *s.byWay["valgrind"])
	require.Len(t, s.failures, 1)
	require.Equal(t, "TestValgrind/slow/default", s.failures[0].name)
	require.Contains(t, strings.Join(s.failures[0].lines, "\n"), "panic: test timed out")
}

func TestSummaryCountsAFailedRunWithoutFailedTests(t *testing.T) {
	build := run{name: "core", events: []event{
		ev("output", "", "core/x.go:1:1: syntax error\n"),
		ev("fail", "", ""),
	}, status: 1}
	killed := run{name: "ctests", events: []event{ev("run", "TestABI", ""), ev("pass", "TestABI", "")}, status: -1}
	s := summarize([]run{build, killed})
	require.Equal(t, counts{passed: 1, failed: 2}, s.total)
	require.Contains(t, s.failures[0].name, "status 1")
	require.Equal(t, []string{"core/x.go:1:1: syntax error"}, s.failures[0].lines)
	require.Contains(t, s.failures[1].name, "not recorded")
}

func TestSummaryCountsAParentThatFailedByItself(t *testing.T) {
	// TestValgrind fails after its subtests passed (or before any ran): it counts once.
	r := run{name: "ctests", events: []event{
		ev("run", "TestValgrind", ""),
		ev("run", "TestValgrind/a/default", ""),
		ev("pass", "TestValgrind/a/default", ""),
		ev("output", "TestValgrind", "    valgrind_test.go:1: make lib-valgrind: exit status 2\n"),
		ev("fail", "TestValgrind", ""),
		ev("fail", "", ""),
	}, status: 1}
	s := summarize([]run{r})
	require.Equal(t, counts{passed: 1, failed: 1}, *s.byWay["valgrind"])
	require.Equal(t, "TestValgrind", s.failures[0].name)
}

func TestRunsAreReadFromTheLog(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"),
		[]byte(`{"Action":"run","Package":"p","Test":"TestX"}`+"\n"+`{"Action":"pass","Package":"p","Test":"TestX"}`+"\nnot json\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.status"), []byte("0\n"), 0o644))
	runs, err := readRuns(dir)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, 0, runs[0].status)
	require.Len(t, runs[0].events, 2)
	_, err = readRuns(t.TempDir())
	require.Error(t, err, "an empty log is an error, not an empty green summary")
}
