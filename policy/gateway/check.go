package gateway

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/policy"
)

// checker is the gateway's part of `check`: an expectation's
// settings.gateway and settings.variant ("m22" or "spec"), and its
// "http_status", "block_reason" and "incidents" sections (expect.go).
type checker struct{}

func (checker) Schema() *expect.Schema { return schema }

func (checker) Prepare(f *policy.CheckFile) (policy.CheckRun, error) {
	gcfg, err := checkConfig(f.Eff)
	var pol *gateway.Policy
	if err == nil {
		pol, err = gateway.NewPolicy(gcfg)
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
	pol *gateway.Policy
}

func (r *checkRun) Config() analyze.Config { return r.cfg }
func (r *checkRun) Settings() string       { return SettingsLine(r.pol.Result()) }
func (r *checkRun) Describe(a *analyze.AgentSummary, s *analyze.Summary) string {
	return expect.DescribeAgent(a, s)
}
func (r *checkRun) Update(next *expect.Expectation) []string {
	return updateSections(next, r.pol.Result())
}
func (r *checkRun) Compare(exp *expect.Expectation) []expect.Result {
	return compareSections(exp, r.pol.Result())
}
