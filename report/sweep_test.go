package report

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/golden"
)

// sweepFixture sweeps fixtures/sweep/name (see fixtures/sweep/README.md).
func sweepFixture(t *testing.T, name string, cfg sweep.Config) *sweep.Result {
	t.Helper()
	data, err := os.ReadFile("../fixtures/sweep/" + name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sweep.Run(ingest.NewJSONL(bytes.NewReader(data), "fixtures/sweep/"+name, ingest.JSONLOptions{}), cfg, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// smallGrid keeps the golden files short: windows 10 and 20, thresholds
// 6, 10 and 14.5.
func smallGrid() sweep.Config {
	return sweep.Config{Windows: []int{10, 20}, Thresholds: []float64{6, 10, 14.5},
		LateAfter: sweep.DefaultLateAfter, RetryAfter: time.Minute}
}

func TestSweepGolden(t *testing.T) {
	renderers := map[string]func(*bytes.Buffer, *sweep.Result) error{
		"txt":  func(b *bytes.Buffer, r *sweep.Result) error { return SweepTable(b, r) },
		"md":   func(b *bytes.Buffer, r *sweep.Result) error { return SweepMarkdown(b, r) },
		"csv":  func(b *bytes.Buffer, r *sweep.Result) error { return SweepCSV(b, r) },
		"json": func(b *bytes.Buffer, r *sweep.Result) error { return SweepJSON(b, r) },
	}
	for _, tt := range []struct {
		fixture, golden string
		formats         []string
	}{
		{"labelled.jsonl", "sweep_labelled", []string{"txt", "md", "csv", "json"}},
		{"heuristic.jsonl", "sweep_heuristic", []string{"md", "json"}},
		{"live.jsonl", "sweep_live", []string{"md", "csv"}},
	} {
		res := sweepFixture(t, tt.fixture, smallGrid())
		for _, f := range tt.formats {
			t.Run(tt.golden+"."+f, func(t *testing.T) {
				var b bytes.Buffer
				if err := renderers[f](&b, res); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, "testdata/"+tt.golden+"."+f, b.Bytes())
			})
		}
	}
}

// TestSweepJSONContract decodes the JSON report and checks the keys the
// issue names, with values derived by hand for labelled.jsonl at window
// 20, threshold 10 (see analyze/sweep_test.go): loop-identical is killed at
// request 9, loop-prompt at 12, loop-tools at 8, the healthy fixed-prompt
// at 12; 9 requests of each are refused (17−9+1, 20−12+1, 16−8+1,
// 20−12+1): 36. Delays 5, 11 and 7: median 7. With no false positive
// allowed, window 10 and threshold 14.5 are recommended.
func TestSweepJSONContract(t *testing.T) {
	var b bytes.Buffer
	if err := SweepJSON(&b, sweepFixture(t, "labelled.jsonl", smallGrid())); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Configs []struct {
			Window            *int     `json:"window"`
			Threshold         *float64 `json:"threshold"`
			AgentsKilled      *int     `json:"agents_killed"`
			LoopAgentsCaught  *int     `json:"loop_agents_caught"`
			LegitAgentsKilled *int     `json:"legit_agents_killed"`
			RequestsBlocked   *int     `json:"requests_blocked"`
			DelayMedian       *float64 `json:"detection_delay_median"`
			FalsePositives    []string `json:"false_positives"`
		} `json:"configs"`
		Recommended *struct {
			Window    int     `json:"window"`
			Threshold float64 `json:"threshold"`
		} `json:"recommended"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Configs) != 6 || doc.Recommended == nil || doc.Recommended.Window != 10 || doc.Recommended.Threshold != 14.5 {
		t.Fatalf("%d configs, recommended %+v", len(doc.Configs), doc.Recommended)
	}
	for _, c := range doc.Configs {
		if c.Window == nil || c.Threshold == nil || c.AgentsKilled == nil || c.LoopAgentsCaught == nil ||
			c.LegitAgentsKilled == nil || c.RequestsBlocked == nil {
			t.Fatalf("config lacks a required key: %+v", c)
		}
		if *c.Window == 20 && *c.Threshold == 10 {
			if *c.AgentsKilled != 4 || *c.LoopAgentsCaught != 3 || *c.LegitAgentsKilled != 1 || *c.RequestsBlocked != 36 ||
				c.DelayMedian == nil || *c.DelayMedian != 7 || len(c.FalsePositives) != 1 || c.FalsePositives[0] != "fixed-prompt" {
				t.Errorf("(20, 10): %+v", c)
			}
		}
	}
}
