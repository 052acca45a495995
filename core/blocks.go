package core

import (
	"errors"
	"sync"
	"syscall"
	"unsafe"
)

// Blocks hands out fixed-size blocks of C memory: cache-line aligned, carved from mmap'd slabs
// that live outside Go's heap, so C may keep and share them. The engine's unit descriptors (the
// C struct behind ABT_thread), key tables and key records come from here; the C side caches
// freed blocks on its hot paths and comes here only when those caches miss or overflow.
type Blocks struct {
	mu    sync.Mutex
	size  uintptr  // block size: the C struct rounded up to a cache line
	free  []Addr   // blocks given back
	slabs [][]byte // every slab mapped since the last Drain
	out   int      // blocks handed out and not given back
	fresh []byte   // the unused end of the newest slab: blocks never handed out
	bulk  bool     // blocks a program multiplies (unit descriptors): addrspace.go, BulkHeadroom
}

// SetBulk says the blocks are ones a program multiplies (unit descriptors): under an
// address-space limit they leave BulkHeadroom, not GoHeadroom (addrspace.go).
func (b *Blocks) SetBulk(bulk bool) {
	b.mu.Lock()
	b.bulk = bulk
	b.mu.Unlock()
}

// blockSlabSize is how much one slab maps at least; a bigger block gets a slab of its own.
const blockSlabSize = 64 << 10

// maxBlockSize bounds a block: the largest key chunk is well below it.
const maxBlockSize = 64 << 20

// SetSize sets the block size (C's sizeof) before the first Get; it changes nothing while
// blocks are out.
func (b *Blocks) SetSize(size uintptr) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	size = (size + 63) &^ 63
	if size == 0 || size > maxBlockSize {
		return errors.New("block size out of range")
	}
	if b.size != 0 && b.size != size && (b.out > 0 || len(b.free) > 0) {
		return errors.New("block size changed while blocks exist")
	}
	b.size = size
	return nil
}

// Get returns a zeroed block.
func (b *Blocks) Get() (Addr, error) {
	var one [1]Addr
	if _, err := b.get(one[:], false); err != nil {
		return 0, err
	}
	return one[0], nil
}

// GetMany fills out with zeroed blocks, wherever they are.
func (b *Blocks) GetMany(out []Addr) (int, error) { return b.get(out, false) }

// GetRun fills out with zeroed blocks and returns how many: blocks given back earlier if there
// are enough of them (they were mostly given back together by one stream), otherwise a run of
// fresh blocks next to each other, starting on a page of their own. A run is what one stream
// caches: the hardware prefetchers move neighbouring lines between cores, so streams whose
// blocks share pages slow each other down.
func (b *Blocks) GetRun(out []Addr) (int, error) { return b.get(out, true) }

// get fills out from the top of the free list, carving fresh blocks first if it is short.
func (b *Blocks) get(out []Addr, pageAligned bool) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.size == 0 {
		return 0, errors.New("block size not set")
	}
	if len(b.free) < len(out) {
		if err := b.carve(len(out), pageAligned); err != nil {
			return 0, err
		}
	}
	for i := range out {
		p := b.free[len(b.free)-1]
		b.free = b.free[:len(b.free)-1]
		clear(p.Bytes(b.size))
		out[i] = p
	}
	b.out += len(out)
	return len(out), nil
}

// carve moves n fresh blocks, adjacent and in address order, to the top of the free list (the
// end get takes from); with pageAligned the first starts a page. Fresh blocks skipped on the
// way, too few for the run or short of the page, go to the free list, and a slab is mapped if
// the fresh region runs out.
func (b *Blocks) carve(n int, pageAligned bool) error {
	run := uintptr(n) * b.size
	for uintptr(len(b.fresh)) >= b.size && (uintptr(len(b.fresh)) < run ||
		pageAligned && uintptr(unsafe.Pointer(&b.fresh[0]))%4096 != 0) {
		b.free = append(b.free, AddrOf(unsafe.Pointer(&b.fresh[0])))
		b.fresh = b.fresh[b.size:]
	}
	if uintptr(len(b.fresh)) < run {
		slabSize := max(uintptr(blockSlabSize), run)
		headroom := uintptr(GoHeadroom)
		if b.bulk {
			headroom = BulkHeadroom
		}
		slab, err := mapMemory(slabSize, headroom, syscall.PROT_READ|syscall.PROT_WRITE, 0)
		if err != nil {
			return err
		}
		b.slabs = append(b.slabs, slab) // fresh anonymous memory is zero
		b.fresh = slab
	}
	// Pushed in reverse, so that taking from the top yields ascending addresses.
	for i := n - 1; i >= 0; i-- {
		b.free = append(b.free, AddrOf(unsafe.Pointer(&b.fresh[uintptr(i)*b.size])))
	}
	b.fresh = b.fresh[run:]
	return nil
}

// Put takes a block back.
func (b *Blocks) Put(p Addr) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free = append(b.free, p)
	b.out--
}

// Out returns how many blocks are handed out, and how many slabs are mapped.
func (b *Blocks) Out() (out, slabs int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out, len(b.slabs)
}

// Drain unmaps every slab (at finalize: no block may be used after it).
func (b *Blocks) Drain() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, s := range b.slabs {
		_ = syscall.Munmap(s)
		b.slabs[i] = nil
	}
	// Keep the slices' arrays: a program cycling ABT_init/ABT_finalize makes no Go garbage here.
	b.slabs, b.free, b.out, b.fresh = b.slabs[:0], b.free[:0], 0, nil
}

// Slabs returns every slab's address and length: where each block handed out lies (the hang
// report walks the unit descriptors). The slabs stay mapped until Drain.
func (b *Blocks) Slabs() [][2]uintptr {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([][2]uintptr, 0, len(b.slabs))
	for _, s := range b.slabs {
		if len(s) > 0 {
			out = append(out, [2]uintptr{uintptr(AddrOf(unsafe.Pointer(&s[0]))), uintptr(len(s))})
		}
	}
	return out
}
