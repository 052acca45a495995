// Command capi is libgoabt-go.so: the Go core's C face, built with -buildmode=c-shared.
//
// It is the only package that uses cgo. Each file mirrors one C concept (error.go for
// ABT_error_get_str, key.go for keys, opal.go for the OPAL object system …) and every exported
// function has the same shape: check each argument, resolve handles, call the Go core, translate
// the result. Logic lives in core/ and core/opal/, never here.
//
// The C files beside the Go files are the engine, libgoabt.so, the library programs link: the
// ABT_* and OPAL entry points and every hot path. They carry the build tag goabt_c_engine, so go
// build leaves them out of this library; the Makefile compiles them. libgoabt.so loads this
// library on first need and calls it through a table (golib.c): a Go runtime started when a
// program loads would not survive the program's forks.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -I${SRCDIR}/engine -Wall -Wextra -Werror -O2
*/
import "C"

// main is required by -buildmode=c-shared and never runs.
func main() {}
