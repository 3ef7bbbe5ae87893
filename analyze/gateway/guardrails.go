package gateway

import (
	"math"
	"math/big"
	"strconv"

	"github.com/killswitch/killswitch/analyze/gateway/pyrepr"
)

// Price is a model's price in cents per million tokens.
type Price struct{ Input, Output float64 }

// Prices is M22's COST_MODELS table for chat models (cents per 1M tokens).
// A model not in it is priced as gpt-4o-mini.
var Prices = map[string]Price{
	"gpt-4o":                     {250, 1000},
	"gpt-4o-mini":                {15, 60},
	"gpt-4-turbo":                {1000, 3000},
	"gpt-4":                      {3000, 6000},
	"gpt-3.5-turbo":              {50, 150},
	"claude-3-5-sonnet-20241022": {300, 1500},
	"claude-3-5-haiku-20241022":  {80, 400},
	"claude-opus-4-20250514":     {1500, 7500},
}

func priceOf(model string) Price {
	if p, ok := Prices[model]; ok {
		return p
	}
	return Prices[defaultModel]
}

// InjectionPatterns are dg-005's phrases, in its order. The last two are
// the literal backslash sequences, not newlines.
var InjectionPatterns = []string{
	"ignore previous instructions", "disregard above", "system prompt:",
	`\n\nHuman:`, `\n\nAssistant:`,
}

// GuardrailDecision is one entry of M22's policy_decisions_json.
type GuardrailDecision struct {
	ID, Name string
	Passed   bool
	Action   string // "" is null: M22 writes the action only when the guardrail failed
	Reason   string // "" is null
}

// Guardrail ids and names of M22's default pack.
const (
	GuardInjection = "prompt_injection_block"
	GuardSpike     = "failure_spike_freeze"
	GuardCost      = "max_cost_per_request"
	GuardTokens    = "max_tokens_per_request"
	GuardRPM       = "rate_limit_rpm"
)

// evalInput is what the pack sees of one request.
type evalInput struct {
	req       *chatRequest
	repr      []byte // str(messages)
	lowered   []byte // str(messages).lower()
	errorRate float64
	rpmCount  int // requests of the tenant in this fixed minute, this one included
}

// costCents is M22's estimate: (len(repr) // 4) / 1e6 × input price +
// max_tokens / 1e6 × output price, in float64 as CPython computes it (int
// / int true division is correctly rounded, as big.Rat's Float64 is).
func costCents(reprLen int, maxTokens *big.Int, p Price) float64 {
	in := float64(reprLen/4) / 1e6
	out, _ := new(big.Rat).SetFrac(maxTokens, big.NewInt(1_000_000)).Float64()
	return in*p.Input + out*p.Output
}

// pyNumber formats a settings number as CPython prints the JSON value the
// rule config holds: an integral value as an int, else as a float.
func pyNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return string(pyrepr.AppendFloat(nil, f))
}

// evaluate runs the pack in priority order and returns every decision, the
// first failed block guardrail (400) and the first failed throttle (429).
// A null max_tokens makes the cost estimate raise TypeError in M22: that
// is the 500 the caller answers, signalled by crash.
func (g *Gateway) evaluate(in *evalInput) (ds []GuardrailDecision, block, throttle string, cost float64, crash bool) {
	c := &g.cfg
	for _, gr := range g.cfg.Variant.pack {
		d := GuardrailDecision{ID: gr.id, Name: gr.name, Passed: true}
		switch gr.name {
		case GuardInjection:
			for _, p := range InjectionPatterns {
				if pyrepr.ContainsLower(in.lowered, p) {
					d.Passed = false
					d.Reason = "Blocked pattern detected: " + FirstRunes(p, 20) + "..."
					break
				}
			}
		case GuardSpike:
			if g.cfg.Variant.spikeWorks && in.errorRate > c.SpikeRate {
				d.Passed = false
				d.Reason = "error_rate (" + string(pyrepr.AppendFloat(nil, in.errorRate)) + ") exceeds threshold (" + pyNumber(c.SpikeRate) + ")"
			}
		case GuardCost:
			if in.req.MaxTokens == nil {
				return ds, "", "", 0, true
			}
			cost = costCents(pyrepr.Len(in.repr), in.req.MaxTokens, priceOf(in.req.Model))
			if cost > c.MaxCostCents {
				d.Passed = false
				d.Reason = "cost_cents (" + string(pyrepr.AppendFloat(nil, cost)) + ") exceeds max (" + pyNumber(c.MaxCostCents) + ")"
			}
		case GuardTokens:
			if in.req.MaxTokens.Cmp(big.NewInt(c.MaxTokens)) > 0 {
				d.Passed = false
				d.Reason = "max_tokens (" + in.req.MaxTokens.String() + ") exceeds max (" + strconv.FormatInt(c.MaxTokens, 10) + ")"
			}
		case GuardRPM:
			if g.cfg.Variant.rpmWorks && in.rpmCount > c.RPM {
				d.Passed = false
				d.Reason = "requests_per_minute (" + strconv.Itoa(in.rpmCount) + ") exceeds max (" + strconv.Itoa(c.RPM) + ")"
			}
		}
		if !d.Passed {
			d.Action = gr.action
			switch {
			case gr.action == "block" && block == "":
				block = gr.name
			case gr.action == "throttle" && throttle == "":
				throttle = gr.name
			}
		}
		ds = append(ds, d)
	}
	return ds, block, throttle, cost, false
}

// FirstRunes returns the first n code points of s (Python's s[:n]).
func FirstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// AppendDecisionsJSON appends ds as M22 stores them in
// policy_decisions_json: Python's json.dumps (", " and ": " separators,
// ASCII escapes) of a list of {guardrail_id, guardrail_name, passed,
// action, reason}.
func AppendDecisionsJSON(dst []byte, ds []GuardrailDecision) []byte {
	dst = append(dst, '[')
	for i, d := range ds {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, `{"guardrail_id": `...)
		dst = appendPyJSONString(dst, d.ID)
		dst = append(dst, `, "guardrail_name": `...)
		dst = appendPyJSONString(dst, d.Name)
		dst = append(dst, `, "passed": `...)
		dst = strconv.AppendBool(dst, d.Passed)
		dst = append(dst, `, "action": `...)
		dst = appendPyJSONNullable(dst, d.Action)
		dst = append(dst, `, "reason": `...)
		dst = appendPyJSONNullable(dst, d.Reason)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendPyJSONNullable(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return appendPyJSONString(dst, s)
}

// appendPyJSONString is json.dumps of a str with ensure_ascii=True.
func appendPyJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\b':
			dst = append(dst, `\b`...)
		case r == '\f':
			dst = append(dst, `\f`...)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				r -= 0x10000
				dst = appendU(dst, 0xd800+(r>>10))
				dst = appendU(dst, 0xdc00+(r&0x3ff))
				continue
			}
			dst = appendU(dst, r)
		default:
			dst = append(dst, byte(r))
		}
	}
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
