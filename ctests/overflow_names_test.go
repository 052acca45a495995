package ctests

// The stack-overflow line names a ULT's function that lives in a shared library, exported or
// static: the line's name comes from the library's own symbol tables, the file found through
// dladdr (capi/engine/symname.c). The executable's functions, static ones too, are
// ctests/c/stack_overflow.c's.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// overflowLibrary holds two ULT functions that recurse without end: one exported, one static
// (given out by lib_static_ult), which only the library's .symtab lists.
const overflowLibrary = `#include <stdint.h>
volatile uintptr_t lib_stop; /* 0: never; the compiler cannot know it */
__attribute__((noinline)) static int recurse(int depth)
{
    volatile char pad[256];
    for (unsigned i = 0; i < sizeof pad; i++) pad[i] = (char)depth;
    if (lib_stop != 0 && (uintptr_t)&pad[0] < lib_stop) return pad[0];
    return recurse(depth + 1) + pad[0];
}
void lib_overflow_ult(void *arg) { (void)arg; recurse(0); }
static void lib_static_overflow_ult(void *arg) { (void)arg; recurse(0); }
void (*lib_static_ult(void))(void *) { return lib_static_overflow_ult; }
`

// overflowLibraryProgram prints the address of the function argv[1] names ("exported" or
// "static") and runs it as a ULT with a 16 KiB stack; it is not expected to come back.
const overflowLibraryProgram = `#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <abt.h>

void lib_overflow_ult(void *arg);
void (*lib_static_ult(void))(void *);

int main(int argc, char **argv)
{
    void (*fn)(void *) = argc > 1 && strcmp(argv[1], "static") == 0 ? lib_static_ult() : lib_overflow_ult;
    printf("0x%llx\n", (unsigned long long)(uintptr_t)fn);
    fflush(stdout);
    ABT_xstream self;
    ABT_pool pool;
    ABT_thread_attr attr;
    ABT_thread t;
    if (ABT_init(0, NULL) != ABT_SUCCESS || ABT_self_get_xstream(&self) != ABT_SUCCESS ||
        ABT_xstream_get_main_pools(self, 1, &pool) != ABT_SUCCESS ||
        ABT_thread_attr_create(&attr) != ABT_SUCCESS ||
        ABT_thread_attr_set_stacksize(attr, 16384) != ABT_SUCCESS ||
        ABT_thread_create(pool, fn, NULL, attr, &t) != ABT_SUCCESS) {
        return 2;
    }
    ABT_thread_free(&t);
    return 3;
}
`

func TestOverflowNamesLibraryFunction(t *testing.T) {
	dir := t.TempDir()
	buildC(t, overflowLibrary, filepath.Join(dir, "libults.so"), "-O2", "-shared", "-fPIC")
	libDir := filepath.Join(repoRoot, plainLibrary.dir)
	exe := filepath.Join(dir, "overflow_library")
	buildC(t, overflowLibraryProgram, exe, "-O2", "-L"+dir, "-lults", "-Wl,-rpath,"+dir,
		"-L"+libDir, "-lgoabt", "-Wl,-rpath,"+libDir)

	for _, c := range []struct{ which, name string }{
		{"exported", "lib_overflow_ult"},
		{"static", "lib_static_overflow_ult"},
	} {
		t.Run(c.which, func(t *testing.T) {
			cmd := exec.Command(exe, c.which)
			cmd.Env = append(os.Environ(), "ABT_STACK_OVERFLOW_CHECK=mprotect")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the ULT came back: %v\n%s", err, stderr.String())
			status := exit.Sys().(syscall.WaitStatus)
			require.True(t, status.Signaled() && status.Signal() == syscall.SIGABRT,
				"want death by SIGABRT, got %v\n%s", err, stderr.String())
			addr := strings.TrimSpace(stdout.String())
			require.Contains(t, stderr.String(), "goabt: stack overflow: ULT ")
			require.Contains(t, stderr.String(), "(function "+c.name+" at "+addr+") ran off its 16384-byte stack")
		})
	}
}
