package core

import (
	"errors"
	"syscall"
	"unsafe"
)

// Address space under a limit (ulimit -v, RLIMIT_AS).
//
// The Go runtime this core runs in dies when it cannot grow ("fatal error: out of memory": a new
// heap arena is a 64 MiB reservation, a new thread an 8 MiB stack), and nothing can catch that.
// Most of the address space a program of ULTs takes is this core's own mappings (ULT stacks,
// slabs of unit descriptors), so those give way first: mapMemory refuses a mapping that would
// leave less than GoHeadroom under the limit, and the engine returns ABT_ERR_MEM. The memory a
// program multiplies (stacks and unit descriptors, BulkHeadroom) stops short of that by a
// little more, so that once ULTs have used up what there is, a key, a stream or a mutex can
// still be had. A refusal allocates nothing (ErrNoAddressSpace is made once), so the path that
// handles exhaustion never needs the memory that has run out. Without a limit, the check is one
// getrlimit.

// GoHeadroom is the address space mapMemory leaves the Go runtime under a limit: one heap arena
// and two thread stacks. More would cost the program's own ULTs: under the tightest limit
// ABT_init accepts (golib.c; ulimit -v 1,720,000 KiB with 8 MiB thread stacks) about 110 MiB
// are left once the Go runtime has started.
const GoHeadroom = 64<<20 + 2*(8<<20)

// BulkHeadroom is what ULT stacks and unit descriptors leave: GoHeadroom, and 16 MiB for the
// rest of goabt's memory (keys, objects), a few hundred slabs.
const BulkHeadroom = GoHeadroom + 16<<20

// ErrNoAddressSpace is mapMemory's refusal.
var ErrNoAddressSpace = errors.New("no address space left under the limit (ulimit -v) without taking the Go runtime's headroom")

// mapMemory is syscall.Mmap of size anonymous bytes, refused under an address-space limit that
// would leave less than headroom (GoHeadroom or BulkHeadroom) after it.
func mapMemory(size, headroom uintptr, prot, flags int) ([]byte, error) {
	if !roomFor(size, headroom) {
		return nil, ErrNoAddressSpace
	}
	return syscall.Mmap(-1, 0, int(size), prot, flags|syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

// roomFor says whether size more bytes of address space leave headroom under RLIMIT_AS.
func roomFor(size, headroom uintptr) bool {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) != nil || rl.Cur == ^uint64(0) {
		return true
	}
	return roomUnder(rl.Cur, addressSpaceUsed(), size, headroom)
}

// roomUnder says whether size more bytes beside used leave headroom under limit.
func roomUnder(limit, used uint64, size, headroom uintptr) bool {
	return used <= limit && uint64(size) <= limit-used && uint64(headroom) <= limit-used-uint64(size)
}

// statmPath is /proc/self/statm as the kernel takes it, made once: a path converted at each call
// would allocate.
var statmPath = []byte("/proc/self/statm\x00")

// addressSpaceUsed returns the process's address space in bytes (/proc/self/statm's first field,
// in pages), or 0 if it cannot be read. It allocates nothing.
func addressSpaceUsed() uint64 {
	fd, _, e := syscall.Syscall6(syscall.SYS_OPENAT, atFDCWD,
		uintptr(unsafe.Pointer(&statmPath[0])), uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC), 0, 0, 0)
	if e != 0 {
		return 0
	}
	var buf [64]byte
	n, _, e := syscall.Syscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	_, _, _ = syscall.Syscall(syscall.SYS_CLOSE, fd, 0, 0)
	if e != 0 {
		return 0
	}
	var pages uint64
	for _, c := range buf[:n] {
		if c < '0' || c > '9' {
			break
		}
		pages = pages*10 + uint64(c-'0')
	}
	return pages * uint64(pageSize())
}

// atFDCWD is AT_FDCWD (-100), as the openat system call takes it.
const atFDCWD = ^uintptr(99)
