package sweep

import (
	"math"

	"github.com/killswitch/killswitch/analyze"
)

// MaxSeries bounds how many agents a sweep charts.
const MaxSeries = 200

// series charts, at the chart window (the recommended setting's, else the
// first), every agent some threshold kills there: its scores as if never
// killed (a replay at a threshold that never fires), with the kills of
// the chart setting (the recommended one, else the highest threshold),
// replayed again there (outcomes keep only the first kill).
func (t *Traffic) series(cfg *Config, res *Result) error {
	nt := len(res.Thresholds)
	wi, ti := 0, nt-1
	if res.Recommended >= 0 {
		wi, ti = res.Recommended/nt, res.Recommended%nt
	}
	res.SeriesSetting = wi*nt + ti
	w, chart := res.Windows[wi], &res.Settings[wi*nt+ti]
	killed := map[string]bool{}
	for k := 0; k < nt; k++ {
		for _, o := range res.Settings[wi*nt+k].Agents {
			if o.KillCount > 0 {
				killed[o.Agent] = true
			}
		}
	}
	never, at := cfg.settingConfig(w, math.MaxFloat64), cfg.settingConfig(w, chart.Threshold)
	var scratch []sweepReq
	for ai, a := range t.agents {
		if !killed[a.name] {
			continue
		}
		if len(res.Series) == MaxSeries {
			break
		}
		tr := &res.Agents[ai]
		s := analyze.AgentSeries{Agent: a.name, Window: w, Hypothetical: true, Class: tr.Class}
		if tr.Class == ClassLoop {
			s.LoopStart, s.LoopEnd = tr.Start, tr.End
		}
		var err error
		scratch, err = t.unpacked(a, scratch, func() error {
			err := a.replay(never, func(i int, d *analyze.Decision) {
				s.Points = append(s.Points, analyze.ScorePoint{N: i + 1, TS: d.TS, Score: d.Score, Threshold: chart.Threshold, Action: d.Action})
			})
			if err != nil || chart.Outcome(a.name) == nil {
				return err
			}
			return a.replay(at, func(i int, d *analyze.Decision) {
				if d.Action == analyze.ActionKill || d.Action == analyze.ActionBlock {
					s.Kills = append(s.Kills, i+1)
				}
			})
		})
		if err != nil {
			return err
		}
		res.Series = append(res.Series, s)
	}
	return nil
}
