package analyze

import (
	"slices"
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
// Decision method as Hooks.Decision. A page charts a few agents chosen at
// the end (their rank is known only then), so it keeps every request's
// point, compactly: 24 bytes a request in one arena, chained per agent,
// and a few words per agent.
type SeriesCollector struct {
	heads  map[string]seriesHead
	points [][]seriesPoint // chunks of seriesChunk, never moved
	n      int32
}

// seriesHead is what the collector holds per agent: its last window size
// and its latest point.
type seriesHead struct {
	window int32
	last   int32 // index of the latest point
}

// seriesPoint is one request's point; its number is its place in the
// agent's chain (an agent's decisions come in order, numbered from 1).
type seriesPoint struct {
	score, threshold float64
	prev             int32 // the agent's previous point, -1 for its first
	action           Action
}

const seriesChunk = 1 << 14

// NewSeriesCollector returns an empty collector.
func NewSeriesCollector() *SeriesCollector {
	return &SeriesCollector{heads: map[string]seriesHead{}}
}

func (c *SeriesCollector) point(i int32) *seriesPoint {
	return &c.points[i/seriesChunk][i%seriesChunk]
}

// Decision records d's score on its agent's series.
func (c *SeriesCollector) Decision(d *Decision) error {
	h, ok := c.heads[d.Agent]
	if !ok {
		h.last = -1
	}
	if c.n%seriesChunk == 0 {
		c.points = append(c.points, make([]seriesPoint, seriesChunk))
	}
	*c.point(c.n) = seriesPoint{score: d.Score, threshold: d.Threshold, prev: h.last, action: d.Action}
	h.window, h.last = int32(d.Window), c.n
	c.n++
	c.heads[d.Agent] = h
	return nil
}

// Series returns the agent's series (false when it made no request); the
// caller owns it.
func (c *SeriesCollector) Series(agent string) (AgentSeries, bool) {
	h, ok := c.heads[agent]
	if !ok {
		return AgentSeries{}, false
	}
	s := AgentSeries{Agent: agent, Window: int(h.window)}
	for i := h.last; i >= 0; i = c.point(i).prev {
		p := c.point(i)
		s.Points = append(s.Points, ScorePoint{Score: p.score, Threshold: p.threshold, Action: p.action})
	}
	slices.Reverse(s.Points)
	for i := range s.Points {
		p := &s.Points[i]
		p.N = i + 1
		if p.Action == ActionKill || p.Action == ActionBlock {
			s.Kills = append(s.Kills, p.N)
		}
	}
	return s, true
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
