// Command genfilter writes the C source of libabt.so.1, goabt's filter library, from the
// Argobots manifest (abi/argobots-1.2.json): `go run ./abi/genfilter abi/argobots-1.2.json`.
//
// libabt.so.1 is linked with --filter=libgoabt.so (Makefile). It defines every function and
// variable of the manifest, so that a program linked -labt against it records Argobots' soname,
// libabt.so.1, and runs on native Argobots as well as on goabt; at run time the loader looks each
// of those symbols up in the filtee, libgoabt.so, first, so the definitions here are never used
// while libgoabt.so has them. A function's definition is a stub that says which function
// libgoabt.so lacks and aborts; a variable's is an object of abt.h's type, which gives the linker
// its size (a program's copy of it is initialized from libgoabt.so's).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

type manifest struct {
	Functions []struct {
		Name string `json:"name"`
	} `json:"functions"`
	Variables []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"variables"`
}

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// A variable's type as the manifest spells it, which the generated definition repeats: a
	// type name, const or not (every variable of Argobots 1.2 has one).
	plainType = regexp.MustCompile(`^(const )?[A-Za-z_][A-Za-z0-9_]*$`)
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genfilter MANIFEST.json > abt_filter.c")
		os.Exit(2)
	}
	if err := generate(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "genfilter:", err)
		os.Exit(1)
	}
}

func generate(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if len(m.Functions) == 0 {
		return fmt.Errorf("%s: no functions", path)
	}
	w := bufio.NewWriter(os.Stdout)
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("/* libabt.so.1, goabt's filter library for libgoabt.so: generated from %s by abi/genfilter\n", path)
	p(" * (its comment says how it works). Do not edit. */\n")
	p("#include <stdio.h>\n#include <stdlib.h>\n#include \"abt.h\"\n\n")
	p("/* Sized by abt.h's types; a program reads libgoabt.so's values. */\n")
	for _, v := range m.Variables {
		if !identifier.MatchString(v.Name) || !plainType.MatchString(v.Type) {
			return fmt.Errorf("%s: variable %q of type %q: genfilter writes only `type name;` definitions", path, v.Name, v.Type)
		}
		p("%s %s;\n", v.Type, v.Name)
	}
	p(`
__attribute__((noreturn)) static void missing(const char *name)
{
    fprintf(stderr, "goabt: libabt.so.1 hands %%s to libgoabt.so, which does not define it: a "
                    "libgoabt.so of another version?\n", name);
    abort();
}

/* Each function: a stub of its own, under the function's name (abt.h's prototype does not
 * apply to it, so the name is given in assembly). */
#define STUB(name)                                                                            \
    __attribute__((used)) static void stub_##name(void) { missing(#name); }                   \
    __asm__(".globl " #name "\n\t.type " #name ", %%function\n\t.set " #name ", stub_" #name);

`)
	seen := map[string]bool{}
	for _, f := range m.Functions {
		if !identifier.MatchString(f.Name) || seen[f.Name] {
			return fmt.Errorf("%s: function name %q", path, f.Name)
		}
		seen[f.Name] = true
		p("STUB(%s)\n", f.Name)
	}
	return w.Flush()
}
