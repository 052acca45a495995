package gocalls

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseRejects checks that a list the generator could not write C from is refused, with
// the line.
func TestParseRejects(t *testing.T) {
	for list, want := range map[string]string{
		"int goabt_go_a(void)\n":                                   "1: goabt_go_a has no call line",
		"int goabt_go_a(void)\nint goabt_go_b(void)\n    direct\n": "2: goabt_go_a has no call line",
		"    direct\n":                 "1: a call line without an export above it",
		"int go_a(void)\n    direct\n": "an export's name starts with goabt_",
		"int goabt_go_a(void)\n    direct\nint goabt_a(void)\n    direct\n": "3: goabt_a: field a is taken (line 1)",
		"int goabt_go_a(void)\n    inline\n":                                `"inline": gated, direct or test expected`,
		"int goabt_go_a(void)\n    direct 0\n":                              "nothing follows direct",
		"int goabt_go_a(int)\n    direct\n":                                 `parameter "int" has no name`,
		"void goabt_go_a(void (*f)(void))\n    direct\n":                    "a function pointer crosses as uintptr_t",
		"int goabt_go_a(int x)\n    gated int goabt_a(void) else 0\n":       "the wrapper has 0 parameters, the export 1",
		"int goabt_go_a(void)\n    gated int goabt_a(void)\n":               "else VALUE",
		"void goabt_go_a(void)\n    gated void goabt_a(void) else 0\n":      "a void wrapper has no else",
		"void goabt_go_a(void)\n    gated int goabt_a(void) else 0\n":       "not both void",
		"int goabt_go_a\n    direct\n":                                      "not a declaration",
	} {
		_, err := Parse(strings.NewReader(list))
		require.ErrorContains(t, err, want, list)
	}
}

// TestWriteHeader checks the C written for each kind of entry: a table field for all but test
// entries, and for a gated one a wrapper that casts what differs and returns the else value
// without the Go core.
func TestWriteHeader(t *testing.T) {
	entries, err := Parse(strings.NewReader(`# A key's record, or NULL.
uintptr_t goabt_go_key_create(uintptr_t destructor)
    gated void *goabt_key_create(void (*destructor)(void*)) else 0
void goabt_opal_class_finalize(void)
    direct
int goabt_go_selftest_fault(void)
    test
`))
	require.NoError(t, err)
	require.Equal(t, "key_create", entries[0].Field())
	require.Equal(t, "opal_class_finalize", entries[1].Field())
	var b strings.Builder
	require.NoError(t, WriteHeader(&b, entries))
	h := b.String()
	require.Contains(t, h, "struct goabt_go_entries {\n"+
		"    uintptr_t (*key_create)(uintptr_t destructor);\n"+
		"    void (*opal_class_finalize)(void);\n};\n")
	require.NotContains(t, h, "selftest_fault")
	require.Contains(t, h, `
static void goabt_go_gated_key_create(void *p)
{
    struct goabt_go_call_key_create *c = p;
    c->ret = goabt_go_available() ? goabt_go.key_create(c->a0) : 0;
}

/* A key's record, or NULL. */
static inline void *goabt_key_create(void (*destructor)(void *))
{
    struct goabt_go_call_key_create c = {.a0 = (uintptr_t)destructor};
    goabt_gate(goabt_go_gated_key_create, &c);
    return (void *)c.ret;
}
`)
	b.Reset()
	require.NoError(t, WriteSymbols(&b, entries))
	require.Contains(t, b.String(), "    {offsetof(struct goabt_go_entries, key_create), \"goabt_go_key_create\"},\n"+
		"    {offsetof(struct goabt_go_entries, opal_class_finalize), \"goabt_opal_class_finalize\"},\n};")
}
