package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// nativeUsage is how to get a native column, as the tables without one say.
const nativeUsage = "make bench NATIVE_ARGOBOTS=<native libabt.so.1, or an Argobots install prefix>"

// nativeArgobots is the reference of the Argobots suites: bench/c/abt_bench.c compiled against
// goabt's abt.h (whose ABI is Argobots 1.2's) and linked with the native libabt.so.1 that arg
// names, or, when arg is empty, an absent reference that says how to get one. arg is the library
// file itself (libabt.so.1, libabt.so, or a link to one) or a directory: an install prefix with
// lib/ (or lib64/) holding libabt.so.1 or libabt.so, or the directory holding the library.
func nativeArgobots(root, arg string) (impl, error) {
	im := impl{name: "native", binary: "abt_bench_native"}
	if arg == "" {
		im.absent = "No native column: native Argobots was not given to this run, so there is no ratio and " +
			"no verdict;\n  to measure it beside goabt: " + nativeUsage + "."
		return im, nil
	}
	lib, err := findNativeLib(arg)
	if err != nil {
		return im, err
	}
	if err := checkNative(lib); err != nil {
		return im, err
	}
	dir := filepath.Dir(lib)
	im.path = lib
	im.cflags = []string{"-I" + filepath.Join(root, "build", "include")}
	// The library by its path (a program records its soname, libabt.so.1, as Argobots programs
	// do), found at run time in its directory first, never goabt's build/lib.
	im.ldflags = []string{lib, "-Wl,-rpath," + dir, "-lpthread"}
	im.env = []string{"LD_LIBRARY_PATH=" + dir}
	return im, nil
}

// findNativeLib returns the absolute path of the library arg names (see nativeArgobots).
func findNativeLib(arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("NATIVE_ARGOBOTS: %w", err)
	}
	if !st.IsDir() {
		return abs, nil
	}
	for _, sub := range []string{"lib", "lib64", "."} {
		for _, name := range []string{"libabt.so.1", "libabt.so"} {
			p := filepath.Join(abs, sub, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("NATIVE_ARGOBOTS=%s: no lib/libabt.so.1, lib/libabt.so (or lib64/, or in the "+
		"directory itself) there", arg)
}

// checkNative refuses a file that is not a shared library defining ABT_init, or that is goabt
// itself (its libabt.so.1 filters libgoabt.so): the native column would measure goabt.
func checkNative(lib string) error {
	f, err := elf.Open(lib)
	if err != nil {
		return fmt.Errorf("NATIVE_ARGOBOTS: %s: %w", lib, err)
	}
	defer f.Close()
	// debug/elf's DynString reads no DT_FILTER: look the names up in .dynstr by their offsets.
	var strtab []byte
	if sec := f.Section(".dynstr"); sec != nil {
		strtab, _ = sec.Data()
	}
	for _, tag := range []elf.DynTag{elf.DT_NEEDED, elf.DT_FILTER, elf.DT_AUXILIARY} {
		offs, _ := f.DynValue(tag)
		for _, off := range offs {
			if off >= uint64(len(strtab)) {
				continue
			}
			n, _, _ := strings.Cut(string(strtab[off:]), "\x00")
			if strings.Contains(n, "goabt") {
				return fmt.Errorf("NATIVE_ARGOBOTS: %s is goabt (it brings in %s), not native Argobots", lib, n)
			}
		}
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return fmt.Errorf("NATIVE_ARGOBOTS: %s: %w", lib, err)
	}
	init := false
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "goabt_") {
			return fmt.Errorf("NATIVE_ARGOBOTS: %s is goabt (%s), not native Argobots", lib, s.Name)
		}
		init = init || (s.Name == "ABT_init" && s.Section != elf.SHN_UNDEF)
	}
	if !init {
		return errors.New("NATIVE_ARGOBOTS: " + lib + " defines no ABT_init: not an Argobots library")
	}
	return nil
}
