package core

import "unsafe"

// Addr is the address of C memory: memory the C engine owns, or that core maps for it (slabs,
// stacks). Core holds such memory only as an Addr, never as a pointer-typed value, and hands it
// to C only as an integer: a pointer-typed store into C memory goes through Go's write barrier,
// which reads the slot's old contents while the garbage collector runs, and C memory holds
// whatever C left there (an uninitialized C array handed to Go as []unsafe.Pointer aborted the
// process with "found bad pointer in Go heap" at 32k ULTs: docs/design.md rule 11). An Addr is
// invisible to the collector, which is right: the memory it names is not Go's.
type Addr uintptr

// AddrOf returns the address of p, which must be C memory (or memory core mapped for C).
func AddrOf(p unsafe.Pointer) Addr { return Addr(uintptr(p)) }

// Pointer returns a as a pointer, for Go code that reads or writes the memory itself. Keep the
// result in locals: never store it into C memory.
func (a Addr) Pointer() unsafe.Pointer {
	// Converting through memory rather than unsafe.Pointer(uintptr(a)): the memory is not Go's,
	// so the collector's rules for uintptr conversions (which vet checks) do not apply.
	return *(*unsafe.Pointer)(unsafe.Pointer(&a))
}

// Bytes returns the n bytes at a.
func (a Addr) Bytes(n uintptr) []byte { return unsafe.Slice((*byte)(a.Pointer()), n) }
