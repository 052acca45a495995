package ctests

// Tests of the harness itself: the per-program time limit and the compile-once cache.

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hangingProgram prints a line, forks a child that writes its pid to the file "child.pid"
// in its working directory, and then both wait for a signal that never comes.
const hangingProgram = `#include <stdio.h>
#include <unistd.h>
int main(void)
{
    printf("waiting forever\n");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = fopen("child.pid", "w");
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    for (;;) pause();
}
`

func TestProgramTimeLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "hang.c")
	require.NoError(t, os.WriteFile(src, []byte(hangingProgram), 0o644))
	exe := compile(t, program{path: src}, variant{name: "probe" + strconv.Itoa(os.Getpid())}, plainLibrary)
	t.Cleanup(func() {
		for _, f := range []string{exe, exe + ".cmd", exe + ".d"} {
			os.Remove(f)
		}
	})

	// The limit is 1 s times the way's factor (2 here) times GOABT_TEST_TIMEOUT_SCALE.
	lib := library{name: "probe", timeoutFactor: 2}
	started := time.Now()
	passed, problem := runProgram(lib, exe, nil, true, time.Second, surroundings{environ: os.Environ(), dir: dir})
	elapsed := time.Since(started)
	require.Zero(t, passed)
	require.Contains(t, problem, exe+" killed after", "the program is named")
	require.Contains(t, problem, "its time limit is "+time.Duration(float64(2*time.Second)*timeoutScale).String())
	require.Contains(t, problem, "waiting forever", "what it printed is shown")
	require.Contains(t, problem, "its threads when it was killed (gdb):", "where it hung is shown")
	require.Contains(t, problem, "pause", "its thread's stack is shown")
	require.GreaterOrEqual(t, elapsed, time.Duration(float64(2*time.Second)*timeoutScale))

	// Its child went with it: the whole process group was killed. (Reaped by init, it may be
	// a zombie for a moment.)
	data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return true
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err != nil || strings.Contains(string(stat), ") Z ")
	}, 10*time.Second, 10*time.Millisecond, "the forked child %d outlived the limit", pid)
}

func TestProgramsCompileOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "once.c")
	header := filepath.Join(dir, "once.h")
	require.NoError(t, os.WriteFile(header, []byte("#define ANSWER 1\n"), 0o644))
	require.NoError(t, os.WriteFile(src, []byte("#include <stdio.h>\n#include \"once.h\"\nint main(void) { printf(\"%d passed, 0 failed\\n\", ANSWER); return 0; }\n"), 0o644))
	p := program{path: src}
	v := variant{name: "probe" + strconv.Itoa(os.Getpid())}
	exe := compile(t, p, v, plainLibrary)
	t.Cleanup(func() {
		for _, f := range []string{exe, exe + ".cmd", exe + ".d"} {
			os.Remove(f)
		}
	})
	built := func() time.Time {
		st, err := os.Stat(exe)
		require.NoError(t, err)
		return st.ModTime()
	}
	first := built()

	// Nothing changed: kept.
	require.Equal(t, exe, compile(t, p, v, plainLibrary))
	require.Equal(t, first, built(), "an up-to-date program was compiled again")

	// Another flag: compiled again.
	v.flags = []string{"-DOTHER=1"}
	compile(t, p, v, plainLibrary)
	second := built()
	require.True(t, second.After(first), "a new command line did not recompile")

	// A header it includes changed (dated after the program, as an edit would be): again.
	later := second.Add(time.Second)
	require.NoError(t, os.Chtimes(header, later, later))
	compile(t, p, v, plainLibrary)
	require.True(t, built().After(second), "a changed header did not recompile")
}
