package ctests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// environmentPrograms are the programs whose runs have depended on the process's surroundings:
// the size of the environment moved the Go runtime's wide reads of C strings from invalid to
// uninitialized bytes under valgrind (go_strings, leak_report: valgrind.supp) and the main
// stack's layout under the Go runtime's first frames (stack_overflow, main_stack_split); the
// working directory is where a program's relative paths start (leak_report's and
// stack_overflow's children, the Go core found beside libgoabt.so).
var environmentPrograms = []string{"go_strings/default", "leak_report/plain", "stack_overflow/default",
	"main_stack_split/default", "engine_init/default"}

// TestEnvironments runs environmentPrograms in surroundings unlike the test's own: the
// environment padded by a 9 KiB variable, the environment nearly empty (PATH and HOME, as
// `env -i` leaves it), and another working directory. Plainly under make test; under valgrind
// too under make check, one program at a time, beside TestValgrind's.
func TestEnvironments(t *testing.T) {
	t.Parallel()
	home := os.Getenv("HOME")
	if home == "" {
		home = "/"
	}
	places := []struct {
		name  string
		where func(t *testing.T) surroundings
	}{
		{"padded_9k", func(t *testing.T) surroundings {
			return surroundings{environ: append(os.Environ(), "GOABT_CTEST_PADDING="+strings.Repeat("p", 9*1024)), dir: binDir}
		}},
		{"nearly_empty", func(t *testing.T) surroundings {
			return surroundings{environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, dir: binDir}
		}},
		{"elsewhere", func(t *testing.T) surroundings {
			return surroundings{environ: os.Environ(), dir: t.TempDir()}
		}},
	}
	ways := []struct {
		name string
		lib  func(t *testing.T) (library, []string)
	}{
		{"plain", func(*testing.T) (library, []string) { return plainLibrary, nil }},
		{"valgrind", func(t *testing.T) (library, []string) {
			checkOnly(t, "the programs under valgrind")
			return valgrindLibrary(t)
		}},
	}
	for _, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			lib, env := way.lib(t)
			for _, name := range environmentPrograms {
				base, vname, _ := strings.Cut(name, "/")
				p := readProgram(t, filepath.Join(repoRoot, "ctests", "c", base+".c"))
				var v *variant
				for i := range p.variants {
					if p.variants[i].name == vname {
						v = &p.variants[i]
					}
				}
				if v == nil {
					t.Fatalf("%s has no variant %s", base, vname)
				}
				for _, place := range places {
					t.Run(place.name+"/"+name, func(t *testing.T) {
						runVariant(t, lib, p, *v, env, place.where(t))
					})
				}
			}
		})
	}
}
