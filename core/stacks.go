package core

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// Stacks hands out ULT stacks: anonymous mappings with a PROT_NONE guard page at the bottom, so
// that an overflow faults instead of corrupting a neighbour (engine.md rule 2). The C engine keeps
// stacks attached to cached unit descriptors on its hot path and comes here only when its caches
// miss or overflow; Stacks keeps returned mappings for reuse, by size, until Drain.
type Stacks struct {
	mu     sync.Mutex
	live   map[Addr][]byte    // every mapping handed out or kept, by base address
	spare  map[uintptr][]Addr // usable size -> bases of kept mappings
	nspare int
}

// StackMapping is one stack as C sees it: the mapping (guard page included) and its size.
type StackMapping struct {
	Base Addr    // lowest address: the guard page
	Size uintptr // guard page included
}

// maxKeptStacks bounds the mappings Stacks keeps for reuse; beyond it Put unmaps.
const maxKeptStacks = 1024

func pageSize() uintptr { return uintptr(syscall.Getpagesize()) }

// Get returns a stack with at least size usable bytes (rounded up to pages, at least
// MinThreadStackSize) above a guard page.
func (s *Stacks) Get(size uintptr) (StackMapping, error) {
	page := pageSize()
	usable := (max(size, MinThreadStackSize) + page - 1) &^ (page - 1)
	s.mu.Lock()
	if bases := s.spare[usable]; len(bases) > 0 {
		base := bases[len(bases)-1]
		s.spare[usable] = bases[:len(bases)-1]
		s.nspare--
		s.mu.Unlock()
		return StackMapping{base, usable + page}, nil
	}
	s.mu.Unlock()
	m, err := syscall.Mmap(-1, 0, int(usable+page), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_STACK)
	if err != nil {
		return StackMapping{}, fmt.Errorf("mapping a %d-byte stack: %w", usable, err)
	}
	if err := syscall.Mprotect(m[:page], syscall.PROT_NONE); err != nil {
		_ = syscall.Munmap(m)
		return StackMapping{}, fmt.Errorf("guard page: %w", err)
	}
	base := AddrOf(unsafe.Pointer(&m[0])) // not Go heap: C may keep it
	s.mu.Lock()
	if s.live == nil {
		s.live = map[Addr][]byte{}
	}
	s.live[base] = m
	s.mu.Unlock()
	return StackMapping{base, usable + page}, nil
}

// Put takes a stack back: kept for a later Get of the same size, or unmapped when enough are
// kept. A mapping Stacks did not hand out is refused.
func (s *Stacks) Put(st StackMapping) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.live[st.Base]
	if !ok || uintptr(len(m)) != st.Size {
		return fmt.Errorf("stack %#x (%d bytes) was not handed out here", st.Base, st.Size)
	}
	if s.nspare < maxKeptStacks {
		if s.spare == nil {
			s.spare = map[uintptr][]Addr{}
		}
		usable := st.Size - pageSize()
		s.spare[usable] = append(s.spare[usable], st.Base)
		s.nspare++
		return nil
	}
	delete(s.live, st.Base)
	return syscall.Munmap(m)
}

// Kept returns how many stacks wait for reuse, and how many mappings exist in all.
func (s *Stacks) Kept() (kept, mapped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nspare, len(s.live)
}

// Drain unmaps the kept stacks (at finalize). Stacks still handed out stay mapped.
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
}
