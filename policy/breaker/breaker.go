// Package breaker registers the error-rate circuit breaker
// (analyze/breaker: Redis counters per tenant/agent/workflow, min_samples,
// auto-recovery) as the policy "breaker": its replay (decisions, the
// per-scope report, the Redis state as a script or applied), its sweep of
// error rates × min_samples × windows, and its part of `check`.
package breaker

import (
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// name is the policy's name on the command line.
const name = "breaker"

func init() {
	all := []string{report.FormatTable, report.FormatMarkdown, report.FormatJSON, report.FormatCSV, report.FormatHTML}
	policy.Register(&policy.Policy{
		Name:          name,
		Order:         10,
		Help:          "the error-rate circuit breaker per tenant/agent/workflow",
		Replay:        newReplay,
		ReplayFormats: append(all, report.FormatJSONL),
		Sweep:         newSweep,
		SweepFormats:  all,
		Check:         checker{},
		Settings: &policy.SettingsPart{
			Keys: []string{"breaker"}, AgentKeys: []string{"breaker"},
			Example: `{"breaker": {"min_samples": 20}, "agents": {"a": {"breaker": {"min_samples": 5}}}}`,
			Check: func(file string, data []byte) error {
				cfg := breaker.NewConfig()
				return applySettingsData(&cfg, file, data, nil)
			},
		},
		Conformance: &policy.Conformance{
			Capture: "fixtures/breaker/outage.jsonl",
			BadSettings: []policy.BadSetting{
				{Doc: `{"breaker": {"kill_on_error_rate": "x"}}`, Key: `breaker.kill_on_error_rate`},
				{Doc: `{"breaker": {"rate": 0.5}}`, Key: `breaker.rate`},
				{Doc: `{"agents": {"a": {"breaker": {"min_samples": 0.5}}}}`, Key: `agents.a.breaker.min_samples`},
			},
		},
	})
}
