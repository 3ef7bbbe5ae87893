package breaker

import (
	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// Policy is the breaker on the analyze policy seam: a trip refuses the
// request and opens the breaker (the replay's "kill"), a request refused
// while it is open is "blocked"; the breaker's own decisions are kept for
// the decision records.
type Policy struct {
	b         *Breaker
	decisions []Decision
	json      fastjson.Parser
	result    *Result
}

// NewPolicy returns the breaker policy configured by cfg.
func NewPolicy(cfg Config) (*Policy, error) {
	b, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Policy{b: b}, nil
}

// Name is "breaker".
func (p *Policy) Name() string { return "breaker" }

// Control applies breaker_open and breaker_close records.
func (p *Policy) Control(rec *ingest.Record, fx *analyze.Effects) { p.b.Control(rec) }

// Decide runs the breaker on one request.
func (p *Policy) Decide(rec *ingest.Record, f *analyze.Features, d *analyze.Decision, fx *analyze.Effects) {
	if d.Action.Refused() {
		return // refused before the breaker: the work never ran, nothing is counted
	}
	bd, ok := p.b.Step(rec, p.errorBody(rec))
	if !ok {
		return
	}
	p.decisions = append(p.decisions, bd)
	switch bd.Action {
	case ActionTrip:
		d.Action, d.Status, d.Reason = analyze.ActionKill, 503, bd.Reason
		d.Score, d.Threshold = bd.ErrorRate, p.b.cfg.rules(rec.Agent).Rate // the timeline's kill: the rate against the threshold
	case ActionBlocked:
		d.Action, d.Status, d.Reason = analyze.ActionBlocked, 503, bd.Reason
	}
}

// errorBody reports whether the response is an error document.
func (p *Policy) errorBody(rec *ingest.Record) bool { return errorBody(&p.json, rec.Response) }

// SetLog makes the breaker report every Redis command the live handler
// would have issued (see Cmd).
func (p *Policy) SetLog(fn func(Cmd)) { p.b.Log = fn }

// Decisions returns the breaker's decisions, in replay order.
func (p *Policy) Decisions() []Decision { return p.decisions }

// Result finishes the breaker (once) and returns its result.
func (p *Policy) Result() *Result {
	if p.result == nil {
		p.result = p.b.Finish()
	}
	return p.result
}
