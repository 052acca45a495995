package ctests

import (
	"path/filepath"
	"testing"
)

// TestAsserts runs every C test program against the checked build of the library (`make
// lib-checked`, build/checked/): the C engine with its invariant checks compiled in
// (GOABT_ASSERT, capi/engine/common.h), beside the plain Go core. A check that fails prints
// "goabt: assertion failed: file:line: function: condition" and aborts the program, which fails
// it. The programs are the plain ones, built again against this library (the same flags: the
// checks are the library's, the programs change nothing), run the plain way: the same
// environment, variants and leak check, and what make test leaves out (leftout.go).
func TestAsserts(t *testing.T) {
	t.Parallel()
	makeLibrary(t, "lib-checked")
	checked := library{
		name:   "checked",
		dir:    filepath.Join("build", "checked"),
		suffix: ".checked",
		// Its checks cost little; the margin is for a busy machine.
		timeoutFactor: 1.5,
	}
	runAll(t, checked, nil)
}
