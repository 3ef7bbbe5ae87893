package gateway

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/analyze/gateway"
)

// parseExp reads an expectation file as check does with the loop
// detector (the default) and the gateway registered.
func parseExp(file, doc string) (*expect.Expectation, error) {
	return expect.Parse(file, []byte(doc), &expect.Schema{Policy: "loop", LoopSettings: true}, schema)
}

const gatewayDoc = `{
  "settings": {"policy": "gateway", "variant": "spec", "gateway": {"rpm": 1, "max_incidents_per_hour": 2}},
  "http_status": {"200": 6, "429": {"min": 3}},
  "block_reason": {"rate_limit_rpm": 4, "killswitch": 0},
  "incidents": [
    {"tenant": "t", "trigger": "rate_limit", "calls": 1, "severity": "low", "status": "resolved",
     "started_at": "1970-01-01T00:04:59Z", "ended_at": "1970-01-01T00:19:59Z"},
    {"tenant": "t", "trigger": "rate_limit_overflow", "status": "open"}
  ]
}
`

// gatewayResult is a result written by hand: what TestSpecIncidents of
// analyze/gateway pins for its capture (6 forwarded, 4 refused with 429;
// one incident resolved 900 s after its only call, one overflow still
// open).
func gatewayResult() *gateway.Result {
	at := func(s int64) time.Time { return time.Unix(s, 0).UTC() }
	calls := func(n int) []gateway.IncidentCall { return make([]gateway.IncidentCall, n) }
	return &gateway.Result{
		ByStatus: map[int]int{200: 6, 429: 4},
		ByReason: map[string]int{"rate_limit_rpm": 4},
		Incidents: []*gateway.Incident{
			{Tenant: "t", Trigger: "rate_limit", Severity: "low", Status: "resolved", StartedAt: at(299), EndedAt: at(1199), Calls: calls(1)},
			{Tenant: "t", Trigger: "rate_limit_overflow", Severity: "low", Status: "open", StartedAt: at(1201), Calls: calls(2)},
		},
	}
}

func TestGatewayParseCompare(t *testing.T) {
	e, err := parseExp("g.expect.json", gatewayDoc)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := checkConfig(e.Settings)
	if err != nil || cfg.Variant != gateway.Spec || cfg.RPM != 1 || cfg.MaxIncidentsPerHour != 2 || cfg.MaxCostCents != 100 {
		t.Fatalf("GatewayConfig = %+v, %v", cfg, err)
	}
	if e.Settings.Profile != nil {
		t.Errorf("the gateway's profile is no loop profile: %v", e.Settings.Profile)
	}
	var lines []string
	for _, r := range compareSections(e, gatewayResult()) {
		lines = append(lines, r.Name()+" "+map[bool]string{true: "ok", false: "FAIL"}[r.Pass]+" "+r.Got+" | "+r.Reason)
	}
	want := []string{
		"http_status.200 ok 6 calls | ",
		"http_status.429 ok 4 calls | ",
		"block_reason.killswitch ok 0 calls | ",
		"block_reason.rate_limit_rpm ok 4 calls | ",
		"incidents ok 2 incidents | ",
		`incidents[0] ok "t" rate_limit (low): 1 call, 1970-01-01T00:04:59.000Z – 1970-01-01T00:19:59.000Z, resolved | `,
		`incidents[1] ok "t" rate_limit_overflow (low): 2 calls, 1970-01-01T00:20:01.000Z, open | `,
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("results\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}

	// Everything wrong at once.
	res := gatewayResult()
	res.ByStatus[429] = 2
	res.ByReason["killswitch"] = 1
	res.Incidents[0].Status, res.Incidents[0].EndedAt, res.Incidents[0].Severity = "open", time.Time{}, "medium"
	res.Incidents = append(res.Incidents, &gateway.Incident{Tenant: "u", Trigger: "freeze", Severity: "low", Status: "open", StartedAt: time.Unix(0, 0), Calls: make([]gateway.IncidentCall, 1)})
	lines = nil
	for _, r := range compareSections(e, res) {
		if !r.Pass {
			lines = append(lines, r.Name()+": "+r.Reason)
		}
	}
	want = []string{
		"http_status.429: 2 calls, expected ≥ 3",
		"block_reason.killswitch: 1 call, expected 0",
		`incidents: 3 incidents, expected 2: "t" rate_limit (medium): 1 call, 1970-01-01T00:04:59.000Z, open; "t" rate_limit_overflow (low): 2 calls, 1970-01-01T00:20:01.000Z, open; "u" freeze (low): 1 call, 1970-01-01T00:00:00.000Z, open`,
		`incidents[0]: severity medium, expected low; status open, expected resolved; ended_at none (open), expected 1970-01-01T00:19:59.000Z ("t" rate_limit (medium): 1 call, 1970-01-01T00:04:59.000Z, open)`,
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("failures\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

func TestGatewayUpdateFormat(t *testing.T) {
	e, err := parseExp("g.expect.json", gatewayDoc)
	if err != nil {
		t.Fatal(err)
	}
	res := gatewayResult()
	res.ByStatus[200] = 7
	res.Incidents = res.Incidents[:1]
	changes := updateSections(e, res)
	want := "http_status.200: 6 → 7\nincidents: 2 expected → the replay's 1, every field given"
	if got := strings.Join(changes, "\n"); got != want {
		t.Errorf("changes\n%s\nwant\n%s", got, want)
	}
	data, err := expect.Format(e)
	if err != nil {
		t.Fatal(err)
	}
	// Written by hand from the update above: keys sorted, the settings'
	// numbers as given, the one incident with every field.
	wantDoc := `{
  "block_reason": {
    "killswitch": 0,
    "rate_limit_rpm": 4
  },
  "http_status": {
    "200": 7,
    "429": {
      "min": 3
    }
  },
  "incidents": [
    {
      "calls": 1,
      "ended_at": "1970-01-01T00:19:59Z",
      "severity": "low",
      "started_at": "1970-01-01T00:04:59Z",
      "status": "resolved",
      "tenant": "t",
      "trigger": "rate_limit"
    }
  ],
  "settings": {
    "gateway": {
      "max_incidents_per_hour": 2,
      "rpm": 1
    },
    "policy": "gateway",
    "variant": "spec"
  }
}
`
	if string(data) != wantDoc {
		t.Errorf("Format\n%s\nwant\n%s", data, wantDoc)
	}
	// What Format writes parses back and holds.
	e2, err := parseExp("g.expect.json", string(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range compareSections(e2, res) {
		if !r.Pass {
			t.Errorf("after update: %s: %s", r.Name(), r.Reason)
		}
	}
}

func TestGatewayParseErrors(t *testing.T) {
	const gw = `"settings": {"policy": "gateway"}, `
	// Columns: the 1-based character where the offending value (or the
	// entry's "{") starts, counted by hand with Python's str.index.
	for _, tc := range []struct{ doc, want string }{
		{`{"http_status": {"423": 1}}`, `f:1:2: http_status: "http_status" is the gateway's: it needs "settings": {"policy": "gateway"}`},
		{`{"settings": {"gateway": {"rpm": 1}}, "totals": {"kills": 0}}`, `f:1:26: settings.gateway: gateway settings need "policy": "gateway"`},
		{`{"settings": {"policy": "gateway", "variant": "agentgazer"}, "incidents": []}`, `f:1:47: settings.variant: unknown gateway variant "agentgazer" (want "m22" or "spec")`},
		{`{"settings": {"policy": "gateway", "profile": "spec"}, "incidents": []}`, `f:1:36: settings.profile: a loop detector setting: this file replays the gateway (its "m22" or "spec" goes in "variant")`},
		{`{"settings": {"policy": "gateway", "window": 3}, "incidents": []}`, `f:1:36: settings.window: a loop detector setting: this file replays the gateway (its own settings go in settings.gateway)`},
		{`{"settings": {"policy": "gateway", "gateway": {"rpm": 0}}, "incidents": []}`, `f:1:55: settings.gateway.rpm: want an integer ≥ 1, got 0`},
		{`{"settings": {"policy": "gateway", "gateway": {"rpm": [1]}}, "incidents": []}`, `f:1:47: settings.gateway: a list is no setting here`},
		{`{` + gw + `"http_status": {"42": 1}}`, `f:1:53: http_status.42: not an HTTP status (want 100..599)`},
		{`{` + gw + `"http_status": {"200": -1}}`, `f:1:60: http_status.200: -1 is below 0 (a count)`},
		{`{` + gw + `"block_reason": {"": 1}}`, `f:1:54: block_reason.: empty block reason`},
		{`{` + gw + `"incidents": {}}`, `f:1:50: incidents: want a JSON array, got a JSON object`},
		{`{` + gw + `"incidents": [{"tenant": "t"}]}`, `f:1:51: incidents[0]: missing key "trigger"`},
		{`{` + gw + `"incidents": [{"tenant": "t", "trigger": "x", "severity": "huge"}]}`, `f:1:95: incidents[0].severity: unknown severity "huge" (want low, medium, high or critical)`},
		{`{` + gw + `"incidents": [{"tenant": "t", "trigger": "x", "calls": 0}]}`, `f:1:92: incidents[0].calls: 0 is below 1 (an incident has at least one call)`},
		{`{` + gw + `"incidents": [{"tenant": "t", "trigger": "x", "started_at": "10:00"}]}`, `f:1:97: incidents[0].started_at: not an RFC 3339 time (2026-03-01T10:00:00Z)`},
		{`{` + gw + `"incidents": [{"tenant": "t", "trigger": "x", "status": "open", "ended_at": "2026-03-01T10:00:00Z"}]}`, `f:1:51: incidents[0]: status "open" with an ended_at`},
		{`{` + gw + `"incidents": [{"tenant": "t", "trigger": "x", "sev": "low"}]}`, `f:1:83: incidents[0].sev: unknown key (want "tenant", "trigger", "calls", "severity", "status", "started_at" or "ended_at")`},
		{`{` + gw + `"http_status": {}}`, `f:1:1: expects nothing: every section is empty`},
	} {
		_, err := parseExp("f", tc.doc)
		var list expect.ErrorList
		if !errors.As(err, &list) || len(list) != 1 || list[0].Error() != tc.want {
			t.Errorf("%s\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
	// An empty list of incidents expects none: it is an expectation.
	if _, err := parseExp("f", `{`+gw+`"incidents": []}`); err != nil {
		t.Errorf("incidents []: %v", err)
	}
}
