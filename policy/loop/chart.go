package loop

import (
	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// chartSeries replays the captures a second time for the agents the
// replay page of sum charts, and only them, and returns their score
// series. An agent's decisions depend on its own records alone (its
// settings, its window, its state), so they are those of the first pass;
// the page then needs no series of the agents it does not chart, which on
// captures of many agents is most of what it would hold. Problems were
// reported by the first pass.
func chartSeries(e *policy.Env, cfg analyze.Config, sum *analyze.Summary) (*analyze.SeriesCollector, error) {
	src, closer, err := e.Open()
	if err != nil {
		return nil, err
	}
	defer closer()
	keep := map[string]bool{}
	for _, a := range report.ChartedAgents(sum) {
		keep[a] = true
	}
	col := analyze.NewSeriesCollector()
	_, err = analyze.Replay(&agentFilter{src, keep}, cfg, e.Workers, analyze.Hooks{Decision: col.Decision})
	return col, err
}

// agentFilter reads the records of the agents in keep only.
type agentFilter struct {
	ingest.Reader
	keep map[string]bool
}

func (r *agentFilter) Scan() bool {
	for r.Reader.Scan() {
		if rec := r.Record(); rec.Err == nil && rec.Skip == "" && r.keep[rec.Agent] {
			return true
		}
	}
	return false
}
