package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"text/tabwriter"
)

// scaleTarget is how much more a ULT may cost with many alive than with 1,000 alive.
const scaleTarget = 2.0

// scaleRounds is the rounds of the scale table: a round of its 1,000,000-ULT row takes about 20 s.
const scaleRounds = 3

// scaleSuite is ULT create + join + free with 1,000 to 1,000,000 ULTs alive at once on 4
// streams, and the peak resident memory that takes: bench/c/scale_bench.c against goabt alone.
// It has no native column; each row is judged against goabt's own cost with 1,000 ULTs alive,
// measured in the same process.
func scaleSuite(root string) suite {
	lib := filepath.Join(root, "build", "lib")
	return suite{
		title:  "ULTs at scale",
		source: filepath.Join("bench", "c", "scale_bench.c"),
		goabt: impl{
			name:    "goabt",
			binary:  "scale_bench_goabt",
			cflags:  []string{"-I" + filepath.Join(root, "build", "include")},
			ldflags: []string{"-L" + lib, "-lgoabt", "-Wl,-rpath," + lib, "-lpthread"},
		},
		ref:    impl{name: "none", absent: "goabt alone"},
		rounds: scaleRounds,
		table:  printScale,
	}
}

// printScale writes the scale table and its verdict: every row's ns per ULT within scaleTarget
// of the 1,000-live figure its own processes measured.
func printScale(w io.Writer, s suite, m measurement, rounds int) verdict {
	fmt.Fprintf(w, "\n%s: goabt alone (%s)\n", s.title, s.source)
	fmt.Fprintf(w, "%d rounds (processes); ns per ULT: the median of the rounds, each the median of 3 measurements "+
		"after a first run;\n1,000 live: the median of the same processes' figures with 1,000 ULTs alive; "+
		"x 1,000-live: ns per ULT shown over 1,000 live shown\n\n", rounds)
	v := verdict{suite: s.title, check: fmt.Sprintf("every row ≤ %.1fx its 1,000-live figure", scaleTarget)}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "live ULTs\tstreams\tns per ULT\t1,000 live\tx 1,000-live\tfirst run, ns per ULT\tpeak RSS, MiB\t")
	for _, r := range m.order {
		gs, fields := m.values[r][s.goabt.name], m.fields[r][s.goabt.name]
		var bases, firsts []float64
		rss := math.NaN()
		for _, f := range fields {
			bases = append(bases, floatField(f, "base1k"))
			firsts = append(firsts, floatField(f, "first"))
			if x := floatField(f, "rss_mib"); !math.IsNaN(x) && (math.IsNaN(rss) || x > rss) {
				rss = x
			}
		}
		live := field(fields, "live")
		if n, err := strconv.Atoi(live); err == nil && n >= 10000 {
			live = nsNum(float64(n)) // thousands separated
		}
		ns, base := median(gs), median(bases)
		ratio := shownRatio(ns, base)
		if math.IsNaN(ratio) || aboveTarget(ratio, scaleTarget) {
			v.above = append(v.above, fmt.Sprintf("%s live: %s", live, ratioNum(ratio)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", live, r.threads, nsNum(ns), nsNum(base), ratioNum(ratio),
			nsNum(median(firsts)), num(rss, "%.0f"))
	}
	_ = tw.Flush()
	for _, n := range []string{
		"A run creates N ULTs from the main ULT, round-robin into the 4 streams' pools (the other streams",
		"  run them meanwhile), then frees them all with ABT_thread_free. A measurement is runs back to",
		"  back, at least 100,000 ULTs in all (1,000 live: 100 runs); ns per ULT is its wall time over them.",
		"1,000 live: each process first measures N = 1,000 (the median of 5 measurements), then N.",
		"first run: the process's first run at N, which maps and first touches the stacks and",
		"  descriptors; the measurements after it reuse the freed ULTs' memory, without the Go core.",
		"peak RSS: the process's peak resident memory (getrusage), all its runs included.",
	} {
		fmt.Fprintln(w, n)
	}
	return v
}

// floatField returns a line's numeric field, NaN when it is missing.
func floatField(f map[string]string, key string) float64 {
	x, err := strconv.ParseFloat(f[key], 64)
	if err != nil {
		return math.NaN()
	}
	return x
}
