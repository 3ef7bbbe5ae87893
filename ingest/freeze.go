package ingest

import (
	"fmt"
	"time"
)

// Freeze and unfreeze control records: what a gateway's operators did to a
// tenant or one of its API keys (AgenticVerz M22's kill switch):
//
//	{"ts": …, "event": "freeze" | "unfreeze", "entity": "tenant" | "key",
//	 "tenant": "acme", "api_key_id": "key-1" (for keys), "by": "ops@acme",
//	 "reason": "runaway costs"}
//
// "agent" is optional: the tenant stands in for it.

func isFreezeEvent(raw []byte) bool {
	if raw == nil {
		return false
	}
	ev, err := stringValue(raw)
	return err == nil && (ev == "freeze" || ev == "unfreeze")
}

func (r *JSONLReader) freezeRecord(m *members, rec *Record) *Record {
	ev, _ := stringValue(m.event)
	c := &Control{Event: ControlFreeze, By: "manual"}
	if ev == "unfreeze" {
		c.Event = ControlUnfreeze
	}
	var err error
	if m.entity == nil || isNull(m.entity) {
		return r.bad(`"event": %q without "entity" ("tenant" or "key")`, ev)
	}
	if c.Entity, err = stringValue(m.entity); err != nil {
		return r.bad(`"entity": %v`, err)
	}
	if c.Entity != "tenant" && c.Entity != "key" {
		return r.bad(`"entity": %s is neither "tenant" nor "key"`, describe(m.entity))
	}
	for _, s := range []struct {
		dst  *string
		raw  []byte
		name string
	}{{&rec.Tenant, m.tenant, "tenant"}, {&rec.APIKeyID, m.apiKeyID, "api_key_id"}, {&c.By, m.by, "by"}, {&c.Reason, m.reason, "reason"}} {
		if s.raw == nil || isNull(s.raw) {
			continue
		}
		if *s.dst, err = memberValue(s.name, s.raw); err != nil {
			return r.bad(`"%s": %v`, s.name, err)
		}
	}
	if rec.Tenant == "" {
		return r.bad(`%q of a %s without "tenant"`, ev, c.Entity)
	}
	if c.Entity == "key" && rec.APIKeyID == "" {
		return r.bad(`%q of a key without "api_key_id"`, ev)
	}
	rec.Agent = rec.Tenant
	if m.agent != nil && !isNull(m.agent) {
		if rec.Agent, err = r.agentValue(m.agent); err != nil {
			return r.bad(`"agent": %v`, err)
		}
	}
	rec.Control = c
	return rec
}

// breakerControl reads a breaker_open or breaker_close record: an operator
// opening an agent+workflow's circuit breaker for duration_minutes (with a
// reason), or closing it. The record's tenant, agent and workflow name the
// breaker.
//
//	{"ts": …, "event": "breaker_open", "tenant": "acme", "agent": "billing",
//	 "workflow": "refund", "duration_minutes": 60, "reason": "refund API down"}
func (r *JSONLReader) breakerControl(m *members, rec *Record, c *Control) error {
	for _, s := range []struct {
		dst  *string
		raw  []byte
		name string
	}{{&rec.Tenant, m.tenant, "tenant"}, {&rec.Workflow, m.workflow, "workflow"}, {&c.Reason, m.reason, "reason"}} {
		if s.raw == nil || isNull(s.raw) {
			continue
		}
		v, err := memberValue(s.name, s.raw)
		if err != nil {
			return fmt.Errorf(`"%s": %v`, s.name, err)
		}
		*s.dst = v
	}
	if c.Event == ControlBreakerClose {
		return nil
	}
	if m.durationMin == nil || isNull(m.durationMin) {
		return fmt.Errorf(`"event": "breaker_open" without "duration_minutes"`)
	}
	f, err := numberValue(m.durationMin)
	if err != nil || !(f > 0) || f > 525600 {
		return fmt.Errorf(`"duration_minutes": %s is not a number of minutes in (0, 525600]`, describe(m.durationMin))
	}
	c.Duration = time.Duration(f * float64(time.Minute))
	return nil
}
