package analyze

import (
	"fmt"
	"strconv"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// LoopPolicy is the loop kill switch of SPEC §1 on the policy seam: per
// agent, a profile's detector scores each request; past the threshold the
// agent is deactivated (or, in block mode, the request refused with HTTP
// 429); a deactivated agent's requests are refused until an activation.
type LoopPolicy struct {
	cfg Config
	// An Engine running the policy keeps each agent's LoopAgent in its own
	// book (shared) and points cur at the record's agent before each call;
	// otherwise the policy keeps its agents in a map of its own.
	shared bool
	cur    *LoopAgent
	agents map[string]*LoopAgent
	// settings are the agents' starting settings, shared by the agents
	// that start with them (a config record gives an agent its own).
	settings map[string]*Settings
	defaults *Settings
	slab     windowSlab // the storage of the windows, while small
}

// NewLoopPolicy validates the loop settings of cfg and returns the policy.
func NewLoopPolicy(cfg Config) (*LoopPolicy, error) {
	if cfg.Profile == nil {
		cfg.Profile = ProfileSpec
	}
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
	p := &LoopPolicy{cfg: cfg, agents: map[string]*LoopAgent{}, settings: map[string]*Settings{}, defaults: new(Settings)}
	*p.defaults = cfg.Default
	for name, s := range cfg.Agents {
		p.settings[name] = &s
	}
	return p, nil
}

// Name is "loop".
func (p *LoopPolicy) Name() string { return "loop" }

func (p *LoopPolicy) agent(name string) *LoopAgent {
	if p.shared {
		return p.cur
	}
	a := p.agents[name]
	if a == nil {
		a = new(LoopAgent)
		p.init(a, name)
		p.agents[name] = a
	}
	return a
}

// init sets a up as the new agent name.
// claimBooks, initBook and selectBook make the policy a bookedPolicy of
// the engine.
func (p *LoopPolicy) claimBooks() bool {
	if p.shared {
		return false
	}
	p.shared = true
	return true
}

func (p *LoopPolicy) selectBook(a *LoopAgent) { p.cur = a }

func (p *LoopPolicy) initBook(a *LoopAgent, name string) { p.init(a, name) }

func (p *LoopPolicy) init(a *LoopAgent, name string) {
	s := p.settings[name]
	if s == nil {
		s = p.defaults
	}
	*a = LoopAgent{settings: s}
	if prof := p.cfg.Profile.or(); prof.Windowed() {
		a.w.size = int32(s.WindowSize)
	} else {
		a.det = prof.detector(s.WindowSize)
	}
}

// named sets the agent of the transitions fx gained since it held from.
func named(fx *Effects, from int, agent string) {
	for i := from; i < len(fx.Transitions); i++ {
		fx.Transitions[i].Agent = agent
	}
}

// Control applies activate, deactivate and config records to the agent.
func (p *LoopPolicy) Control(rec *ingest.Record, fx *Effects) {
	a := p.agent(rec.Agent)
	defer named(fx, len(fx.Transitions), rec.Agent)
	a.MaybeReactivate(p.cfg.ReactivateAfter, rec.TS, fx)
	c := rec.Control
	switch c.Event {
	case ingest.ControlActivate:
		a.Activate(rec.TS, "operator", rec.Pos, fx)
	case ingest.ControlDeactivate:
		by := c.By
		if by == "" {
			by = "manual"
		}
		a.Deactivate(by, rec.TS)
		fx.Transitions = append(fx.Transitions, Transition{Kind: TransitionDeactivate, TS: rec.TS, By: by, Settings: *a.settings, Source: rec.Pos})
	case ingest.ControlConfig:
		s := a.settings.Apply(c.KillSwitch)
		if err := s.Validate(); err != nil {
			fx.Warnings = append(fx.Warnings, "config ignored: "+err.Error())
			return
		}
		a.settings = &s
		a.resize(s.WindowSize)
		fx.Transitions = append(fx.Transitions, Transition{Kind: TransitionConfig, TS: rec.TS, Settings: s, Source: rec.Pos})
	}
}

// Decide scores the request and enforces the verdict.
func (p *LoopPolicy) Decide(rec *ingest.Record, f *Features, d *Decision, fx *Effects) {
	a := p.agent(rec.Agent)
	defer named(fx, len(fx.Transitions), rec.Agent)
	a.MaybeReactivate(p.cfg.ReactivateAfter, rec.TS, fx)
	d.Threshold, d.Window = a.settings.Threshold, a.settings.WindowSize
	if d.Action.Refused() {
		return // refused by a policy before this one: never reaches the detector
	}
	switch {
	case a.off != nil:
		d.Action = ActionBlocked
		d.Status = 403
		d.Reason, d.KillSeq = a.off.blockedReason(), a.off.killSeq()
	case f.Err != nil:
		d.Action = ActionSkip
		d.Reason = f.Err.Error()
	default:
		f.TS = d.TS.UnixNano()
		d.PromptHash, d.HasPrompt = f.Prompt, f.HasPrompt
		sc, action := a.decide(&p.cfg, f, &p.slab)
		d.Counts, d.Score, d.Action = sc.Counts, sc.Value, action
		p.explain(a, d, sc)
		switch action {
		case ActionKill:
			d.Status = 403
			a.Kill(d.TS, d.Seq)
			fx.Transitions = append(fx.Transitions, Transition{Kind: TransitionKill, TS: d.TS, By: "kill_switch",
				Seq: d.Seq, Settings: *a.settings, Source: d.Source})
		case ActionBlock:
			d.Status = 429
		case ActionForward:
			d.ResponseHash, d.HasResponse = f.Response, f.HasResp
		}
	}
}

// explain writes the decision's reason.
func (p *LoopPolicy) explain(a *LoopAgent, d *Decision, sc Score) {
	prof, th := p.cfg.Profile, a.settings.Threshold
	fires := prof.Fires(sc.Value, th)
	var why string
	switch {
	case fires && !a.settings.Enabled:
		why = fmt.Sprintf("kill switch disabled: score %.1f %s threshold %s would have fired", sc.Value, prof.Op(), fmtNum(th))
	case d.Action == ActionBlock:
		why = fmt.Sprintf("loop detected: score %.1f %s threshold %s; HTTP 429, retry after %d s",
			sc.Value, prof.Op(), fmtNum(th), int64(p.cfg.RetryAfter/time.Second))
	case d.Action == ActionKill:
		why = fmt.Sprintf("loop detected: score %.1f %s threshold %s; agent deactivated", sc.Value, prof.Op(), fmtNum(th))
	}
	if sc.Explain != "" && why != "" {
		why += ": " + sc.Explain
		d.Why = sc.Explain
	}
	d.Reason = why
}

// finishAgents records each agent's final state in its timeline, and
// lets go of its window.
func (p *LoopPolicy) finishAgents(e *Engine) {
	if p.shared {
		e.agents.each(func(b *agentBook) {
			if b.loop.off != nil {
				x := b.sum.extra()
				x.FinalState, x.FinalDeactivatedBy = StateInactive, b.loop.off.by
			}
			b.loop = LoopAgent{}
		})
		p.slab = windowSlab{}
		return
	}
	for name, a := range p.agents {
		if a.off != nil {
			x := e.book(name).sum.extra()
			x.FinalState, x.FinalDeactivatedBy = StateInactive, a.off.by
		}
	}
}

// LoopAgent is one agent's loop kill-switch state: the state machine the
// replay and the sweep share. An active agent holds its settings (shared
// with the agents that have the same) and its detector (for windowed
// profiles, the window inline: one allocation fewer per agent); what an
// inactive one needs besides is allocated when it is deactivated. The
// transitions it reports leave Agent empty: the caller knows whom it
// follows.
type LoopAgent struct {
	settings *Settings
	off      *deactivation // nil while active
	det      Detector      // nil: the profile's window, w
	w        Window
}

// deactivation is what an inactive agent remembers of its deactivation.
type deactivation struct {
	by     string
	at     time.Time // the kill's time
	seq    int64     // the killing request, for kills
	reason string    // the blocked requests' Decision.Reason, made for the first
}

// blockedReason returns the reason of the requests blocked while the
// deactivation lasts, made once rather than for each of them.
func (o *deactivation) blockedReason() string {
	if o.reason == "" {
		o.reason = BlockedReason(o.by, o.killSeq())
	}
	return o.reason
}

// killSeq is the killing request's Seq, or 0 when an operator deactivated
// the agent.
func (o *deactivation) killSeq() int64 {
	if o.by == "kill_switch" {
		return o.seq
	}
	return 0
}

// BlockedReason is the Reason of a request refused because its agent was
// inactive: deactivated by by ("kill_switch", "manual"), at the request
// numbered killSeq when the kill switch did it (0: not said). A replay
// that numbers requests otherwise (the Beam pipeline) makes the reason
// again from Decision.KillSeq.
func BlockedReason(by string, killSeq int64) string {
	r := "agent inactive: deactivated by " + by
	if killSeq > 0 {
		r += " at seq " + strconv.FormatInt(killSeq, 10)
	}
	return r
}

// resize and clear change the detector's window.
func (a *LoopAgent) resize(n int) {
	if a.det != nil {
		a.det.Resize(n)
		return
	}
	a.w.Resize(n)
}

func (a *LoopAgent) clear() {
	if a.det != nil {
		a.det.Clear()
		return
	}
	a.w.Clear()
}

// decide scores the request with features f and returns the action its
// score calls for; it enters the request into the history unless the
// agent is killed by it (a killed request gets no response, and the
// history no longer matters until an activation clears it).
func (a *LoopAgent) Decide(cfg *Config, f *Features) (Score, Action) { return a.decide(cfg, f, nil) }

// decide is Decide, the window's storage growing from slab (nil: the heap).
func (a *LoopAgent) decide(cfg *Config, f *Features, slab *windowSlab) (Score, Action) {
	var sc Score
	if a.det != nil {
		sc = a.det.Score(f)
	} else {
		sc = windowScore(&a.w, cfg.Profile.or(), a.settings.WindowSize, f)
	}
	fires := cfg.Profile.Fires(sc.Value, a.settings.Threshold)
	answered := true
	switch {
	case fires && a.settings.Enabled && cfg.Mode == ModeBlock:
		answered = false
	case fires && a.settings.Enabled:
		return sc, ActionKill
	}
	if a.det != nil {
		a.det.Push(f, answered)
	} else {
		windowPush(&a.w, f, answered, slab)
	}
	if !answered {
		return sc, ActionBlock
	}
	return sc, ActionForward
}

func (a *LoopAgent) Kill(ts time.Time, seq int64) {
	a.off = &deactivation{by: "kill_switch", at: ts, seq: seq}
}

func (a *LoopAgent) Deactivate(by string, ts time.Time) {
	a.off = &deactivation{by: by, at: ts}
}

func (a *LoopAgent) Activate(ts time.Time, by string, pos ingest.Pos, fx *Effects) {
	a.off = nil
	a.clear()
	if fx != nil {
		fx.Transitions = append(fx.Transitions, Transition{Kind: TransitionActivate, TS: ts, By: by, Settings: *a.settings, Source: pos})
	}
}

// maybeReactivate re-activates an agent the kill switch deactivated once
// after has passed since the kill (--reactivate-after), at the kill time
// plus after.
func (a *LoopAgent) MaybeReactivate(after time.Duration, now time.Time, fx *Effects) {
	if after <= 0 || a.off == nil || a.off.by != "kill_switch" {
		return
	}
	at := a.off.at.Add(after)
	if now.Before(at) {
		return
	}
	a.Activate(at, "reactivate-after", ingest.Pos{}, fx)
}

// NewLoopAgent returns an active agent with settings s scoring with det:
// the per-agent state machine of LoopPolicy, for evaluators (the sweep)
// that follow one agent themselves.
func NewLoopAgent(s Settings, det Detector) *LoopAgent {
	return &LoopAgent{settings: &s, det: det}
}

// State is the agent's enforcement state.
func (a *LoopAgent) State() AgentState {
	if a.off != nil {
		return StateInactive
	}
	return StateActive
}
