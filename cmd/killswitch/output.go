package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

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
	return writeFileAtomic(path, fn)
}

// writeFileAtomic writes path through a temporary file and a rename.
func writeFileAtomic(path string, fn func(w io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file 0600; a report is an ordinary file.
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
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
