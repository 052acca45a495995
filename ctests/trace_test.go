package ctests

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goabt/goabt/core"
	"github.com/stretchr/testify/require"
)

// TestTrace runs ctests/c/trace_run.c with GOABT_TRACE set and checks the trace it leaves,
// event by event, against what the program says it did ("trace-unit id=N fn=NAME rank=R"):
// one named track per stream; every unit created is finished; each unit's run slices are on
// the track of the stream it ran on and named by its function's symbol and id; the blocks say
// on what (mutex, eventual, join); the wake-ups of the mutex and eventual waiters are flows
// from inside the waker's slice to the start of the woken's next slice. Then the SVG renderer
// (cmd/goabt-trace-svg) draws it: valid SVG, one lane per stream.
func TestTrace(t *testing.T) {
	p := readProgram(t, filepath.Join(repoRoot, "ctests", "c", "trace_run.c"))
	exe := compile(t, p, variant{name: "tracetest"}, plainLibrary)
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(float64(p.timeout)*timeoutScale))
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOABT_SAFETY_WAKEUP_MS=off", "GOABT_TRACE="+path), p.env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Regexp(t, `(?m)^\d+ passed, 0 failed$`, string(out))

	type unitInfo struct {
		fn   string
		rank int
	}
	units := map[uint64]unitInfo{}
	for _, m := range regexp.MustCompile(`(?m)^trace-unit id=(\d+) fn=(\w+) rank=(\d+)$`).FindAllStringSubmatch(string(out), -1) {
		id, _ := strconv.ParseUint(m[1], 10, 64)
		rank, _ := strconv.Atoi(m[3])
		units[id] = unitInfo{m[2], rank}
	}
	require.Len(t, units, 8)
	mainID := regexp.MustCompile(`(?m)^trace-main id=(\d+)$`).FindStringSubmatch(string(out))
	require.NotNil(t, mainID)
	idOf := func(fn string, rank int) uint64 {
		for id, u := range units {
			if u.fn == fn && u.rank == rank {
				return id
			}
		}
		t.Fatalf("no unit %s on rank %d", fn, rank)
		return 0
	}

	f, err := os.Open(path)
	require.NoError(t, err)
	tr, err := core.ReadTrace(f)
	f.Close()
	require.NoError(t, err)

	// Tracks: the three streams, named.
	names := tr.ThreadNames()
	for r := 0; r < 3; r++ {
		require.Equal(t, fmt.Sprintf("xstream %d", r), names[r])
	}
	for tid := range names {
		require.True(t, tid < 3 || tid >= core.ExternalTrack, "track %d", tid)
	}

	// Instants by name.
	instants := map[string][]core.TraceEvent{}
	for _, e := range tr.Phase("i") {
		instants[e.Name] = append(instants[e.Name], e)
	}
	// Every create has its finish, and every unit the program made was created.
	creates := 0
	for name, evs := range instants {
		rest, ok := strings.CutPrefix(name, "create ")
		if !ok {
			continue
		}
		creates += len(evs)
		require.Len(t, instants["finish "+rest], len(evs), "finish of %s", rest)
	}
	require.Equal(t, 8, creates)
	for id, u := range units {
		name := fmt.Sprintf("%s #%d", u.fn, id)
		require.Len(t, instants["create "+name], 1, name)
		require.Len(t, instants["finish "+name], 1, name)
		require.Equal(t, u.rank, instants["finish "+name][0].TID, "%s finishes on its stream", name)
	}

	// Slices: each unit's are on its stream's track and named by its symbol and id.
	slicesOf := map[uint64][]core.TraceEvent{}
	for _, e := range tr.Phase("X") {
		id, ok := e.ArgUint("unit")
		require.True(t, ok)
		fn, _ := e.Args["fn"].(string)
		require.Equal(t, fmt.Sprintf("%s #%d", fn, id), e.Name)
		require.GreaterOrEqual(t, e.Dur, 0.0)
		slicesOf[id] = append(slicesOf[id], e)
	}
	for id, u := range units {
		ss := slicesOf[id]
		require.NotEmpty(t, ss, "unit %d (%s) ran", id, u.fn)
		for _, s := range ss {
			require.Equal(t, u.fn, s.Args["fn"], "slice %s is named by the function's symbol", s.Name)
			require.Equal(t, u.rank, s.TID, "slice %s on stream %d's track", s.Name, u.rank)
		}
	}
	main, _ := strconv.ParseUint(mainID[1], 10, 64)
	for _, s := range slicesOf[main] {
		require.Equal(t, "main ULT", s.Args["fn"])
		require.Equal(t, 0, s.TID)
	}
	// The yielders: 3 yields each, so 4 slices at least (the yields of wait_blocked too).
	for _, r := range []int{1, 2} {
		id := idOf("trace_yielder", r)
		require.Len(t, instants[fmt.Sprintf("yield #%d", id)], 3)
		require.GreaterOrEqual(t, len(slicesOf[id]), 4)
	}

	// Blocks say on what.
	mw, ew := idOf("trace_mutex_waiter", 1), idOf("trace_eventual_waiter", 2)
	require.Len(t, instants[fmt.Sprintf("block #%d on mutex", mw)], 1)
	require.Len(t, instants[fmt.Sprintf("block #%d on eventual", ew)], 1)
	require.NotEmpty(t, instants[fmt.Sprintf("block #%d on join", main)])

	// Flows: the waker's slice holds the start; the woken's slice starts at the end.
	within := func(s core.TraceEvent, tid int, ts float64) bool {
		return s.TID == tid && s.TS <= ts+1e-6 && ts <= s.TS+s.Dur+1e-6
	}
	starts := map[uint64]core.TraceEvent{}
	for _, e := range tr.Phase("s") {
		starts[e.ID] = e
	}
	flowFrom := func(waker, woken uint64) bool {
		for _, fe := range tr.Phase("f") {
			id, _ := fe.ArgUint("unit")
			if id != woken {
				continue
			}
			se, ok := starts[fe.ID]
			require.True(t, ok, "flow %d has a start", fe.ID)
			inWaker, startsWoken := false, false
			for _, s := range slicesOf[waker] {
				inWaker = inWaker || within(s, se.TID, se.TS)
			}
			for _, s := range slicesOf[woken] {
				startsWoken = startsWoken || (s.TID == fe.TID && s.TS > fe.TS-1e-6 && s.TS < fe.TS+1e-6)
			}
			if inWaker && startsWoken {
				return true
			}
		}
		return false
	}
	require.True(t, flowFrom(idOf("trace_mutex_holder", 1), mw), "a flow from the mutex holder to its waiter")
	require.True(t, flowFrom(idOf("trace_eventual_setter", 1), ew), "a flow from the eventual's setter (stream 1) to its waiter (stream 2)")

	// The SVG renderer, as a user runs it.
	svgCmd := filepath.Join(binDir, "goabt-trace-svg")
	build := exec.Command("go", "build", "-o", svgCmd, "./cmd/goabt-trace-svg")
	build.Dir = repoRoot
	bout, err := build.CombinedOutput()
	require.NoError(t, err, "%s", bout)
	svgPath := filepath.Join(dir, "trace.svg")
	rout, err := exec.Command(svgCmd, "-title", "trace_run", "-o", svgPath, path).CombinedOutput()
	require.NoError(t, err, "%s", rout)
	svg, err := os.ReadFile(svgPath)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var lanes []string
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		if e, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = e.Name.Local
				require.Equal(t, "http://www.w3.org/2000/svg", e.Name.Space)
			}
			class, tid := "", ""
			for _, a := range e.Attr {
				switch a.Name.Local {
				case "class":
					class = a.Value
				case "data-tid":
					tid = a.Value
				}
			}
			if e.Name.Local == "g" && class == "lane" {
				lanes = append(lanes, tid)
			}
		}
	}
	require.Equal(t, "svg", root)
	require.Equal(t, []string{"0", "1", "2"}, lanes, "one lane per stream")
	for _, fn := range []string{"trace_yielder", "trace_mutex_holder", "trace_eventual_setter"} {
		require.Contains(t, string(svg), fn)
	}
}
