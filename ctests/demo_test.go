package ctests

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goabt/goabt/core"
	"github.com/stretchr/testify/require"
)

// TestMakeDemoTimeline runs `make demo` as a new user does (into a directory of its own:
// DEMO_DIR) and checks that it leaves the run's timeline twice, as the Chrome JSON trace and as
// the SVG drawn from it, and ends by printing both absolute paths with what opens them.
func TestMakeDemoTimeline(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("make", "-s", "-C", repoRoot, "demo", "DEMO_DIR="+dir).CombinedOutput()
	require.NoError(t, err, "make demo\n%s", out)
	require.Contains(t, string(out), "tasklets ran", "the demo ran")

	jsonPath, svgPath := filepath.Join(dir, "timeline.json"), filepath.Join(dir, "timeline.svg")
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	last := lines[len(lines)-2:]
	require.True(t, strings.HasPrefix(strings.TrimSpace(last[0]), jsonPath+" "), "the trace's absolute path: %q", last[0])
	require.Contains(t, last[0], "ui.perfetto.dev")
	require.True(t, strings.HasPrefix(strings.TrimSpace(last[1]), svgPath+" "), "the picture's absolute path: %q", last[1])
	require.Contains(t, last[1], "web browser")

	// The trace: the demo's functions ran, its ULTs and its tasklets.
	f, err := os.Open(jsonPath)
	require.NoError(t, err)
	tr, err := core.ReadTrace(f)
	f.Close()
	require.NoError(t, err)
	fns := map[string]bool{}
	for _, e := range tr.Phase("X") {
		if fn, ok := e.Args["fn"].(string); ok {
			fns[fn] = true
		}
	}
	for _, fn := range []string{"main ULT", "sum_share", "count_tasklet", "write_to_reader", "read_own_data"} {
		require.True(t, fns[fn], "%s ran in the trace: %v", fn, fns)
	}

	// The picture, drawn from that trace: well-formed SVG whose legend names each of them.
	svg, err := os.ReadFile(svgPath)
	require.NoError(t, err)
	legend := map[string]bool{}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	inLegend, inText := false, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		switch e := tok.(type) {
		case xml.StartElement:
			for _, a := range e.Attr {
				if e.Name.Local == "g" && a.Name.Local == "class" && a.Value == "legend" {
					inLegend = true
				}
			}
			inText = e.Name.Local == "text"
		case xml.CharData:
			if inLegend && inText {
				legend[string(e)] = true
			}
		case xml.EndElement:
			inText = false
		}
	}
	for fn := range fns {
		require.True(t, legend[fn], "the picture's legend names %s: %v", fn, legend)
	}
}
