package gateway

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/policy"
)

// checker is the gateway's part of `check`: an expectation's
// settings.gateway and variant ("profile": "m22" or "spec"), and its
// "http_status", "block_reason" and "incidents" sections.
type checker struct{}

func (checker) ProfileHelp() string { return "m22 or spec for the gateway" }

func (checker) Profile(name string, over *expect.Settings) (string, bool) {
	if _, err := gateway.VariantByName(name); err != nil {
		return "", false
	}
	over.GatewayProfile = &name
	return name, true
}

func (checker) Prepare(f *policy.CheckFile) (policy.CheckRun, error) {
	if err := f.RefuseLoopSettings("gateway", false); err != nil {
		return nil, err
	}
	if f.Profile != "" && f.Over.GatewayProfile == nil {
		return nil, fmt.Errorf("%s: --profile %s is a loop detector profile: this file replays the gateway (want m22 or spec)", f.Path, f.Profile)
	}
	gcfg, err := f.Eff.GatewayConfig()
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
func (r *checkRun) Update(next *expect.Expectation) []string {
	return expect.UpdateGateway(next, r.pol.Result())
}
func (r *checkRun) Compare(exp *expect.Expectation) []expect.Result {
	return expect.CompareGateway(exp, r.pol.Result())
}
