package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/policy"
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

// unsplit is a policy whose replay cannot be split: the pipeline refuses
// it at launch.
type unsplit struct{}

func (unsplit) Replay(*policy.Env, *policy.ReplayOptions) (*policy.Outcome, error) { return nil, nil }

func init() {
	policy.Register(&policy.Policy{Name: "unsplit", Order: 1000, Help: "a test policy without a split replay",
		Replay: func(*pflag.FlagSet) policy.Replayer { return unsplit{} }, ReplayFormats: []string{"json"}})
}

// TestPipelineOptionsPolicies: --policy names a registered policy; its
// flags and settings are checked where the pipeline is launched, with the
// replay's messages; a flag of another policy is refused, not ignored; a
// policy without a split replay is refused.
func TestPipelineOptionsPolicies(t *testing.T) {
	defer func(p string, in globs, out string, sw bool, args []string, st string) {
		*policyName, inputs, *output, *doSweep, policyArgs, *settings = p, in, out, sw, args, st
	}(*policyName, inputs, *output, *doSweep, policyArgs, *settings)
	dir := t.TempDir()
	gs := filepath.Join(dir, "gs.json")
	os.WriteFile(gs, []byte("{\"gateway\": {\n  \"rpn\": 5}}"), 0o644)
	for _, c := range []struct {
		policy   string
		args     []string
		set      []string
		settings string
		sweep    bool
		want     string // "" for no error
	}{
		{"breaker", []string{"--error-rate=0.3", "--counter-ttl=sliding"}, nil, "", false, ""},
		{"loop", nil, nil, "", false, ""},
		{"gateway", []string{"--variant=spec"}, nil, "", false, ""},
		{"quota", []string{"--max-per-minute=3"}, nil, "", false, ""},
		{"unsplit", nil, nil, "", false, "--policy unsplit: the pipeline cannot run it"},
		{"nope", nil, nil, "", false, `unknown --policy "nope"`},
		{"breaker", nil, []string{"window"}, "", false, "--window is a setting of --policy loop"},
		{"gateway", nil, []string{"profile"}, "", false, "--profile is a setting of --policy loop"},
		{"breaker", nil, nil, "", true, "--sweep"},
		{"breaker", []string{"--error-rate=x"}, nil, "", false, "error-rate"},
		{"loop", []string{"--min-samples=3"}, nil, "", false, "--min-samples is a setting of --policy breaker"},
		{"gateway", []string{"--error-rate=0.3"}, nil, "", false, "--error-rate is a setting of --policy breaker"},
		{"gateway", []string{"--variant=m23"}, nil, "", false, "--variant"},
		{"gateway", nil, nil, gs, false, gs + ":2:"},
	} {
		*policyName, *doSweep, policyArgs, *settings = c.policy, c.sweep, c.args, c.settings
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
