package ctests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// installTree runs `make install` into a fresh prefix and returns it.
func installTree(t *testing.T) string {
	prefix := t.TempDir()
	out, err := exec.Command("make", "-s", "-C", repoRoot, "install", "PREFIX="+prefix).CombinedOutput()
	require.NoError(t, err, "make install\n%s", out)
	return prefix
}

// consumer is a C program as a user would write it against the installed headers.
const consumer = `#include <stdio.h>
#include <abt.h>
#include <goabt.h>
#include <opal/class/opal_object.h>

typedef struct { opal_object_t super; int x; } thing_t;
static void thing_construct(thing_t *t) { t->x = 41; }
OBJ_CLASS_INSTANCE(thing_t, opal_object_t, thing_construct, NULL);

int main(void)
{
    char name[64];
    if (ABT_error_get_str(ABT_ERR_INV_THREAD, name, NULL) != ABT_SUCCESS) return 1;
    ABT_pool pool;
    if (goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool) != ABT_ERR_UNINITIALIZED) return 1;
    thing_t *t = OBJ_NEW(thing_t);
    OBJ_RETAIN(t);
    t->x++;
    printf("%s %d %d\n", name, t->x, t->super.obj_reference_count);
    OBJ_RELEASE(t);
    OBJ_RELEASE(t);
    return t == NULL ? 0 : 1;
}
`

const consumerOutput = "ABT_ERR_INV_THREAD 42 2\n"

func TestInstallTree(t *testing.T) {
	prefix := installTree(t)
	for _, f := range []string{
		"lib/libgoabt.so", "lib/libgoabt-go.so", "lib/libabt.so", "lib/libabt.so.1", "include/abt.h",
		"include/goabt.h",
		"include/opal_object.h", "include/opal/class/opal_object.h",
		"lib/cmake/goabt/goabtConfig.cmake", "lib/cmake/goabt/goabtConfigVersion.cmake",
	} {
		_, err := os.Stat(filepath.Join(prefix, f))
		require.NoError(t, err, "installed %s", f)
	}
	target, err := filepath.EvalSymlinks(filepath.Join(prefix, "lib/libabt.so"))
	require.NoError(t, err)
	require.Equal(t, "libgoabt.so", filepath.Base(target), "libabt.so leads to libgoabt.so")
}

// TestLinkAsLibabt builds a program the way an Argobots user does, with -labt, and runs it on
// goabt.
func TestLinkAsLibabt(t *testing.T) {
	prefix := installTree(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "app.c")
	require.NoError(t, os.WriteFile(src, []byte(consumer), 0o644))
	exe := filepath.Join(dir, "app")
	lib := filepath.Join(prefix, "lib")
	out, err := exec.Command("gcc", "-Wall", "-Wextra", "-Werror", "-I"+filepath.Join(prefix, "include"),
		src, "-o", exe, "-L"+lib, "-labt", "-Wl,-rpath,"+lib).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(exe).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, consumerOutput, string(out))
	// The linker followed libabt.so to goabt and recorded its soname.
	deps, err := exec.Command("readelf", "-d", exe).CombinedOutput()
	require.NoError(t, err)
	require.Contains(t, string(deps), "[libgoabt.so]", "the soname the linker recorded")
}

// chdirApp changes directory before its first goabt call, which must still find the Go core.
const chdirApp = `#include <stdio.h>
#include <unistd.h>
#include <abt.h>
int main(void)
{
    if (chdir("/") != 0) return 2;
    int rc = ABT_init(0, NULL);
    printf("ABT_init %d\n", rc);
    return rc == ABT_SUCCESS && ABT_finalize() == ABT_SUCCESS ? 0 : 1;
}
`

// TestGoCoreFoundFromRelativeLibraryPath runs a program that finds libgoabt.so through a
// relative LD_LIBRARY_PATH entry and changes directory before ABT_init: libgoabt.so loads the Go
// core (libgoabt-go.so) from the directory it was itself loaded from, resolved when it loaded.
func TestGoCoreFoundFromRelativeLibraryPath(t *testing.T) {
	prefix := installTree(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "app.c")
	require.NoError(t, os.WriteFile(src, []byte(chdirApp), 0o644))
	exe := filepath.Join(dir, "app")
	lib := filepath.Join(prefix, "lib")
	out, err := exec.Command("gcc", "-Wall", "-Wextra", "-Werror", "-I"+filepath.Join(prefix, "include"),
		src, "-o", exe, "-L"+lib, "-labt").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd := exec.Command(exe)
	cmd.Dir = prefix
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH=lib")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "ABT_init 0\n", string(out))
}

// TestCMakePackage configures, builds and runs a CMake project that uses find_package(goabt).
func TestCMakePackage(t *testing.T) {
	cmake, err := exec.LookPath("cmake")
	require.NoError(t, err, "cmake is needed: `make test` installs it")
	prefix := installTree(t)
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "app.c"), []byte(consumer), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CMakeLists.txt"), []byte(strings.Join([]string{
		"cmake_minimum_required(VERSION 3.13)",
		"project(consumer C)",
		"find_package(goabt 0.1 REQUIRED)",
		"add_executable(app app.c)",
		"target_compile_options(app PRIVATE -Wall -Wextra -Werror)",
		"target_link_libraries(app PRIVATE goabt::goabt)",
	}, "\n")+"\n"), 0o644))
	build := filepath.Join(proj, "build")
	out, err := exec.Command(cmake, "-S", proj, "-B", build, "-DCMAKE_PREFIX_PATH="+prefix).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(cmake, "--build", build).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(filepath.Join(build, "app")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, consumerOutput, string(out))
}
