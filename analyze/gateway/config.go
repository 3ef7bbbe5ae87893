package gateway

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/internal/jsontree"
	"slices"
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

// Variant is what a gateway does: a value, not a switch. M22 is what
// AgenticVerz's code does; Spec is what its design promises.
type Variant struct {
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
	M22 = &Variant{Name: "m22", pack: m22Pack}
	// Spec: M22's design document: budgets (402), 100 rpm in fixed
	// one-minute windows per tenant (429), failure-spike auto-freeze, and
	// incidents.
	Spec = &Variant{Name: "spec", pack: m22Pack, spikeWorks: true, rpmWorks: true, budgets: true, incidents: true}
)

// VariantByName returns the variant called name ("m22" or "spec").
func VariantByName(name string) (*Variant, error) {
	switch name {
	case "m22":
		return M22, nil
	case "spec":
		return Spec, nil
	}
	return nil, fmt.Errorf("gateway variant %q is neither \"m22\" nor \"spec\"", name)
}

// Config holds every number of the gateway. DefaultConfig gives M22's.
type Config struct {
	Variant *Variant

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
func DefaultConfig(p *Variant) Config {
	return Config{
		Variant: p, MaxCostCents: 100, MaxTokens: 16000, RPM: 100,
		SpikeRate: 0.5, SpikeWindowSec: 60, SpikeMinSamples: 10,
		IncidentWindowSec: 300, AutoResolveSec: 900, MaxIncidentsPerHour: 20,
		SeverityMedium: 10, SeverityHigh: 50, SeverityCritical: 200,
	}
}

// MaxSetting is the largest number a gateway setting or a swept value may
// hold (cents, tokens, seconds, counts): above it a value is a typo, and
// its label would run to hundreds of digits.
const MaxSetting = 1e15

// SettingsKeys are the keys of a gateway settings file, each a number of
// Config (budgets: tenant → cents).
var SettingsKeys = []string{
	"max_cost_cents", "max_tokens", "rpm", "spike_rate", "spike_window_seconds",
	"spike_min_samples", "budgets", "default_budget_cents", "incident_window_seconds",
	"auto_resolve_seconds", "max_incidents_per_hour", "severity_medium", "severity_high",
	"severity_critical",
}

// ApplySettings overlays a settings document ({"gateway": {…}} or the
// inner object) on c; its errors name the document "settings". See
// ApplySettingsFile.
func (c *Config) ApplySettings(data []byte) error { return c.ApplySettingsFile("settings", data) }

// ApplySettingsFile overlays the settings file named file, read into data
// ({"gateway": {…}} or the inner object), on c. Unknown keys, values of
// the wrong type and numbers out of range are errors, every one reported
// (a jsontree.ErrorList) with its file:line:column and key.
func (c *Config) ApplySettingsFile(file string, data []byte) error {
	return c.ApplySettingsParts(file, data, nil, nil)
}

// ApplySettingsParts is ApplySettingsFile on a file that may hold the
// settings of other policies too: their top-level keys otherTop are
// skipped, and so are per-agent entries under "agents", whose keys must
// be among otherAgent (the gateway has none of its own). The file is
// read as the inner object alone only when its top level has none of
// "gateway", "agents" and otherTop.
func (c *Config) ApplySettingsParts(file string, data []byte, otherTop, otherAgent []string) error {
	d, root, err := jsontree.Parse(file, data, 8, "a settings file")
	if err != nil {
		return jsontree.ErrorList{err}
	}
	top := slices.Concat([]string{"gateway", "agents"}, otherTop)
	if root.Kind != jsontree.Object || !slices.ContainsFunc(root.Members, func(m jsontree.Member) bool { return slices.Contains(top, m.Key) }) {
		c.ApplySettingsNode(d, root, "")
		return d.Err()
	}
	for _, m := range d.Object(root, "", top...) {
		switch m.Key {
		case "gateway":
			c.ApplySettingsNode(d, m.Val, "gateway")
		case "agents":
			for _, a := range d.Object(m.Val, "agents") {
				d.Object(a.Val, "agents."+a.Key, append([]string{}, otherAgent...)...)
			}
		}
	}
	return d.Err()
}

// ApplySettingsNode overlays the gateway settings object n, at key path
// of document d (a settings file, an expectation's settings.gateway), on
// c, recording each problem in d.
func (c *Config) ApplySettingsNode(d *jsontree.Doc, n *jsontree.Node, path string) {
	severityAt := map[string]int{} // where each severity key given is
	defer func() { c.checkSeverities(d, n, path, severityAt) }()
	for _, m := range d.Object(n, path, SettingsKeys...) {
		kp := jsontree.Join(path, m.Key)
		if strings.HasPrefix(m.Key, "severity_") {
			severityAt[m.Key] = m.Val.Off
		}
		if m.Key == "budgets" {
			budgets := map[string]float64{}
			for _, b := range d.Object(m.Val, kp) {
				bp := kp + "[" + strconv.Quote(b.Key) + "]"
				if v, ok := d.Number(b.Val, bp); ok {
					if v < 0 {
						d.Errorf(b.Val.Off, bp, "want cents ≥ 0, got %v", v)
						continue
					}
					budgets[b.Key] = v
				}
			}
			c.Budgets = budgets
			continue
		}
		f, ok := d.Number(m.Val, kp)
		if !ok {
			continue
		}
		if f < 0 || f > MaxSetting {
			d.Errorf(m.Val.Off, kp, "want a number from 0 to %g, got %v", MaxSetting, f)
			continue
		}
		integer := func(min float64) (int64, bool) {
			if f != math.Trunc(f) || f < min || f > MaxSetting {
				d.Errorf(m.Val.Off, kp, "want an integer ≥ %v, got %v", min, f)
				return 0, false
			}
			return int64(f), true
		}
		var n int64
		switch m.Key {
		case "max_cost_cents":
			c.MaxCostCents = f
		case "default_budget_cents":
			c.DefaultBudgetCents = f
		case "spike_rate":
			if f > 1 {
				d.Errorf(m.Val.Off, kp, "want a fraction from 0 to 1, got %v", f)
				continue
			}
			c.SpikeRate = f
		case "max_tokens":
			if n, ok = integer(0); ok {
				c.MaxTokens = n
			}
		case "rpm":
			if n, ok = integer(1); ok {
				c.RPM = int(n)
			}
		case "spike_window_seconds":
			if n, ok = integer(1); ok {
				c.SpikeWindowSec = n
			}
		case "spike_min_samples":
			if n, ok = integer(1); ok {
				c.SpikeMinSamples = int(n)
			}
		case "incident_window_seconds":
			if n, ok = integer(1); ok {
				c.IncidentWindowSec = n
			}
		case "auto_resolve_seconds":
			if n, ok = integer(1); ok {
				c.AutoResolveSec = n
			}
		case "max_incidents_per_hour":
			if n, ok = integer(1); ok {
				c.MaxIncidentsPerHour = int(n)
			}
		case "severity_medium":
			if n, ok = integer(1); ok {
				c.SeverityMedium = int(n)
			}
		case "severity_high":
			if n, ok = integer(1); ok {
				c.SeverityHigh = int(n)
			}
		case "severity_critical":
			if n, ok = integer(1); ok {
				c.SeverityCritical = int(n)
			}
		}
	}
}

// checkSeverities records an error when the severity thresholds given
// (severityAt: key → offset of its value) leave the order medium ≤ high ≤
// critical: an incident would skip a severity. The error is placed at the
// later key of the pair when given, else at the settings object.
func (c *Config) checkSeverities(d *jsontree.Doc, n *jsontree.Node, path string, severityAt map[string]int) {
	if len(severityAt) == 0 {
		return
	}
	for _, p := range []struct {
		lo, hi   string
		vlo, vhi int
	}{{"severity_medium", "severity_high", c.SeverityMedium, c.SeverityHigh}, {"severity_high", "severity_critical", c.SeverityHigh, c.SeverityCritical}} {
		if p.vlo <= p.vhi {
			continue
		}
		key, off := p.hi, n.Off
		if o, ok := severityAt[p.hi]; ok {
			off = o
		} else if o, ok := severityAt[p.lo]; ok {
			key, off = p.lo, o
		}
		d.Errorf(off, jsontree.Join(path, key), "%s (%d) is above %s (%d): want severity_medium ≤ severity_high ≤ severity_critical", p.lo, p.vlo, p.hi, p.vhi)
		return
	}
}
