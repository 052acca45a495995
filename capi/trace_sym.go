package main

/*
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
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
*/
import "C"

import (
	"sync"

	"github.com/goabt/goabt/core"
)

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
