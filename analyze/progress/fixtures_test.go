package progress_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/killswitch/killswitch/analyze/progress"
	"github.com/killswitch/killswitch/ingest"
)

// run replays a capture through Extract, Score and Push per agent, at the
// defaults, the way the loop policy does (a killed request is not pushed,
// and the agent's later requests never reach the detector). It returns
// each agent's first firing request (0: never), its first request labelled
// "loop" (0: none) and its request count.
func run(t *testing.T, path string) (fired, loopStart, n map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := ingest.NewJSONL(f, path, ingest.JSONLOptions{})
	var x progress.Extractor
	dets := map[string]*progress.Detector{}
	fired, loopStart, n = map[string]int{}, map[string]int{}, map[string]int{}
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			t.Fatalf("%v", rec.Err)
		}
		if rec.Control != nil || rec.Skip != "" {
			continue
		}
		a := rec.Agent
		n[a]++
		if rec.Label == ingest.LabelLoop && loopStart[a] == 0 {
			loopStart[a] = n[a]
		}
		if fired[a] != 0 {
			continue
		}
		d := dets[a]
		if d == nil {
			d = progress.New(progress.DefaultWindow)
			dets[a] = d
		}
		ft, err := x.Extract(rec.Request, rec.Response)
		if err != nil {
			t.Fatalf("%v: %v", rec.Pos, err)
		}
		ts := rec.TS.UnixNano()
		res := d.Score(&ft, ts)
		if res.Score >= progress.DefaultThreshold {
			fired[a] = n[a]
			if res.Reason() == "" {
				t.Errorf("%s: %s fired at %d with no reason", path, a, n[a])
			}
			continue
		}
		d.Push(&ft, ts, true)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return fired, loopStart, n
}

// TestFixtures checks the requirement against the captures' labels (the
// ground truth written by the generator, independent of the expectation
// files): every loop caught within 10 requests of its start and not
// before it; no healthy agent fired on.
func TestFixtures(t *testing.T) {
	paths, _ := filepath.Glob("../../fixtures/progress/*.jsonl")
	lib, _ := filepath.Glob("../../fixtures/library/*.jsonl")
	rules, _ := filepath.Glob("../../fixtures/progress/rules/*.jsonl")
	if len(paths) < 20 || len(rules) < 8 {
		t.Fatalf("found %d fixtures, %d rule fixtures", len(paths), len(rules))
	}
	for _, p := range slices.Concat(paths, lib, rules) {
		fired, start, n := run(t, p)
		for a := range n {
			switch {
			case start[a] == 0 && fired[a] != 0:
				t.Errorf("%s: healthy %s fired at request %d", filepath.Base(p), a, fired[a])
			case start[a] != 0 && fired[a] == 0:
				t.Errorf("%s: loop %s (from request %d) never caught", filepath.Base(p), a, start[a])
			case start[a] != 0 && (fired[a] < start[a] || fired[a] > start[a]+9):
				t.Errorf("%s: loop %s from request %d caught at %d", filepath.Base(p), a, start[a], fired[a])
			}
		}
	}
}

// TestOpenHandsLogs: no kill on the real OpenHands sessions (healthy).
func TestOpenHandsLogs(t *testing.T) {
	paths, _ := filepath.Glob("../../../shared/captures/jsonl-openhands-sdk-llm-logs/*.jsonl")
	if len(paths) == 0 {
		t.Skip("no ../shared/captures")
	}
	for _, p := range paths {
		fired, _, n := run(t, p)
		if len(n) == 0 {
			t.Errorf("%s: no requests read", p)
		}
		for a, k := range fired {
			if k != 0 {
				t.Errorf("%s: %s fired at request %d", filepath.Base(p), a, k)
			}
		}
	}
}
