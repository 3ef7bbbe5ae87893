package main

import "github.com/killswitch/killswitch/analyze"

// withSeries adds to h a decision hook that keeps every agent's scores for
// `replay --format html`, after h's own.
func withSeries(h analyze.Hooks) (analyze.Hooks, *analyze.SeriesCollector) {
	col := analyze.NewSeriesCollector()
	next := h.Decision
	h.Decision = func(d *analyze.Decision) error {
		if next != nil {
			if err := next(d); err != nil {
				return err
			}
		}
		return col.Decision(d)
	}
	return h, col
}
