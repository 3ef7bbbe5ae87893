package analyze

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Kill is one firing of the kill switch (either variant) in a timeline.
type Kill struct {
	Seq       int64
	AgentN    int // the agent's request number, from 1
	TS        time.Time
	Source    ingest.Pos
	Counts    Counts
	Score     float64
	Threshold float64
	Window    int
	Action    Action // ActionKill or ActionBlock
	Alert     Alert  // what the live system would have sent (deactivate variant)
	// Why is the profile's explanation of the firing (Decision.Why), or "".
	Why string
}

// Alert is the kill-switch alert of SPEC §4.2 (webhook body).
type Alert struct {
	AgentID   string
	RuleType  string // "kill_switch"
	Message   string
	Timestamp time.Time
}

// Saved adds up what refused requests would have cost.
type Saved struct {
	Requests            int
	TokensIn, TokensOut int64
	CostUSD             float64
	// Requests among them whose tokens or cost the capture did not give.
	Unpriced int
}

func (s *Saved) Add(d *Decision) {
	s.Requests++
	if d.HasTokens {
		s.TokensIn += d.TokensIn
		s.TokensOut += d.TokensOut
	}
	if d.HasCost {
		s.CostUSD += d.CostUSD
	}
	if !d.HasTokens && !d.HasCost {
		s.Unpriced++
	}
}

// AgentSummary is one agent's deactivation timeline. What most agents
// never have (kills, refused and skipped requests, a final deactivation)
// lives in Extra, allocated for the agents that have it, so that an agent
// that only sent requests costs the summary a few words; read it through
// the methods (Kills, Blocked, Saved, …), which answer for a nil Extra.
type AgentSummary struct {
	Agent       string
	Requests    int
	MaxScore    float64
	First, Last time.Time
	Tokens      Saved // all requests of the agent, for scale
	Extra       *AgentExtra
}

// AgentExtra is the part of an agent's timeline most agents never need.
type AgentExtra struct {
	Skipped            int
	Kills              []Kill // firings, in order
	Blocked            int    // requests refused because the agent was inactive
	Blocks             int    // requests refused by the block variant
	Saved              Saved  // every refused request: kills, blocks and blocked
	FinalState         AgentState
	FinalDeactivatedBy string

	// lastControl is the latest time of the agent's control records, for
	// the engine's out-of-order check (its requests' is Last).
	lastControl time.Time
}

// extra returns a's Extra, allocating it.
func (a *AgentSummary) extra() *AgentExtra {
	if a.Extra == nil {
		a.Extra = new(AgentExtra)
	}
	return a.Extra
}

// Forwarded is the number of the agent's requests passed to the LLM.
func (a *AgentSummary) Forwarded() int {
	if x := a.Extra; x != nil {
		return a.Requests - x.Skipped - x.Blocked - len(x.Kills)
	}
	return a.Requests
}

// Skipped is the number of the agent's requests that could not be scored.
func (a *AgentSummary) Skipped() int {
	if a.Extra == nil {
		return 0
	}
	return a.Extra.Skipped
}

// Kills are the firings of the kill switch (either variant), in order.
func (a *AgentSummary) Kills() []Kill {
	if a.Extra == nil {
		return nil
	}
	return a.Extra.Kills
}

// Blocked is the number of requests refused because the agent was inactive.
func (a *AgentSummary) Blocked() int {
	if a.Extra == nil {
		return 0
	}
	return a.Extra.Blocked
}

// Blocks is the number of requests refused by the block variant.
func (a *AgentSummary) Blocks() int {
	if a.Extra == nil {
		return 0
	}
	return a.Extra.Blocks
}

// Saved adds up every refused request: kills, blocks and blocked.
func (a *AgentSummary) Saved() Saved {
	if a.Extra == nil {
		return Saved{}
	}
	return a.Extra.Saved
}

// FinalState is the agent's state at the end of the replay.
func (a *AgentSummary) FinalState() AgentState {
	if a.Extra == nil {
		return StateActive
	}
	return a.Extra.FinalState
}

// FinalDeactivatedBy says who deactivated an agent inactive at the end.
func (a *AgentSummary) FinalDeactivatedBy() string {
	if a.Extra == nil {
		return ""
	}
	return a.Extra.FinalDeactivatedBy
}

// lastTS is the latest time among the agent's records, requests and
// controls.
func (a *AgentSummary) lastTS() time.Time {
	if a.Extra != nil && a.Extra.lastControl.After(a.Last) {
		return a.Extra.lastControl
	}
	return a.Last
}

// Totals adds up every agent.
type Totals struct {
	Agents, AgentsKilled         int
	Requests, Forwarded, Skipped int
	Kills, Blocks, Blocked       int
	Saved                        Saved
	Tokens                       Saved
}

// SkipCount is how many input items were skipped for one reason.
type SkipCount struct {
	Reason string
	Count  int
}

// Summary is the result of a replay: timelines per agent and totals, with
// the problems met in the input.
type Summary struct {
	// Policy names the policies replayed ("loop" by default; several are
	// joined with "+").
	Policy    string
	Profile   *Profile
	Mode      Mode
	Default   Settings
	Agents    []*AgentSummary // sorted by agent id after Finish
	Totals    Totals
	Malformed int         // input items that were not records
	Skips     []SkipCount // input items that were not LLM calls, by reason (sorted after Finish)
	Controls  int         // control records applied
	// Warnings are the first KeptWarnings of each kind, in replay order;
	// WarningCounts counts all of them by kind (kinds with none left out).
	Warnings      []Warning
	WarningCounts []WarningCount
	// ToolAgentKills counts the kills of requests that carry tool calls
	// and whose score is more than half similar prompts: a tool-using
	// agent's unchanged task (its last user message) rather than a loop
	// of its actions. Counted only for a profile with a ToolAgentHint.
	ToolAgentKills int

	warnCounts [numWarningKinds]int
	skips      map[string]int
}

func newSummary(cfg Config) Summary {
	return Summary{Profile: cfg.Profile, Mode: cfg.Mode, Default: cfg.Default, skips: map[string]int{}}
}

func (s *Summary) addSkip(reason string) { s.skips[reason]++ }

func (s *Summary) add(a *AgentSummary, d *Decision) {
	a.Requests++
	if a.Requests == 1 {
		a.First = d.TS
	}
	if d.TS.After(a.Last) {
		a.Last = d.TS
	}
	a.Tokens.Add(d)
	if d.Score > a.MaxScore {
		a.MaxScore = d.Score
	}
	switch d.Action {
	case ActionForward:
	case ActionSkip:
		a.extra().Skipped++
	case ActionBlocked:
		x := a.extra()
		x.Blocked++
		x.Saved.Add(d)
	case ActionKill, ActionBlock:
		x := a.extra()
		if d.Action == ActionBlock {
			x.Blocks++
		}
		x.Saved.Add(d)
		k := Kill{Seq: d.Seq, AgentN: d.AgentN, TS: d.TS, Source: d.Source, Counts: d.Counts,
			Score: d.Score, Threshold: d.Threshold, Window: d.Window, Action: d.Action, Why: d.Why}
		k.Alert = AlertFor(d.Agent, k)
		x.Kills = append(x.Kills, k)
	}
}

// WarningCount is how many warnings of one kind a replay met.
type WarningCount struct {
	Kind  WarningKind
	Count int
}

// WarningTotal is the number of warnings met, kept or not.
func (s *Summary) WarningTotal() int {
	n := 0
	for _, c := range s.WarningCounts {
		n += c.Count
	}
	return n
}

func (s *Summary) finish() {
	for k, n := range s.warnCounts {
		if n > 0 {
			s.WarningCounts = append(s.WarningCounts, WarningCount{WarningKind(k), n})
		}
	}
	// Ids are unique: any sort gives the same order.
	slices.SortFunc(s.Agents, func(a, b *AgentSummary) int { return strings.Compare(a.Agent, b.Agent) })
	for reason, n := range s.skips {
		s.Skips = append(s.Skips, SkipCount{reason, n})
	}
	sort.Slice(s.Skips, func(i, j int) bool {
		if s.Skips[i].Count != s.Skips[j].Count {
			return s.Skips[i].Count > s.Skips[j].Count
		}
		return s.Skips[i].Reason < s.Skips[j].Reason
	})
	t := &s.Totals
	t.Agents = len(s.Agents)
	for _, a := range s.Agents {
		t.Requests += a.Requests
		t.Forwarded += a.Forwarded()
		AddSaved(&t.Tokens, a.Tokens)
		x := a.Extra
		if x == nil {
			continue
		}
		t.Skipped += x.Skipped
		t.Blocked += x.Blocked
		t.Blocks += x.Blocks
		for _, k := range x.Kills {
			if k.Action == ActionKill {
				t.Kills++
			}
		}
		if len(x.Kills) > 0 {
			t.AgentsKilled++
		}
		AddSaved(&t.Saved, x.Saved)
	}
}

func AddSaved(dst *Saved, s Saved) {
	dst.Requests += s.Requests
	dst.TokensIn += s.TokensIn
	dst.TokensOut += s.TokensOut
	dst.CostUSD += s.CostUSD
	dst.Unpriced += s.Unpriced
}
