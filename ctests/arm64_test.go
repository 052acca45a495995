package ctests

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// arm64Sysroot is where Debian's libc6-arm64-cross keeps the aarch64 loader and C library:
// qemu-aarch64 looks up the program's interpreter and libraries there first (-L).
const arm64Sysroot = "/usr/aarch64-linux-gnu"

// TestArm64 runs the C test programs built for linux/arm64 (`make lib-arm64`, build/arm64/:
// the engine with context_arm64.S and the Go core, cross-compiled by aarch64-linux-gnu-gcc and
// go build with GOARCH=arm64) under qemu-user's aarch64 emulation, on this x86-64 machine. It
// tests the arm64 code (the context switch, the gate, the stack-overflow handler's reading of
// the signal context, the spin hint) and the engine's memory orderings as qemu translates them:
// qemu gives no weaker ordering than the host's, so a missing barrier that only aarch64 hardware
// shows can pass here. The programs run as the plain way runs them: the same environment,
// variants and leak check; what this way leaves out, and why, is in leftout.go.
func TestArm64(t *testing.T) {
	checkOnly(t, "the C programs for arm64 under qemu-user")
	t.Parallel()
	qemu, err := exec.LookPath("qemu-aarch64")
	require.NoError(t, err, "qemu-aarch64 is needed: `make check` installs qemu-user")
	_, err = exec.LookPath("aarch64-linux-gnu-gcc")
	require.NoError(t, err, "aarch64-linux-gnu-gcc is needed: `make check` installs gcc-aarch64-linux-gnu")
	require.DirExists(t, filepath.Join(arm64Sysroot, "lib"), "`make check` installs libc6-dev-arm64-cross")
	makeLibrary(t, "lib-arm64")
	arm64 := library{
		name:   "arm64",
		dir:    filepath.Join("build", "arm64", "lib"),
		suffix: ".arm64",
		cc:     "aarch64-linux-gnu-gcc",
		flags:  []string{"-DGOABT_CTEST_QEMU=1"},
		checker: func(exe string, _ bool) ([]string, func() string) {
			return []string{qemu, "-L", arm64Sysroot, exe}, func() string { return "" }
		},
		// Programs ran 1.4 to 30 times slower under qemu-user than plainly (on 2 cores: fork 10x,
		// finalize_race 30x); none took more than half its plain limit.
		timeoutFactor: 10,
	}
	runAll(t, arm64, nil)
}
