package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/internal/golden"
)

func progressFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("fixtures/progress/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures/progress: %v", err)
	}
	return files
}

// TestSweepProfiles: `sweep --profiles spec,progress` holds each profile's
// own sweep unchanged (each on its own default threshold scale), and its
// comparison rows say what fixtures/progress/README.md derives by hand:
// progress at its defaults (window 20, threshold 4) catches all 48 loops
// within 10 requests and kills no healthy agent; spec at its defaults kills
// healthy look-alikes.
func TestSweepProfiles(t *testing.T) {
	files := progressFixtures(t)
	out, errs, code := sweepRun(append([]string{"sweep", "--profiles", "spec,progress", "-f", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Profiles   []string `json:"profiles"`
		Comparison []struct {
			Profile        string   `json:"profile"`
			Setting        string   `json:"setting"`
			Window         int      `json:"window"`
			Threshold      float64  `json:"threshold"`
			Caught         int      `json:"loop_agents_caught"`
			Late           int      `json:"loop_agents_caught_late"`
			Early          int      `json:"loop_agents_killed_early"`
			FalsePositives []string `json:"false_positives"`
		} `json:"comparison"`
		Sweeps []any `json:"sweeps"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc.Profiles, []string{"spec", "progress"}) || len(doc.Sweeps) != 2 {
		t.Fatalf("profiles %v, %d sweeps", doc.Profiles, len(doc.Sweeps))
	}
	for i, p := range doc.Profiles {
		one, errs, code := sweepRun(append([]string{"sweep", "--profile", p, "-f", "json"}, files...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", p, code, errs)
		}
		var want any
		if err := json.Unmarshal([]byte(one), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(doc.Sweeps[i], want) {
			t.Errorf("%s: the comparison's sweep differs from sweep --profile %s", p, p)
		}
	}
	found := 0
	for _, c := range doc.Comparison {
		switch {
		case c.Profile == "progress" && c.Setting == "defaults":
			found++
			if c.Window != 20 || c.Threshold != 4 || c.Caught != 48 || c.Late != 0 || c.Early != 0 || len(c.FalsePositives) != 0 {
				t.Errorf("progress at its defaults: %+v", c)
			}
		case c.Profile == "spec" && c.Setting == "defaults":
			found++
			if c.Window != 20 || c.Threshold != 10 || len(c.FalsePositives) == 0 {
				t.Errorf("spec at its defaults: %+v", c)
			}
		}
	}
	if found != 2 {
		t.Errorf("comparison rows: %+v", doc.Comparison)
	}

	// The table leads with the comparison, then each profile's sweep.
	out, errs, code = sweepRun(append([]string{"sweep", "--profiles", "spec,progress"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden.Check(t, filepath.Join(goldenDir, "sweep-profiles.txt"), []byte(out))
	for _, f := range []string{"csv", "markdown", "html"} {
		if _, errs, code := sweepRun(append([]string{"sweep", "--profiles", "spec,progress", "-f", f}, files...)...); code != 0 {
			t.Errorf("-f %s: exit %d: %s", f, code, errs)
		}
	}
}

// TestSweepProfilesStdin: --profiles reads the captures once, so standard
// input serves every profile, and the report is the one the files give.
func TestSweepProfilesStdin(t *testing.T) {
	f := "fixtures/progress/loop-cycle.jsonl"
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, errs, code := runCLI(t, "", "sweep", "--profiles", "spec,progress,gemini-cli", "-f", "json", f)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fromStdin, errs, code := runCLI(t, string(data), "sweep", "--profiles", "spec,progress,gemini-cli", "-f", "json", "-")
	if code != 0 {
		t.Fatalf("stdin: exit %d: %s", code, errs)
	}
	if strings.ReplaceAll(fromFile, f, "<stdin>") != fromStdin {
		t.Errorf("standard input gives another report than the file:\n%s\n---\n%s", fromStdin, fromFile)
	}
}

func TestSweepProfilesErrors(t *testing.T) {
	f := "fixtures/progress/loop-cycle.jsonl"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--profiles", "spec,spec", f}, "spec given twice"},
		{[]string{"--profiles", "spec,nope", f}, "--profiles:"},
		{[]string{"--profile", "spec", "--profiles", "spec,progress", f}, "give one"},
	} {
		_, errs, code := sweepRun(append([]string{"sweep"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)", tc.args, code, errs, tc.want)
		}
	}
}
