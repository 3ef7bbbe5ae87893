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

func (checker) Schema() *expect.Schema { return schema }

func (checker) Prepare(f *policy.CheckFile) (policy.CheckRun, error) {
	bcfg, err := checkConfig(f.Eff)
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

func (r *checkRun) Describe(a *analyze.AgentSummary, s *analyze.Summary) string {
	return describeAgent(a, s)
}

func (r *checkRun) Update(next *expect.Expectation) []string {
	if sc, ok := next.Part("scopes").(*expect.Outcomes); ok {
		c := &expect.Outcomes{Keys: sc.Keys, List: append([]expect.Agent(nil), sc.List...)}
		next.Parts["scopes"] = c
		return c.Update(r.scopes())
	}
	return nil
}

func (r *checkRun) Compare(exp *expect.Expectation) []expect.Result {
	if sc, ok := exp.Part("scopes").(*expect.Outcomes); ok {
		return sc.Compare(r.scopes())
	}
	return nil
}

// scopes are the breaker's scopes as check compares them.
func (r *checkRun) scopes() []expect.Outcome {
	res := r.pol.Result()
	var out []expect.Outcome
	for _, sc := range res.Scopes {
		o := expect.Outcome{Name: sc.Scope.String(), Requests: sc.Requests}
		for _, tr := range sc.Trips {
			o.Fired = append(o.Fired, tr.ScopeN)
		}
		rate := 0.0
		if len(sc.Trips) > 0 {
			rate = sc.Trips[0].ErrorRate
		}
		first := 0
		if len(o.Fired) > 0 {
			first = o.Fired[0]
		}
		o.Desc = describeTrip(first, rate, res.RateOf(sc.Scope.Agent), len(o.Fired))
		out = append(out, o)
	}
	return out
}
