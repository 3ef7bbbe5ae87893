// Package gateway replays an LLM gateway's tenant/key kill switch and
// default guardrails (AgenticVerz M22) over captured records: freezes from
// control records (HTTP 423), the default pack in priority order (400),
// and under the spec variant budgets (402), a per-tenant rate limit (429),
// the failure-spike auto-freeze and incidents.
//
// It is pure: records in (ingest.Record, in replay order), decisions and a
// Result out; no I/O. It keys state by tenant (Record.Tenant, else the
// agent) and API key (Record.APIKeyID).
package gateway

import (
	"crypto/sha1"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/killswitch/killswitch/analyze/gateway/pyrepr"
	"github.com/killswitch/killswitch/ingest"
)

// Decision is what the gateway answers one chat request.
type Decision struct {
	Seq      int64 // 1-based among the requests
	TS       time.Time
	Source   ingest.Pos
	CallID   string // proxy_calls.id: a UUID derived from the source position
	Tenant   string
	APIKeyID string
	Model    string // as M22 logs it (gpt-4o-mini when absent); "" for an invalid body

	HTTPStatus  int    // 423, 402, 429, 400, 422, 500, or the captured status when forwarded
	Blocked     bool   // was_blocked: refused by the kill switch, a budget, the rate limit or a guardrail
	BlockReason string // "killswitch", "budget", a guardrail name; "" is null
	ErrorCode   string // proxy_calls.error_code ("killswitch", "incident_prevented", …)
	Invalid     string // a body M22 refuses (422/500): what is wrong
	Logged      bool   // M22 writes a proxy_calls row (not for 422 and 500)

	Guardrails []GuardrailDecision // policy_decisions_json; nil when frozen or invalid
	CostCents  float64             // the cost estimate (dg-001), cents
	HasCost    bool
	ReprLen    int   // len(str(messages)) in code points
	MaxTokens  int64 // clamped to int64

	RequestJSON []byte // request_json: json.dumps(model_dump()) is not rebuilt; the captured body
	Status      int    // the captured upstream status
	IncidentID  string // spec: the incident this call belongs to

	// What M22 logs for a forwarded call: the capture's tokens and
	// calculate_cost of them (cents); zero for refused calls.
	InputTokens, OutputTokens int64
	ChargedCents              float64
}

// Refused reports whether the request never reached the LLM.
func (d *Decision) Refused() bool { return d.HTTPStatus != d.Status || d.Blocked }

// Warning is something a control record asked that changed nothing (the
// live API answers 409 or 404).
type Warning struct {
	Pos ingest.Pos
	Msg string
}

// Rejected is a chat body M22 refuses before any decision: the status
// the live gateway answers (422 validation, 500 a crash) and why.
type Rejected struct {
	Seq    int64
	Source ingest.Pos
	Status int
	Msg    string
}

// FreezeEvent is a change of a tenant's or key's freeze state.
type FreezeEvent struct {
	TS       time.Time
	Source   ingest.Pos
	Entity   string // "tenant" | "key"
	EntityID string
	Tenant   string
	Freeze   bool // false: unfreeze
	By       string
	Reason   string
	Auto     bool   // auto_triggered (failure spike)
	Trigger  string // trigger_type: "manual" | "failure_spike"
}

// EntityState is a killswitch_state row after the replay.
type EntityState struct {
	ID                   string
	Entity, EntityID     string
	Tenant               string
	Frozen               bool
	FrozenAt, UnfrozenAt time.Time // zero: null
	FrozenBy, UnfrozenBy string
	Reason               string
	Auto                 bool
	Trigger              string
	CreatedAt, UpdatedAt time.Time
}

// Totals count one tenant's or key's requests by outcome.
type Totals struct {
	Tenant, APIKeyID string // APIKeyID "" on tenant totals
	Requests         int
	Forwarded        int
	ByStatus         map[int]int
	CostAvoidedCents float64 // estimates of the refused requests
}

// Result is the end of a replay.
type Result struct {
	Variant string
	Config  Config
	// Start and End are the earliest and latest time of the records
	// replayed (requests and control records); zero when none.
	Start, End time.Time
	Incidents  []*Incident
	Tenants    []Totals // by tenant
	Keys       []Totals // by tenant, then key
	Freezes    []FreezeEvent
	States     []EntityState // by entity, then id
	Warnings   []Warning
	Rejected   []Rejected // bodies M22 refuses before deciding (422, 500), in replay order
	Requests   int
	ByStatus   map[int]int
	ByReason   map[string]int // block_reason → count
}

type entity struct{ kind, id string }

type tenantState struct {
	minute   int64 // fixed one-minute window of rpmCount
	rpmCount int
	spent    float64
	outcomes []outcome // within the spike window
	totals   *Totals
}

type outcome struct {
	ts  time.Time
	bad bool
}

// Gateway is the replay state. Not safe for concurrent use.
type Gateway struct {
	cfg     Config
	seq     int64
	states  map[entity]*EntityState
	tenants map[string]*tenantState
	keys    map[[2]string]*Totals
	res     Result
	inc     incidents
	firstTS time.Time
	lastTS  time.Time
	seen    bool // a record was replayed: firstTS and lastTS are set
	// counting: a sweep's gateway, which keeps only what decides later
	// decisions and the counts a sweep reports: no totals per tenant or
	// key, no calls or events of incidents (see newCounting).
	counting bool
}

// New returns a gateway with cfg (DefaultConfig(M22) when cfg.Variant is nil).
func New(cfg Config) (*Gateway, error) {
	if cfg.Variant == nil {
		cfg = DefaultConfig(M22)
	}
	if cfg.IncidentWindowSec <= 0 || cfg.AutoResolveSec <= 0 || cfg.SpikeWindowSec <= 0 || cfg.RPM <= 0 {
		return nil, fmt.Errorf("gateway: incident window, auto-resolve, spike window and rpm must be positive")
	}
	g := &Gateway{cfg: cfg, states: map[entity]*EntityState{}, tenants: map[string]*tenantState{}, keys: map[[2]string]*Totals{}}
	g.res = Result{Variant: cfg.Variant.Name, ByStatus: map[int]int{}, ByReason: map[string]int{}}
	g.inc.cfg = &g.cfg
	return g, nil
}

// Step replays one record. It returns the decision for a chat request and
// true; control records, malformed and skipped records return false.
func (g *Gateway) Step(rec *ingest.Record) (Decision, bool) {
	if rec.Err != nil || rec.Skip != "" {
		return Decision{}, false
	}
	g.observe(rec)
	if rec.Control != nil {
		g.control(rec)
		return Decision{}, false
	}
	return g.request(rec, parseBody(rec)), true
}

// observe notes a record's time: the capture's span, and the incidents
// it leaves stale.
func (g *Gateway) observe(rec *ingest.Record) {
	if !g.seen || rec.TS.After(g.lastTS) {
		g.lastTS = rec.TS
	}
	if !g.seen || rec.TS.Before(g.firstTS) {
		g.firstTS = rec.TS
	}
	g.seen = true
	if g.cfg.Variant.incidents {
		g.inc.resolveStale(rec.TS)
	}
}

// stepParsed is Step with the record's body already parsed (b is nil for
// a record that is no request).
func (g *Gateway) stepParsed(rec *ingest.Record, b *body) (Decision, bool) {
	if rec.Err != nil || rec.Skip != "" {
		return Decision{}, false
	}
	g.observe(rec)
	if rec.Control != nil {
		g.control(rec)
		return Decision{}, false
	}
	return g.request(rec, b), true
}

func tenantOf(rec *ingest.Record) string {
	if rec.Tenant != "" {
		return rec.Tenant
	}
	return rec.Agent
}

func (g *Gateway) state(kind, id, tenant string, ts time.Time) *EntityState {
	k := entity{kind, id}
	s := g.states[k]
	if s == nil {
		s = &EntityState{ID: UUID("killswitch_state", kind, id), Entity: kind, EntityID: id, Tenant: tenant, CreatedAt: ts}
		g.states[k] = s
	}
	return s
}

func (g *Gateway) control(rec *ingest.Record) {
	c := rec.Control
	if c.Event != ingest.ControlFreeze && c.Event != ingest.ControlUnfreeze {
		return // the loop kill switch's records are not the gateway's
	}
	id := rec.Tenant
	if c.Entity == "key" {
		id = rec.APIKeyID
	}
	s := g.state(c.Entity, id, rec.Tenant, rec.TS)
	freeze := c.Event == ingest.ControlFreeze
	switch {
	case freeze && s.Frozen:
		g.res.Warnings = append(g.res.Warnings, Warning{rec.Pos, fmt.Sprintf("%s %s is already frozen (the live API answers 409); nothing changes", c.Entity, id)})
		return
	case !freeze && !s.Frozen:
		g.res.Warnings = append(g.res.Warnings, Warning{rec.Pos, fmt.Sprintf("%s %s is not frozen (the live API answers 404); nothing changes", c.Entity, id)})
		return
	}
	g.setFrozen(s, FreezeEvent{TS: rec.TS, Source: rec.Pos, Entity: c.Entity, EntityID: id, Tenant: rec.Tenant,
		Freeze: freeze, By: c.By, Reason: c.Reason, Trigger: "manual"})
}

func (g *Gateway) setFrozen(s *EntityState, ev FreezeEvent) {
	if ev.Freeze {
		s.Frozen, s.FrozenAt, s.FrozenBy, s.Reason = true, ev.TS, ev.By, ev.Reason
		s.Auto, s.Trigger = ev.Auto, ev.Trigger
		s.UnfrozenAt, s.UnfrozenBy = time.Time{}, ""
	} else {
		s.Frozen, s.UnfrozenAt, s.UnfrozenBy = false, ev.TS, ev.By
	}
	s.UpdatedAt = ev.TS
	g.res.Freezes = append(g.res.Freezes, ev)
}

func (g *Gateway) tenant(id string) *tenantState {
	t := g.tenants[id]
	if t == nil {
		t = &tenantState{minute: -1 << 62}
		if !g.counting {
			t.totals = &Totals{Tenant: id, ByStatus: map[int]int{}}
		}
		g.tenants[id] = t
	}
	return t
}

// body is what a request's record gives every gateway alike: its call id
// and its parsed body. A sweep makes it once per record for all of its
// gateways; nothing in it is changed by a decision.
type body struct {
	callID  string
	req     *chatRequest
	bad     *invalidBody
	repr    []byte // str(messages)
	reprLen int
	lowered []byte // str(messages).lower(), made when first needed
}

func parseBody(rec *ingest.Record) *body {
	b := &body{callID: UUID("proxy_call", rec.Pos.String())}
	if b.req, b.bad = parseChat(rec.Request); b.bad == nil {
		// str(messages) is about as long as the body, plus "'name': None"
		// and a separator or two a message: made once at that size.
		size := len(rec.Request) + 24*len(b.req.Messages.Items) + 64
		b.repr = pyrepr.AppendRepr(make([]byte, 0, size), &b.req.Messages)
		b.reprLen = pyrepr.Len(b.repr)
	}
	return b
}

func (b *body) lower() []byte {
	if b.lowered == nil {
		b.lowered = pyrepr.Lower(b.repr)
	}
	return b.lowered
}

func (g *Gateway) request(rec *ingest.Record, b *body) Decision {
	g.seq++
	tid := tenantOf(rec)
	d := Decision{Seq: g.seq, TS: rec.TS, Source: rec.Pos, Tenant: tid, APIKeyID: rec.APIKeyID,
		Status: rec.Status, RequestJSON: rec.Request}
	d.CallID = b.callID
	t := g.tenant(tid)
	g.decide(rec, b, &d, t)
	if d.Invalid != "" {
		g.res.Rejected = append(g.res.Rejected, Rejected{d.Seq, d.Source, d.HTTPStatus, d.Invalid})
	}
	g.count(&d, t)
	return d
}

func (g *Gateway) decide(rec *ingest.Record, b *body, d *Decision, t *tenantState) {
	req, bad := b.req, b.bad
	if bad != nil {
		d.HTTPStatus, d.Invalid = bad.Status, bad.Msg
		return
	}
	d.Model = req.Model
	repr := b.repr
	d.ReprLen = b.reprLen
	if req.MaxTokens != nil {
		if req.MaxTokens.IsInt64() {
			d.MaxTokens = req.MaxTokens.Int64()
		} else {
			d.MaxTokens = 1<<63 - 1
		}
	}
	d.Logged = true
	// Frozen: 423, zero side effects, checked first.
	for _, e := range []entity{{"tenant", d.Tenant}, {"key", d.APIKeyID}} {
		if s := g.states[e]; s != nil && s.Frozen && e.id != "" {
			d.HTTPStatus, d.Blocked, d.BlockReason, d.ErrorCode = 423, true, "killswitch", "killswitch"
			d.Guardrails = []GuardrailDecision{}
			g.estimate(d, req, repr)
			trigger, value := "freeze", s.Reason
			if s.Auto {
				trigger, value = s.Trigger, s.Reason
			}
			g.incident(d, trigger, value, "freeze")
			return
		}
	}
	p := g.cfg.Variant
	if p.budgets {
		if budget := g.budget(d.Tenant); budget > 0 && t.spent >= budget {
			d.HTTPStatus, d.Blocked, d.BlockReason, d.ErrorCode = 402, true, "budget", "budget_exceeded"
			d.Guardrails = []GuardrailDecision{}
			g.estimate(d, req, repr)
			g.incident(d, "budget_breach", fmt.Sprintf("%s¢ spent of a %s¢ budget", pyNumber(round4(t.spent)), pyNumber(budget)), "block")
			return
		}
	}
	in := evalInput{req: req, repr: repr, lowered: b.lower()}
	if p.rpmWorks {
		m := rec.TS.Unix() / 60
		if rec.TS.Unix() < 0 && rec.TS.Unix()%60 != 0 {
			m--
		}
		if m != t.minute {
			t.minute, t.rpmCount = m, 0
		}
		t.rpmCount++
		in.rpmCount = t.rpmCount
	}
	if p.spikeWorks {
		in.errorRate, _ = g.errorRate(t, rec.TS)
	}
	ds, block, throttle, cost, crash := g.evaluate(&in)
	if crash {
		d.HTTPStatus, d.Logged = 500, false
		d.Invalid = "max_tokens is null: M22's cost estimate raises TypeError (None / 1_000_000)"
		return
	}
	d.Guardrails, d.CostCents, d.HasCost = ds, cost, true
	switch {
	case block != "":
		d.HTTPStatus, d.Blocked, d.BlockReason, d.ErrorCode = 400, true, block, "incident_prevented"
		trigger := "policy_violation"
		if block == GuardInjection {
			trigger = "content_policy"
		}
		g.incident(d, trigger, block, "block")
	case throttle != "":
		d.HTTPStatus, d.Blocked, d.BlockReason, d.ErrorCode = 429, true, throttle, "rate_limited"
		g.incident(d, "rate_limit", fmt.Sprintf(">%d requests/minute", g.cfg.RPM), "throttle")
	default:
		d.HTTPStatus = rec.Status
		d.InputTokens, d.OutputTokens = rec.TokensIn, rec.TokensOut
		d.ChargedCents = g.actualCost(rec, req.Model, cost)
		if p.budgets {
			t.spent += d.ChargedCents
		}
		if p.spikeWorks {
			g.recordOutcome(d, t, rec.Status < 200 || rec.Status > 299)
		}
	}
}

// estimate fills the cost estimate of a request refused before the pack
// (the cost it avoided), when max_tokens allows one.
func (g *Gateway) estimate(d *Decision, req *chatRequest, repr []byte) {
	if req.MaxTokens != nil {
		d.CostCents, d.HasCost = costCents(pyrepr.Len(repr), req.MaxTokens, priceOf(req.Model)), true
	}
}

func round4(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 4, 64), 64)
	return v
}

func (g *Gateway) budget(tenant string) float64 {
	if b, ok := g.cfg.Budgets[tenant]; ok {
		return b
	}
	return g.cfg.DefaultBudgetCents
}

// actualCost is M22's calculate_cost from the capture's tokens, else the
// estimate.
func (g *Gateway) actualCost(rec *ingest.Record, model string, estimate float64) float64 {
	if !rec.HasTokens {
		return estimate
	}
	p := priceOf(model)
	return float64(rec.TokensIn)/1e6*p.Input + float64(rec.TokensOut)/1e6*p.Output
}

// errorRate is the share of failed outcomes of the tenant's forwarded calls
// in the last SpikeWindowSec seconds, and their number.
func (g *Gateway) errorRate(t *tenantState, now time.Time) (float64, int) {
	cut := now.Add(-time.Duration(g.cfg.SpikeWindowSec) * time.Second)
	i := 0
	for i < len(t.outcomes) && !t.outcomes[i].ts.After(cut) {
		i++
	}
	t.outcomes = t.outcomes[i:]
	if len(t.outcomes) < g.cfg.SpikeMinSamples {
		return 0, len(t.outcomes)
	}
	bad := 0
	for _, o := range t.outcomes {
		if o.bad {
			bad++
		}
	}
	return float64(bad) / float64(len(t.outcomes)), len(t.outcomes)
}

// recordOutcome adds a forwarded call's outcome and freezes the tenant when
// the error rate over the window exceeds SpikeRate with enough samples.
func (g *Gateway) recordOutcome(d *Decision, t *tenantState, bad bool) {
	t.outcomes = append(t.outcomes, outcome{d.TS, bad})
	rate, n := g.errorRate(t, d.TS)
	if n < g.cfg.SpikeMinSamples || rate <= g.cfg.SpikeRate {
		return
	}
	value := fmt.Sprintf("error rate %s%% over %ds (%d calls)", pyNumber(round4(rate*100)), g.cfg.SpikeWindowSec, n)
	s := g.state("tenant", d.Tenant, d.Tenant, d.TS)
	g.setFrozen(s, FreezeEvent{TS: d.TS, Source: d.Source, Entity: "tenant", EntityID: d.Tenant, Tenant: d.Tenant,
		Freeze: true, By: "system", Reason: "Auto-frozen: " + value, Auto: true, Trigger: "failure_spike"})
	t.outcomes = nil
	g.incident(d, "failure_spike", value, "freeze")
}

func (g *Gateway) count(d *Decision, t *tenantState) {
	g.res.Requests++
	g.res.ByStatus[d.HTTPStatus]++
	if d.BlockReason != "" {
		g.res.ByReason[d.BlockReason]++
	}
	if g.counting {
		return // a sweep's gateway: no totals per tenant and key
	}
	k := [2]string{d.Tenant, d.APIKeyID}
	kt := g.keys[k]
	if kt == nil {
		kt = &Totals{Tenant: d.Tenant, APIKeyID: d.APIKeyID, ByStatus: map[int]int{}}
		g.keys[k] = kt
	}
	for _, tot := range []*Totals{t.totals, kt} {
		tot.Requests++
		tot.ByStatus[d.HTTPStatus]++
		if d.Blocked {
			tot.CostAvoidedCents += d.CostCents
		} else if d.HTTPStatus == d.Status {
			tot.Forwarded++
		}
	}
}

// Finish returns the result; incidents whose AutoResolveSec passed before
// the last record's time are resolved, the others stay open.
func (g *Gateway) Finish() *Result {
	if g.cfg.Variant.incidents {
		g.inc.resolveStale(g.lastTS)
	}
	r := g.res
	r.Config, r.Start, r.End = g.cfg, g.firstTS, g.lastTS
	r.Incidents = g.inc.list
	for _, t := range g.tenants {
		if t.totals != nil {
			r.Tenants = append(r.Tenants, *t.totals)
		}
	}
	sort.Slice(r.Tenants, func(i, j int) bool { return r.Tenants[i].Tenant < r.Tenants[j].Tenant })
	for _, k := range g.keys {
		r.Keys = append(r.Keys, *k)
	}
	sort.Slice(r.Keys, func(i, j int) bool {
		if r.Keys[i].Tenant != r.Keys[j].Tenant {
			return r.Keys[i].Tenant < r.Keys[j].Tenant
		}
		return r.Keys[i].APIKeyID < r.Keys[j].APIKeyID
	})
	for _, s := range g.states {
		r.States = append(r.States, *s)
	}
	sort.Slice(r.States, func(i, j int) bool {
		if r.States[i].Entity != r.States[j].Entity {
			return r.States[i].Entity < r.States[j].Entity
		}
		return r.States[i].EntityID < r.States[j].EntityID
	})
	return &r
}

// UUID returns a version-5-style UUID (SHA-1, RFC 9562 §5.5) of the parts
// joined by NUL bytes, in the namespace of this package: ids derived from
// content, so the same replay writes the same rows.
func UUID(parts ...string) string {
	h := sha1.New()
	h.Write([]byte("killswitch/gateway"))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	var b [20]byte
	sum := h.Sum(b[:0])
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return ingest.FormatUUID(sum)
}
