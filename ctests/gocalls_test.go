package ctests

import (
	"debug/elf"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goabt/goabt/capi/gocalls"
	"github.com/stretchr/testify/require"
)

// TestGoCalls compares capi/gocalls.list, from which the engine's table of Go entries, its
// loader and its gated wrappers are generated, with the libgoabt-go.so make built: every entry
// is exported and every goabt_ function exported is listed; and each listed declaration is the
// one cgo writes for the export (build/gen/libgoabt-go.h), qualifiers aside (C calls
// goabt_go_pool_new with a const char *, which Go declares char *).
func TestGoCalls(t *testing.T) {
	entries, err := gocalls.ParseFile(filepath.Join(repoRoot, "capi", "gocalls.list"))
	require.NoError(t, err)
	listed := map[string]gocalls.Decl{}
	for _, e := range entries {
		listed[e.Export.Name] = e.Export
	}

	f, err := elf.Open(filepath.Join(repoRoot, "build", "lib", "libgoabt-go.so"))
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.DynamicSymbols()
	require.NoError(t, err)
	exported := map[string]bool{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC &&
			strings.HasPrefix(s.Name, "goabt_") {
			exported[s.Name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		if !exported[name] {
			t.Errorf("%s: in capi/gocalls.list, not exported by libgoabt-go.so", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(exported)) {
		if _, ok := listed[name]; !ok {
			t.Errorf("%s: exported by libgoabt-go.so, not in capi/gocalls.list", name)
		}
	}

	header, err := os.ReadFile(filepath.Join(repoRoot, "build", "gen", "libgoabt-go.h"))
	require.NoError(t, err)
	declared := map[string]gocalls.Decl{}
	for _, line := range strings.Split(string(header), "\n") {
		if d, ok := strings.CutPrefix(line, "extern "); ok && strings.Contains(d, " goabt_") {
			decl, err := gocalls.ParseDecl(d)
			require.NoError(t, err, line)
			declared[decl.Name] = decl
		}
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		l, c := listed[name], declared[name]
		if c.Name == "" {
			t.Errorf("%s: in capi/gocalls.list, not declared by cgo", name)
			continue
		}
		if plainType(l.Return) != plainType(c.Return) {
			t.Errorf("%s: returns %s in capi/gocalls.list, %s as exported", name, l.Return, c.Return)
		}
		if len(l.Params) != len(c.Params) {
			t.Errorf("%s: %d parameters in capi/gocalls.list, %d as exported", name, len(l.Params), len(c.Params))
			continue
		}
		for i, p := range l.Params {
			if plainType(p.Type) != plainType(c.Params[i].Type) {
				t.Errorf("%s: parameter %d is %s in capi/gocalls.list, %s as exported", name, i+1,
					p.Type, c.Params[i].Type)
			}
		}
	}
}

// plainType is a C type without qualifiers, in one spelling: "const char*" is "char *", "long
// int" is "long".
func plainType(t string) string {
	var words []string
	for _, w := range strings.Fields(strings.ReplaceAll(gocalls.NormType(t), "*", " * ")) {
		if w != "const" && w != "volatile" {
			words = append(words, w)
		}
	}
	s := gocalls.NormType(strings.Join(words, " "))
	s = strings.ReplaceAll(s, "long long int", "long long")
	return strings.ReplaceAll(s, "long int", "long")
}
