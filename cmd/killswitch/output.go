package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/killswitch/killswitch/internal/outfile"
	"golang.org/x/term"
)

// writeOutput runs fn on standard output, or, when path is set, on a
// temporary file beside path that is renamed over it only when fn succeeds:
// no output is ever left half-written.
func writeOutput(e *env, path string, fn func(w io.Writer) error) error {
	if path == "" || path == "-" {
		bw := bufio.NewWriterSize(e.stdout, 1<<16)
		if err := fn(bw); err != nil {
			bw.Flush()
			return err
		}
		return bw.Flush()
	}
	return outfile.Write(path, fn)
}

// startProgress shows bytes and records read on standard error, only when
// it is a terminal. The returned function stops it and clears the line.
func startProgress(e *env, read, records *atomic.Int64, total int64) func() {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(f, "\r\033[K")
				return
			case <-t.C:
				n := read.Load()
				line := fmt.Sprintf("\r\033[Kreplaying: %.1f MB", float64(n)/1e6)
				if total > 0 {
					line += fmt.Sprintf(" of %.1f MB (%d%%)", float64(total)/1e6, min(100, n*100/total))
				}
				fmt.Fprintf(f, "%s, %d requests", line, records.Load())
			}
		}
	}()
	return func() { close(done); <-finished }
}

// testTermWidth, when set (by tests), is the width of a terminal standard
// output is taken to be.
var testTermWidth int

// termWidth is the width of the terminal the report goes to: standard
// output's when it is a terminal and the report is not written to a file;
// else 0 (report.DefaultWidth), so that output to a file or a pipe does
// not depend on the terminal.
func termWidth(e *env, output string) int {
	if output != "" && output != "-" {
		return 0
	}
	if testTermWidth > 0 {
		return testTermWidth
	}
	f, ok := e.stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}
