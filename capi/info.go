package main

/*
#include <stddef.h>
*/
import "C"

import "unsafe"

// Flags goabt_go_config_info returns.
const (
	configPrintAtInit = 1 // ABT_PRINT_CONFIG: print the configuration at ABT_init
	configCheckLeaks  = 2 // GOABT_CHECK_LEAKS
	configLeaksFatal  = 4 // GOABT_CHECK_LEAKS=fatal
)

// goabt_go_config_info describes the configuration the last ABT_init read beyond what
// goabt_go_runtime_init hands over, for ABT_info_print_config and ABT_PRINT_CONFIG (api/info.c): the
// names of the Go pool and scheduling policy that replace the predefined ones ("" for none)
// go to pool and sched, NUL-terminated and cut to their lengths; it returns configPrintAtInit
// configCheckLeaks and configLeaksFatal bits.
//
//export goabt_go_config_info
func goabt_go_config_info(pool *C.char, poolLen C.size_t, sched *C.char, schedLen C.size_t) C.int {
	c := rt.Config
	copyCString(pool, poolLen, c.Pool)
	copyCString(sched, schedLen, c.Sched)
	flags := 0
	if c.PrintConfig {
		flags |= configPrintAtInit
	}
	if c.CheckLeaks {
		flags |= configCheckLeaks
	}
	if c.CheckLeaksFatal {
		flags |= configLeaksFatal
	}
	return C.int(flags)
}

// copyCString writes s into the C buffer dst of n bytes, cut to fit, NUL-terminated.
func copyCString(dst *C.char, n C.size_t, s string) {
	if dst == nil || n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(dst)), int(n))
	k := copy(b[:len(b)-1], s)
	b[k] = 0
}
