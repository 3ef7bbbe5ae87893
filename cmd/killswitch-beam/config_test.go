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
