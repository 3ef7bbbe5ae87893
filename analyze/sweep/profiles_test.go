package sweep_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	_ "github.com/killswitch/killswitch/analyze/peers"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

// TestCollectProfiles: one read collecting every profile's traffic
// (CollectProfiles) gives each profile the sweep a read of its own gives
// (Collect), report for report in every format, at any parallelism and
// with the profiles' packed requests spilled to one shared store.
func TestCollectProfiles(t *testing.T) {
	lib, _ := filepath.Glob("../../fixtures/progress/*.jsonl")
	if len(lib) < 20 {
		t.Fatalf("found %d captures in fixtures/progress", len(lib))
	}
	set := loadDevSet(t, "library", lib)
	set.files["bad.jsonl"] = []byte("not a record\n{\"ts\": 1}\n") // problems: only the first profile's collection reports them
	var ps []*analyze.Profile
	for _, name := range []string{"spec", "agentgazer", "progress", "gemini-cli", "openhands", "openhands-headless", "roo", "cline", "openclaw"} {
		p, err := analyze.ParseProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	sweepOf := func(tr *sweep.Traffic) *sweep.Result {
		t.Helper()
		p := tr.Profile
		cfg := sweep.Config{Profile: p, Windows: []int{10, 20}, Thresholds: []float64{p.Defaults.Threshold, p.Defaults.Threshold + 1},
			LateAfter: sweep.DefaultLateAfter}
		if p.NoWindow {
			cfg.Windows = []int{p.Defaults.WindowSize}
		}
		res, err := tr.Sweep(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want := make([]map[string][]byte, len(ps))
	wantSeen := 0
	for i, p := range ps {
		problem := func(*ingest.Record, string) error { wantSeen++; return nil }
		if i > 0 {
			problem = nil
		}
		tr, err := sweep.Collect(set.reader(), p, 1, problem, sweep.Spill{})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = sweepReports(t, sweepOf(tr))
	}
	for _, workers := range []int{1, 3} {
		for _, budget := range []int64{0, 4096} {
			var spill sweep.Spill
			if budget > 0 {
				spill = sweep.Spill{Store: &memStore{}, Budget: budget}
			}
			seen := 0
			problem := func(*ingest.Record, string) error { seen++; return nil }
			ts, err := sweep.CollectProfiles(set.reader(), ps, workers, problem, spill)
			if err != nil {
				t.Fatal(err)
			}
			if len(ts) != len(ps) {
				t.Fatalf("%d traffics for %d profiles", len(ts), len(ps))
			}
			if seen != wantSeen || seen == 0 {
				t.Errorf("workers %d: the problem hook saw %d problems, a read of the first profile's %d", workers, seen, wantSeen)
			}
			for i, tr := range ts {
				if tr.Profile != ps[i] {
					t.Fatalf("traffic %d is %s's, want %s's", i, tr.Profile, ps[i])
				}
				for format, got := range sweepReports(t, sweepOf(tr)) {
					if !bytes.Equal(got, want[i][format]) {
						t.Errorf("workers %d, spill budget %d: %s's %s report differs from a read of its own", workers, budget, ps[i], format)
					}
				}
			}
			if budget > 0 && spill.Store.(*memStore).appends == 0 {
				t.Errorf("budget %d: nothing spilled", budget)
			}
		}
	}
}
