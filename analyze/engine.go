package analyze

import (
	"fmt"
	"strconv"
	"strings"
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
	// Why is, for a firing (or a firing the disabled kill switch would
	// have made), the profile's explanation of its score when it has one
	// (which rule, which requests: progress and the peer profiles); Reason
	// ends with it. "" otherwise.
	Why string
	// KillSeq is, for a request refused because the kill switch had
	// deactivated its agent (ActionBlocked), the Seq of the killing
	// request; else 0. Reason says it in words (BlockedReason).
	KillSeq int64

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

// Warning is a problem with the input that did not stop the replay.
type Warning struct {
	Pos  ingest.Pos
	Msg  string
	Kind WarningKind
}

// WarningKind classifies warnings, for counting them.
type WarningKind uint8

const (
	WarnOutOfOrder WarningKind = iota // a record earlier than its agent's previous one
	WarnResponse                      // a response that could not be read
	WarnConfig                        // a config record that was ignored
	WarnPolicy                        // any other warning of a policy
	WarnInput                         // a field of a record that was dropped
	numWarningKinds
)

var warningKindNames = [...]string{"out-of-order", "response", "config", "policy", "input"}

func (k WarningKind) String() string { return warningKindNames[k] }

// KeptWarnings is how many warnings of each kind a replay reports and its
// Summary keeps; the rest are only counted (Summary.WarningCounts), so
// memory does not grow with their number.

func (w Warning) String() string { return w.Pos.String() + ": " + w.Msg }

// Engine replays records in order through a stack of policies (by default
// the loop kill switch alone). It owns what every policy shares: replay
// order, sequence numbers, the per-agent timelines and totals, malformed
// and skipped items, warnings. It is not safe for concurrent use; feature
// extraction (Extractor) may run in parallel ahead of it.
type Engine struct {
	cfg      Config
	policies []Policy
	loop     bookedPolicy // the policy whose agents' state lives in the engine's books, if any
	seq      int64
	sum      Summary
	fx       Effects
	agents   agentTable
	pos      posTable
	reported []Warning // the current step's warnings that are reported
	cur      Decision  // the decision being made: policies get a pointer to it without an allocation per request
	// outOfOrder: the engine warned that the record being replayed is out
	// of time order for its agent.
	outOfOrder bool
}

// bookedPolicy is a policy whose per-agent state the engine keeps in its
// agent books, so that one lookup per request serves both (the default
// replay's hot path): the core's own loop kill switch (loop.go). Every
// other policy keeps its own state.
type bookedPolicy interface {
	Policy
	// claimBooks reports whether the policy's state may live in this
	// engine's books: false when another engine already holds it.
	claimBooks() bool
	// initBook sets up the agent's state in its new book.
	initBook(a *LoopAgent, name string)
	// selectBook points the policy at the book of the record's agent,
	// before each call.
	selectBook(a *LoopAgent)
}

// OutOfOrderPrefix begins every out-of-order warning: the engine's, per
// agent, and a policy's (an Effects warning with it is counted as
// WarnOutOfOrder, and dropped when the engine warned about the same
// record).
const OutOfOrderPrefix = "out of time order:"

// KeptWarnings: see WarningKind.
const KeptWarnings = 10

// agentBook is all the engine keeps of one agent, in its agentTable: its
// timeline (Summary.Agents points to it), the position of its latest
// record (for out-of-order warnings) and, when the engine runs the loop
// kill switch, the agent's LoopAgent. The agent's id is held once, by the
// timeline (the table's index holds a book number).
type agentBook struct {
	sum     AgentSummary
	lastPos posRef // the position of the agent's latest record (its time: sum.lastTS)
	loop    LoopAgent
}

// posRef is a position held compactly: the file, kind and path it shares
// with other records (interned in a posTable), and its number.
type posRef struct {
	at *ingest.Pos // N unused
	n  int64
}

func (r posRef) pos() ingest.Pos {
	if r.at == nil {
		return ingest.Pos{}
	}
	p := *r.at
	p.N = r.n
	return p
}

// posTable interns the parts of positions records share: one entry per
// file, kind and path (a handful), so that an agent holds 16 bytes of its
// latest position rather than 48.
type posTable struct {
	last *ingest.Pos
	all  map[ingest.Pos]*ingest.Pos
}

func (t *posTable) ref(p ingest.Pos) posRef {
	n := p.N
	p.N = 0
	if t.last == nil || *t.last != p {
		at := t.all[p]
		if at == nil {
			if t.all == nil {
				t.all = map[ingest.Pos]*ingest.Pos{}
			}
			at = new(ingest.Pos) // not &p: p would then move to the heap on every call
			*at = p
			t.all[p] = at
		}
		t.last = at
	}
	return posRef{t.last, n}
}

// NewEngine validates cfg and returns an engine running cfg.Policies, or
// the loop kill switch configured by cfg when there are none.
func NewEngine(cfg Config) (*Engine, error) {
	if cfg.Profile == nil {
		cfg.Profile = ProfileSpec
	}
	policies := cfg.Policies
	if len(policies) == 0 {
		lp, err := NewLoopPolicy(cfg)
		if err != nil {
			return nil, err
		}
		policies = []Policy{lp}
	}
	e := &Engine{cfg: cfg, policies: policies, sum: newSummary(cfg)}
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = p.Name()
		if bp, ok := p.(bookedPolicy); ok && e.loop == nil && bp.claimBooks() {
			e.loop = bp
		}
	}
	e.sum.Policy = strings.Join(names, "+")
	return e, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Policies returns the policies the engine runs, in order.
func (e *Engine) Policies() []Policy { return e.policies }

// book returns the agent's book, adding it on the agent's first record.
func (e *Engine) book(name string) *agentBook {
	b, added := e.agents.find(name)
	if added {
		if e.loop != nil {
			e.loop.initBook(&b.loop, name)
		}
		e.sum.Agents = append(e.sum.Agents, &b.sum)
	}
	return b
}

// ahead prepares the engine for stepping recs next (see agentTable.ahead).
func (e *Engine) ahead(recs []*ingest.Record) {
	var names [aheadRecords]string
	if len(recs) > len(names) {
		return
	}
	for i, rec := range recs {
		names[i] = rec.Agent
	}
	e.agents.ahead(names[:len(recs)])
}

// Step replays one record. Malformed and skipped input items are counted;
// control records change state; requests yield a Decision (ok true). The
// returned transitions are valid until the next call.
func (e *Engine) Step(rec *ingest.Record, f *Features) (d Decision, ok bool, trans []Transition) {
	dp, trans := e.step(rec, f)
	if dp == nil {
		return d, false, trans
	}
	return *dp, true, trans
}

// step is Step giving the request's Decision as a pointer into the engine
// (nil for other records), valid until the next call: Replay hands it to
// its hook without copying it, or moving a copy to the heap, per request.
func (e *Engine) step(rec *ingest.Record, f *Features) (*Decision, []Transition) {
	e.fx.Transitions = e.fx.Transitions[:0]
	e.fx.Warnings = e.fx.Warnings[:0]
	e.reported = e.reported[:0]
	switch {
	case rec.Err != nil:
		e.sum.Malformed++
		return nil, nil
	case rec.Skip != "":
		e.sum.addSkip(rec.Skip)
		return nil, nil
	}
	if f.Warn != "" && rec.Control == nil {
		e.warn(rec.Pos, WarnResponse, f.Warn)
	}
	b := e.book(rec.Agent)
	if e.loop != nil {
		e.loop.selectBook(&b.loop)
	}
	// Order matters per agent: a capture grouped by agent, each agent in
	// order, is not out of order.
	e.outOfOrder = false
	if last := b.sum.lastTS(); rec.TS.Before(last) {
		e.outOfOrder = true
		e.warn(rec.Pos, WarnOutOfOrder, fmt.Sprintf(
			OutOfOrderPrefix+" %s is before %s at %s (agent %q); replayed in input order",
			ingest.FormatTime(rec.TS), ingest.FormatTime(last), b.lastPos.pos(), rec.Agent))
	} else {
		b.lastPos = e.pos.ref(rec.Pos)
		if rec.Control != nil {
			b.sum.extra().lastControl = rec.TS // a request's time becomes sum.Last
		}
	}
	if rec.Control != nil {
		for _, p := range e.policies {
			p.Control(rec, &e.fx)
		}
		e.sum.Controls++
		e.effects(rec.Pos, b)
		return nil, e.fx.Transitions
	}
	e.seq++
	dp := &e.cur
	*dp = Decision{
		Seq: e.seq, AgentN: b.sum.Requests + 1, TS: rec.TS, Agent: rec.Agent, Source: rec.Pos,
		TokensIn: rec.TokensIn, TokensOut: rec.TokensOut, CostUSD: rec.CostUSD,
		HasTokens: rec.HasTokens, HasCost: rec.HasCost, Label: rec.Label, Status: rec.Status,
	}
	if !dp.HasTokens && f.HasUsage {
		dp.TokensIn, dp.TokensOut, dp.HasTokens = f.TokensIn, f.TokensOut, true
	}
	e.checkCost(rec.Pos, dp)
	for _, p := range e.policies {
		p.Decide(rec, f, dp, &e.fx)
	}
	e.effects(rec.Pos, b)
	e.sum.add(&b.sum, dp)
	if dp.Action == ActionKill && e.cfg.Profile.ToolAgentProfile() != "" && f.ToolSig != "" &&
		2*float64(dp.SimilarPrompts) > dp.Score {
		e.sum.ToolAgentKills++
	}
	return dp, e.fx.Transitions
}

// MaxTokens and MaxCostUSD bound what one request can plausibly use;
// beyond them (or negative, or not a number) a capture's tokens or cost
// are a malformed field: reported, and the request is kept without them,
// so that sums stay meaningful and every output format can print them.
const (
	MaxTokens  = 1e12
	MaxCostUSD = 1e6
)

func (e *Engine) checkCost(pos ingest.Pos, d *Decision) {
	if d.HasTokens && (d.TokensIn < 0 || d.TokensOut < 0 || d.TokensIn > MaxTokens || d.TokensOut > MaxTokens) {
		e.warn(pos, WarnInput, "token counts out of range (0 to 1e12 per request): not counted")
		d.TokensIn, d.TokensOut, d.HasTokens = 0, 0, false
	}
	if d.HasCost && !(d.CostUSD >= 0 && d.CostUSD <= MaxCostUSD) {
		e.warn(pos, WarnInput, "cost out of range (0 to 1,000,000 USD per request): not counted")
		d.CostUSD, d.HasCost = 0, false
	}
}

// effects books what the policies reported besides the decision.
func (e *Engine) effects(pos ingest.Pos, b *agentBook) {
	for _, w := range e.fx.Warnings {
		kind := WarnPolicy
		switch {
		case strings.HasPrefix(w, "config ignored"):
			kind = WarnConfig
		case strings.HasPrefix(w, OutOfOrderPrefix):
			kind = WarnOutOfOrder
			if e.outOfOrder {
				continue // the engine said it already, per agent
			}
		}
		e.warn(pos, kind, w)
	}
}

// warn counts a warning; the first KeptWarnings of its kind are kept and
// reported (Reported).
func (e *Engine) warn(pos ingest.Pos, kind WarningKind, msg string) {
	e.sum.warnCounts[kind]++
	if e.sum.warnCounts[kind] > KeptWarnings {
		return
	}
	w := Warning{Pos: pos, Msg: msg, Kind: kind}
	e.sum.Warnings = append(e.sum.Warnings, w)
	e.reported = append(e.reported, w)
}

// Reported returns the warnings of the last Step to report, in order
// (the first KeptWarnings of each kind). Valid until the next Step.
func (e *Engine) Reported() []Warning { return e.reported }

// Finish completes the summary: agents sorted by name, totals computed. The
// engine must not be used afterwards.
func (e *Engine) Finish() *Summary {
	for _, p := range e.policies {
		if f, ok := p.(interface{ finishAgents(*Engine) }); ok {
			f.finishAgents(e)
		}
	}
	e.agents = agentTable{} // the books live on as the summary's timelines
	e.sum.finish()
	return &e.sum
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
