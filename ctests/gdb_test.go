package ctests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGdbExtension drives gdb/goabt-gdb.py with gdb -batch against a hung program: hang_report's
// "eventual" case (two ULTs on each other's eventual, the main ULT joining one), attached live
// once its watchdog report is out (the units are parked then, and have ids), and then its core
// file. goabt ults lists the three units with what they wait on and their functions; goabt
// streams the two streams; goabt ult 1 bt the parked ULT's frames down to its function; and
// the core file gives the same list.
func TestGdbExtension(t *testing.T) {
	checkOnly(t, "gdb against a hung program")
	gdbPath, err := exec.LookPath("gdb")
	require.NoError(t, err, "gdb is needed: `make check` installs it")
	p := readProgram(t, filepath.Join(repoRoot, "ctests", "c", "hang_report.c"))
	exe := compile(t, p, variant{name: "gdbtest"}, plainLibrary)

	child := exec.Command(exe, "eventual")
	child.Env = append(os.Environ(), "GOABT_SAFETY_WAKEUP_MS=off")
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	child.Stderr = child.Stdout
	require.NoError(t, child.Start())
	defer func() {
		_ = child.Process.Kill()
		_ = child.Wait()
	}()
	reported := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if sc.Text() == "goabt: end of the work units" {
				break
			}
		}
		reported <- b.String()
		for sc.Scan() {
		}
	}()
	select {
	case report := <-reported:
		require.Contains(t, report, "goabt: end of the work units", "the watchdog's report:\n%s", report)
	case <-time.After(time.Duration(float64(time.Minute) * timeoutScale)):
		t.Fatal("no watchdog report from the hung program")
	}

	script := filepath.Join(repoRoot, "gdb", "goabt-gdb.py")
	gdbRun := func(args ...string) string {
		argv := append([]string{"-batch", "-nx", "-ex", "source " + script}, args...)
		out, err := exec.Command(gdbPath, argv...).CombinedOutput()
		require.NoError(t, err, "gdb %s\n%s", strings.Join(argv, " "), out)
		return string(out)
	}
	live := gdbRun("-p", itoa(child.Process.Pid), "-ex", "goabt ults", "-ex", "goabt streams", "-ex", "goabt ult 1 bt")
	for _, want := range []string{
		"3 work units not finished",
		"main ULT 0 ",
		"[BLOCKED, waiting on join of work unit 0x",
		"[BLOCKED, waiting on eventual 0x",
		"waits_for_a (0x", "waits_for_b (0x",
		"stream 0 (primary) 0x", "stream 1 0x",
		" in waits_for_b (", " in goabt_wait (", // the parked ULT's frames
	} {
		require.Contains(t, live, want, "gdb said:\n%s", live)
	}

	core := filepath.Join(t.TempDir(), "core")
	gdbRun("-p", itoa(child.Process.Pid), "-ex", "gcore "+core)
	dead := gdbRun(exe, core, "-ex", "goabt ults")
	for _, want := range []string{"3 work units not finished", "waits_for_a (0x", "waits_for_b (0x", "main ULT 0 "} {
		require.Contains(t, dead, want, "gdb on the core file said:\n%s", dead)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
