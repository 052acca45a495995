package ctests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The rule checked here (DEVELOPERS.md): a function not implemented yet returns
// ABT_ERR_FEATURE_NA and its header comment in include/abt.h says so. The stubs live in
// capi/api/not_implemented.c; implemented functions are defined in the other C files of capi/
// (the entry points in capi/api/) or exported from capi/*.go with "//export ABT_...".

const (
	headerFile = "include/abt.h"
	stubFile   = "capi/api/not_implemented.c"
	notImplStr = "Not implemented yet"
)

var (
	// A function definition in C: at the start of a line, an optional return type, the name,
	// the parameter list (possibly over several lines) and the opening brace.
	cDefRE = regexp.MustCompile(`(?m)^([A-Za-z_][^;\n]*?)?\b(ABT_\w+)\s*\([^;{]*\)\s*\{`)
	// A cgo export: "//export ABT_name".
	goExportRE = regexp.MustCompile(`(?m)^//export (ABT_\w+)\s*$`)
	// A function declaration in abt.h; its first line holds the name and the "(".
	declRE = regexp.MustCompile(`^ABT_API_PUBLIC\b.*?\b(ABT_\w+)\s*\(`)
	// C comments, removed before looking for definitions.
	cCommentRE = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	staticRE   = regexp.MustCompile(`\bstatic\b`)
)

// docCheck is the outcome of checkHeaderComments.
type docCheck struct {
	declared    int      // functions declared in abt.h
	implemented int      // ABT_ functions defined outside the stub file
	stubs       int      // ABT_ functions defined in the stub file
	problems    []string // one line per problem, each starting with the function's name
}

// cDefinitions returns the non-static ABT_ functions a C source defines.
func cDefinitions(src string) map[string]bool {
	// Blank out comments but keep their newlines so "^" still means a line start.
	src = cCommentRE.ReplaceAllStringFunc(src, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n"))
	})
	names := map[string]bool{}
	for _, m := range cDefRE.FindAllStringSubmatch(src, -1) {
		if staticRE.MatchString(m[1]) {
			continue
		}
		names[m[2]] = true
	}
	return names
}

// headerComment returns the text of the /* */ comment ending on the line just above lines[i],
// with comment markers removed and white space collapsed; "" when there is none.
func headerComment(lines []string, i int) string {
	end := i - 1
	if end < 0 || !strings.HasSuffix(strings.TrimRight(lines[end], " \t"), "*/") {
		return ""
	}
	start := end
	for start > 0 && !strings.Contains(lines[start], "/*") {
		start--
	}
	var parts []string
	for _, l := range lines[start : end+1] {
		l = strings.TrimSpace(l)
		if s, ok := strings.CutPrefix(l, "/*"); ok {
			l = s
		} else if s, ok := strings.CutPrefix(l, "*"); ok {
			l = s
		}
		l = strings.TrimSuffix(l, "*/")
		parts = append(parts, l)
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// checkHeaderComments checks abt.h's doc comments against the capi sources. files maps a path
// relative to the repository root (headerFile, stubFile, "capi/x.c", "capi/x.go") to its text.
func checkHeaderComments(files map[string]string) docCheck {
	var res docCheck
	problem := func(format string, args ...any) {
		res.problems = append(res.problems, fmt.Sprintf(format, args...))
	}

	stubs := cDefinitions(files[stubFile])
	impl := map[string]bool{}
	for name, src := range files {
		switch {
		case name == headerFile || name == stubFile:
		case strings.HasPrefix(name, "capi/") && strings.HasSuffix(name, ".c"):
			for n := range cDefinitions(src) {
				impl[n] = true
			}
		case strings.HasPrefix(name, "capi/") && strings.HasSuffix(name, ".go") &&
			!strings.HasSuffix(name, "_test.go"):
			for _, m := range goExportRE.FindAllStringSubmatch(src, -1) {
				impl[m[1]] = true
			}
		}
	}

	comments := map[string]string{}
	var declOrder []string
	lines := strings.Split(files[headerFile], "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "ABT_API_PUBLIC") {
			continue
		}
		m := declRE.FindStringSubmatch(line)
		if m == nil {
			if !strings.Contains(line, "extern") { // exported variables are not functions
				problem("%s:%d: cannot parse declaration %q", headerFile, i+1, line)
			}
			continue
		}
		name := m[1]
		if _, dup := comments[name]; dup {
			problem("%s: declared twice in %s", name, headerFile)
		} else {
			declOrder = append(declOrder, name)
		}
		comments[name] = headerComment(lines, i)
	}
	res.declared = len(comments)
	res.stubs = len(stubs)
	res.implemented = len(impl)

	for _, n := range sortedKeys(stubs) {
		if impl[n] {
			problem("%s: defined both in %s and elsewhere in capi/", n, stubFile)
		}
	}
	for _, n := range declOrder {
		text := comments[n]
		says := strings.Contains(text, notImplStr)
		if text == "" {
			problem("%s: no header comment in %s", n, headerFile)
		}
		if stubs[n] && !says {
			problem("%s: stub in %s, but its header comment does not say %q", n, stubFile, notImplStr)
		}
		if stubs[n] && says && !strings.Contains(text, "ABT_ERR_FEATURE_NA") {
			problem("%s: stub, but its header comment does not name ABT_ERR_FEATURE_NA", n)
		}
		if !stubs[n] && says {
			problem("%s: implemented, but its header comment says %q", n, notImplStr)
		}
		if !stubs[n] && !impl[n] {
			problem("%s: declared in %s but defined nowhere in capi/", n, headerFile)
		}
	}
	defined := map[string]bool{}
	for n := range stubs {
		defined[n] = true
	}
	for n := range impl {
		defined[n] = true
	}
	for _, n := range sortedKeys(defined) {
		if _, ok := comments[n]; !ok {
			problem("%s: defined in capi/ but not declared in %s", n, headerFile)
		}
	}
	return res
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestHeaderCommentsMatchImplementation enforces that exactly the functions stubbed in
// capi/api/not_implemented.c say "Not implemented yet" in include/abt.h, and that abt.h and capi/
// name the same functions.
func TestHeaderCommentsMatchImplementation(t *testing.T) {
	files := map[string]string{}
	read := func(rel string) {
		b, err := os.ReadFile(filepath.Join(repoRoot, rel))
		require.NoError(t, err)
		files[rel] = string(b)
	}
	read(headerFile)
	read(stubFile)
	for _, pattern := range []string{"capi/*.c", "capi/api/*.c", "capi/engine/*.c", "capi/*.go"} {
		paths, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		require.NoError(t, err)
		require.NotEmpty(t, paths, pattern)
		for _, p := range paths {
			rel, err := filepath.Rel(repoRoot, p)
			require.NoError(t, err)
			read(filepath.ToSlash(rel))
		}
	}

	res := checkHeaderComments(files)
	t.Logf("%d declared, %d implemented, %d not implemented yet", res.declared, res.implemented, res.stubs)
	// Guard against the parser silently matching nothing.
	require.Positive(t, res.declared, "no declarations found in %s", headerFile)
	require.Positive(t, res.implemented, "no implemented functions found in capi/")
	for _, p := range res.problems {
		t.Errorf("%s", p)
	}
}

// TestHeaderCommentsCheckerFindsProblems shows the checker can fail: synthetic sources with one
// stale comment (ABT_b is implemented but still documented as not implemented) and one missing
// definition (ABT_d is declared but defined nowhere) give exactly those two problems, while the
// multi-line, deprecated, Go-exported and correctly documented stub cases pass.
func TestHeaderCommentsCheckerFindsProblems(t *testing.T) {
	files := map[string]string{
		headerFile: `#define ABT_API_PUBLIC
#define ABT_DEPRECATED __attribute__((deprecated))

/* Does a. */
ABT_API_PUBLIC int ABT_a(int x);

/* Does b. Not implemented
 * yet: returns ABT_ERR_FEATURE_NA. */
ABT_API_PUBLIC int ABT_b(ABT_thread thread,
                         int y);

/* Does c, over
 * several lines. Not implemented yet: returns ABT_ERR_FEATURE_NA. */
ABT_API_PUBLIC ABT_DEPRECATED int ABT_c(int x,
                                        int y);

/* Does d. */
ABT_API_PUBLIC int ABT_d(void);

/* Does e. */
ABT_API_PUBLIC int ABT_e(void);

ABT_API_PUBLIC extern int ABT_some_variable;
`,
		stubFile: `#include "abt.h"
/* ABT_a(int x) { is only a comment */
int ABT_c(int x,
          int y)
{
    (void)x; (void)y;
    return ABT_ERR_FEATURE_NA;
}
`,
		"capi/impl.c": `#include "abt.h"
static int ABT_helper(void) { return 0; }
int ABT_a(int x)
{
    return x + ABT_helper();
}

int
ABT_b(ABT_thread thread, int y)
{
    if (ABT_a(y)) {
        return 1;
    }
    return 0;
}
`,
		"capi/impl.go": `package main

//export ABT_e
func ABT_e() C.int { return 0 }
`,
	}
	res := checkHeaderComments(files)
	require.Equal(t, 5, res.declared, "declared: ABT_a to ABT_e")
	require.Equal(t, 3, res.implemented, "implemented: ABT_a, ABT_b, ABT_e")
	require.Equal(t, 1, res.stubs, "stubs: ABT_c")
	require.Len(t, res.problems, 2, "%q", res.problems)
	require.True(t, strings.HasPrefix(res.problems[0], "ABT_b: implemented, but"), res.problems[0])
	require.True(t, strings.HasPrefix(res.problems[1], "ABT_d: declared in"), res.problems[1])
}

// TestLeftOutListInReadme keeps docs/testing.md's list of what each way of running leaves out equal to
// the harness's (leftout.go), which is the one the runs obey.
func TestLeftOutListInReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "docs", "testing.md"))
	require.NoError(t, err)
	require.Contains(t, string(readme), leftOutTable(),
		"docs/testing.md's table of what the tests leave out differs from ctests/leftout.go; the table should read:\n%s", leftOutTable())
}

// docPathRE finds a repository path quoted in a document: a word that starts with one of the
// repository's top-level directories, at the start of a line or after a space, backtick or
// bracket (so `<prefix>/lib/cmake/goabt/`, an install path, is not one).
var docPathRE = regexp.MustCompile("(?:^|[\\s`(\\[])((?:capi|core|ctests|include|bench|docs|cmake|pkgconfig|gdb|abi|examples|\\.ci)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*/])")

// docPathsMissing returns the paths text quotes that do not exist under root (a pattern with *
// must match something).
func docPathsMissing(root, text string) []string {
	var missing []string
	seen := map[string]bool{}
	for _, m := range docPathRE.FindAllStringSubmatch(text, -1) {
		p := strings.TrimSuffix(m[1], ".")
		if seen[p] {
			continue
		}
		seen[p] = true
		matches, err := filepath.Glob(filepath.Join(root, p))
		if err != nil || len(matches) == 0 {
			missing = append(missing, p)
		}
	}
	return missing
}

// TestDocsQuotePathsThatExist: every repository path README.md, DEVELOPERS.md and docs/*.md
// quote exists, so that a file that moves takes its mentions along.
func TestDocsQuotePathsThatExist(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	docs = append(docs, filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "DEVELOPERS.md"))
	var missing []string
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		rel, _ := filepath.Rel(repoRoot, doc)
		for _, p := range docPathsMissing(repoRoot, string(b)) {
			missing = append(missing, rel+": "+p)
		}
	}
	require.Empty(t, missing, "documents quote paths that do not exist")
}

func TestDocPathCheckerFindsMissingPaths(t *testing.T) {
	text := "see `capi/api/mutex.c` and capi/keys.h, `ctests/c/*.c`, ctests/c/*.nothing, " +
		"`<prefix>/lib/cmake/goabt/` and core/no_such.go."
	require.Equal(t, []string{"capi/keys.h", "ctests/c/*.nothing", "core/no_such.go"},
		docPathsMissing(repoRoot, text))
}
