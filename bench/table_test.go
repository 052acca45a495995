package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// These tests print tables from made-up rounds (no benchmark runs) and check them as a reader
// would: every ratio or difference column is computed from the figures printed beside it, and
// every table says how many rounds it ran. The rounds are chosen so that the median of the
// rounds' ratios (or differences) is far from the ratio of the medians.

// tableRows returns the rows of the first tabwriter table (tabwriter.Debug: cells end in '|')
// that has a column headed column, each by column heading; it fails the test if there is none.
func tableRows(t *testing.T, out, column string) []map[string]string {
	t.Helper()
	var heads []string
	var rows []map[string]string
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "|") {
			if heads != nil {
				break
			}
			continue
		}
		cells := strings.Split(line, "|")
		cells = cells[:len(cells)-1] // after the last '|'
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if heads == nil {
			for _, c := range cells {
				if c == column {
					heads = cells
				}
			}
			continue
		}
		r := map[string]string{}
		for i, c := range cells {
			r[heads[i]] = c
		}
		rows = append(rows, r)
	}
	if heads == nil {
		t.Fatalf("no table with a column %q in:\n%s", column, out)
	}
	return rows
}

// printed reads a figure as the table prints it ("12,345", "1.50").
func printed(t *testing.T, cell string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(strings.ReplaceAll(cell, ",", ""), 64)
	if err != nil {
		t.Fatalf("cell %q is not a figure", cell)
	}
	return x
}

// roundsLine is the line above a table that says how many rounds it ran.
var roundsLine = regexp.MustCompile(`(?m)^(\d+) rounds\b`)

// checkRounds checks that out says, at a line's start, that its tables ran n rounds: want lines
// of them.
func checkRounds(t *testing.T, out string, n, want int) {
	t.Helper()
	got := roundsLine.FindAllStringSubmatch(out, -1)
	if len(got) != want {
		t.Errorf("%d lines say how many rounds ran, want %d:\n%s", len(got), want, out)
	}
	for _, g := range got {
		if g[1] != strconv.Itoa(n) {
			t.Errorf("a table says it ran %s rounds, want %d", g[1], n)
		}
	}
}

func comparedSuite() suite {
	return suite{
		title:   "test suite",
		source:  "bench/c/abt_bench.c",
		goabt:   impl{name: "goabt"},
		ref:     impl{name: "native"},
		threads: "streams",
	}
}

func measured(order []row, values map[row]map[string][]float64) measurement {
	m := measurement{order: order, values: values, fields: map[row]map[string][]map[string]string{}}
	for r, byImpl := range values {
		m.fields[r] = map[string][]map[string]string{}
		for name, xs := range byImpl {
			for range xs {
				m.fields[r][name] = append(m.fields[r][name], map[string]string{})
			}
		}
	}
	return m
}

func TestRatioIsTheRatioOfTheMediansShown(t *testing.T) {
	s := comparedSuite()
	evenA, evenB := row{"even", "1"}, row{"even", "2"}
	double, big, rounding := row{"double", "1"}, row{"big", "1"}, row{"rounding", "1"}
	m := measured([]row{evenA, evenB, double, big, rounding}, map[row]map[string][]float64{
		// medians 200 and 200; the rounds' ratios 0.33, 2 and 1.5, their median 1.5
		evenA: {"goabt": {100, 200, 300}, "native": {300, 100, 200}},
		// the same with a round that gave no figure: medians 150 and 150
		evenB: {"goabt": {100, math.NaN(), 200}, "native": {200, 150, 100}},
		// medians 5 and 2; the rounds' ratios 0.41, 5 and 4.5
		double: {"goabt": {1.234, 5, 9}, "native": {3, 1, 2}},
		// thousands separators: 20,000 over 16,000
		big: {"goabt": {12345.6, 20000, 30000}, "native": {16000, 30000, 12000}},
		// 1.004 and 0.996 both print as 1.00: the ratio of what is printed is 1.00, not 1.01
		rounding: {"goabt": {1.004, 1.004, 1.004}, "native": {0.996, 0.996, 0.996}},
	})
	var out bytes.Buffer
	v := s.print(&out, m, 3)
	checkRounds(t, out.String(), 3, 1)
	want := map[string]string{"even": "1.00", "double": "2.50", "big": "1.25", "rounding": "1.00"}
	rows := tableRows(t, out.String(), "operation")
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5:\n%s", len(rows), out.String())
	}
	for _, r := range rows {
		g, o := printed(t, r["goabt"]), printed(t, r["native"])
		ratio := r["ratio (goabt/native)"]
		if ratio != ratioNum(g/o) {
			t.Errorf("%s, %s streams: ratio %q, but %s / %s = %s", r["operation"], r["streams"], ratio,
				r["goabt"], r["native"], ratioNum(g/o))
		}
		if ratio != want[r["operation"]] {
			t.Errorf("%s, %s streams: ratio %q, want %s", r["operation"], r["streams"], ratio, want[r["operation"]])
		}
	}
	if rows[0]["rounds' ratios"] != "0.33 to 2.00" {
		t.Errorf("even, 1 stream: rounds' ratios %q, want 0.33 to 2.00", rows[0]["rounds' ratios"])
	}
	// judged on the ratio shown: only double and big are above 1.0
	if len(v.above) != 2 || !strings.HasPrefix(v.above[0], "double,") || !strings.HasPrefix(v.above[1], "big,") {
		t.Errorf("verdict's rows above their target: %q, want double's and big's", v.above)
	}
}

func TestTableWithoutReferenceSaysItsRounds(t *testing.T) {
	s := comparedSuite()
	s.ref.absent = "not given"
	r := row{"op", "1"}
	m := measured([]row{r}, map[row]map[string][]float64{r: {"goabt": {1, 2, 3, 4, 5}}})
	var out bytes.Buffer
	s.print(&out, m, 5)
	checkRounds(t, out.String(), 5, 1)
	if got := tableRows(t, out.String(), "operation")[0]["goabt"]; got != "3.00" {
		t.Errorf("goabt %q, want the median 3.00", got)
	}
}

func TestScaleRatioIsTheRatioOfTheMediansShown(t *testing.T) {
	s := scaleSuite(".")
	r := row{"scale_100k", "4"}
	m := measured([]row{r}, map[row]map[string][]float64{r: {"goabt": {100, 200, 300}}})
	for i, base := range []string{"300", "100", "200"} { // per round 0.33, 2 and 1.5
		m.fields[r]["goabt"][i] = map[string]string{"live": "100000", "first": "900", "base1k": base, "rss_mib": "50"}
	}
	var out bytes.Buffer
	v := printScale(&out, s, m, 3)
	checkRounds(t, out.String(), 3, 1)
	row := tableRows(t, out.String(), "live ULTs")[0]
	ns, base := printed(t, row["ns per ULT"]), printed(t, row["1,000 live"])
	if ns != 200 || base != 200 {
		t.Errorf("ns per ULT %s and 1,000 live %s, want the medians 200.00 and 200.00", row["ns per ULT"], row["1,000 live"])
	}
	if row["x 1,000-live"] != ratioNum(ns/base) {
		t.Errorf("x 1,000-live %q, but %s / %s = %s", row["x 1,000-live"], row["ns per ULT"], row["1,000 live"],
			ratioNum(ns/base))
	}
	if len(v.above) != 0 {
		t.Errorf("verdict's rows above the target: %q, want none", v.above)
	}
}

func TestGoPoolColumnsAreComputedFromTheMediansShown(t *testing.T) {
	s := goPoolSuite(".")
	ws, fifo := row{"gopool_pushpop_ws", "1"}, row{"gopool_pushpop_fifo", "1"}
	user := row{"gopool_pushpop_user", "1"}
	m := measured([]row{ws, fifo, user}, map[row]map[string][]float64{
		// medians 200 and 200; the rounds' differences -200, 100 and 100, their median 100
		ws:   {"goabt": {100, 200, 300}},
		fifo: {"goabt": {300, 100, 200}},
		// against fifo's median: 240 over 200, though the rounds' ratios are 0.8, 3 and 1.2
		user: {"goabt": {240, 300, 240}},
	})
	var out bytes.Buffer
	v := printGoPools(&out, s, m, 3)
	checkRounds(t, out.String(), 3, 2) // the Go pools table and the user pools table
	g := tableRows(t, out.String(), "Go - C")[0]
	goNs, cNs, diff := printed(t, g["Go"]), printed(t, g["C"]), printed(t, g["Go - C"])
	if diff != goNs-cNs || diff != 0 {
		t.Errorf("Go - C %s, but %s - %s = %s", g["Go - C"], g["Go"], g["C"], nsNum(goNs-cNs))
	}
	if perCrossing := printed(t, g["(Go - C) per crossing"]); perCrossing != diff/2 {
		t.Errorf("(Go - C) per crossing %s, want %s / 2", g["(Go - C) per crossing"], g["Go - C"])
	}
	ring := tableRows(t, out.String(), "user / FIFO")[0]
	if want := ratioNum(printed(t, ring["user pool"]) / printed(t, ring["C FIFO"])); ring["user / FIFO"] != want ||
		want != "1.20" {
		t.Errorf("user / FIFO %q, want %s / %s = 1.20", ring["user / FIFO"], ring["user pool"], ring["C FIFO"])
	}
	for _, a := range v.above {
		if strings.HasPrefix(a, "gopool_pushpop_user") {
			t.Errorf("the ring at 1.20 is within its target 1.2, but the verdict has %q", a)
		}
	}
}

func TestGoPoolRatiosAreJudgedAgainstTheTargetAsPrinted(t *testing.T) {
	s := goPoolSuite(".")
	ws1, fifo1 := row{"gopool_ult_1_ws", "1"}, row{"gopool_ult_1_fifo", "1"}
	ws2, fifo2 := row{"gopool_ult_2_ws", "2"}, row{"gopool_ult_2_fifo", "2"}
	pushWs, pushFifo := row{"gopool_pushpop_ws", "1"}, row{"gopool_pushpop_fifo", "1"}
	m := measured([]row{ws1, fifo1, ws2, fifo2, pushWs, pushFifo}, map[row]map[string][]float64{
		// 1 stream: 150 over 100, the target itself; 2 streams: 151 over 100, above it
		ws1:   {"goabt": {150, 140, 160}},
		fifo1: {"goabt": {100, 90, 110}},
		ws2:   {"goabt": {151, 151, 151}},
		fifo2: {"goabt": {100, 100, 100}},
		// a crossing per operation: shown, not judged
		pushWs:   {"goabt": {1000, 1000, 1000}},
		pushFifo: {"goabt": {100, 100, 100}},
	})
	var out bytes.Buffer
	v := printGoPools(&out, s, m, 3)
	rows := tableRows(t, out.String(), "Go / C")
	if len(rows) != 3 {
		t.Fatalf("%d rows in the Go pools table, want 3", len(rows))
	}
	for i, want := range []struct{ ratio, target string }{{"1.50", "≤ 1.5"}, {"1.51", "≤ 1.5"}, {"10.00", "-"}} {
		if rows[i]["Go / C"] != want.ratio || rows[i]["target"] != want.target {
			t.Errorf("row %d: Go / C %q, target %q; want %s, %s", i, rows[i]["Go / C"], rows[i]["target"],
				want.ratio, want.target)
		}
	}
	if len(v.above) != 1 || !strings.HasPrefix(v.above[0], "gopool_ult_2_ws (2 streams): 1.51") {
		t.Errorf("verdict's rows above the target: %q, want the 2-stream ws row alone", v.above)
	}
}

// rowOfRounds is a row of docs/testing.md's table of the rounds per table: rounds, constant.
var rowOfRounds = regexp.MustCompile("(?m)^\\| [^|]+ \\| (\\d+) \\| `(\\w+Rounds)` in bench/\\w+\\.go \\|$")

func TestTestingDocStatesEachTablesRounds(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	constants := map[string]int{"opalRounds": opalRounds, "argobotsRounds": argobotsRounds,
		"scaleRounds": scaleRounds, "goPoolRounds": goPoolRounds}
	stated := map[string]bool{}
	for _, m := range rowOfRounds.FindAllStringSubmatch(string(doc), -1) {
		want, ok := constants[m[2]]
		if !ok {
			t.Errorf("docs/testing.md names %s, which bench/ does not have", m[2])
			continue
		}
		stated[m[2]] = true
		if m[1] != strconv.Itoa(want) {
			t.Errorf("docs/testing.md says %s is %s rounds; bench/ says %d", m[2], m[1], want)
		}
	}
	for c := range constants {
		if !stated[c] {
			t.Errorf("docs/testing.md's table of rounds has no row for %s", c)
		}
	}
	// without -rounds, a table that set none would run no round
	for _, s := range suites("..", impl{name: "native", absent: "not given"}) {
		if s.rounds < 1 {
			t.Errorf("%s runs %d rounds", s.title, s.rounds)
		}
	}
}

// TestHandoffNoteReadsWhatTheBenchmarkPrints: the hand-off row's note is made from the fields
// abt_bench.c's run_mutex_handoff writes after ns= (read from its source here), so a field
// renamed on one side only leaves the note out instead of showing it.
func TestHandoffNoteReadsWhatTheBenchmarkPrints(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("c", "abt_bench.c"))
	if err != nil {
		t.Fatal(err)
	}
	format := regexp.MustCompile(`(?s)static uint64_t run_mutex_handoff\(.*?snprintf\(run_note, sizeof run_note, "([^"]*)"`).FindSubmatch(src)
	if format == nil {
		t.Fatal("no snprintf of run_note in run_mutex_handoff")
	}
	fields := map[string]string{}
	for i, kv := range strings.Fields(string(format[1])) {
		key, _, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("field %q of the note has no '='", kv)
		}
		fields[key] = strconv.Itoa(i + 7) // 7, 8, 9: told apart in the note
	}
	r := row{"sync_mutex_handoff", "1"}
	note := handoffNote(r, []map[string]string{fields}, []map[string]string{fields}, "native")
	for _, want := range []string{"goabt: 7.00 to 7.00 handovers", "done at 8.00 to 8.00", "9.0 to 9.0 ns per lock over the whole run", "native: 7.00"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q (fields printed: %v)", note, want, fields)
		}
	}
}
