package core

import (
	"container/heap"
	"errors"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Work-unit-specific data (ABT_key): the key registry and the memory of key tables.
//
// The layout below is shared with C (capi/keys.h mirrors it, capi/key.go checks the two agree at
// compile time): C reads and writes existing entries on its hot paths without calling Go, and
// comes here to create keys, and for tables and chunks when a unit needs more.
//
// A unit's table is a fixed directory of KeyChunks chunk pointers; chunk k holds
// KeyChunk0Slots<<k slots, chunk 0 lives inside the table. A key id names one slot in every
// table (KeySlotOf), so a slot never moves once its chunk exists: growing a table only adds a
// chunk, and a plain store to an existing slot can never be lost to a resize. A slot remembers
// the serial of the key that last filled it and that key's destructor: a freed id, reused by a
// newer key, reads as unset (serials never repeat), and a value left by a freed key is still
// destroyed when the unit is freed (Argobots calls destructors of freed keys then, not before:
// if a newer key takes the slot over, C keeps the old value in the table's Orphans).

// Table shape.
const (
	KeyChunk0Slots = 16                                  // slots in chunk 0
	KeyChunks      = 13                                  // chunks in a table
	MaxKeys        = KeyChunk0Slots * (1<<KeyChunks - 1) // live keys at once: 131,056
	KeyMagic       = 0x4b455920                          // "KEY ": a live key record
	// KeyFreed marks a freed record: never 0, so that no record looks like unused static
	// memory of a synchronization object (capi/object.h).
	KeyFreed = 0x46524545 // "FREE"
)

// KeyRecord is what an ABT_key points to (struct ABT_key_opaque). Records are C memory that is
// never unmapped: keys may outlive ABT_finalize. A record belongs to one id; a freed id's record
// is reused by the next key that takes the id.
type KeyRecord struct {
	ID         uint32  // the slot index in every table
	Magic      uint32  // KeyMagic while the key lives, KeyFreed once freed (atomic)
	Serial     uint64  // unique per ABT_key_create, never 0
	Destructor uintptr // C function pointer, or 0
	Chunk      uint32  // KeySlotOf(ID)
	Offset     uint32
}

// KeySlot is one entry of a key table.
type KeySlot struct {
	Serial     uint64  // the key that filled it, 0 if none (atomic: C publishes it last)
	Destructor uintptr // that key's destructor when it filled the slot
	Value      uintptr // the value (atomic)
}

// KeyTable is a unit's table (what the unit's `keys` field points to).
type KeyTable struct {
	First   [KeyChunk0Slots]KeySlot // chunk 0, first: C reaches it without loading Chunks[0]
	Chunks  [KeyChunks]Addr         // chunk k, or 0; Chunks[0] is First's address
	Orphans Addr                    // C's list of values freed keys left behind (C memory)
}

// KeySlotOf returns which chunk holds id's slot, and where in it.
func KeySlotOf(id uint32) (chunk, offset uint32) {
	k := uint32(bits.Len32(id/KeyChunk0Slots+1) - 1)
	return k, id - KeyChunk0Slots*(1<<k-1)
}

// KeyChunkSlots returns how many slots chunk k holds.
func KeyChunkSlots(k uint32) int { return KeyChunk0Slots << k }

// Keys is the key registry: ids, serials and records.
type Keys struct {
	mu      sync.Mutex
	records []*KeyRecord // by id
	free    idHeap       // freed ids, lowest first: tables stay small
	serial  uint64
	live    int
	memory  Blocks // records; never drained
}

// Create registers a key with the C destructor (0 for none) and returns its record.
func (k *Keys) Create(destructor uintptr) (*KeyRecord, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var r *KeyRecord
	if k.free.Len() > 0 {
		r = k.records[heap.Pop(&k.free).(uint32)]
	} else {
		if len(k.records) >= MaxKeys {
			return nil, errors.New("too many keys")
		}
		if len(k.records) == 0 {
			if err := k.memory.SetSize(unsafe.Sizeof(KeyRecord{})); err != nil {
				return nil, err
			}
		}
		p, err := k.memory.Get()
		if err != nil {
			return nil, err
		}
		r = (*KeyRecord)(p.Pointer())
		r.ID = uint32(len(k.records))
		r.Chunk, r.Offset = KeySlotOf(r.ID)
		k.records = append(k.records, r)
	}
	k.serial++
	r.Serial = k.serial
	r.Destructor = destructor
	atomic.StoreUint32(&r.Magic, KeyMagic) // publishes the fields above to C
	k.live++
	return r, nil
}

// Free retires a live key; its id goes to the next Create. It fails for anything that is not a
// live key's record.
func (k *Keys) Free(r *KeyRecord) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r == nil || int(r.ID) >= len(k.records) || k.records[r.ID] != r ||
		atomic.LoadUint32(&r.Magic) != KeyMagic {
		return errors.New("not a live key")
	}
	atomic.StoreUint32(&r.Magic, KeyFreed)
	heap.Push(&k.free, r.ID)
	k.live--
	return nil
}

// Live returns how many keys exist, and how many ids have ever been used.
func (k *Keys) Live() (live, ids int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.live, len(k.records)
}

// idHeap is a min-heap of freed key ids.
type idHeap []uint32

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(uint32)) }
func (h *idHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// KeyTables is the memory of key tables and of their chunks after the first. The C engine keeps
// a freed unit's table with its cached descriptor, so this is the slow path: a unit's first
// table, and growth past KeyChunk0Slots ids.
type KeyTables struct {
	once   sync.Once
	err    error
	tables Blocks
	chunks [KeyChunks]Blocks // chunks[0] unused: chunk 0 is inside the table
}

func (t *KeyTables) init() error {
	t.once.Do(func() {
		t.err = t.tables.SetSize(unsafe.Sizeof(KeyTable{}))
		for k := uint32(1); k < KeyChunks && t.err == nil; k++ {
			t.err = t.chunks[k].SetSize(uintptr(KeyChunkSlots(k)) * unsafe.Sizeof(KeySlot{}))
		}
	})
	return t.err
}

// GetTable returns an empty table: no chunks but the first.
func (t *KeyTables) GetTable() (*KeyTable, error) {
	if err := t.init(); err != nil {
		return nil, err
	}
	p, err := t.tables.Get()
	if err != nil {
		return nil, err
	}
	tbl := (*KeyTable)(p.Pointer())
	tbl.Chunks[0] = AddrOf(unsafe.Pointer(&tbl.First))
	return tbl, nil
}

// PutTable takes a table back; the caller has given back its chunks.
func (t *KeyTables) PutTable(tbl *KeyTable) { t.tables.Put(AddrOf(unsafe.Pointer(tbl))) }

// GetChunk returns an empty chunk k (1 ≤ k < KeyChunks).
func (t *KeyTables) GetChunk(k uint32) (Addr, error) {
	if k == 0 || k >= KeyChunks {
		return 0, errors.New("no such key chunk")
	}
	if err := t.init(); err != nil {
		return 0, err
	}
	return t.chunks[k].Get()
}

// PutChunk takes chunk k back.
func (t *KeyTables) PutChunk(k uint32, p Addr) {
	if k > 0 && k < KeyChunks {
		t.chunks[k].Put(p)
	}
}

// Out returns how many tables, and chunks, are handed out and not given back.
func (t *KeyTables) Out() (tables, chunks int) {
	tables, _ = t.tables.Out()
	for k := range t.chunks {
		n, _ := t.chunks[k].Out()
		chunks += n
	}
	return tables, chunks
}

// Drain unmaps every table and chunk (at finalize, with the unit descriptors that hold them).
func (t *KeyTables) Drain() {
	t.tables.Drain()
	for k := range t.chunks {
		t.chunks[k].Drain()
	}
}
