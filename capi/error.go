package main

/*
#include <string.h>
#include "abt.h"
*/
import "C"

import (
	"unsafe"

	"github.com/goabt/goabt/core"
)

// goabt_error_get_str writes the name of error code err ("ABT_ERR_INV_THREAD") into str when str
// is not NULL, and its length without the terminating NUL into *len when len is not NULL.
// An unknown code returns ABT_ERR_OTHER and writes nothing. C enters through ABT_error_get_str
// (api/error.c), which brings the call to the system stack first.
//
//export goabt_error_get_str
func goabt_error_get_str(err C.int, str *C.char, length *C.size_t) C.int {
	name, ok := core.ErrorName(int(err))
	if !ok {
		return C.ABT_ERR_OTHER
	}
	if str != nil {
		dst := unsafe.Slice((*byte)(unsafe.Pointer(str)), len(name)+1)
		copy(dst, name)
		dst[len(name)] = 0
	}
	if length != nil {
		*length = C.size_t(len(name))
	}
	return C.ABT_SUCCESS
}
