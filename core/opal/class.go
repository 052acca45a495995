// Package opal is the Go side of the Open MPI OPAL object system (include/opal_object.h).
//
// The header does the frequent work inline in C, with no Go call: OBJ_RETAIN and OBJ_RELEASE add
// to the reference count (a plain add while threads are off, an atomic add while they are on),
// and OBJ_NEW and OBJ_CONSTRUCT walk the class's constructor array. This package owns what is
// rare and needs a lock: initializing a class (its depth and its constructor and destructor
// arrays), the class epoch, finalizing every class, and the thread mode. (The debug-mode
// quarantine of released objects is C, in capi/api/opal.c: it must run in forked children, where Go
// cannot.) Everything the inline C reads lives in C memory; this package
// defines its layout (Class) and gets the memory from a Memory that capi implements with malloc.
package opal

import (
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goabt/goabt/core"
)

// Class mirrors opal_class_t, field for field (include/opal_object.h; 64 bytes on 64-bit
// targets). Classes live in C memory, usually as static variables made by OBJ_CLASS_INSTANCE.
// Go only reads the pointer-typed fields; what it writes is integers (core.Addr rule: no
// pointer-typed store into C memory).
type Class struct {
	Name      unsafe.Pointer // const char *cls_name
	Parent    *Class         // cls_parent; NULL only for opal_object_t
	Construct unsafe.Pointer // cls_construct, may be NULL
	Destruct  unsafe.Pointer // cls_destruct, may be NULL
	// Initialized holds the epoch in which the class was last initialized. C reads it without a
	// lock (acquire) to decide whether to call InitializeClass; it is written last, atomically.
	Initialized int32
	Depth       int32     // classes from this one up to opal_object_t, both included
	Constructs  core.Addr // cls_construct_array: base class first, NULL-terminated
	Destructs   core.Addr // cls_destruct_array: most derived first, NULL-terminated
	Size        uintptr   // cls_sizeof: what OBJ_NEW allocates
}

// Memory is the C allocator: arrays that C code reads must not live in Go's heap.
type Memory interface {
	Alloc(size uintptr) core.Addr // 0 when memory runs out
	Free(p core.Addr)
}

// System is the object system's shared state. capi makes one for the whole library.
type System struct {
	usesThreads *bool  // opal_uses_threads: C reads it inline on every RETAIN/RELEASE
	epoch       *int32 // opal_class_init_epoch: C compares it with Class.Initialized
	mem         Memory

	mu     sync.Mutex  // serializes class initialization and finalization
	arrays []core.Addr // one allocation per class initialized in the current epoch
}

// NewSystem makes the object system over the C variables that the header reads inline.
func NewSystem(usesThreads *bool, epoch *int32, mem Memory) *System {
	return &System{usesThreads: usesThreads, epoch: epoch, mem: mem}
}

// SetUsingThreads switches RETAIN/RELEASE between plain and atomic updates
// (opal_set_using_threads) and returns the new mode. Call it before other threads use objects.
func (s *System) SetUsingThreads(on bool) bool {
	s.mu.Lock()
	*s.usesThreads = on
	s.mu.Unlock()
	return on
}

// UsingThreads reports the thread mode (opal_using_threads).
func (s *System) UsingThreads() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.usesThreads
}

// Epoch returns the current class epoch.
func (s *System) Epoch() int32 { return atomic.LoadInt32(s.epoch) }

// InitializeClass builds c's constructor and destructor arrays for the current epoch, once:
// callers racing on the same class all return after it is initialized, and only one builds it.
// Constructors run base class first, destructors most derived first; NULL ones are left out.
func (s *System) InitializeClass(c *Class) {
	if atomic.LoadInt32(&c.Initialized) == atomic.LoadInt32(s.epoch) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	epoch := atomic.LoadInt32(s.epoch)
	if atomic.LoadInt32(&c.Initialized) == epoch {
		return
	}
	var constructs, destructs []uintptr // both most derived first
	depth := int32(0)
	for k := c; k != nil; k = k.Parent {
		depth++
		if k.Construct != nil {
			constructs = append(constructs, uintptr(k.Construct))
		}
		if k.Destruct != nil {
			destructs = append(destructs, uintptr(k.Destruct))
		}
	}
	// One allocation holds both arrays: constructors, NULL, destructors, NULL.
	n := len(constructs) + len(destructs) + 2
	size := unsafe.Sizeof(uintptr(0))
	mem := s.mem.Alloc(uintptr(n) * size)
	if mem == 0 {
		panic("opal: out of memory initializing a class")
	}
	arr := unsafe.Slice((*uintptr)(mem.Pointer()), n) // malloc'd: integers only, see core.Addr
	for i, f := range constructs {
		arr[len(constructs)-1-i] = f
	}
	arr[len(constructs)] = 0
	copy(arr[len(constructs)+1:], destructs)
	arr[n-1] = 0

	c.Depth = depth
	c.Constructs = mem
	c.Destructs = mem + core.Addr(uintptr(len(constructs)+1)*size)
	s.arrays = append(s.arrays, mem)
	atomic.StoreInt32(&c.Initialized, epoch) // publish: C may now use the arrays
}

// FinalizeClasses frees every array built so far and moves to the next epoch (INT_MAX wraps to 1),
// so every class initializes again on its next use (opal_class_finalize). It never touches the
// classes themselves: their memory may belong to a plugin that is already unloaded.
func (s *System) FinalizeClasses() {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := atomic.LoadInt32(s.epoch) + 1
	if atomic.LoadInt32(s.epoch) == math.MaxInt32 {
		next = 1
	}
	atomic.StoreInt32(s.epoch, next)
	for _, a := range s.arrays {
		s.mem.Free(a)
	}
	s.arrays = nil
}

// InitializedClasses returns how many classes own arrays in the current epoch.
func (s *System) InitializedClasses() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrays)
}
