package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// guardrail is one row of the default pack.
type guardrail struct {
	id, name, action string
	priority         int
}

// m22Pack is M22's default_guardrails, in priority order.
var m22Pack = []guardrail{
	{"dg-005", GuardInjection, "block", 1},
	{"dg-004", GuardSpike, "freeze", 5},
	{"dg-001", GuardCost, "block", 10},
	{"dg-002", GuardTokens, "block", 20},
	{"dg-003", GuardRPM, "throttle", 30},
}

// Profile is what a gateway does: a value, not a switch. M22 is what
// AgenticVerz's code does; Spec is what its design promises.
type Profile struct {
	Name string
	pack []guardrail
	// The design's promises the code does not keep.
	spikeWorks bool // failure-spike auto-freeze from real outcomes
	rpmWorks   bool // dg-003 counts requests (429)
	budgets    bool // per-tenant budgets (402)
	incidents  bool // incident grouping
}

var (
	// M22: freezes (423) and the default pack, where only prompt
	// injection, max cost and max tokens can refuse (400); no budgets, no
	// rate limit, no incidents.
	M22 = &Profile{Name: "m22", pack: m22Pack}
	// Spec: M22's design document: budgets (402), 100 rpm in fixed
	// one-minute windows per tenant (429), failure-spike auto-freeze, and
	// incidents.
	Spec = &Profile{Name: "spec", pack: m22Pack, spikeWorks: true, rpmWorks: true, budgets: true, incidents: true}
)

// ProfileByName returns the profile called name ("m22" or "spec").
func ProfileByName(name string) (*Profile, error) {
	switch name {
	case "m22":
		return M22, nil
	case "spec":
		return Spec, nil
	}
	return nil, fmt.Errorf("gateway profile %q is neither \"m22\" nor \"spec\"", name)
}

// Config holds every number of the gateway. DefaultConfig gives M22's.
type Config struct {
	Profile *Profile

	MaxCostCents float64 // dg-001: refuse when the estimate exceeds it (100)
	MaxTokens    int64   // dg-002 (16000)
	RPM          int     // dg-003: requests per tenant per fixed minute (100); spec only

	SpikeRate       float64 // dg-004: error rate that freezes the tenant when exceeded (0.5); spec only
	SpikeWindowSec  int64   // over this many seconds of outcomes (60)
	SpikeMinSamples int     // with at least this many outcomes (10)

	// Budgets in cents per tenant (spec only); a tenant not listed has
	// DefaultBudgetCents, and 0 means no budget.
	Budgets            map[string]float64
	DefaultBudgetCents float64

	IncidentWindowSec   int64 // incidents group by 300-second buckets of capture time
	AutoResolveSec      int64 // an incident without a new call for 900 s resolves
	MaxIncidentsPerHour int   // past 20 incidents per tenant per hour, one overflow incident
	SeverityMedium      int   // calls affected ≥ 10: medium
	SeverityHigh        int   // ≥ 50: high
	SeverityCritical    int   // ≥ 200: critical
}

// DefaultConfig returns the numbers of M22's pack and aggregator under p.
func DefaultConfig(p *Profile) Config {
	return Config{
		Profile: p, MaxCostCents: 100, MaxTokens: 16000, RPM: 100,
		SpikeRate: 0.5, SpikeWindowSec: 60, SpikeMinSamples: 10,
		IncidentWindowSec: 300, AutoResolveSec: 900, MaxIncidentsPerHour: 20,
		SeverityMedium: 10, SeverityHigh: 50, SeverityCritical: 200,
	}
}

// SettingsKeys are the keys of a gateway settings file, each a number of
// Config (budgets: tenant → cents).
var SettingsKeys = []string{
	"max_cost_cents", "max_tokens", "rpm", "spike_rate", "spike_window_seconds",
	"spike_min_samples", "budgets", "default_budget_cents", "incident_window_seconds",
	"auto_resolve_seconds", "max_incidents_per_hour", "severity_medium", "severity_high",
	"severity_critical",
}

// ApplySettings overlays a settings file ({"gateway": {…}} or the inner
// object) on c. Unknown keys and numbers out of range are errors.
func (c *Config) ApplySettings(data []byte) error {
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(data, &outer); err != nil {
		return fmt.Errorf("gateway settings: %v", err)
	}
	if inner, ok := outer["gateway"]; ok && len(outer) == 1 {
		outer = nil // Unmarshal into a map keeps its keys: "gateway" would stay
		if err := json.Unmarshal(inner, &outer); err != nil {
			return fmt.Errorf("gateway settings: \"gateway\": %v", err)
		}
	}
	keys := make([]string, 0, len(outer))
	for k := range outer {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := outer[k]
		if k == "budgets" {
			var b map[string]float64
			if err := json.Unmarshal(raw, &b); err != nil {
				return fmt.Errorf("gateway settings: budgets: want {tenant: cents}: %v", err)
			}
			for t, v := range b {
				if v < 0 || math.IsNaN(v) {
					return fmt.Errorf("gateway settings: budgets[%q]: want cents ≥ 0", t)
				}
			}
			c.Budgets = b
			continue
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return fmt.Errorf("gateway settings: %s: want a number", k)
		}
		if f < 0 {
			return fmt.Errorf("gateway settings: %s: want a number ≥ 0, got %v", k, f)
		}
		integer := func(min float64) (int64, error) {
			if f != math.Trunc(f) || f < min || f > 1e15 {
				return 0, fmt.Errorf("gateway settings: %s: want an integer ≥ %v, got %v", k, min, f)
			}
			return int64(f), nil
		}
		var err error
		var n int64
		switch k {
		case "max_cost_cents":
			c.MaxCostCents = f
		case "default_budget_cents":
			c.DefaultBudgetCents = f
		case "spike_rate":
			if f > 1 {
				return fmt.Errorf("gateway settings: spike_rate: want a fraction from 0 to 1, got %v", f)
			}
			c.SpikeRate = f
		case "max_tokens":
			n, err = integer(0)
			c.MaxTokens = n
		case "rpm":
			n, err = integer(1)
			c.RPM = int(n)
		case "spike_window_seconds":
			n, err = integer(1)
			c.SpikeWindowSec = n
		case "spike_min_samples":
			n, err = integer(1)
			c.SpikeMinSamples = int(n)
		case "incident_window_seconds":
			n, err = integer(1)
			c.IncidentWindowSec = n
		case "auto_resolve_seconds":
			n, err = integer(1)
			c.AutoResolveSec = n
		case "max_incidents_per_hour":
			n, err = integer(1)
			c.MaxIncidentsPerHour = int(n)
		case "severity_medium":
			n, err = integer(1)
			c.SeverityMedium = int(n)
		case "severity_high":
			n, err = integer(1)
			c.SeverityHigh = int(n)
		case "severity_critical":
			n, err = integer(1)
			c.SeverityCritical = int(n)
		default:
			return fmt.Errorf("gateway settings: unknown key %q (want %s)", k, strings.Join(SettingsKeys, ", "))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
