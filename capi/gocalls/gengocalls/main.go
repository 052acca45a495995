// Command gengocalls writes the C the engine reaches the Go core through from capi/gocalls.list
// (package gocalls): `go run ./capi/gocalls/gengocalls capi/gocalls.list DIR` writes
// DIR/gocalls_gen.h (the table and the gated wrappers, for gocalls.h) and
// DIR/gocalls_symbols.h (the loader's names, for golib.c). make runs it into build/gen.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/goabt/goabt/capi/gocalls"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gengocalls LIST DIR")
		os.Exit(2)
	}
	if err := generate(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gengocalls:", err)
		os.Exit(1)
	}
}

func generate(list, dir string) error {
	entries, err := gocalls.ParseFile(list)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer, []gocalls.Entry) error{
		"gocalls_gen.h":     gocalls.WriteHeader,
		"gocalls_symbols.h": gocalls.WriteSymbols,
	} {
		var b bytes.Buffer
		if err := write(&b, entries); err != nil {
			return err
		}
		// Written whole, then renamed: a failed run leaves no half-written header behind.
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path+".tmp", b.Bytes(), 0o644); err != nil {
			return err
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return err
		}
	}
	return nil
}
