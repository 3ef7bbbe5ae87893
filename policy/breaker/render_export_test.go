package breaker

import (
	"bytes"
	"encoding/json"
	"github.com/killswitch/killswitch/internal/htmltest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// breakerSample is a hand-made result: the capture spans 10:00–11:00;
// scope a trips at 10:15 (open until 10:45), scope b is opened by an
// operator at 10:30 until 12:00 (past the end), scope c never opens.
func breakerSample() *breaker.Result {
	at := func(m int) time.Time {
		return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(m) * time.Minute)
	}
	return &breaker.Result{
		Config: breaker.NewConfig(), Start: at(0), End: at(60), Requests: 30, Trips: 1, Refused: 7,
		Scopes: []*breaker.ScopeResult{
			{Scope: breaker.Scope{Tenant: "acme", Agent: "a", Workflow: "default"}, Requests: 10, Forwarded: 8, Errors: 6, Refused: 2,
				Trips: []breaker.Trip{{TS: at(15), ScopeN: 9, Seq: 9, ErrorRate: 0.75, Samples: 8, Until: at(45), Refused: 2, Statuses: map[int]int{503: 6}}}},
			{Scope: breaker.Scope{Tenant: "acme", Agent: "b<x>", Workflow: "default"}, Requests: 10, Forwarded: 5, Refused: 5, Open: true, OpenUntil: at(120),
				Manual: []breaker.Manual{{TS: at(30), Open: true, Until: at(120), Reason: "incident 42", Refused: 5}}},
			{Scope: breaker.Scope{Agent: "c", Workflow: "default"}, Requests: 10, Forwarded: 10},
		},
	}
}

// breakerReplay replays, from 10:00: scope acme/a answers 10 times and
// fails 10 times, a request a minute, trips at its 21st (10:20: 10 errors
// of 10 samples, 100%, since its successes expired at 10:14, 5 minutes
// after the last one refreshed them), refuses its 22nd (10:21) and closes by itself at
// 10:50; an operator opens acme/b<x> at 10:30 for an hour (past the
// end), refusing its request at 10:40; scope c answers once, at 11:00,
// and never opens.
func breakerReplay(t *testing.T) (*breaker.Result, []breaker.Decision) {
	t.Helper()
	b, err := breaker.New(breaker.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	at := func(m int) time.Time { return time.Date(2026, 3, 2, 10, m, 0, 0, time.UTC) }
	var ds []breaker.Decision
	step := func(m int, tenant, agent string, status int) {
		d, ok := b.Step(&ingest.Record{Pos: ingest.Pos{File: "b.jsonl", N: int64(len(ds) + 1)}, TS: at(m), Tenant: tenant, Agent: agent, Status: status}, false)
		if !ok {
			t.Fatalf("no decision at minute %d", m)
		}
		ds = append(ds, d)
	}
	for m := 0; m < 22; m++ {
		status := 200
		if m >= 10 {
			status = 500
		}
		if m == 10 {
			step(m, "acme", "b<x>", 200)
		}
		step(m, "acme", "a", status)
	}
	b.Control(&ingest.Record{TS: at(30), Tenant: "acme", Agent: "b<x>", Control: &ingest.Control{Event: ingest.ControlBreakerOpen, Duration: time.Hour, Reason: "incident 42"}})
	step(40, "acme", "b<x>", 200)
	step(60, "", "c", 200)
	return b.Finish(), ds
}

// The page charts the breakers that opened, one lane each, with the
// numbers of the table: a's trip at 10:20 on the hour's axis (x = 64 +
// 880 × 20/60 = 357.3, y = 8 + 72 × (1 − 1) = 8), its recovery at 10:50
// (x = 797.3); b's operator span from 10:30 (x = 504) cut at 11:00 (width
// 440); c is counted as left out. Every mark has a hover title.
func TestBreakerHTML(t *testing.T) {
	res, ds := breakerReplay(t)
	var b bytes.Buffer
	if err := HTML(&b, res, ds); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	els := htmltest.Parse(t, b.Bytes())
	var lanes []string
	for _, e := range htmltest.Find(els, "figure", "lane") {
		lanes = append(lanes, e.Attrs["data-scope"]+" "+e.Attrs["data-requests"]+" "+e.Attrs["data-errors"]+" "+e.Attrs["data-refused"]+" "+e.Attrs["data-trips"])
	}
	if want := "acme/a/default 22 10 2 1,acme/b<x>/default 2 0 1 0"; strings.Join(lanes, ",") != want {
		t.Errorf("lanes %q, want %q", lanes, want)
	}
	if !strings.Contains(page, "1 breaker that never opened is left out.") {
		t.Error("the breaker that never opened is not counted")
	}
	trips := htmltest.Find(els, "circle", "trip")
	if len(trips) != 1 || trips[0].Attrs["cx"] != "357.3" || trips[0].Attrs["cy"] != "8.0" || trips[0].Attrs["data-rate"] != "1" ||
		trips[0].Attrs["data-samples"] != "10" || trips[0].Attrs["data-ts"] != "2026-03-02T10:20:00.000Z" {
		for _, tr := range trips {
			t.Errorf("trip mark %v", tr.Attrs)
		}
	}
	if r := htmltest.Find(els, "line", "recovery"); len(r) != 1 || r[0].Attrs["x1"] != "797.3" {
		t.Errorf("recovery marks %+v, want one at 10:50", r)
	}
	var spans []string
	for _, e := range htmltest.Find(els, "rect", "open") {
		spans = append(spans, e.Attrs["data-kind"]+" "+e.Attrs["x"]+" "+e.Attrs["width"])
	}
	if want := "trip 357.3 440.0,operator 504.0 440.0"; strings.Join(spans, ",") != want {
		t.Errorf("open spans %q, want %q", spans, want)
	}
	var sum [3]int
	for _, g := range htmltest.Find(els, "g", "bucket") {
		if g.Chart.Attrs["class"] != "breaker-lane" {
			continue
		}
		for k, a := range []string{"data-requests", "data-errors", "data-refused"} {
			n, _ := strconv.Atoi(g.Attrs[a])
			sum[k] += n
		}
	}
	if sum != [3]int{24, 10, 3} {
		t.Errorf("the bars add up to %v requests, errors, refused; want 24, 10, 3 (a's and b's)", sum)
	}
	// Hover titles: every circle, open span and bucket has one.
	for _, mark := range []string{`<circle `, `<rect class="open"`, `<g class="bucket"`} {
		n, titled := strings.Count(page, mark), 0
		for _, part := range strings.Split(page, mark)[1:] {
			if end := strings.Index(part, ">"); strings.HasPrefix(part[end+1:], "<title>") {
				titled++
			}
		}
		if n == 0 || titled != n {
			t.Errorf("%s: %d of %d marks have a title", mark, titled, n)
		}
	}
	if !strings.Contains(page, "incident 42") {
		t.Error("the operator's reason is missing")
	}
	// Ticks at round times: every 10 minutes over the hour, in UTC.
	var ticks []string
	for _, e := range els {
		if e.Name == "text" && e.Attrs["class"] == "tick" && e.Chart == htmltest.Find(els, "svg", "breaker-lane")[0] {
			ticks = append(ticks, e.Attrs["data-t"])
		}
	}
	if len(ticks) != 7 || ticks[0] != "2026-03-02T10:00:00Z" || ticks[1] != "2026-03-02T10:10:00Z" {
		t.Errorf("ticks %q, want 10:00 to 11:00 every 10 minutes", ticks)
	}
}

// The JSON document round-trips and holds what the table shows.
func TestBreakerJSON(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, breakerSample()); err != nil {
		t.Fatal(err)
	}
	var doc breakerJSONDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Settings.ErrorStatus != "4xx,5xx" || doc.Settings.ErrorRate != 0.5 || doc.Settings.MinSamples != 10 {
		t.Errorf("settings %+v", doc.Settings)
	}
	if len(doc.Scopes) != 3 || len(doc.Scopes[0].Trips) != 1 || doc.Scopes[0].Trips[0].Statuses["503"] != 6 {
		t.Fatalf("scopes %+v", doc.Scopes)
	}
	m := doc.Scopes[1].Operators
	if len(m) != 1 || m[0].Action != "open" || *m[0].Reason != "incident 42" || *m[0].Until != "2026-03-02T12:00:00.000Z" {
		t.Errorf("operators %+v", m)
	}
	if !doc.Scopes[1].AtEnd.Open || doc.Scopes[2].Trips == nil || doc.Scopes[2].AtEnd.SuccessExpires != nil {
		t.Errorf("at_end / empty lists: %+v", doc.Scopes[1:])
	}
}

func TestStatusSetString(t *testing.T) {
	for in, want := range map[string]string{"4xx,5xx": "4xx,5xx", "5xx,429": "5xx,429", "503,5xx,429,404": "5xx,404,429", "500": "500"} {
		s, err := breaker.ParseStatusSet(in)
		if err != nil {
			t.Fatal(err)
		}
		if s.String() != want {
			t.Errorf("%q: %q, want %q", in, s.String(), want)
		}
	}
}

// The Tenants section is there when a record named a tenant, and not as a
// heading over "(none)" alone.
func TestTenantsSection(t *testing.T) {
	for _, c := range []struct {
		tenants []breaker.TenantTotals
		want    bool
	}{
		{nil, false},
		{[]breaker.TenantTotals{{Tenant: "", Scopes: 3, Requests: 30}}, false},
		{[]breaker.TenantTotals{{Tenant: "acme", Scopes: 2, Requests: 20}}, true},
		{[]breaker.TenantTotals{{Tenant: ""}, {Tenant: "acme"}}, true},
	} {
		res := breakerSample()
		res.Tenants = c.tenants
		var b bytes.Buffer
		if err := Text(&b, res, report.TextOptions{Width: 100}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "\nTenants\n"); got != c.want {
			t.Errorf("tenants %+v: section %v, want %v:\n%s", c.tenants, got, c.want, b.String())
		}
	}
}
