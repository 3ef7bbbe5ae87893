package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --writes - writes each policy's state script to standard output, for a
// pipe into its store's client (sqlite3, redis-cli, psql), when -o takes
// the report elsewhere: the same bytes as --writes FILE; without -o it is
// refused, since standard output carries the report.
func TestWritesToStandardOutput(t *testing.T) {
	for _, tc := range []struct {
		policy, capture, file string
	}{
		{"loop", "fixtures/scenarios/identical-loop.jsonl", "w.sql"},
		{"breaker", "fixtures/breaker/outage.jsonl", "w.redis"},
		{"gateway", "fixtures/gateway/m22.jsonl", "w.sql"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, tc.file)
		if _, stderr, code := runCLI(t, "", "replay", "--policy", tc.policy, "--writes", file, "-o", filepath.Join(dir, "r1.txt"), tc.capture); code != exitOK {
			t.Fatalf("%s --writes FILE: exit %d: %s", tc.policy, code, stderr)
		}
		want, err := os.ReadFile(file)
		if err != nil || len(want) == 0 {
			t.Fatalf("%s: no script written (%v)", tc.policy, err)
		}
		report := filepath.Join(dir, "r2.txt")
		got, stderr, code := runCLI(t, "", "replay", "--policy", tc.policy, "--writes", "-", "-o", report, tc.capture)
		if code != exitOK || got != string(want) {
			t.Errorf("%s --writes -: exit %d, %d bytes on standard output, want the %d of --writes FILE: %s", tc.policy, code, len(got), len(want), stderr)
		}
		if r1, _ := os.ReadFile(filepath.Join(dir, "r1.txt")); len(r1) == 0 {
			t.Errorf("%s: no report", tc.policy)
		} else if r2, _ := os.ReadFile(report); string(r2) != string(r1) {
			t.Errorf("%s: the report with --writes - differs", tc.policy)
		}
		_, stderr, code = runCLI(t, "", "replay", "--policy", tc.policy, "--writes", "-", tc.capture)
		if code != exitUsage || !strings.Contains(stderr, "give -o FILE") {
			t.Errorf("%s --writes - without -o: exit %d, %q", tc.policy, code, stderr)
		}
	}
}

// Counts of one read as English in the closing lines: "1 malformed input
// item skipped", "(1 malformed item, 0 skipped items)".
func TestOneMalformedItem(t *testing.T) {
	dir := t.TempDir()
	good := loopRecord(t, captureT0, "a")
	capture := writeCapture(t, dir, "c.jsonl", []string{good, "{not json"})
	_, stderr, code := runCLI(t, "", "replay", capture)
	if code != exitOK || !strings.Contains(stderr, "killswitch replay: 1 malformed input item skipped (reported above)") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	bad := writeCapture(t, dir, "b.jsonl", []string{"{not json"})
	_, stderr, code = runCLI(t, "", "replay", bad)
	if code != exitUsage || !strings.Contains(stderr, "(1 malformed item, 0 skipped items)") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
