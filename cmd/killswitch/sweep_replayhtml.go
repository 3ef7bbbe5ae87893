package main

import (
	"os"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// rereadable reports whether every path is a regular file, which a second
// pass can read again (not standard input, a pipe or a device).
func rereadable(paths []string) bool {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if p == "-" || err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// chartSeries replays paths a second time for the agents the replay page
// of sum charts, and only them, and returns their score series. An agent's
// decisions depend on its own records alone (its settings, its window, its
// state), so they are those of the first pass; the page then needs no
// series of the agents it does not chart, which on captures of many agents
// is most of what it would hold. Problems were reported by the first pass.
func (f *replayFlags) chartSeries(e *env, paths []string, cfg analyze.Config, sum *analyze.Summary) (*analyze.SeriesCollector, error) {
	set, err := openAll(e, paths, f.input)
	if err != nil {
		return nil, err
	}
	defer set.close()
	keep := map[string]bool{}
	for _, a := range report.ChartedAgents(sum) {
		keep[a] = true
	}
	col := analyze.NewSeriesCollector()
	_, err = analyze.Replay(&agentFilter{set.src, keep}, cfg, f.workers, analyze.Hooks{Decision: col.Decision})
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
