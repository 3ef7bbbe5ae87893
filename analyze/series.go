package analyze

import (
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

// TruthClass is what ground truth says an agent is (see analyze/sweep).
type TruthClass uint8

const (
	ClassUnknown TruthClass = iota // no ground truth
	ClassLoop                      // it looped
	ClassLegit                     // healthy: it never looped
)

var classNames = [...]string{"unknown", "loop", "legit"}

func (c TruthClass) String() string { return classNames[c] }
