package core

import (
	"bytes"
	"debug/elf"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A small run, as the engine would record it (ids + 1; times in ns): the main ULT (id 0) on
// stream 0 creates A (id 1, fn 0x100) on stream 1 and B (id 2, fn 0x200) on stream 0, joins
// A; A yields once, locks a mutex B holds... simplified: A blocks on a mutex, B (running on
// stream 0 after main blocked) wakes it, A finishes, the scheduler wakes main (A's joiner);
// A switches directly to nobody; C (id 3, fn 0x300) is run on top of B (a child run).
func sampleRecords() []TraceRecord {
	return []TraceRecord{
		{Time: 1000, Kind: TraceInit, Track: 0, Actor: 1},
		{Time: 1100, Kind: TraceCreate, Track: 0, Actor: 1, Unit: 2, Arg: 0x100},
		{Time: 1200, Kind: TraceCreate, Track: 0, Actor: 1, Unit: 3, Arg: 0x200},
		{Time: 1300, Kind: TraceRun, Track: 1, Unit: 2, Arg: 0x100},
		{Time: 1400, Kind: TraceBlock, Track: 0, Actor: 1, Unit: 1, Aux: 4}, // main joins A
		{Time: 1500, Kind: TraceRun, Track: 0, Unit: 3, Arg: 0x200},
		{Time: 1600, Kind: TraceYield, Track: 1, Actor: 2, Unit: 2, Aux: 1},
		{Time: 1700, Kind: TraceRun, Track: 1, Unit: 2, Arg: 0x100},
		{Time: 1800, Kind: TraceBlock, Track: 1, Actor: 2, Unit: 2, Aux: 5, Arg: 0xabc}, // on a mutex
		{Time: 1900, Kind: TraceWake, Track: 0, Actor: 3, Unit: 2},                      // B wakes A
		{Time: 2000, Kind: TraceRun, Track: 0, Actor: 3, Unit: 4, Arg: 0x300, Depth: 1}, // C on top of B
		{Time: 2100, Kind: TraceFinish, Track: 0, Unit: 4, Depth: 1},
		{Time: 2200, Kind: TraceRun, Track: 1, Unit: 2, Arg: 0x100},
		{Time: 2300, Kind: TraceFinish, Track: 0, Unit: 3},
		{Time: 2400, Kind: TraceFinish, Track: 1, Unit: 2},
		{Time: 2410, Kind: TraceWake, Track: 1, Unit: 1}, // the scheduler wakes A's joiner
		{Time: 2500, Kind: TraceJoin, Track: 0, Actor: 1, Unit: 2},
		{Time: 2600, Kind: TraceFree, Track: 0, Actor: 1, Unit: 2},
		{Time: 2700, Kind: TraceWake, Track: ExternalTrack, Unit: 3},
		{Time: 2800, Kind: TraceFinalize, Track: 0, Actor: 1},
		{Time: 2900, Kind: TraceEnd, Track: 0, Actor: 1},
	}
}

func sampleSymbol(addr uint64) string {
	return map[uint64]string{0x100: "work_a", 0x200: "work_b"}[addr]
}

func TestTraceTimeline(t *testing.T) {
	recs := sampleRecords()
	// Shuffled by track, as buffers arrive: the timeline sorts them.
	var shuffled []TraceRecord
	for _, tr := range []int32{1, ExternalTrack, 0} {
		for _, r := range recs {
			if r.Track == tr {
				shuffled = append(shuffled, r)
			}
		}
	}
	tl := BuildTimeline(shuffled, sampleSymbol)
	require.Equal(t, uint64(1000), tl.Origin)
	require.Equal(t, []int32{0, 1, ExternalTrack}, tl.Tracks)
	type sl struct {
		track      int32
		name       string
		start, end uint64
		depth      int
	}
	var got []sl
	for _, s := range tl.Slices {
		got = append(got, sl{s.Track, s.Name(), s.Start, s.End, s.Depth})
	}
	require.ElementsMatch(t, []sl{
		{0, "main ULT #0", 0, 400, 0},   // init to its join
		{1, "work_a #1", 300, 600, 0},   // run to yield
		{0, "work_b #2", 500, 1300, 0},  // run to finish
		{1, "work_a #1", 700, 800, 0},   // run to block
		{0, "0x300 #3", 1000, 1100, 1},  // on top of B: no symbol, the address
		{1, "work_a #1", 1200, 1400, 0}, // woken, to finish
		// Woken when A finished, seen at its join; after finalize nothing ran in between, so
		// its slice goes on to the end.
		{0, "main ULT #0", 1410, 1900, 0},
	}, got)
	require.Len(t, tl.Slices, 7)

	inst := map[string]int32{}
	for _, i := range tl.Instants {
		inst[i.Name()] = i.Track
	}
	require.Equal(t, map[string]int32{
		"ABT_init": 0, "create work_a #1": 0, "create work_b #2": 0, "block #0 on join": 0,
		"yield #1": 1, "block #1 on mutex": 1, "wake #1": 0, "finish 0x300 #3": 0,
		"finish work_b #2": 0, "finish work_a #1": 1, "wake #0": 1, "join #1": 0, "free #1": 0,
		"wake #2": ExternalTrack, "ABT_finalize": 0,
	}, inst)

	require.Len(t, tl.Flows, 2)
	f := tl.Flows[0]
	require.Equal(t, TraceFlow{ID: 1, Unit: 1, FromTrack: 0, From: 900, ToTrack: 1, To: 1200,
		FromUnit: "work_b #2", ToUnit: "work_a #1"}, f, "B wakes A: from inside B's slice")
	f = tl.Flows[1]
	require.Equal(t, TraceFlow{ID: 2, Unit: 0, FromTrack: 1, From: 1399, ToTrack: 0, To: 1410,
		FromUnit: "work_a #1", ToUnit: "main ULT #0"}, f, "the scheduler wakes main for A: from A's end")
	// The wake from an external thread of a finished unit has no slice to go to.
}

func TestTraceSwitch(t *testing.T) {
	recs := []TraceRecord{
		{Time: 0, Kind: TraceInit, Track: 0, Actor: 1},
		{Time: 10, Kind: TraceRun, Track: 1, Unit: 2, Arg: 1},
		{Time: 20, Kind: TraceSwitch, Track: 1, Actor: 2, Unit: 3, Arg: 2}, // yield_to
		{Time: 30, Kind: TraceSwitch, Track: 1, Actor: 3, Unit: 2, Arg: 1},
		{Time: 40, Kind: TraceFinish, Track: 1, Actor: 2, Unit: 3}, // exit_to: after the switch
		{Time: 50, Kind: TraceFinish, Track: 1, Unit: 2},
		{Time: 60, Kind: TraceEnd, Track: 0, Actor: 1},
	}
	tl := BuildTimeline(recs, func(a uint64) string { return []string{"", "f", "g"}[a] })
	var names []string
	for _, s := range tl.Slices {
		if s.Track == 1 {
			names = append(names, s.Name())
			require.Zero(t, s.Depth)
		}
	}
	require.Equal(t, []string{"f #1", "g #2", "f #1"}, names)
	require.Equal(t, uint64(50), tl.Slices[2].End)
}

func TestTraceJSONRoundTrip(t *testing.T) {
	tl := BuildTimeline(sampleRecords(), sampleSymbol)
	var buf bytes.Buffer
	require.NoError(t, tl.WriteJSON(&buf))
	require.True(t, strings.HasPrefix(buf.String(), "{\"traceEvents\":["))
	f, err := ReadTrace(&buf)
	require.NoError(t, err)
	require.Equal(t, map[int]string{0: "xstream 0", 1: "xstream 1", ExternalTrack: "external thread 0"},
		f.ThreadNames())
	xs := f.Phase("X")
	require.Len(t, xs, len(tl.Slices))
	for i, e := range xs {
		s := tl.Slices[i]
		require.Equal(t, s.Name(), e.Name)
		require.Equal(t, int(s.Track), e.TID)
		require.InDelta(t, float64(s.Start)/1000, e.TS, 1e-9)
		require.InDelta(t, float64(s.End-s.Start)/1000, e.Dur, 1e-9)
		id, ok := e.ArgUint("unit")
		require.True(t, ok)
		require.Equal(t, s.Unit, id)
	}
	require.Len(t, f.Phase("i"), len(tl.Instants))
	ss, fs := f.Phase("s"), f.Phase("f")
	require.Len(t, ss, 2)
	require.Len(t, fs, 2)
	for i := range ss {
		require.Equal(t, ss[i].ID, fs[i].ID)
		require.Equal(t, "e", fs[i].BP)
	}
	_, err = ReadTrace(strings.NewReader("{\"traceEvents\":[{]}"))
	require.Error(t, err)
}

func TestTraceAddTake(t *testing.T) {
	var tr Trace
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				tr.Add([]TraceRecord{{Time: uint64(i), Track: int32(g)}})
			}
		}(g)
	}
	wg.Wait()
	require.Len(t, tr.Take(), 400)
	require.Empty(t, tr.Take())
	require.Equal(t, 48, int(reflect.TypeOf(TraceRecord{}).Size()), "capi/trace.h's layout")
}

// TestTraceChunks checks that records added in batches that straddle chunk boundaries come back
// whole and in the order they were added.
func TestTraceChunks(t *testing.T) {
	var tr Trace
	const total = 2*traceChunk + 777
	batch := make([]TraceRecord, 1000)
	for next := 0; next < total; {
		n := min(len(batch), total-next)
		for i := 0; i < n; i++ {
			batch[i] = TraceRecord{Time: uint64(next + i)}
		}
		tr.Add(batch[:n])
		next += n
	}
	got := tr.Take()
	require.Len(t, got, total)
	for i, r := range got {
		if r.Time != uint64(i) {
			require.Equal(t, uint64(i), r.Time, "record %d", i)
		}
	}
}

// svgLanes parses an SVG and returns its lanes' tids and how many slices each holds.
func svgLanes(t *testing.T, svg []byte) (lanes []string, slices map[string]int) {
	t.Helper()
	d := parseDrawing(t, svg)
	slices = map[string]int{}
	for _, r := range d.slices {
		if r.lane != "" {
			slices[r.lane]++
		}
	}
	return d.lanes, slices
}

func TestTraceSVG(t *testing.T) {
	tl := BuildTimeline(sampleRecords(), sampleSymbol)
	var js bytes.Buffer
	require.NoError(t, tl.WriteJSON(&js))
	f, err := ReadTrace(&js)
	require.NoError(t, err)
	var svg bytes.Buffer
	require.NoError(t, RenderSVG(&svg, f, SVGOptions{Width: 800, Title: "a <test> & more"}))
	lanes, slices := svgLanes(t, svg.Bytes())
	require.Equal(t, []string{"0", "1", "1048576"}, lanes, "one lane per track, in order")
	require.Equal(t, 3, slices["1"], "work_a's three runs on stream 1")
	require.Positive(t, slices["0"])
	require.Contains(t, svg.String(), "work_a #1")
	require.Contains(t, svg.String(), "a &lt;test&gt; &amp; more")

	// An empty trace still draws.
	svg.Reset()
	require.NoError(t, RenderSVG(&svg, &TraceFile{}, SVGOptions{}))
	lanes, _ = svgLanes(t, svg.Bytes())
	require.Empty(t, lanes)
}

// svgDrawing is what a picture shows, parsed from RenderSVG's output: its slices in the order
// drawn, its legend and its axis' texts.
type svgDrawing struct {
	lanes  []string // the lanes' tids, in order
	slices []svgRect
	legend map[string]string // function -> fill
	axis   []string          // the texts of the time axis, in order
}

type svgRect struct {
	lane       string
	x, y, w    float64
	fill, tips string
}

func parseDrawing(t *testing.T, svg []byte) svgDrawing {
	t.Helper()
	d := svgDrawing{legend: map[string]string{}}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var stack []string // class of each open element
	lane, legendFill := "", ""
	inText, inTitle := false, false
	num := func(attr map[string]string, name string) float64 {
		v, err := strconv.ParseFloat(attr[name], 64)
		require.NoError(t, err, "%s=%q", name, attr[name])
		return v
	}
	in := func(class string) bool { return slices.Contains(stack, class) }
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			if len(stack) == 0 {
				require.Equal(t, "svg", e.Name.Local)
			}
			stack = append(stack, attr["class"])
			switch {
			case e.Name.Local == "g" && attr["class"] == "lane":
				lane = attr["data-tid"]
				d.lanes = append(d.lanes, lane)
			case e.Name.Local == "rect" && attr["class"] == "slice":
				d.slices = append(d.slices, svgRect{lane: lane, x: num(attr, "x"), y: num(attr, "y"),
					w: num(attr, "width"), fill: attr["fill"]})
			case e.Name.Local == "rect" && in("legend"):
				legendFill = attr["fill"]
			case e.Name.Local == "title":
				inTitle = true
			case e.Name.Local == "text":
				inText = true
			}
		case xml.CharData:
			switch {
			case inTitle && len(d.slices) > 0:
				d.slices[len(d.slices)-1].tips += string(e)
			case inText && in("legend"):
				d.legend[string(e)] = legendFill
			case inText && in("axis"):
				d.axis = append(d.axis, string(e))
			}
		case xml.EndElement:
			inText, inTitle = false, false
			if stack[len(stack)-1] == "lane" {
				lane = ""
			}
			stack = stack[:len(stack)-1]
		}
	}
	return d
}

// visibleWidth is how much of slice i's width the slices drawn after it in its row leave
// uncovered, in pixels.
func (d svgDrawing) visibleWidth(i int) float64 {
	s := d.slices[i]
	visible := [][2]float64{{s.x, s.x + s.w}}
	for _, o := range d.slices[i+1:] {
		if o.lane != s.lane || o.y != s.y {
			continue
		}
		var left [][2]float64
		for _, v := range visible {
			if o.x > v[0] {
				left = append(left, [2]float64{v[0], math.Min(v[1], o.x)})
			}
			if o.x+o.w < v[1] {
				left = append(left, [2]float64{math.Max(v[0], o.x+o.w), v[1]})
			}
		}
		visible = left
	}
	total := 0.0
	for _, v := range visible {
		total += max(0, v[1]-v[0])
	}
	return total
}

// traceOf is a trace of the given slices (tid, fn, start and length in µs) on streams named
// "xstream <tid>".
func traceOf(slices ...TraceEvent) *TraceFile {
	f := &TraceFile{}
	named := map[int]bool{}
	for _, s := range slices {
		if !named[s.TID] {
			named[s.TID] = true
			f.TraceEvents = append(f.TraceEvents, TraceEvent{Name: "thread_name", Ph: "M", TID: s.TID,
				Args: map[string]any{"name": fmt.Sprintf("xstream %d", s.TID)}})
		}
		s.Ph, s.Args = "X", map[string]any{"fn": s.Name}
		f.TraceEvents = append(f.TraceEvents, s)
	}
	return f
}

// Units far shorter than a pixel (the demo's tasklets: 0.05 µs in 20 ms) are still in the
// picture: every slice is at least 1 px wide, and every function the legend names has a slice
// that the slices drawn after it leave at least 1 px of.
func TestTraceSVGShortUnitsVisible(t *testing.T) {
	f := traceOf(
		// A tasklet between two runs of a ULT, and a tasklet just before a ULT starts.
		TraceEvent{TID: 0, Name: "long_ult", TS: 0, Dur: 5000},
		TraceEvent{TID: 0, Name: "tiny_tasklet", TS: 5000.01, Dur: 0.03},
		TraceEvent{TID: 0, Name: "long_ult", TS: 5000.05, Dur: 15000},
		TraceEvent{TID: 1, Name: "early_tasklet", TS: 20, Dur: 0.05},
		TraceEvent{TID: 1, Name: "other_ult", TS: 20.06, Dur: 9000},
		// The last event of the run: a tick there stays inside the plot.
		TraceEvent{TID: 1, Name: "last_tasklet", TS: 20050, Dur: 0.04},
	)
	var svg bytes.Buffer
	require.NoError(t, RenderSVG(&svg, f, SVGOptions{Width: 1000}))
	d := parseDrawing(t, svg.Bytes())
	require.Len(t, d.legend, 5, "%v", d.legend)
	for _, s := range d.slices {
		require.GreaterOrEqual(t, s.w, 1.0, "slice %q is at least a pixel wide", s.tips)
		require.LessOrEqual(t, s.x+s.w, 1000-20.0+1e-9, "slice %q ends inside the plot", s.tips)
	}
	for fn, fill := range d.legend {
		best := 0.0
		for i, s := range d.slices {
			if s.fill == fill {
				best = math.Max(best, d.visibleWidth(i))
			}
		}
		require.GreaterOrEqual(t, best, 1.0, "%s, in the legend, shows at least a pixel in the picture", fn)
	}
}

// The time axis: the unit said once ("time (ms)"), every tick label a plain number in that
// unit with the same number of decimals, from 0 on by one step.
func TestTraceSVGAxisLabels(t *testing.T) {
	for _, c := range []struct {
		span float64 // µs
		unit string
	}{
		{0.8, "µs"}, {800, "µs"}, {2300, "ms"}, {22000, "ms"}, {3.5e6, "s"},
	} {
		// The run starts at 123.4 µs, not on a tick.
		f := traceOf(TraceEvent{TID: 0, Name: "f", TS: 123.4, Dur: c.span})
		var svg bytes.Buffer
		require.NoError(t, RenderSVG(&svg, f, SVGOptions{}))
		d := parseDrawing(t, svg.Bytes())
		label := regexp.MustCompile(`^time \((µs|ms|s)\)$`)
		var ticks []string
		units := 0
		for _, s := range d.axis {
			if m := label.FindStringSubmatch(s); m != nil {
				units++
				require.Equal(t, c.unit, m[1], "span %g µs", c.span)
				continue
			}
			require.Regexp(t, `^\d+(\.\d+)?$`, s, "span %g µs: a tick label is a number in the axis' unit", c.span)
			ticks = append(ticks, s)
		}
		require.Equal(t, 1, units, "span %g µs: the axis says its unit once: %q", c.span, d.axis)
		require.GreaterOrEqual(t, len(ticks), 3, "span %g µs: %q", c.span, d.axis)
		decimals := func(s string) int {
			if _, frac, ok := strings.Cut(s, "."); ok {
				return len(frac)
			}
			return 0
		}
		first, _ := strconv.ParseFloat(ticks[0], 64)
		second, _ := strconv.ParseFloat(ticks[1], 64)
		require.Zero(t, first, "span %g µs: the axis starts at 0: %q", c.span, ticks)
		for i, s := range ticks {
			require.Equal(t, decimals(ticks[0]), decimals(s), "span %g µs: one format: %q", c.span, ticks)
			v, _ := strconv.ParseFloat(s, 64)
			require.InDelta(t, float64(i)*second, v, second*1e-6, "span %g µs: ticks one step apart: %q", c.span, ticks)
		}
	}
}

func TestNiceStepAndMicros(t *testing.T) {
	require.Equal(t, 1.0, niceStep(0.7))
	require.Equal(t, 2.0, niceStep(1.5))
	require.Equal(t, 5000.0, niceStep(3100))
	require.Equal(t, "12 µs", fmtMicros(12))
	require.Equal(t, "1.5 ms", fmtMicros(1500))
	require.Equal(t, "2 s", fmtMicros(2e6))
}

func TestSyncName(t *testing.T) {
	require.Equal(t, "mutex", SyncName(5))
	require.Equal(t, "join", SyncName(4))
	require.Equal(t, "xstream join", SyncName(3))
	require.Equal(t, "eventual", SyncName(8))
	require.Equal(t, "block", SyncName(0))
	require.Equal(t, "block", SyncName(99))
}

func TestELFSymbols(t *testing.T) {
	// A C program with a static function (which only the symbol table names), not position-
	// independent: its symbols are addresses. (go test strips its own binaries.)
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	exe := filepath.Join(dir, "p")
	require.NoError(t, os.WriteFile(src, []byte(
		"static int helper(int x) { return x * 3 + 1; }\n"+
			"int (*volatile keep)(int) = helper;\n"+
			"int main(void) { return keep(0) - 1; }\n"), 0o644))
	if out, err := exec.Command("gcc", "-O0", "-no-pie", src, "-o", exe).CombinedOutput(); err != nil {
		t.Skipf("no C compiler: %v %s", err, out)
	}
	ef, err := elf.Open(exe)
	require.NoError(t, err)
	syms, err := ef.Symbols()
	ef.Close()
	require.NoError(t, err)
	var helper elf.Symbol
	for _, s := range syms {
		if s.Name == "helper" {
			helper = s
		}
	}
	require.NotZero(t, helper.Value)
	var s ELFSymbols
	require.Equal(t, "helper", s.Lookup(exe, 0x400000, helper.Value))
	require.Equal(t, "helper", s.Lookup(exe, 0x400000, helper.Value+helper.Size-1), "inside it")
	require.Equal(t, "", s.Lookup(exe, 0x400000, 1), "below every function")
	require.Equal(t, "", s.Lookup(filepath.Join(dir, "none"), 0, helper.Value), "no such file")
}
