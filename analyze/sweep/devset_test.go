package sweep_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

// The development sets of the loop profiles: real agent runs labelled by
// hand (../shared/trajectories, outside the repository) and the generated
// library of the progress profile (fixtures/progress). TestDevelopmentSets
// reports, per profile at its defaults, what `sweep --profiles` reports
// (loops caught on time, late, early, missed; healthy agents killed;
// detection delay), checks each figure against a plain replay judged here
// by the labels alone, and holds the progress profile to what docs/progress.md
// records.

const trajectoriesDir = "../../../shared/trajectories"

// devSet is one labelled set: its JSONL captures, decompressed.
type devSet struct {
	name  string
	files map[string][]byte // path → JSONL
}

func loadDevSet(t *testing.T, name string, paths []string) devSet {
	t.Helper()
	s := devSet{name: name, files: map[string][]byte{}}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if raw, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
		s.files[p] = raw
	}
	return s
}

// reader merges the set's files in time order, as the command line does.
func (s devSet) reader() ingest.Reader {
	var paths []string
	for p := range s.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var rs []ingest.Reader
	for _, p := range paths {
		rs = append(rs, ingest.NewJSONL(bytes.NewReader(s.files[p]), p, ingest.JSONLOptions{}))
	}
	return ingest.Merge(rs...)
}

// figures are a profile's results on one set at one setting.
type figures struct {
	caught, late, early, missed, healthyKilled int
	delayMedian, delayP90                      float64
	killedHealthy                              []string
}

// replayFigures judges a plain replay at cfg by the capture's labels: an
// agent is a loop when some request is labelled "loop", from its first
// such request to its last; its first kill inside that span is the catch
// (late when more than lateAfter requests in), a kill before it with none
// inside is early; a healthy agent with a kill is killed.
func replayFigures(t *testing.T, s devSet, cfg analyze.Config, lateAfter int) figures {
	t.Helper()
	type agent struct {
		start, end   int
		kills        []int
		healthyKills int
	}
	agents := map[string]*agent{}
	get := func(name string) *agent {
		a := agents[name]
		if a == nil {
			a = &agent{}
			agents[name] = a
		}
		return a
	}
	_, err := analyze.Replay(s.reader(), cfg, 2, analyze.Hooks{Decision: func(d *analyze.Decision) error {
		a := get(d.Agent)
		if d.Label == ingest.LabelLoop {
			if a.start == 0 {
				a.start = d.AgentN
			}
			a.end = d.AgentN
		}
		if d.Action == analyze.ActionKill {
			a.kills = append(a.kills, d.AgentN)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var f figures
	var delays []float64
	for name, a := range agents {
		if a.start == 0 {
			if len(a.kills) > 0 {
				f.healthyKilled++
				f.killedHealthy = append(f.killedHealthy, name)
			}
			continue
		}
		catch, early := 0, false
		for _, k := range a.kills {
			if k >= a.start && k <= a.end && catch == 0 {
				catch = k
			}
			early = early || k < a.start
		}
		switch {
		case catch != 0 && catch-a.start > lateAfter:
			f.late++
			delays = append(delays, float64(catch-a.start))
		case catch != 0:
			f.caught++
			delays = append(delays, float64(catch-a.start))
		case early:
			f.early++
		default:
			f.missed++
		}
	}
	slices.Sort(f.killedHealthy)
	f.delayMedian, f.delayP90 = empiricalQuantile(delays, 0.5), empiricalQuantile(delays, 0.9)
	return f
}

// empiricalQuantile is the smallest x such that at least the fraction p of
// the samples are ≤ x (0 for no samples).
func empiricalQuantile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	x = slices.Clone(x)
	slices.Sort(x)
	i := int(math.Ceil(p*float64(len(x)))) - 1
	return x[max(0, i)]
}

// counts are the figures without the names.
func (f figures) counts() [7]float64 {
	return [7]float64{float64(f.caught), float64(f.late), float64(f.early), float64(f.missed), float64(f.healthyKilled), f.delayMedian, f.delayP90}
}

func sweepFigures(t *testing.T, s devSet, p *analyze.Profile) figures {
	t.Helper()
	cfg := sweep.Config{Profile: p, Windows: []int{p.Defaults.WindowSize}, Thresholds: []float64{p.Defaults.Threshold},
		LateAfter: sweep.DefaultLateAfter}
	res, err := sweep.Run(s.reader(), cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := &res.Settings[0]
	f := figures{caught: st.Caught, late: st.CaughtLate, early: st.KilledEarly, missed: st.Missed, healthyKilled: st.LegitKilled,
		delayMedian: st.DelayRequests.Median, delayP90: st.DelayRequests.P90}
	for _, o := range st.Agents {
		if o.Verdict == sweep.VerdictLegitKilled {
			f.killedHealthy = append(f.killedHealthy, o.Agent)
		}
	}
	return f
}

// progressFloor is what the progress profile at its defaults must keep
// doing on each development set (docs/progress.md records the figures):
// at least caught loops on time, at most healthy agents killed, none early.
var progressFloor = map[string]struct{ caught, healthyKilled int }{
	"trajectories": {caught: 19, healthyKilled: 1},
	"library":      {caught: 48, healthyKilled: 0},
}

func TestDevelopmentSets(t *testing.T) {
	lib, _ := filepath.Glob("../../fixtures/progress/*.jsonl")
	if len(lib) < 20 {
		t.Fatalf("found %d captures in fixtures/progress", len(lib))
	}
	sets := []devSet{loadDevSet(t, "library", lib)}
	if real, _ := filepath.Glob(trajectoriesDir + "/*.jsonl.gz"); len(real) > 0 {
		sets = append(sets, loadDevSet(t, "trajectories", real))
	} else {
		t.Logf("no %s (a fresh clone without ../shared): the real trajectories are not measured", trajectoriesDir)
	}
	for _, s := range sets {
		for _, p := range []*analyze.Profile{analyze.ProfileSpec, analyze.ProfileAgentGazer, analyze.ProfileProgress} {
			got := sweepFigures(t, s, p)
			cfg := sweep.Config{Profile: p}.SettingConfig(p.Defaults.WindowSize, p.Defaults.Threshold)
			want := replayFigures(t, s, cfg, sweep.DefaultLateAfter)
			t.Logf("%-12s %-10s on time %2d, late %d, early %d, missed %2d; healthy killed %2d; delay %g / %g",
				s.name, p.Name, got.caught, got.late, got.early, got.missed, got.healthyKilled, got.delayMedian, got.delayP90)
			if !slices.Equal(got.killedHealthy, want.killedHealthy) {
				t.Errorf("%s %s: sweep kills healthy %v, the replay %v", s.name, p.Name, got.killedHealthy, want.killedHealthy)
			}
			if got.counts() != want.counts() {
				t.Errorf("%s %s: sweep %+v, replay judged by labels %+v", s.name, p.Name, got, want)
			}
			if p != analyze.ProfileProgress {
				continue
			}
			floor := progressFloor[s.name]
			if got.caught < floor.caught || got.healthyKilled > floor.healthyKilled || got.early > 0 {
				t.Errorf("%s progress: %d caught on time (want ≥ %d), %d healthy killed (want ≤ %d: %v), %d early (want 0)",
					s.name, got.caught, floor.caught, got.healthyKilled, floor.healthyKilled, got.killedHealthy, got.early)
			}
		}
	}
}
