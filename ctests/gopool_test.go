package ctests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The route docs/go-extensions.md's "Writing a pool or scheduler in Go" documents for a pool and a policy of
// one's own: a Go package in a module of its own, anywhere, built into the library with
// `make lib GOPOOLS=dir`. ctests/testdata/gopool/mypools is that package, word for word the
// that document's (checked here); the test copies it out of the tree, builds a library with it into a
// temporary directory through the Makefile, and runs ctests/testdata/gopool/order.c on it:
// six ULTs in two pools of a PRIO scheduler, whose order of running shows which pools and which
// policy served them.

const gopoolDir = "ctests/testdata/gopool"

// readmeBlocks returns the fenced code blocks of docs/go-extensions.md's section named heading.
func readmeBlocks(t *testing.T, heading string) []string {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "go-extensions.md"))
	require.NoError(t, err)
	readme := string(data)
	start := strings.Index(readme, "\n"+heading+"\n")
	require.GreaterOrEqual(t, start, 0, "docs/go-extensions.md has no section %q", heading)
	section := readme[start+len(heading)+2:]
	if end := regexp.MustCompile(`(?m)^#{1,3} `).FindStringIndex(section); end != nil {
		section = section[:end[0]]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```[a-z]*\n(.*?)^```$").FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

func TestGoPoolOutOfTree(t *testing.T) {
	checkOnly(t, "a build of the Go core with an out-of-tree Go pool")
	pkg := filepath.Join(repoRoot, gopoolDir, "mypools")

	// The document shows the package and its go.mod as they are here, and the make command.
	blocks := readmeBlocks(t, "### Writing a pool or scheduler in Go")
	for _, name := range []string{"go.mod", "mypools.go"} {
		want, err := os.ReadFile(filepath.Join(pkg, name))
		require.NoError(t, err)
		require.Contains(t, blocks, string(want),
			"docs/go-extensions.md's \"Writing a pool or scheduler in Go\" must show %s/mypools/%s as it is", gopoolDir, name)
	}
	require.Contains(t, strings.Join(blocks, ""), "make lib GOPOOLS=",
		"docs/go-extensions.md must say how to build the package into the library")

	// The package out of goabt's tree, as a user's would be.
	tmp := t.TempDir()
	own := filepath.Join(tmp, "mypools")
	require.NoError(t, os.MkdirAll(own, 0o755))
	for _, name := range []string{"go.mod", "mypools.go"} {
		data, err := os.ReadFile(filepath.Join(pkg, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(own, name), data, 0o644))
	}
	build := filepath.Join(tmp, "build")
	cmd := exec.Command("make", "-s", "lib", "BUILD="+build, "GOPOOLS="+own)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make lib GOPOOLS=%s\n%s", own, out)
	require.Contains(t, string(out), `GOPOOLS: building in "example.com/mypools"`)

	// The source tree is as it was: the imports live in the build directory.
	_, err = os.Stat(filepath.Join(repoRoot, "capi", "zz_gopools.go"))
	require.True(t, os.IsNotExist(err), "make wrote into capi/")

	compileOrder := func(libDir string) string {
		exe := filepath.Join(tmp, "order-"+filepath.Base(filepath.Dir(libDir)))
		args := []string{"-Wall", "-Wextra", "-Werror", "-O2", "-I" + filepath.Join(repoRoot, "include"),
			filepath.Join(repoRoot, gopoolDir, "order.c"), "-o", exe,
			"-L" + libDir, "-lgoabt", "-Wl,-rpath," + libDir, "-lpthread"}
		out, err := exec.Command("gcc", args...).CombinedOutput()
		require.NoError(t, err, "gcc %s\n%s", strings.Join(args, " "), out)
		return exe
	}
	runOrder := func(exe string, env ...string) (string, error) {
		cmd := exec.Command(exe)
		cmd.Env = append(append(os.Environ(), "GOABT_SAFETY_WAKEUP_MS=off",
			"GOABT_POOL=", "GOABT_SCHED="), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	exe := compileOrder(filepath.Join(build, "lib"))
	for _, c := range []struct {
		env  []string
		want string
	}{
		// goabt's own FIFO pools, PRIO's strict priority: the program is sound.
		{nil, "a0 a1 a2 b0 b1 b2"},
		// mylifo pools, newest first, each pool in turn under PRIO.
		{[]string{"GOABT_POOL=mylifo"}, "a2 a1 a0 b2 b1 b0"},
		// FIFO pools served in turn by myroundrobin.
		{[]string{"GOABT_SCHED=myroundrobin"}, "a0 b0 a1 b1 a2 b2"},
		{[]string{"GOABT_POOL=mylifo", "GOABT_SCHED=myroundrobin"}, "a2 b2 a1 b1 a0 b0"},
	} {
		out, err := runOrder(exe, c.env...)
		require.NoError(t, err, "%v %s\n%s", c.env, exe, out)
		require.Equal(t, "order: "+c.want+"\n", out, "%v", c.env)
	}

	// goabt's own library knows no such pool: the one above came from the package.
	stock := compileOrder(filepath.Join(repoRoot, "build", "lib"))
	out2, err := runOrder(stock, "GOABT_POOL=mylifo")
	require.Error(t, err, "goabt's own library ran with GOABT_POOL=mylifo:\n%s", out2)
	require.Contains(t, out2, `no Go pool is registered as "mylifo"`)
}
