package ctests

// One Argobots runtime per process. A process that has another Argobots (a libabt.so.1 that is
// not goabt's filter for libgoabt.so) or another copy of libgoabt.so loaded beside goabt's gets
// one line on stderr from goabt, when libgoabt.so loads or at ABT_init, and goabt's ABT_init
// refuses to start (ABT_ERR_OTHER) instead of running a second runtime.
//
// The other Argobots is a stand-in built here (a library whose soname is libabt.so.1 and whose
// ABT_init says it ran), or native Argobots when NATIVE_ARGOBOTS names its libabt.so.1.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// otherArgobots is the stand-in: another runtime that answers to Argobots' soname.
const otherArgobots = `#include <stdio.h>
int ABT_init(int argc, char **argv) { (void)argc; (void)argv; printf("other ABT_init\n"); return 0; }
int ABT_finalize(void) { return 0; }
`

// goabtPlugin is a library linked -lgoabt. goabt_init_rc calls goabt's ABT_init (through
// libgoabt.so's own handle, found from a function only goabt has: the process's ABT_init may be
// the other runtime's) and returns its answer, finalizing again when it started.
const goabtPlugin = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <abt.h>
#include <goabt.h>

int goabt_init_rc(void)
{
    Dl_info info;
    if (dladdr((void *)goabt_pool_create_go, &info) == 0) return -1;
    void *goabt = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (goabt == NULL) return -2;
    int (*init)(int, char **) = (int (*)(int, char **))dlsym(goabt, "ABT_init");
    int (*fin)(void) = (int (*)(void))dlsym(goabt, "ABT_finalize");
    if (init == NULL || fin == NULL) return -3;
    int rc = init(0, NULL);
    if (rc == ABT_SUCCESS && fin() != ABT_SUCCESS) return -4;
    return rc;
}
`

// runtimesProgram starts the process's ABT_init when asked (argv[1] "init"), loads the library
// argv[2] (if given), calls its goabt_init_rc (if it has one) twice, and then, when asked
// (argv[3] "init"), calls the process's ABT_init after the load.
const runtimesProgram = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <abt.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "init") == 0) {
        int rc = ABT_init(0, NULL);
        printf("ABT_init before the load %d\n", rc);
        if (rc == ABT_SUCCESS) ABT_finalize();
    }
    if (argc > 2) {
        void *lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) { printf("%s\n", dlerror()); return 1; }
        int (*goabt_init_rc)(void) = (int (*)(void))dlsym(lib, "goabt_init_rc");
        for (int i = 0; goabt_init_rc != NULL && i < 2; i++) printf("goabt's ABT_init %d\n", goabt_init_rc());
    }
    if (argc > 3 && strcmp(argv[3], "init") == 0) {
        int rc = ABT_init(0, NULL);
        printf("ABT_init after the load %d\n", rc);
        if (rc == ABT_SUCCESS) ABT_finalize();
    }
    return 0;
}
`

// buildC compiles source into out with gcc and the given arguments.
func buildC(t *testing.T, source, out string, args ...string) {
	src := strings.TrimSuffix(out, filepath.Ext(out)) + "-src.c"
	require.NoError(t, os.WriteFile(src, []byte(source), 0o644))
	args = append([]string{"-Wall", "-Wextra", "-Werror", "-I" + filepath.Join(repoRoot, "include"), src, "-o", out}, args...)
	b, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %s\n%s", strings.Join(args, " "), b)
}

// runSplit runs exe with args and env and returns its stdout and stderr.
func runSplit(t *testing.T, env []string, exe string, args ...string) (string, string) {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	return stdout.String(), stderr.String()
}

// requireRefusal checks stderr: exactly one line, goabt's, that names the other library.
func requireRefusal(t *testing.T, stderr, other string) {
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 1, "stderr:\n%s", stderr)
	require.True(t, strings.HasPrefix(lines[0], "goabt: "), "stderr: %s", stderr)
	require.Contains(t, lines[0], other, "the line names the other library")
	require.True(t, strings.HasSuffix(stderr, "\n"))
}

func TestOneRuntimePerProcess(t *testing.T) {
	dir := t.TempDir()
	goabtLib := filepath.Join(repoRoot, "build", "lib")

	stand := filepath.Join(dir, "other")
	require.NoError(t, os.Mkdir(stand, 0o755))
	buildC(t, otherArgobots, filepath.Join(stand, "libabt.so.1"), "-shared", "-fPIC", "-Wl,-soname,libabt.so.1")

	plugin := filepath.Join(dir, "plugin.so")
	buildC(t, goabtPlugin, plugin, "-shared", "-fPIC", "-L"+goabtLib, "-lgoabt", "-Wl,-rpath,"+goabtLib)
	require.Contains(t, neededOf(t, plugin), goabtSoname(t))

	// A program on goabt: -lgoabt, as the C tests link.
	onGoabt := filepath.Join(dir, "on-goabt")
	buildC(t, runtimesProgram, onGoabt, "-L"+goabtLib, "-lgoabt", "-Wl,-rpath,"+goabtLib)

	others := map[string]string{"stand-in": stand}
	if native := os.Getenv("NATIVE_ARGOBOTS"); native != "" {
		nd := filepath.Join(dir, "native")
		require.NoError(t, os.Mkdir(nd, 0o755))
		require.NoError(t, os.Symlink(native, filepath.Join(nd, "libabt.so.1")))
		others["native"] = nd
	} else {
		t.Log("NATIVE_ARGOBOTS is not set: the other Argobots is the stand-in only")
	}

	t.Run("alone", func(t *testing.T) {
		// Nothing else loaded: goabt starts, before and after loading a goabt plugin, silently.
		stdout, stderr := runSplit(t, nil, onGoabt, "init", plugin, "init")
		require.Equal(t, "ABT_init before the load 0\ngoabt's ABT_init 0\ngoabt's ABT_init 0\nABT_init after the load 0\n", stdout)
		require.Empty(t, stderr)
	})

	for name, otherDir := range others {
		other := filepath.Join(otherDir, "libabt.so.1")
		t.Run(name, func(t *testing.T) {
			// The program runs on the other Argobots; a plugin linked -lgoabt loads libgoabt.so,
			// which says so when it loads; goabt's ABT_init refuses, and the line is not repeated.
			onOther := filepath.Join(dir, "on-"+name)
			buildC(t, runtimesProgram, onOther, "-L"+otherDir, "-l:libabt.so.1", "-Wl,-rpath,"+otherDir)
			require.Contains(t, neededOf(t, onOther), "libabt.so.1")
			stdout, stderr := runSplit(t, nil, onOther, "init", plugin)
			want := "ABT_init before the load 0\ngoabt's ABT_init 3\ngoabt's ABT_init 3\n"
			if name == "stand-in" {
				want = "other ABT_init\n" + want
			}
			require.Equal(t, want, stdout)
			requireRefusal(t, stderr, other)

			// The program runs on goabt and loads the other Argobots before ABT_init: ABT_init
			// refuses.
			stdout, stderr = runSplit(t, nil, onGoabt, "-", other, "init")
			require.Equal(t, "ABT_init after the load 3\n", stdout)
			requireRefusal(t, stderr, other)
		})
	}

	t.Run("two libgoabt.so", func(t *testing.T) {
		// A second copy of libgoabt.so, loaded by its path beside the program's: it says so when
		// it loads, and its ABT_init refuses; so does the first copy's, which had not started.
		copyDir := filepath.Join(dir, "copy")
		require.NoError(t, os.Mkdir(copyDir, 0o755))
		for _, f := range []string{"libgoabt.so", "libgoabt-go.so"} {
			b, err := os.ReadFile(filepath.Join(goabtLib, f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(copyDir, f), b, 0o755))
		}
		second := filepath.Join(copyDir, "libgoabt.so")
		stdout, stderr := runSplit(t, nil, onGoabt, "-", second, "init")
		require.Equal(t, "ABT_init after the load 3\n", stdout)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		require.Len(t, lines, 2, "one line from each copy:\n%s", stderr)
		require.Contains(t, lines[0], filepath.Join(goabtLib, "libgoabt.so"), "the second copy names the first")
		require.Contains(t, lines[1], second, "the first copy names the second")
	})
}
