package ctests

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// installTree runs `make install` into a fresh prefix and returns it.
func installTree(t *testing.T) string {
	prefix := t.TempDir()
	runMake(t, "install", "PREFIX="+prefix)
	return prefix
}

// runMake runs make in the repository with the given target and variables.
func runMake(t *testing.T, args ...string) {
	out, err := exec.Command("make", append([]string{"-s", "-C", repoRoot}, args...)...).CombinedOutput()
	require.NoError(t, err, "make %s\n%s", strings.Join(args, " "), out)
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
		"lib/pkgconfig/argobots.pc", "lib/pkgconfig/goabt.pc",
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
		"find_package(goabt 1.2 REQUIRED)",
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

// headerVersion returns the string a header's `#define NAME "..."` gives.
func headerVersion(t *testing.T, header, name string) string {
	src, err := os.ReadFile(filepath.Join(repoRoot, "include", header))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^#define ` + name + ` "([^"]+)"$`).FindSubmatch(src)
	require.NotNil(t, m, "%s defines %s", header, name)
	return string(m[1])
}

// pkgConfig runs pkg-config with env added to the test's environment and returns its output.
func pkgConfig(t *testing.T, env []string, args ...string) string {
	pc, err := exec.LookPath("pkg-config")
	require.NoError(t, err, "pkg-config is needed: `make test` installs it")
	cmd := exec.Command(pc, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "pkg-config %s\n%s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// buildWithPkgConfig builds the consumer as an Argobots user's Makefile does, with the flags
// `pkg-config --cflags --libs argobots` gives, runs it with libDir as its library path and checks
// its output.
func buildWithPkgConfig(t *testing.T, env []string, libDir string) {
	flags := strings.Fields(pkgConfig(t, env, "--cflags", "--libs", "argobots"))
	require.Contains(t, flags, "-labt")
	dir := t.TempDir()
	src := filepath.Join(dir, "app.c")
	require.NoError(t, os.WriteFile(src, []byte(consumer), 0o644))
	exe := filepath.Join(dir, "app")
	args := append([]string{"-Wall", "-Wextra", "-Werror", src, "-o", exe}, flags...)
	out, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %s\n%s", strings.Join(args, " "), out)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+libDir)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, consumerOutput, string(out))
}

// pkgCheckModulesProject is a CMake project that finds goabt as Argobots' users find Argobots.
var pkgCheckModulesProject = strings.Join([]string{
	"cmake_minimum_required(VERSION 3.13)",
	"project(consumer C)",
	"find_package(PkgConfig REQUIRED)",
	"pkg_check_modules(ABT REQUIRED IMPORTED_TARGET argobots>=1.2)",
	"add_executable(app app.c)",
	"target_compile_options(app PRIVATE -Wall -Wextra -Werror)",
	"target_link_libraries(app PRIVATE PkgConfig::ABT)",
}, "\n") + "\n"

// buildWithCMake configures, builds and runs a CMake project whose source is app.c (the
// consumer), with env added to cmake's environment and the given cache definitions.
func buildWithCMake(t *testing.T, lists string, env []string, defs ...string) {
	cmake, err := exec.LookPath("cmake")
	require.NoError(t, err, "cmake is needed: `make test` installs it")
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "app.c"), []byte(consumer), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CMakeLists.txt"), []byte(lists), 0o644))
	build := filepath.Join(proj, "build")
	cfg := exec.Command(cmake, append([]string{"-S", proj, "-B", build}, defs...)...)
	cfg.Env = append(os.Environ(), env...)
	out, err := cfg.CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(cmake, "--build", build).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(filepath.Join(build, "app")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, consumerOutput, string(out))
}

// TestPkgConfig builds consumers from an installed prefix through argobots.pc: with
// `pkg-config --cflags --libs argobots`, and with CMake's pkg_check_modules; and checks the
// versions both .pc files give.
func TestPkgConfig(t *testing.T) {
	prefix := installTree(t)
	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib", "pkgconfig")}
	require.Equal(t, headerVersion(t, "abt.h", "ABT_VERSION"), pkgConfig(t, env, "--modversion", "argobots"))
	require.Equal(t, headerVersion(t, "goabt.h", "GOABT_VERSION"), pkgConfig(t, env, "--modversion", "goabt"))
	pkgConfig(t, env, "--atleast-version=1.2", "argobots")
	require.Equal(t, "-I"+filepath.Join(prefix, "include"), pkgConfig(t, env, "--cflags", "goabt"))
	require.Equal(t, "-L"+filepath.Join(prefix, "lib")+" -lgoabt", pkgConfig(t, env, "--libs", "goabt"))
	buildWithPkgConfig(t, env, filepath.Join(prefix, "lib"))
	buildWithCMake(t, pkgCheckModulesProject, env)
}

// TestInstallDestdir installs into DESTDIR+PREFIX, as a package build does, and consumes the
// staged tree: pkg-config with PKG_CONFIG_SYSROOT_DIR (the .pc files name PREFIX), CMake's
// pkg_check_modules the same way and find_package(goabt) (relocatable); then uninstalls with the
// same DESTDIR, which leaves the staged prefix empty.
func TestInstallDestdir(t *testing.T) {
	destdir := t.TempDir()
	const prefix = "/opt/goabt-staged"
	runMake(t, "install", "DESTDIR="+destdir, "PREFIX="+prefix)
	staged := filepath.Join(destdir, prefix)
	_, err := os.Stat(prefix)
	require.True(t, os.IsNotExist(err), "nothing written outside DESTDIR")
	pc, err := os.ReadFile(filepath.Join(staged, "lib", "pkgconfig", "argobots.pc"))
	require.NoError(t, err)
	require.Contains(t, string(pc), "prefix="+prefix+"\n", "the .pc file names PREFIX, not DESTDIR")

	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(staged, "lib", "pkgconfig"), "PKG_CONFIG_SYSROOT_DIR=" + destdir}
	buildWithPkgConfig(t, env, filepath.Join(staged, "lib"))
	buildWithCMake(t, pkgCheckModulesProject, env)
	buildWithCMake(t, strings.Join([]string{
		"cmake_minimum_required(VERSION 3.13)",
		"project(consumer C)",
		"find_package(goabt 1.2 REQUIRED)",
		"add_executable(app app.c)",
		"target_link_libraries(app PRIVATE goabt::goabt)",
	}, "\n")+"\n", nil, "-DCMAKE_PREFIX_PATH="+staged)

	runMake(t, "uninstall", "DESTDIR="+destdir, "PREFIX="+prefix)
	require.Empty(t, treeOf(t, staged), "the staged prefix after uninstall")
}

// treeOf lists every file, link and directory under root (relative paths; directories end in
// "/"), sorted.
func treeOf(t *testing.T, root string) []string {
	var tree []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			rel += "/"
		}
		tree = append(tree, rel)
		return nil
	}))
	sort.Strings(tree)
	return tree
}

// TestUninstall: `make uninstall` removes every file install put in a fresh prefix, and every
// directory it made there, so that the prefix is empty again.
func TestUninstall(t *testing.T) {
	prefix := installTree(t)
	require.Contains(t, treeOf(t, prefix), "lib/libgoabt.so")
	runMake(t, "uninstall", "PREFIX="+prefix)
	require.Empty(t, treeOf(t, prefix), "the prefix after uninstall")
}

// TestInstallWithoutAliases installs with ABT_ALIASES=no into a prefix that holds a real
// Argobots (its libraries and argobots.pc): install leaves them alone, uninstall too, and the
// prefix ends as it was. (abt.h is the one name both install: goabt's replaces Argobots'.)
func TestInstallWithoutAliases(t *testing.T) {
	prefix := t.TempDir()
	lib := filepath.Join(prefix, "lib")
	require.NoError(t, os.MkdirAll(filepath.Join(lib, "pkgconfig"), 0o755))
	realLib := []byte("not goabt: a real Argobots\n")
	realPC := []byte("prefix=" + prefix + "\nName: argobots\nDescription: the real one\nVersion: 1.2\nLibs: -labt\n")
	require.NoError(t, os.WriteFile(filepath.Join(lib, "libabt.so.1.0.0"), realLib, 0o755))
	require.NoError(t, os.Symlink("libabt.so.1.0.0", filepath.Join(lib, "libabt.so.1")))
	require.NoError(t, os.Symlink("libabt.so.1", filepath.Join(lib, "libabt.so")))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "pkgconfig", "argobots.pc"), realPC, 0o644))
	before := treeOf(t, prefix)

	runMake(t, "install", "PREFIX="+prefix, "ABT_ALIASES=no")
	for _, f := range []string{"libabt.so", "libabt.so.1"} {
		target, err := filepath.EvalSymlinks(filepath.Join(lib, f))
		require.NoError(t, err)
		require.Equal(t, "libabt.so.1.0.0", filepath.Base(target), "%s still leads to the real Argobots", f)
	}
	pc, err := os.ReadFile(filepath.Join(lib, "pkgconfig", "argobots.pc"))
	require.NoError(t, err)
	require.Equal(t, string(realPC), string(pc), "argobots.pc is the real Argobots'")
	for _, f := range []string{"lib/libgoabt.so", "lib/pkgconfig/goabt.pc", "lib/cmake/goabt/goabtConfig.cmake"} {
		_, err := os.Stat(filepath.Join(prefix, f))
		require.NoError(t, err, "installed %s", f)
	}
	// goabt.pc gives goabt under its own name.
	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(lib, "pkgconfig")}
	require.Equal(t, "-L"+lib+" -lgoabt", pkgConfig(t, env, "--libs", "goabt"))

	runMake(t, "uninstall", "PREFIX="+prefix)
	require.Equal(t, before, treeOf(t, prefix), "the prefix after uninstall is as it was before install")
	got, err := os.ReadFile(filepath.Join(lib, "libabt.so.1.0.0"))
	require.NoError(t, err)
	require.Equal(t, realLib, got)
}

// TestCMakePackageVersions: the package's version is the Argobots API's, 1.2.0; requests for 1.x
// up to 1.2 are accepted, later or other majors refused; a request below 1.0 is compared with
// goabt's own version. One configure asks for each.
func TestCMakePackageVersions(t *testing.T) {
	cmake, err := exec.LookPath("cmake")
	require.NoError(t, err, "cmake is needed: `make test` installs it")
	prefix := installTree(t)
	own := headerVersion(t, "goabt.h", "GOABT_VERSION")
	require.True(t, strings.HasPrefix(own, "0."), "the cases below assume goabt's own version is 0.x, not %s", own)
	want := map[string]bool{"1.2": true, "1.0": true, "1": true, "1.2.0": true, "1.3": false, "2.0": false,
		own: true, "0.99": false}
	lines := []string{"cmake_minimum_required(VERSION 3.13)", "project(versions C)"}
	var requests []string
	for v := range want {
		requests = append(requests, v)
	}
	sort.Strings(requests)
	for _, v := range requests {
		lines = append(lines, "unset(goabt_FOUND)", "find_package(goabt "+v+" QUIET)",
			`message(STATUS "request `+v+`: ${goabt_FOUND}")`)
	}
	lines = append(lines, "find_package(goabt 1.2 EXACT REQUIRED)",
		`message(STATUS "versions: ${goabt_VERSION} ${goabt_ARGOBOTS_VERSION} ${goabt_RUNTIME_VERSION}")`)
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CMakeLists.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	out, err := exec.Command(cmake, "-S", proj, "-B", filepath.Join(proj, "build"), "-DCMAKE_PREFIX_PATH="+prefix).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, v := range requests {
		found := "0"
		if want[v] {
			found = "1"
		}
		require.Contains(t, string(out), "-- request "+v+": "+found+"\n", "find_package(goabt %s)\n%s", v, out)
	}
	require.Contains(t, string(out), "-- versions: 1.2.0 "+headerVersion(t, "abt.h", "ABT_VERSION")+" "+own+"\n")
}

// TestMakeHonoursCC: the C compiler is the CC given on make's command line or in the
// environment, and gcc when none is given (not GNU make's built-in cc). The compiler here is a
// script that records its arguments and makes an empty output: the engine is not compiled, only
// make's choice is checked, in a build directory of the test's own.
func TestMakeHonoursCC(t *testing.T) {
	dir := t.TempDir()
	cc := filepath.Join(dir, "my-cc")
	log := filepath.Join(dir, "my-cc.log")
	require.NoError(t, os.WriteFile(cc, []byte("#!/bin/sh\necho \"$@\" >> "+log+"\n"+
		"while [ $# -gt 1 ]; do [ \"$1\" = -o ] && : > \"$2\"; shift; done\n"), 0o755))
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CC=") {
			env = append(env, e)
		}
	}
	for _, how := range []string{"command line", "environment"} {
		build := filepath.Join(dir, "build-"+strings.ReplaceAll(how, " ", "-"))
		target := filepath.Join(build, "lib", "libgoabt.so")
		args := []string{"-s", "-C", repoRoot, "BUILD=" + build, target}
		cmd := exec.Command("make", args...)
		cmd.Env = env
		if how == "command line" {
			cmd.Args = append(cmd.Args, "CC="+cc)
		} else {
			cmd.Env = append(cmd.Env, "CC="+cc)
		}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s\n%s", how, out)
		calls, err := os.ReadFile(log)
		require.NoError(t, err, "CC from the %s was not called", how)
		require.Contains(t, string(calls), "-o "+target, "CC from the %s compiled the engine", how)
		require.NoError(t, os.Remove(log))
	}
	cmd := exec.Command("make", "-n", "-C", repoRoot, "BUILD="+filepath.Join(dir, "build-default"),
		filepath.Join(dir, "build-default", "lib", "libgoabt.so"))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Regexp(t, `(?m)^gcc -shared `, string(out), "without CC, make uses gcc")
}
