package analyze

import (
	"math"
	"sort"
	"time"
)

// ScorePoint is one request on a score-over-time chart.
type ScorePoint struct {
	N         int // the agent's request number, from 1
	TS        time.Time
	Score     float64 // 0 for requests not scored (skipped, refused while inactive)
	Threshold float64 // the agent's threshold when the request came
	Action    Action
}

// AgentSeries is one agent's scores, request by request, for a chart.
type AgentSeries struct {
	Agent  string
	Window int // the agent's last window size
	Points []ScorePoint
	// Kills are the request numbers where the chart's setting fires.
	Kills []int
	// Hypothetical: the points are scores as if the kill switch had never
	// fired (sweep charts), so those after the first kill show what the
	// other thresholds face; otherwise they are what the replay did.
	Hypothetical bool
	// Class and the loop episode (request numbers, inclusive; 0 when none).
	Class              TruthClass
	LoopStart, LoopEnd int
}

// MaxScore returns the highest score of the series.
func (s *AgentSeries) MaxScore() float64 {
	m := 0.0
	for _, p := range s.Points {
		m = max(m, p.Score)
	}
	return m
}

// SeriesCollector gathers per-agent score series from a replay: use its
// Decision method as Hooks.Decision.
type SeriesCollector struct {
	byName map[string]*AgentSeries
}

// NewSeriesCollector returns an empty collector.
func NewSeriesCollector() *SeriesCollector {
	return &SeriesCollector{byName: map[string]*AgentSeries{}}
}

// Decision records d's score on its agent's series.
func (c *SeriesCollector) Decision(d *Decision) error {
	s := c.byName[d.Agent]
	if s == nil {
		s = &AgentSeries{Agent: d.Agent}
		c.byName[d.Agent] = s
	}
	s.Window = d.Window
	s.Points = append(s.Points, ScorePoint{N: d.AgentN, TS: d.TS, Score: d.Score, Threshold: d.Threshold, Action: d.Action})
	if d.Action == ActionKill || d.Action == ActionBlock {
		s.Kills = append(s.Kills, d.AgentN)
	}
	return nil
}

// Series returns the series sorted by agent; the caller owns them.
func (c *SeriesCollector) Series() []AgentSeries {
	out := make([]AgentSeries, 0, len(c.byName))
	for _, s := range c.byName {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}

// MaxSweepSeries bounds how many agents a sweep charts.
const MaxSweepSeries = 200

// series charts, at the chart window (the recommended setting's, else the
// first), every agent some threshold kills there: its scores as if never
// killed (a replay at a threshold that never fires), with the kills of
// the chart setting (the recommended one, else the highest threshold).
func (t *Traffic) series(cfg *SweepConfig, res *SweepResult) error {
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
			if len(o.Kills) > 0 {
				killed[o.Agent] = true
			}
		}
	}
	never := cfg.settingConfig(w, math.MaxFloat64)
	for ai, a := range t.agents {
		if !killed[a.name] {
			continue
		}
		if len(res.Series) == MaxSweepSeries {
			break
		}
		tr := &res.Agents[ai]
		s := AgentSeries{Agent: a.name, Window: w, Hypothetical: true, Class: tr.Class}
		if tr.Class == ClassLoop {
			s.LoopStart, s.LoopEnd = tr.Start, tr.End
		}
		err := a.replay(never, func(i int, d *Decision) {
			s.Points = append(s.Points, ScorePoint{N: i + 1, TS: d.TS, Score: d.Score, Threshold: chart.Threshold, Action: d.Action})
		})
		if err != nil {
			return err
		}
		if o := chart.Outcome(a.name); o != nil {
			for _, k := range o.Kills {
				s.Kills = append(s.Kills, k.AgentN)
			}
		}
		res.Series = append(res.Series, s)
	}
	return nil
}
