package expect

import (
	"fmt"
	"strconv"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/internal/jsontree"
)

// BreakerConfig returns the breaker configuration the settings name: the
// defaults with the rules of settings.breaker.
func (s Settings) BreakerConfig() (breaker.Config, error) {
	cfg := breaker.NewConfig()
	if s.Breaker != nil {
		d, n, err := jsontree.Parse("settings.breaker", s.Breaker, 8, "breaker settings")
		if err != nil {
			return cfg, err
		}
		cfg.Default = breaker.ParsePatch(d, n, "settings.breaker").Apply(cfg.Default)
		if err := d.Err(); err != nil {
			return cfg, err
		}
	}
	return cfg, cfg.Validate()
}

// ScopeOutcome is what the error-rate breaker did to one scope in a
// replay, as the "scopes" of an expectation are checked against it.
type ScopeOutcome struct {
	Scope    string // tenant/agent/workflow, as breaker.Scope renders it
	Requests int
	// Trips holds the scope's request number (from 1) of each trip, in
	// order.
	Trips []int
	// Rate and Threshold are the first trip's error rate and the rate it
	// reached (fractions), for messages.
	Rate, Threshold float64
}

// DescribeScope says what the breaker did to a scope: "tripped at request
// 21 (error rate 50.0% ≥ 50%)", with ", 2 trips" when it tripped more
// than once, or "never tripped".
func DescribeScope(o ScopeOutcome) string {
	if len(o.Trips) == 0 {
		return scopeWords.not
	}
	s := fmt.Sprintf("tripped at request %d (error rate %s%% ≥ %s%%)", o.Trips[0],
		strconv.FormatFloat(o.Rate*100, 'f', 1, 64), strconv.FormatFloat(o.Threshold*100, 'f', -1, 64))
	if n := len(o.Trips); n > 1 {
		s += ", " + strconv.Itoa(n) + " trips"
	}
	return s
}

// CompareScopes checks the expectation's scopes against the breaker's
// outcomes: one Result per scope, in e's order (by name). A scope without
// requests in the capture fails.
func CompareScopes(e *Expectation, outs []ScopeOutcome) []Result {
	by := scopesByName(outs)
	var res []Result
	for _, want := range e.Scopes {
		r := Result{Scope: want.Name, Line: want.Line, Want: describeWantW(want, scopeWords)}
		got, ok := by[want.Name]
		if !ok || got.Requests == 0 {
			r.Got = "no requests in the capture"
			r.Reason = "no requests of this scope in the capture (scopes read tenant/agent/workflow)"
			res = append(res, r)
			continue
		}
		r.Got = DescribeScope(got)
		r.Reason = judge(want, scopeWords, got.Trips, r.Got, r.Want)
		r.Pass = r.Reason == ""
		res = append(res, r)
	}
	return res
}

func scopesByName(outs []ScopeOutcome) map[string]ScopeOutcome {
	m := make(map[string]ScopeOutcome, len(outs))
	for _, o := range outs {
		m[o.Scope] = o
	}
	return m
}

// UpdateScopes changes e's scopes so that they hold for outs, as Update
// does for agents, and returns the changes made, one line each.
func UpdateScopes(e *Expectation, outs []ScopeOutcome) []string {
	by := scopesByName(outs)
	var changes []string
	for i := range e.Scopes {
		a := &e.Scopes[i]
		got, ok := by[a.Name]
		if !ok || got.Requests == 0 {
			changes = append(changes, "scopes."+a.Name+": no requests in the capture: left as is (remove it by hand if the scope is gone)")
			continue
		}
		before := describeWantW(*a, scopeWords)
		updateOutcome(a, got.Trips)
		if after := describeWantW(*a, scopeWords); after != before {
			changes = append(changes, "scopes."+a.Name+": "+before+" → "+after)
		}
	}
	return changes
}
