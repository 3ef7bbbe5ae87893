package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pipeline's settings are replay's: a profile's own defaults (progress
// kills above 4, not the seed's 10), then the settings file, then the
// flags; a settings file's error names file:line:column and the key.
func TestConfigFromFlags(t *testing.T) {
	cfg, err := configFromFlags("progress", "deactivate", nil, nil, "", os.ReadFile)
	if err != nil || cfg.Default.Threshold != 4 {
		t.Errorf("progress: threshold %v, %v; want 4 (the profile's)", cfg.Default.Threshold, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	os.WriteFile(file, []byte(`{"default": {"threshold": 7}, "agents": {"a": {"window_size": 5}}}`), 0o644)
	w := 30
	cfg, err = configFromFlags("spec", "block", &w, nil, file, os.ReadFile)
	if err != nil || cfg.Default.Threshold != 7 || cfg.Default.WindowSize != 30 || cfg.Agents["a"].WindowSize != 5 || cfg.Agents["a"].Threshold != 7 {
		t.Errorf("file and flags: %+v %+v, %v", cfg.Default, cfg.Agents, err)
	}
	os.WriteFile(file, []byte("{\n  \"default\": {\"treshold\": 3}}"), 0o644)
	if _, err := configFromFlags("spec", "deactivate", nil, nil, file, os.ReadFile); err == nil ||
		!strings.Contains(err.Error(), file+":2:") || !strings.Contains(err.Error(), "default.treshold") {
		t.Errorf("unknown key: %v", err)
	}
}

// TestPipelineOptionsPolicies: --policy names loop or breaker; the
// breaker's flags are checked where the pipeline is launched, with the
// replay's messages; a flag of the other policy is refused, not ignored.
func TestPipelineOptionsPolicies(t *testing.T) {
	defer func(p string, in globs, out string, sw bool, args []string) {
		*policy, inputs, *output, *doSweep, breakerArgs = p, in, out, sw, args
	}(*policy, inputs, *output, *doSweep, breakerArgs)
	for _, c := range []struct {
		policy string
		args   []string
		set    []string
		sweep  bool
		want   string // "" for no error
	}{
		{"breaker", []string{"--error-rate=0.3", "--counter-ttl=sliding"}, nil, false, ""},
		{"loop", nil, nil, false, ""},
		{"gateway", nil, nil, false, "want loop or breaker"},
		{"breaker", nil, []string{"window"}, false, "--window: a loop policy flag"},
		{"breaker", nil, nil, true, "--sweep"},
		{"breaker", []string{"--error-rate=x"}, nil, false, "error-rate"},
		{"loop", []string{"--min-samples=3"}, nil, false, "--min-samples: a breaker flag"},
	} {
		*policy, *doSweep, breakerArgs = c.policy, c.sweep, c.args
		inputs, *output = globs{"../../fixtures/breaker/outage.jsonl"}, filepath.Join(t.TempDir(), "out")
		set := map[string]bool{}
		for _, s := range c.set {
			set[s] = true
		}
		opt, err := pipelineOptions(t.Context(), set)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v", c.policy, c.args, err)
		case c.want == "" && (opt.Policy.Name != c.policy || len(opt.Policy.Args) != len(c.args)):
			t.Errorf("%s %v: options %+v", c.policy, c.args, opt.Policy)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v %v: error %v, want one saying %q", c.policy, c.args, c.set, err, c.want)
		}
	}
}
