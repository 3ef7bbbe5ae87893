package expect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze"
)

// Result is the outcome of one agent expectation or one total bound.
type Result struct {
	Agent  string // the agent id; "" for a total or a policy's entry
	Total  string // the total's key; "" for an agent
	Key    string // a policy's entry: "scopes.acme/a/default", "http_status.423", "incidents[0]"
	Line   int    // line of the entry's key in the expectation file
	Pass   bool
	Got    string // what the replay did: "killed at request 6 (score 13.0 > 10)", "not killed (max score 7.0)", "agents_killed 1"
	Want   string // what was expected: "killed at request 6–8", "not killed", "agents_killed ≤ 1"
	Reason string // why it failed, what was expected included ("killed at request 4, expected 6–8"); "" when it passed
}

// Name is the agent id, the policy entry's key, or "totals.KEY" for a
// total.
func (r Result) Name() string {
	if r.Key != "" {
		return r.Key
	}
	if r.Total != "" {
		return "totals." + r.Total
	}
	return r.Agent
}

// Describe says what the replay summarized by s did to one agent, for
// messages; nil is DescribeAgent, the loop detector's wording.
type Describer func(a *analyze.AgentSummary, s *analyze.Summary) string

// Compare checks s, the summary of replaying the expectation's capture,
// against e: one Result per agent (in e's order: by name), then one per
// total (by key). describe words what happened to an agent (nil:
// DescribeAgent).
func Compare(e *Expectation, s *analyze.Summary, describe Describer) []Result {
	if describe == nil {
		describe = DescribeAgent
	}
	byName := agentsByName(s)
	out := make([]Result, 0, len(e.Agents)+len(e.Totals))
	for _, want := range e.Agents {
		out = append(out, compareAgent(want, byName[want.Name], s, describe))
	}
	for _, t := range e.Totals {
		def, _ := totalDefOf(t.Key)
		got := def.get(s)
		r := Result{Total: t.Key, Line: t.Line, Pass: t.Range.Contains(got),
			Got:  t.Key + " " + strconv.Itoa(got),
			Want: t.Key + " " + t.Range.String()}
		if !r.Pass {
			r.Reason = fmt.Sprintf("%s %d, expected %s", t.Key, got, t.Range)
		}
		out = append(out, r)
	}
	return out
}

func agentsByName(s *analyze.Summary) map[string]*analyze.AgentSummary {
	m := make(map[string]*analyze.AgentSummary, len(s.Agents))
	for _, a := range s.Agents {
		m[a.Agent] = a
	}
	return m
}

// compareAgent checks one agent; got is nil when the capture has no
// request of it.
func compareAgent(want Agent, got *analyze.AgentSummary, sum *analyze.Summary, describe Describer) Result {
	r := Result{Agent: want.Name, Line: want.Line, Want: describeWant(want, AgentKeys)}
	if got == nil || got.Requests == 0 {
		r.Got = "no requests in the capture"
		r.Reason = "no requests from this agent in the capture"
		return r
	}
	r.Got = describe(got, sum)
	fired := AgentKeys
	if len(got.Kills()) > 0 {
		fired.Fired = verb(got.Kills()[0])
	}
	r.Reason = judge(want, fired, firsts(got), r.Got, r.Want)
	r.Pass = r.Reason == ""
	return r
}

// firsts returns the agent's request number of each firing.
func firsts(a *analyze.AgentSummary) []int {
	out := make([]int, len(a.Kills()))
	for i, k := range a.Kills() {
		out[i] = k.AgentN
	}
	return out
}

// judge compares an expectation with the request numbers of the firings
// seen; it returns why it fails, "" when it holds.
func judge(want Agent, w OutcomeKeys, fired []int, got, wantText string) string {
	var why []string
	switch {
	case want.Killed && len(fired) == 0:
		why = append(why, got+", expected "+wantText)
	case !want.Killed && len(fired) > 0:
		why = append(why, got+", expected "+w.Not)
	case len(fired) > 0:
		if !want.AtRequest.Contains(fired[0]) {
			why = append(why, fmt.Sprintf("%s at request %d, expected %s", w.Fired, fired[0], want.AtRequest))
		}
		if n := len(fired); !want.Kills.Contains(n) {
			why = append(why, fmt.Sprintf("%s: %d, expected %s", w.Count, n, want.Kills))
		}
	}
	return strings.Join(why, "; ")
}

// DescribeAgent says what the kill switch did to one agent in a replay
// under the loop detector: "killed at request 6 (score 13.0 > 10)", with
// ", 2 kills" when it fired more than once, or "not killed (max score
// 7.0)".
func DescribeAgent(a *analyze.AgentSummary, sum *analyze.Summary) string {
	p := sum.Profile
	if len(a.Kills()) == 0 {
		return "not killed (max score " + strconv.FormatFloat(a.MaxScore, 'f', 1, 64) + ")"
	}
	k := a.Kills()[0]
	op := p.Op()
	s := fmt.Sprintf("%s at request %d (score %.1f %s %s)", verb(k), k.AgentN, k.Score, op,
		strconv.FormatFloat(k.Threshold, 'f', -1, 64))
	if n := len(a.Kills()); n > 1 {
		s += ", " + strconv.Itoa(n) + " kills"
	}
	return s
}

// verb names a firing: a kill (deactivate mode) or a 429 (block mode).
func verb(k analyze.Kill) string {
	if k.Action == analyze.ActionBlock {
		return "blocked (429)"
	}
	return "killed"
}

func describeWant(a Agent, w OutcomeKeys) string {
	if !a.Killed {
		return w.Not
	}
	s := w.Fired
	if a.AtRequest.IsSet() {
		s += " at request " + a.AtRequest.String()
	}
	if a.Kills.IsSet() {
		s += ", " + w.Count + " " + a.Kills.String()
	}
	return s
}
