package analyze

import (
	"fmt"
	"strconv"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Action is what the kill switch did with a request (SPEC §5).
type Action uint8

const (
	ActionForward Action = iota // passed to the LLM
	ActionKill                  // fired the deactivate variant: refused, agent deactivated
	ActionBlocked               // refused because the agent was inactive
	ActionBlock                 // refused by the block variant (HTTP 429); agent stays active
	ActionSkip                  // could not be scored; see Reason
)

var actionNames = [...]string{"forward", "kill", "blocked", "block", "skip"}

func (a Action) String() string { return actionNames[a] }

// Refused reports whether the request never reached the LLM.
func (a Action) Refused() bool { return a == ActionKill || a == ActionBlocked || a == ActionBlock }

// Decision is the per-request output record of SPEC §5, plus the values the
// summaries need.
type Decision struct {
	Seq    int64 // 1-based index of the request in replay order
	AgentN int   // 1-based index of the request among its agent's requests
	TS     time.Time
	Agent  string
	Source ingest.Pos

	PromptHash, ResponseHash uint64
	HasPrompt, HasResponse   bool
	Counts
	Score     float64
	Threshold float64 // the agent's threshold when the request was scored
	Window    int     // the agent's window size then
	Action    Action
	Reason    string

	// What the request cost (from the capture, or the response's usage).
	TokensIn, TokensOut int64
	CostUSD             float64
	HasTokens, HasCost  bool
	Label               ingest.Label
	Status              int // HTTP status the live system would have answered
}

// TransitionKind is a change of an agent's state.
type TransitionKind uint8

const (
	TransitionKill       TransitionKind = iota // the kill switch deactivated the agent
	TransitionActivate                         // an operator (or --reactivate-after) re-activated it
	TransitionDeactivate                       // an operator deactivated it
	TransitionConfig                           // its kill-switch settings changed
)

var transitionNames = [...]string{"kill", "activate", "deactivate", "config"}

func (k TransitionKind) String() string { return transitionNames[k] }

// Transition is one change of an agent's state, at a capture time.
type Transition struct {
	Kind     TransitionKind
	TS       time.Time
	Agent    string
	By       string // for deactivations: "kill_switch" or "manual"; for activations: "operator" or "reactivate-after"
	Seq      int64  // the decision that caused it (kills), else 0
	Settings Settings
	Source   ingest.Pos
}

// AgentState is an agent's enforcement state.
type AgentState uint8

const (
	StateActive AgentState = iota
	StateInactive
)

func (s AgentState) String() string {
	if s == StateInactive {
		return "inactive"
	}
	return "active"
}

type agent struct {
	name          string
	settings      Settings
	state         AgentState
	deactivatedBy string
	killedAt      time.Time
	killSeq       int64
	window        *Window
	requests      int
	sum           *AgentSummary
}

// Warning is a problem with the input that did not stop the replay.
type Warning struct {
	Pos ingest.Pos
	Msg string
}

func (w Warning) String() string { return w.Pos.String() + ": " + w.Msg }

// Engine replays records in order through the kill switch. It is not safe
// for concurrent use; feature extraction (Extractor) may run in parallel
// ahead of it.
type Engine struct {
	cfg     Config
	agents  map[string]*agent
	seq     int64
	lastTS  time.Time
	lastPos ingest.Pos
	sum     Summary
	trans   []Transition
}

// NewEngine validates cfg and returns an engine.
func NewEngine(cfg Config) (*Engine, error) {
	if err := cfg.Default.Validate(); err != nil {
		return nil, fmt.Errorf("default settings: %w", err)
	}
	for _, name := range cfg.AgentNames() {
		if err := cfg.Agents[name].Validate(); err != nil {
			return nil, fmt.Errorf("settings of agent %q: %w", name, err)
		}
	}
	if cfg.RetryAfter < 0 || cfg.ReactivateAfter < 0 {
		return nil, fmt.Errorf("negative duration")
	}
	return &Engine{cfg: cfg, agents: map[string]*agent{}, sum: newSummary(cfg)}, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

func (e *Engine) agent(name string) *agent {
	a := e.agents[name]
	if a == nil {
		s := e.cfg.settingsFor(name)
		a = &agent{name: name, settings: s, window: NewWindow(s.WindowSize)}
		a.sum = e.sum.agent(name)
		e.agents[name] = a
	}
	return a
}

// pastLen is how many past entries a profile scores against: spec scores
// the N entries before the request; agentgazer's window of N includes the
// request itself (pushed before scoring), so N − 1 past ones.
func pastLen(p Profile, n int) int {
	if p == ProfileAgentGazer {
		return n - 1
	}
	return n
}

// Step replays one record. Malformed and skipped input items are counted;
// control records change state; requests yield a Decision (ok true). The
// returned transitions are valid until the next call.
func (e *Engine) Step(rec *ingest.Record, f *Features) (d Decision, ok bool, trans []Transition) {
	e.trans = e.trans[:0]
	switch {
	case rec.Err != nil:
		e.sum.Malformed++
		return d, false, nil
	case rec.Skip != "":
		e.sum.addSkip(rec.Skip)
		return d, false, nil
	}
	if rec.TS.Before(e.lastTS) {
		e.sum.Warnings = append(e.sum.Warnings, Warning{rec.Pos, fmt.Sprintf(
			"out of time order: %s is before %s at %s; replayed in input order",
			ingest.FormatTime(rec.TS), ingest.FormatTime(e.lastTS), e.lastPos)})
	} else {
		e.lastTS, e.lastPos = rec.TS, rec.Pos
	}
	a := e.agent(rec.Agent)
	e.maybeReactivate(a, rec.TS)
	if rec.Control != nil {
		e.control(a, rec)
		return d, false, e.trans
	}
	e.seq++
	a.requests++
	d = Decision{
		Seq: e.seq, AgentN: a.requests, TS: rec.TS, Agent: rec.Agent, Source: rec.Pos,
		Threshold: a.settings.Threshold, Window: a.settings.WindowSize,
		TokensIn: rec.TokensIn, TokensOut: rec.TokensOut, CostUSD: rec.CostUSD,
		HasTokens: rec.HasTokens, HasCost: rec.HasCost, Label: rec.Label, Status: rec.Status,
	}
	if !d.HasTokens && f.HasUsage {
		d.TokensIn, d.TokensOut, d.HasTokens = f.TokensIn, f.TokensOut, true
	}
	switch {
	case a.state == StateInactive:
		d.Action = ActionBlocked
		d.Status = 403
		d.Reason = "agent inactive: deactivated by " + a.deactivatedBy
		if a.deactivatedBy == "kill_switch" && a.killSeq > 0 {
			d.Reason += " at seq " + strconv.FormatInt(a.killSeq, 10)
		}
	case f.Err != nil:
		d.Action = ActionSkip
		d.Reason = f.Err.Error()
	default:
		e.score(a, &d, f)
	}
	e.sum.add(a.sum, &d)
	return d, true, e.trans
}

func (e *Engine) score(a *agent, d *Decision, f *Features) {
	cur := f.Entry
	cur.TS = d.TS.UnixNano()
	resp, hasResp := cur.Response, cur.HasResp
	cur.Response, cur.HasResp = 0, false // the answer comes after the decision
	d.PromptHash, d.HasPrompt = cur.Prompt, cur.HasPrompt
	d.Counts = a.window.Count(&cur, pastLen(e.cfg.Profile, a.settings.WindowSize))
	d.Score = d.Counts.Score()
	fires := d.Score > a.settings.Threshold
	op := ">"
	if e.cfg.Profile == ProfileAgentGazer {
		fires = d.Score >= a.settings.Threshold
		op = "≥"
	}
	switch {
	case fires && !a.settings.Enabled:
		d.Action = ActionForward
		d.Reason = fmt.Sprintf("kill switch disabled: score %.1f %s threshold %s would have fired", d.Score, op, fmtNum(a.settings.Threshold))
	case fires && e.cfg.Mode == ModeBlock:
		d.Action = ActionBlock
		d.Status = 429
		d.Reason = fmt.Sprintf("loop detected: score %.1f %s threshold %s; HTTP 429, retry after %d s",
			d.Score, op, fmtNum(a.settings.Threshold), int64(e.cfg.RetryAfter/time.Second))
	case fires:
		d.Action = ActionKill
		d.Status = 403
		d.Reason = fmt.Sprintf("loop detected: score %.1f %s threshold %s; agent deactivated", d.Score, op, fmtNum(a.settings.Threshold))
		a.state, a.deactivatedBy, a.killedAt, a.killSeq = StateInactive, "kill_switch", d.TS, d.Seq
		e.trans = append(e.trans, Transition{Kind: TransitionKill, TS: d.TS, Agent: a.name, By: "kill_switch",
			Seq: d.Seq, Settings: a.settings, Source: d.Source})
		return // the killed request gets no response; the window no longer matters
	default:
		d.Action = ActionForward
	}
	if d.Action == ActionForward {
		cur.Response, cur.HasResp = resp, hasResp
		d.ResponseHash, d.HasResponse = resp, hasResp
	}
	a.window.Push(cur)
}

func (e *Engine) maybeReactivate(a *agent, now time.Time) {
	if e.cfg.ReactivateAfter <= 0 || a.state != StateInactive || a.deactivatedBy != "kill_switch" {
		return
	}
	at := a.killedAt.Add(e.cfg.ReactivateAfter)
	if now.Before(at) {
		return
	}
	e.activate(a, at, "reactivate-after", ingest.Pos{})
}

func (e *Engine) activate(a *agent, ts time.Time, by string, pos ingest.Pos) {
	a.state, a.deactivatedBy, a.killSeq = StateActive, "", 0
	a.window.Clear()
	e.trans = append(e.trans, Transition{Kind: TransitionActivate, TS: ts, Agent: a.name, By: by, Settings: a.settings, Source: pos})
	a.sum.Activations++
}

func (e *Engine) control(a *agent, rec *ingest.Record) {
	c := rec.Control
	switch c.Event {
	case ingest.ControlActivate:
		e.activate(a, rec.TS, "operator", rec.Pos)
	case ingest.ControlDeactivate:
		by := c.By
		if by == "" {
			by = "manual"
		}
		a.state, a.deactivatedBy, a.killSeq = StateInactive, by, 0
		a.killedAt = rec.TS
		e.trans = append(e.trans, Transition{Kind: TransitionDeactivate, TS: rec.TS, Agent: a.name, By: by, Settings: a.settings, Source: rec.Pos})
		a.sum.Deactivations = append(a.sum.Deactivations, ControlMark{TS: rec.TS, By: by, Source: rec.Pos})
	case ingest.ControlConfig:
		s := a.settings.Apply(c.KillSwitch)
		if err := s.Validate(); err != nil {
			e.sum.Warnings = append(e.sum.Warnings, Warning{rec.Pos, "config ignored: " + err.Error()})
			return
		}
		a.settings = s
		a.window.Resize(s.WindowSize)
		e.trans = append(e.trans, Transition{Kind: TransitionConfig, TS: rec.TS, Agent: a.name, Settings: s, Source: rec.Pos})
	}
	e.sum.Controls++
}

// Finish completes the summary: agents sorted by name, totals computed. The
// engine must not be used afterwards.
func (e *Engine) Finish() *Summary {
	for _, a := range e.agents {
		a.sum.FinalState, a.sum.FinalDeactivatedBy = a.state, a.deactivatedBy
	}
	e.sum.finish()
	return &e.sum
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
