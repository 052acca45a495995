package ctests

import (
	"path/filepath"
	"testing"
)

// TestASan runs every C test program against an AddressSanitizer build of the library
// (`make lib-asan`: go build -asan, which instruments the C engine and checks Go's own accesses
// to C memory), the programs instrumented too. Any read or write of freed or unallocated
// memory fails the program; ABT_finalize reading the freed main ULT was found this way.
//
// LeakSanitizer is on: memory malloc'd and lost when a program exits fails it (its report in the
// output). The Go runtime's memory is mapped, not malloc'd, so it never shows there; goabt's own
// objects are checked by GOABT_CHECK_LEAKS, which every program runs with (ctests_test.go). A
// program built here has GOABT_CTEST_ASAN defined, so it can
// leave out what ASan makes meaningless (resident-memory bounds: its quarantine keeps freed
// memory resident).
func TestASan(t *testing.T) {
	checkOnly(t, "the C programs against the AddressSanitizer build")
	t.Parallel()
	makeLibrary(t, "lib-asan")
	asan := library{
		name:     "ASan",
		dir:      filepath.Join("build", "asan"),
		suffix:   ".asan",
		flags:    []string{"-fsanitize=address", "-fno-omit-frame-pointer", "-DGOABT_CTEST_ASAN=1"},
		keepsEnv: []string{"ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1"},
		// Programs run 2-3x slower instrumented.
		timeoutFactor: 3,
	}
	runAll(t, asan, []string{"ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1"})
}
