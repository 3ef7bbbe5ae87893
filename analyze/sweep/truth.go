package sweep

import (
	"sort"

	"github.com/killswitch/killswitch/ingest"
	"gonum.org/v1/gonum/stat"
)

// truth derives an agent's ground truth, in this order of precedence:
//
//  1. the capture's label field: a request's own label;
//  2. the labels file: for a request without one, the last entry of the
//     file that names the agent and whose time range holds the request;
//  3. when the capture holds kills the live system made (deactivate
//     records by "kill_switch") and the agent has no label at all: an
//     agent the live system killed looped, from its last activation before
//     the first such kill that follows one of its requests until the next
//     activation (delays count from the live kill); an agent it never
//     killed is healthy.
//
// Otherwise the agent has no ground truth. An agent with a request
// labelled "loop" is a loop agent whose loop runs from the first to the
// last such request; an agent with labels but none "loop" is healthy.
func (t *Traffic) truth(a *sweepTraffic, labels *Labels) Agent {
	sa := Agent{Agent: a.name, Requests: len(a.reqs)}
	for i := range a.reqs {
		r := &a.reqs[i]
		l, src := r.label, TruthCapture
		if l == ingest.LabelNone && labels != nil {
			l, src = labels.Lookup(a.name, r.ts), TruthLabelsFile
		}
		if l == ingest.LabelNone {
			continue
		}
		if sa.Source == TruthNone || src < sa.Source {
			sa.Source = src
		}
		if l == ingest.LabelLoop {
			if sa.Start == 0 {
				sa.Start, sa.Ref, sa.RefTS = i+1, i+1, r.ts
			}
			sa.End = i + 1
		}
	}
	switch {
	case sa.Start > 0:
		sa.Class = ClassLoop
		return sa
	case sa.Source != TruthNone:
		sa.Class = ClassLegit
		return sa
	case !t.liveKills:
		return sa
	}
	segStart := 0
	for i := range a.ctrls {
		c := &a.ctrls[i]
		switch {
		case c.ctl.Event == ingest.ControlActivate:
			segStart = c.at
		case c.isLiveKill() && c.at > segStart:
			// The loop runs until an operator re-activated the agent.
			end := len(a.reqs)
			for j := i + 1; j < len(a.ctrls); j++ {
				if a.ctrls[j].ctl.Event == ingest.ControlActivate {
					end = a.ctrls[j].at
					break
				}
			}
			sa.Class, sa.Source = ClassLoop, TruthLiveKill
			sa.Start, sa.End, sa.Ref, sa.RefTS = segStart+1, end, c.at, c.ts
			return sa
		}
	}
	// An agent killed live only before any request of its segment keeps no
	// ground truth; one never killed live is healthy.
	if !a.liveKill {
		sa.Class, sa.Source = ClassLegit, TruthLiveKill
	}
	return sa
}

// quantiles returns the empirical median and 90th percentile of x (which
// it sorts).
func quantiles(x []float64) Quantiles {
	if len(x) == 0 {
		return Quantiles{}
	}
	sort.Float64s(x)
	return Quantiles{N: len(x), Median: stat.Quantile(0.5, stat.Empirical, x, nil), P90: stat.Quantile(0.9, stat.Empirical, x, nil)}
}

// prCurves builds one precision/recall curve per window.
func prCurves(res *Result) []PRCurve {
	nt := len(res.Thresholds)
	curves := make([]PRCurve, len(res.Windows))
	for wi, w := range res.Windows {
		c := PRCurve{Window: w}
		for ti, th := range res.Thresholds {
			s := &res.Settings[wi*nt+ti]
			c.Points = append(c.Points, PRPoint{Threshold: th, Precision: s.Precision, Recall: s.Recall})
		}
		c.Area = averagePrecision(c.Points)
		curves[wi] = c
	}
	return curves
}

// averagePrecision is Σ (Rₙ − Rₙ₋₁)·Pₙ over the points sorted by recall
// ascending (ties: higher precision first), with R₀ = 0.
func averagePrecision(points []PRPoint) float64 {
	p := append([]PRPoint(nil), points...)
	sort.SliceStable(p, func(i, j int) bool {
		if p[i].Recall != p[j].Recall {
			return p[i].Recall < p[j].Recall
		}
		return p[i].Precision > p[j].Precision
	})
	area, prev := 0.0, 0.0
	for _, pt := range p {
		area += (pt.Recall - prev) * pt.Precision
		prev = pt.Recall
	}
	return area
}
