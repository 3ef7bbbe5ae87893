package breaker

import (
	"encoding/csv"
	"github.com/killswitch/killswitch/report"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/ingest"
)

// The breaker timeline as data: one JSON document (JSON), one CSV
// row per trip or untripped scope (CSV), and one self-contained
// HTML page (HTML). Every format carries the same values as the
// table; times are RFC 3339 UTC as in the decision records.

type breakerJSONDoc struct {
	Policy     string                `json:"policy"`
	Settings   breakerJSONSettings   `json:"settings"`
	Start      *string               `json:"start"`
	End        *string               `json:"end"`
	Requests   int                   `json:"requests"`
	Trips      int                   `json:"trips"`
	Refused    int                   `json:"refused"`
	Correlated []breakerJSONGroup    `json:"correlated"`
	Scopes     []breakerJSONScope    `json:"scopes"`
	Tenants    []breakerJSONTenant   `json:"tenants"`
	NoStatus   []breakerJSONNoStatus `json:"requests_without_status"`
}

type breakerJSONSettings struct {
	ErrorRate          float64                        `json:"kill_on_error_rate"`
	ErrorWindowMinutes float64                        `json:"error_window_minutes"`
	MinSamples         int                            `json:"min_samples"`
	AutoRecoverMinutes float64                        `json:"auto_recover_after_minutes"`
	CounterTTL         string                         `json:"counter_ttl"`
	ErrorStatus        string                         `json:"error_status"`
	GroupWithinSeconds float64                        `json:"correlated_within_seconds"`
	Agents             map[string]breakerJSONOverride `json:"agents,omitempty"`
}

type breakerJSONOverride struct {
	Enabled            bool    `json:"enabled"`
	ErrorRate          float64 `json:"kill_on_error_rate"`
	ErrorWindowMinutes float64 `json:"error_window_minutes"`
	MinSamples         int     `json:"min_samples"`
	AutoRecoverMinutes float64 `json:"auto_recover_after_minutes"`
}

type breakerJSONGroup struct {
	Key         string              `json:"key"`
	Value       string              `json:"value"`
	SpanSeconds float64             `json:"span_seconds"`
	Statuses    map[string]int      `json:"statuses"`
	Shared      map[string]string   `json:"shared,omitempty"`
	Text        string              `json:"text"`
	Trips       []breakerJSONGroupT `json:"trips"`
}

type breakerJSONGroupT struct {
	Scope string `json:"scope"`
	TS    string `json:"ts"`
}

type breakerJSONScope struct {
	Scope     string              `json:"scope"`
	Tenant    string              `json:"tenant"`
	Agent     string              `json:"agent"`
	Workflow  string              `json:"workflow"`
	Requests  int                 `json:"requests"`
	Forwarded int                 `json:"forwarded"`
	Errors    int                 `json:"errors"`
	Refused   int                 `json:"refused"`
	NoStatus  int                 `json:"requests_without_status"`
	Trips     []breakerJSONTrip   `json:"trips"`
	Operators []breakerJSONManual `json:"operators"`
	AtEnd     breakerJSONScopeEnd `json:"at_end"`
}

type breakerJSONTrip struct {
	TS         string         `json:"ts"`
	Request    int            `json:"request"`
	Seq        int64          `json:"seq"`
	Source     string         `json:"source"`
	ErrorRate  float64        `json:"error_rate"`
	Samples    int            `json:"samples"`
	RecoversAt string         `json:"recovers_at"`
	Refused    int            `json:"refused"`
	Provider   string         `json:"provider,omitempty"`
	Model      string         `json:"model,omitempty"`
	Endpoint   string         `json:"endpoint,omitempty"`
	Statuses   map[string]int `json:"statuses"`
}

type breakerJSONManual struct {
	TS      string  `json:"ts"`
	Source  string  `json:"source"`
	Action  string  `json:"action"` // "open" | "close"
	Until   *string `json:"until"`
	Reason  *string `json:"reason"`
	Refused int     `json:"refused"`
}

type breakerJSONScopeEnd struct {
	Open           bool    `json:"open"`
	OpenUntil      *string `json:"open_until"`
	Successes      int     `json:"successes"`
	Errors         int     `json:"errors"`
	SuccessExpires *string `json:"successes_expire"`
	ErrorExpires   *string `json:"errors_expire"`
}

type breakerJSONTenant struct {
	Tenant        string `json:"tenant"`
	Scopes        int    `json:"scopes"`
	ScopesTripped int    `json:"scopes_tripped"`
	Trips         int    `json:"trips"`
	Requests      int    `json:"requests"`
	Refused       int    `json:"refused"`
}

type breakerJSONNoStatus struct {
	File     string `json:"file"`
	Requests int    `json:"requests"`
}

// breakerJSONOf is the JSON shape of a breaker replay.
func breakerJSONOf(res *breaker.Result) breakerJSONDoc {
	c := res.Config
	doc := breakerJSONDoc{
		Policy: "breaker",
		Settings: breakerJSONSettings{
			ErrorRate: c.Default.Rate, ErrorWindowMinutes: c.Default.Window.Minutes(), MinSamples: c.Default.MinSamples,
			AutoRecoverMinutes: c.Default.Recover.Minutes(), CounterTTL: c.TTL.String(), ErrorStatus: c.Errors.String(),
			GroupWithinSeconds: c.GroupWithin.Seconds(),
		},
		Start: report.TimeOrNull(res.Start), End: report.TimeOrNull(res.End),
		Requests: res.Requests, Trips: res.Trips, Refused: res.Refused,
		Correlated: []breakerJSONGroup{}, Scopes: []breakerJSONScope{}, Tenants: []breakerJSONTenant{}, NoStatus: []breakerJSONNoStatus{},
	}
	if len(c.Agents) > 0 {
		doc.Settings.Agents = map[string]breakerJSONOverride{}
		for name, r := range c.Agents {
			doc.Settings.Agents[name] = breakerJSONOverride{Enabled: r.Enabled, ErrorRate: r.Rate, ErrorWindowMinutes: r.Window.Minutes(),
				MinSamples: r.MinSamples, AutoRecoverMinutes: r.Recover.Minutes()}
		}
	}
	for _, g := range res.Groups {
		jg := breakerJSONGroup{Key: g.Key, Value: g.Value, SpanSeconds: g.Span.Seconds(), Statuses: report.StatusKeys(g.Statuses), Text: g.Text}
		for _, kv := range g.Shared {
			if jg.Shared == nil {
				jg.Shared = map[string]string{}
			}
			jg.Shared[kv[0]] = kv[1]
		}
		for _, t := range g.Trips {
			jg.Trips = append(jg.Trips, breakerJSONGroupT{Scope: t.Scope.String(), TS: ingest.FormatTime(t.TS)})
		}
		doc.Correlated = append(doc.Correlated, jg)
	}
	for _, s := range res.Scopes {
		js := breakerJSONScope{
			Scope: s.Scope.String(), Tenant: s.Scope.Tenant, Agent: s.Scope.Agent, Workflow: s.Scope.Workflow,
			Requests: s.Requests, Forwarded: s.Forwarded, Errors: s.Errors, Refused: s.Refused, NoStatus: s.NoStatus,
			Trips: []breakerJSONTrip{}, Operators: []breakerJSONManual{},
			AtEnd: breakerJSONScopeEnd{Open: s.Open, Successes: s.Successes, Errors: s.ErrorCount},
		}
		if s.Open {
			js.AtEnd.OpenUntil = report.TimeOrNull(s.OpenUntil)
		}
		if s.Successes > 0 {
			js.AtEnd.SuccessExpires = report.TimeOrNull(s.SuccessExpires)
		}
		if s.ErrorCount > 0 {
			js.AtEnd.ErrorExpires = report.TimeOrNull(s.ErrorExpires)
		}
		for _, t := range s.Trips {
			js.Trips = append(js.Trips, breakerJSONTrip{
				TS: ingest.FormatTime(t.TS), Request: t.ScopeN, Seq: t.Seq, Source: t.Source.String(),
				ErrorRate: t.ErrorRate, Samples: t.Samples, RecoversAt: ingest.FormatTime(t.Until), Refused: t.Refused,
				Provider: t.Provider, Model: t.Model, Endpoint: t.Endpoint, Statuses: report.StatusKeys(t.Statuses),
			})
		}
		for _, m := range s.Manual {
			jm := breakerJSONManual{TS: ingest.FormatTime(m.TS), Source: m.Source.String(), Action: "close", Refused: m.Refused}
			if m.Open {
				jm.Action, jm.Until = "open", report.TimeOrNull(m.Until)
				r := m.Reason
				jm.Reason = &r
			}
			js.Operators = append(js.Operators, jm)
		}
		doc.Scopes = append(doc.Scopes, js)
	}
	for _, t := range res.Tenants {
		doc.Tenants = append(doc.Tenants, breakerJSONTenant{Tenant: t.Tenant, Scopes: t.Scopes, ScopesTripped: t.ScopesTripped,
			Trips: t.Trips, Requests: t.Requests, Refused: t.Refused})
	}
	for _, f := range res.NoStatus {
		doc.NoStatus = append(doc.NoStatus, breakerJSONNoStatus{File: f.File, Requests: f.N})
	}
	return doc
}

// JSON writes the breaker replay as one JSON document.
func JSON(w io.Writer, res *breaker.Result) error {
	return report.WriteJSON(w, breakerJSONOf(res))
}

var breakerCSVHeader = []string{"tenant", "agent", "workflow", "requests", "forwarded", "errors", "refused",
	"trip", "tripped_at", "request", "error_rate", "samples", "recovers_at", "refused_while_open", "source", "open_at_end"}

// CSV writes one row per trip, and one per scope that never
// tripped (its trip columns empty); scope columns repeat on every row so
// each row stands alone in a spreadsheet.
func CSV(w io.Writer, res *breaker.Result) error {
	cw := csv.NewWriter(w)
	cw.Write(breakerCSVHeader)
	for _, s := range res.Scopes {
		base := []string{s.Scope.Tenant, s.Scope.Agent, s.Scope.Workflow, strconv.Itoa(s.Requests), strconv.Itoa(s.Forwarded),
			strconv.Itoa(s.Errors), strconv.Itoa(s.Refused)}
		end := strconv.FormatBool(s.Open)
		if len(s.Trips) == 0 {
			cw.Write(append(append([]string(nil), base...), "", "", "", "", "", "", "", "", end))
			continue
		}
		for i, t := range s.Trips {
			cw.Write(append(append([]string(nil), base...), strconv.Itoa(i+1), ingest.FormatTime(t.TS), strconv.Itoa(t.ScopeN),
				strconv.FormatFloat(t.ErrorRate, 'f', -1, 64), strconv.Itoa(t.Samples), ingest.FormatTime(t.Until),
				strconv.Itoa(t.Refused), t.Source.String(), end))
		}
	}
	cw.Flush()
	return cw.Error()
}

// HTML writes the breaker replay as one self-contained page: the
// summary, correlated trips, a lane per scope showing when its breaker
// was open (trips red, operators' openings grey) over the capture, and
// the tables of the text report. Lanes carry data-scope, and each open
// span data-from / data-until (RFC 3339) and data-kind (trip|operator).
func HTML(w io.Writer, res *breaker.Result) error {
	var d report.HTMLDoc
	title := "killswitch circuit breaker replay"
	d.F("<h1>%s</h1>\n<p class=\"meta\">%s</p>\n", report.HTMLEsc(title), report.HTMLEsc(breakerTitle(res)))
	d.F("<p class=\"meta\">%s, %s, %d refused", report.Plural(res.Requests, "request"), report.Plural(res.Trips, "trip"), res.Refused)
	if !res.Start.IsZero() {
		d.F(", %s – %s", report.HTMLEsc(ingest.FormatTime(res.Start)), report.HTMLEsc(ingest.FormatTime(res.End)))
	}
	d.F("</p>\n")
	if len(res.Groups) > 0 {
		d.F("<h2>Correlated trips</h2>\n<div class=\"rec\">\n")
		for _, g := range res.Groups {
			d.F("<p>%s</p>\n", report.HTMLEsc(report.Printable(g.Text)))
		}
		d.F("</div>\n")
	}
	breakerLanes(&d, res)
	d.F("<h2>Breakers</h2>\n<div class=\"scroll\">\n")
	report.HTMLTable(&d, breakerScopeHeader, breakerScopeRows(res), -1, 0, 3)
	d.F("</div>\n")
	if manual := breakerManualLines(res); len(manual) > 0 {
		d.F("<h2>Operators</h2>\n")
		report.HTMLList(&d, manual)
	}
	d.F("<h2>Tenants</h2>\n")
	report.HTMLTable(&d, breakerTenantHeader, breakerTenantRows(res), -1, 0)
	return report.HTMLPage(w, title, d.String())
}

// breakerLanes draws, for each scope that was ever open, a lane over the
// capture's span with its open intervals (clipped at the capture's end).
func breakerLanes(d *report.HTMLDoc, res *breaker.Result) {
	type span struct {
		from, until time.Time
		kind        string
	}
	type lane struct {
		scope string
		spans []span
	}
	var lanes []lane
	for _, s := range res.Scopes {
		var l lane
		l.scope = s.Scope.String()
		for _, t := range s.Trips {
			l.spans = append(l.spans, span{t.TS, t.Until, "trip"})
		}
		for _, m := range s.Manual {
			if m.Open {
				l.spans = append(l.spans, span{m.TS, m.Until, "operator"})
			}
		}
		if len(l.spans) > 0 {
			sort.SliceStable(l.spans, func(i, j int) bool { return l.spans[i].from.Before(l.spans[j].from) })
			lanes = append(lanes, l)
		}
	}
	if len(lanes) == 0 || !res.End.After(res.Start) {
		return
	}
	const left, width, laneH = 230.0, 720.0, 18.0
	total := res.End.Sub(res.Start).Seconds()
	x := func(t time.Time) float64 {
		v := t.Sub(res.Start).Seconds() / total
		return left + width*min(max(v, 0), 1)
	}
	h := laneH*float64(len(lanes)) + 34
	d.F("<h2>When each breaker was open</h2>\n<figure>\n<figcaption>Open spans over the capture (%s – %s): red after a trip, grey by an operator; a span that runs past the end is cut there.</figcaption>\n",
		report.HTMLEsc(ingest.FormatTime(res.Start)), report.HTMLEsc(ingest.FormatTime(res.End)))
	d.F("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\">\n",
		report.SVGNum(left+width+10), report.SVGNum(h), report.SVGNum(left+width+10), report.SVGNum(h))
	for i, l := range lanes {
		y := 6 + laneH*float64(i)
		d.F("<g data-scope=\"%s\">\n<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", report.HTMLEsc(report.Printable(l.scope)), report.SVGNum(left-6), report.SVGNum(y+12), report.HTMLEsc(report.Ellipsis(report.Printable(l.scope), 34)))
		d.F("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#f6f8fa\"/>\n", report.SVGNum(left), report.SVGNum(y+2), report.SVGNum(width), report.SVGNum(laneH-4))
		for _, s := range l.spans {
			fill := "#d62728"
			if s.kind == "operator" {
				fill = "#8c8c8c"
			}
			x0, x1 := x(s.from), x(s.until)
			d.F("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" data-kind=\"%s\" data-from=\"%s\" data-until=\"%s\"/>\n",
				report.SVGNum(x0), report.SVGNum(y+2), report.SVGNum(max(x1-x0, 1.5)), report.SVGNum(laneH-4), fill, s.kind,
				report.HTMLEsc(ingest.FormatTime(s.from)), report.HTMLEsc(ingest.FormatTime(s.until)))
		}
		d.F("</g>\n")
	}
	axisY := 6 + laneH*float64(len(lanes)) + 14
	d.F("<text x=\"%s\" y=\"%s\">%s</text>\n", report.SVGNum(left), report.SVGNum(axisY), report.HTMLEsc(ingest.FormatTime(res.Start)))
	d.F("<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", report.SVGNum(left+width), report.SVGNum(axisY), report.HTMLEsc(ingest.FormatTime(res.End)))
	d.F("</svg>\n</figure>\n")
}
