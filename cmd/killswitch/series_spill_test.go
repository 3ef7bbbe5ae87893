package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeriesSpillTempFile: a replay page of standard input keeps its chart
// scores in a temporary file in TMPDIR that is gone when the run ends, and
// a TMPDIR it cannot write is a clear error with no page written.
func TestSeriesSpillTempFile(t *testing.T) {
	in := manyAgents()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	stdout, stderr, code := runCLI(t, in, "replay", "-f", "html", "-")
	if code != 0 || stderr != "" || !strings.Contains(stdout, `<figure class="agent">`) {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}

	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	stdout, stderr, code = runCLI(t, in, "replay", "-f", "html", "-")
	if code == 0 || stdout != "" || !strings.Contains(stderr, "cannot keep the chart scores in a temporary file") ||
		!strings.Contains(stderr, "TMPDIR") {
		t.Errorf("unwritable TMPDIR: exit %d, %d bytes out, stderr:\n%s", code, len(stdout), stderr)
	}
}
