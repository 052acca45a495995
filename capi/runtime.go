package main

/*
#include "abt.h"
*/
import "C"

import "github.com/goabt/goabt/core"

// ABT_initialized returns ABT_SUCCESS when the runtime is initialized and ABT_ERR_UNINITIALIZED
// otherwise.
//
//export ABT_initialized
func ABT_initialized() C.int {
	if core.Initialized() {
		return C.ABT_SUCCESS
	}
	return C.ABT_ERR_UNINITIALIZED
}
