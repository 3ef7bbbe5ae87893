// Package gateway registers the gateway (analyze/gateway: tenant and API
// key freezes answered with HTTP 423, AgenticVerz M22's default guardrail
// pack, incidents) as the policy "gateway": its replay (decisions, the
// per-tenant report, the PostgreSQL state as a script or applied), its
// sweep of the guardrail numbers and its part of `check`. --variant
// chooses what the gateway does: m22 (the live code) or spec (the design).
package gateway

import (
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// name is the policy's name on the command line.
const name = "gateway"

func init() {
	policy.Register(&policy.Policy{
		Name:   name,
		Order:  20,
		Help:   "tenant/key freezes and M22's guardrail pack",
		Replay: newReplay,
		ReplayFormats: []string{report.FormatTable, report.FormatMarkdown, report.FormatJSON, report.FormatCSV,
			report.FormatHTML, report.FormatJSONL},
		Sweep:              newSweep,
		SweepFormats:       []string{report.FormatTable, report.FormatMarkdown, report.FormatJSON, report.FormatHTML},
		SweepReadsSettings: true,
		Check:              checker{},
		Settings: &policy.SettingsPart{
			Keys:    []string{"gateway"},
			Example: `{"gateway": {"rpm": 50, "budgets": {"acme": 5000}}}`,
			Check: func(file string, data []byte) error {
				cfg := gateway.DefaultConfig(gateway.M22)
				return applySettingsData(&cfg, file, data)
			},
		},
		Commands: []policy.Command{{Name: "verify", Args: "[flags] EXPORT...",
			Summary: "decide a live gateway's exported proxy_calls again: each call verified, or how it differs",
			Help:    verifySummary, Flags: newVerify}},
		Conformance: &policy.Conformance{
			Capture: "fixtures/gateway/m22.jsonl",
			BadSettings: []policy.BadSetting{
				{Doc: `{"gateway": {"rpm": "x"}}`, Key: `gateway.rpm`},
				{Doc: `{"gateway": {"rpn": 5}}`, Key: `gateway.rpn`},
				{Doc: `{"gateway": {"budgets": {"acme": -1}}}`, Key: `gateway.budgets["acme"]`},
			},
		},
	})
}
