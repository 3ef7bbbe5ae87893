package breaker

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/policy"
)

// checker is the breaker's part of `check`: an expectation's
// settings.breaker, and its "scopes" compared with the breaker's scopes.
type checker struct{}

func (checker) ProfileHelp() string                             { return "" }
func (checker) Profile(string, *expect.Settings) (string, bool) { return "", false }

func (checker) Prepare(f *policy.CheckFile) (policy.CheckRun, error) {
	// The loop detector's settings mean nothing to the breaker: refused
	// rather than listed as overrides and ignored.
	if err := f.RefuseLoopSettings("breaker", f.Profile != ""); err != nil {
		return nil, err
	}
	bcfg, err := f.Eff.BreakerConfig()
	var pol *breaker.Policy
	if err == nil {
		pol, err = breaker.NewPolicy(bcfg)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	cfg := analyze.NewConfig()
	cfg.Profile, cfg.Policies = analyze.ProfileUsage, []analyze.Policy{pol}
	return &checkRun{cfg, pol}, nil
}

type checkRun struct {
	cfg analyze.Config
	pol *breaker.Policy
}

func (r *checkRun) Config() analyze.Config { return r.cfg }
func (r *checkRun) Settings() string       { return SettingsLine(r.pol.Result()) }

func (r *checkRun) Update(next *expect.Expectation) []string {
	return expect.UpdateScopes(next, r.scopes())
}

func (r *checkRun) Compare(exp *expect.Expectation) []expect.Result {
	if len(exp.Scopes) == 0 {
		return nil
	}
	return expect.CompareScopes(exp, r.scopes())
}

// scopes are the breaker's scopes as check compares them.
func (r *checkRun) scopes() []expect.ScopeOutcome {
	res := r.pol.Result()
	var out []expect.ScopeOutcome
	for _, sc := range res.Scopes {
		o := expect.ScopeOutcome{Scope: sc.Scope.String(), Requests: sc.Requests, Threshold: res.RateOf(sc.Scope.Agent)}
		for _, tr := range sc.Trips {
			o.Trips = append(o.Trips, tr.ScopeN)
		}
		if len(sc.Trips) > 0 {
			o.Rate = sc.Trips[0].ErrorRate
		}
		out = append(out, o)
	}
	return out
}
