// Package loop registers the loop kill switch (analyze.LoopPolicy: SimHash
// fingerprints in a sliding window per agent, SPEC §3) as the policy
// "loop", the default: its replay (timelines, decision records, the
// agents' state writes to SQLite), its sweep of windows × thresholds and
// its part of `check`.
package loop

import (
	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// name is the policy's name on the command line.
const name = "loop"

func init() {
	policy.Register(&policy.Policy{
		Name:   "loop",
		Order:  0,
		Help:   "the loop detector",
		Replay: newReplay,
		ReplayFormats: []string{report.FormatTable, report.FormatJSON, report.FormatJSONL, report.FormatCSV,
			report.FormatMarkdown, report.FormatHTML},
		Sweep:        newSweep,
		SweepFormats: []string{report.FormatTable, report.FormatJSON, report.FormatCSV, report.FormatMarkdown, report.FormatHTML},
		Check:        checker{},
		Settings: &policy.SettingsPart{
			Keys: analyze.SettingsKeys, AgentKeys: analyze.AgentSettingsKeys,
			Example: `{"default": {"threshold": 12}, "agents": {"a": {"window_size": 10}}}`,
			Check: func(file string, data []byte) error {
				_, err := parseSettings(file, data)
				return err
			},
		},
		Conformance: &policy.Conformance{
			Capture: "fixtures/examples/day1.jsonl",
			BadSettings: []policy.BadSetting{
				{Doc: `{"default": {"threshold": "x"}}`, Key: `default.threshold`},
				{Doc: `{"default": {"treshold": 3}}`, Key: `default.treshold`},
				{Doc: `{"agents": {"a": {"window_size": 0}}}`, Key: `agents.a.window_size`},
			},
		},
	})
}
