package breaker

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Action is what the breaker did with a request.
type Action uint8

const (
	ActionForward Action = iota // allowed (closed, disabled, or too few samples)
	ActionTrip                  // the request that opened the breaker: refused
	ActionBlocked               // refused while the breaker was open
)

var actionNames = [...]string{"forward", "trip", "blocked"}

func (a Action) String() string { return actionNames[a] }

// Decision is the breaker's answer for one request.
type Decision struct {
	Seq         int64 // 1-based among the requests
	ScopeN      int   // 1-based among the scope's requests
	TS          time.Time
	Source      ingest.Pos
	Scope       Scope
	Action      Action
	ErrorRate   float64 // errors / samples read before the request (0 without samples)
	Samples     int     // successes + errors read before the request
	Errors      int
	Reason      string
	SecondsLeft int64 // blocked: until the breaker closes
	Error       bool  // the forwarded request's outcome was an error
	Counted     bool  // its outcome was counted (forwarded, breaker enabled)
}

// Trip is one opening of a breaker.
type Trip struct {
	TS                        time.Time
	ScopeN                    int
	Seq                       int64
	Source                    ingest.Pos
	ErrorRate                 float64
	Samples                   int
	Until                     time.Time // when it closes by itself
	Refused                   int       // requests refused while it was open (the trip included)
	Provider, Model, Endpoint string
	Statuses                  map[int]int // the statuses of the errors counted before it
}

// ScopeResult is one breaker's timeline.
type ScopeResult struct {
	Scope     Scope
	Requests  int
	Forwarded int
	Errors    int // forwarded requests whose outcome was an error
	Refused   int
	Trips     []Trip
	Manual    []Manual // operators' openings and closings, in order
	Open      bool     // still open at the end of the capture
	// What the live system's keys hold at the end of the capture: the
	// counters (zero when the key has expired) and when each key expires.
	Successes, ErrorCount        int
	SuccessExpires, ErrorExpires time.Time
	OpenUntil                    time.Time // when Open
	// NoStatus counts forwarded requests without a status (and without an
	// error body): counted as neither a success nor an error.
	NoStatus int
}

// Manual is an operator opening (for a while, with a reason) or closing a
// breaker: a breaker_open or breaker_close control record.
type Manual struct {
	TS      time.Time
	Source  ingest.Pos
	Open    bool
	Until   time.Time // when Open
	Reason  string
	Refused int // requests refused while it was open by this record
}

// FileCount is a count of something in one input file.
type FileCount struct {
	File string
	N    int
}

// TenantTotals add up a tenant's scopes.
type TenantTotals struct {
	Tenant                       string
	Scopes, ScopesTripped, Trips int
	Requests, Refused            int
}

// Group is trips of several scopes close in time that share a tenant,
// provider, model or endpoint: an upstream outage more likely than the
// agents.
type Group struct {
	Key, Value string // "tenant", "provider", "model" or "endpoint"
	// Shared are the other attributes (key, value) every trip of the
	// group has in common, in that order.
	Shared   [][2]string
	Trips    []GroupTrip
	Span     time.Duration
	Statuses map[int]int
	Text     string
}

// GroupTrip is one trip of a group.
type GroupTrip struct {
	Scope Scope
	TS    time.Time
}

// Result is the end of a breaker replay.
type Result struct {
	Config   Config
	Scopes   []*ScopeResult // sorted by tenant, agent, workflow
	Tenants  []TenantTotals
	Groups   []Group
	Requests int
	Trips    int
	Refused  int
	Start    time.Time // the capture's first time (of a request)
	End      time.Time // the capture's last time
	// NoStatus counts, per input file (sorted by name), the requests
	// without a status that were counted as neither success nor error.
	NoStatus []FileCount
	// Shared lists the scopes that share another scope's Redis keys, in
	// the order first seen: one breaker in the replay, as in the live
	// system (see SharedKeys).
	Shared []SharedKeys
}

// SharedKeys is a scope whose Redis keys are another's: the live handler
// formats [tenant:T:]stats:AGENT:WORKFLOW, so agent "a:b" in workflow "c"
// and agent "a" in workflow "b:c" share one set of counters and one
// active flag.
type SharedKeys struct {
	Key    string     // the keys' common stem: [tenant:T:]stats:AGENT:WORKFLOW
	Scope  Scope      // the scope that came second
	Source ingest.Pos // its first record
	With   Scope      // the breaker's first scope, the one it is reported under
}

type scopeState struct {
	res         *ScopeResult
	open        bool
	manual      bool // opened by an operator, not by a trip
	until       time.Time
	succ, errc  counter
	errStatuses map[int]int
}

// Breaker replays records in order.
type Breaker struct {
	cfg        Config
	scopes     map[string]*scopeState // by the stem of the scope's Redis keys
	byScope    map[Scope]*scopeState  // the same, by scope: no key is formatted per request
	shared     []SharedKeys
	seq        int64
	start, end time.Time
	noStatus   map[string]int // per file
	// Log, when set, sees every Redis command the live handler would have
	// issued, at its capture time.
	Log func(Cmd)
}

// Cmd is one Redis write of the live handler: INCR of a counter, EXPIRE
// of it (refresh: after every INCR; fixed: when the INCR created it), SET
// … EX of the active key when the breaker opens. Reads are not listed.
type Cmd struct {
	TS      time.Time
	Source  ingest.Pos
	Op      string // "INCR", "EXPIRE", "SET", "DEL"
	Key     string
	Value   string // SET
	Seconds int64  // EXPIRE, SET … EX
}

func (b *Breaker) log(c Cmd) {
	if b.Log != nil {
		b.Log(c)
	}
}

func keyBase(s Scope) string { return Namespace(s.Tenant) + "%s:" + s.Agent + ":" + s.Workflow }

// New validates cfg and returns a breaker.
func New(cfg Config) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Breaker{cfg: cfg, scopes: map[string]*scopeState{}, byScope: map[Scope]*scopeState{}, noStatus: map[string]int{}}, nil
}

// ScopeOf returns the breaker a record belongs to.
func ScopeOf(rec *ingest.Record) Scope {
	w := rec.Workflow
	if w == "" {
		w = "default"
	}
	return Scope{Tenant: rec.Tenant, Agent: rec.Agent, Workflow: w}
}

// state returns the breaker of scope s: the live handler's keys are
// [tenant:T:]stats:AGENT:WORKFLOW, so two scopes whose names give the
// same key (agent "a:b" workflow "c", agent "a" workflow "b:c") are one
// breaker; the second is recorded once in Shared.
func (b *Breaker) state(s Scope, pos ingest.Pos) *scopeState {
	if st := b.byScope[s]; st != nil {
		return st
	}
	key := fmt.Sprintf(keyBase(s), "stats")
	st := b.scopes[key]
	if st == nil {
		st = &scopeState{res: &ScopeResult{Scope: s}}
		b.scopes[key] = st
	} else { // a scope not seen before, with the keys of one that was
		b.shared = append(b.shared, SharedKeys{Key: key, Scope: s, Source: pos, With: st.res.Scope})
	}
	b.byScope[s] = st
	return st
}

// Step decides one request (ok false for anything else). errBody says the
// response is an error body whatever its status.
func (b *Breaker) Step(rec *ingest.Record, errBody bool) (d Decision, ok bool) {
	if rec.Err != nil || rec.Skip != "" || rec.Control != nil {
		return d, false
	}
	if rec.TS.After(b.end) {
		b.end = rec.TS
	}
	if b.start.IsZero() || rec.TS.Before(b.start) {
		b.start = rec.TS
	}
	sc := ScopeOf(rec)
	st := b.state(sc, rec.Pos)
	r := b.cfg.rules(sc.Agent)
	b.seq++
	st.res.Requests++
	d = Decision{Seq: b.seq, ScopeN: st.res.Requests, TS: rec.TS, Source: rec.Pos, Scope: sc}
	now := rec.TS
	if !r.Enabled {
		st.res.Forwarded++
		d.Reason = "breaker disabled: nothing counted"
		return d, true
	}
	if st.open && !now.Before(st.until) {
		st.open = false // recovered by itself at st.until
	}
	if st.open {
		d.Action = ActionBlocked
		d.SecondsLeft = int64(st.until.Sub(now).Seconds() + 0.999999)
		d.Reason = "Kill switch active - workflow temporarily disabled"
		st.res.Refused++
		if st.manual {
			st.res.Manual[len(st.res.Manual)-1].Refused++
		} else {
			st.res.Trips[len(st.res.Trips)-1].Refused++
		}
		return d, true
	}
	succ := st.succ.read(now, b.cfg.TTL, r.Window)
	errs := st.errc.read(now, b.cfg.TTL, r.Window)
	d.Samples, d.Errors = succ+errs, errs
	if d.Samples > 0 {
		d.ErrorRate = float64(errs) / float64(d.Samples)
	}
	if d.Samples >= r.MinSamples && d.ErrorRate >= r.Rate {
		st.open, st.until, st.manual = true, now.Add(r.Recover), false
		d.Action = ActionTrip
		d.Reason = fmt.Sprintf("Kill switch activated - error rate %s exceeds %s", pct(d.ErrorRate), pct(r.Rate))
		statuses := map[int]int{}
		for k, v := range st.errStatuses {
			statuses[k] = v
		}
		st.res.Trips = append(st.res.Trips, Trip{TS: now, ScopeN: d.ScopeN, Seq: d.Seq, Source: rec.Pos,
			ErrorRate: d.ErrorRate, Samples: d.Samples, Until: st.until, Refused: 1,
			Provider: rec.Provider, Model: rec.Model, Endpoint: rec.Endpoint, Statuses: statuses})
		st.res.Refused++
		if r.Recover == 0 {
			st.open = false
		} else {
			b.log(Cmd{TS: now, Source: rec.Pos, Op: "SET", Key: fmt.Sprintf(keyBase(sc), "killswitch") + ":active", Value: "1", Seconds: int64(r.Recover / time.Second)})
		}
		return d, true
	}
	// Forwarded: its outcome is counted after the work ran.
	st.res.Forwarded++
	if rec.NoStatus && !errBody {
		st.res.NoStatus++
		b.noStatus[rec.Pos.File]++
		d.Reason = "no status: counted as neither success nor error"
		return d, true
	}
	d.Counted = true
	d.Error = errBody || b.cfg.Errors.IsError(rec.Status)
	kind, c := "success", &st.succ
	if d.Error {
		kind, c = "error", &st.errc
	}
	if b.Log != nil && b.cfg.TTL != TTLSliding {
		key := fmt.Sprintf(keyBase(sc), "stats") + ":" + kind
		created := c.read(now, b.cfg.TTL, r.Window) == 0
		b.log(Cmd{TS: now, Source: rec.Pos, Op: "INCR", Key: key})
		if b.cfg.TTL == TTLRefresh || created {
			b.log(Cmd{TS: now, Source: rec.Pos, Op: "EXPIRE", Key: key, Seconds: int64(r.Window / time.Second)})
		}
	}
	if d.Error {
		st.res.Errors++
		st.errc.incr(now, b.cfg.TTL, r.Window)
		if st.errStatuses == nil {
			st.errStatuses = map[int]int{}
		}
		st.errStatuses[rec.Status]++
	} else {
		st.succ.incr(now, b.cfg.TTL, r.Window)
	}
	return d, true
}

// Control applies an operator's breaker_open or breaker_close record (a
// disabled breaker is not touched: it counts nothing and refuses nothing).
func (b *Breaker) Control(rec *ingest.Record) {
	c := rec.Control
	if c == nil || (c.Event != ingest.ControlBreakerOpen && c.Event != ingest.ControlBreakerClose) {
		return
	}
	if rec.TS.After(b.end) {
		b.end = rec.TS
	}
	sc := ScopeOf(rec)
	st := b.state(sc, rec.Pos)
	key := fmt.Sprintf(keyBase(sc), "killswitch") + ":active"
	m := Manual{TS: rec.TS, Source: rec.Pos, Reason: c.Reason}
	if c.Event == ingest.ControlBreakerOpen {
		m.Open, m.Until = true, rec.TS.Add(c.Duration)
		st.open, st.until, st.manual = true, m.Until, true
		b.log(Cmd{TS: rec.TS, Source: rec.Pos, Op: "SET", Key: key, Value: "1", Seconds: int64(c.Duration / time.Second)})
	} else {
		st.open = false
		b.log(Cmd{TS: rec.TS, Source: rec.Pos, Op: "DEL", Key: key})
	}
	st.res.Manual = append(st.res.Manual, m)
}

// Finish returns the timelines, per-tenant totals and correlated groups.
func (b *Breaker) Finish() *Result {
	res := &Result{Config: b.cfg, Start: b.start, End: b.end, Shared: b.shared}
	for _, st := range b.scopes {
		sc := st.res.Scope
		st.res.Open = st.open && b.end.Before(st.until)
		if st.res.Open {
			st.res.OpenUntil = st.until
		}
		r := b.cfg.rules(sc.Agent)
		st.res.Successes = st.succ.read(b.end, b.cfg.TTL, r.Window)
		st.res.ErrorCount = st.errc.read(b.end, b.cfg.TTL, r.Window)
		st.res.SuccessExpires = st.succ.expiry(b.cfg.TTL, r.Window)
		st.res.ErrorExpires = st.errc.expiry(b.cfg.TTL, r.Window)
		res.Scopes = append(res.Scopes, st.res)
	}
	res.total(b.noStatus)
	return res
}

// total sorts the scopes and adds them up: per tenant, in all, the
// correlated groups and the requests without a status per file.
func (res *Result) total(noStatus map[string]int) {
	sort.Slice(res.Scopes, func(i, j int) bool { return less(res.Scopes[i].Scope, res.Scopes[j].Scope) })
	byTenant := map[string]*TenantTotals{}
	var tenants []string
	for _, s := range res.Scopes {
		t := byTenant[s.Scope.Tenant]
		if t == nil {
			t = &TenantTotals{Tenant: s.Scope.Tenant}
			byTenant[s.Scope.Tenant] = t
			tenants = append(tenants, s.Scope.Tenant)
		}
		t.Scopes++
		t.Requests += s.Requests
		t.Refused += s.Refused
		t.Trips += len(s.Trips)
		if len(s.Trips) > 0 {
			t.ScopesTripped++
		}
		res.Requests += s.Requests
		res.Refused += s.Refused
		res.Trips += len(s.Trips)
	}
	sort.Strings(tenants)
	for _, t := range tenants {
		res.Tenants = append(res.Tenants, *byTenant[t])
	}
	res.Groups = groups(res.Scopes, res.Config.GroupWithin)
	files := make([]string, 0, len(noStatus))
	for f := range noStatus {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		res.NoStatus = append(res.NoStatus, FileCount{f, noStatus[f]})
	}
}

func less(a, b Scope) bool {
	if a.Tenant != b.Tenant {
		return a.Tenant < b.Tenant
	}
	if a.Agent != b.Agent {
		return a.Agent < b.Agent
	}
	return a.Workflow < b.Workflow
}

// groups finds, for each shared attribute, runs of trips of at least two
// scopes each within span of the previous one.
func groups(scopes []*ScopeResult, span time.Duration) []Group {
	type tr struct {
		scope Scope
		t     *Trip
	}
	var all []tr
	for _, s := range scopes {
		for i := range s.Trips {
			all = append(all, tr{s.Scope, &s.Trips[i]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].t.TS.Before(all[j].t.TS) })
	var out []Group
	for _, key := range []string{"tenant", "provider", "model", "endpoint"} {
		by := map[string][]tr{}
		var values []string
		for _, x := range all {
			v := map[string]string{"tenant": x.scope.Tenant, "provider": x.t.Provider, "model": x.t.Model, "endpoint": x.t.Endpoint}[key]
			if v == "" {
				continue
			}
			if by[v] == nil {
				values = append(values, v)
			}
			by[v] = append(by[v], x)
		}
		sort.Strings(values)
		for _, v := range values {
			list := by[v]
			for i := 0; i < len(list); {
				j := i + 1
				for j < len(list) && list[j].t.TS.Sub(list[j-1].t.TS) <= span {
					j++
				}
				distinct := map[Scope]bool{}
				for _, x := range list[i:j] {
					distinct[x.scope] = true
				}
				if len(distinct) >= 2 {
					g := Group{Key: key, Value: v, Span: list[j-1].t.TS.Sub(list[i].t.TS), Statuses: map[int]int{}}
					for _, x := range list[i:j] {
						g.Trips = append(g.Trips, GroupTrip{x.scope, x.t.TS})
						for st, n := range x.t.Statuses {
							g.Statuses[st] += n
						}
					}
					out = append(out, g)
				}
				i = j
			}
		}
	}
	return mergeGroups(out)
}

// mergeGroups folds groups made of the very same trips into the first
// (tenant before provider, model, endpoint): its Shared lists the other
// attributes they have in common, so one outage is reported once.
func mergeGroups(gs []Group) []Group {
	same := func(a, b *Group) bool {
		if len(a.Trips) != len(b.Trips) {
			return false
		}
		for i := range a.Trips {
			if a.Trips[i] != b.Trips[i] {
				return false
			}
		}
		return true
	}
	var out []Group
next:
	for _, g := range gs {
		for i := range out {
			if same(&out[i], &g) {
				out[i].Shared = append(out[i].Shared, [2]string{g.Key, g.Value})
				continue next
			}
		}
		out = append(out, g)
	}
	for i := range out {
		out[i].Text = groupText(&out[i])
	}
	return out
}

func groupText(g *Group) string {
	distinct := map[Scope]bool{}
	for _, t := range g.Trips {
		distinct[t.Scope] = true
	}
	scopes := len(distinct)
	var codes []int
	for c := range g.Statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprint(c)
	}
	on := ""
	if len(parts) > 0 {
		on = ", all on " + strings.Join(parts, "/")
	}
	if len(g.Shared) > 0 {
		var kv []string
		for _, s := range g.Shared {
			kv = append(kv, s[0]+" "+s[1])
		}
		on += " from the same " + strings.Join(kv, ", ")
	}
	within := "a second" // not "0s"
	if g.Span > time.Second {
		// Whole seconds, rounded up: trips 1.4 s apart are not "within 1s".
		d := g.Span.Truncate(time.Second)
		if d < g.Span {
			d += time.Second
		}
		within = d.String()
	}
	return fmt.Sprintf("%d scopes of %s %s tripped within %s%s: likely an upstream outage, not the agents",
		scopes, g.Key, g.Value, within, on)
}

// RateOf returns the error rate at which the agent's breakers trip.
func (r *Result) RateOf(agent string) float64 { return r.Config.rules(agent).Rate }
