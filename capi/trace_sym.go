package main

/*
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>

// What dladdr knows of addr: 1 and the fields, or 0.
static int goabt_dladdr(uintptr_t addr, const char **sname, uintptr_t *saddr, const char **fname,
                        uintptr_t *fbase)
{
    Dl_info info;
    if (dladdr((void *)addr, &info) == 0) return 0;
    *sname = info.dli_sname;
    *saddr = (uintptr_t)info.dli_saddr;
    *fname = info.dli_fname;
    *fbase = (uintptr_t)info.dli_fbase;
    return 1;
}

struct goabt_code_ranges {
    uintptr_t *out; // start, end pairs
    int n, max;
};

static int goabt_add_code_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct goabt_code_ranges *c = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        if (c->n < c->max) {
            c->out[2 * c->n] = info->dlpi_addr + ph->p_vaddr;
            c->out[2 * c->n + 1] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
        c->n++;
    }
    return 0;
}

// The executable segments of every loaded object: up to max start, end pairs in out; how many
// there are.
static int goabt_code_ranges(uintptr_t *out, int max)
{
    struct goabt_code_ranges c = {out, 0, max};
    dl_iterate_phdr(goabt_add_code_ranges, &c);
    return c.n;
}
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/goabt/goabt/core"
)

// Code addresses named for the trace and for the info prints (dladdrInfo, codeLookup).

// symbols names function addresses for the trace: dladdr's symbol when it starts exactly
// there (exported functions of libraries and of programs linked with -rdynamic), else the
// symbol table of the file dladdr found it in (a program's static functions, which its dynamic
// symbols do not list), else "" (the address is shown). (A file of its own: a cgo preamble
// with definitions cannot sit beside //export.)
var symbols struct {
	mu    sync.Mutex
	files core.ELFSymbols
}

func symbolName(addr uint64) string {
	if addr == 0 {
		return ""
	}
	var sname, fname *C.char
	var saddr, fbase C.uintptr_t
	if C.goabt_dladdr(C.uintptr_t(addr), &sname, &saddr, &fname, &fbase) == 0 {
		return ""
	}
	if sname != nil && uint64(saddr) == addr {
		return C.GoString(sname)
	}
	file := ""
	if fname != nil {
		file = C.GoString(fname)
	}
	if file == "" {
		file = "/proc/self/exe" // the program itself
	}
	symbols.mu.Lock()
	defer symbols.mu.Unlock()
	return symbols.files.Lookup(file, uint64(fbase), addr)
}

// dladdrInfo is what dladdr says of addr.
func dladdrInfo(addr core.Addr) core.DlInfo {
	var sname, fname *C.char
	var saddr, fbase C.uintptr_t
	if C.goabt_dladdr(C.uintptr_t(addr), &sname, &saddr, &fname, &fbase) == 0 {
		return core.DlInfo{}
	}
	d := core.DlInfo{OK: true, HasFile: fname != nil, Base: core.Addr(fbase), SymAddr: core.Addr(saddr)}
	if fname != nil {
		d.File = C.GoString(fname)
	}
	if sname != nil {
		d.Sym = C.GoString(sname)
	}
	return d
}

// codeLookup answers a print's questions about code addresses: dladdr, and the executable
// segments of the objects loaded when it is first asked whether a word is code.
func codeLookup() core.CodeLookup {
	var ranges []C.uintptr_t
	return core.CodeLookup{
		Dladdr: dladdrInfo,
		IsCode: func(a core.Addr) bool {
			if ranges == nil {
				ranges = codeRanges()
			}
			for i := 0; i < len(ranges); i += 2 {
				if C.uintptr_t(a) >= ranges[i] && C.uintptr_t(a) < ranges[i+1] {
					return true
				}
			}
			return false
		},
	}
}

// codeRanges is the executable segments of the objects loaded now, as start, end pairs.
func codeRanges() []C.uintptr_t {
	ranges := make([]C.uintptr_t, 2*64)
	for {
		n := int(C.goabt_code_ranges(unsafe.SliceData(ranges), C.int(len(ranges)/2)))
		if 2*n <= len(ranges) {
			return ranges[:2*n]
		}
		ranges = make([]C.uintptr_t, 2*n)
	}
}
