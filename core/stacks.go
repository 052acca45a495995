package core

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// Stacks hands out ULT stacks. The C engine keeps stacks attached to cached unit descriptors on
// its hot path and comes here only when its caches miss (or, at finalize, to give them back).
//
// Every stack's lowest page is a guard, so that an overflow faults instead of corrupting a
// neighbour (docs/design.md rule 2). There are two ways to make one, and the kernel decides which:
//
//   - A lightweight guard region (madvise MADV_GUARD_INSTALL, Linux 6.13): a marker in the page
//     table, not a memory region of its own. Stacks are then all carved from slabs of slabStacks
//     (one mapping per slab) and every one is guarded, however many are alive: one madvise per
//     stack, where a mapping and an mprotect cost two system calls and a region.
//   - Elsewhere, a PROT_NONE page, which the kernel counts as a region of its own
//     (vm.max_map_count, 65,530 by default): guarded stacks cannot go past ~32,000 at once. So
//     the first GuardedStacks stacks out at once get a mapping and a guard page each; past
//     that, stacks are carved from slabs whose guard pages are left readable: a program with a
//     million ULTs keeps running, without overflow detection for the stacks past the limit.
//     Strict (ABT_STACK_OVERFLOW_CHECK=mprotect_strict) gives every stack a guard page of its
//     own, however many: past what the kernel allows, Get fails instead of carving.
//
// Strict mode makes every guard a PROT_NONE page of a mapping of its own even where the kernel
// has lightweight guards, as Argobots makes its guards with mprotect: a program may then
// mprotect a guard page itself (Argobots' own test of the guard lifts it in its SIGSEGV handler
// and expects the access to go on), which a lightweight guard would ignore.
//
// The geometry is the same every way (the guard page's place is there), so C never needs to
// know. Slab stacks given back wait for reuse; slabs are unmapped by Drain only.
type Stacks struct {
	mu     sync.Mutex
	strict bool
	guard  guardKind // how slabs are guarded: probed by the first Get

	live    map[Addr][]byte    // every guarded mapping handed out or kept, by base address
	spare   map[uintptr][]Addr // usable size -> bases of kept guarded mappings
	nspare  int
	guarded int // guarded mappings handed out and not given back

	carved  map[Addr]uintptr   // every slab stack, by base -> its usable size
	free    map[uintptr][]Addr // usable size -> slab stacks given back
	slabs   [][]byte           // every slab, for Drain
	carving int                // slab stacks handed out and not given back
}

// guardKind is how Stacks makes guard pages.
type guardKind int8

const (
	guardUnprobed guardKind = iota
	guardLight              // MADV_GUARD_INSTALL in slabs: every stack guarded
	guardMapping            // a mapping and a PROT_NONE page each, up to GuardedStacks
)

// madvGuardInstall is Linux's MADV_GUARD_INSTALL (include/uapi/asm-generic/mman-common.h).
const madvGuardInstall = 102

// StackMapping is one stack as C sees it: the mapping (guard page included) and its size.
type StackMapping struct {
	Base Addr    // lowest address: the guard page
	Size uintptr // guard page included
}

const (
	// maxKeptStacks bounds the guarded mappings Stacks keeps for reuse; beyond it Put unmaps.
	maxKeptStacks = 1024
	// GuardedStacks is how many stacks at once get a guard page of their own where the kernel
	// has no lightweight guard regions.
	GuardedStacks = 16384
	// slabStacks is how many stacks one slab holds.
	slabStacks = 64
)

func pageSize() uintptr { return uintptr(syscall.Getpagesize()) }

func madvise(addr, length uintptr, advice int) error {
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, length, uintptr(advice)); e != 0 {
		return e
	}
	return nil
}

// probeLightGuards says whether this kernel installs lightweight guard regions: the madvise
// succeeds, and the kernel then refuses to write into the page (EFAULT). The second test is
// needed where madvise succeeds without doing anything, as qemu-user's does for any advice it
// does not know: every stack would then be unguarded.
func probeLightGuards(page uintptr) guardKind {
	m, err := syscall.Mmap(-1, 0, int(2*page), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return guardMapping
	}
	defer func() { _ = syscall.Munmap(m) }()
	guard := uintptr(unsafe.Pointer(&m[0]))
	if madvise(guard, page, madvGuardInstall) != nil {
		return guardMapping
	}
	// clock_gettime writes its result into the page; a guard page makes it fail, not fault.
	const clockMonotonic = 1
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, guard, 0); e != syscall.EFAULT {
		return guardMapping
	}
	return guardLight
}

// LightGuards says whether every stack has a guard page, however many are out: the kernel has
// lightweight guard regions. It probes the kernel if no Get has yet.
func (s *Stacks) LightGuards() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.guard == guardUnprobed {
		s.guard = probeLightGuards(pageSize())
	}
	return s.guard == guardLight
}

// Get returns a stack with at least size usable bytes (rounded up to pages, at least
// MinThreadStackSize) above a guard page (above its place, past GuardedStacks without
// lightweight guards).
func (s *Stacks) Get(size uintptr) (StackMapping, error) {
	page := pageSize()
	if size > MaxStackSize {
		return StackMapping{}, errStackTooLarge
	}
	usable := (max(size, MinThreadStackSize) + page - 1) &^ (page - 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.guard == guardUnprobed {
		s.guard = probeLightGuards(page)
	}
	// A large stack gets a mapping of its own: a slab of them would map slabStacks times it.
	if s.guard == guardLight && !s.strict && usable < bigStack {
		return s.carve(usable, page)
	}
	if bases := s.spare[usable]; len(bases) > 0 {
		base := bases[len(bases)-1]
		s.spare[usable] = bases[:len(bases)-1]
		s.nspare--
		s.guarded++
		return StackMapping{base, usable + page}, nil
	}
	if s.guarded >= GuardedStacks && !s.strict && usable < bigStack {
		return s.carve(usable, page)
	}
	m, err := mapMemory(usable+page, BulkHeadroom, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_STACK)
	if err != nil {
		return StackMapping{}, err
	}
	if err := syscall.Mprotect(m[:page], syscall.PROT_NONE); err != nil {
		_ = syscall.Munmap(m)
		return StackMapping{}, errGuardPage
	}
	base := AddrOf(unsafe.Pointer(&m[0])) // not Go heap: C may keep it
	if s.live == nil {
		s.live = map[Addr][]byte{}
	}
	s.live[base] = m
	s.guarded++
	return StackMapping{base, usable + page}, nil
}

// Get's refusals, made once: the path that handles running out of memory allocates nothing
// (addrspace.go). A failed mapping returns mapMemory's error or the system call's.
var (
	errStackTooLarge = errors.New("a stack larger than any address space here holds")
	errGuardPage     = errors.New("a stack's guard page could not be made")
)

// MaxStackSize is the largest stack Get tries to map (a 47-bit address space holds 128 TiB):
// a larger size is refused at once, before any size arithmetic could overflow.
const MaxStackSize = 1 << 46

// bigStack is the usable size from which a stack gets a mapping of its own rather than a slab
// place (the engine maps these when their ULT is created: GOABT_EAGER_STACK).
const bigStack = 1 << 20

// SetStrict says whether every stack Get hands out from now on has a guard page of its own (with
// lightweight guards every stack has one anyway).
func (s *Stacks) SetStrict(strict bool) {
	s.mu.Lock()
	s.strict = strict
	s.mu.Unlock()
}

// carve returns a slab stack of usable bytes above its guard page (lightweight guards) or its
// place (past GuardedStacks); s.mu is held.
func (s *Stacks) carve(usable, page uintptr) (StackMapping, error) {
	if s.carved == nil {
		s.carved, s.free = map[Addr]uintptr{}, map[uintptr][]Addr{}
	}
	if len(s.free[usable]) == 0 {
		one := usable + page
		slab, err := mapMemory(one*slabStacks, BulkHeadroom, syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_STACK|syscall.MAP_NORESERVE)
		if err != nil {
			return StackMapping{}, err
		}
		if s.guard == guardLight {
			for i := uintptr(0); i < slabStacks; i++ {
				if err := madvise(uintptr(unsafe.Pointer(&slab[i*one])), page, madvGuardInstall); err != nil {
					_ = syscall.Munmap(slab)
					return StackMapping{}, errGuardPage
				}
			}
		}
		s.slabs = append(s.slabs, slab)
		for i := slabStacks - 1; i >= 0; i-- {
			base := AddrOf(unsafe.Pointer(&slab[uintptr(i)*one]))
			s.carved[base] = usable
			s.free[usable] = append(s.free[usable], base)
		}
	}
	bases := s.free[usable]
	base := bases[len(bases)-1]
	s.free[usable] = bases[:len(bases)-1]
	s.carving++
	return StackMapping{base, usable + page}, nil
}

// Put takes a stack back: a guarded one is kept for a later Get of the same size, or unmapped
// when enough are kept; a slab stack waits for reuse in its slab. A mapping Stacks did not hand
// out is refused.
func (s *Stacks) Put(st StackMapping) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	page := pageSize()
	if usable, ok := s.carved[st.Base]; ok && usable+page == st.Size {
		s.free[usable] = append(s.free[usable], st.Base)
		s.carving--
		return nil
	}
	m, ok := s.live[st.Base]
	if !ok || uintptr(len(m)) != st.Size {
		return fmt.Errorf("stack %#x (%d bytes) was not handed out here", st.Base, st.Size)
	}
	s.guarded--
	if s.nspare < maxKeptStacks {
		if s.spare == nil {
			s.spare = map[uintptr][]Addr{}
		}
		usable := st.Size - page
		s.spare[usable] = append(s.spare[usable], st.Base)
		s.nspare++
		return nil
	}
	delete(s.live, st.Base)
	return syscall.Munmap(m)
}

// Kept returns how many guarded stacks wait for reuse, and how many guarded mappings exist.
func (s *Stacks) Kept() (kept, mapped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nspare, len(s.live)
}

// Out returns how many stacks are handed out: with a mapping of their own, and from slabs.
func (s *Stacks) Out() (guarded, carved int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.guarded, s.carving
}

// Drain unmaps the kept stacks (at finalize), and the slabs once none of their stacks is out.
// Stacks still handed out stay mapped.
func (s *Stacks) Drain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for size, bases := range s.spare {
		for _, b := range bases {
			_ = syscall.Munmap(s.live[b])
			delete(s.live, b)
		}
		s.spare[size] = bases[:0] // kept: init/finalize cycles make no Go garbage here
	}
	s.nspare = 0
	if s.carving == 0 {
		for i, slab := range s.slabs {
			_ = syscall.Munmap(slab)
			s.slabs[i] = nil
		}
		s.slabs = s.slabs[:0]
		clear(s.carved)
		clear(s.free)
	}
}
