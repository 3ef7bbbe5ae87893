package breaker

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

type req struct {
	at                      time.Duration
	tenant, agent, workflow string
	status                  int
}

func run(t *testing.T, cfg Config, reqs []req) ([]Decision, *Result) {
	t.Helper()
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ds []Decision
	for i, r := range reqs {
		rec := &ingest.Record{Pos: ingest.Pos{File: "b.jsonl", N: int64(i + 1)}, TS: t0.Add(r.at),
			Tenant: r.tenant, Agent: r.agent, Workflow: r.workflow, Status: r.status}
		d, ok := b.Step(rec, false)
		if !ok {
			t.Fatalf("request %d: no decision", i+1)
		}
		ds = append(ds, d)
	}
	return ds, b.Finish()
}

func series(agent string, start, every time.Duration, statuses ...int) []req {
	var out []req
	for i, s := range statuses {
		out = append(out, req{at: start + time.Duration(i)*every, agent: agent, status: s})
	}
	return out
}

func repeat(n, status int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = status
	}
	return out
}

func firstTrip(ds []Decision) int {
	for _, d := range ds {
		if d.Action == ActionTrip {
			return d.ScopeN
		}
	}
	return 0
}

// Storm after warm-up: 10 successes, then errors, one a second. Before
// request r (> 10) the counters hold r−1 outcomes, r−11 of them errors:
// (r−11)/(r−1) ≥ 0.5 first at r = 21, at exactly 50 %.
func TestStormAfterWarmup(t *testing.T) {
	ds, res := run(t, NewConfig(), series("a", 0, time.Second, append(repeat(10, 200), repeat(20, 503)...)...))
	if got := firstTrip(ds); got != 21 {
		t.Fatalf("tripped at %d, want 21", got)
	}
	d := ds[20]
	if d.Samples != 20 || d.Errors != 10 || d.Reason != "Kill switch activated - error rate 50% exceeds 50%" {
		t.Errorf("trip %+v", d)
	}
	// Every later request (within 30 minutes) is refused and not counted.
	for _, d := range ds[21:] {
		if d.Action != ActionBlocked || d.Counted || d.Reason != "Kill switch active - workflow temporarily disabled" {
			t.Fatalf("request %d: %+v", d.ScopeN, d)
		}
	}
	if s := res.Scopes[0]; s.Refused != 10 || len(s.Trips) != 1 || !s.Open {
		t.Errorf("scope %+v", s)
	}
}

// Early errors under min_samples: 9 errors leave 9 samples (< 10): the
// 10th request is allowed; before the 11th, 10 errors of 10: 100 %.
func TestEarlyErrorsUnderMinSamples(t *testing.T) {
	ds, _ := run(t, NewConfig(), series("a", 0, time.Second, repeat(12, 500)...))
	if got := firstTrip(ds); got != 11 || ds[10].ErrorRate != 1 {
		t.Fatalf("tripped at %d (%+v), want 11 at 100%%", got, ds[10])
	}
}

// A slow drip, one error every 4 minutes, window 5 minutes, min_samples 2:
// refresh keeps the counter alive (each INCR re-sets its TTL) and trips at
// the 3rd request (2 errors counted); sliding never counts more than one
// error in a trailing 5 minutes; fixed expires the counter 5 minutes after
// it was created, so it never holds 2 when a request comes.
func TestSlowDrip(t *testing.T) {
	cfg := NewConfig()
	cfg.Default.MinSamples = 2
	for ttl, want := range map[CounterTTL]int{TTLRefresh: 3, TTLSliding: 0, TTLFixed: 0} {
		cfg.TTL = ttl
		ds, _ := run(t, cfg, series("a", 0, 4*time.Minute, repeat(8, 500)...))
		if got := firstTrip(ds); got != want {
			t.Errorf("%s: tripped at %d, want %d", ttl, got, want)
		}
	}
}

// Recovery after 30 minutes does not reset the counters: with the error
// counter still alive (refresh) the breaker re-trips at once.
func TestRetripAfterRecovery(t *testing.T) {
	cfg := NewConfig()
	cfg.Default.Recover = 2 * time.Minute
	ds, res := run(t, cfg, series("a", 0, 30*time.Second, repeat(16, 500)...))
	// Trip at request 11 (t = 300 s, 10 errors). Open until 420 s:
	// requests 12–14 (330–390 s) refused; request 15 at 420 s finds it
	// closed, its counter still 10 errors (last INCR at 270 s, TTL 5 min):
	// it trips again.
	if ds[10].Action != ActionTrip || ds[14].Action != ActionTrip || len(res.Scopes[0].Trips) != 2 {
		t.Fatalf("trips %+v", res.Scopes[0].Trips)
	}
	for _, i := range []int{11, 12, 13} {
		if ds[i].Action != ActionBlocked {
			t.Errorf("request %d: %s", i+1, ds[i].Action)
		}
	}
}

// One breaker per (tenant, agent, workflow): the failing workflow of one
// agent, or the same agent name in another tenant, are not affected.
func TestScopes(t *testing.T) {
	var reqs []req
	for i := 0; i < 15; i++ {
		at := time.Duration(i) * time.Second
		reqs = append(reqs,
			req{at, "acme", "bot", "refund", 500},
			req{at, "acme", "bot", "", 200},
			req{at, "globex", "bot", "refund", 200})
	}
	_, res := run(t, NewConfig(), reqs)
	want := map[string]int{"acme/bot/default": 0, "acme/bot/refund": 1, "globex/bot/refund": 0}
	for _, s := range res.Scopes {
		if len(s.Trips) != want[s.Scope.String()] {
			t.Errorf("%s: %d trips", s.Scope, len(s.Trips))
		}
	}
}

// Several scopes of one tenant tripping within 2 minutes are one group.
func TestCorrelatedTrips(t *testing.T) {
	var reqs []req
	for i := 0; i < 12; i++ {
		for _, a := range []string{"a", "b", "c"} {
			reqs = append(reqs, req{time.Duration(i) * time.Second, "globex", a, "", 503})
		}
	}
	_, res := run(t, NewConfig(), reqs)
	if len(res.Groups) != 1 || len(res.Groups[0].Trips) != 3 || res.Groups[0].Key != "tenant" {
		t.Fatalf("groups %+v", res.Groups)
	}
	if want := "3 scopes of tenant globex tripped within a second, all on 503: likely an upstream outage, not the agents"; res.Groups[0].Text != want {
		t.Errorf("text %q, want %q", res.Groups[0].Text, want)
	}
}

// A group's span is said in whole seconds rounded up: trips 1.4 s apart
// are "within 2s", 2 s apart too, and never "within 1s".
func TestCorrelatedTripsSpan(t *testing.T) {
	for _, c := range []struct {
		lag  time.Duration
		want string
	}{{1400 * time.Millisecond, "within 2s"}, {2 * time.Second, "within 2s"}, {time.Second, "within a second"}, {61500 * time.Millisecond, "within 1m2s"}} {
		var reqs []req
		for i := 0; i < 12; i++ {
			at := time.Duration(i) * time.Second
			reqs = append(reqs, req{at, "globex", "a", "", 503}, req{at + c.lag, "globex", "b", "", 503})
		}
		sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].at < reqs[j].at })
		_, res := run(t, NewConfig(), reqs)
		if len(res.Groups) != 1 || !strings.Contains(res.Groups[0].Text, "2 scopes of tenant globex tripped "+c.want+",") {
			t.Errorf("lag %v: groups %+v, want %q", c.lag, res.Groups, c.want)
		}
	}
}

func TestRulesValidate(t *testing.T) {
	for _, r := range []Rules{
		{Enabled: true, Rate: 0, Window: time.Minute, MinSamples: 1},
		{Enabled: true, Rate: 1.5, Window: time.Minute, MinSamples: 1},
		{Enabled: true, Rate: 0.5, Window: 0, MinSamples: 1},
		{Enabled: true, Rate: 0.5, Window: time.Minute, MinSamples: 0},
		{Enabled: true, Rate: 0.5, Window: time.Minute, MinSamples: 1, Recover: -time.Minute},
	} {
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	if _, err := ParseStatusSet("5xx,429"); err != nil {
		t.Error(err)
	}
	if s, _ := ParseStatusSet("5xx,429"); s.IsError(404) || !s.IsError(429) || !s.IsError(503) {
		t.Error("5xx,429")
	}
}
