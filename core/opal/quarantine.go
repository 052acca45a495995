package opal

import (
	"sync"
	"unsafe"
)

// QuarantineSize is how many released objects debug mode keeps before freeing the oldest.
const QuarantineSize = 1024

// Quarantine delays the free of objects released in debug mode (OPAL_ENABLE_DEBUG): a program
// that releases an object twice then still finds its class, its life state and where it was
// constructed, and gets a report naming them instead of reading memory malloc has reused.
type Quarantine struct {
	mu    sync.Mutex
	slots [QuarantineSize]unsafe.Pointer
	next  int
	free  func(unsafe.Pointer)
}

// Put takes a released object; the memory of the object released QuarantineSize puts ago is
// freed now.
func (q *Quarantine) Put(obj unsafe.Pointer) {
	q.mu.Lock()
	old := q.slots[q.next]
	q.slots[q.next] = obj
	q.next = (q.next + 1) % QuarantineSize
	q.mu.Unlock()
	if old != nil {
		q.free(old)
	}
}

// Len returns how many objects wait in quarantine.
func (q *Quarantine) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, p := range q.slots {
		if p != nil {
			n++
		}
	}
	return n
}
