package gateway

import (
	"fmt"
	"sort"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// A replay split by tenant (cmd/killswitch-beam): every record of a
// tenant (TenantOf) is replayed, in replay order, by one part; a tenant's
// freezes, rate window, budget, failure spikes and incidents are its own,
// so each part decides its calls as one replay of the whole capture does.
// What ties tenants together is time (an incident resolves when any later
// record shows it stale: Advance) and API keys (a key's freeze covers
// every tenant's calls with that key: Merge refuses a frozen key that
// parts share). Merge joins the parts' results.

// TenantOf is the tenant the gateway keys a record's state by: its
// Tenant, else its agent. A replay split by tenant keeps each tenant's
// records in one part.
func TenantOf(rec *ingest.Record) string { return tenantOf(rec) }

// Advance resolves the incidents left stale at now, as a record of any
// tenant at now would in one replay: a part of a split replay calls it
// before each of its records with the latest time of the whole replay so
// far, which resolves its incidents where the other tenants' records would
// have.
func (p *Policy) Advance(now time.Time) {
	if p.g.cfg.Variant.incidents {
		p.g.inc.resolveStale(now)
	}
}

// Logged returns how many freeze events and warnings the replay has logged
// so far, for a part of a split replay that places each in the order of
// the whole replay (the record it was logged at).
func (p *Policy) Logged() (freezes, warnings int) {
	return len(p.g.res.Freezes), len(p.g.res.Warnings)
}

// ResultAt is Result for a part of a replay split by tenant: end is the
// last time of the whole capture, at which incidents are resolved as the
// single replay resolves them. The part's own Start and End are its
// records'; Merge takes the earliest and the latest.
func (p *Policy) ResultAt(end time.Time) *Result {
	if p.result == nil {
		if p.g.cfg.Variant.incidents {
			p.g.inc.resolveStale(end)
		}
		p.result = p.g.Finish()
	}
	return p.result
}

// Merge joins the results of replays over parts of a capture split by
// tenant, each finished by ResultAt at the capture's end and with its
// sequence numbers (Incident.Calls, Rejected) already those of the whole
// replay, into the result one replay of the whole capture yields. cfg is
// the parts' configuration. Freezes and Warnings are the parts' part
// after part: a caller whose parts interleave in time puts them in replay
// order. It refuses an API key frozen in one part and used by a tenant of
// another (a key's freeze covers every tenant's calls with it, which
// parts split by tenant cannot see). The parts' incidents are shared with
// the result.
func Merge(cfg Config, parts []*Result) (*Result, error) {
	res := &Result{Config: cfg, ByStatus: map[int]int{}, ByReason: map[string]int{}}
	if cfg.Variant != nil {
		res.Variant = cfg.Variant.Name
	}
	keyParts := map[string][]int{} // API key → the parts whose calls used it
	for i, p := range parts {
		if !p.Start.IsZero() && (res.Start.IsZero() || p.Start.Before(res.Start)) {
			res.Start = p.Start
		}
		if p.End.After(res.End) {
			res.End = p.End
		}
		res.Incidents = append(res.Incidents, p.Incidents...)
		res.Tenants = append(res.Tenants, p.Tenants...)
		res.Keys = append(res.Keys, p.Keys...)
		res.Freezes = append(res.Freezes, p.Freezes...)
		res.States = append(res.States, p.States...)
		res.Warnings = append(res.Warnings, p.Warnings...)
		res.Rejected = append(res.Rejected, p.Rejected...)
		res.Requests += p.Requests
		for k, n := range p.ByStatus {
			res.ByStatus[k] += n
		}
		for k, n := range p.ByReason {
			res.ByReason[k] += n
		}
		for _, k := range p.Keys {
			if ps := keyParts[k.APIKeyID]; k.APIKeyID != "" && (len(ps) == 0 || ps[len(ps)-1] != i) {
				keyParts[k.APIKeyID] = append(ps, i)
			}
		}
	}
	for i, p := range parts {
		for _, s := range p.States {
			if s.Entity != "key" {
				continue
			}
			if ps := keyParts[s.EntityID]; len(ps) > 1 || len(ps) == 1 && ps[0] != i {
				return nil, fmt.Errorf("API key %q is frozen or unfrozen by tenant %q and used by another tenant in another part: "+
					"a key's freeze covers every tenant's calls with it, so their records must be replayed together (one part)", s.EntityID, s.Tenant)
			}
		}
	}
	// Creation order: an incident is created by its first call.
	sort.SliceStable(res.Incidents, func(i, j int) bool { return res.Incidents[i].Calls[0].Seq < res.Incidents[j].Calls[0].Seq })
	for i, in := range res.Incidents {
		in.seq = i
	}
	sort.Slice(res.Tenants, func(i, j int) bool { return res.Tenants[i].Tenant < res.Tenants[j].Tenant })
	sort.Slice(res.Keys, func(i, j int) bool {
		if res.Keys[i].Tenant != res.Keys[j].Tenant {
			return res.Keys[i].Tenant < res.Keys[j].Tenant
		}
		return res.Keys[i].APIKeyID < res.Keys[j].APIKeyID
	})
	sort.Slice(res.States, func(i, j int) bool {
		if res.States[i].Entity != res.States[j].Entity {
			return res.States[i].Entity < res.States[j].Entity
		}
		return res.States[i].EntityID < res.States[j].EntityID
	})
	for i := 1; i < len(res.States); i++ {
		if a, b := &res.States[i-1], &res.States[i]; a.Entity == b.Entity && a.EntityID == b.EntityID {
			return nil, fmt.Errorf("%s %q has a state in two parts (tenants %q and %q): its records must be replayed together (one part)", a.Entity, a.EntityID, a.Tenant, b.Tenant)
		}
	}
	sort.SliceStable(res.Rejected, func(i, j int) bool { return res.Rejected[i].Seq < res.Rejected[j].Seq })
	return res, nil
}
