package expect

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/killswitch/killswitch/analyze"
)

// agentSum builds an agent's summary: requests, its highest score, and one
// firing (score 13 over threshold 10, deactivate mode) at each agent
// request number in firedAt.
func agentSum(name string, requests int, maxScore float64, firedAt ...int) *analyze.AgentSummary {
	a := &analyze.AgentSummary{Agent: name, Requests: requests, MaxScore: maxScore}
	for _, n := range firedAt {
		if a.Extra == nil {
			a.Extra = &analyze.AgentExtra{}
		}
		a.Extra.Kills = append(a.Extra.Kills, analyze.Kill{AgentN: n, Score: 13, Threshold: 10, Action: analyze.ActionKill})
	}
	return a
}

func summaryOf(agents ...*analyze.AgentSummary) *analyze.Summary {
	return &analyze.Summary{Agents: agents}
}

func TestCompareAgent(t *testing.T) {
	bot := func(a Agent) *Expectation {
		a.Name, a.Line = "bot", 7
		return &Expectation{Agents: []Agent{a}}
	}
	killedAt := func(r Range) Agent { return Agent{Killed: true, AtRequest: r} }
	tests := []struct {
		name      string
		exp       *Expectation
		sum       *analyze.Summary
		pass      bool
		got, want string
		reason    string
	}{
		{"in range", bot(killedAt(between(6, 8))), summaryOf(agentSum("bot", 12, 13, 7)),
			true, "killed at request 7 (score 13.0 > 10)", "killed at request 6–8", ""},
		{"at the low bound", bot(killedAt(between(6, 8))), summaryOf(agentSum("bot", 12, 13, 6)),
			true, "killed at request 6 (score 13.0 > 10)", "killed at request 6–8", ""},
		{"at the high bound", bot(killedAt(between(6, 8))), summaryOf(agentSum("bot", 12, 13, 8)),
			true, "killed at request 8 (score 13.0 > 10)", "killed at request 6–8", ""},
		{"too early", bot(killedAt(between(6, 8))), summaryOf(agentSum("bot", 12, 13, 4)),
			false, "killed at request 4 (score 13.0 > 10)", "killed at request 6–8", "killed at request 4, expected 6–8"},
		{"too late", bot(killedAt(between(6, 8))), summaryOf(agentSum("bot", 12, 13, 9)),
			false, "killed at request 9 (score 13.0 > 10)", "killed at request 6–8", "killed at request 9, expected 6–8"},
		{"exact", bot(killedAt(Exactly(6))), summaryOf(agentSum("bot", 12, 13, 7)),
			false, "killed at request 7 (score 13.0 > 10)", "killed at request 6", "killed at request 7, expected 6"},
		{"min only", bot(killedAt(atLeast(6))), summaryOf(agentSum("bot", 12, 13, 5)),
			false, "killed at request 5 (score 13.0 > 10)", "killed at request ≥ 6", "killed at request 5, expected ≥ 6"},
		{"max only", bot(killedAt(atMost(8))), summaryOf(agentSum("bot", 12, 13, 9)),
			false, "killed at request 9 (score 13.0 > 10)", "killed at request ≤ 8", "killed at request 9, expected ≤ 8"},
		{"killed, any request", bot(Agent{Killed: true}), summaryOf(agentSum("bot", 12, 13, 2)),
			true, "killed at request 2 (score 13.0 > 10)", "killed", ""},
		{"not killed, expected killed", bot(killedAt(between(6, 8))), summaryOf(agentSum("bot", 12, 9.5)),
			false, "not killed (max score 9.5)", "killed at request 6–8", "not killed (max score 9.5), expected killed at request 6–8"},
		{"killed, expected not killed", bot(Agent{}), summaryOf(agentSum("bot", 12, 13, 7)),
			false, "killed at request 7 (score 13.0 > 10)", "not killed", "killed at request 7 (score 13.0 > 10), expected not killed"},
		{"not killed as expected", bot(Agent{}), summaryOf(agentSum("bot", 40, 4.5)),
			true, "not killed (max score 4.5)", "not killed", ""},
		{"kills as expected", bot(Agent{Killed: true, AtRequest: Exactly(6), Kills: Plain(2)}), summaryOf(agentSum("bot", 18, 13, 6, 15)),
			true, "killed at request 6 (score 13.0 > 10), 2 kills", "killed at request 6, kills 2", ""},
		{"kills too few", bot(Agent{Killed: true, Kills: Plain(2)}), summaryOf(agentSum("bot", 18, 13, 6)),
			false, "killed at request 6 (score 13.0 > 10)", "killed, kills 2", "kills: 1, expected 2"},
		{"request and kills both wrong", bot(Agent{Killed: true, AtRequest: Exactly(6), Kills: atMost(1)}), summaryOf(agentSum("bot", 18, 13, 4, 12)),
			false, "killed at request 4 (score 13.0 > 10), 2 kills", "killed at request 6, kills ≤ 1", "killed at request 4, expected 6; kills: 2, expected ≤ 1"},
		{"agent not in the capture", bot(Agent{}), summaryOf(agentSum("other", 3, 0)),
			false, "no requests in the capture", "not killed", "no requests from this agent in the capture"},
		{"agent with control records only", bot(Agent{}), summaryOf(agentSum("bot", 0, 0)),
			false, "no requests in the capture", "not killed", "no requests from this agent in the capture"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Compare(tc.exp, tc.sum, nil)
			want := []Result{{Agent: "bot", Line: 7, Pass: tc.pass, Got: tc.got, Want: tc.want, Reason: tc.reason}}
			if !reflect.DeepEqual(res, want) {
				t.Errorf("Compare =\n%+v\nwant\n%+v", res, want)
			}
		})
	}
}

func TestCompareProfileAndMode(t *testing.T) {
	exp := &Expectation{Agents: []Agent{{Name: "bot", Killed: true, AtRequest: between(6, 8)}}}
	a := &analyze.AgentSummary{Agent: "bot", Requests: 9, Extra: &analyze.AgentExtra{Kills: []analyze.Kill{
		{AgentN: 4, Score: 10, Threshold: 10, Action: analyze.ActionBlock},
		{AgentN: 5, Score: 10.5, Threshold: 10, Action: analyze.ActionBlock},
	}}}
	s := &analyze.Summary{Profile: analyze.ProfileAgentGazer, Mode: analyze.ModeBlock, Agents: []*analyze.AgentSummary{a}}
	res := Compare(exp, s, nil)
	// AgentGazer fires on score ≥ threshold; block mode refuses with 429.
	if want := "blocked (429) at request 4 (score 10.0 ≥ 10), 2 kills"; res[0].Got != want {
		t.Errorf("Got = %q, want %q", res[0].Got, want)
	}
	if want := "blocked (429) at request 4, expected 6–8"; res[0].Reason != want {
		t.Errorf("Reason = %q, want %q", res[0].Reason, want)
	}
}

func TestCompareTotals(t *testing.T) {
	// Every total has its own value, so that reading the wrong field shows.
	s := &analyze.Summary{
		Agents: []*analyze.AgentSummary{agentSum("a", 20, 13, 5, 15), agentSum("b", 25, 13, 6), agentSum("c", 5, 1)},
		Totals: analyze.Totals{Agents: 3, AgentsKilled: 2, Requests: 50, Skipped: 4, Blocked: 7,
			Kills: 99}, // Totals.Kills counts deactivations only; "kills" counts every firing (3)
		Malformed: 5,
	}
	values := map[string]int{"agents": 3, "agents_killed": 2, "blocked": 7, "kills": 3, "malformed": 5, "requests": 50, "skipped": 4}
	if len(values) != len(TotalKeys()) {
		t.Fatalf("test covers %d totals, there are %d", len(values), len(TotalKeys()))
	}
	for _, key := range TotalKeys() {
		v := values[key]
		exp := &Expectation{Totals: []Total{{Key: key, Line: 3, Range: Exactly(v)}}}
		res := Compare(exp, s, nil)
		want := []Result{{Total: key, Line: 3, Pass: true, Got: key + " " + itoa(v), Want: key + " " + itoa(v)}}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("%s = %d: %+v, want %+v", key, v, res, want)
		}
		exp.Totals[0].Range = atMost(v - 1)
		res = Compare(exp, s, nil)
		if r := res[0]; r.Pass || r.Reason != key+" "+itoa(v)+", expected ≤ "+itoa(v-1) || r.Name() != "totals."+key {
			t.Errorf("%s ≤ %d: %+v", key, v-1, r)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCompareOrder(t *testing.T) {
	e, err := Parse("f", []byte(issueExample))
	if err != nil {
		t.Fatal(err)
	}
	s := summaryOf(agentSum("billing-bot", 10, 13, 7), agentSum("report-writer", 40, 2))
	s.Totals.AgentsKilled = 1
	var names []string
	for _, r := range Compare(e, s, nil) {
		if !r.Pass {
			t.Errorf("%s failed: %s", r.Name(), r.Reason)
		}
		names = append(names, r.Name())
	}
	if want := []string{"billing-bot", "report-writer", "totals.agents_killed"}; !reflect.DeepEqual(names, want) {
		t.Errorf("results %v, want %v", names, want)
	}
}

func TestRangeString(t *testing.T) {
	tests := []struct {
		r    Range
		want string
		in   []int
		out  []int
	}{
		{Exactly(6), "6", []int{6}, []int{5, 7}},
		{Plain(0), "0", []int{0}, []int{-1, 1}},
		{between(6, 8), "6–8", []int{6, 7, 8}, []int{5, 9}},
		{atLeast(6), "≥ 6", []int{6, 1000}, []int{5}},
		{atMost(1), "≤ 1", []int{0, 1}, []int{2}},
		{Range{}, "any", []int{-5, 0, 5}, nil},
	}
	for _, tc := range tests {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.r, got, tc.want)
		}
		for _, n := range tc.in {
			if !tc.r.Contains(n) {
				t.Errorf("%s does not contain %d", tc.want, n)
			}
		}
		for _, n := range tc.out {
			if tc.r.Contains(n) {
				t.Errorf("%s contains %d", tc.want, n)
			}
		}
	}
}

func TestSettingsApply(t *testing.T) {
	file := Settings{Profile: pp(analyze.ProfileAgentGazer), Window: ip(30), Threshold: fp(10)}
	flags := Settings{Threshold: fp(12), Mode: mp(analyze.ModeBlock)}
	cfg := file.Override(flags).Apply(analyze.NewConfig())
	if cfg.Profile != analyze.ProfileAgentGazer || cfg.Mode != analyze.ModeBlock ||
		cfg.Default.WindowSize != 30 || cfg.Default.Threshold != 12 || !cfg.Default.Enabled {
		t.Errorf("config = %+v: want agentgazer, block, window 30 from the file, threshold 12 from the flags, enabled", cfg)
	}
	if cfg := (Settings{}).Apply(analyze.NewConfig()); !reflect.DeepEqual(cfg, analyze.NewConfig()) {
		t.Errorf("empty settings changed the config: %+v", cfg)
	}
}
