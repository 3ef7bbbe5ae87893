package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/gatewaylog"
)

// Verdict is one logged call decided again: verified when the replayed
// answer is what the gateway recorded, else the differences.
type Verdict struct {
	Call     *gatewaylog.Call
	Replayed Decision
	// Diffs says how the replay differs, the answer first ("recorded 200,
	// replayed 400 max_cost_per_request (cost 112.5¢)"), then the guardrail
	// decisions; empty when verified.
	Diffs []string
}

// Verified reports whether the replay agrees with the log.
func (v *Verdict) Verified() bool { return len(v.Diffs) == 0 }

// Verification is the outcome of verifying a gateway's log.
type Verification struct {
	Variant  string
	Verdicts []Verdict          // in replay order: created_at, then export order
	Bad      []*gatewaylog.Call // rows that could not be read, in export order; not replayed
	Calls    int
	Verified int
	Differ   int
	// ByDiff counts the differing calls by "recorded → replayed" answer
	// ("200 → 400 max_cost_per_request"), or, when both answered the
	// same, "400 prompt_injection_block both, policy_decisions_json
	// differs".
	ByDiff   map[string]int
	Warnings []Warning // from the control records
}

// Verify decides every logged call again through a fresh gateway under
// cfg, in created_at order (ties keep the export's order), with the
// freeze and unfreeze control records of controls applied at their time
// (before a call logged at the same instant), and compares each answer
// with the log: status_code, was_blocked, block_reason and, when
// recorded, policy_decisions_json. Bad rows (Call.Err set) are not
// replayed: they are listed in Bad.
func Verify(cfg Config, calls []*gatewaylog.Call, controls []*ingest.Record) (*Verification, error) {
	g, err := New(cfg)
	if err != nil {
		return nil, err
	}
	good := make([]*gatewaylog.Call, 0, len(calls))
	var bad []*gatewaylog.Call
	for _, c := range calls {
		if c.Err == nil {
			good = append(good, c)
		} else {
			bad = append(bad, c)
		}
	}
	sort.SliceStable(good, func(i, j int) bool { return good[i].Rec.TS.Before(good[j].Rec.TS) })
	ctl := make([]*ingest.Record, 0, len(controls))
	for _, r := range controls {
		if r.Err == nil && r.Control != nil {
			ctl = append(ctl, r)
		}
	}
	sort.SliceStable(ctl, func(i, j int) bool { return ctl[i].TS.Before(ctl[j].TS) })
	v := &Verification{Variant: g.cfg.Variant.Name, ByDiff: map[string]int{}, Bad: bad}
	k := 0
	for _, c := range good {
		for k < len(ctl) && !ctl[k].TS.After(c.Rec.TS) {
			g.Step(ctl[k])
			k++
		}
		rec := c.Rec
		d, _ := g.Step(&rec)
		vd := Verdict{Call: c, Replayed: d}
		vd.Diffs = compare(c, &d, g)
		v.Calls++
		if len(vd.Diffs) == 0 {
			v.Verified++
		} else {
			v.Differ++
			rec, rep := answer(c.Status, c.Blocked, c.BlockReason), answer(d.HTTPStatus, d.Blocked, d.BlockReason)
			if rec == rep { // the same answer: the guardrail decisions differ
				v.ByDiff[rec+" both, policy_decisions_json differs"]++
			} else {
				v.ByDiff[rec+" → "+rep]++
			}
		}
		v.Verdicts = append(v.Verdicts, vd)
	}
	for ; k < len(ctl); k++ {
		g.Step(ctl[k])
	}
	v.Warnings = g.Finish().Warnings
	return v, nil
}

// answer renders what a gateway answered: "200", "423 killswitch".
func answer(status int, blocked bool, reason string) string {
	s := strconv.Itoa(status)
	if reason != "" {
		s += " " + reason
	} else if blocked {
		s += " (blocked)"
	}
	return s
}

func compare(c *gatewaylog.Call, d *Decision, g *Gateway) []string {
	var diffs []string
	if c.Status != d.HTTPStatus || c.Blocked != d.Blocked || c.BlockReason != d.BlockReason {
		rec, rep := answer(c.Status, c.Blocked, c.BlockReason), answer(d.HTTPStatus, d.Blocked, d.BlockReason)
		if rec == rep { // the same status, refused on one side only
			rec += fmt.Sprintf(" (was_blocked %t)", c.Blocked)
			rep += fmt.Sprintf(" (was_blocked %t)", d.Blocked)
		}
		s := "recorded " + rec + ", replayed " + rep
		switch {
		case d.Invalid != "":
			s += " (" + d.Invalid + "; M22 logs no row for it)"
		case d.BlockReason == GuardCost || c.BlockReason == GuardCost:
			if d.HasCost {
				s += " (cost " + strconv.FormatFloat(round4(d.CostCents), 'f', -1, 64) + "¢, max " + pyNumber(g.cfg.MaxCostCents) + "¢)"
			}
		case d.BlockReason == GuardTokens || c.BlockReason == GuardTokens:
			s += " (max_tokens " + strconv.FormatInt(d.MaxTokens, 10) + ", max " + strconv.FormatInt(g.cfg.MaxTokens, 10) + ")"
		case c.BlockReason == "killswitch" && d.BlockReason == "":
			s += " (no freeze of tenant " + strconv.Quote(d.Tenant)
			if d.APIKeyID != "" {
				s += " or key " + strconv.Quote(d.APIKeyID)
			}
			s += " is in force: give the freeze records with --controls)"
		}
		diffs = append(diffs, s)
	}
	if c.Decisions != nil && d.Guardrails != nil {
		diffs = append(diffs, compareDecisions(c.Decisions, d.Guardrails)...)
	}
	return diffs
}

// loggedDecision is one entry of a recorded policy_decisions_json.
type loggedDecision struct {
	ID     *string `json:"guardrail_id"`
	Name   *string `json:"guardrail_name"`
	Passed *bool   `json:"passed"`
	Action *string `json:"action"`
	Reason *string `json:"reason"`
}

// compareDecisions compares a recorded policy_decisions_json with the
// replayed decisions field by field (JSON formatting does not matter).
func compareDecisions(recorded []byte, ds []GuardrailDecision) []string {
	var got []loggedDecision
	dec := json.NewDecoder(bytes.NewReader(recorded))
	if err := dec.Decode(&got); err != nil {
		return []string{"policy_decisions_json: not a list of guardrail decisions: " + err.Error()}
	}
	var diffs []string
	if len(got) != len(ds) {
		diffs = append(diffs, fmt.Sprintf("policy_decisions: recorded %d guardrails, replayed %d", len(got), len(ds)))
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return strconv.Quote(*p)
	}
	for i := 0; i < min(len(got), len(ds)); i++ {
		r, w := got[i], ds[i]
		var fields []string
		check := func(name, rec, rep string) {
			if rec != rep {
				fields = append(fields, name+" recorded "+rec+", replayed "+rep)
			}
		}
		check("guardrail_id", str(r.ID), strconv.Quote(w.ID))
		check("guardrail_name", str(r.Name), strconv.Quote(w.Name))
		passed := "null"
		if r.Passed != nil {
			passed = strconv.FormatBool(*r.Passed)
		}
		check("passed", passed, strconv.FormatBool(w.Passed))
		check("action", str(r.Action), str(nullable(w.Action)))
		check("reason", str(r.Reason), str(nullable(w.Reason)))
		if len(fields) > 0 {
			diffs = append(diffs, fmt.Sprintf("policy_decisions[%d] %s: %s", i, w.Name, strings.Join(fields, "; ")))
		}
	}
	return diffs
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
