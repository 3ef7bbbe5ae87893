package gateway

import (
	"encoding/csv"
	"fmt"
	"github.com/killswitch/killswitch/report"
	"io"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
)

// The gateway replay as data: one JSON document (JSON), one CSV row
// per call (CSV), and one self-contained HTML page (HTML).
// Every format carries the values of the text report; times are RFC 3339
// UTC as in the decision records, costs in cents.

type gatewayJSONDoc struct {
	Policy    string                `json:"policy"`
	Variant   string                `json:"variant"`
	Settings  gatewayJSONSettings   `json:"settings"`
	Start     *string               `json:"start"`
	End       *string               `json:"end"`
	Requests  int                   `json:"requests"`
	ByStatus  map[string]int        `json:"http_status"`
	ByReason  map[string]int        `json:"block_reason"`
	Tenants   []gatewayJSONTotals   `json:"tenants"`
	Keys      []gatewayJSONTotals   `json:"keys"`
	Freezes   []gatewayJSONFreeze   `json:"freezes"`
	States    []gatewayJSONState    `json:"state_at_end"`
	Incidents []gatewayJSONIncident `json:"incidents"`
	Rejected  []gatewayJSONRejected `json:"rejected_bodies"`
	Warnings  []gatewayJSONWarning  `json:"warnings"`
}

type gatewayJSONSettings struct {
	MaxCostCents        float64            `json:"max_cost_cents"`
	MaxTokens           int64              `json:"max_tokens"`
	RPM                 int                `json:"rpm"`
	SpikeRate           float64            `json:"spike_rate"`
	SpikeWindowSec      int64              `json:"spike_window_seconds"`
	SpikeMinSamples     int                `json:"spike_min_samples"`
	Budgets             map[string]float64 `json:"budgets"`
	DefaultBudgetCents  float64            `json:"default_budget_cents"`
	IncidentWindowSec   int64              `json:"incident_window_seconds"`
	AutoResolveSec      int64              `json:"auto_resolve_seconds"`
	MaxIncidentsPerHour int                `json:"max_incidents_per_hour"`
	SeverityMedium      int                `json:"severity_medium"`
	SeverityHigh        int                `json:"severity_high"`
	SeverityCritical    int                `json:"severity_critical"`
}

type gatewayJSONTotals struct {
	Tenant           string         `json:"tenant"`
	APIKeyID         *string        `json:"api_key_id,omitempty"`
	Requests         int            `json:"requests"`
	Forwarded        int            `json:"forwarded"`
	ByStatus         map[string]int `json:"http_status"`
	CostAvoidedCents float64        `json:"cost_avoided_cents"`
}

type gatewayJSONFreeze struct {
	TS       string `json:"ts"`
	Source   string `json:"source"`
	Action   string `json:"action"` // "freeze" | "unfreeze"
	Entity   string `json:"entity"`
	EntityID string `json:"entity_id"`
	Tenant   string `json:"tenant"`
	By       string `json:"by"`
	Reason   string `json:"reason"`
	Auto     bool   `json:"auto_triggered"`
	Trigger  string `json:"trigger_type"`
}

type gatewayJSONState struct {
	Entity     string  `json:"entity"`
	EntityID   string  `json:"entity_id"`
	Tenant     string  `json:"tenant"`
	Frozen     bool    `json:"is_frozen"`
	FrozenAt   *string `json:"frozen_at"`
	UnfrozenAt *string `json:"unfrozen_at"`
	Reason     string  `json:"freeze_reason"`
	Auto       bool    `json:"auto_triggered"`
	Trigger    string  `json:"trigger_type"`
}

type gatewayJSONIncident struct {
	ID           string             `json:"id"`
	Tenant       string             `json:"tenant"`
	Title        string             `json:"title"`
	Severity     string             `json:"severity"`
	Status       string             `json:"status"`
	Trigger      string             `json:"trigger_type"`
	TriggerValue string             `json:"trigger_value"`
	AutoAction   string             `json:"auto_action"`
	Bucket       string             `json:"bucket"`
	StartedAt    string             `json:"started_at"`
	EndedAt      *string            `json:"ended_at"`
	ResolvedBy   *string            `json:"resolved_by"`
	Calls        int                `json:"calls_affected"`
	CostCents    float64            `json:"cost_avoided_cents"`
	Events       []gatewayJSONEvent `json:"events"`
	Requests     []gatewayJSONCall  `json:"requests"`
}

type gatewayJSONEvent struct {
	TS          string `json:"ts"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

type gatewayJSONCall struct {
	Seq    int64  `json:"seq"`
	TS     string `json:"ts"`
	Status int    `json:"http_status"`
	Source string `json:"source"`
	CallID string `json:"call_id"`
}

type gatewayJSONRejected struct {
	Seq    int64  `json:"seq"`
	Source string `json:"source"`
	Status int    `json:"http_status"`
	Reason string `json:"reason"`
}

type gatewayJSONWarning struct {
	Source  string `json:"source"`
	Message string `json:"message"`
}

func gatewayTotalsJSON(ts []gateway.Totals, keys bool) []gatewayJSONTotals {
	out := []gatewayJSONTotals{}
	for _, t := range ts {
		jt := gatewayJSONTotals{Tenant: t.Tenant, Requests: t.Requests, Forwarded: t.Forwarded,
			ByStatus: report.StatusKeys(t.ByStatus), CostAvoidedCents: round4c(t.CostAvoidedCents)}
		if keys {
			k := t.APIKeyID
			jt.APIKeyID = &k
		}
		out = append(out, jt)
	}
	return out
}

// round4c rounds cents to 4 decimals, as the text report prints them: sums
// of float estimates would otherwise show their binary noise.
func round4c(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 4, 64), 64)
	return v
}

// gatewayJSONOf is the JSON shape of a gateway replay.
func gatewayJSONOf(res *gateway.Result) gatewayJSONDoc {
	c := res.Config
	budgets := c.Budgets
	if budgets == nil {
		budgets = map[string]float64{}
	}
	doc := gatewayJSONDoc{
		Policy: "gateway", Variant: res.Variant,
		Settings: gatewayJSONSettings{
			MaxCostCents: c.MaxCostCents, MaxTokens: c.MaxTokens, RPM: c.RPM, SpikeRate: c.SpikeRate,
			SpikeWindowSec: c.SpikeWindowSec, SpikeMinSamples: c.SpikeMinSamples, Budgets: budgets,
			DefaultBudgetCents: c.DefaultBudgetCents, IncidentWindowSec: c.IncidentWindowSec, AutoResolveSec: c.AutoResolveSec,
			MaxIncidentsPerHour: c.MaxIncidentsPerHour, SeverityMedium: c.SeverityMedium, SeverityHigh: c.SeverityHigh,
			SeverityCritical: c.SeverityCritical,
		},
		Start: report.TimeOrNull(res.Start), End: report.TimeOrNull(res.End), Requests: res.Requests,
		ByStatus: report.StatusKeys(res.ByStatus), ByReason: map[string]int{},
		Tenants: gatewayTotalsJSON(res.Tenants, false), Keys: gatewayTotalsJSON(res.Keys, true),
		Freezes: []gatewayJSONFreeze{}, States: []gatewayJSONState{}, Incidents: []gatewayJSONIncident{},
		Rejected: []gatewayJSONRejected{}, Warnings: []gatewayJSONWarning{},
	}
	for k, v := range res.ByReason {
		doc.ByReason[k] = v
	}
	for _, f := range res.Freezes {
		action := "unfreeze"
		if f.Freeze {
			action = "freeze"
		}
		doc.Freezes = append(doc.Freezes, gatewayJSONFreeze{TS: ingest.FormatTime(f.TS), Source: f.Source.String(), Action: action,
			Entity: f.Entity, EntityID: f.EntityID, Tenant: f.Tenant, By: f.By, Reason: f.Reason, Auto: f.Auto, Trigger: f.Trigger})
	}
	for _, s := range res.States {
		doc.States = append(doc.States, gatewayJSONState{Entity: s.Entity, EntityID: s.EntityID, Tenant: s.Tenant, Frozen: s.Frozen,
			FrozenAt: report.TimeOrNull(s.FrozenAt), UnfrozenAt: report.TimeOrNull(s.UnfrozenAt), Reason: s.Reason, Auto: s.Auto, Trigger: s.Trigger})
	}
	for _, in := range res.Incidents {
		ji := gatewayJSONIncident{ID: in.ID, Tenant: in.Tenant, Title: in.Title, Severity: in.Severity, Status: in.Status,
			Trigger: in.Trigger, TriggerValue: in.TriggerValue, AutoAction: in.AutoAction, Bucket: ingest.FormatTime(in.Bucket),
			StartedAt: ingest.FormatTime(in.StartedAt), EndedAt: report.TimeOrNull(in.EndedAt), Calls: len(in.Calls),
			CostCents: round4c(in.CostCents), Events: []gatewayJSONEvent{}, Requests: []gatewayJSONCall{}}
		if in.ResolvedBy != "" {
			r := in.ResolvedBy
			ji.ResolvedBy = &r
		}
		for _, ev := range in.Events {
			ji.Events = append(ji.Events, gatewayJSONEvent{TS: ingest.FormatTime(ev.TS), Type: ev.Type, Description: ev.Description})
		}
		for _, c := range in.Calls {
			ji.Requests = append(ji.Requests, gatewayJSONCall{Seq: c.Seq, TS: ingest.FormatTime(c.TS), Status: c.Status,
				Source: c.Source.String(), CallID: c.CallID})
		}
		doc.Incidents = append(doc.Incidents, ji)
	}
	for _, r := range res.Rejected {
		doc.Rejected = append(doc.Rejected, gatewayJSONRejected{Seq: r.Seq, Source: r.Source.String(), Status: r.Status, Reason: r.Msg})
	}
	for _, w := range res.Warnings {
		doc.Warnings = append(doc.Warnings, gatewayJSONWarning{Source: w.Pos.String(), Message: w.Msg})
	}
	return doc
}

// JSON writes the gateway replay as one JSON document: the
// settings, the answers by status and reason, the totals by tenant and
// key, the freezes and the state at the end, every incident with its
// events and requests, the rejected bodies and the warnings.
func JSON(w io.Writer, res *gateway.Result) error {
	return report.WriteJSON(w, gatewayJSONOf(res))
}

var gatewayCSVHeader = []string{"seq", "ts", "tenant", "api_key_id", "source", "model", "captured_status", "http_status",
	"was_blocked", "block_reason", "reason", "cost_estimate_cents", "incident_id"}

// CSV writes one row per call, in replay order: who sent it, what
// the capture answered and what the gateway answers, why (the failed
// guardrail's reason, or why the body is rejected) and the cost estimate.
func CSV(w io.Writer, ds []gateway.Decision) error {
	cw := csv.NewWriter(w)
	cw.Write(gatewayCSVHeader)
	for i := range ds {
		d := &ds[i]
		cost := ""
		if d.HasCost {
			cost = string(appendCents(nil, d.CostCents))
		}
		cw.Write([]string{strconv.FormatInt(d.Seq, 10), ingest.FormatTime(d.TS), d.Tenant, d.APIKeyID, d.Source.String(), d.Model,
			strconv.Itoa(d.Status), strconv.Itoa(d.HTTPStatus), strconv.FormatBool(d.Blocked), d.BlockReason, gatewayWhy(d), cost, d.IncidentID})
	}
	cw.Flush()
	return cw.Error()
}

// gatewayWhy is why a call was refused in words: the failed guardrail's
// reason, why the body is rejected, or "" when forwarded.
func gatewayWhy(d *gateway.Decision) string {
	if d.Invalid != "" {
		return d.Invalid
	}
	for _, g := range d.Guardrails {
		if !g.Passed && g.Name == d.BlockReason {
			return g.Reason
		}
	}
	switch d.HTTPStatus {
	case 423:
		return "tenant or key frozen"
	}
	return ""
}

// MaxLanes bounds the tenants drawn on the gateway page's timeline
// (by name); the tables list them all.
const MaxLanes = 100

// gatewayBins is how many columns a tenant's refused calls are counted in
// over the capture's span: a page stays small at any number of calls.
const gatewayBins = 120

// The timeline's geometry: lanes start at x = gwLeft and span gwWidth
// pixels over the capture; each tenant has three rows of gwRowH pixels
// (freezes, incidents, refused calls) and a gap of gwGap.
const (
	gwLeft, gwWidth = 230.0, 720.0
	gwRowH, gwGap   = 16.0, 10.0
	gwTop           = 6.0
)

// HTML writes the gateway replay as one self-contained page: the
// summary, a timeline per tenant (when a tenant or its keys were frozen,
// its incidents, and its refused calls counted in 120 columns over the
// capture), the refusals by reason, and the tables of the text report,
// each incident with its events and requests.
//
// The timeline's elements carry their data: each tenant's <g> data-tenant;
// a freeze span <rect data-kind="freeze"> data-entity, data-id, data-from,
// data-until (the capture's end when still frozen) and data-frozen-at-end;
// an incident span <rect data-kind="incident"> data-incident, data-trigger,
// data-severity, data-calls, data-from, data-until (the capture's end
// while open) and data-status; a column of refused calls <rect
// data-kind="refused"> data-from, data-until, data-n and data-statuses
// ("400:2 423:1"). The refusals chart's bars carry data-reason and data-n.
func HTML(w io.Writer, res *gateway.Result, ds []gateway.Decision) error {
	var d report.HTMLDoc
	title := "killswitch gateway replay"
	d.F("<h1>%s</h1>\n<p class=\"meta\">variant %s: %d calls", report.HTMLEsc(title), report.HTMLEsc(res.Variant), res.Requests)
	if !res.Start.IsZero() {
		d.F(", %s – %s", report.HTMLEsc(ingest.FormatTime(res.Start)), report.HTMLEsc(ingest.FormatTime(res.End)))
	}
	d.F("</p>\n<p class=\"meta\">answered %s; %d freezes and unfreezes, %d incidents, %d bodies rejected</p>\n",
		report.HTMLEsc(statusCounts(res.ByStatus)), len(res.Freezes), len(res.Incidents), len(res.Rejected))
	gatewayLanes(&d, res, ds)
	if len(res.ByReason) > 0 {
		d.F("<h2>Refusals by reason</h2>\n")
		gatewayReasonBars(&d, res.ByReason)
	}
	d.F("<h2>Calls by tenant and key</h2>\n<div class=\"scroll\">\n")
	report.HTMLTable(&d, gatewayTotalsHeader, gatewayTotalsRows(res), -1, 0, 3)
	d.F("</div>\n")
	if len(res.Freezes) > 0 {
		d.F("<h2>Freezes</h2>\n")
		report.HTMLList(&d, gatewayFreezeLines(res))
	}
	if len(res.Rejected) > 0 {
		d.F("<h2>Bodies the gateway rejects (%d)</h2>\n", len(res.Rejected))
		var lines []string
		for _, r := range res.Rejected {
			lines = append(lines, fmt.Sprintf("call %d (%s): HTTP %d: %s", r.Seq, r.Source, r.Status, report.Printable(r.Msg)))
		}
		report.HTMLList(&d, lines)
	}
	d.F("<h2>Incidents (%d)</h2>\n", len(res.Incidents))
	if len(res.Incidents) == 0 {
		d.F("<p>none</p>\n")
	}
	for _, in := range res.Incidents {
		end := "open"
		if !in.EndedAt.IsZero() {
			end = ingest.FormatTime(in.EndedAt) + " (" + in.ResolvedBy + ")"
		}
		d.F("<h3 id=\"incident-%s\">%s</h3>\n", report.HTMLEsc(in.ID), report.HTMLEsc(report.Printable(in.Title)))
		d.F("<p class=\"meta\">%s · %s, %s · tenant %s, trigger %s · from %s to %s · %s affected · cost avoided %.4f¢</p>\n",
			report.HTMLEsc(in.ID), report.HTMLEsc(in.Severity), report.HTMLEsc(in.Status), report.HTMLEsc(report.Printable(in.Tenant)), report.HTMLEsc(in.Trigger),
			report.HTMLEsc(ingest.FormatTime(in.StartedAt)), report.HTMLEsc(end), report.Plural(len(in.Calls), "call"), in.CostCents)
		var evs []string
		for _, ev := range in.Events {
			evs = append(evs, ingest.FormatTime(ev.TS)+" "+ev.Type+": "+report.Printable(ev.Description))
		}
		report.HTMLList(&d, evs)
		var calls [][]string
		for _, c := range in.Calls {
			calls = append(calls, []string{strconv.FormatInt(c.Seq, 10), ingest.FormatTime(c.TS), strconv.Itoa(c.Status), c.Source.String()})
		}
		report.HTMLTable(&d, []string{"call", "time", "answer", "position"}, calls, -1, 1, 3)
	}
	if len(res.Warnings) > 0 {
		d.F("<h2>Warnings</h2>\n")
		var lines []string
		for _, wn := range res.Warnings {
			lines = append(lines, wn.Pos.String()+": "+report.Printable(wn.Msg))
		}
		report.HTMLList(&d, lines)
	}
	return report.HTMLPage(w, title, d.String())
}

// gatewayLane is what one tenant's rows of the timeline show.
type gatewayLane struct {
	tenant  string
	freezes []gatewaySpan
	incs    []*gateway.Incident
	bins    [gatewayBins]map[int]int // status → refused calls, per column
	refused int
}

type gatewaySpan struct {
	entity, id  string
	from, until time.Time
	atEnd       bool // still frozen at the capture's end
}

// gatewayLanes draws one lane per tenant over the capture's span.
func gatewayLanes(d *report.HTMLDoc, res *gateway.Result, ds []gateway.Decision) {
	if !res.End.After(res.Start) {
		return
	}
	lanes := map[string]*gatewayLane{}
	lane := func(t string) *gatewayLane {
		l := lanes[t]
		if l == nil {
			l = &gatewayLane{tenant: t}
			lanes[t] = l
		}
		return l
	}
	// Freeze spans: each freeze until the unfreeze of the same entity, or
	// the capture's end.
	type ent struct{ kind, id string }
	open := map[ent]int{} // index in the tenant's freezes
	for _, f := range res.Freezes {
		l := lane(f.Tenant)
		k := ent{f.Entity, f.EntityID}
		if f.Freeze {
			open[k] = len(l.freezes)
			l.freezes = append(l.freezes, gatewaySpan{entity: f.Entity, id: f.EntityID, from: f.TS, until: res.End, atEnd: true})
		} else if i, ok := open[k]; ok {
			l.freezes[i].until, l.freezes[i].atEnd = f.TS, false
			delete(open, k)
		}
	}
	for _, in := range res.Incidents {
		lane(in.Tenant).incs = append(lane(in.Tenant).incs, in)
	}
	total := res.End.Sub(res.Start)
	for i := range ds {
		dc := &ds[i]
		if !dc.Refused() {
			continue
		}
		l := lane(dc.Tenant)
		b := min(int(mulDiv(uint64(dc.TS.Sub(res.Start)), gatewayBins, uint64(total))), gatewayBins-1)
		if l.bins[b] == nil {
			l.bins[b] = map[int]int{}
		}
		l.bins[b][dc.HTTPStatus]++
		l.refused++
	}
	names := make([]string, 0, len(lanes))
	for t, l := range lanes {
		if len(l.freezes) > 0 || len(l.incs) > 0 || l.refused > 0 {
			names = append(names, t)
		}
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	hidden := 0
	if len(names) > MaxLanes {
		hidden, names = len(names)-MaxLanes, names[:MaxLanes]
	}
	maxBin := 0
	for _, t := range names {
		for _, b := range lanes[t].bins {
			n := 0
			for _, c := range b {
				n += c
			}
			maxBin = max(maxBin, n)
		}
	}
	x := func(t time.Time) float64 {
		v := float64(t.Sub(res.Start)) / float64(total)
		return gwLeft + gwWidth*min(max(v, 0), 1)
	}
	laneH := 3*gwRowH + gwGap
	h := gwTop + laneH*float64(len(names)) + 14
	d.F("<h2>Timeline by tenant</h2>\n<figure>\n<figcaption>Over the capture (%s – %s), per tenant: when it or one of its keys was frozen (blue: the tenant, light blue: a key; cut at the end while frozen), its incidents (by severity), and its refused calls counted in %d columns (the bar's height: the column's count against the busiest column, %d).",
		report.HTMLEsc(ingest.FormatTime(res.Start)), report.HTMLEsc(ingest.FormatTime(res.End)), gatewayBins, maxBin)
	if hidden > 0 {
		d.F(" %d more tenants are not drawn (the first %d by name are).", hidden, MaxLanes)
	}
	d.F("</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\">\n",
		report.SVGNum(gwLeft+gwWidth+30), report.SVGNum(h), report.SVGNum(gwLeft+gwWidth+30), report.SVGNum(h))
	for i, t := range names {
		l := lanes[t]
		y := gwTop + laneH*float64(i)
		d.F("<g data-tenant=\"%s\"><title>%s</title>\n", report.HTMLEsc(report.Printable(t)),
			report.HTMLEsc(fmt.Sprintf("tenant %s: %s, %s, %s refused", report.Printable(t), report.Plural(len(l.freezes), "freeze"), report.Plural(len(l.incs), "incident"), report.Plural(l.refused, "call"))))
		d.F("<text class=\"lane\" x=\"4\" y=\"%s\">%s</text>\n", report.SVGNum(y+12), report.HTMLEsc(report.Ellipsis(report.Printable(t), 20)))
		for r, label := range []string{"freezes", "incidents", "refused calls"} {
			ry := y + gwRowH*float64(r)
			d.F("<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", report.SVGNum(gwLeft-6), report.SVGNum(ry+12), report.HTMLEsc(label))
			d.F("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#f6f8fa\"/>\n", report.SVGNum(gwLeft), report.SVGNum(ry+1), report.SVGNum(gwWidth), report.SVGNum(gwRowH-2))
		}
		for _, s := range l.freezes {
			fill := "#3b6fb6"
			if s.entity == "key" {
				fill = "#8fb3e0"
			}
			x0, x1 := x(s.from), x(s.until)
			until := ingest.FormatTime(s.until)
			if s.atEnd {
				until = "the end (still frozen)"
			}
			d.F("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" data-kind=\"freeze\" data-entity=\"%s\" data-id=\"%s\" data-from=\"%s\" data-until=\"%s\" data-frozen-at-end=\"%t\"><title>%s</title></rect>\n",
				report.SVGNum(x0), report.SVGNum(y+1), report.SVGNum(max(x1-x0, 1.5)), report.SVGNum(gwRowH-2), fill, report.HTMLEsc(s.entity), report.HTMLEsc(report.Printable(s.id)),
				report.HTMLEsc(ingest.FormatTime(s.from)), report.HTMLEsc(ingest.FormatTime(s.until)), s.atEnd,
				report.HTMLEsc(fmt.Sprintf("%s %s frozen from %s to %s", s.entity, report.Printable(s.id), ingest.FormatTime(s.from), until)))
		}
		for _, in := range l.incs {
			until := in.EndedAt
			if until.IsZero() || until.After(res.End) {
				until = res.End
			}
			x0, x1 := x(in.StartedAt), x(until)
			d.F("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" fill-opacity=\"0.8\" data-kind=\"incident\" data-incident=\"%s\" data-trigger=\"%s\" data-severity=\"%s\" data-calls=\"%d\" data-status=\"%s\" data-from=\"%s\" data-until=\"%s\"><title>%s</title></rect>\n",
				report.SVGNum(x0), report.SVGNum(y+gwRowH+1), report.SVGNum(max(x1-x0, 1.5)), report.SVGNum(gwRowH-2), severityFill(in.Severity), report.HTMLEsc(in.ID),
				report.HTMLEsc(in.Trigger), report.HTMLEsc(in.Severity), len(in.Calls), report.HTMLEsc(in.Status),
				report.HTMLEsc(ingest.FormatTime(in.StartedAt)), report.HTMLEsc(ingest.FormatTime(until)),
				report.HTMLEsc(fmt.Sprintf("incident %s (%s, %s, trigger %s) from %s to %s: %s", in.ID, in.Severity, in.Status, in.Trigger,
					ingest.FormatTime(in.StartedAt), ingest.FormatTime(until), report.Plural(len(in.Calls), "call"))))
		}
		colW := gwWidth / gatewayBins
		for b, m := range l.bins {
			if m == nil {
				continue
			}
			n := 0
			codes := make([]int, 0, len(m))
			for c, k := range m {
				n += k
				codes = append(codes, c)
			}
			sort.Ints(codes)
			parts := make([]string, len(codes))
			for j, c := range codes {
				parts[j] = fmt.Sprintf("%d:%d", c, m[c])
			}
			bh := (gwRowH - 2) * float64(n) / float64(maxBin)
			from := res.Start.Add(time.Duration(mulDiv(uint64(total), uint64(b), gatewayBins)))
			until := res.Start.Add(time.Duration(mulDiv(uint64(total), uint64(b+1), gatewayBins)))
			d.F("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#d62728\" data-kind=\"refused\" data-from=\"%s\" data-until=\"%s\" data-n=\"%d\" data-statuses=\"%s\"><title>%s</title></rect>\n",
				report.SVGNum(gwLeft+colW*float64(b)), report.SVGNum(y+2*gwRowH+gwRowH-1-bh), report.SVGNum(colW), report.SVGNum(bh),
				report.HTMLEsc(ingest.FormatTime(from)), report.HTMLEsc(ingest.FormatTime(until)), n, strings.Join(parts, " "),
				report.HTMLEsc(fmt.Sprintf("%s – %s: %s refused (status:count %s)", ingest.FormatTime(from), ingest.FormatTime(until), report.Plural(n, "call"), strings.Join(parts, " "))))
		}
		d.F("</g>\n")
	}
	report.TimeAxis(d, x, res.Start, res.End, gwTop, gwTop+laneH*float64(len(names))-gwGap, 9)
	d.F("</svg>\n</figure>\n")
}

// mulDiv is a×b/c rounded down, exact for any a, b ≤ c·2^64 / a (here a
// span of nanoseconds times at most gatewayBins): no overflow at any span.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c)
	return q
}

func severityFill(sev string) string {
	switch sev {
	case "critical":
		return "#7f0000"
	case "high":
		return "#d62728"
	case "medium":
		return "#e07b39"
	}
	return "#f2c14e"
}

// gatewayReasonBars draws the refusals by reason as horizontal bars, the
// longest (300 pixels) for the most frequent reason, by count then name.
func gatewayReasonBars(d *report.HTMLDoc, byReason map[string]int) {
	type kv struct {
		k string
		n int
	}
	var rs []kv
	top := 0
	for k, n := range byReason {
		rs = append(rs, kv{k, n})
		top = max(top, n)
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].n != rs[j].n {
			return rs[i].n > rs[j].n
		}
		return rs[i].k < rs[j].k
	})
	const left, width, rowH = 230.0, 300.0, 18.0
	h := rowH*float64(len(rs)) + 6
	d.F("<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\">\n",
		report.SVGNum(left+width+60), report.SVGNum(h), report.SVGNum(left+width+60), report.SVGNum(h))
	for i, r := range rs {
		y := 3 + rowH*float64(i)
		bw := width * float64(r.n) / float64(top)
		d.F("<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", report.SVGNum(left-6), report.SVGNum(y+12), report.HTMLEsc(report.Ellipsis(report.Printable(r.k), 34)))
		d.F("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#e07b39\" data-reason=\"%s\" data-n=\"%d\"><title>%s</title></rect>\n",
			report.SVGNum(left), report.SVGNum(y+2), report.SVGNum(bw), report.SVGNum(rowH-4), report.HTMLEsc(report.Printable(r.k)), r.n,
			report.HTMLEsc(report.Printable(r.k)+": "+report.Plural(r.n, "call")))
		d.F("<text class=\"v\" x=\"%s\" y=\"%s\">%d</text>\n", report.SVGNum(left+bw+4), report.SVGNum(y+12), r.n)
	}
	d.F("</svg>\n</figure>\n")
}
