// Command goabt-trace-svg renders a goabt timeline trace (GOABT_TRACE=path: the Chrome JSON
// trace event format) as an SVG timeline: execution streams as lanes, each run of a work unit
// as a slice coloured by its function, wake-ups as lines from waker to woken, a time axis and
// a legend.
//
//	goabt-trace-svg [-width 1000] [-title text] [-o out.svg] trace.json
//
// Without -o the SVG goes to standard output.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/goabt/goabt/core"
)

func main() {
	width := flag.Int("width", 1000, "picture width in pixels")
	title := flag.String("title", "", "title drawn above the lanes")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: goabt-trace-svg [-width N] [-title text] [-o out.svg] trace.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, core.SVGOptions{Width: *width, Title: *title}); err != nil {
		fmt.Fprintln(os.Stderr, "goabt-trace-svg:", err)
		os.Exit(1)
	}
}

func run(in, out string, opt core.SVGOptions) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	tr, err := core.ReadTrace(f)
	if err != nil {
		return err
	}
	var w io.Writer = os.Stdout
	if out != "" {
		o, err := os.Create(out)
		if err != nil {
			return err
		}
		defer o.Close()
		w = o
	}
	if err := core.RenderSVG(w, tr, opt); err != nil {
		return err
	}
	if o, ok := w.(*os.File); ok && out != "" {
		return o.Sync()
	}
	return nil
}
