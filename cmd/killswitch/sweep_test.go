package main

import (
	"bytes"
	"encoding/json"
	"github.com/killswitch/killswitch/analyze/sweep"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sweepRun runs the command line in-process.
func sweepRun(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb, func(string) string { return "" })
	return out.String(), errb.String(), code
}

// sweepFixtures is fixtures/sweep/ from wherever the tests run (TestMain
// moves them to the repository root).
func sweepFixtures() string {
	if _, err := os.Stat("fixtures/sweep"); err == nil {
		return "fixtures/sweep/"
	}
	return "../../fixtures/sweep/"
}

// TestSweepCommand: labelled.jsonl over the default grid; the expected
// recommendation (window 10, threshold 14.5) is derived by hand in
// analyze/sweep_test.go (TestSweepRecommended).
func TestSweepCommand(t *testing.T) {
	out, errs, code := sweepRun("sweep", "--format", "json", sweepFixtures()+"labelled.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Configs     []json.RawMessage `json:"configs"`
		Recommended struct {
			Window    int     `json:"window"`
			Threshold float64 `json:"threshold"`
		} `json:"recommended"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Configs) != 75 || doc.Recommended.Window != 10 || doc.Recommended.Threshold != 14.5 {
		t.Errorf("%d configs, recommended %+v", len(doc.Configs), doc.Recommended)
	}
	// With one false positive allowed: window 20, threshold 16.
	out, _, _ = sweepRun("sweep", "--max-false-positives", "1", "-f", "csv", sweepFixtures()+"labelled.jsonl")
	var rec []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, ","); len(f) > 2 && f[2] == "true" {
			rec = append(rec, f[0]+"/"+f[1])
		}
	}
	if !slices.Equal(rec, []string{"20/16"}) {
		t.Errorf("recommended rows %v, want [20/16]", rec)
	}
	// The labels file gives the same answer on a capture without labels.
	bare := filepath.Join(t.TempDir(), "bare.jsonl")
	data, _ := os.ReadFile(sweepFixtures() + "labelled.jsonl")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]json.RawMessage
		json.Unmarshal([]byte(l), &m)
		delete(m, "label")
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	os.WriteFile(bare, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	for _, f := range []string{"md", "html"} {
		path := filepath.Join(t.TempDir(), "report."+f)
		format := map[string]string{"md": "markdown", "html": "html"}[f]
		_, errs, code = sweepRun("sweep", "--labels", sweepFixtures()+"labelled.labels.csv", "-f", format, "-o", path, bare)
		got, _ := os.ReadFile(path)
		if code != 0 || !bytes.Contains(got, []byte("window 10, threshold 14.5")) {
			t.Errorf("%s: exit %d (%s); report:\n%.400s", f, code, errs, got)
		}
	}
}

func TestSweepCommandErrors(t *testing.T) {
	dir := t.TempDir()
	badLabels := filepath.Join(dir, "labels.csv")
	os.WriteFile(badLabels, []byte("agent,label\nbot,sometimes\n"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep"}, "Usage: killswitch sweep"},
		{[]string{"sweep", "--thresholds", "16:4:1", "x.jsonl"}, `killswitch sweep: --thresholds: range "16:4:1": stop is below start`},
		{[]string{"sweep", "--thresholds", "4,,8", "x.jsonl"}, `--thresholds: empty value in list "4,,8"`},
		{[]string{"sweep", "--windows", "10,0", "x.jsonl"}, "--windows: window size 0 is below 1"},
		{[]string{"sweep", "--windows", "10:20:2.5", "x.jsonl"}, `--windows: range "10:20:2.5": "12.5" is not a whole number`},
		{[]string{"sweep", "--format", "pdf", "x.jsonl"}, `unknown --format "pdf"`},
		{[]string{"sweep", "--profile", "nope", "x.jsonl"}, `unknown profile "nope"`},
		{[]string{"sweep", "--labels", filepath.Join(dir, "missing.csv"), "x.jsonl"}, "missing.csv: no such file"},
		{[]string{"sweep", "--labels", badLabels, "x.jsonl"}, `labels.csv:2: label: a string of 9 characters is neither "loop" nor "legit"`},
		{[]string{"sweep", filepath.Join(dir, "nothing.jsonl")}, "nothing.jsonl: no such file"},
	} {
		out, errs, code := sweepRun(tt.args...)
		if code != exitUsage || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errs, tt.want)
		}
	}
	// An unreadable input leaves no output file behind.
	path := filepath.Join(dir, "out.json")
	if _, _, code := sweepRun("sweep", "-o", path, filepath.Join(dir, "nothing.jsonl")); code != exitUsage {
		t.Errorf("exit %d", code)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("output written despite the error: %v", err)
	}
}

func TestReplayHTML(t *testing.T) {
	out, errs, code := sweepRun("replay", "--format", "html", sweepFixtures()+"live.jsonl")
	if code != 0 || !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(out, `<svg class="score-chart"`) ||
		!strings.Contains(out, `data-agent="looper"`) {
		t.Errorf("exit %d (%s):\n%.300s", code, errs, out)
	}
}

func TestParseGrid(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []float64
	}{
		{"4:6:0.5", []float64{4, 4.5, 5, 5.5, 6}},
		{"0:1:0.1", []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{"10:11:0.3", []float64{10, 10.3, 10.6, 10.9}},
		{"8, 10,12", []float64{8, 10, 12}},
		{"7", []float64{7}},
		{"5:5:1", []float64{5}},
	} {
		got, err := sweep.ParseThresholds(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q: %v %v, want %v", tt.in, got, err, tt.want)
		}
	}
	if got, _ := sweep.ParseThresholds("4:16:0.5"); len(got) != 25 || got[24] != 16 {
		t.Errorf("default grid: %v", got)
	}
	if got, err := sweep.ParseWindows("10:40:10"); err != nil || !slices.Equal(got, []int{10, 20, 30, 40}) {
		t.Errorf("windows range: %v %v", got, err)
	}
	for _, bad := range []string{"", "a", "1:2", "1:2:0", "1:2:-1", "-1", "NaN", "1:Inf:1", "0:1e9:0.01", "1:2:3:4"} {
		if _, err := sweep.ParseThresholds(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzParseGrid: never panics; what parses is a bounded list of finite
// thresholds ≥ 0 and windows ≥ 1.
func FuzzParseGrid(f *testing.F) {
	for _, s := range []string{"4:16:0.5", "8,10,12", "0:1:0.1", "1e-3:2e-3:1e-4", "10:40:10", ":::", "1:9999999999:1e-9", ",", "5:5:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ts, err := sweep.ParseThresholds(s); err == nil {
			if len(ts) == 0 || len(ts) > sweep.MaxGridValues {
				t.Errorf("%q: %d values", s, len(ts))
			}
			for _, v := range ts {
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%q: value %v", s, v)
				}
			}
		}
		if ws, err := sweep.ParseWindows(s); err == nil {
			for _, w := range ws {
				if w < 1 {
					t.Errorf("%q: window %d", s, w)
				}
			}
		}
	})
}
