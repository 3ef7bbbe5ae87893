package breaker

import (
	"encoding/csv"
	"github.com/killswitch/killswitch/report"
	"io"
	"strconv"

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
// summary, correlated trips, a lane per breaker that opened with its
// error rate against its threshold and its requests over time (from ds,
// the decisions of the same replay: see breakerActivity), and the tables
// of the text report.
func HTML(w io.Writer, res *breaker.Result, ds []breaker.Decision) error {
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
	breakerActivity(&d, res, ds)
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
