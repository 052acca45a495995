package core

import (
	"errors"
	"sync"
	"syscall"
	"unsafe"
)

// Units hands out work-unit descriptors (the C struct behind ABT_thread): fixed-size blocks,
// cache-line aligned, carved from mmap'd slabs that live outside Go's heap, so C may keep and
// share them. The C engine caches freed descriptors per stream and globally on its hot path and
// comes here only when those caches miss or overflow.
type Units struct {
	mu    sync.Mutex
	size  uintptr          // block size: the C struct rounded up to a cache line
	free  []unsafe.Pointer // blocks given back
	slabs [][]byte         // every slab mapped since the last Drain
	out   int              // blocks handed out and not given back
}

// unitSlabSize is how much one slab maps at a time.
const unitSlabSize = 64 << 10

// SetSize sets the descriptor size (C's sizeof) before the first Get; it changes nothing while
// blocks are out.
func (u *Units) SetSize(size uintptr) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	size = (size + 63) &^ 63
	if size == 0 || size > unitSlabSize {
		return errors.New("unit descriptor size out of range")
	}
	if u.size != 0 && u.size != size && (u.out > 0 || len(u.free) > 0) {
		return errors.New("unit descriptor size changed while descriptors exist")
	}
	u.size = size
	return nil
}

// Get returns a zeroed descriptor block.
func (u *Units) Get() (unsafe.Pointer, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.size == 0 {
		return nil, errors.New("unit descriptor size not set")
	}
	if len(u.free) == 0 {
		slab, err := syscall.Mmap(-1, 0, unitSlabSize, syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return nil, err
		}
		u.slabs = append(u.slabs, slab) // fresh anonymous memory is zero
		for off := uintptr(0); off+u.size <= unitSlabSize; off += u.size {
			u.free = append(u.free, unsafe.Pointer(&slab[off]))
		}
	}
	p := u.free[len(u.free)-1]
	u.free = u.free[:len(u.free)-1]
	clear(unsafe.Slice((*byte)(p), u.size))
	u.out++
	return p, nil
}

// Put takes a descriptor back.
func (u *Units) Put(p unsafe.Pointer) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.free = append(u.free, p)
	u.out--
}

// Out returns how many descriptors are handed out, and how many slabs are mapped.
func (u *Units) Out() (out, slabs int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.out, len(u.slabs)
}

// Drain unmaps every slab (at finalize: no descriptor may be used after it).
func (u *Units) Drain() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, s := range u.slabs {
		_ = syscall.Munmap(s)
		u.slabs[i] = nil
	}
	// Keep the slices' arrays: a program cycling ABT_init/ABT_finalize makes no Go garbage here.
	u.slabs, u.free, u.out = u.slabs[:0], u.free[:0], 0
}
