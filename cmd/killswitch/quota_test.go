package main

// The test-only policy: one import line registers it, and the conformance
// suite (conformance_test.go) runs it like the built-in ones.
import (
	"strings"
	"testing"

	_ "github.com/killswitch/killswitch/policy/policytest/quota"
)

// The quota replays for real: on a capture where one agent sends 3
// requests in one minute, a quota of 2 refuses the third (429), and
// --fail-on-kill sees it.
func TestQuotaPolicy(t *testing.T) {
	dir := t.TempDir()
	capture := writeCapture(t, dir, "q.jsonl", []string{
		loopRecord(t, captureT0, "a"), loopRecord(t, captureT0.Add(10e9), "a"), loopRecord(t, captureT0.Add(20e9), "a"),
		loopRecord(t, captureT0.Add(70e9), "a"), loopRecord(t, captureT0.Add(80e9), "b"),
	})
	out, stderr, code := runCLI(t, "", "replay", "--policy", "quota", "--max-per-minute", "2", "--fail-on-kill", "-f", "csv", capture)
	if code != exitFound || out != "agent,requests,refused\na,4,1\nb,1,0\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, _, _ = runCLI(t, "", "replay", "--policy", "quota", "--max-per-minute", "2", "-f", "jsonl", capture)
	if !strings.Contains(out, `"agent":"a"`) || !strings.Contains(out, `"n":3`) || strings.Count(out, "\n") != 1 {
		t.Errorf("jsonl: %q", out)
	}
	if _, stderr, code := runCLI(t, "", "replay", "--max-per-minute", "2", capture); code != exitUsage ||
		!strings.Contains(stderr, "--max-per-minute is a setting of --policy quota: this replay runs the loop policy") {
		t.Errorf("a quota flag with the loop policy: exit %d, %q", code, stderr)
	}
}
