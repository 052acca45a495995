package core

import (
	"debug/elf"
	"sort"
)

// ELFSymbols names addresses from the symbol tables of ELF files (a trace's function names
// when dladdr knows none: a program's static functions), reading each file once. Not safe
// for concurrent use.
type ELFSymbols struct {
	files map[string]*elfFuncs
}

type elfFuncs struct {
	pie   bool // ET_DYN: symbol values are offsets from the load base
	funcs []elf.Symbol
}

// Lookup names the function containing addr in file, loaded at base (dladdr's dli_fbase): ""
// if the file has no such symbol (stripped) or cannot be read.
func (s *ELFSymbols) Lookup(file string, base, addr uint64) string {
	name, _ := s.LookupStart(file, base, addr)
	return name
}

// LookupStart is Lookup with the function's start address (in the process), 0 with no name.
func (s *ELFSymbols) LookupStart(file string, base, addr uint64) (string, uint64) {
	if s.files == nil {
		s.files = map[string]*elfFuncs{}
	}
	f, ok := s.files[file]
	if !ok {
		f = readELFFuncs(file)
		s.files[file] = f
	}
	if f == nil {
		return "", 0
	}
	off := addr
	if f.pie {
		off = addr - base
	}
	i := sort.Search(len(f.funcs), func(i int) bool { return f.funcs[i].Value > off }) - 1
	if i < 0 {
		return "", 0
	}
	sym := f.funcs[i]
	if off >= sym.Value+max(sym.Size, 1) {
		return "", 0
	}
	if f.pie {
		return sym.Name, sym.Value + base
	}
	return sym.Name, sym.Value
}

func readELFFuncs(file string) *elfFuncs {
	ef, err := elf.Open(file)
	if err != nil {
		return nil
	}
	defer ef.Close()
	f := &elfFuncs{pie: ef.Type == elf.ET_DYN}
	syms, _ := ef.Symbols()
	dyn, _ := ef.DynamicSymbols()
	for _, sym := range append(syms, dyn...) {
		if elf.ST_TYPE(sym.Info) == elf.STT_FUNC && sym.Value != 0 && sym.Name != "" {
			f.funcs = append(f.funcs, sym)
		}
	}
	sort.Slice(f.funcs, func(i, j int) bool { return f.funcs[i].Value < f.funcs[j].Value })
	return f
}
