package core

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"math"
	"sort"
	"strings"
)

// SVGOptions shape RenderSVG's picture.
type SVGOptions struct {
	Width int    // pixels, 1000 if 0
	Title string // drawn above the lanes, if not empty
}

type svgSlice struct {
	start, end float64 // µs
	fn, name   string
	depth      int
	runs       int
}

// minSliceW is the width, in pixels, of a slice shorter than that: a tasklet of 0.05 µs in a run
// of milliseconds would be a hundredth of a pixel, and its function, named in the legend, would
// be nowhere in the picture.
const minSliceW = 2.0

// RenderSVG draws a trace (ReadTrace) as an SVG timeline: one lane per thread the trace names
// (execution streams, then external threads), each run of a unit a slice coloured by its
// function (slices of one function closer than a pixel are drawn as one; a slice narrower than
// minSliceW is a tick that wide, drawn over its lane's wider slices), nested runs below their
// parent, wake-ups as thin lines from waker to woken, a time axis in one unit and a legend.
func RenderSVG(w io.Writer, f *TraceFile, opt SVGOptions) error {
	width := opt.Width
	if width <= 0 {
		width = 1000
	}
	const left, right, laneH, rowH, top0 = 110.0, 20.0, 26.0, 22.0, 24.0
	names := f.ThreadNames()
	order := map[int]float64{}
	for _, e := range f.Phase("M") {
		if e.Name == "thread_sort_index" {
			if v, ok := e.Args["sort_index"].(float64); ok {
				order[e.TID] = v
			}
		}
	}
	var tids []int
	for tid := range names {
		tids = append(tids, tid)
	}
	sort.Slice(tids, func(i, j int) bool {
		oi, iok := order[tids[i]]
		oj, jok := order[tids[j]]
		if iok && jok && oi != oj {
			return oi < oj
		}
		return tids[i] < tids[j]
	})
	// Time range and the slices of each lane, with their nesting depth.
	t0, t1 := math.Inf(1), math.Inf(-1)
	lanes := map[int][]svgSlice{}
	for _, e := range f.Phase("X") {
		fn, _ := e.Args["fn"].(string)
		if fn == "" {
			fn = e.Name
		}
		lanes[e.TID] = append(lanes[e.TID], svgSlice{start: e.TS, end: e.TS + e.Dur, fn: fn, name: e.Name, runs: 1})
		t0, t1 = math.Min(t0, e.TS), math.Max(t1, e.TS+e.Dur)
	}
	for _, e := range f.Phase("i") {
		t0, t1 = math.Min(t0, e.TS), math.Max(t1, e.TS)
	}
	if math.IsInf(t0, 1) {
		t0, t1 = 0, 1
	}
	if t1 <= t0 {
		t1 = t0 + 1
	}
	plotW := float64(width) - left - right
	x := func(t float64) float64 { return left + (t-t0)/(t1-t0)*plotW }
	depthOf := map[int]int{}
	for tid, ss := range lanes {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
		var open []float64 // ends of enclosing slices
		maxDepth := 0
		for i := range ss {
			for len(open) > 0 && open[len(open)-1] <= ss[i].start+1e-6 {
				open = open[:len(open)-1]
			}
			ss[i].depth = len(open)
			maxDepth = max(maxDepth, len(open))
			open = append(open, ss[i].end)
		}
		depthOf[tid] = maxDepth
		// Slices of one function at one depth closer than a pixel become one.
		var merged []svgSlice
		last := map[int]int{} // depth -> index in merged
		for _, s := range ss {
			if i, ok := last[s.depth]; ok && merged[i].fn == s.fn && x(s.start)-x(merged[i].end) < 1 {
				merged[i].end = math.Max(merged[i].end, s.end)
				merged[i].runs++
				if merged[i].name != s.name {
					merged[i].name = s.fn
				}
				continue
			}
			merged = append(merged, s)
			last[s.depth] = len(merged) - 1
		}
		lanes[tid] = merged
	}
	laneY := map[int]float64{}
	y := top0
	if opt.Title != "" {
		y += 20
	}
	for _, tid := range tids {
		laneY[tid] = y
		y += laneH + float64(depthOf[tid])*rowH
	}
	axisY := y + 4
	// The legend: every function, by first appearance.
	var fns []string
	seen := map[string]bool{}
	for _, tid := range tids {
		for _, s := range lanes[tid] {
			if !seen[s.fn] {
				seen[s.fn] = true
				fns = append(fns, s.fn)
			}
		}
	}
	perRow := max(1, int(plotW/180))
	legendY := axisY + 34
	height := legendY + float64((len(fns)+perRow-1)/perRow)*18 + 8

	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	if opt.Title != "" {
		p(`<text x="%.1f" y="%.1f" font-size="13" font-weight="bold">%s</text>`+"\n", left, top0+4, html.EscapeString(opt.Title))
	}
	for i, tid := range tids {
		ly := laneY[tid]
		h := laneH + float64(depthOf[tid])*rowH
		fill := "#f4f4f4"
		if i%2 == 1 {
			fill = "#ebebeb"
		}
		p(`<g class="lane" data-tid="%d">`+"\n", tid)
		p(`<rect x="0" y="%.1f" width="%d" height="%.1f" fill="%s"/>`+"\n", ly, width, h, fill)
		p(`<text x="6" y="%.1f" dominant-baseline="middle">%s</text>`+"\n", ly+laneH/2, html.EscapeString(names[tid]))
		// The wide slices first, then the ticks over them: a tick drawn before the slice after
		// it would be hidden under that slice.
		for _, ticks := range []bool{false, true} {
			for _, s := range lanes[tid] {
				x0, w := x(s.start), x(s.end)-x(s.start)
				if (w < minSliceW) != ticks {
					continue
				}
				if ticks {
					x0, w = math.Min(x0, left+plotW-minSliceW), minSliceW
				}
				title := s.name
				if s.runs > 1 {
					title = fmt.Sprintf("%s: %d runs", s.name, s.runs)
				}
				p(`<rect class="slice" x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%s (%s)</title></rect>`+"\n",
					x0, ly+3+float64(s.depth)*rowH, w, rowH-2, fnColor(s.fn),
					html.EscapeString(title), fmtMicros(s.end-s.start))
			}
		}
		p("</g>\n")
	}
	// Wake-ups: waker to woken.
	starts := map[uint64]TraceEvent{}
	for _, e := range f.Phase("s") {
		starts[e.ID] = e
	}
	p(`<g class="flows" stroke="#555" stroke-width="0.6" fill="none" opacity="0.7">` + "\n")
	for _, e := range f.Phase("f") {
		s, ok := starts[e.ID]
		ys, ok1 := laneY[s.TID]
		yf, ok2 := laneY[e.TID]
		if !ok || !ok1 || !ok2 {
			continue
		}
		p(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f"/>`+"\n", x(s.TS), ys+laneH/2, x(e.TS), yf+laneH/2)
	}
	p("</g>\n")
	// The time axis.
	p(`<g class="axis"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", left, axisY, left+plotW, axisY)
	// Ticks from the first event on, every label in one unit with one number of decimals, the
	// unit said once, under the lanes' names.
	step := niceStep((t1 - t0) / 8)
	unit, scale := axisUnit(t1 - t0)
	decimals := stepDecimals(step / scale)
	p(`<text class="axis-label" x="6" y="%.1f">time (%s)</text>`+"\n", axisY+16, unit)
	for k := 0; t0+float64(k)*step <= t1+step/1e6; k++ {
		t := t0 + float64(k)*step
		p(`<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="black"/>`, x(t), axisY, x(t), axisY+4)
		p(`<text x="%.2f" y="%.1f" text-anchor="middle">%.*f</text>`+"\n", x(t), axisY+16, decimals, float64(k)*step/scale)
	}
	p("</g>\n")
	p(`<g class="legend">` + "\n")
	for i, fn := range fns {
		lx := left + float64(i%perRow)*180
		ly := legendY + float64(i/perRow)*18
		p(`<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			lx, ly, fnColor(fn), lx+16, ly+10, html.EscapeString(fn))
	}
	p("</g>\n</svg>\n")
	return bw.Flush()
}

// fnColor is a function's colour: the same for the same name in every picture.
func fnColor(fn string) string {
	if fn == "main ULT" {
		return "hsl(0,0%,62%)"
	}
	h := fnv.New32a()
	h.Write([]byte(fn))
	v := h.Sum32()
	return fmt.Sprintf("hsl(%d,%d%%,%d%%)", v%360, 55+(v>>9)%25, 48+(v>>17)%14)
}

// niceStep rounds a time step (µs) up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// axisUnit is the unit of a time axis spanning span µs, and how many µs one of it is.
func axisUnit(span float64) (string, float64) {
	switch {
	case span >= 1e6:
		return "s", 1e6
	case span >= 1e3:
		return "ms", 1e3
	}
	return "µs", 1
}

// stepDecimals is how many decimals write every multiple of step (1, 2 or 5 times a power of
// ten: niceStep) exactly.
func stepDecimals(step float64) int {
	d := 0
	for ; d < 9; d++ {
		v := step * math.Pow(10, float64(d))
		if math.Abs(v-math.Round(v)) < 1e-6*v {
			break
		}
	}
	return d
}

// fmtMicros formats a duration in µs as µs, ms or s.
func fmtMicros(us float64) string {
	switch {
	case us >= 1e6:
		return strings.TrimSuffix(fmt.Sprintf("%.3g", us/1e6), ".0") + " s"
	case us >= 1e3:
		return strings.TrimSuffix(fmt.Sprintf("%.3g", us/1e3), ".0") + " ms"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.3g", us), ".0") + " µs"
}
