package ctests

import (
	"debug/elf"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// installTree runs `make install` into a fresh prefix and returns it.
func installTree(t *testing.T) string {
	prefix := t.TempDir()
	runMake(t, "install", "PREFIX="+prefix)
	return prefix
}

// runMake runs make in the repository with the given target and variables, and returns its
// output.
func runMake(t *testing.T, args ...string) string {
	out, err := exec.Command("make", append([]string{"-s", "-C", repoRoot}, args...)...).CombinedOutput()
	require.NoError(t, err, "make %s\n%s", strings.Join(args, " "), out)
	return string(out)
}

// runMakeFails runs make as runMake does, expects it to fail, and returns its output.
func runMakeFails(t *testing.T, args ...string) string {
	out, err := exec.Command("make", append([]string{"-s", "-C", repoRoot}, args...)...).CombinedOutput()
	require.Error(t, err, "make %s\n%s", strings.Join(args, " "), out)
	return string(out)
}

// goabtSoname is libgoabt.so's soname, libgoabt.so.MAJOR (goabt.h's GOABT_VERSION_MAJOR), and
// goabtLibFile the name of the file, libgoabt.so.MAJOR.MINOR.PATCH.
func goabtSoname(t *testing.T) string {
	return "libgoabt.so." + headerDefine(t, "goabt.h", "GOABT_VERSION_MAJOR")
}

func goabtLibFile(t *testing.T) string {
	return "libgoabt.so." + headerVersion(t, "goabt.h", "GOABT_VERSION")
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

// abtConsumer is a program written for Argobots: the Argobots 1.2 API only (a ULT, a scheduler
// configuration, whose variables a program reads from the library's data). It prints an error
// name, what its ULT counted, and the file that defines the ABT_init the process runs: the
// runtime it runs on. With a path as its argument it also loads that library (dlopen) and calls
// its plugin_run (pluginSource), after ABT_init.
const abtConsumer = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <abt.h>

static void count(void *arg) { ++*(int *)arg; }

int main(int argc, char **argv)
{
    char name[64];
    int n = 0;
    if (ABT_error_get_str(ABT_ERR_INV_THREAD, name, NULL) != ABT_SUCCESS) return 1;
    if (ABT_init(0, NULL) != ABT_SUCCESS) return 2;
    ABT_sched_config config;
    if (ABT_sched_config_create(&config, ABT_sched_basic_freq, 8, ABT_sched_config_var_end) != ABT_SUCCESS) return 3;
    if (ABT_sched_config_free(&config) != ABT_SUCCESS) return 4;
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread thread;
    if (ABT_xstream_self(&self) != ABT_SUCCESS || ABT_xstream_get_main_pools(self, 1, &pool) != ABT_SUCCESS) return 5;
    if (ABT_thread_create(pool, count, &n, ABT_THREAD_ATTR_NULL, &thread) != ABT_SUCCESS) return 6;
    if (ABT_thread_free(&thread) != ABT_SUCCESS) return 7;
    Dl_info info;
    if (dladdr(dlsym(RTLD_DEFAULT, "ABT_init"), &info) == 0) return 8;
    printf("%s %d %s\n", name, n, info.dli_fname);
    if (argc > 1) {
        void *plugin = dlopen(argv[1], RTLD_NOW);
        if (plugin == NULL) { printf("%s\n", dlerror()); return 9; }
        int (*run)(void) = (int (*)(void))dlsym(plugin, "plugin_run");
        if (run == NULL || run() != 0) return 10;
    }
    return ABT_finalize() == ABT_SUCCESS ? 0 : 11;
}
`

// pluginSource is a library that uses goabt under its own name (goabt.h, linked -lgoabt), for a
// process whose program was built through argobots.pc: plugin_run needs the runtime the program
// started (goabt_pool_create_go answers ABT_ERR_UNINITIALIZED in one that was not) and prints
// how many libraries named libgoabt.so* the process has loaded.
const pluginSource = `#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <abt.h>
#include <goabt.h>

static int count_goabt(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *slash = strrchr(info->dlpi_name, '/');
    if (strncmp(slash != NULL ? slash + 1 : info->dlpi_name, "libgoabt.so", 11) == 0) ++*(int *)arg;
    return 0;
}

int plugin_run(void)
{
    ABT_pool pool;
    int rc = goabt_pool_create_go("ws", ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool);
    int copies = 0;
    dl_iterate_phdr(count_goabt, &copies);
    printf("plugin: goabt_pool_create_go %d, libgoabt.so loaded %d time(s)\n", rc, copies);
    return rc == ABT_SUCCESS && ABT_pool_free(&pool) == ABT_SUCCESS ? 0 : 1;
}
`

// neededOf returns the sonames exe records as NEEDED (what readelf -d shows).
func neededOf(t *testing.T, exe string) []string {
	f, err := elf.Open(exe)
	require.NoError(t, err)
	defer f.Close()
	needed, err := f.ImportedLibraries()
	require.NoError(t, err)
	return needed
}

// requireRunsOnArgobotsSoname checks that exe records NEEDED libabt.so.1 and no libgoabt.so*:
// a program that runs on Argobots and on goabt alike.
func requireRunsOnArgobotsSoname(t *testing.T, exe string) {
	needed := neededOf(t, exe)
	require.Contains(t, needed, "libabt.so.1", "NEEDED of %s", exe)
	for _, n := range needed {
		require.False(t, strings.HasPrefix(n, "libgoabt"), "NEEDED of %s: %s", exe, n)
	}
}

// runAbtConsumer runs exe (built from abtConsumer) with env and args and checks its output; the
// runtime it ran on is the library at runtime (compared after following links).
func runAbtConsumer(t *testing.T, exe string, env []string, runtime string, args ...string) string {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	first, rest, _ := strings.Cut(string(out), "\n")
	fields := strings.Fields(first)
	require.Len(t, fields, 3, "%s", out)
	require.Equal(t, []string{"ABT_ERR_INV_THREAD", "1"}, fields[:2], "%s", out)
	got, err := filepath.EvalSymlinks(fields[2])
	require.NoError(t, err)
	want, err := filepath.EvalSymlinks(runtime)
	require.NoError(t, err)
	require.Equal(t, want, got, "the runtime ABT_init ran on")
	return rest
}

// nativeArgobots returns a directory whose libabt.so.1 is native Argobots' (the path in
// NATIVE_ARGOBOTS), or skips the test without it.
func nativeArgobots(t *testing.T) string {
	native := os.Getenv("NATIVE_ARGOBOTS")
	if native == "" {
		t.Skip("NATIVE_ARGOBOTS (the path of a native Argobots libabt.so.1) is not set")
	}
	_, err := os.Stat(native)
	require.NoError(t, err, "NATIVE_ARGOBOTS")
	dir := t.TempDir()
	require.NoError(t, os.Symlink(native, filepath.Join(dir, "libabt.so.1")))
	return dir
}

func TestInstallTree(t *testing.T) {
	checkOnly(t, "an install")
	prefix := installTree(t)
	for _, f := range []string{
		"lib/libgoabt.so", "lib/" + goabtSoname(t), "lib/" + goabtLibFile(t), "lib/libgoabt-go.so",
		"lib/libabt.so", "lib/libabt.so.1", "include/abt.h", "include/goabt.h",
		"include/opal_object.h", "include/opal/class/opal_object.h",
		"lib/cmake/goabt/goabtConfig.cmake", "lib/cmake/goabt/goabtConfigVersion.cmake",
		"lib/pkgconfig/argobots.pc", "lib/pkgconfig/goabt.pc",
		"share/gdb/auto-load" + prefix + "/lib/" + goabtLibFile(t) + "-gdb.py",
		"share/goabt/install-manifest",
	} {
		_, err := os.Stat(filepath.Join(prefix, f))
		require.NoError(t, err, "installed %s", f)
	}
	lib := filepath.Join(prefix, "lib")
	requireFilter(t, lib)

	// Installing again over its own install, unchanged, rewrites it.
	before := snapshot(t, prefix)
	runMake(t, "install", "PREFIX="+prefix)
	require.Equal(t, before, snapshot(t, prefix), "the prefix after installing the same tree again")
	requireFilter(t, lib)
}

// requireFilter checks lib/libabt.so.1 (lib/libabt.so a link to it): a file of its own, the ELF
// filter library soname libabt.so.1 for libgoabt.so, found beside it ($ORIGIN), that defines the
// Argobots 1.2 manifest's functions and variables and nothing else, each variable with the size
// libgoabt.so gives it (a program's copy of it is that size).
func requireFilter(t *testing.T, lib string) {
	link, err := os.Readlink(filepath.Join(lib, "libabt.so"))
	require.NoError(t, err, "libabt.so is a link")
	require.Equal(t, "libabt.so.1", link)
	path := filepath.Join(lib, "libabt.so.1")
	st, err := os.Lstat(path)
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular(), "libabt.so.1 is a file, not a link (%v)", st.Mode())
	f, err := elf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	soname, err := f.DynString(elf.DT_SONAME)
	require.NoError(t, err)
	require.Equal(t, []string{"libabt.so.1"}, soname)
	runpath, err := f.DynString(elf.DT_RUNPATH)
	require.NoError(t, err)
	require.Equal(t, []string{"$ORIGIN"}, runpath)
	needed, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.NotContains(t, needed, goabtSoname(t), "a filter, not a dependency")
	filters, err := f.DynValue(elf.DT_FILTER)
	require.NoError(t, err)
	dynstr, err := f.Section(".dynstr").Data()
	require.NoError(t, err)
	var filtees []string
	for _, off := range filters {
		require.Less(t, off, uint64(len(dynstr)))
		name, _, _ := strings.Cut(string(dynstr[off:]), "\x00")
		filtees = append(filtees, name)
	}
	require.Equal(t, []string{goabtSoname(t)}, filtees, "DT_FILTER: libgoabt.so's soname")

	defined := func(f *elf.File) map[string]elf.Symbol {
		syms, err := f.DynamicSymbols()
		require.NoError(t, err)
		m := map[string]elf.Symbol{}
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL {
				m[s.Name] = s
			}
		}
		return m
	}
	got := defined(f)
	engine, err := elf.Open(filepath.Join(lib, "libgoabt.so"))
	require.NoError(t, err)
	defer engine.Close()
	engineSyms := defined(engine)
	m := loadManifest(t)
	want := map[string]bool{}
	for _, fn := range m.Functions {
		want[fn.Name] = true
		s, ok := got[fn.Name]
		if assert.True(t, ok, "the filter defines %s", fn.Name) {
			assert.Equal(t, elf.STT_FUNC, elf.ST_TYPE(s.Info), fn.Name)
		}
	}
	for _, v := range m.Variables {
		want[v.Name] = true
		s, ok := got[v.Name]
		if assert.True(t, ok, "the filter defines %s", v.Name) {
			assert.Equal(t, elf.STT_OBJECT, elf.ST_TYPE(s.Info), v.Name)
			assert.Equal(t, engineSyms[v.Name].Size, s.Size, "%s: the size libgoabt.so gives it", v.Name)
		}
	}
	for name := range got {
		assert.True(t, want[name], "the filter defines %s, not in the manifest", name)
	}
}

// TestLinkAsLibabt builds a program the way an Argobots user does, with -labt: it records
// Argobots' soname, libabt.so.1 (readelf -d), and runs on goabt from the install, whose
// libabt.so.1 hands every symbol to libgoabt.so; and on native Argobots too (NATIVE_ARGOBOTS).
func TestLinkAsLibabt(t *testing.T) {
	prefix := installTree(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "app.c")
	require.NoError(t, os.WriteFile(src, []byte(abtConsumer), 0o644))
	exe := filepath.Join(dir, "app")
	lib := filepath.Join(prefix, "lib")
	out, err := exec.Command("gcc", "-Wall", "-Wextra", "-Werror", "-I"+filepath.Join(prefix, "include"),
		src, "-o", exe, "-L"+lib, "-labt", "-Wl,-rpath,"+lib).CombinedOutput()
	require.NoError(t, err, "%s", out)
	requireRunsOnArgobotsSoname(t, exe)
	deps, err := exec.Command("readelf", "-d", exe).CombinedOutput()
	require.NoError(t, err)
	require.Contains(t, string(deps), "Shared library: [libabt.so.1]", "readelf -d shows what the program needs")
	require.Empty(t, runAbtConsumer(t, exe, nil, filepath.Join(lib, "libgoabt.so")))
	t.Run("native", func(t *testing.T) {
		native := nativeArgobots(t)
		require.Empty(t, runAbtConsumer(t, exe, []string{"LD_LIBRARY_PATH=" + native}, filepath.Join(native, "libabt.so.1")))
	})
}

// TestArgobotsProgramWithGoabtPlugin runs a program built through argobots.pc that loads a
// library linked -lgoabt (goabt.pc): one libgoabt.so serves both, the runtime the program
// started. The program finds libabt.so.1 in the install, or (LD_LIBRARY_PATH) in the build tree
// while the plugin's run path names the install.
func TestArgobotsProgramWithGoabtPlugin(t *testing.T) {
	prefix := installTree(t)
	lib := filepath.Join(prefix, "lib")
	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(lib, "pkgconfig")}
	exe := buildAbtConsumer(t, env)
	dir := t.TempDir()
	src := filepath.Join(dir, "plugin.c")
	require.NoError(t, os.WriteFile(src, []byte(pluginSource), 0o644))
	plugin := filepath.Join(dir, "plugin.so")
	args := append([]string{"-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", src, "-o", plugin, "-Wl,-rpath," + lib},
		strings.Fields(pkgConfig(t, env, "--cflags", "--libs", "goabt"))...)
	out, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %s\n%s", strings.Join(args, " "), out)
	require.Contains(t, neededOf(t, plugin), goabtSoname(t))
	const pluginOutput = "plugin: goabt_pool_create_go 0, libgoabt.so loaded 1 time(s)\n"
	for _, libDir := range []string{lib, filepath.Join(repoRoot, "build", "lib")} {
		rest := runAbtConsumer(t, exe, []string{"LD_LIBRARY_PATH=" + libDir}, filepath.Join(libDir, "libgoabt.so"), plugin)
		require.Equal(t, pluginOutput, rest, "LD_LIBRARY_PATH=%s", libDir)
	}
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
	checkOnly(t, "an install's CMake consumers")
	cmake, err := exec.LookPath("cmake")
	require.NoError(t, err, "cmake is needed: `make check` installs it")
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

// headerDefine returns the number a header's `#define NAME <number>` gives.
func headerDefine(t *testing.T, header, name string) string {
	src, err := os.ReadFile(filepath.Join(repoRoot, "include", header))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^#define ` + name + ` ([0-9]+)$`).FindSubmatch(src)
	require.NotNil(t, m, "%s defines %s", header, name)
	return string(m[1])
}

// pkgConfig runs pkg-config with env added to the test's environment and returns its output.
func pkgConfig(t *testing.T, env []string, args ...string) string {
	pc, err := exec.LookPath("pkg-config")
	require.NoError(t, err, "pkg-config is needed: `make check` installs it")
	cmd := exec.Command(pc, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "pkg-config %s\n%s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// buildWithPkgConfigModules builds source with the flags `pkg-config --cflags --libs modules...`
// gives, as a user's Makefile does, and returns the executable.
func buildWithPkgConfigModules(t *testing.T, env []string, source string, modules ...string) string {
	flags := strings.Fields(pkgConfig(t, env, append([]string{"--cflags", "--libs"}, modules...)...))
	dir := t.TempDir()
	src := filepath.Join(dir, "app.c")
	require.NoError(t, os.WriteFile(src, []byte(source), 0o644))
	exe := filepath.Join(dir, "app")
	args := append([]string{"-Wall", "-Wextra", "-Werror", src, "-o", exe}, flags...)
	out, err := exec.Command("gcc", args...).CombinedOutput()
	require.NoError(t, err, "gcc %s\n%s", strings.Join(args, " "), out)
	return exe
}

// buildAbtConsumer builds abtConsumer as an Argobots user's Makefile does, with the flags
// `pkg-config --cflags --libs argobots` gives, and checks that it records libabt.so.1, not
// libgoabt.so.
func buildAbtConsumer(t *testing.T, env []string) string {
	require.Contains(t, strings.Fields(pkgConfig(t, env, "--libs", "argobots")), "-labt")
	exe := buildWithPkgConfigModules(t, env, abtConsumer, "argobots")
	requireRunsOnArgobotsSoname(t, exe)
	return exe
}

// buildWithPkgConfig builds abtConsumer through argobots.pc and runs it with libDir as its
// library path, on goabt's libgoabt.so there; and on native Argobots (NATIVE_ARGOBOTS), unchanged.
func buildWithPkgConfig(t *testing.T, env []string, libDir string) {
	exe := buildAbtConsumer(t, env)
	require.Empty(t, runAbtConsumer(t, exe, []string{"LD_LIBRARY_PATH=" + libDir}, filepath.Join(libDir, "libgoabt.so")))
	t.Run("native", func(t *testing.T) {
		native := nativeArgobots(t)
		require.Empty(t, runAbtConsumer(t, exe, []string{"LD_LIBRARY_PATH=" + native}, filepath.Join(native, "libabt.so.1")))
	})
}

// runConsumer runs exe, built from consumer, with libDir as its library path and checks its
// output.
func runConsumer(t *testing.T, exe, libDir string) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+libDir)
	out, err := cmd.CombinedOutput()
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

// buildWithCMake configures and builds a CMake project whose source app.c is source, with env
// added to cmake's environment and the given cache definitions, and returns the executable.
func buildWithCMake(t *testing.T, lists, source string, env []string, defs ...string) string {
	cmake, err := exec.LookPath("cmake")
	require.NoError(t, err, "cmake is needed: `make check` installs it")
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "app.c"), []byte(source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CMakeLists.txt"), []byte(lists), 0o644))
	build := filepath.Join(proj, "build")
	cfg := exec.Command(cmake, append([]string{"-S", proj, "-B", build}, defs...)...)
	cfg.Env = append(os.Environ(), env...)
	out, err := cfg.CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(cmake, "--build", build).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return filepath.Join(build, "app")
}

// buildWithPkgCheckModules builds abtConsumer with CMake's pkg_check_modules(argobots) (env for
// pkg-config), checks that it records libabt.so.1, and runs it on the libgoabt.so in libDir.
func buildWithPkgCheckModules(t *testing.T, env []string, libDir string) {
	exe := buildWithCMake(t, pkgCheckModulesProject, abtConsumer, env)
	requireRunsOnArgobotsSoname(t, exe)
	require.Empty(t, runAbtConsumer(t, exe, []string{"LD_LIBRARY_PATH=" + libDir}, filepath.Join(libDir, "libgoabt.so")))
}

// TestPkgConfig builds consumers from an installed prefix and checks the versions both .pc files
// give. Through argobots.pc (`pkg-config --cflags --libs argobots`, CMake's pkg_check_modules) an
// Argobots program records libabt.so.1 and runs on goabt, and on native Argobots
// (NATIVE_ARGOBOTS); through goabt.pc, and through both, a program that uses goabt's own API
// (goabt.h, OPAL) records libgoabt.so and runs.
func TestPkgConfig(t *testing.T) {
	checkOnly(t, "an install's pkg-config consumers")
	prefix := installTree(t)
	lib := filepath.Join(prefix, "lib")
	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(lib, "pkgconfig")}
	require.Equal(t, headerVersion(t, "abt.h", "ABT_VERSION"), pkgConfig(t, env, "--modversion", "argobots"))
	require.Equal(t, headerVersion(t, "goabt.h", "GOABT_VERSION"), pkgConfig(t, env, "--modversion", "goabt"))
	pkgConfig(t, env, "--atleast-version=1.2", "argobots")
	require.Equal(t, "-I"+filepath.Join(prefix, "include"), pkgConfig(t, env, "--cflags", "goabt"))
	require.Equal(t, "-L"+lib+" -lgoabt", pkgConfig(t, env, "--libs", "goabt"))
	require.Equal(t, "-L"+lib+" -labt", pkgConfig(t, env, "--libs", "argobots"))
	t.Run("argobots", func(t *testing.T) { buildWithPkgConfig(t, env, lib) })
	t.Run("pkg_check_modules", func(t *testing.T) { buildWithPkgCheckModules(t, env, lib) })
	for _, modules := range [][]string{{"goabt"}, {"argobots", "goabt"}} {
		t.Run(strings.Join(modules, "+"), func(t *testing.T) {
			exe := buildWithPkgConfigModules(t, env, consumer, modules...)
			require.Contains(t, neededOf(t, exe), goabtSoname(t))
			runConsumer(t, exe, lib)
		})
	}
}

// TestInstallDestdir installs into DESTDIR+PREFIX, as a package build does, and consumes the
// staged tree: pkg-config with PKG_CONFIG_SYSROOT_DIR (the .pc files name PREFIX), CMake's
// pkg_check_modules the same way and find_package(goabt) (relocatable); then uninstalls with the
// same DESTDIR, which leaves the staged prefix empty.
func TestInstallDestdir(t *testing.T) {
	checkOnly(t, "an install")
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
	buildWithPkgCheckModules(t, env, filepath.Join(staged, "lib"))
	exe := buildWithCMake(t, strings.Join([]string{
		"cmake_minimum_required(VERSION 3.13)",
		"project(consumer C)",
		"find_package(goabt 1.2 REQUIRED)",
		"add_executable(app app.c)",
		"target_link_libraries(app PRIVATE goabt::goabt)",
	}, "\n")+"\n", consumer, nil, "-DCMAKE_PREFIX_PATH="+staged)
	runConsumer(t, exe, filepath.Join(staged, "lib"))

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
// directory it made there, so that the prefix is empty again, with ABT_ALIASES=yes and no.
func TestUninstall(t *testing.T) {
	checkOnly(t, "an install")
	for _, aliases := range []string{"yes", "no"} {
		prefix := t.TempDir()
		runMake(t, "install", "PREFIX="+prefix, "ABT_ALIASES="+aliases)
		require.Contains(t, treeOf(t, prefix), "lib/libgoabt.so")
		runMake(t, "uninstall", "PREFIX="+prefix)
		require.Empty(t, treeOf(t, prefix), "the prefix after uninstall (ABT_ALIASES=%s)", aliases)
	}
}

// snapshot describes every file, link and directory under root, by relative path: a file's
// mode and bytes, a link's target. Two equal snapshots are byte-identical trees.
func snapshot(t *testing.T, root string) map[string]string {
	tree := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			tree[rel] = "dir " + info.Mode().String()
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			tree[rel] = "link -> " + target
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tree[rel] = "file " + info.Mode().String() + " " + string(b)
		}
		return nil
	}))
	return tree
}

// argobotsPrefix returns a prefix that holds an Argobots install as `make install` of Argobots
// leaves it: lib/libabt.so.1 (a stand-in: a file of its own bytes), lib/libabt.so linking to it,
// include/abt.h and lib/pkgconfig/argobots.pc, none of them goabt's.
func argobotsPrefix(t *testing.T) string {
	prefix := t.TempDir()
	lib := filepath.Join(prefix, "lib")
	require.NoError(t, os.MkdirAll(filepath.Join(lib, "pkgconfig"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(prefix, "include"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "libabt.so.1"), []byte("native Argobots' libabt.so.1\n"), 0o755))
	require.NoError(t, os.Symlink("libabt.so.1", filepath.Join(lib, "libabt.so")))
	require.NoError(t, os.WriteFile(filepath.Join(prefix, "include", "abt.h"),
		[]byte("/* native Argobots' abt.h */\n#define ABT_VERSION \"1.2\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "pkgconfig", "argobots.pc"),
		[]byte("prefix="+prefix+"\nName: argobots\nDescription: native\nVersion: 1.2\nLibs: -labt\n"), 0o644))
	return prefix
}

// TestInstallRefusesForeignFiles: over an Argobots install, `make install` with the default
// ABT_ALIASES=yes would overwrite abt.h, libabt.so, libabt.so.1 and argobots.pc: it writes
// nothing, names each, and says how to install beside them and how to replace them.
func TestInstallRefusesForeignFiles(t *testing.T) {
	checkOnly(t, "an install")
	prefix := argobotsPrefix(t)
	before := snapshot(t, prefix)
	out := runMakeFails(t, "install", "PREFIX="+prefix)
	for _, f := range []string{"include/abt.h", "lib/libabt.so", "lib/libabt.so.1", "lib/pkgconfig/argobots.pc"} {
		require.Contains(t, out, filepath.Join(prefix, f), "the refusal names %s", f)
	}
	require.Contains(t, out, "make install wrote nothing")
	require.Contains(t, out, "make install ABT_ALIASES=no", "the way to install beside them")
	require.Contains(t, out, "make install OVERWRITE=yes", "the way to replace them")
	require.Equal(t, before, snapshot(t, prefix), "the prefix after a refused install")

	// A file of goabt's own name (another install's libgoabt.so, say) is refused the same way.
	prefix = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(prefix, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(prefix, "lib", "libgoabt-go.so"), []byte("someone else's\n"), 0o644))
	before = snapshot(t, prefix)
	out = runMakeFails(t, "install", "PREFIX="+prefix, "ABT_ALIASES=no")
	require.Contains(t, out, filepath.Join(prefix, "lib", "libgoabt-go.so"))
	require.Equal(t, before, snapshot(t, prefix), "the prefix after a refused install")
}

// TestInstallWithoutAliases installs with ABT_ALIASES=no into a prefix that holds an Argobots:
// nothing goabt installs has a name Argobots' files have (its headers go in include/goabt/,
// which goabt.pc and the CMake package name), a program built through goabt.pc runs on goabt,
// Argobots' files stay byte-identical, and uninstall leaves the prefix as it was.
func TestInstallWithoutAliases(t *testing.T) {
	checkOnly(t, "an install")
	// In a fresh prefix: no libabt.* and no argobots.pc.
	fresh := t.TempDir()
	runMake(t, "install", "PREFIX="+fresh, "ABT_ALIASES=no")
	freshTree := treeOf(t, fresh)
	require.Contains(t, freshTree, "lib/libgoabt.so")
	require.Contains(t, freshTree, "include/goabt/abt.h")
	for _, f := range freshTree {
		require.NotContains(t, filepath.Base(f), "libabt", "ABT_ALIASES=no installed %s", f)
		require.NotEqual(t, "lib/pkgconfig/argobots.pc", f)
		require.False(t, strings.HasPrefix(f, "include/") && f != "include/" && !strings.HasPrefix(f, "include/goabt"),
			"ABT_ALIASES=no installed %s outside include/goabt/", f)
	}

	prefix := argobotsPrefix(t)
	before := snapshot(t, prefix)
	lib := filepath.Join(prefix, "lib")
	runMake(t, "install", "PREFIX="+prefix, "ABT_ALIASES=no")
	for f, was := range before {
		require.Equal(t, was, snapshot(t, prefix)[f], "%s after install", f)
	}
	for _, f := range []string{"lib/libgoabt.so", "lib/pkgconfig/goabt.pc", "lib/cmake/goabt/goabtConfig.cmake", "include/goabt/abt.h"} {
		_, err := os.Stat(filepath.Join(prefix, f))
		require.NoError(t, err, "installed %s", f)
	}
	// goabt.pc gives goabt under its own name, and its own headers.
	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(lib, "pkgconfig")}
	require.Equal(t, "-L"+lib+" -lgoabt", pkgConfig(t, env, "--libs", "goabt"))
	require.Equal(t, "-I"+filepath.Join(prefix, "include", "goabt"), pkgConfig(t, env, "--cflags", "goabt"))
	exe := buildWithPkgConfigModules(t, env, consumer, "goabt")
	require.Contains(t, neededOf(t, exe), goabtSoname(t))
	runConsumer(t, exe, lib)
	// A program written for Argobots, built through goabt.pc, runs on goabt.
	exe = buildWithPkgConfigModules(t, env, abtConsumer, "goabt")
	require.Empty(t, runAbtConsumer(t, exe, []string{"LD_LIBRARY_PATH=" + lib}, filepath.Join(lib, goabtLibFile(t))))

	runMake(t, "uninstall", "PREFIX="+prefix)
	require.Equal(t, before, snapshot(t, prefix), "the prefix after uninstall is as it was before install")
}

// TestInstallOverwrite: OVERWRITE=yes replaces Argobots' files, keeping each, and uninstall puts
// them back: the prefix ends byte-identical to what it was.
func TestInstallOverwrite(t *testing.T) {
	checkOnly(t, "an install")
	prefix := argobotsPrefix(t)
	before := snapshot(t, prefix)
	out := runMake(t, "install", "PREFIX="+prefix, "OVERWRITE=yes")
	require.Contains(t, out, filepath.Join(prefix, "share", "goabt", "backup", "include", "abt.h"))
	requireFilter(t, filepath.Join(prefix, "lib"))
	runMake(t, "uninstall", "PREFIX="+prefix)
	require.Equal(t, before, snapshot(t, prefix), "the prefix after uninstall")
}

// TestUninstallKeepsChangedFiles: uninstall removes a file install wrote only if it is as
// install wrote it; one changed since is kept, and named. Without a manifest (no install in
// that prefix, or another PREFIX) it removes nothing and says so.
func TestUninstallKeepsChangedFiles(t *testing.T) {
	checkOnly(t, "an install")
	prefix := installTree(t)
	pc := filepath.Join(prefix, "lib", "pkgconfig", "goabt.pc")
	require.NoError(t, os.WriteFile(pc, []byte("Name: goabt\nDescription: edited by hand\nVersion: 0\n"), 0o644))
	out := runMake(t, "uninstall", "PREFIX="+prefix)
	require.Contains(t, out, "kept "+pc)
	require.Equal(t, []string{"lib/", "lib/pkgconfig/", "lib/pkgconfig/goabt.pc"}, treeOf(t, prefix))

	// A prefix holding a goabt install's files but no manifest.
	other := installTree(t)
	require.NoError(t, os.Remove(filepath.Join(other, "share", "goabt", "install-manifest")))
	before := snapshot(t, other)
	out = runMakeFails(t, "uninstall", "PREFIX="+other)
	require.Contains(t, out, "removed nothing: no goabt install manifest at "+filepath.Join(other, "share", "goabt", "install-manifest"))
	require.Equal(t, before, snapshot(t, other), "the prefix after uninstall without a manifest")
}

// TestLibraryVersions: the version is goabt.h's, everywhere it is given. libgoabt.so is the
// file libgoabt.so.MAJOR.MINOR.PATCH with soname libgoabt.so.MAJOR and the links
// libgoabt.so.MAJOR and libgoabt.so, in build/lib and in an install; goabt.pc's version, the
// CMake package's goabt_RUNTIME_VERSION and CHANGELOG.md's newest entry are GOABT_VERSION; the
// CMake target's soname is the library's; gdb's script is named after the real file, which is
// the name gdb looks it up by.
func TestLibraryVersions(t *testing.T) {
	checkOnly(t, "an install")
	version := headerVersion(t, "goabt.h", "GOABT_VERSION")
	numbers := headerDefine(t, "goabt.h", "GOABT_VERSION_MAJOR") + "." +
		headerDefine(t, "goabt.h", "GOABT_VERSION_MINOR") + "." + headerDefine(t, "goabt.h", "GOABT_VERSION_PATCH")
	require.Equal(t, version, numbers, "GOABT_VERSION is MAJOR.MINOR.PATCH")
	soname, file := goabtSoname(t), goabtLibFile(t)

	prefix := installTree(t)
	for _, lib := range []string{filepath.Join(repoRoot, "build", "lib"), filepath.Join(prefix, "lib")} {
		link, err := os.Readlink(filepath.Join(lib, "libgoabt.so"))
		require.NoError(t, err, "%s/libgoabt.so is a link", lib)
		require.Equal(t, soname, link)
		link, err = os.Readlink(filepath.Join(lib, soname))
		require.NoError(t, err, "%s/%s is a link", lib, soname)
		require.Equal(t, file, link)
		f, err := elf.Open(filepath.Join(lib, file))
		require.NoError(t, err)
		got, err := f.DynString(elf.DT_SONAME)
		f.Close()
		require.NoError(t, err)
		require.Equal(t, []string{soname}, got, "%s's soname", filepath.Join(lib, file))
	}
	_, err := os.Stat(filepath.Join(prefix, "share", "gdb", "auto-load"+prefix, "lib", file+"-gdb.py"))
	require.NoError(t, err, "gdb's script, named after the real file")

	env := []string{"PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib", "pkgconfig")}
	require.Equal(t, version, pkgConfig(t, env, "--modversion", "goabt"))

	cmake, err := exec.LookPath("cmake")
	require.NoError(t, err, "cmake is needed: `make check` installs it")
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CMakeLists.txt"), []byte(strings.Join([]string{
		"cmake_minimum_required(VERSION 3.13)",
		"project(versions C)",
		"find_package(goabt REQUIRED)",
		"get_target_property(soname goabt::goabt IMPORTED_SONAME)",
		`message(STATUS "goabt ${goabt_RUNTIME_VERSION} ${soname}")`,
	}, "\n")+"\n"), 0o644))
	out, err := exec.Command(cmake, "-S", proj, "-B", filepath.Join(proj, "build"), "-DCMAKE_PREFIX_PATH="+prefix).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "-- goabt "+version+" "+soname+"\n")

	changelog, err := os.ReadFile(filepath.Join(repoRoot, "CHANGELOG.md"))
	require.NoError(t, err)
	entry := regexp.MustCompile(`(?m)^## (\S+)`).FindSubmatch(changelog)
	require.NotNil(t, entry, "CHANGELOG.md has an entry")
	require.Equal(t, version, string(entry[1]), "CHANGELOG.md's newest entry")
}

// TestCMakePackageVersions: the package's version is the Argobots API's, 1.2.0; requests for 1.x
// up to 1.2 are accepted, later or other majors refused; a request below 1.0 is compared with
// goabt's own version. One configure asks for each.
func TestCMakePackageVersions(t *testing.T) {
	checkOnly(t, "an install's CMake consumers")
	cmake, err := exec.LookPath("cmake")
	require.NoError(t, err, "cmake is needed: `make check` installs it")
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
