package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/internal/golden"
)

// TestSweepSpill: a sweep whose budget is one byte (every agent's requests
// spilled in many segments, read back agent by agent) prints what one
// keeping them in memory prints, in every format and at any --workers;
// the spill file is gone when the command returns. With --profiles, the
// file is emptied and reused for the second profile: the reviewed golden
// table still holds.
func TestSweepSpill(t *testing.T) {
	files := []string{"fixtures/sweep/labelled.jsonl", "fixtures/sweep/live.jsonl", "fixtures/sweep/heuristic.jsonl"}
	for _, format := range []string{"table", "json", "csv", "markdown", "html"} {
		want, errs, code := sweepRun(append([]string{"sweep", "--spill-budget", "off", "-f", format}, files...)...)
		if code != 0 {
			t.Fatalf("-f %s: exit %d: %s", format, code, errs)
		}
		for _, workers := range []string{"1", "2"} {
			dir := t.TempDir()
			got, errs, code := sweepRun(append([]string{"sweep", "-v", "--spill-budget", "1", "--tmp-dir", dir, "--workers", workers, "-f", format}, files...)...)
			if code != 0 {
				t.Fatalf("-f %s --workers %s: exit %d: %s", format, workers, code, errs)
			}
			if got != want {
				t.Errorf("-f %s --workers %s: spilled output differs from the unspilled one", format, workers)
			}
			if !strings.Contains(errs, "killswitch sweep: spilled ") || !strings.Contains(errs, "to a temporary file in "+dir) {
				t.Errorf("-f %s: nothing spilled? stderr: %s", format, errs)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("-f %s: %d files left in the spill directory", format, len(left))
			}
		}
	}
	dir := t.TempDir()
	out, errs, code := sweepRun(append([]string{"sweep", "--profiles", "spec,progress", "--spill-budget", "1", "--tmp-dir", dir}, progressFixtures(t)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !golden.Updating() {
		golden.Check(t, filepath.Join(goldenDir, "sweep-profiles.txt"), []byte(out))
	}
	// TMPDIR is where the file goes without --tmp-dir.
	var got strings.Builder
	code = run([]string{"sweep", "-v", "--spill-budget", "1", files[0]}, strings.NewReader(""), &got, &got,
		func(k string) string { return map[string]string{"TMPDIR": dir}[k] })
	if code != 0 || !strings.Contains(got.String(), "to a temporary file in "+dir) {
		t.Errorf("TMPDIR: exit %d: %s", code, got.String())
	}
}

// TestSweepSpillErrors: a spill file that cannot be created or written
// stops the sweep with a message naming the directory and the flags that
// avoid it, exit 2, and no report written.
func TestSweepSpillErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--spill-budget", "1x"}, `--spill-budget "1x": want a size (e.g. 64MiB, 1GiB, 4096) or off`},
		{[]string{"--spill-budget", "1", "--tmp-dir", filepath.Join(dir, "missing")}, "--tmp-dir " + filepath.Join(dir, "missing") + " is not a directory"},
	} {
		_, errs, code := sweepRun(append(append([]string{"sweep", "-o", out}, tt.args...), "fixtures/sweep/labelled.jsonl")...)
		if code != exitUsage || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tt.args, code, errs, tt.want)
		}
	}
	// A directory where no file can be created (procfs, on Linux).
	if fi, err := os.Stat("/proc/self"); err == nil && fi.IsDir() {
		_, errs, code := sweepRun("sweep", "-o", out, "--spill-budget", "1", "--tmp-dir", "/proc/self", "fixtures/sweep/labelled.jsonl")
		want := "killswitch sweep: spilling packed requests: cannot create the temporary spill file in /proc/self: "
		if code != exitUsage || !strings.Contains(errs, want) || !strings.Contains(errs, "--tmp-dir DIR spills elsewhere") {
			t.Errorf("/proc/self: exit %d, stderr %q", code, errs)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a report was written despite the errors: %v", err)
	}
}
