// Package gocalls reads capi/gocalls.list, the one list of the Go core's exports that the C
// engine calls and how it calls each, and writes from it the C the engine reaches them through
// (command gengocalls, which make runs): the table goabt_go, the names the loader looks up,
// and the gated wrappers. The list's own comment describes its form.
package gocalls

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Call is how C calls an entry.
type Call int

const (
	// Gated: through a generated wrapper that crosses the gate and loads the Go core.
	Gated Call = iota
	// Direct: the caller calls the table's field itself, on the system stack.
	Direct
	// Test: exported for test programs only; not in the table.
	Test
)

// Entry is one export of the list.
type Entry struct {
	Line    int      // where its declaration is in the list
	Comment []string // the comment lines right above it, without "# "
	Export  Decl     // the export's C declaration
	Call    Call
	Wrapper Decl   // Gated: the wrapper's declaration
	Else    string // Gated, not void: what the wrapper returns when the Go core cannot be used
}

// Field is the entry's name in the table: the export's name without goabt_go_ or goabt_.
func (e Entry) Field() string {
	if f, ok := strings.CutPrefix(e.Export.Name, "goabt_go_"); ok {
		return f
	}
	return strings.TrimPrefix(e.Export.Name, "goabt_")
}

// Decl is a C function declaration.
type Decl struct {
	Return string // the return type, normalized (NormType)
	Name   string
	Params []Param // none for (void)
}

// Param is one parameter of a Decl.
type Param struct {
	Decl string // as written, normalized: "const int *allowed", "void (*destructor)(void *)"
	Type string // Decl without the name: "const int *", "void (*)(void *)"
	Name string
}

// ParseFile reads the list at path.
func ParseFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s:%v", path, err)
	}
	return entries, nil
}

// Parse reads a list; an error names the line ("12: ...").
func Parse(r io.Reader) ([]Entry, error) {
	var entries []Entry
	var comment []string
	open := -1 // the index of the entry whose call line comes next, or -1
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		line := strings.TrimSpace(text)
		fail := func(format string, args ...any) ([]Entry, error) {
			return nil, fmt.Errorf("%d: %s", n, fmt.Sprintf(format, args...))
		}
		switch {
		case line == "":
			comment = nil
		case strings.HasPrefix(line, "#"):
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case text[0] != ' ' && text[0] != '\t':
			if open >= 0 {
				return fail("%s has no call line", entries[open].Export.Name)
			}
			d, err := ParseDecl(line)
			if err != nil {
				return fail("%v", err)
			}
			if !strings.HasPrefix(d.Name, "goabt_") {
				return fail("%s: an export's name starts with goabt_", d.Name)
			}
			for _, p := range d.Params {
				if strings.Contains(p.Type, "(") {
					return fail("%s: parameter %s: a function pointer crosses as uintptr_t", d.Name, p.Name)
				}
			}
			e := Entry{Line: n, Comment: comment, Export: d}
			if prev, ok := seen[e.Field()]; ok {
				return fail("%s: field %s is taken (line %d)", d.Name, e.Field(), prev)
			}
			seen[e.Field()] = n
			entries = append(entries, e)
			open, comment = len(entries)-1, nil
		default:
			if open < 0 {
				return fail("a call line without an export above it")
			}
			if err := parseCall(&entries[open], line); err != nil {
				return fail("%s: %v", entries[open].Export.Name, err)
			}
			open, comment = -1, nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if open >= 0 {
		return nil, fmt.Errorf("%d: %s has no call line", entries[open].Line, entries[open].Export.Name)
	}
	return entries, nil
}

func parseCall(e *Entry, line string) error {
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "direct", "test":
		if rest != "" {
			return fmt.Errorf("nothing follows %s", word)
		}
		e.Call = map[string]Call{"direct": Direct, "test": Test}[word]
		return nil
	case "gated":
	default:
		return fmt.Errorf("%q: gated, direct or test expected", word)
	}
	e.Call = Gated
	decl, value, hasElse := strings.Cut(rest, " else ")
	w, err := ParseDecl(strings.TrimSpace(decl))
	if err != nil {
		return err
	}
	e.Wrapper, e.Else = w, strings.TrimSpace(value)
	switch {
	case len(w.Params) != len(e.Export.Params):
		return fmt.Errorf("the wrapper has %d parameters, the export %d", len(w.Params), len(e.Export.Params))
	case (e.Export.Return == "void") != (w.Return == "void"):
		return fmt.Errorf("the wrapper and the export are not both void")
	case w.Return == "void" && hasElse:
		return fmt.Errorf("a void wrapper has no else")
	case w.Return != "void" && e.Else == "":
		return fmt.Errorf("what the wrapper returns without the Go core is missing (else VALUE)")
	}
	return nil
}

var (
	tokenRE    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*|[*(),]|\S`)
	identRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	typeWordRE = regexp.MustCompile(`^(void|char|short|int|long|unsigned|signed|float|double|_Bool|const|volatile|struct|union|enum)$`)
)

// ParseDecl parses a function declaration "RET NAME(PARAMS)", an optional trailing ";" aside.
func ParseDecl(s string) (Decl, error) {
	toks := tokenRE.FindAllString(strings.TrimSuffix(strings.TrimSpace(s), ";"), -1)
	open := -1
	for i, t := range toks {
		if t == "(" {
			open = i
			break
		}
	}
	if open < 2 || !identRE.MatchString(toks[open-1]) || toks[len(toks)-1] != ")" {
		return Decl{}, fmt.Errorf("%q: not a declaration RETURN-TYPE NAME(PARAMETERS)", s)
	}
	d := Decl{Return: joinTokens(toks[:open-1]), Name: toks[open-1]}
	inner := toks[open+1 : len(toks)-1]
	if len(inner) == 1 && inner[0] == "void" {
		return d, nil
	}
	depth, start := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i < len(inner) {
			switch inner[i] {
			case "(":
				depth++
				continue
			case ")":
				depth--
				continue
			case ",":
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		p, err := parseParam(inner[start:i])
		if err != nil {
			return Decl{}, fmt.Errorf("%s: %v", d.Name, err)
		}
		d.Params = append(d.Params, p)
		start = i + 1
	}
	return d, nil
}

// parseParam parses "TYPE NAME" or a function pointer "RET (*NAME)(PARAMS)".
func parseParam(toks []string) (Param, error) {
	name := -1
	for i := 0; i+2 < len(toks); i++ {
		if toks[i] == "(" && toks[i+1] == "*" && identRE.MatchString(toks[i+2]) {
			name = i + 2
			break
		}
	}
	if name < 0 && len(toks) >= 2 && identRE.MatchString(toks[len(toks)-1]) &&
		!typeWordRE.MatchString(toks[len(toks)-1]) {
		name = len(toks) - 1
	}
	if name < 0 {
		return Param{}, fmt.Errorf("parameter %q has no name", joinTokens(toks))
	}
	typ := append(append([]string{}, toks[:name]...), toks[name+1:]...)
	return Param{Decl: joinTokens(toks), Type: joinTokens(typ), Name: toks[name]}, nil
}

// NormType writes a C type or declarator in one spelling: "char*" and "char *" are "char *",
// "void(*)(void*)" is "void (*)(void *)".
func NormType(s string) string { return joinTokens(tokenRE.FindAllString(s, -1)) }

func joinTokens(toks []string) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			prev := toks[i-1]
			switch {
			case prev == "(" || t == ")" || t == ",":
			case prev == "*":
			case prev == ")" && t == "(":
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(t)
	}
	return b.String()
}
