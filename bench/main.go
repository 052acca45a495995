// Command bench measures goabt against the C libraries it stands in for and prints one table per
// suite: operation, thread mode (or execution streams), goabt's ns/op, the reference's ns/op and
// their ratio, then one verdict line per suite: is every judged ratio within its row's target.
//
// It is what `make bench` runs. It builds libgoabt.so if it is missing or older than its
// sources, compiles each suite's C benchmark once per implementation into build/bench/, and runs
// the binaries one at a time, never two at once: per operation, several rounds alternating
// implementations, so that a burst of load on the machine does not land on one side only. Each
// kind of table runs its own number of rounds (opalRounds, argobotsRounds, scaleRounds,
// goPoolRounds; -rounds sets them all) and says how many above it. The table shows, per
// operation, the median of the rounds for each implementation and the ratio of those two medians
// as printed (goabt/reference: a reader can check it by dividing), then the least and greatest of
// the rounds' own ratios; each round is itself the median of five calibrated runs inside the C
// program.
//
// A suite is a C benchmark source plus the implementations it is compiled against; adding one
// means appending to suites() below. Two suites may share a source, each taking its own share of
// the operations the binary lists (suite.ops). A reference column is only ever what this run
// measured: the Argobots suites compare with native Argobots when -native (make bench
// NATIVE_ARGOBOTS=...) names a build of it, and without it their tables show goabt alone and say
// that there is no native column; no figure recorded elsewhere stands in for it.
//
// A benchmark line may carry more key=value fields after ns=: not_implemented=<call> says that
// goabt does not provide the operation yet (<call> returned ABT_ERR_FEATURE_NA; the row shows
// "not implemented" and fails the verdict, but the run goes on), and a suite's rowNote may turn
// other fields into a line under its table.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// cFlags are the flags every benchmark is compiled with, for goabt and for the reference alike.
// -mbranches-within-32B-boundaries: on Intel parts with the jump conditional code erratum fix, a
// branch that crosses or ends on a 32-byte boundary is not cached as decoded micro-ops, so
// that a loop's speed depended on where unrelated code had put it (an OPAL row moved by 15%
// with an edit elsewhere in its file); padded, the same edit moved it by 3% at most.
var cFlags = []string{"-O3", "-Wall", "-Wextra", "-Werror", "-Wa,-mbranches-within-32B-boundaries"}

// impl is one implementation a benchmark source is compiled against.
type impl struct {
	name    string   // column heading: "goabt", "Open MPI"
	version string   // shown in the table's title when known: "4.1.4"
	binary  string   // file name under build/bench/
	cflags  []string // include directories, defines
	ldflags []string // libraries, rpath
	path    string   // shown under the table's title: the library measured, when it says something
	env     []string // added to the environment of its runs
	missing string   // why it cannot be built (reference not installed); empty if it can
	// absent, when not empty, says why this run has no column for it (not asked for, or a suite of
	// goabt alone): only goabt is run, and the suite gives no verdict against it.
	absent string
}

// row is one line of a suite's table, as a benchmark binary prints it.
type row struct {
	op      string // the op= name the C program prints
	threads string // "off" or "on"; the Argobots suite: the number of execution streams
}

// rowInfo says how a suite presents one row.
type rowInfo struct {
	label  string // the operation column
	judged bool   // whether its ratio counts for the suite's verdict
}

// suite is one C benchmark compiled against goabt and against a reference implementation.
type suite struct {
	title   string
	source  string // relative to the repository root
	goabt   impl
	ref     impl
	threads string             // heading of the threads= column; "threads" when empty
	rows    map[string]rowInfo // by op name; ops not listed are shown under their own name, judged
	// ops, when not nil, says which of the operations the binary lists (-l) belong to this suite.
	ops func(op string) bool
	// targets: by op name, the limit the verdict puts on a judged row's ratio goabt/reference;
	// 1.0 for ops not listed.
	targets map[string]float64
	notes   []string // printed under the table
	// rounds is how many rounds the suite runs when -rounds does not say: its kind's constant.
	rounds int
	// table, when not nil, prints the suite's table and verdict instead of the comparison.
	table func(w io.Writer, s suite, m measurement, rounds int) verdict
	// rowNote, when not nil, may return a line to print under the table for a row, from the
	// extra fields of goabt's lines and of the reference's for it, one map per round (ref is
	// empty without a reference column).
	rowNote func(r row, goabt, ref []map[string]string) string
}

// target is the ratio a judged row of op must not exceed.
func (s suite) target(op string) float64 {
	if t, ok := s.targets[op]; ok {
		return t
	}
	return 1.0
}

// verdict is a suite's result: the judged rows above their target, and how the check reads.
type verdict struct {
	suite string
	check string   // "every ratio ≤ 1.0"
	above []string // empty: the suite meets its targets
	none  string   // not empty: no verdict, and why (no reference column)
}

// measurement is what running a suite gave: per row and implementation, one value per round.
type measurement struct {
	order  []row
	values map[row]map[string][]float64 // row -> impl name -> ns per round
	// row -> impl name -> per round, the line's fields besides op, threads and ns
	fields map[row]map[string][]map[string]string
}

func main() {
	rounds := flag.Int("rounds", 0, "runs of each operation per implementation, alternating, in every table; "+
		"0: each table's own count (the table says how many it ran)")
	only := flag.String("only", "", "run only the operations whose op name starts with this")
	lib := flag.Bool("lib", true, "run make -s lib first when build/lib/libgoabt.so is older than its sources")
	native := flag.String("native", os.Getenv("NATIVE_ARGOBOTS"),
		"native Argobots to measure beside goabt: its libabt.so.1 (or libabt.so), or an install prefix with lib/libabt.so.1 in it (default: $NATIVE_ARGOBOTS)")
	flag.Parse()
	if err := run(os.Stdout, *rounds, *only, *lib, *native); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, rounds int, only string, buildLib bool, nativeArg string) error {
	if rounds < 0 {
		return errors.New("-rounds must be 0 (each table's own count) or more")
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if buildLib {
		if err := ensureLib(root); err != nil {
			return err
		}
	}
	out := filepath.Join(root, "build", "bench")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	native, err := nativeArgobots(root, nativeArg)
	if err != nil {
		return err
	}
	if busy, err := otherLoad(300 * time.Millisecond); err == nil && busy > 0.2 {
		fmt.Fprintf(w, "warning: before the run other processes kept %.1f of %d CPUs busy; the figures, "+
			"the 2-thread rows above all, may be off\n", busy, runtime.NumCPU())
	}
	start := time.Now()
	var verdicts []verdict
	for _, s := range suites(root, native) {
		n := s.rounds
		if rounds > 0 {
			n = rounds
		}
		m, err := s.measure(root, out, n, only)
		if err != nil {
			return err
		}
		if len(m.order) == 0 && only != "" {
			continue // -only left none of its operations: no table, no verdict
		}
		if s.table != nil {
			verdicts = append(verdicts, s.table(w, s, m, n))
		} else {
			verdicts = append(verdicts, s.print(w, m, n))
		}
	}
	fmt.Fprintf(w, "\nmeasured in %s\n", time.Since(start).Round(100*time.Millisecond))
	for _, v := range verdicts {
		if v.none != "" {
			fmt.Fprintf(w, "%s: no verdict (%s)\n", v.suite, v.none)
		} else if len(v.above) == 0 {
			fmt.Fprintf(w, "%s: %s: yes\n", v.suite, v.check)
		} else {
			fmt.Fprintf(w, "%s: %s: no (%s)\n", v.suite, v.check, strings.Join(v.above, "; "))
		}
	}
	return nil
}

// suites lists the benchmark suites, in the order their tables are printed; native is the
// Argobots suites' reference (absent when not asked for).
func suites(root string, native impl) []suite {
	return []suite{opalSuite(root), abtSuite(root, native), keysSuite(root, native), syncSuite(root, native),
		scaleSuite(root), goPoolSuite(root)}
}

// otherLoad returns how many CPUs, on average over d, were busy (this process sleeps meanwhile).
func otherLoad(d time.Duration) (float64, error) {
	read := func() (busy, total float64, err error) {
		b, err := os.ReadFile("/proc/stat")
		if err != nil {
			return 0, 0, err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal …
		if len(fields) < 6 || fields[0] != "cpu" {
			return 0, 0, errors.New("unexpected /proc/stat")
		}
		for i, f := range fields[1:] {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return 0, 0, err
			}
			if i >= 8 { // guest time is already counted in user time
				break
			}
			total += v
			if i != 3 && i != 4 { // idle, iowait
				busy += v
			}
		}
		return busy, total, nil
	}
	b0, t0, err := read()
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	b1, t1, err := read()
	if err != nil || t1 <= t0 {
		return 0, err
	}
	return (b1 - b0) / (t1 - t0) * float64(runtime.NumCPU()), nil
}

// repoRoot walks up from the working directory to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the working directory or above it")
		}
		dir = parent
	}
}

// ensureLib runs `make -s lib` unless build/lib/libgoabt.so and the headers beside it are newer
// than every source they are built from.
func ensureLib(root string) error {
	lib := filepath.Join(root, "build", "lib", "libgoabt.so")
	hdr := filepath.Join(root, "build", "include", "opal", "class", "opal_object.h")
	if fresh(lib, root, "capi", "core", "include", "go.mod") && fresh(hdr, root, "include") {
		return nil
	}
	cmd := exec.Command("make", "-s", "lib")
	cmd.Dir = root
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("make lib: %w", err)
	}
	return nil
}

// fresh reports whether target exists and is newer than every file under the given paths.
func fresh(target, root string, paths ...string) bool {
	st, err := os.Stat(target)
	if err != nil {
		return false
	}
	newer := false
	for _, p := range paths {
		_ = filepath.WalkDir(filepath.Join(root, p), func(_ string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if info, err := d.Info(); err == nil && info.ModTime().After(st.ModTime()) {
				newer = true
				return filepath.SkipAll
			}
			return nil
		})
	}
	return !newer
}

// measure compiles the suite's source for both implementations (goabt only, when the reference
// is absent or missing), then measures one operation after the other: rounds times, alternating
// implementations, so that the two sides of a row are measured within a fraction of a second of
// each other and a burst of load elsewhere on the machine does not land on one side only.
func (s suite) measure(root, out string, rounds int, only string) (measurement, error) {
	m := measurement{values: map[row]map[string][]float64{}, fields: map[row]map[string][]map[string]string{}}
	var bins []impl
	for _, im := range []impl{s.goabt, s.ref} {
		if im.missing != "" || im.absent != "" {
			continue
		}
		if err := compile(root, filepath.Join(root, s.source), filepath.Join(out, im.binary), im); err != nil {
			return m, err
		}
		bins = append(bins, im)
	}
	list, err := exec.Command(filepath.Join(out, s.goabt.binary), "-l").Output()
	if err != nil {
		return m, fmt.Errorf("%s -l: %w", s.goabt.binary, err)
	}
	for _, op := range strings.Fields(string(list)) {
		if !strings.HasPrefix(op, only) || (s.ops != nil && !s.ops(op)) {
			continue
		}
		for r := 0; r < rounds; r++ {
			for _, im := range bins {
				cmd := exec.Command(filepath.Join(out, im.binary), op)
				if len(im.env) > 0 {
					cmd.Env = append(os.Environ(), im.env...)
				}
				cmd.Stderr = os.Stderr
				stdout, err := cmd.Output()
				if err != nil {
					return m, fmt.Errorf("%s %s: %w", im.binary, op, err)
				}
				results, err := parseResults(stdout)
				if err != nil {
					return m, fmt.Errorf("%s %s: %w", im.binary, op, err)
				}
				for _, res := range results {
					if m.values[res.row] == nil {
						m.values[res.row] = map[string][]float64{}
						m.fields[res.row] = map[string][]map[string]string{}
						m.order = append(m.order, res.row)
					}
					m.values[res.row][im.name] = append(m.values[res.row][im.name], res.ns)
					m.fields[res.row][im.name] = append(m.fields[res.row][im.name], res.fields)
				}
			}
		}
	}
	return m, nil
}

func compile(root, src, bin string, im impl) error {
	args := append(append(append([]string{}, cFlags...), im.cflags...), src, "-o", bin)
	args = append(args, im.ldflags...)
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	cmd := exec.Command(cc, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("compiling %s for %s: %w\n%s %s\n%s", filepath.Base(src), im.name, err,
			cc, strings.Join(args, " "), stderr.String())
	}
	return nil
}

type result struct {
	row    row
	ns     float64           // NaN: no figure
	fields map[string]string // the line's other key=value fields
}

// parseResults reads the lines `op=<name> threads=<off|on> ns=<float> [key=value ...]` (ns=nan:
// no figure); other lines are ignored.
func parseResults(out []byte) ([]result, error) {
	var results []result
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := map[string]string{}
		for _, f := range strings.Fields(sc.Text()) {
			if k, v, ok := strings.Cut(f, "="); ok {
				fields[k] = v
			}
		}
		if fields["op"] == "" || fields["ns"] == "" {
			continue
		}
		ns, err := strconv.ParseFloat(fields["ns"], 64)
		if err != nil {
			return nil, fmt.Errorf("bad line %q: %w", sc.Text(), err)
		}
		r := result{row{fields["op"], fields["threads"]}, ns, fields}
		delete(fields, "op")
		delete(fields, "threads")
		delete(fields, "ns")
		results = append(results, r)
	}
	if len(results) == 0 {
		return nil, errors.New("printed no op=… lines")
	}
	return results, sc.Err()
}

// median returns the median of xs, leaving out NaNs (rounds that gave no figure); NaN if none
// is left.
func median(xs []float64) float64 {
	var s []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return math.NaN()
	}
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// print writes the suite's table and returns its verdict: the judged rows whose ratio is above
// their target (or that the reference could not be measured). When the reference is absent the
// table has goabt's column alone, says so, and there is no verdict.
func (s suite) print(w io.Writer, m measurement, rounds int) verdict {
	ref := s.ref.name
	if s.ref.version != "" {
		ref += " " + s.ref.version
	}
	threads := s.threads
	if threads == "" {
		threads = "threads"
	}
	alone := s.ref.absent != ""
	if alone {
		fmt.Fprintf(w, "\n%s: goabt alone, NO %s COLUMN (%s)\n", s.title, strings.ToUpper(s.ref.name), s.source)
		fmt.Fprintf(w, "%s\n", s.ref.absent)
		fmt.Fprintf(w, "%d rounds; ns per operation: the median of the rounds, each the median of 5 calibrated runs\n\n",
			rounds)
	} else {
		fmt.Fprintf(w, "\n%s: goabt vs %s (%s)\n", s.title, ref, s.source)
		if s.ref.path != "" {
			fmt.Fprintf(w, "%s: %s\n", s.ref.name, s.ref.path)
		}
		fmt.Fprintf(w, "%d rounds, alternating goabt and %s; ns per operation: the median of the rounds, each the "+
			"median of 5 calibrated runs\n", rounds, s.ref.name)
		fmt.Fprintf(w, "ratio (goabt/%s): the goabt median shown over the %s one; rounds' ratios: the least and "+
			"greatest goabt/%s of a single round\n\n", s.ref.name, s.ref.name, s.ref.name)
	}
	// A target column only when some row's target is not 1.0; the verdict names the targets.
	targets := map[float64]bool{}
	for _, r := range m.order {
		if info, ok := s.rows[r.op]; !ok || info.judged {
			targets[s.target(r.op)] = true
		}
	}
	showTarget := !alone && (len(targets) > 1 || (len(targets) == 1 && !targets[1.0]))
	v := verdict{suite: s.title, check: "every ratio ≤ 1.0"}
	if alone {
		v.none = "no " + s.ref.name + " column"
	}
	if showTarget {
		v.check = "every ratio ≤ its row's target"
		if len(targets) == 1 {
			for t := range targets {
				v.check = fmt.Sprintf("every ratio ≤ %.1f", t)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.Debug)
	if alone {
		fmt.Fprintf(tw, "operation\t%s\t%s\t", threads, s.goabt.name)
	} else {
		fmt.Fprintf(tw, "operation\t%s\t%s\t%s\tratio (goabt/%s)\trounds' ratios\t", threads, s.goabt.name,
			s.ref.name, s.ref.name)
	}
	if showTarget {
		fmt.Fprint(tw, "target\t")
	}
	fmt.Fprintln(tw)
	var rowNotes []string // printed under the table, after the suite's notes
	for _, r := range m.order {
		info, ok := s.rows[r.op]
		if !ok {
			info = rowInfo{label: r.op, judged: true}
		}
		gs, rs := m.values[r][s.goabt.name], m.values[r][s.ref.name]
		g, o := median(gs), median(rs)
		ratio := shownRatio(g, o)
		gcol, gfields := nsNum(g), m.fields[r][s.goabt.name]
		missing := field(gfields, "not_implemented")
		if missing != "" && math.IsNaN(g) {
			gcol = "not implemented"
			rowNotes = append(rowNotes, fmt.Sprintf("not implemented: %s (%s returned ABT_ERR_FEATURE_NA)",
				info.label, missing))
		}
		if s.rowNote != nil {
			if n := s.rowNote(r, gfields, m.fields[r][s.ref.name]); n != "" {
				rowNotes = append(rowNotes, n)
			}
		}
		if alone {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", info.label, r.threads, gcol)
			continue
		}
		mark, target := "", "-"
		if !info.judged {
			mark = " (not judged)"
		} else {
			limit := s.target(r.op)
			target = fmt.Sprintf("≤ %.1f", limit)
			if aboveTarget(ratio, limit) {
				v.above = append(v.above, fmt.Sprintf("%s, %s %s: %.2f > %.1f", info.label, threads, r.threads,
					ratio, limit))
			} else if gcol == "not implemented" {
				v.above = append(v.above, fmt.Sprintf("%s, %s %s: not implemented", info.label, threads, r.threads))
			} else if math.IsNaN(ratio) && s.ref.missing == "" {
				who := s.ref.name
				if math.IsNaN(g) {
					who = s.goabt.name
				}
				v.above = append(v.above, fmt.Sprintf("%s, %s %s: no %s figure", info.label, threads, r.threads,
					who))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\t%s\t", info.label, r.threads, gcol, nsNum(o), ratioNum(ratio), mark,
			roundRatios(gs, rs))
		if showTarget {
			fmt.Fprintf(tw, "%s\t", target)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	for _, n := range append(append([]string{}, s.notes...), rowNotes...) {
		fmt.Fprintln(w, n)
	}
	if s.ref.missing != "" {
		fmt.Fprintf(w, "%s not measured: %s\n", s.ref.name, s.ref.missing)
		v.above = append(v.above, s.ref.name+" not measured")
	}
	return v
}

// field returns the first non-empty value of key among the rounds' fields.
func field(rounds []map[string]string, key string) string {
	for _, f := range rounds {
		if v := f[key]; v != "" {
			return v
		}
	}
	return ""
}

// nsNum formats ns per operation: two decimals below 10,000 ns, whole ns with thousands
// separators above.
func nsNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 10000 {
		return num(x, "%.2f")
	}
	digits := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// shownNs returns x as nsNum prints it (NaN for "-"), so that a figure computed from printed
// figures is what a reader of the table computes.
func shownNs(x float64) float64 {
	v, err := strconv.ParseFloat(strings.ReplaceAll(nsNum(x), ",", ""), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// shownRatio is the ratio column: a over b, both as the table prints them; NaN when either has no
// figure.
func shownRatio(a, b float64) float64 {
	return shownNs(a) / shownNs(b)
}

// aboveTarget says whether a ratio is over its limit as the table prints both, to two decimals:
// 1.004 shows, and passes, as 1.00. A ratio that is NaN is not above (each table says what a
// missing figure means for its verdict).
func aboveTarget(ratio, limit float64) bool {
	return math.Round(ratio*100) > math.Round(limit*100)
}

// roundRatios formats the least and greatest ratio a/b of a single round ("0.91 to 1.07"; the
// two sides of a round ran within seconds of each other), "-" when no round has both figures.
func roundRatios(as, bs []float64) string {
	lo, hi := math.NaN(), math.NaN()
	for i := 0; i < len(as) && i < len(bs); i++ {
		x := as[i] / bs[i]
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		if math.IsNaN(lo) || x < lo {
			lo = x
		}
		if math.IsNaN(hi) || x > hi {
			hi = x
		}
	}
	if math.IsNaN(lo) {
		return "-"
	}
	return ratioNum(lo) + " to " + ratioNum(hi)
}

// ratioNum formats a ratio with two decimals, or two significant digits below 0.01.
func ratioNum(x float64) string {
	if x > 0 && x < 0.01 {
		return num(x, "%.2g")
	}
	return num(x, "%.2f")
}

func num(x float64, format string) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf(format, x)
}
