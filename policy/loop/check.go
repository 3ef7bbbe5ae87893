package loop

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/policy"
)

// checker is the loop kill switch's part of `check`: the engine's
// per-agent outcomes are all it compares.
type checker struct{}

func (checker) ProfileHelp() string { return analyze.ProfileNames() + " for the loop detector" }

func (checker) Profile(name string, over *expect.Settings) (string, bool) {
	p, err := analyze.ParseProfile(name)
	if err != nil {
		return "", false
	}
	over.Profile = p
	return p.String(), true
}

func (checker) Prepare(f *policy.CheckFile) (policy.CheckRun, error) {
	if f.Over.Profile == nil && f.Profile != "" {
		return nil, fmt.Errorf("%s: --profile %s is a %s profile: this file replays the loop detector (want %s)", f.Path, f.Profile, policy.List(f.ProfileOf), analyze.ProfileNames())
	}
	if f.Exp != nil && len(f.Exp.Scopes) > 0 {
		return nil, fmt.Errorf("%s:%d: \"scopes\" are the breaker's: they need \"settings\": {\"policy\": \"breaker\"}", f.Path, f.Exp.Scopes[0].Line)
	}
	return checkRun{f.Eff.Apply(analyze.NewConfig())}, nil
}

type checkRun struct{ cfg analyze.Config }

func (r checkRun) Config() analyze.Config                    { return r.cfg }
func (checkRun) Settings() string                            { return "" }
func (checkRun) Update(*expect.Expectation) []string         { return nil }
func (checkRun) Compare(*expect.Expectation) []expect.Result { return nil }
