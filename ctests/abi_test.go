package ctests

// The ABI conformance test: include/abt.h and the exports of libgoabt.so against the Argobots 1.2
// manifest abi/argobots-1.2.json.
//
// The header is parsed and type checked with modernc.org/cc/v4 using the host gcc's predefined
// macros and include paths. Types are compared as C spellings built from the parsed types: a type
// reached through a typedef is written with the typedef's name (so ABT_thread must be declared as
// ABT_thread, not as struct ABT_thread_opaque *), everything else with C's declarator syntax
// ("void (*)(void *)", "int [16]"), and both sides are compared token by token. Constant macros
// are evaluated by cc/v4 as C expressions in the header's scope; the other macros are compared as
// token lists with the manifest's definitions, tokenized by the same preprocessor. Struct and
// typedef layouts are compared with a header generated from the manifest itself, laid out the
// way gcc does. Every difference is reported by name; the test fails on any.

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"modernc.org/cc/v4"
)

// ---------------------------------------------------------------------------------------------
// The manifest
// ---------------------------------------------------------------------------------------------

type abiManifest struct {
	Version    string        `json:"version"`
	NumVersion int64         `json:"numversion"`
	Functions  []abiFunction `json:"functions"`
	Macros     []abiMacro    `json:"macros"`
	Variables  []abiVariable `json:"variables"`
	Enums      []abiEnum     `json:"enums"`
	Typedefs   []abiTypedef  `json:"typedefs"`
	Structs    []abiStruct   `json:"structs"`
}

type abiFunction struct {
	Name       string `json:"name"`
	ReturnType string `json:"return_type"`
	Params     []struct {
		Name *string `json:"name"`
		Type string  `json:"type"`
	} `json:"params"`
	ParamTypes []string `json:"param_types"` // a variadic function ends with "..."
	Deprecated bool     `json:"deprecated"`
}

// abiMacro kinds: integer_constant, pointer_constant (value and c_type), string (value),
// function_alias (alias_of), function_like_macro (params), initializer, annotation, empty.
type abiMacro struct {
	Name         string          `json:"name"`
	FunctionLike bool            `json:"function_like"`
	Params       []string        `json:"params"`
	Definition   string          `json:"definition"`
	Kind         string          `json:"kind"`
	CType        string          `json:"c_type"`
	Value        json.RawMessage `json:"value"`
	AliasOf      string          `json:"alias_of"`
}

type abiVariable struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Storage []string `json:"storage"`
}

type abiEnum struct {
	Tag         *string `json:"tag"`
	Typedef     *string `json:"typedef"`
	Enumerators []struct {
		Name  string `json:"name"`
		Value int64  `json:"value"`
	} `json:"enumerators"`
}

func (e *abiEnum) label() string {
	if e.Tag != nil {
		return "enum " + *e.Tag
	}
	return "enum typedef " + deref(e.Typedef)
}

type abiTypedef struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type abiStruct struct {
	Kind    string  `json:"kind"` // struct or union
	Tag     *string `json:"tag"`
	Typedef *string `json:"typedef"`
	Fields  []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"fields"`
}

func (s *abiStruct) label() string {
	if s.Tag != nil {
		return s.Kind + " " + *s.Tag
	}
	return s.Kind + " typedef " + deref(s.Typedef)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func loadManifest(t testing.TB) *abiManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "abi", "argobots-1.2.json"))
	require.NoError(t, err)
	var m abiManifest
	require.NoError(t, json.Unmarshal(b, &m))
	require.NotEmpty(t, m.Functions)
	return &m
}

// ---------------------------------------------------------------------------------------------
// Parsing with cc/v4
// ---------------------------------------------------------------------------------------------

// ccConfig asks the host gcc once for its predefined macros and include paths.
var ccConfig = sync.OnceValues(func() (*cc.Config, error) {
	return cc.NewConfig(runtime.GOOS, runtime.GOARCH)
})

// manifestMacroName names the macro that holds manifest macro i's definition in the parsed
// translation unit, so that both sides are tokenized by the same preprocessor.
func manifestMacroName(i int) string { return fmt.Sprintf("__abi_manifest_macro_%d", i) }

// translate parses and type checks a header (a file name, or C text when text is not empty),
// followed by the manifest's macro definitions under names of their own.
func translate(m *abiManifest, name, text string) (*cc.AST, error) {
	base, err := ccConfig()
	if err != nil {
		return nil, err
	}
	cfg := *base
	cfg.EvalAllMacros = true // evaluate object-like macros as C expressions in file scope
	cfg.ABILayout = true     // lay out structs as gcc does
	var defs strings.Builder
	for i, mm := range m.Macros {
		fmt.Fprintf(&defs, "#define %s", manifestMacroName(i))
		if mm.FunctionLike {
			fmt.Fprintf(&defs, "(%s)", strings.Join(mm.Params, ", "))
		}
		fmt.Fprintf(&defs, " %s\n", mm.Definition)
	}
	header := cc.Source{Name: name}
	if text != "" {
		header.Value = text
	}
	return cc.Translate(&cfg, []cc.Source{
		{Name: "<predefined>", Value: cfg.Predefined},
		{Name: "<builtin>", Value: cc.Builtin},
		header,
		{Name: "<abi-manifest-macros>", Value: defs.String()},
	})
}

// headerDecl is a file-scope declarator of the header with the specifiers of its declaration.
type headerDecl struct {
	d     *cc.Declarator
	specs *cc.DeclarationSpecifiers
}

// headerDecls lists the file-scope declarators of ast that come from files in dir, in order.
func headerDecls(ast *cc.AST, dir string) []headerDecl {
	var r []headerDecl
	for tu := ast.TranslationUnit; tu != nil; tu = tu.TranslationUnit {
		ed := tu.ExternalDeclaration
		if ed == nil || !inDir(ed.Position().Filename, dir) {
			continue
		}
		switch {
		case ed.FunctionDefinition != nil:
			r = append(r, headerDecl{ed.FunctionDefinition.Declarator, ed.FunctionDefinition.DeclarationSpecifiers})
		case ed.Declaration != nil:
			for l := ed.Declaration.InitDeclaratorList; l != nil; l = l.InitDeclaratorList {
				if l.InitDeclarator != nil && l.InitDeclarator.Declarator != nil {
					r = append(r, headerDecl{l.InitDeclarator.Declarator, ed.Declaration.DeclarationSpecifiers})
				}
			}
		}
	}
	return r
}

func inDir(file, dir string) bool {
	rel, err := filepath.Rel(dir, file)
	return err == nil && filepath.IsAbs(file) && !strings.HasPrefix(rel, "..")
}

// ---------------------------------------------------------------------------------------------
// C spellings of types
// ---------------------------------------------------------------------------------------------

// cTypeString spells t as a C type name: typedef names where t was reached through a typedef,
// except for the typedef skip itself at the top (to spell what a typedef stands for).
func cTypeString(t cc.Type, skip *cc.Declarator) string { return cDecl(t, "", skip) }

// cDecl spells a declaration of inner (a declarator without its name) with type t.
func cDecl(t cc.Type, inner string, skip *cc.Declarator) string {
	if t == nil {
		return withInner("<nil type>", inner)
	}
	if td := t.Typedef(); td != nil && td != skip {
		return withInner(qualifiers(t)+td.Name(), inner)
	}
	switch x := t.(type) {
	case *cc.PointerType:
		s := "*"
		if q := strings.TrimSpace(qualifiers(x)); q != "" {
			s += q + " "
		}
		s += inner
		switch x.Elem().(type) {
		case *cc.ArrayType, *cc.FunctionType:
			s = "(" + s + ")"
		}
		return cDecl(x.Elem(), s, nil)
	case *cc.ArrayType:
		n := ""
		if x.Len() >= 0 {
			n = fmt.Sprint(x.Len())
		}
		return cDecl(x.Elem(), inner+"["+n+"]", nil)
	case *cc.FunctionType:
		var ps []string
		if x.MaxArgs() != 0 { // (void) has one parameter of type void
			for _, p := range x.Parameters() {
				ps = append(ps, cTypeString(p.Type(), nil))
			}
		}
		if x.IsVariadic() {
			ps = append(ps, "...")
		}
		if x.MaxArgs() == 0 {
			ps = []string{"void"}
		}
		return cDecl(x.Result(), inner+"("+strings.Join(ps, ", ")+")", nil)
	case *cc.StructType:
		return withInner(qualifiers(x)+"struct "+tagOrAnonymous(x.Tag()), inner)
	case *cc.UnionType:
		return withInner(qualifiers(x)+"union "+tagOrAnonymous(x.Tag()), inner)
	case *cc.EnumType:
		return withInner(qualifiers(x)+"enum "+tagOrAnonymous(x.Tag()), inner)
	case *cc.PredefinedType:
		return withInner(qualifiers(x)+kindName(x.Kind()), inner)
	}
	return withInner(fmt.Sprintf("<%s>", t), inner)
}

func withInner(base, inner string) string {
	if inner == "" {
		return base
	}
	return base + " " + inner
}

func qualifiers(t cc.Type) string {
	a := t.Attributes()
	s := ""
	if a.IsConst() {
		s += "const "
	}
	if a.IsVolatile() {
		s += "volatile "
	}
	return s
}

func tagOrAnonymous(tag cc.Token) string {
	if s := tag.SrcStr(); s != "" {
		return s
	}
	return "<anonymous>"
}

func kindName(k cc.Kind) string {
	if k == cc.UInt {
		return "unsigned int"
	}
	return k.String()
}

// typedefString spells the type a typedef stands for, keeping the name of a typedef it is
// defined as (typedef ABT_unit_id ABT_thread_id).
func typedefString(hd headerDecl) string {
	if !derived(hd.d) && hd.specs != nil && hd.specs.Type() != nil {
		return cTypeString(hd.specs.Type(), nil)
	}
	return cTypeString(hd.d.Type(), hd.d)
}

// derived reports whether a declarator adds a pointer, array or function to its specifiers.
func derived(d *cc.Declarator) bool {
	if d.Pointer != nil {
		return true
	}
	dd := d.DirectDeclarator
	for dd != nil && dd.Case == cc.DirectDeclaratorDecl {
		if dd.Declarator.Pointer != nil {
			return true
		}
		dd = dd.Declarator.DirectDeclarator
	}
	return dd == nil || dd.Case != cc.DirectDeclaratorIdent
}

var cTokenRE = regexp.MustCompile(`<anonymous>|\.\.\.|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\S`)

// sameType compares two type spellings token by token, ignoring white space.
func sameType(a, b string) bool {
	return slices.Equal(cTokenRE.FindAllString(a, -1), cTokenRE.FindAllString(b, -1))
}

// tokenString joins a macro's replacement tokens with single spaces.
func tokenString(toks []cc.Token) string {
	var s []string
	for _, t := range toks {
		s = append(s, t.SrcStr())
	}
	return strings.Join(s, " ")
}

func tokenNames(toks []cc.Token) []string {
	s := []string{}
	for _, t := range toks {
		s = append(s, t.SrcStr())
	}
	return s
}

// ---------------------------------------------------------------------------------------------
// The comparison
// ---------------------------------------------------------------------------------------------

// abiReport collects the differences, what was compared and remarks that are not differences.
type abiReport struct {
	diffs []string
	notes []string
	// exports are the functions the library must define: the manifest's and any other ABT_
	// function the header declares.
	exports []string
	// What was compared.
	functions, macros, enums, enumerators, typedefs, structs, fields, variables, symbols int
}

func (r *abiReport) add(format string, args ...any) {
	r.diffs = append(r.diffs, fmt.Sprintf(format, args...))
}

func (r *abiReport) summary() string {
	return fmt.Sprintf("ABI: %d functions, %d macros, %d enums (%d enumerators), %d typedefs, "+
		"%d structs (%d fields), %d variables, %d library symbols compared, %d differences",
		r.functions, r.macros, r.enums, r.enumerators, r.typedefs, r.structs, r.fields,
		r.variables, r.symbols, len(r.diffs))
}

// compareHeader compares the header at path with the manifest. An error means the header (or
// the reference header generated from the manifest) could not be parsed at all.
func compareHeader(m *abiManifest, path string) (*abiReport, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	ast, err := translate(m, path, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The reference for layouts: the manifest's declarations as a header, laid out the same way.
	// It is parsed from memory; refDir only names it.
	const refDir = "/abi-manifest-reference"
	ref, err := translate(m, filepath.Join(refDir, "abt.h"), generateHeader(m))
	if err != nil {
		return nil, fmt.Errorf("header generated from the manifest: %w", err)
	}
	c := &headerComparison{m: m, r: &abiReport{}, ast: ast, ref: ref,
		decls: headerDecls(ast, filepath.Dir(path)), refDecls: headerDecls(ref, refDir)}
	c.functions()
	c.macros(filepath.Dir(path))
	c.enums()
	c.typedefs()
	c.structs()
	c.variables()
	return c.r, nil
}

type headerComparison struct {
	m               *abiManifest
	r               *abiReport
	ast, ref        *cc.AST
	decls, refDecls []headerDecl
}

// lookup finds the first header declarator named name (a typedef if typedef is set).
func lookup(decls []headerDecl, name string, typedef bool) (headerDecl, bool) {
	for _, hd := range decls {
		if hd.d.Name() == name && hd.d.IsTypename() == typedef {
			return hd, true
		}
	}
	return headerDecl{}, false
}

func (c *headerComparison) functions() {
	declared := map[string]headerDecl{}
	var order []string
	for _, hd := range c.decls {
		if _, ok := hd.d.Type().(*cc.FunctionType); ok && !hd.d.IsTypename() && strings.HasPrefix(hd.d.Name(), "ABT_") {
			if _, dup := declared[hd.d.Name()]; !dup {
				declared[hd.d.Name()] = hd
				order = append(order, hd.d.Name())
			}
		}
	}
	want := map[string]bool{}
	for _, f := range c.m.Functions {
		want[f.Name] = true
		c.r.exports = append(c.r.exports, f.Name)
		c.r.functions++
		hd, ok := declared[f.Name]
		if !ok {
			c.r.add("function %s: not declared", f.Name)
			continue
		}
		ft := hd.d.Type().(*cc.FunctionType)
		if got := cTypeString(ft.Result(), nil); !sameType(got, f.ReturnType) {
			c.r.add("function %s: return type %q, manifest %q", f.Name, got, f.ReturnType)
		}
		var got []string
		if ft.MaxArgs() != 0 {
			for _, p := range ft.Parameters() {
				got = append(got, cTypeString(p.Type(), nil))
			}
		}
		if ft.IsVariadic() {
			got = append(got, "...")
		}
		if len(ft.Parameters()) == 0 && !ft.IsVariadic() {
			want := strings.Join(f.ParamTypes, ", ")
			if want == "" {
				want = "void"
			}
			c.r.add("function %s: declared without a prototype, manifest (%s)", f.Name, want)
		} else if len(got) != len(f.ParamTypes) {
			c.r.add("function %s: %d parameters (%s), manifest %d (%s)", f.Name,
				len(got), strings.Join(got, ", "), len(f.ParamTypes), strings.Join(f.ParamTypes, ", "))
		} else {
			for i := range got {
				if !sameType(got[i], f.ParamTypes[i]) {
					c.r.add("function %s: parameter %d type %q, manifest %q", f.Name, i+1, got[i], f.ParamTypes[i])
				}
			}
		}
		attrs := hd.d.Type().Attributes()
		dep := attrs != nil && (attrs.IsAttrSet("deprecated") || attrs.IsAttrSet("__deprecated__"))
		if dep != f.Deprecated {
			c.r.add("function %s: deprecated attribute %v, manifest %v", f.Name, dep, f.Deprecated)
		}
	}
	for _, name := range order {
		if !want[name] {
			c.r.add("function %s: declared, not in the manifest", name)
			c.r.exports = append(c.r.exports, name)
		}
	}
}

func (c *headerComparison) macros(dir string) {
	known := map[string]bool{}
	for i, mm := range c.m.Macros {
		known[mm.Name] = true
		c.r.macros++
		got, ok := c.ast.Macros[mm.Name]
		if !ok {
			c.r.add("macro %s: not defined", mm.Name)
			continue
		}
		want := c.ast.Macros[manifestMacroName(i)]
		if got.IsFnLike != mm.FunctionLike {
			c.r.add("macro %s: function-like %v, manifest %v", mm.Name, got.IsFnLike, mm.FunctionLike)
			continue
		}
		if mm.FunctionLike {
			if params := tokenNames(got.Params); !slices.Equal(params, mm.Params) || got.VarArg != want.VarArg {
				c.r.add("macro %s: parameters (%s), manifest (%s)", mm.Name, strings.Join(params, ", "), strings.Join(mm.Params, ", "))
			}
		}
		switch mm.Kind {
		case "integer_constant", "pointer_constant":
			var wantValue int64
			if err := json.Unmarshal(mm.Value, &wantValue); err != nil {
				c.r.add("macro %s: manifest value %s: %v", mm.Name, mm.Value, err)
				continue
			}
			value, isInt := intValue(got.Value())
			if !isInt {
				c.r.add("macro %s: not an integer constant expression (%s), manifest %s = %d",
					mm.Name, tokenString(got.ReplacementList()), mm.Definition, wantValue)
				continue
			}
			if value != wantValue {
				c.r.add("macro %s: value %d, manifest %d", mm.Name, value, wantValue)
			}
			typ := ""
			if mm.Kind == "pointer_constant" {
				if got.Type().Kind() == cc.Ptr {
					typ = cTypeString(got.Type(), nil)
				} else {
					typ = kindName(got.Type().Kind())
				}
			} else {
				typ = kindName(got.Type().Kind()) // integer types by kind: uint64_t is unsigned long
			}
			if !sameType(typ, mm.CType) {
				c.r.add("macro %s: type %q, manifest %q", mm.Name, typ, mm.CType)
			}
		case "string":
			var wantValue string
			if err := json.Unmarshal(mm.Value, &wantValue); err != nil {
				c.r.add("macro %s: manifest value %s: %v", mm.Name, mm.Value, err)
				continue
			}
			s, ok := got.Value().(cc.StringValue)
			if !ok {
				c.r.add("macro %s: not a string literal (%s), manifest %s", mm.Name, tokenString(got.ReplacementList()), mm.Definition)
			} else if v := strings.TrimSuffix(string(s), "\x00"); v != wantValue {
				c.r.add("macro %s: value %q, manifest %q", mm.Name, v, wantValue)
			}
		default: // function_alias, function_like_macro, initializer, annotation, empty
			if g, w := tokenString(got.ReplacementList()), tokenString(want.ReplacementList()); g != w {
				c.r.add("macro %s: defined as %q, manifest %q", mm.Name, g, w)
			}
		}
	}
	var extra []string
	for name, mac := range c.ast.Macros {
		if strings.HasPrefix(name, "ABT_") && !known[name] && inDir(mac.Position().Filename, dir) {
			extra = append(extra, name)
		}
	}
	if len(extra) != 0 {
		slices.Sort(extra)
		c.r.notes = append(c.r.notes, "ABT_ macros not in the manifest: "+strings.Join(extra, " "))
	}
}

func intValue(v cc.Value) (int64, bool) {
	switch x := v.(type) {
	case cc.Int64Value:
		return int64(x), true
	case cc.UInt64Value:
		return int64(x), true
	}
	return 0, false
}

// findTagged finds the defining struct, union or enum specifier of a tag in file scope.
func findTagged(ast *cc.AST, tag string) (cc.Type, bool) {
	for _, n := range ast.Scope.Nodes[tag] {
		switch x := n.(type) {
		case *cc.StructOrUnionSpecifier:
			if x.Case == cc.StructOrUnionSpecifierDef {
				return x.Type(), true
			}
		case *cc.EnumSpecifier:
			if x.Case == cc.EnumSpecifierDef {
				return x.Type(), true
			}
		}
	}
	return nil, false
}

// findType finds the type a manifest entry names by tag or, without one, by typedef.
func findType(ast *cc.AST, decls []headerDecl, tag, typedef *string) (cc.Type, bool) {
	if tag != nil {
		return findTagged(ast, *tag)
	}
	if hd, ok := lookup(decls, deref(typedef), true); ok {
		return hd.d.Type(), true
	}
	return nil, false
}

func (c *headerComparison) enums() {
	for _, e := range c.m.Enums {
		c.r.enums++
		c.r.enumerators += len(e.Enumerators)
		t, ok := findType(c.ast, c.decls, e.Tag, e.Typedef)
		if !ok {
			c.r.add("%s: not defined", e.label())
			continue
		}
		et, ok := t.(*cc.EnumType)
		if !ok {
			c.r.add("%s: is %s, not an enum", e.label(), cTypeString(t, nil))
			continue
		}
		if tag := et.Tag(); e.Tag == nil && tag.SrcStr() != "" {
			c.r.add("%s: has tag %s, manifest none", e.label(), tag.SrcStr())
		}
		var gotNames, wantNames []string
		gotValues := map[string]int64{}
		for _, en := range et.Enumerators() {
			gotValues[en.Token.SrcStr()], _ = intValue(en.Value())
			gotNames = append(gotNames, en.Token.SrcStr())
		}
		for _, en := range e.Enumerators {
			wantNames = append(wantNames, en.Name)
		}
		if !slices.Equal(gotNames, wantNames) {
			c.r.add("%s: enumerators {%s}, manifest {%s}", e.label(), strings.Join(gotNames, ", "), strings.Join(wantNames, ", "))
			continue
		}
		for _, en := range e.Enumerators {
			if v := gotValues[en.Name]; v != en.Value {
				c.r.add("%s: enumerator %s = %d, manifest %d", e.label(), en.Name, v, en.Value)
			}
		}
	}
}

func (c *headerComparison) typedefs() {
	for _, td := range c.m.Typedefs {
		c.r.typedefs++
		hd, ok := lookup(c.decls, td.Name, true)
		if !ok {
			c.r.add("typedef %s: not defined", td.Name)
			continue
		}
		if got := typedefString(hd); !sameType(got, td.Type) {
			c.r.add("typedef %s: type %q, manifest %q", td.Name, got, td.Type)
			continue
		}
		// Struct and union layouts are compared field by field in structs.
		if ref, ok := lookup(c.refDecls, td.Name, true); ok && ref.d.Type().Kind() != cc.Struct && ref.d.Type().Kind() != cc.Union {
			c.compareLayout("typedef "+td.Name, hd.d.Type(), ref.d.Type())
		}
	}
}

// compareLayout compares size and alignment with the type laid out from the manifest.
func (c *headerComparison) compareLayout(what string, got, want cc.Type) {
	if want.Size() < 0 || want.Kind() == cc.Function {
		return
	}
	if got.Size() != want.Size() || got.Align() != want.Align() {
		c.r.add("%s: size %d align %d, manifest layout size %d align %d", what, got.Size(), got.Align(), want.Size(), want.Align())
	}
}

func (c *headerComparison) structs() {
	for _, s := range c.m.Structs {
		c.r.structs++
		c.r.fields += len(s.Fields)
		t, ok := findType(c.ast, c.decls, s.Tag, s.Typedef)
		if !ok {
			c.r.add("%s: not defined", s.label())
			continue
		}
		var fields []*cc.Field
		var tag cc.Token
		switch x := t.(type) {
		case *cc.StructType:
			if s.Kind != "struct" {
				c.r.add("%s: is a struct", s.label())
				continue
			}
			tag = x.Tag()
			for i := 0; i < x.NumFields(); i++ {
				fields = append(fields, x.FieldByIndex(i))
			}
		case *cc.UnionType:
			if s.Kind != "union" {
				c.r.add("%s: is a union", s.label())
				continue
			}
			tag = x.Tag()
			for i := 0; i < x.NumFields(); i++ {
				fields = append(fields, x.FieldByIndex(i))
			}
		default:
			c.r.add("%s: is %s", s.label(), cTypeString(t, nil))
			continue
		}
		if s.Tag == nil && tag.SrcStr() != "" {
			c.r.add("%s: has tag %s, manifest none", s.label(), tag.SrcStr())
		}
		var got, want []string
		for _, f := range fields {
			got = append(got, f.Name()+": "+cTypeString(f.Type(), nil))
		}
		for _, f := range s.Fields {
			want = append(want, f.Name+": "+f.Type)
		}
		same := len(got) == len(want)
		for i := 0; same && i < len(got); i++ {
			same = sameType(got[i], want[i])
		}
		if !same {
			c.r.add("%s: fields {%s}, manifest {%s}", s.label(), strings.Join(got, "; "), strings.Join(want, "; "))
			continue
		}
		ref, ok := findType(c.ref, c.refDecls, s.Tag, s.Typedef)
		if !ok {
			continue
		}
		c.compareLayout(s.label(), t, ref)
		for i, f := range fields {
			var wantOff int64
			switch x := ref.(type) {
			case *cc.StructType:
				wantOff = x.FieldByIndex(i).Offset()
			case *cc.UnionType:
				wantOff = x.FieldByIndex(i).Offset()
			}
			if f.Offset() != wantOff {
				c.r.add("%s: field %s at offset %d, manifest layout %d", s.label(), f.Name(), f.Offset(), wantOff)
			}
		}
	}
}

func (c *headerComparison) variables() {
	for _, v := range c.m.Variables {
		c.r.variables++
		hd, ok := lookup(c.decls, v.Name, false)
		if !ok {
			c.r.add("variable %s: not declared", v.Name)
			continue
		}
		if got := cTypeString(hd.d.Type(), nil); !sameType(got, v.Type) {
			c.r.add("variable %s: type %q, manifest %q", v.Name, got, v.Type)
		}
		if slices.Contains(v.Storage, "extern") && !hd.d.IsExtern() {
			c.r.add("variable %s: not declared extern", v.Name)
		}
	}
}

// compareLibrary requires the shared library at path to define every function in functions and
// every variable in variables as a dynamic symbol.
func compareLibrary(r *abiReport, path string, functions, variables []string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return err
	}
	defined := map[string]elf.SymType{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL {
			defined[s.Name] = elf.ST_TYPE(s.Info)
		}
	}
	base := filepath.Base(path)
	check := func(what, name string, want elf.SymType) {
		r.symbols++
		typ, ok := defined[name]
		switch {
		case !ok:
			r.add("%s %s: not exported by %s", what, name, base)
		case typ != want:
			r.add("%s %s: exported by %s as %v, want %v", what, name, base, typ, want)
		}
	}
	for _, name := range functions {
		check("function", name, elf.STT_FUNC)
	}
	for _, name := range variables {
		check("variable", name, elf.STT_OBJECT)
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// A header generated from the manifest
// ---------------------------------------------------------------------------------------------

// declare puts name into a manifest type spelling: "void (*)(void *)" becomes
// "void (*name)(void *)", "int [16]" becomes "int name[16]".
func declare(typ, name string) string {
	if name == "" {
		return typ
	}
	if i := strings.Index(typ, "(*"); i >= 0 {
		j := i + 1
		for j < len(typ) && typ[j] == '*' {
			j++
		}
		return typ[:j] + name + typ[j:]
	}
	if i := strings.Index(typ, "["); i >= 0 {
		return strings.TrimSpace(typ[:i]) + " " + name + typ[i:]
	}
	return typ + " " + name
}

// generateHeader writes the manifest as a C header: the reference for layouts, and the
// starting point of the comparer's self-check.
func generateHeader(m *abiManifest) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("/* Generated from abi/argobots-1.2.json by ctests/abi_test.go. */\n")
	p("#ifndef ABT_H_INCLUDED\n#define ABT_H_INCLUDED\n\n")
	p("#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <time.h>\n\n")
	for _, mm := range m.Macros {
		if mm.Name == "ABT_H_INCLUDED" {
			continue
		}
		p("#define %s", mm.Name)
		if mm.FunctionLike {
			p("(%s)", strings.Join(mm.Params, ", "))
		}
		p(" %s\n", mm.Definition)
	}
	p("\n")
	enumBody := func(e abiEnum) string {
		var l []string
		for _, en := range e.Enumerators {
			l = append(l, fmt.Sprintf("    %s = %d", en.Name, en.Value))
		}
		return "{\n" + strings.Join(l, ",\n") + "\n}"
	}
	structBody := func(s abiStruct) string {
		var l strings.Builder
		for _, f := range s.Fields {
			fmt.Fprintf(&l, "    %s;\n", declare(f.Type, f.Name))
		}
		return "{\n" + l.String() + "}"
	}
	for _, e := range m.Enums {
		if e.Tag != nil {
			p("enum %s %s;\n", *e.Tag, enumBody(e))
		}
	}
	done := map[int]bool{}
	for _, td := range m.Typedefs {
		switch {
		case td.Type == "enum <anonymous>":
			for _, e := range m.Enums {
				if e.Tag == nil && deref(e.Typedef) == td.Name {
					p("typedef enum %s %s;\n", enumBody(e), td.Name)
				}
			}
			continue
		case td.Type == "struct <anonymous>" || td.Type == "union <anonymous>":
			for i, s := range m.Structs {
				if s.Tag == nil && deref(s.Typedef) == td.Name {
					p("typedef %s %s %s;\n", s.Kind, structBody(s), td.Name)
					done[i] = true
				}
			}
			continue
		}
		for i, s := range m.Structs {
			if s.Tag != nil && !done[i] && td.Type == s.Kind+" "+*s.Tag {
				p("%s %s %s;\n", s.Kind, *s.Tag, structBody(s))
				done[i] = true
			}
		}
		p("typedef %s;\n", declare(td.Type, td.Name))
	}
	for i, s := range m.Structs {
		if !done[i] && s.Tag != nil {
			p("%s %s %s;\n", s.Kind, *s.Tag, structBody(s))
		}
	}
	p("\n")
	for _, v := range m.Variables {
		p("%s %s;\n", strings.Join(v.Storage, " "), declare(v.Type, v.Name))
	}
	p("\n")
	for _, f := range m.Functions {
		var ps []string
		for _, prm := range f.Params {
			ps = append(ps, declare(prm.Type, deref(prm.Name)))
		}
		if len(ps) == 0 {
			ps = []string{"void"}
		}
		dep := ""
		if f.Deprecated {
			dep = " ABT_DEPRECATED"
		}
		p("%s%s;\n", declare(f.ReturnType, f.Name+"("+strings.Join(ps, ", ")+")"), dep)
	}
	p("\n#endif /* ABT_H_INCLUDED */\n")
	return b.String()
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

// TestABI compares include/abt.h and libgoabt.so with the Argobots 1.2 manifest.
func TestABI(t *testing.T) {
	m := loadManifest(t)
	header := filepath.Join(repoRoot, "include", "abt.h")
	r, err := compareHeader(m, header)
	require.NoError(t, err, "include/abt.h must parse")
	lib := filepath.Join(repoRoot, "build", "lib", "libgoabt.so")
	var vars []string
	for _, v := range m.Variables {
		vars = append(vars, v.Name)
	}
	require.NoError(t, compareLibrary(r, lib, r.exports, vars))
	for _, d := range r.diffs {
		t.Error(d)
	}
	for _, n := range r.notes {
		t.Log(n)
	}
	t.Log(r.summary())
}

// TestABIComparerDetectsDifferences proves that the comparer accepts a header that matches the
// manifest and reports exactly the differences planted in a copy of it.
func TestABIComparerDetectsDifferences(t *testing.T) {
	m := loadManifest(t)
	dir := t.TempDir()
	good := generateHeader(m)
	goodPath := filepath.Join(dir, "good", "abt.h")
	require.NoError(t, os.MkdirAll(filepath.Dir(goodPath), 0o755))
	require.NoError(t, os.WriteFile(goodPath, []byte(good), 0o644))

	// The generated header is valid C for gcc too.
	probe := filepath.Join(dir, "probe.c")
	require.NoError(t, os.WriteFile(probe, []byte("#include \"good/abt.h\"\nint main(void) { return ABT_SUCCESS; }\n"), 0o644))
	out, err := exec.Command("gcc", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", probe).CombinedOutput()
	require.NoError(t, err, "gcc on the generated header:\n%s", out)

	r, err := compareHeader(m, goodPath)
	require.NoError(t, err)
	assert.Empty(t, r.diffs, "a header generated from the manifest must match it")
	assert.Equal(t, len(m.Functions), r.functions)
	assert.Equal(t, len(m.Macros), r.macros)

	// One wrong constant, one parameter spelled without its typedef, one missing function, one
	// lost deprecated attribute.
	bad := good
	for _, s := range []struct{ old, new string }{
		{"#define ABT_ERR_MEM 2\n", "#define ABT_ERR_MEM 102\n"},
		{"int ABT_thread_create(ABT_pool pool, void (*thread_func)(void *), void * arg, ABT_thread_attr attr, ABT_thread * newthread);\n",
			"int ABT_thread_create(ABT_pool pool, void (*thread_func)(void *), void * arg, ABT_thread_attr attr, struct ABT_thread_opaque **newthread);\n"},
		{"int ABT_xstream_get_rank(ABT_xstream xstream, int * rank);\n", ""},
		{"double abstime_secs) ABT_DEPRECATED;\n", "double abstime_secs);\n"},
	} {
		require.Equal(t, 1, strings.Count(bad, s.old), "generated header line %q", s.old)
		bad = strings.Replace(bad, s.old, s.new, 1)
	}
	badPath := filepath.Join(dir, "bad", "abt.h")
	require.NoError(t, os.MkdirAll(filepath.Dir(badPath), 0o755))
	require.NoError(t, os.WriteFile(badPath, []byte(bad), 0o644))
	r, err = compareHeader(m, badPath)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{
		`macro ABT_ERR_MEM: value 102, manifest 2`,
		`function ABT_thread_create: parameter 5 type "struct ABT_thread_opaque **", manifest "ABT_thread *"`,
		`function ABT_xstream_get_rank: not declared`,
		`function ABT_pool_pop_timedwait: deprecated attribute false, manifest true`,
	}, r.diffs)

	// The library check: a library that lacks one function and one variable.
	lib := filepath.Join(dir, "libpartial.so")
	src := filepath.Join(dir, "partial.c")
	require.NoError(t, os.WriteFile(src, []byte("int ABT_init(int c, char **v) { (void)c; (void)v; return 0; }\nint ABT_finalize(void) { return 0; }\nint ABT_sched_basic_freq = 0;\n"), 0o644))
	out, err = exec.Command("gcc", "-shared", "-fPIC", "-o", lib, src).CombinedOutput()
	require.NoError(t, err, "%s", out)
	lr := &abiReport{}
	require.NoError(t, compareLibrary(lr, lib, []string{"ABT_init", "ABT_finalize", "ABT_initialized"},
		[]string{"ABT_sched_basic_freq", "ABT_sched_config_var_end"}))
	assert.ElementsMatch(t, []string{
		"function ABT_initialized: not exported by libpartial.so",
		"variable ABT_sched_config_var_end: not exported by libpartial.so",
	}, lr.diffs)
	assert.Equal(t, 5, lr.symbols)
}
