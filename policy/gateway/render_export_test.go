package gateway

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"github.com/killswitch/killswitch/internal/htmltest"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/gatewaylog"
	"github.com/killswitch/killswitch/report"
)

// gatewaySample is a hand-made gateway result over 10:00–11:00:
//   - acme: the tenant frozen 10:15, unfrozen 10:45; its key k2 frozen at
//     10:30 and still frozen at the end; one incident 10:06–10:36
//     (resolved, medium, 12 calls); refused calls at 10:15:00 and
//     10:15:20 (423) and 10:20 (400 max_tokens_per_request); one
//     forwarded call at 10:00.
//   - b<x>: an open incident from 10:54; one call refused (429) at 11:00,
//     the capture's end.
//   - zeta: one forwarded call only: no lane.
func gatewaySample() (*gateway.Result, []gateway.Decision) {
	at := func(m, s int) time.Time {
		return time.Date(2026, 3, 2, 10, m, s, 0, time.UTC)
	}
	pos := func(line int) ingest.Pos { return ingest.Pos{File: "g.jsonl", Kind: ingest.PosLine, N: int64(line)} }
	res := &gateway.Result{
		Variant: "spec", Config: gateway.DefaultConfig(gateway.Spec), Start: at(0, 0), End: at(60, 0), Requests: 6,
		ByStatus: map[int]int{200: 2, 400: 1, 423: 2, 429: 1},
		ByReason: map[string]int{"killswitch": 2, "max_tokens_per_request": 1, "rate_limit_rpm": 1},
		Tenants: []gateway.Totals{
			{Tenant: "acme", Requests: 4, Forwarded: 1, ByStatus: map[int]int{200: 1, 400: 1, 423: 2}, CostAvoidedCents: 1.5},
			{Tenant: "b<x>", Requests: 1, ByStatus: map[int]int{429: 1}, CostAvoidedCents: 0.25},
			{Tenant: "zeta", Requests: 1, Forwarded: 1, ByStatus: map[int]int{200: 1}},
		},
		Freezes: []gateway.FreezeEvent{
			{TS: at(15, 0), Source: pos(2), Entity: "tenant", EntityID: "acme", Tenant: "acme", Freeze: true, By: "ops", Reason: "runaway", Trigger: "manual"},
			{TS: at(30, 0), Source: pos(5), Entity: "key", EntityID: "k2", Tenant: "acme", Freeze: true, By: "ops", Reason: "leaked", Trigger: "manual"},
			{TS: at(45, 0), Source: pos(6), Entity: "tenant", EntityID: "acme", Tenant: "acme", Freeze: false, By: "ops", Trigger: "manual"},
		},
		Incidents: []*gateway.Incident{
			{ID: "i-1", Tenant: "acme", Title: "Traffic stopped: runaway", Severity: "medium", Status: "resolved", Trigger: "freeze",
				TriggerValue: "runaway", AutoAction: "freeze", Bucket: at(5, 0), StartedAt: at(6, 0), EndedAt: at(36, 0), ResolvedBy: "system_auto_resolve",
				Calls:  []gateway.IncidentCall{{Seq: 2, CallID: "c-2", Source: pos(3), TS: at(6, 0), Status: 423}},
				Events: []gateway.IncidentEvent{{TS: at(6, 0), Type: "incident_created", Description: "Incident created: Traffic stopped: runaway"}}},
			{ID: "i-2", Tenant: "b<x>", Title: "Rate limit triggered: >100 requests/minute", Severity: "low", Status: "open", Trigger: "rate_limit",
				StartedAt: at(54, 0), Calls: []gateway.IncidentCall{{Seq: 6, CallID: "c-6", Source: pos(9), TS: at(60, 0), Status: 429}}},
		},
		Rejected: []gateway.Rejected{{Seq: 7, Source: pos(10), Status: 422, Msg: "messages: missing"}},
		Warnings: []gateway.Warning{{Pos: pos(11), Msg: "key k9 is not frozen (the live API answers 404); nothing changes"}},
	}
	dec := func(seq int64, ts time.Time, tenant string, status int, reason string) gateway.Decision {
		return gateway.Decision{Seq: seq, TS: ts, Tenant: tenant, APIKeyID: "k1", Source: pos(int(seq)), Status: 200, HTTPStatus: status,
			Blocked: status != 200, BlockReason: reason, Model: "gpt-4o-mini"}
	}
	ds := []gateway.Decision{
		dec(1, at(0, 0), "acme", 200, ""),
		dec(2, at(15, 0), "acme", 423, "killswitch"),
		dec(3, at(15, 20), "acme", 423, "killswitch"),
		dec(4, at(20, 0), "acme", 400, "max_tokens_per_request"),
		dec(5, at(30, 0), "zeta", 200, ""),
		dec(6, at(60, 0), "b<x>", 429, "rate_limit_rpm"),
	}
	ds[3].Guardrails = []gateway.GuardrailDecision{{ID: "dg-002", Name: "max_tokens_per_request", Action: "block", Reason: "max_tokens (20000) exceeds max (16000)"}}
	ds[3].CostCents, ds[3].HasCost = 1.2, true
	return res, ds
}

// The timeline, with x = 230 + 720 × the fraction of the hour and each
// tenant's lane 58 pixels high (3 rows of 16 and a gap of 10) from y = 6:
//   - acme's tenant freeze 10:15–10:45 → x 410, width 360; key k2 from
//     10:30, cut at 11:00 → x 590, width 360, frozen at the end.
//   - acme's incident 10:06–10:36 → x 302, width 360, on its second row
//     (y 6 + 16 + 1 = 23).
//   - refused calls in 120 columns of 30 s (6 px): 10:15:00 and 10:15:20
//     both fall in column 30 (x 410, n 2, the busiest: full height 14 at
//     y 6 + 47 − 14 = 39); 10:20 in column 40 (x 470, n 1: height 7 at
//     y 46). The forwarded calls are not drawn.
//   - b<x>'s lane from y 64: its open incident from 10:54 → x 878, cut at
//     the end (width 72, y 81); its call at 11:00 is in the last column
//     (119 → x 944, height 7 at y 64 + 47 − 7 = 104).
//   - zeta refused nothing, froze nothing: no lane.
//
// The reasons' bars: killswitch 2 → 300 px, the others 1 → 150, by
// count then name.
func TestGatewayHTML(t *testing.T) {
	res, ds := gatewaySample()
	var b bytes.Buffer
	if err := HTML(&b, res, ds); err != nil {
		t.Fatal(err)
	}
	els := htmltest.Parse(t, b.Bytes())
	var lanes, marks, bars []string
	for _, e := range els {
		a := e.Attrs
		switch {
		case e.Name == "g" && a["data-tenant"] != "":
			lanes = append(lanes, a["data-tenant"])
		case e.Name == "rect" && a["data-kind"] == "freeze":
			marks = append(marks, strings.Join([]string{"freeze", a["data-entity"], a["data-id"], a["data-from"], a["data-until"], a["data-frozen-at-end"], a["x"], a["y"], a["width"]}, " "))
		case e.Name == "rect" && a["data-kind"] == "incident":
			marks = append(marks, strings.Join([]string{"incident", a["data-incident"], a["data-trigger"], a["data-severity"], a["data-calls"], a["data-status"], a["data-from"], a["data-until"], a["x"], a["y"], a["width"]}, " "))
		case e.Name == "rect" && a["data-kind"] == "refused":
			marks = append(marks, strings.Join([]string{"refused", a["data-from"], a["data-until"], a["data-n"], a["data-statuses"], a["x"], a["y"], a["width"], a["height"]}, " "))
		case e.Name == "rect" && a["data-reason"] != "":
			bars = append(bars, a["data-reason"]+" "+a["data-n"]+" "+a["width"])
		}
	}
	if strings.Join(lanes, ",") != "acme,b<x>" {
		t.Errorf("lanes %q, want acme and b<x>", lanes)
	}
	want := []string{
		"freeze tenant acme 2026-03-02T10:15:00.000Z 2026-03-02T10:45:00.000Z false 410.0 7.0 360.0",
		"freeze key k2 2026-03-02T10:30:00.000Z 2026-03-02T11:00:00.000Z true 590.0 7.0 360.0",
		"incident i-1 freeze medium 1 resolved 2026-03-02T10:06:00.000Z 2026-03-02T10:36:00.000Z 302.0 23.0 360.0",
		"refused 2026-03-02T10:15:00.000Z 2026-03-02T10:15:30.000Z 2 423:2 410.0 39.0 6.0 14.0",
		"refused 2026-03-02T10:20:00.000Z 2026-03-02T10:20:30.000Z 1 400:1 470.0 46.0 6.0 7.0",
		"incident i-2 rate_limit low 1 open 2026-03-02T10:54:00.000Z 2026-03-02T11:00:00.000Z 878.0 81.0 72.0",
		"refused 2026-03-02T10:59:30.000Z 2026-03-02T11:00:00.000Z 1 429:1 944.0 104.0 6.0 7.0",
	}
	if strings.Join(marks, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline\n%s\nwant\n%s", strings.Join(marks, "\n"), strings.Join(want, "\n"))
	}
	if got := strings.Join(bars, ","); got != "killswitch 2 300.0,max_tokens_per_request 1 150.0,rate_limit_rpm 1 150.0" {
		t.Errorf("reason bars %q", got)
	}
	// The time axis: ticks every 10 minutes over the hour (x = 230 + 720
	// × minutes/60), the first naming the day and UTC.
	var ticks []string
	for _, e := range els {
		if e.Name == "text" && e.Attrs["class"] == "tick" {
			ticks = append(ticks, e.Attrs["x"]+" "+e.Attrs["data-t"])
		}
	}
	if got, want := strings.Join(ticks, ","), "230.0 2026-03-02T10:00:00Z,350.0 2026-03-02T10:10:00Z,470.0 2026-03-02T10:20:00Z,590.0 2026-03-02T10:30:00Z,710.0 2026-03-02T10:40:00Z,830.0 2026-03-02T10:50:00Z,950.0 2026-03-02T11:00:00Z"; got != want {
		t.Errorf("ticks %s, want %s", got, want)
	}
	for _, e := range htmltest.Untitled(els) {
		t.Errorf("a <%s> %v has no title", e.Name, e.Attrs)
	}
	page := b.String()
	for _, w := range []string{
		"variant spec: 6 calls, 2026-03-02T10:00:00.000Z – 2026-03-02T11:00:00.000Z",
		"answered 2×200 1×400 2×423 1×429",
		"<td>2</td><td class=\"l\">2026-03-02T10:06:00.000Z</td><td>423</td><td class=\"l\">g.jsonl:3</td>", // the incident's request
		"2026-03-02T10:06:00.000Z incident_created: Incident created: Traffic stopped: runaway",
		"call 7 (g.jsonl:10): HTTP 422: messages: missing",
		"2026-03-02T10:45:00.000Z tenant acme unfrozen by ops (g.jsonl:6)",
		"g.jsonl:11: key k9 is not frozen",
		"b&lt;x&gt;",
		">Mar 2 10:00 UTC</text>",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("the page has no %q", w)
		}
	}
}

// A capture of one instant, or with nothing refused or frozen, has no
// timeline; the page is still whole.
func TestGatewayHTMLNoTimeline(t *testing.T) {
	res := &gateway.Result{Variant: "m22", Config: gateway.DefaultConfig(gateway.M22), ByStatus: map[int]int{}, ByReason: map[string]int{}}
	var b bytes.Buffer
	if err := HTML(&b, res, nil); err != nil {
		t.Fatal(err)
	}
	for _, e := range htmltest.Parse(t, b.Bytes()) {
		if e.Name == "svg" {
			t.Errorf("a chart without data")
		}
	}
}

// The JSON document holds what the text report shows, with empty lists
// as [] and nulls where the value is absent.
func TestGatewayJSON(t *testing.T) {
	res, _ := gatewaySample()
	var b bytes.Buffer
	if err := JSON(&b, res); err != nil {
		t.Fatal(err)
	}
	var doc gatewayJSONDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Policy != "gateway" || doc.Variant != "spec" || doc.Settings.RPM != 100 || doc.Settings.MaxCostCents != 100 ||
		*doc.Start != "2026-03-02T10:00:00.000Z" || doc.ByStatus["423"] != 2 || doc.ByReason["killswitch"] != 2 {
		t.Errorf("head %+v", doc)
	}
	if len(doc.Tenants) != 3 || doc.Tenants[0].APIKeyID != nil || doc.Keys == nil || len(doc.Keys) != 0 {
		t.Errorf("totals %+v / %+v", doc.Tenants, doc.Keys)
	}
	if len(doc.Freezes) != 3 || doc.Freezes[2].Action != "unfreeze" || doc.Freezes[1].Entity != "key" {
		t.Errorf("freezes %+v", doc.Freezes)
	}
	in := doc.Incidents
	if len(in) != 2 || *in[0].EndedAt != "2026-03-02T10:36:00.000Z" || in[1].EndedAt != nil || in[1].ResolvedBy != nil ||
		in[0].Requests[0].Source != "g.jsonl:3" || in[1].Events == nil {
		t.Errorf("incidents %+v", in)
	}
	if len(doc.Rejected) != 1 || doc.Rejected[0].Status != 422 || len(doc.Warnings) != 1 || doc.States == nil {
		t.Errorf("rejected %+v, warnings %+v, states %v", doc.Rejected, doc.Warnings, doc.States)
	}
}

// One CSV row per call, in order, with why it was refused.
func TestGatewayCSV(t *testing.T) {
	_, ds := gatewaySample()
	var b bytes.Buffer
	if err := CSV(&b, ds); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || strings.Join(rows[0], ",") != strings.Join(gatewayCSVHeader, ",") {
		t.Fatalf("rows %q", rows)
	}
	want := "4,2026-03-02T10:20:00.000Z,acme,k1,g.jsonl:4,gpt-4o-mini,200,400,true,max_tokens_per_request,max_tokens (20000) exceeds max (16000),1.2,"
	if got := strings.Join(rows[4], ","); got != want {
		t.Errorf("row 4\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(rows[2], ","); got != "2,2026-03-02T10:15:00.000Z,acme,k1,g.jsonl:2,gpt-4o-mini,200,423,true,killswitch,tenant or key frozen,," {
		t.Errorf("row 2: %s", got)
	}
}

// A cost estimate is whole cents per million tokens, so it is exact at 6
// decimals: 0.24599999999999997 (binary noise of 246000/1e6) is 0.246 in
// the decision records and the CSV; 0.245955 (245955/1e6) keeps its 6.
func TestCostEstimateRounded(t *testing.T) {
	_, ds := gatewaySample()
	ds[3].CostCents = 0.24599999999999997
	ds[4].CostCents, ds[4].HasCost = 0.24595499999999998, true
	var j, c bytes.Buffer
	if err := DecisionsJSONL(&j, ds); err != nil {
		t.Fatal(err)
	}
	if err := CSV(&c, ds); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"cost_estimate_cents":0.246,`, `"cost_estimate_cents":0.245955,`} {
		if !strings.Contains(j.String(), want) {
			t.Errorf("jsonl lacks %s:\n%s", want, j.String())
		}
	}
	for _, want := range []string{",0.246,", ",0.245955,"} {
		if !strings.Contains(c.String(), want) {
			t.Errorf("csv lacks %s:\n%s", want, c.String())
		}
	}
}

// Counts read as English at one: "1 call", "1 differs", "1 bad row".
func TestCountsSingular(t *testing.T) {
	res, _ := gatewaySample()
	res.Requests = 1
	var b bytes.Buffer
	if err := Text(&b, res, report.TextOptions{Width: 100}); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); first != "Gateway replay — variant spec: 1 call" {
		t.Errorf("replay title %q", first)
	}
	for _, c := range []struct {
		v    gateway.Verification
		want string
	}{
		{gateway.Verification{Calls: 1, Differ: 1, Bad: make([]*gatewaylog.Call, 1)}, "1 call, 0 verified, 1 differs, 1 bad row"},
		{gateway.Verification{Calls: 2, Verified: 2}, "2 calls, 2 verified, 0 differ, 0 bad rows"},
	} {
		if got := verifyCounts(&c.v); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
