// Package golden compares what a test produced with a golden file, as
// golang.org/x/perf's CLI tests do: go test -update rewrites the golden
// files; on a mismatch the output is left beside the golden file as
// NAME.got-EXT (ignored by git) to diff. Only tests import it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Updating reports whether the test run rewrites golden files (-update).
func Updating() bool { return *update }

// Check compares got with the file at path. Under -update it writes got
// to path (creating its directory) instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	ext := filepath.Ext(path)
	gotPath := strings.TrimSuffix(path, ext) + ".got"
	if ext != "" {
		gotPath += "-" + ext[1:]
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(gotPath, got, 0o644)
		t.Errorf("%s differs from the golden file; got written to %s (diff them; -update to accept)", path, gotPath)
	} else {
		os.Remove(gotPath)
	}
}
