package main

/*
#include <stdlib.h>
#include "opal_object.h"
*/
import "C"

import (
	"unsafe"

	"github.com/goabt/goabt/core"
	"github.com/goabt/goabt/core/opal"
)

// cMemory gives core/opal memory that C code may keep and read: malloc and free.
type cMemory struct{}

func (cMemory) Alloc(size uintptr) core.Addr { return core.AddrOf(C.malloc(C.size_t(size))) }
func (cMemory) Free(p core.Addr)             { C.free(p.Pointer()) }

// objects is the library's one object system, over the variables capi/api/opal.c defines in the C
// library (libgoabt.so), which hands their addresses over when it loads this one.
var objects *opal.System

// goabt_opal_bind makes the object system over the C library's opal_uses_threads and
// opal_class_init_epoch (golib.c calls it right after loading the Go core).
//
//export goabt_opal_bind
func goabt_opal_bind(usesThreads, epoch unsafe.Pointer) {
	objects = opal.NewSystem((*bool)(usesThreads), (*int32)(epoch), cMemory{})
}

// goabt_opal_class_initialize initializes an opal_class_t for the current epoch
// (opal_class_initialize).
//
//export goabt_opal_class_initialize
func goabt_opal_class_initialize(cls unsafe.Pointer) {
	if cls == nil {
		return
	}
	objects.InitializeClass((*opal.Class)(cls))
}

// goabt_opal_class_finalize frees every class's arrays and starts a new epoch
// (opal_class_finalize).
//
//export goabt_opal_class_finalize
func goabt_opal_class_finalize() { objects.FinalizeClasses() }

// goabt_opal_set_using_threads switches atomic reference counting on or off
// (opal_set_using_threads).
//
//export goabt_opal_set_using_threads
func goabt_opal_set_using_threads(have C.bool) C.bool {
	return C.bool(objects.SetUsingThreads(bool(have)))
}
