package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckGateway: the gateway fixtures' expectations (derived by hand in
// fixtures/gateway/README.md) hold; a copy with a wrong 429 count and one
// incident missing fails on exactly those lines, and --update rewrites it
// back to the hand-written file byte for byte.
func TestCheckGateway(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "check", "fixtures/gateway")
	if code != exitOK || !strings.Contains(stdout, "all 20 expectations hold (2 files)") {
		t.Fatalf("check fixtures/gateway: exit %d\n%s%s", code, stdout, stderr)
	}
	want, err := os.ReadFile("fixtures/gateway/incidents.expect.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	capture, err := os.ReadFile("fixtures/gateway/incidents.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "incidents.expect.json")
	bad := strings.Replace(string(want), `"429": 6`, `"429": 5`, 1)
	i := strings.LastIndex(bad, "    },\n    {")
	bad = bad[:i] + "    }\n  ],\n  \"settings\"" + bad[strings.Index(bad, "  ],\n  \"settings\"")+len("  ],\n  \"settings\""):]
	if err := os.WriteFile(exp, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "incidents.jsonl"), capture, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = runCLI(t, "", "check", exp)
	for _, w := range []string{"http_status.429: 6 calls, expected 5", "incidents: 5 incidents, expected 4", "2 of 10 expectations failed"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("no %q in\n%s", w, stdout)
		}
	}
	if code != exitFound {
		t.Errorf("exit %d, want 1", code)
	}
	if _, stderr, code := runCLI(t, "", "check", "--update", exp); code != exitOK {
		t.Fatalf("--update: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(exp); string(got) != string(want) {
		t.Errorf("--update wrote\n%s\nwant the fixture\n%s", got, want)
	}
}
