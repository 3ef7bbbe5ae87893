package breaker

import (
	"bytes"
	"encoding/json"
	"github.com/killswitch/killswitch/internal/htmltest"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/breaker"
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

// The lanes: one per scope that was ever open, each open span placed on
// the capture's axis (x = 230 + 720 × fraction of the hour) and cut at
// its end: a's trip 10:15–10:45 → x 410 to 770; b's operator span from
// 10:30 → x 590 to 950 (cut at 11:00).
func TestBreakerHTML(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, breakerSample()); err != nil {
		t.Fatal(err)
	}
	els := htmltest.Parse(t, b.Bytes())
	var lanes []string
	type span struct{ kind, from, until, x, w string }
	var spans []span
	for _, e := range els {
		if e.Name == "g" && e.Attrs["data-scope"] != "" {
			lanes = append(lanes, e.Attrs["data-scope"])
		}
		if e.Name == "rect" && e.Attrs["data-kind"] != "" {
			spans = append(spans, span{e.Attrs["data-kind"], e.Attrs["data-from"], e.Attrs["data-until"], e.Attrs["x"], e.Attrs["width"]})
		}
	}
	if strings.Join(lanes, ",") != "acme/a/default,acme/b<x>/default" {
		t.Errorf("lanes %q, want the two scopes that were open", lanes)
	}
	want := []span{
		{"trip", "2026-03-02T10:15:00.000Z", "2026-03-02T10:45:00.000Z", "410.0", "360.0"},
		{"operator", "2026-03-02T10:30:00.000Z", "2026-03-02T12:00:00.000Z", "590.0", "360.0"},
	}
	if len(spans) != len(want) {
		t.Fatalf("spans %+v, want %+v", spans, want)
	}
	for i := range want {
		if spans[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, spans[i], want[i])
		}
	}
	if !strings.Contains(b.String(), "incident 42") {
		t.Error("the operator's reason is missing")
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
