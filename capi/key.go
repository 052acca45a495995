package main

/*
#include "keys.h"
*/
import "C"

import (
	"unsafe"

	"github.com/goabt/goabt/core"
)

// The C structs in keys.h mirror core's key layout field for field. Each line indexes a
// one-element array with C's figure minus core's: it compiles only when they are equal (a
// larger C figure is an index out of range, a smaller one a constant overflow).
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_ABT_key_opaque{})-unsafe.Sizeof(core.KeyRecord{})]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_ABT_key_opaque{}.magic)-unsafe.Offsetof(core.KeyRecord{}.Magic)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_ABT_key_opaque{}.serial)-unsafe.Offsetof(core.KeyRecord{}.Serial)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_ABT_key_opaque{}.chunk)-unsafe.Offsetof(core.KeyRecord{}.Chunk)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.goabt_key_slot{})-unsafe.Sizeof(core.KeySlot{})]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_keytable{}.chunks)-unsafe.Offsetof(core.KeyTable{}.Chunks)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_goabt_keytable{}.orphans)-unsafe.Offsetof(core.KeyTable{}.Orphans)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_goabt_keytable{})-unsafe.Sizeof(core.KeyTable{})]
	_ = [1]struct{}{}[C.GOABT_KEY_CHUNKS-core.KeyChunks]
	_ = [1]struct{}{}[C.GOABT_KEY_CHUNK0_SLOTS-core.KeyChunk0Slots]
	_ = [1]struct{}{}[C.GOABT_MAGIC_KEY-core.KeyMagic]
)

// goabt_go_key_create registers a key (ABT_key_create); 0 when no id or memory is left.
//
//export goabt_go_key_create
func goabt_go_key_create(destructor C.uintptr_t) C.uintptr_t {
	r, err := rt.Keys.Create(uintptr(destructor))
	if err != nil {
		return 0
	}
	return C.uintptr_t(core.AddrOf(unsafe.Pointer(r)))
}

// goabt_go_key_free retires a key (ABT_key_free); 1 if it was not a live key.
//
//export goabt_go_key_free
func goabt_go_key_free(key C.uintptr_t) C.int {
	if rt.Keys.Free((*core.KeyRecord)(core.Addr(key).Pointer())) != nil {
		return 1
	}
	return 0
}

// goabt_go_keytable_get hands out an empty key table (a unit's first); 0 when memory runs out.
//
//export goabt_go_keytable_get
func goabt_go_keytable_get() C.uintptr_t {
	t, err := rt.KeyTables.GetTable()
	if err != nil {
		return 0
	}
	return C.uintptr_t(core.AddrOf(unsafe.Pointer(t)))
}

// goabt_go_keytable_put takes back a table whose chunks after the first are given back.
//
//export goabt_go_keytable_put
func goabt_go_keytable_put(t C.uintptr_t) {
	rt.KeyTables.PutTable((*core.KeyTable)(core.Addr(t).Pointer()))
}

// goabt_go_keychunk_get hands out an empty chunk k of a key table; 0 when memory runs out.
//
//export goabt_go_keychunk_get
func goabt_go_keychunk_get(k C.uint) C.uintptr_t {
	p, err := rt.KeyTables.GetChunk(uint32(k))
	if err != nil {
		return 0
	}
	return C.uintptr_t(p)
}

// goabt_go_keychunk_put takes back chunk k.
//
//export goabt_go_keychunk_put
func goabt_go_keychunk_put(k C.uint, p C.uintptr_t) { rt.KeyTables.PutChunk(uint32(k), core.Addr(p)) }
