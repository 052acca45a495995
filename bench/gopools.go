package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"testing"
	"text/tabwriter"

	"github.com/goabt/goabt/core"
)

// goPoolRows are the rows of the Go pools table: an operation on a Go pool or scheduler
// (bench/c/gopool_bench.c) beside the same operation on goabt's C FIFO or predefined scheduler,
// and how many times one operation crosses from C into Go. The ULT rows are judged against
// goPoolTarget; a push + pop by hand is a crossing per operation, shown for what one costs.
//
// ws pops in batches (core.Batcher): the engine takes up to goPopBatch units per crossing
// (GO_POP_BATCH in capi/engine/pool_go.c) and serves the next pops from C, so a ULT made and run
// in a Go pool costs 1/goPopBatch of a crossing when its stream runs many.
var goPoolRows = []struct {
	label     string
	goOp, cOp string
	crossings float64
	judged    bool
}{
	{"ULT create + join + free, Go pool ws vs C FIFO", "gopool_ult_1_ws", "gopool_ult_1_fifo", 1.0 / goPopBatch, true},
	{"ULT create + join + free, Go pool ws vs C FIFO", "gopool_ult_2_ws", "gopool_ult_2_fifo", 1.0 / goPopBatch, true},
	{"ULT create + join + free, PRIO of 2 pools, Go deadline vs predefined", "gopool_prio_deadline", "gopool_prio_basic", leased, true},
	{"ULT create + join + free, PRIO of 2 pools, Go deadline vs predefined", "gopool_prio2_deadline", "gopool_prio2_basic", leased, true},
	{"push + pop by hand, Go pool ws vs C FIFO", "gopool_pushpop_ws", "gopool_pushpop_fifo", 1, false},
}

// goPoolTarget is the most a ULT made, run and freed in a Go pool, or under a Go scheduler, may
// cost against goabt's C FIFO or predefined scheduler: writing one in Go is meant to be a way
// to try a runtime idea on real C programs, which a pool several times slower is not.
const goPoolTarget = 1.5

// leased marks the rows of a policy that gives leases (core.Leaser): a pick per lease, not per
// unit, so fewer crossings than units, how many fewer depending on the run.
var leased = math.NaN()

// goPopBatch is the most units the engine takes from a Go pool in one crossing.
const goPopBatch = 64

// userPoolRows are the rows of the user pool table: ULT create + join + free and a push + pop by
// hand on FIFOs written against ABT_pool_user_def in bench/c/gopool_bench.c, beside goabt's C
// FIFO. The ring (user) is judged against the target, at most userPoolTarget times the
// C FIFO: it allocates nothing, so the difference is goabt's. The list (userlist) mallocs a unit
// per ULT, as many user pools do; its row shows what that adds, not judged.
var userPoolRows = []struct {
	label, userOp, cOp string
	judged             bool
}{
	{"ULT create + join + free, ring", "gopool_ult_1_user", "gopool_ult_1_fifo", true},
	{"ULT create + join + free, ring", "gopool_ult_2_user", "gopool_ult_2_fifo", true},
	{"push + pop by hand, ring", "gopool_pushpop_user", "gopool_pushpop_fifo", true},
	{"ULT create + join + free, list", "gopool_ult_1_userlist", "gopool_ult_1_fifo", false},
	{"ULT create + join + free, list", "gopool_ult_2_userlist", "gopool_ult_2_fifo", false},
	{"push + pop by hand, list", "gopool_pushpop_userlist", "gopool_pushpop_fifo", false},
}

const userPoolTarget = 1.2

// goPoolRounds is the rounds of the Go pools and user pools tables: a round takes a few seconds.
const goPoolRounds = 7

// goPoolSuite is what pools and schedulers written in Go cost next to goabt's C FIFO and
// predefined scheduler: bench/c/gopool_bench.c against goabt alone, and the Go code measured on
// its own in this process, which tells the share of the crossings into Go.
func goPoolSuite(root string) suite {
	lib := filepath.Join(root, "build", "lib")
	return suite{
		title:  "Go pools and schedulers",
		source: filepath.Join("bench", "c", "gopool_bench.c"),
		goabt: impl{
			name:    "goabt",
			binary:  "gopool_bench_goabt",
			cflags:  []string{"-I" + filepath.Join(root, "build", "include")},
			ldflags: []string{"-L" + lib, "-lgoabt", "-Wl,-rpath," + lib, "-lpthread"},
		},
		ref:    impl{name: "none", absent: "goabt alone"},
		rounds: goPoolRounds,
		table:  printGoPools,
	}
}

// goAlone measures, in this process and without C, what the shipped Go pool and policy cost
// per operation: ws Push + Pop of one unit by one stream, and a deadline Pick between two pools
// that hold units (its clock read included).
func goAlone() (pushPop, pick float64) {
	w := core.NewWorkStealing()
	r := testing.Benchmark(func(b *testing.B) {
		c := core.Caller{Rank: 0}
		for i := 0; i < b.N; i++ {
			w.Push(core.Addr(i+1), c)
			w.Pop(c)
		}
	})
	pushPop = float64(r.T.Nanoseconds()) / float64(r.N)
	d := core.NewDeadline(2, core.Monotonic)
	v := core.View{Sizes: []int64{5, 5}}
	r = testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			d.Pick(v)
		}
	})
	pick = float64(r.T.Nanoseconds()) / float64(r.N)
	return pushPop, pick
}

// printGoPools writes the Go pools table and its verdict: every row measured, the judged rows
// within goPoolTarget of the C ones (there is no other implementation to judge against; the
// table also shows what the crossings cost).
func printGoPools(w io.Writer, s suite, m measurement, rounds int) verdict {
	fmt.Fprintf(w, "\n%s: goabt alone (%s)\n", s.title, s.source)
	fmt.Fprintf(w, "%d rounds of each operation; ns per operation: the median of the rounds, each the "+
		"median of 5 calibrated runs\n", rounds)
	fmt.Fprint(w, "Go / C: the Go median shown over the C one; Go - C: the Go median shown less the C one;\n"+
		"  per crossing: Go - C over the crossings\n\n")
	v := verdict{suite: s.title, check: fmt.Sprintf("every row measured; a Go pool or scheduler ≤ %.1f× the C one "+
		"(ULT rows); a user C pool ≤ %.1f× the C FIFO", goPoolTarget, userPoolTarget)}
	byOp := map[string]row{}
	for _, r := range m.order {
		byOp[r.op] = r
	}
	pushPopAlone, pickAlone := goAlone()
	perCrossingPushPop := math.NaN()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "operation\tstreams\tC\tGo\tGo / C\ttarget\tGo - C\tcrossings into Go\t(Go - C) per crossing\t")
	for _, gr := range goPoolRows {
		g, okG := byOp[gr.goOp]
		c, okC := byOp[gr.cOp]
		if !okG && !okC {
			continue // -only left it out
		}
		gm, cm := median(m.values[g][s.goabt.name]), median(m.values[c][s.goabt.name])
		diff := shownNs(gm) - shownNs(cm)
		if math.IsNaN(diff) {
			v.above = append(v.above, gr.goOp+": no figure")
		}
		if gr.goOp == "gopool_pushpop_ws" {
			perCrossingPushPop = (diff - pushPopAlone) / gr.crossings
		}
		perCrossing := "-" // a batch's crossing is shared: Go - C is mostly not the crossing
		if gr.crossings >= 1 {
			perCrossing = nsNum(diff / gr.crossings)
		}
		crossings := fmt.Sprintf("%.4g", gr.crossings)
		if math.IsNaN(gr.crossings) {
			crossings = "under 1 (leases)"
		}
		ratio := shownRatio(gm, cm)
		target := "-"
		if gr.judged {
			target = fmt.Sprintf("≤ %.1f", goPoolTarget)
			// a missing figure is "no figure" above
			if aboveTarget(ratio, goPoolTarget) {
				v.above = append(v.above, fmt.Sprintf("%s (%s streams): %.2f×", gr.goOp, g.threads, ratio))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", gr.label, g.threads, nsNum(cm), nsNum(gm),
			ratioNum(ratio), target, nsNum(diff), crossings, perCrossing)
	}
	_ = tw.Flush()
	crossing := "One crossing, without the Go code: push + pop: Go - C - Go code alone (the push + pop row, not run)."
	if !math.IsNaN(perCrossingPushPop) {
		crossing = fmt.Sprintf("One crossing, without the Go code: push + pop: Go - C - Go code alone = %s ns.",
			nsNum(perCrossingPushPop))
	}
	printUserPools(w, byOp, s, m, rounds, &v)
	for _, n := range []string{
		"C: goabt's C FIFO pool (GOABT_POOL unset) or its predefined scheduler (GOABT_SCHED unset);",
		"  Go: the same program with GOABT_POOL=ws or GOABT_SCHED=deadline, set before its ABT_init.",
		"Crossings: calls from C into Go per operation. A Go pool: its pop that finds the unit, which",
		"  first hands over the pushes the engine kept in C since the pool was last asked (up to 64: a",
		"  push crosses on its own only when 64 wait, its share left out of the count); ws gives up to",
		fmt.Sprintf("  %d units per such pop (core.Batcher), kept in C for the pool's next pops: 1/%d of a", goPopBatch, goPopBatch),
		"  crossing per ULT in the ULT rows, whose Go - C is then mostly not crossings (per crossing: -);",
		"  the engine counts a Go pool's units in C, so empty pools are never asked. A Go scheduler:",
		"  one pick per unit run, when it has two pools or more (a scheduler of one pool is not asked),",
		"  or one per lease for a policy that gives them (core.Leaser: deadline does, while priority",
		"  order is its rule; the engine then pops in that order for up to 12.5 µs without asking,",
		"  looking at the clock every 8 units).",
		"  The main ULT's own pushes and pops, once per 256 ULTs, are left out of the count.",
		fmt.Sprintf("Go code alone, measured in this process without C: ws Push + Pop %.1f ns; deadline", pushPopAlone),
		fmt.Sprintf("  Pick between two pools holding units %.1f ns (its clock read included).", pickAlone),
		crossing,
		"  A crossing is the gate (capi/engine/pool_go.c; in that row, with the push kept in C), then the",
		"  Go runtime's entry from a C thread (cgocallback: exitsyscall, reentersyscall), which takes one",
		"  lock on every call from a thread that runs no Go (a receive on the closed channel",
		"  main_init_done, golang/go#77522): the primary's thread; a secondary stream's runs its",
		"  scheduler inside a call from Go, so its crossings are nested and skip the lock.",
	} {
		fmt.Fprintln(w, n)
	}
	return v
}

// printUserPools writes the user pool table under the Go one, and adds to v the rows above
// their target.
func printUserPools(w io.Writer, byOp map[string]row, s suite, m measurement, rounds int, v *verdict) {
	fmt.Fprintf(w, "\nUser-defined C pools (FIFOs written against ABT_pool_user_def) against goabt's C FIFO:\n"+
		"%d rounds (the Go pools table's); ns per operation: the median of the rounds; user / FIFO: the\n"+
		"  user pool median shown over the C FIFO one\n"+
		"ring: a ring of 1024 thread handles under a spinlock, its units the threads' handles; target ≤ %.1f×;\n"+
		"list: a list under a spinlock of units create_unit mallocs (shown, not judged: the allocation is the pool's)\n\n",
		rounds, userPoolTarget)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "operation\tstreams\tC FIFO\tuser pool\tuser / FIFO\ttarget\t")
	for _, ur := range userPoolRows {
		u, okU := byOp[ur.userOp]
		c, okC := byOp[ur.cOp]
		if !okU || !okC {
			continue // -only left one out
		}
		us, cs := median(m.values[u][s.goabt.name]), median(m.values[c][s.goabt.name])
		ratio := shownRatio(us, cs)
		target := "-"
		if ur.judged {
			target = fmt.Sprintf("≤ %.1f", userPoolTarget)
			if math.IsNaN(ratio) || aboveTarget(ratio, userPoolTarget) {
				v.above = append(v.above, fmt.Sprintf("%s (%s streams): %.2f×", ur.userOp, u.threads, ratio))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", ur.label, u.threads, nsNum(cs), nsNum(us),
			ratioNum(ratio), target)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "The engine reaches a user pool through its functions: create_unit when a ULT joins the pool,")
	fmt.Fprintln(w, "  push and pop (and is_empty) for every run, free_unit when the ULT is freed; and it records")
	fmt.Fprintln(w, "  each pool unit that is not the thread's own handle in a table (ABT_unit_get_thread needs it):")
	fmt.Fprintln(w, "  a spinlock round at create_unit and one at free_unit, in a stripe picked by the unit's page.")
	fmt.Fprintln(w)
}
