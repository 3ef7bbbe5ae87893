package gateway

import (
	"bytes"
	"fmt"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// Policy is the gateway on the analyze policy seam: every record goes
// through Gateway.Step in replay order; a request the gateway refuses is
// refused in the replay's decision too (423: blocked, the tenant or key is
// frozen; 400, 402, 429, 422, 500: refused by a guardrail, a budget, the
// rate limit or a body M22 rejects). Its own decisions and result are kept
// for the reports and the PostgreSQL writes.
type Policy struct {
	g         *Gateway
	decisions []Decision
	result    *Result
	// NoDecisions: keep none (the reports that need only the result:
	// memory then does not grow with the capture's calls).
	NoDecisions bool
	latest      map[string]mark // per tenant: its latest record so far
}

// mark is a record's time and position.
type mark struct {
	ts  time.Time
	pos ingest.Pos
}

// order warns, like the engine does per agent, about a record earlier
// than one already replayed for its tenant: the gateway's state (freezes,
// the rpm window, budgets, spikes) is per tenant and its keys, whatever
// the agent, so a freeze at 10:00 placed before a 09:00 call of that
// tenant is out of order even when their agents differ. The engine's own
// per-agent warning is not repeated for the same record.
func (p *Policy) order(rec *ingest.Record, fx *analyze.Effects) {
	t := tenantOf(rec)
	last, ok := p.latest[t]
	if ok && rec.TS.Before(last.ts) {
		fx.Warnings = append(fx.Warnings, fmt.Sprintf("%s %s is before %s at %s (tenant %q); replayed in input order",
			analyze.OutOfOrderPrefix, ingest.FormatTime(rec.TS), ingest.FormatTime(last.ts), last.pos, t))
		return
	}
	if p.latest == nil {
		p.latest = map[string]mark{}
	}
	p.latest[t] = mark{rec.TS, rec.Pos}
}

// NewPolicy returns the gateway policy configured by cfg.
func NewPolicy(cfg Config) (*Policy, error) {
	g, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Policy{g: g}, nil
}

// Name is "gateway".
func (p *Policy) Name() string { return "gateway" }

// Control applies freeze and unfreeze records.
// Freezing what is frozen, or unfreezing what is not, is a warning (also
// in the result).
func (p *Policy) Control(rec *ingest.Record, fx *analyze.Effects) {
	if c := rec.Control; c != nil && (c.Event == ingest.ControlFreeze || c.Event == ingest.ControlUnfreeze) {
		p.order(rec, fx)
	}
	n := len(p.g.res.Warnings)
	p.g.Step(rec)
	for _, w := range p.g.res.Warnings[n:] {
		fx.Warnings = append(fx.Warnings, w.Msg)
	}
}

// Decide decides one request as the gateway would.
func (p *Policy) Decide(rec *ingest.Record, f *analyze.Features, d *analyze.Decision, fx *analyze.Effects) {
	gd, ok := p.g.Step(rec)
	if !ok {
		return
	}
	p.order(rec, fx)
	if !p.NoDecisions {
		// The body is the replay's until the next batch: the decision
		// keeps a copy for the state writes (request_json).
		gd.RequestJSON = bytes.Clone(gd.RequestJSON)
		p.decisions = append(p.decisions, gd)
	}
	if gd.Invalid != "" {
		// Bad input: reported with its position as it is met, and counted.
		fx.Warnings = append(fx.Warnings, fmt.Sprintf("the live gateway answers %d: %s", gd.HTTPStatus, gd.Invalid))
	}
	if d.Action.Refused() || !gd.Refused() {
		return
	}
	d.Status = gd.HTTPStatus
	d.Action = analyze.ActionBlock
	if gd.HTTPStatus == 423 {
		d.Action = analyze.ActionBlocked
	}
	switch {
	case gd.Invalid != "":
		d.Reason = fmt.Sprintf("HTTP %d: %s", gd.HTTPStatus, gd.Invalid)
	case gd.BlockReason != "":
		d.Reason = fmt.Sprintf("HTTP %d: %s", gd.HTTPStatus, gd.BlockReason)
		for _, g := range gd.Guardrails {
			if !g.Passed && g.Name == gd.BlockReason && g.Reason != "" {
				d.Reason += ": " + g.Reason
				break
			}
		}
	default:
		d.Reason = fmt.Sprintf("HTTP %d", gd.HTTPStatus)
	}
}

// Decisions returns the gateway's decisions, in replay order.
func (p *Policy) Decisions() []Decision { return p.decisions }

// Result finishes the gateway (once) and returns its result.
func (p *Policy) Result() *Result {
	if p.result == nil {
		p.result = p.g.Finish()
	}
	return p.result
}
