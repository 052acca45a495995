package core

// Timeline traces (GOABT_TRACE=path, Config.Trace).
//
// The C engine records what its work units do as TraceRecords, into a buffer per execution
// stream (one writer, no lock; external threads share one buffer under a lock), at the event
// sites of the tool interface (capi/trace.c). A full buffer, and each one at the last
// ABT_finalize, is handed to Trace.Add through the gate; at that finalize BuildTimeline turns
// the records into slices, instants and flows, and Timeline.WriteJSON writes them in the Chrome
// JSON trace event format, which Perfetto (ui.perfetto.dev) and chrome://tracing open:
//
//   - one track per execution stream (tid = its rank, named "xstream N"), and one per external
//     thread that did something traced (named "external thread N");
//   - a slice ("X") for every time a unit runs, on the track of the stream it ran on, named by
//     its function's symbol and its id ("sum_share #3"; the main ULT is "main ULT #0"), nested
//     when a unit runs on top of a ULT (a stacked scheduler, ABT_self_schedule);
//   - instants ("i") for create, yield, block (on what: "block #3 on mutex"), wake, finish,
//     cancel, join and free, on the track of the thread where each happened;
//   - flows ("s" to "f") from the waker (inside its slice) to the start of the woken unit's next
//     slice.
//
// Records come in per thread and in time order on each; BuildTimeline sorts them by time (one
// clock, CLOCK_MONOTONIC, for every thread). A unit's slice starts at its Run (or Switch)
// record and ends at its Yield, Block, Finish or Cancel, or at a direct switch to another unit;
// the main ULT, which its stream resumes without a record (keeping that path free of one),
// starts again when a record shows it running (its Actor), at the latest of its wake-up and the
// end of the slice before it on its stream.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
)

// TraceKind says what a TraceRecord records. The values are the C engine's (capi/trace.h,
// checked at compile time by capi/trace.go).
type TraceKind uint16

const (
	// TraceCreate: Unit was created (Aux&TraceAuxRevived: revived) with function Arg.
	TraceCreate TraceKind = iota + 1
	// TraceRun: Unit starts running on Track, function Arg; Depth > 0: on top of Actor (a
	// child run), else a scheduler runs it.
	TraceRun
	// TraceSwitch: Unit starts running on Track by a direct switch from Actor, which stops.
	TraceSwitch
	// TraceYield: Unit yields (Aux: ABT_sync_event_type).
	TraceYield
	// TraceBlock: Unit blocks (suspends); Aux is what on (ABT_sync_event_type), Arg the object.
	TraceBlock
	// TraceWake: Unit is made ready again by Actor (0: a scheduler, or an external thread).
	TraceWake
	// TraceFinish: Unit's function returned (or it exited).
	TraceFinish
	// TraceCancel: Unit was cancelled: it ends without running again.
	TraceCancel
	// TraceJoin: Actor (or an external thread) joined Unit.
	TraceJoin
	// TraceFree: Unit was freed.
	TraceFree
	// TraceInit: the runtime started; Actor is the main ULT, running on Track.
	TraceInit
	// TraceFinalize: the main ULT (Actor) called the outermost ABT_finalize and steps aside
	// until its stream runs out of work.
	TraceFinalize
	// TraceEnd: the run's last record (the main ULT in ABT_finalize, before the file is written).
	TraceEnd
)

// TraceAuxRevived marks a TraceCreate of a revived unit; TraceAuxTasklet one of a tasklet.
const (
	TraceAuxRevived = 1
	TraceAuxTasklet = 2
)

// ExternalTrack is the first track of external threads: the n-th (from 0) that records
// something is track ExternalTrack+n.
const ExternalTrack = 1 << 20

// TraceRecord is one event as the C engine records it (48 bytes; capi/trace.h's layout).
type TraceRecord struct {
	Time  uint64 // ns, CLOCK_MONOTONIC
	Unit  uint64 // the unit's id + 1; 0: none
	Actor uint64 // the unit running on the recording thread, id + 1; 0: none (scheduler, external thread)
	Arg   uint64 // a function's address (create, run, switch) or an object's (block)
	Track int32  // the recording stream's rank, or ExternalTrack+n
	Kind  TraceKind
	Depth uint16 // child runs in progress on the recording stream
	Aux   uint32
	_     uint32
}

// Trace collects the records of one run (Config.Trace set).
type Trace struct {
	mu sync.Mutex
	// chunks hold the records in arrival order, traceChunk each (the last one filling): a long
	// run's records are never copied as they grow, which one growing slice did (a traced ULT
	// create+join+free cost ~8 µs, most of it memmove of the slice doubling).
	chunks [][]TraceRecord
}

// traceChunk is how many records one chunk holds (48 bytes each: 3 MiB).
const traceChunk = 1 << 16

// Add keeps a copy of recs.
func (t *Trace) Add(recs []TraceRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(recs) > 0 {
		n := len(t.chunks)
		if n == 0 || len(t.chunks[n-1]) == cap(t.chunks[n-1]) {
			t.chunks = append(t.chunks, make([]TraceRecord, 0, traceChunk))
			n++
		}
		last := t.chunks[n-1]
		k := min(len(recs), cap(last)-len(last))
		t.chunks[n-1] = append(last, recs[:k]...)
		recs = recs[k:]
	}
}

// Take returns the records added so far, in the order they came, and forgets them.
func (t *Trace) Take() []TraceRecord {
	t.mu.Lock()
	defer t.mu.Unlock()
	total := 0
	for _, c := range t.chunks {
		total += len(c)
	}
	if total == 0 {
		t.chunks = nil
		return nil
	}
	recs := make([]TraceRecord, 0, total)
	for _, c := range t.chunks {
		recs = append(recs, c...)
	}
	t.chunks = nil
	return recs
}

// syncNames are ABT_sync_event_type's names, by value.
var syncNames = []string{"unknown", "user", "other", "xstream join", "join", "mutex", "cond",
	"rwlock", "eventual", "future", "barrier"}

// SyncName names an ABT_sync_event_type value: what a unit blocked on ("block" if unknown).
func SyncName(v uint32) string {
	if int(v) < len(syncNames) && v > 0 {
		return syncNames[v]
	}
	return "block"
}

// TraceSlice is one time a unit ran on a track, Start to End (ns since the timeline's Origin).
type TraceSlice struct {
	Track      int32
	Unit       uint64 // the unit's id
	Fn         string // its function's symbol ("main ULT" for the main ULT)
	Start, End uint64
	Depth      int
}

// Name is the slice's name in the trace: its function's symbol and its unit's id.
func (s TraceSlice) Name() string { return s.Fn + " #" + strconv.FormatUint(s.Unit, 10) }

// TraceInstant is a point event on a track.
type TraceInstant struct {
	Track int32
	Time  uint64
	Kind  TraceKind
	Unit  uint64 // the unit's id
	Fn    string // the unit's function, when known
	On    string // a block's object kind (SyncName)
}

// Name is the instant's name in the trace ("create sum_share #3", "block #3 on mutex").
func (i TraceInstant) Name() string {
	id := " #" + strconv.FormatUint(i.Unit, 10)
	switch i.Kind {
	case TraceCreate:
		return "create " + i.Fn + id
	case TraceYield:
		return "yield" + id
	case TraceBlock:
		return "block" + id + " on " + i.On
	case TraceWake:
		return "wake" + id
	case TraceFinish:
		return "finish " + i.Fn + id
	case TraceCancel:
		return "cancel" + id
	case TraceJoin:
		return "join" + id
	case TraceFree:
		return "free" + id
	case TraceInit:
		return "ABT_init"
	case TraceFinalize:
		return "ABT_finalize"
	}
	return "event" + id
}

// TraceFlow goes from a waker (FromTrack at From) to the start of the woken unit's next slice.
type TraceFlow struct {
	ID               uint64
	Unit             uint64 // the woken unit's id
	FromTrack        int32
	From             uint64
	ToTrack          int32
	To               uint64
	FromUnit, ToUnit string // the slices' names at both ends ("" if the waker ran no slice)
}

// wakeAfterEnd: a wake a scheduler makes (no unit running) this soon after a slice ended on its
// stream is that unit's doing (ns).
const wakeAfterEnd = 20000

// Timeline is a trace made into slices, instants and flows; times are ns since Origin.
type Timeline struct {
	Origin   uint64 // the earliest record's time (CLOCK_MONOTONIC ns)
	Tracks   []int32
	Slices   []TraceSlice
	Instants []TraceInstant
	Flows    []TraceFlow
}

// TrackName names a track: "xstream N" or "external thread N".
func TrackName(track int32) string {
	if track >= ExternalTrack {
		return "external thread " + strconv.Itoa(int(track-ExternalTrack))
	}
	return "xstream " + strconv.Itoa(int(track))
}

type openSlice struct {
	unit  uint64 // id + 1
	start uint64
}

type trackState struct {
	stack     []openSlice
	lastClose uint64 // when the last slice on it ended
	lastEnd   int    // index in Slices of that slice, -1: none
	lastTime  uint64
}

type unitState struct {
	fn        uint64
	fnKnown   bool
	ready     uint64 // when it last became ready (created, woken, yielded)
	lastSeen  uint64
	wakeFrom  int32 // a pending flow's source
	wakeAt    uint64
	wakeSlice string
	wakeSet   bool
}

// BuildTimeline makes a timeline of recs (any order); symbol names a function address (""
// when unknown: the address is shown).
func BuildTimeline(recs []TraceRecord, symbol func(addr uint64) string) *Timeline {
	recs = append([]TraceRecord(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Time < recs[j].Time })
	tl := &Timeline{}
	if len(recs) > 0 {
		tl.Origin = recs[0].Time
	}
	names := map[uint64]string{}
	fnName := func(addr uint64) string {
		if n, ok := names[addr]; ok {
			return n
		}
		n := ""
		if symbol != nil {
			n = symbol(addr)
		}
		if n == "" {
			n = fmt.Sprintf("0x%x", addr)
		}
		names[addr] = n
		return n
	}
	tracks := map[int32]*trackState{}
	dead := map[int]bool{} // slices merged into a later one
	units := map[uint64]*unitState{}
	var mainUnit uint64
	unit := func(id uint64) *unitState {
		u := units[id]
		if u == nil {
			u = &unitState{}
			units[id] = u
		}
		return u
	}
	unitFn := func(id uint64) string {
		if id == mainUnit && mainUnit != 0 {
			return "main ULT"
		}
		if u := units[id]; u != nil && u.fnKnown {
			return fnName(u.fn)
		}
		return "unit"
	}
	track := func(t int32) *trackState {
		ts := tracks[t]
		if ts == nil {
			ts = &trackState{lastEnd: -1}
			tracks[t] = ts
			tl.Tracks = append(tl.Tracks, t)
		}
		return ts
	}
	rel := func(t uint64) uint64 { return t - tl.Origin }
	// closeAbove ends the slices at stack positions >= depth of track t, at `at` (or, for a
	// slice displaced without a record, when its unit was last seen, if earlier).
	closeAbove := func(t int32, ts *trackState, depth int, at uint64, exact bool) {
		for len(ts.stack) > depth {
			o := ts.stack[len(ts.stack)-1]
			ts.stack = ts.stack[:len(ts.stack)-1]
			end := at
			if !exact {
				if seen := unit(o.unit).lastSeen; seen >= o.start && seen < end {
					end = seen
				}
			}
			tl.Slices = append(tl.Slices, TraceSlice{Track: t, Unit: o.unit - 1, Fn: unitFn(o.unit),
				Start: rel(o.start), End: rel(end), Depth: len(ts.stack)})
			ts.lastClose = end
			ts.lastEnd = len(tl.Slices) - 1
		}
	}
	open := func(t int32, ts *trackState, id uint64, start uint64) {
		ts.stack = append(ts.stack, openSlice{unit: id, start: start})
		u := unit(id)
		if u.wakeSet {
			u.wakeSet = false
			tl.Flows = append(tl.Flows, TraceFlow{ID: uint64(len(tl.Flows) + 1), Unit: id - 1,
				FromTrack: u.wakeFrom, From: rel(u.wakeAt), ToTrack: t, To: rel(start),
				FromUnit: u.wakeSlice, ToUnit: unitFn(id) + " #" + strconv.FormatUint(id-1, 10)})
		}
	}
	// position of id in t's stack, -1 if absent
	find := func(ts *trackState, id uint64) int {
		for i := len(ts.stack) - 1; i >= 0; i-- {
			if ts.stack[i].unit == id {
				return i
			}
		}
		return -1
	}
	instant := func(r TraceRecord, on string) {
		id := r.Unit
		if id == 0 {
			id = r.Actor
		}
		var unitID uint64
		if id != 0 {
			unitID = id - 1
		}
		tl.Instants = append(tl.Instants, TraceInstant{Track: r.Track, Time: rel(r.Time), Kind: r.Kind,
			Unit: unitID, Fn: unitFn(id), On: on})
	}
	for _, r := range recs {
		ts := track(r.Track)
		ts.lastTime = r.Time
		if r.Kind == TraceInit {
			mainUnit = r.Actor
		}
		if r.Unit != 0 && (r.Kind == TraceCreate || r.Kind == TraceRun || r.Kind == TraceSwitch) {
			u := unit(r.Unit)
			if r.Kind != TraceCreate || r.Aux&TraceAuxRevived != 0 || !u.fnKnown {
				u.fn, u.fnKnown = r.Arg, true
			}
			if r.Kind == TraceCreate {
				u.ready = r.Time
			}
		}
		// The actor runs on this track now: at position Depth (for a child run, Depth-1).
		if r.Actor != 0 && r.Track < ExternalTrack {
			at := int(r.Depth)
			if r.Kind == TraceRun && r.Depth > 0 {
				at--
			}
			if find(ts, r.Actor) < 0 {
				closeAbove(r.Track, ts, at, r.Time, false)
				start := max(ts.lastClose, unit(r.Actor).ready)
				if r.Kind == TraceInit || start > r.Time {
					start = r.Time
				}
				// Nothing ran since its own last slice here ended: that slice goes on.
				if i := ts.lastEnd; i >= 0 && !dead[i] && tl.Slices[i].Unit == r.Actor-1 &&
					tl.Slices[i].End == rel(start) && tl.Slices[i].Depth == len(ts.stack) {
					dead[i] = true
					start = tl.Origin + tl.Slices[i].Start
				}
				open(r.Track, ts, r.Actor, start)
			}
			unit(r.Actor).lastSeen = r.Time
		}
		if r.Unit != 0 {
			unit(r.Unit).lastSeen = r.Time
		}
		switch r.Kind {
		case TraceCreate:
			instant(r, "")
		case TraceRun:
			closeAbove(r.Track, ts, int(r.Depth), r.Time, false)
			open(r.Track, ts, r.Unit, r.Time)
		case TraceSwitch:
			closeAbove(r.Track, ts, int(r.Depth), r.Time, true)
			open(r.Track, ts, r.Unit, r.Time)
		case TraceYield, TraceBlock, TraceFinish, TraceCancel:
			on := ""
			if r.Kind == TraceBlock {
				on = SyncName(r.Aux)
			}
			instant(r, on)
			if i := find(ts, r.Unit); i >= 0 {
				closeAbove(r.Track, ts, i, r.Time, true)
			}
			if r.Kind == TraceYield || r.Kind == TraceBlock {
				unit(r.Unit).ready = r.Time
			}
		case TraceWake:
			instant(r, "")
			u := unit(r.Unit)
			u.ready = r.Time
			u.wakeSet, u.wakeFrom, u.wakeAt, u.wakeSlice = true, r.Track, r.Time, ""
			if n := len(ts.stack); n > 0 {
				top := ts.stack[n-1].unit
				u.wakeSlice = unitFn(top) + " #" + strconv.FormatUint(top-1, 10)
			} else if ts.lastEnd >= 0 && ts.lastClose+wakeAfterEnd >= r.Time {
				// A scheduler wakes it for the unit that just switched out (a joiner when a
				// unit finishes): the flow starts at the end of that unit's slice.
				s := tl.Slices[ts.lastEnd]
				u.wakeAt = tl.Origin + s.End
				if s.End > s.Start {
					u.wakeAt--
				}
				u.wakeSlice = s.Name()
			}
		case TraceJoin, TraceFree:
			instant(r, "")
		case TraceInit:
			instant(r, "")
		case TraceFinalize:
			instant(r, "")
			if i := find(ts, r.Actor); i >= 0 {
				closeAbove(r.Track, ts, i, r.Time, true)
			}
			unit(r.Actor).ready = r.Time
		case TraceEnd:
		}
	}
	for _, t := range tl.Tracks {
		ts := tracks[t]
		closeAbove(t, ts, 0, ts.lastTime, true)
	}
	if len(dead) > 0 {
		kept := tl.Slices[:0]
		for i, sl := range tl.Slices {
			if !dead[i] {
				kept = append(kept, sl)
			}
		}
		tl.Slices = kept
	}
	sort.Slice(tl.Tracks, func(i, j int) bool { return tl.Tracks[i] < tl.Tracks[j] })
	return tl
}

// TraceEvent is one event of the Chrome JSON trace event format, as WriteJSON writes it and
// ReadTrace reads it back. Times are microseconds.
type TraceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	TS    float64        `json:"ts"`
	Dur   float64        `json:"dur,omitempty"`
	PID   int            `json:"pid"`
	TID   int            `json:"tid"`
	ID    uint64         `json:"id,omitempty"`
	BP    string         `json:"bp,omitempty"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// us converts ns to microseconds.
func us(ns uint64) float64 { return float64(ns) / 1000 }

// Events lists the timeline's trace events: metadata (process and thread names, in track
// order), slices, instants, flows.
func (tl *Timeline) Events() []TraceEvent {
	var ev []TraceEvent
	ev = append(ev, TraceEvent{Name: "process_name", Ph: "M", PID: 1, Args: map[string]any{"name": "goabt"}})
	for i, t := range tl.Tracks {
		ev = append(ev, TraceEvent{Name: "thread_name", Ph: "M", PID: 1, TID: int(t),
			Args: map[string]any{"name": TrackName(t)}})
		ev = append(ev, TraceEvent{Name: "thread_sort_index", Ph: "M", PID: 1, TID: int(t),
			Args: map[string]any{"sort_index": i}})
	}
	for _, s := range tl.Slices {
		ev = append(ev, TraceEvent{Name: s.Name(), Cat: "unit", Ph: "X", TS: us(s.Start),
			Dur: us(s.End - s.Start), PID: 1, TID: int(s.Track),
			Args: map[string]any{"unit": s.Unit, "fn": s.Fn}})
	}
	for _, i := range tl.Instants {
		args := map[string]any{"unit": i.Unit}
		if i.Kind == TraceInit || i.Kind == TraceFinalize {
			args = nil
		}
		if i.On != "" {
			args["on"] = i.On
		}
		ev = append(ev, TraceEvent{Name: i.Name(), Cat: instantCat(i.Kind), Ph: "i", TS: us(i.Time),
			PID: 1, TID: int(i.Track), Scope: "t", Args: args})
	}
	for _, f := range tl.Flows {
		ev = append(ev, TraceEvent{Name: "wake", Cat: "wake", Ph: "s", TS: us(f.From), PID: 1,
			TID: int(f.FromTrack), ID: f.ID, Args: map[string]any{"unit": f.Unit}})
		ev = append(ev, TraceEvent{Name: "wake", Cat: "wake", Ph: "f", BP: "e", TS: us(f.To), PID: 1,
			TID: int(f.ToTrack), ID: f.ID, Args: map[string]any{"unit": f.Unit}})
	}
	return ev
}

func instantCat(k TraceKind) string {
	switch k {
	case TraceCreate:
		return "create"
	case TraceYield:
		return "yield"
	case TraceBlock:
		return "block"
	case TraceWake:
		return "wake"
	case TraceFinish:
		return "finish"
	case TraceCancel:
		return "cancel"
	case TraceJoin:
		return "join"
	case TraceFree:
		return "free"
	}
	return "runtime"
}

// WriteJSON writes the timeline as {"traceEvents":[...]}, one event a line.
func (tl *Timeline) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\"traceEvents\":[\n")
	for i, e := range tl.Events() {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.Write(b)
	}
	bw.WriteString("\n],\"displayTimeUnit\":\"ns\"}\n")
	return bw.Flush()
}

// TraceFile is a trace read back (ReadTrace).
type TraceFile struct {
	TraceEvents []TraceEvent `json:"traceEvents"`
}

// ReadTrace parses a Chrome JSON trace ({"traceEvents":[...]}).
func ReadTrace(r io.Reader) (*TraceFile, error) {
	var f TraceFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	return &f, nil
}

// ThreadNames maps each tid to its thread_name.
func (f *TraceFile) ThreadNames() map[int]string {
	m := map[int]string{}
	for _, e := range f.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			if n, ok := e.Args["name"].(string); ok {
				m[e.TID] = n
			}
		}
	}
	return m
}

// Phase lists the events of phase ph ("X", "i", "s", "f", "M").
func (f *TraceFile) Phase(ph string) []TraceEvent {
	var out []TraceEvent
	for _, e := range f.TraceEvents {
		if e.Ph == ph {
			out = append(out, e)
		}
	}
	return out
}

// ArgUint reads a numeric argument of e (JSON numbers decode as float64).
func (e TraceEvent) ArgUint(name string) (uint64, bool) {
	v, ok := e.Args[name].(float64)
	if !ok || v < 0 {
		return 0, false
	}
	return uint64(v), true
}
