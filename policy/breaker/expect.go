package breaker

import (
	"fmt"
	"strconv"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/analyze/expect"
	"github.com/killswitch/killswitch/internal/jsontree"
)

// The breaker's expectation sections (settings.policy "breaker"):
//
//	{"settings": {"policy": "breaker", "breaker": {"kill_on_error_rate": 0.4}},
//	 "agents": {"billing-bot": {"killed": true, "at_request": 21}},
//	 "scopes": {"acme/billing-bot/refunds": {"tripped": true, "at_request": 21, "trips": 1}}}
//
//   - settings.breaker holds the keys of a settings file's "breaker"
//     object (the default rule), checked as `replay --settings` checks
//     them;
//   - agents: "killed" means tripped in any of the agent's workflows;
//     at_request counts the agent's requests over all of them, kills its
//     trips;
//   - scopes: "tenant/agent/workflow" (agent/workflow without a tenant;
//     workflow "default" when the records name none) → {"tripped": bool,
//     "at_request": count, "trips": count}, as for agents but per
//     breaker: at_request counts the scope's own requests.

// scopeKeys are the keys of "scopes".
var scopeKeys = expect.OutcomeKeys{Section: "scopes", What: "scope (tenant/agent/workflow)", Fired: "tripped",
	At: "at_request", Count: "trips", Not: "never tripped", AtHint: "a scope's requests are counted from 1"}

// schema is the breaker's part of an expectation file.
var schema = &expect.Schema{
	Policy: "breaker",
	Settings: func(p *expect.Parser, n *expect.Node, path string) {
		breaker.ParsePatch(p.Doc, n, path)
	},
	Sections: []expect.Section{{Key: "scopes", Parse: func(p *expect.Parser, _ string, n *expect.Node) expect.Part {
		return &expect.Outcomes{Keys: scopeKeys, List: p.Outcomes(n, scopeKeys)}
	}}},
}

// checkConfig returns the breaker configuration an expectation's
// settings name: the defaults with the rule of settings.breaker.
func checkConfig(s expect.Settings) (breaker.Config, error) {
	cfg := breaker.NewConfig()
	if s.Own != nil {
		d, n, err := jsontree.Parse("settings.breaker", s.Own, 8, "breaker settings")
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

// describeTrip says what the breaker did to an agent or a scope: "tripped
// at request 21 (error rate 50.0% ≥ 50%)", with ", 2 trips" when it
// tripped more than once, or "never tripped".
func describeTrip(first int, rate, threshold float64, trips int) string {
	if trips == 0 {
		return "never tripped"
	}
	s := fmt.Sprintf("tripped at request %d (error rate %s%% ≥ %s%%)", first,
		strconv.FormatFloat(rate*100, 'f', 1, 64), strconv.FormatFloat(threshold*100, 'f', -1, 64))
	if trips > 1 {
		s += ", " + strconv.Itoa(trips) + " trips"
	}
	return s
}

// describeAgent words an agent's outcome under the breaker: its first
// trip over all its workflows (the kill's score is the error rate).
func describeAgent(a *analyze.AgentSummary, _ *analyze.Summary) string {
	kills := a.Kills()
	if len(kills) == 0 {
		return describeTrip(0, 0, 0, 0)
	}
	return describeTrip(kills[0].AgentN, kills[0].Score, kills[0].Threshold, len(kills))
}
