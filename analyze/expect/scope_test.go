package expect

import (
	"strings"
	"testing"
	"time"
)

const scopeFile = `{"settings": {"policy": "breaker"},
 "scopes": {"acme/bot/default": {"tripped": true, "at_request": {"min": 10, "max": 12}, "trips": 1},
            "globex/bot/default": {"tripped": false}}}`

func TestScopes(t *testing.T) {
	e, err := Parse("s.expect.json", []byte(scopeFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Scopes) != 2 || e.Scopes[0].Name != "acme/bot/default" || e.Scopes[0].Line != 2 || e.Scopes[1].Line != 3 {
		t.Fatalf("scopes %+v", e.Scopes)
	}
	outs := []ScopeOutcome{
		{Scope: "acme/bot/default", Requests: 20, Trips: []int{11}, Rate: 1, Threshold: 0.5},
		{Scope: "globex/bot/default", Requests: 20},
	}
	for _, r := range CompareScopes(e, outs) {
		if !r.Pass {
			t.Errorf("%s: %s", r.Name(), r.Reason)
		}
	}
	// The breaker tripped twice, first at 13, and tripped globex too.
	outs[0].Trips = []int{13, 40}
	outs[1].Trips, outs[1].Rate, outs[1].Threshold = []int{5}, 0.6, 0.5
	res := CompareScopes(e, outs)
	want := []string{
		"tripped at request 13, expected 10–12; trips: 2, expected 1",
		"tripped at request 5 (error rate 60.0% ≥ 50%), expected never tripped",
	}
	for i, r := range res {
		if r.Pass || r.Reason != want[i] || !strings.HasPrefix(r.Name(), "scopes.") {
			t.Errorf("%d: %s pass %v reason %q, want %q", i, r.Name(), r.Pass, r.Reason, want[i])
		}
	}
	// A scope the capture does not have fails.
	if r := CompareScopes(e, outs[:1]); r[1].Pass || !strings.Contains(r[1].Reason, "no requests") {
		t.Errorf("missing scope: %+v", r[1])
	}

	changes := UpdateScopes(e, outs)
	if len(changes) != 2 {
		t.Fatalf("changes %q", changes)
	}
	for _, r := range CompareScopes(e, outs) {
		if !r.Pass {
			t.Errorf("after update: %s: %s", r.Name(), r.Reason)
		}
	}
	out, err := Format(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"tripped": true`, `"trips": 2`, `"at_request": {`, `"max": 13`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("formatted file lacks %s:\n%s", s, out)
		}
	}
}

func TestScopeParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"scopes": {"a/b/c": {"killed": true}}}`, `scopes.a/b/c.killed: unknown key (want "tripped", "at_request" or "trips")`},
		{`{"scopes": {"a/b/c": {"trips": 1}}}`, `scopes.a/b/c: missing key "tripped" (true or false)`},
		{`{"scopes": {"a/b/c": {"tripped": false, "trips": 1}}}`, `scopes.a/b/c.trips: given but "tripped" is false (leave it out)`},
		{`{"scopes": {"a/b/c": {"tripped": true, "at_request": 0}}}`, `a scope's requests are counted from 1`},
		{`{"scopes": {"": {"tripped": true}}}`, `empty scope`},
	} {
		_, err := Parse("s.expect.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// A breaker expectation's own settings are read, applied and written back.
func TestBreakerSettings(t *testing.T) {
	doc := `{"settings": {"policy": "breaker", "breaker": {"kill_on_error_rate": 0.3, "min_samples": 5, "error_window_minutes": 1.5}},
 "totals": {"kills": 0}}`
	e, err := Parse("f", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := e.Settings.BreakerConfig()
	if err != nil || cfg.Default.Rate != 0.3 || cfg.Default.MinSamples != 5 || cfg.Default.Window != 90*time.Second || cfg.Default.Recover != 30*time.Minute {
		t.Fatalf("BreakerConfig = %+v, %v", cfg.Default, err)
	}
	out, err := Format(e)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse("f", out)
	if err != nil || string(again.Settings.Breaker) != string(e.Settings.Breaker) {
		t.Fatalf("round trip:\n%s\n%v", out, err)
	}
	if !strings.Contains(string(out), `"breaker": {`) {
		t.Errorf("Format lost the breaker settings:\n%s", out)
	}
}
