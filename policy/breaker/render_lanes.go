package breaker

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// MaxLanes bounds the breakers charted on the page (in the table's order);
// the table lists them all.
const MaxLanes = 50

// maxRateMarks is the most requests a lane marks one by one (a dot with
// its title); a busier lane draws the line only.
const maxRateMarks = 300

// A lane's geometry: the error rate over rateH pixels, the requests per
// bucket over countH below it, the time axis under both, the plot from
// x = laneL over laneW pixels.
const (
	laneL, laneW       = 64.0, 880.0
	laneT, rateH, gapH = 8.0, 72.0, 8.0
	countH             = 44.0
)

// breakerActivity draws, for each breaker that was ever open, its error
// rate before each request against its threshold, its requests, errors
// and refusals per bucket, its trips and recoveries and operators'
// openings; the breakers that never opened are counted in a line. Each
// lane is a figure with data-scope, data-requests, data-errors,
// data-refused and data-trips; a trip's mark has data-ts, data-rate and
// data-samples, a bucket's bar data-from, data-requests, data-errors and
// data-refused.
func breakerActivity(d *report.HTMLDoc, res *breaker.Result, ds []breaker.Decision) {
	acts := breaker.ActivityOf(res, ds)
	never := len(res.Scopes) - len(acts)
	d.F("<h2>Error rate of each breaker that opened</h2>\n")
	if len(acts) == 0 || !res.End.After(res.Start) {
		d.F("<p class=\"small\">No breaker opened: %s never did.</p>\n", report.Plural(len(res.Scopes), "scope"))
		return
	}
	d.F("<p class=\"small\">Per breaker: the error rate it read before each request (blue; errors / samples in its window) against its threshold (dashed red), the red mark where it tripped and the shaded span while it was open (red after a trip, grey by an operator) until it closed (green line: by itself, black: by an operator); below, its requests per %s (grey: answered, red: errors, dark: refused). Times in UTC.",
		bucketName(acts[0].Bucket))
	if never > 0 {
		d.F(" %s that never opened %s left out.", report.Plural(never, "breaker"), map[bool]string{true: "is", false: "are"}[never == 1])
	}
	if len(acts) > MaxLanes {
		d.F(" The first %d breakers that opened are drawn; %d more are in the table only.", MaxLanes, len(acts)-MaxLanes)
		acts = acts[:MaxLanes]
	}
	d.F("</p>\n")
	for i := range acts {
		breakerLane(d, res, &acts[i])
	}
}

// bucketName names a bucket size: "minute", "5 minutes", "hour", "day".
func bucketName(b time.Duration) string {
	switch {
	case b%(24*time.Hour) == 0:
		return plainUnit(int(b/(24*time.Hour)), "day")
	case b%time.Hour == 0:
		return plainUnit(int(b/time.Hour), "hour")
	}
	return plainUnit(int(b/time.Minute), "minute")
}

func plainUnit(n int, unit string) string {
	if n == 1 {
		return unit
	}
	return report.Plural(n, unit)
}

func breakerLane(d *report.HTMLDoc, res *breaker.Result, a *breaker.Activity) {
	s := a.Scope
	name := report.Printable(s.Scope.String())
	d.F("<figure class=\"lane\" data-scope=\"%s\" data-requests=\"%d\" data-errors=\"%d\" data-refused=\"%d\" data-trips=\"%d\">\n",
		report.HTMLEsc(name), s.Requests, s.Errors, s.Refused, len(s.Trips))
	d.F("<figcaption><b class=\"lane\" title=\"%s\">%s</b> %s, %s, %d refused; threshold %s over %d+ samples",
		report.HTMLEsc(name), report.HTMLEsc(report.Ellipsis(name, 60)), report.Plural(s.Requests, "request"), report.Plural(s.Errors, "error"), s.Refused,
		pct100(a.Rules.Rate), a.Rules.MinSamples)
	for _, t := range s.Trips {
		d.F(`<span class="tag fp">%s</span>`, report.HTMLEsc(fmt.Sprintf("tripped %s at %s of %d", ingest.FormatTime(t.TS), pct100(t.ErrorRate), t.Samples)))
	}
	d.F("</figcaption>\n")

	const W, H = laneL + laneW + 36, laneT + rateH + gapH + countH + 22
	span := float64(res.End.Sub(res.Start))
	x := func(t time.Time) float64 {
		return laneL + laneW*min(max(float64(t.Sub(res.Start))/span, 0), 1)
	}
	y := func(rate float64) float64 { return laneT + rateH*(1-rate) }
	cTop := laneT + rateH + gapH
	d.F(`<svg class="breaker-lane" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img">`+"\n",
		report.SVGNum(W), report.SVGNum(H), report.SVGNum(W), report.SVGNum(H))
	d.F("<title>%s: error rate and requests over time</title>\n", report.HTMLEsc(name))
	d.F(`<rect x="%s" y="%s" width="%s" height="%s" fill="#fbfcfd" stroke="#e3e6ea"/>`+"\n", report.SVGNum(laneL), report.SVGNum(laneT), report.SVGNum(laneW), report.SVGNum(rateH))
	d.F(`<rect x="%s" y="%s" width="%s" height="%s" fill="#fbfcfd" stroke="#e3e6ea"/>`+"\n", report.SVGNum(laneL), report.SVGNum(cTop), report.SVGNum(laneW), report.SVGNum(countH))
	report.TimeAxis(d, x, res.Start, res.End, laneT, cTop+countH, 9)
	for _, v := range []float64{0, 0.5, 1} {
		d.F(`<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", report.SVGNum(laneL-4), report.SVGNum(y(v)+4), strconv.Itoa(int(v*100))+"%")
	}
	d.F(`<text x="%s" y="%s" text-anchor="end">error rate</text>`+"\n", report.SVGNum(laneL-4), report.SVGNum(y(0.25)+4))

	// Open spans, cut where an operator closed the breaker or at the
	// capture's end: red after a trip, grey by an operator; a closing
	// inside the capture is marked by a line.
	for _, o := range openSpans(s) {
		fill := "#f5c4c4"
		if o.kind == "operator" {
			fill = "#d5d8dc"
		}
		x0, x1 := x(o.from), x(o.until)
		d.F(`<rect class="open" data-kind="%s" data-from="%s" data-until="%s" x="%s" y="%s" width="%s" height="%s" fill="%s" opacity="0.8"><title>%s</title></rect>`+"\n",
			o.kind, report.HTMLEsc(ingest.FormatTime(o.from)), report.HTMLEsc(ingest.FormatTime(o.until)),
			report.SVGNum(x0), report.SVGNum(laneT), report.SVGNum(max(x1-x0, 1.5)), report.SVGNum(rateH), fill, report.HTMLEsc(o.title))
		if o.until.After(res.End) {
			continue
		}
		stroke, what := "#2e7d32", "closes by itself at "
		if o.closedBy {
			stroke, what = "#1d232a", "closed by an operator at "
		}
		d.F(`<line class="recovery" data-ts="%s" x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="2"><title>%s</title></line>`+"\n",
			report.HTMLEsc(ingest.FormatTime(o.until)), report.SVGNum(x1), report.SVGNum(x1), report.SVGNum(laneT), report.SVGNum(laneT+rateH), stroke,
			report.HTMLEsc(what+ingest.FormatTime(o.until)))
	}
	d.F(`<line class="threshold" data-value="%s" x1="%s" x2="%s" y1="%s" y2="%s" stroke="#d62728" stroke-dasharray="5 4" stroke-width="1.3"><title>threshold %s (at least %d samples)</title></line>`+"\n",
		strconv.FormatFloat(a.Rules.Rate, 'f', -1, 64), report.SVGNum(laneL), report.SVGNum(laneL+laneW), report.SVGNum(y(a.Rules.Rate)), report.SVGNum(y(a.Rules.Rate)),
		pct100(a.Rules.Rate), a.Rules.MinSamples)

	// The rate: a step line, each request's rate held until the next
	// request; broken at a trip (the breaker reads nothing while open).
	kept := thinRates(a.Points, x)
	var path []string
	for i, k := range kept {
		p := a.Points[k]
		cmd := "L"
		if i == 0 || segmentStart(a.Points, k) {
			cmd = "M"
		} else {
			path = append(path, "H"+report.SVGNum(x(p.TS)))
		}
		path = append(path, cmd+report.SVGNum(x(p.TS))+","+report.SVGNum(y(p.Rate)))
	}
	if len(path) > 0 {
		d.F(`<path class="rate" d="%s" fill="none" stroke="#3b6fb6" stroke-width="1.5"><title>%s</title></path>`+"\n",
			strings.Join(path, " "), report.HTMLEsc(name+": error rate read before each request"))
	}
	if len(kept) <= maxRateMarks {
		for _, k := range kept {
			p := a.Points[k]
			if p.Trip {
				continue
			}
			d.F(`<circle cx="%s" cy="%s" r="1.8" fill="#3b6fb6"><title>%s</title></circle>`+"\n",
				report.SVGNum(x(p.TS)), report.SVGNum(y(p.Rate)), report.HTMLEsc(rateTitle(p)))
		}
	}
	for _, t := range s.Trips {
		d.F(`<circle class="trip" data-ts="%s" data-request="%d" data-rate="%s" data-samples="%d" cx="%s" cy="%s" r="5" fill="#d62728" stroke="#fff" stroke-width="1.5"><title>%s</title></circle>`+"\n",
			report.HTMLEsc(ingest.FormatTime(t.TS)), t.ScopeN, strconv.FormatFloat(t.ErrorRate, 'f', -1, 64), t.Samples,
			report.SVGNum(x(t.TS)), report.SVGNum(y(t.ErrorRate)),
			report.HTMLEsc(fmt.Sprintf("%s request %d: tripped at %s (%d errors of %d samples)", ingest.FormatTime(t.TS), t.ScopeN, pct100(t.ErrorRate), int(t.ErrorRate*float64(t.Samples)+0.5), t.Samples)))
	}

	// Requests per bucket, stacked: answered, errors, refused.
	top := 1
	for _, b := range a.Buckets {
		top = max(top, b.Requests)
	}
	d.F(`<text x="%s" y="%s" text-anchor="end">%d</text><text x="%s" y="%s" text-anchor="end">0</text>`+"\n",
		report.SVGNum(laneL-4), report.SVGNum(cTop+9), top, report.SVGNum(laneL-4), report.SVGNum(cTop+countH))
	d.F(`<text x="%s" y="%s" text-anchor="end">per %s</text>`+"\n", report.SVGNum(laneL-4), report.SVGNum(cTop+countH/2+4), bucketName(a.Bucket))
	for _, b := range a.Buckets {
		if b.Requests == 0 {
			continue
		}
		x0, x1 := x(b.From), x(b.From.Add(a.Bucket))
		w := max(x1-x0-1, 1)
		d.F(`<g class="bucket" data-from="%s" data-requests="%d" data-errors="%d" data-refused="%d"><title>%s</title>`+"\n",
			report.HTMLEsc(ingest.FormatTime(b.From)), b.Requests, b.Errors, b.Refused,
			report.HTMLEsc(fmt.Sprintf("%s – %s: %s, %s, %d refused", ingest.FormatTime(b.From), ingest.FormatTime(b.From.Add(a.Bucket)), report.Plural(b.Requests, "request"), report.Plural(b.Errors, "error"), b.Refused)))
		base := cTop + countH
		for _, part := range []struct {
			n    int
			fill string
		}{{b.Requests - b.Errors - b.Refused, "#c3cad3"}, {b.Errors, "#d62728"}, {b.Refused, "#4a5563"}} {
			if part.n == 0 {
				continue
			}
			h := countH * float64(part.n) / float64(top)
			d.F(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", report.SVGNum(x0), report.SVGNum(base-h), report.SVGNum(w), report.SVGNum(h), part.fill)
			base -= h
		}
		d.F("</g>\n")
	}
	d.F("</svg>\n</figure>\n")
}

// openSpan is a time a breaker was open.
type openSpan struct {
	from, until time.Time
	kind, title string // kind: "trip" or "operator"
	closedBy    bool   // an operator closed it at until
}

// openSpans are a scope's open spans, each cut where an operator closed
// the breaker before it would have closed by itself.
func openSpans(s *breaker.ScopeResult) []openSpan {
	var spans []openSpan
	for _, t := range s.Trips {
		spans = append(spans, openSpan{from: t.TS, until: t.Until, kind: "trip",
			title: fmt.Sprintf("open after the trip at %s: %d refused", ingest.FormatTime(t.TS), t.Refused)})
	}
	for _, m := range s.Manual {
		if m.Open {
			spans = append(spans, openSpan{from: m.TS, until: m.Until, kind: "operator",
				title: fmt.Sprintf("opened by an operator at %s (%s): %d refused", ingest.FormatTime(m.TS), report.Printable(m.Reason), m.Refused)})
		}
	}
	for i := range spans {
		o := &spans[i]
		for _, m := range s.Manual {
			if m.TS.After(o.from) && m.TS.Before(o.until) { // closed, or opened again
				o.until, o.closedBy = m.TS, !m.Open
				break
			}
		}
		o.title += ", until " + ingest.FormatTime(o.until)
	}
	return spans
}

// segmentStart reports whether the rate line starts again at p: after a
// trip, or after requests refused while the breaker was open (it read
// nothing then).
func segmentStart(pts []breaker.RatePoint, i int) bool {
	return i > 0 && (pts[i-1].Trip || pts[i].N > pts[i-1].N+1)
}

// rateTitle is a request's hover title on the rate line.
func rateTitle(p breaker.RatePoint) string {
	return fmt.Sprintf("%s request %d: error rate %s (%d errors of %d samples)", ingest.FormatTime(p.TS), p.N, pct100(p.Rate), p.Errors, p.Samples)
}

// thinRates returns the indices of the points the rate line is drawn
// through: every point when there are few; else, of the points that fall
// on one pixel column, the first and the highest rate, and every trip and
// start of a segment (segmentStart). A lane of a million requests stays a
// line of a few thousand points, and no peak, trip or break is lost.
func thinRates(pts []breaker.RatePoint, x func(time.Time) float64) []int {
	out := make([]int, 0, min(len(pts), 4*int(laneW)))
	if len(pts) <= 2*int(laneW) {
		for i := range pts {
			out = append(out, i)
		}
		return out
	}
	for i := 0; i < len(pts); {
		col := int(x(pts[i].TS))
		j, best := i, i
		for j < len(pts) && int(x(pts[j].TS)) == col {
			if pts[j].Rate > pts[best].Rate {
				best = j
			}
			j++
		}
		out = append(out, i)
		for k := i + 1; k < j; k++ {
			if k == best || pts[k].Trip || segmentStart(pts, k) {
				out = append(out, k)
			}
		}
		i = j
	}
	return out
}
