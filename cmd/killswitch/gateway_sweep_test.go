package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/internal/golden"
)

// TestGatewaySweep: sweep --policy gateway over fixtures/gateway/m22.jsonl.
// The rows that change, derived by hand from fixtures/gateway/README.md:
// at max cost 200 the claude-opus call (line 4, 112.5¢) goes through; at
// max_tokens 4000 the three calls without max_tokens (4096: lines 1, 8
// and 11) are refused; at 32000 line 3 (20000) goes through; the frozen
// calls stay 423 throughout. Under m22, rpm and spike rate are inert.
func TestGatewaySweep(t *testing.T) {
	const capture = "fixtures/gateway/m22.jsonl"
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"gateway-sweep.txt", []string{"sweep", "--policy", "gateway", capture}},
		{"gateway-sweep.json", []string{"sweep", "--policy", "gateway", "-f", "json", "--max-costs", "200", "--max-tokens", "4000", capture}},
		{"gateway-sweep-spec.md", []string{"sweep", "--policy", "gateway", "--profile", "spec", "-f", "markdown", "--max-costs", "100", "--max-tokens", "16000", "--rpms", "1,2", "--spike-rates", "0.5", "fixtures/gateway/incidents.jsonl"}},
	} {
		stdout, stderr, code := runCLI(t, "", c.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		golden.Check(t, filepath.Join(goldenDir, c.golden), []byte(stdout))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "agentgazer"}, `gateway profile "agentgazer"`},
		{[]string{"--max-costs", "-5"}, "max cost must be a number ≥ 0"},
		{[]string{"--max-tokens", "1.5"}, "--max-tokens: 1.5 is not a whole number"},
		{[]string{"--rpms", "x"}, "--rpms:"},
		{[]string{"-f", "csv"}, "-f csv is not available"},
		{[]string{"--settings", "fixtures/gateway/nope.json"}, "nope.json"},
	} {
		args := append(append([]string{"sweep", "--policy", "gateway"}, c.args...), capture)
		_, stderr, code := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s", c.args, code, c.want, stderr)
		}
	}
}
