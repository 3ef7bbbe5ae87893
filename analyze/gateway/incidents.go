package gateway

import (
	"container/heap"
	"fmt"
	"strconv"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Incident is a group of refused calls with one root cause (the spec variant):
// one tenant, one trigger type, one IncidentWindowSec bucket of capture
// time; a call belongs to at most one incident.
type Incident struct {
	ID           string
	Tenant       string
	Title        string
	Severity     string // low | medium | high | critical, from calls affected
	Status       string // open | resolved
	Trigger      string // failure_spike | budget_breach | rate_limit | content_policy | policy_violation | freeze | rate_limit_overflow
	TriggerValue string
	AutoAction   string // freeze | block | throttle | aggregate
	Bucket       time.Time
	StartedAt    time.Time
	UpdatedAt    time.Time // time of the last call
	EndedAt      time.Time // zero while open: UpdatedAt + AutoResolveSec once resolved
	ResolvedBy   string
	Calls        []IncidentCall
	CostCents    float64 // cost avoided: the estimates of the refused calls
	Events       []IncidentEvent

	key   incKey // its key among the open incidents
	seq   int    // creation order
	calls int    // len(Calls), which a counting gateway does not keep
}

// IncidentCall is a request behind an incident.
type IncidentCall struct {
	Seq    int64
	CallID string
	Source ingest.Pos
	TS     time.Time
	Status int
}

// IncidentEvent is one line of an incident's timeline (incident_events).
type IncidentEvent struct {
	ID          string
	TS          time.Time
	Type        string // incident_created | call_added | severity_escalated | auto_resolved
	Description string
	Data        [][2]string // key, JSON value; in order
}

// DurationSec is ended_at − started_at, or -1 while open.
func (in *Incident) DurationSec() int64 {
	if in.EndedAt.IsZero() {
		return -1
	}
	return int64(in.EndedAt.Sub(in.StartedAt) / time.Second)
}

type incKey struct {
	tenant, trigger string
	bucket          int64
}

type incidents struct {
	cfg      *Config
	counting bool        // the gateway's: keep no incidents once resolved, no calls, no events
	made     int         // incidents created
	list     []*Incident // every incident, unless counting
	open     map[incKey]*Incident
	created  map[string][]time.Time // per tenant: creation times, for the hourly cap
	// stale holds the open incidents, earliest last call first, for
	// resolveStale: an entry's time is the incident's UpdatedAt when it
	// was pushed, a lower bound of its last call, so a later call needs
	// no update (the entry is pushed again when it surfaces); a call
	// earlier than the last (an out-of-order capture) pushes one more
	// entry, as the bound no longer holds.
	stale staleHeap
}

// staleEntry is an open incident in the stale heap.
type staleEntry struct {
	at time.Time
	in *Incident
}

type staleHeap []staleEntry

func (h staleHeap) Len() int { return len(h) }
func (h staleHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].in.seq < h[j].in.seq
}
func (h staleHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *staleHeap) Push(x any)   { *h = append(*h, x.(staleEntry)) }
func (h *staleHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// titles are M22's incident titles by trigger type.
func title(trigger, value string) string {
	switch trigger {
	case "budget_breach":
		return "Budget limit exceeded: " + value
	case "failure_spike":
		return "Failure rate spike detected: " + value
	case "rate_limit":
		return "Rate limit triggered: " + value
	case "content_policy":
		return "Content policy violation: " + value
	case "freeze":
		return "Traffic stopped: " + value
	case "rate_limit_overflow":
		// M22's _generate_title has "Incident rate limit reached - Events
		// aggregated", but the overflow incident is never made through it:
		// _get_rate_limit_incident writes this title.
		return "Incident Rate Limit Reached - Events Aggregated"
	}
	return trigger + ": " + value
}

func (s *incidents) severity(calls int) string {
	switch {
	case calls >= s.cfg.SeverityCritical:
		return "critical"
	case calls >= s.cfg.SeverityHigh:
		return "high"
	case calls >= s.cfg.SeverityMedium:
		return "medium"
	}
	return "low"
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// incident files the refused (or spike-tripping) call d under its
// (tenant, trigger, bucket) incident: the open one, a new one, or past
// MaxIncidentsPerHour new incidents of the tenant in the last hour the
// tenant's open overflow incident.
func (g *Gateway) incident(d *Decision, trigger, value, action string) {
	if !g.cfg.Variant.incidents {
		return
	}
	s := &g.inc
	if s.open == nil {
		s.open, s.created = map[incKey]*Incident{}, map[string][]time.Time{}
	}
	w := s.cfg.IncidentWindowSec
	k := incKey{d.Tenant, trigger, floorDiv(d.TS.Unix(), w) * w}
	in := s.open[k]
	if in == nil {
		hourAgo := d.TS.Add(-time.Hour)
		recent := s.created[d.Tenant][:0:0]
		for _, t := range s.created[d.Tenant] {
			if !t.Before(hourAgo) {
				recent = append(recent, t)
			}
		}
		s.created[d.Tenant] = recent
		if len(recent) >= s.cfg.MaxIncidentsPerHour {
			k = incKey{d.Tenant, "rate_limit_overflow", 0}
			in = s.open[k]
			if in == nil {
				in = s.create(d, k, "rate_limit_overflow", ">"+strconv.Itoa(s.cfg.MaxIncidentsPerHour)+" incidents/hour", "aggregate")
			}
		} else {
			in = s.create(d, k, trigger, value, action)
		}
	}
	s.add(in, d)
}

func (s *incidents) create(d *Decision, k incKey, trigger, value, action string) *Incident {
	in := &Incident{Tenant: d.Tenant, Trigger: trigger, TriggerValue: value, AutoAction: action,
		Bucket: time.Unix(k.bucket, 0).UTC(), StartedAt: d.TS, UpdatedAt: d.TS, Status: "open", Severity: s.severity(0)}
	in.key, in.seq = k, s.made
	s.made++
	heap.Push(&s.stale, staleEntry{at: in.UpdatedAt, in: in})
	s.open[k] = in
	s.created[d.Tenant] = append(s.created[d.Tenant], d.TS)
	if s.counting {
		return in // counted; forgotten once resolved
	}
	in.ID = UUID("incident", d.Tenant, trigger, strconv.FormatInt(k.bucket, 10), d.CallID)
	in.Title = title(trigger, value)
	s.list = append(s.list, in)
	s.event(in, d.TS, "incident_created", "Incident created: "+in.Title, [][2]string{{"trigger_value", jsonString(value)}})
	return in
}

func (s *incidents) add(in *Incident, d *Decision) {
	in.calls++
	if !s.counting {
		in.Calls = append(in.Calls, IncidentCall{Seq: d.Seq, CallID: d.CallID, Source: d.Source, TS: d.TS, Status: d.HTTPStatus})
	}
	if d.Blocked {
		in.CostCents += d.CostCents
	}
	if d.TS.Before(in.UpdatedAt) {
		heap.Push(&s.stale, staleEntry{at: d.TS, in: in})
	}
	in.UpdatedAt = d.TS
	d.IncidentID = in.ID
	if !s.counting {
		s.event(in, d.TS, "call_added", fmt.Sprintf("%s answered %d", d.Source, d.HTTPStatus),
			[][2]string{{"call_id", jsonString(d.CallID)}, {"http_status", strconv.Itoa(d.HTTPStatus)}})
	}
	if sev := s.severity(in.calls); sev != in.Severity {
		old := in.Severity
		in.Severity = sev
		if in.calls > 1 {
			s.event(in, d.TS, "severity_escalated", "Severity escalated from "+old+" to "+sev,
				[][2]string{{"old_severity", jsonString(old)}, {"new_severity", jsonString(sev)}, {"calls_affected", strconv.Itoa(in.calls)}})
		}
	}
}

func (s *incidents) event(in *Incident, ts time.Time, typ, desc string, data [][2]string) {
	if s.counting {
		return
	}
	id := UUID("incident_event", in.ID, strconv.Itoa(len(in.Events)))
	in.Events = append(in.Events, IncidentEvent{ID: id, TS: ts, Type: typ, Description: desc, Data: data})
}

// resolveStale resolves the open incidents whose last call is more than
// AutoResolveSec before now. Only the incidents at the front of the stale
// heap are looked at: a capture with thousands of open incidents costs
// a heap operation per resolution or late call, not a pass over every
// incident per request.
func (s *incidents) resolveStale(now time.Time) {
	after := time.Duration(s.cfg.AutoResolveSec) * time.Second
	for len(s.stale) > 0 && now.Sub(s.stale[0].at) >= after {
		e := heap.Pop(&s.stale).(staleEntry)
		in := e.in
		if in.Status != "open" {
			continue // resolved through another of its entries
		}
		if now.Sub(in.UpdatedAt) < after {
			// A call came since the entry was pushed: look again later.
			e.at = in.UpdatedAt
			heap.Push(&s.stale, e)
			continue
		}
		in.Status, in.EndedAt, in.ResolvedBy = "resolved", in.UpdatedAt.Add(after), "system_auto_resolve"
		s.event(in, in.EndedAt, "auto_resolved", fmt.Sprintf("Incident auto-resolved after %d seconds of inactivity", s.cfg.AutoResolveSec), nil)
		if s.open[in.key] == in {
			delete(s.open, in.key)
		}
	}
}

func jsonString(s string) string { return string(appendPyJSONString(nil, s)) }
