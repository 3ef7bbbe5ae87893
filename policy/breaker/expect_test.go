package breaker

import (
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/expect"
)

// parseExp reads an expectation file as check does with the loop
// detector (the default) and the breaker registered.
func parseExp(file, doc string) (*expect.Expectation, error) {
	return expect.Parse(file, []byte(doc), &expect.Schema{Policy: "loop", LoopSettings: true}, schema)
}

func scopesOf(t *testing.T, e *expect.Expectation) *expect.Outcomes {
	t.Helper()
	sc, ok := e.Part("scopes").(*expect.Outcomes)
	if !ok {
		t.Fatalf("no scopes in %+v", e)
	}
	return sc
}

// outcome is a scope's outcome as checkRun.scopes builds it.
func outcome(name string, requests int, trips []int, rate, threshold float64) expect.Outcome {
	first := 0
	if len(trips) > 0 {
		first = trips[0]
	}
	return expect.Outcome{Name: name, Requests: requests, Fired: trips, Desc: describeTrip(first, rate, threshold, len(trips))}
}

const scopeFile = `{"settings": {"policy": "breaker"},
 "scopes": {"acme/bot/default": {"tripped": true, "at_request": {"min": 10, "max": 12}, "trips": 1},
            "globex/bot/default": {"tripped": false}}}`

func TestScopes(t *testing.T) {
	e, err := parseExp("s.expect.json", scopeFile)
	if err != nil {
		t.Fatal(err)
	}
	sc := scopesOf(t, e)
	if len(sc.List) != 2 || sc.List[0].Name != "acme/bot/default" || sc.List[0].Line != 2 || sc.List[1].Line != 3 {
		t.Fatalf("scopes %+v", sc.List)
	}
	outs := []expect.Outcome{
		outcome("acme/bot/default", 20, []int{11}, 1, 0.5),
		outcome("globex/bot/default", 20, nil, 0, 0),
	}
	for _, r := range sc.Compare(outs) {
		if !r.Pass {
			t.Errorf("%s: %s", r.Name(), r.Reason)
		}
	}
	// The breaker tripped twice, first at 13, and tripped globex too.
	outs[0] = outcome("acme/bot/default", 20, []int{13, 40}, 1, 0.5)
	outs[1] = outcome("globex/bot/default", 20, []int{5}, 0.6, 0.5)
	res := sc.Compare(outs)
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
	if r := sc.Compare(outs[:1]); r[1].Pass || !strings.Contains(r[1].Reason, "no requests") {
		t.Errorf("missing scope: %+v", r[1])
	}

	changes := sc.Update(outs)
	if len(changes) != 2 {
		t.Fatalf("changes %q", changes)
	}
	for _, r := range sc.Compare(outs) {
		if !r.Pass {
			t.Errorf("after update: %s: %s", r.Name(), r.Reason)
		}
	}
	out, err := expect.Format(e)
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
		{`{"scopes": {"a/b/c": {"tripped": true}}}`, `scopes: "scopes" is the breaker's: it needs "settings": {"policy": "breaker"}`},
		{`{"settings": {"policy": "breaker", "profile": "spec"}, "totals": {"kills": 0}}`, `settings.profile: a loop detector setting: this file replays the breaker (its own settings go in settings.breaker)`},
		{`{"settings": {"policy": "breaker", "variant": "m22"}, "totals": {"kills": 0}}`, `settings.variant: the breaker policy has no variants`},
		{`{"settings": {"policy": "breaker", "breaker": {"kill_on_error_rate": "x"}}, "totals": {"kills": 0}}`, `settings.breaker.kill_on_error_rate`},
		{`{"settings": {"breaker": {}}, "totals": {"kills": 0}}`, `settings.breaker: breaker settings need "policy": "breaker"`},
		{`{"settings": {"policy": "breaker"}, "scopes": {"a/b/c": {"killed": true}}}`, `scopes.a/b/c.killed: unknown key (want "tripped", "at_request" or "trips")`},
		{`{"settings": {"policy": "breaker"}, "scopes": {"a/b/c": {"trips": 1}}}`, `scopes.a/b/c: missing key "tripped" (true or false)`},
		{`{"settings": {"policy": "breaker"}, "scopes": {"a/b/c": {"tripped": false, "trips": 1}}}`, `scopes.a/b/c.trips: given but "tripped" is false (leave it out)`},
		{`{"settings": {"policy": "breaker"}, "scopes": {"a/b/c": {"tripped": true, "at_request": 0}}}`, `a scope's requests are counted from 1`},
		{`{"settings": {"policy": "breaker"}, "scopes": {"": {"tripped": true}}}`, `empty scope`},
	} {
		_, err := parseExp("s.expect.json", tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// A breaker expectation's own settings are read, applied and written back.
func TestBreakerSettings(t *testing.T) {
	doc := `{"settings": {"policy": "breaker", "breaker": {"kill_on_error_rate": 0.3, "min_samples": 5, "error_window_minutes": 1.5}},
 "totals": {"kills": 0}}`
	e, err := parseExp("f", doc)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := checkConfig(e.Settings)
	if err != nil || cfg.Default.Rate != 0.3 || cfg.Default.MinSamples != 5 || cfg.Default.Window != 90*time.Second || cfg.Default.Recover != 30*time.Minute {
		t.Fatalf("BreakerConfig = %+v, %v", cfg.Default, err)
	}
	out, err := expect.Format(e)
	if err != nil {
		t.Fatal(err)
	}
	again, err := parseExp("f", string(out))
	if err != nil || string(again.Settings.Own) != string(e.Settings.Own) {
		t.Fatalf("round trip:\n%s\n%v", out, err)
	}
	if !strings.Contains(string(out), `"breaker": {`) {
		t.Errorf("Format lost the breaker settings:\n%s", out)
	}
}
