// Command capi is libgoabt.so: the C face of goabt, built with -buildmode=c-shared.
//
// It is the only package that uses cgo. Each file mirrors one C concept (error.go for
// ABT_error_get_str, opal.go for the OPAL object system …) and every exported function has the
// same shape: check each argument, resolve handles, call the Go core, translate the result into
// an ABT_* or OPAL return value. Logic lives in core/ and core/opal/, never here.
//
// The C files beside the Go files hold what Go cannot express or must not pay a Go call for:
// the global variables that the public headers' inline code reads (opal.c), hot paths such as
// ABT_get_wtime (timer.c), and not_implemented.c, which gives every Argobots 1.2 function not
// implemented yet a body returning ABT_ERR_FEATURE_NA, so that the library exports the whole API.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -Wall -Wextra -Werror -O2
*/
import "C"

// main is required by -buildmode=c-shared and never runs.
func main() {}
