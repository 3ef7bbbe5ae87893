package main

import "testing"

// The breaker from the command line on a capture whose outcomes are
// derived by hand in fixtures/breaker/README.md.
func TestBreakerReplay(t *testing.T) {
	const capture = "fixtures/breaker/outage.jsonl"
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"breaker-outage.jsonl", []string{"replay", "--policy", "breaker", "-f", "jsonl", capture}},
		{"breaker-outage.txt", []string{"replay", "--policy", "breaker", capture}},
		{"breaker-outage-sliding.md", []string{"replay", "--policy", "breaker", "--counter-ttl", "sliding", "-f", "markdown", capture}},
	} {
		stdout, stderr, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		golden(t, c.golden, stdout)
	}
	if _, _, code := runCLI(t, "", "replay", "--policy", "breaker", "--fail-on-kill", capture); code != exitFound {
		t.Errorf("--fail-on-kill: exit %d, want 1", code)
	}
	for _, args := range [][]string{
		{"replay", "--policy", "breaker", "--error-rate", "0", capture},
		{"replay", "--policy", "breaker", "--error-rate", "1.5", capture},
		{"replay", "--policy", "breaker", "--min-samples", "0", capture},
		{"replay", "--policy", "breaker", "--error-window", "-5m", capture},
		{"replay", "--policy", "breaker", "--counter-ttl", "forever", capture},
		{"replay", "--policy", "breaker", "--error-status", "teapot", capture},
		{"replay", "--policy", "breaker", "-f", "csv", capture},
	} {
		if _, _, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
