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

// schema is the loop detector's part of an expectation file: the
// engine's settings (profile, mode, window, threshold), no sections of
// its own.
var schema = &expect.Schema{Policy: "loop", LoopSettings: true}

func (checker) Schema() *expect.Schema { return schema }

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
	return checkRun{f.Eff.Apply(analyze.NewConfig())}, nil
}

type checkRun struct{ cfg analyze.Config }

func (r checkRun) Config() analyze.Config { return r.cfg }
func (checkRun) Settings() string         { return "" }
func (checkRun) Describe(a *analyze.AgentSummary, s *analyze.Summary) string {
	return expect.DescribeAgent(a, s)
}
func (checkRun) Update(*expect.Expectation) []string         { return nil }
func (checkRun) Compare(*expect.Expectation) []expect.Result { return nil }
