// Package breaker replays the error-rate circuit breaker (Waxell-style):
// one breaker per (tenant, agent, workflow) — per Redis key, as the live
// handler keeps it, so names that join to one key share one — opens when too many of its
// recent executions failed, refuses every request while open, and closes by
// itself after auto_recover_after_minutes. Its counters live, as in the
// live system, in keys with a time to live (Redis); how a counter expires is
// a setting (CounterTTL), because the seed says only "counters have a TTL
// of error_window_minutes". No I/O.
package breaker

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// CounterTTL is how a success or error counter expires.
type CounterTTL uint8

const (
	// TTLRefresh: each increment re-sets the key's TTL (INCR + EXPIRE), so
	// a counter lives until error_window passes with no increment.
	TTLRefresh CounterTTL = iota
	// TTLFixed: the TTL is set when the counter is created and not moved.
	TTLFixed
	// TTLSliding: the exact count of outcomes in the trailing window (what
	// the seed's prose promises).
	TTLSliding
)

var ttlNames = [...]string{"refresh", "fixed", "sliding"}

func (c CounterTTL) String() string { return ttlNames[c] }

// ParseCounterTTL parses "refresh", "fixed" or "sliding".
func ParseCounterTTL(s string) (CounterTTL, error) {
	for i, n := range ttlNames {
		if s == n {
			return CounterTTL(i), nil
		}
	}
	return 0, fmt.Errorf("unknown counter TTL %q (want refresh, fixed or sliding)", s)
}

// Rules are one agent's breaker settings (settings key "breaker").
type Rules struct {
	Enabled    bool
	Rate       float64       // kill_on_error_rate: open when errors/total ≥ Rate, in (0, 1]
	Window     time.Duration // error_window_minutes: the counters' TTL
	MinSamples int           // min_samples: fewer outcomes never open it
	Recover    time.Duration // auto_recover_after_minutes: how long it stays open
}

// DefaultRules are the seed's defaults.
var DefaultRules = Rules{Enabled: true, Rate: 0.5, Window: 5 * time.Minute, MinSamples: 10, Recover: 30 * time.Minute}

// Validate names the settings key that is out of range.
func (r Rules) Validate() error {
	switch {
	case !(r.Rate > 0 && r.Rate <= 1):
		return fmt.Errorf("kill_on_error_rate %v: want a number in (0, 1]", r.Rate)
	case r.Window <= 0:
		return fmt.Errorf("error_window_minutes %v: want a positive duration", r.Window.Minutes())
	case r.MinSamples < 1:
		return fmt.Errorf("min_samples %d: want at least 1", r.MinSamples)
	case r.Recover < 0:
		return fmt.Errorf("auto_recover_after_minutes %v: want a duration ≥ 0", r.Recover.Minutes())
	}
	return nil
}

// StatusSet says which HTTP statuses are errors.
type StatusSet struct {
	classes [6]bool // 1xx..5xx by hundreds
	codes   map[int]bool
}

// DefaultErrors: every status ≥ 400 (429 and 5xx included).
var DefaultErrors = StatusSet{classes: [6]bool{4: true, 5: true}}

// ParseStatusSet parses a list such as "5xx,429".
func ParseStatusSet(s string) (StatusSet, error) {
	var set StatusSet
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if len(p) == 3 && p[1:] == "xx" && p[0] >= '1' && p[0] <= '5' {
			set.classes[p[0]-'0'] = true
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 100 || n > 599 {
			return set, fmt.Errorf("--error-status %q: want statuses or classes such as 5xx,429", s)
		}
		if set.codes == nil {
			set.codes = map[int]bool{}
		}
		set.codes[n] = true
	}
	return set, nil
}

// String renders the set as ParseStatusSet reads it: classes first
// ("4xx,5xx"), then single statuses in order.
func (s StatusSet) String() string {
	var parts []string
	for c := 1; c <= 5; c++ {
		if s.classes[c] {
			parts = append(parts, strconv.Itoa(c)+"xx")
		}
	}
	codes := make([]int, 0, len(s.codes))
	for n := range s.codes {
		if !s.classes[n/100] {
			codes = append(codes, n)
		}
	}
	sort.Ints(codes)
	for _, n := range codes {
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ",")
}

// IsError reports whether status is in the set.
func (s StatusSet) IsError(status int) bool {
	if status >= 100 && status <= 599 && s.classes[status/100] {
		return true
	}
	return s.codes[status]
}

// Config is a breaker replay's configuration.
type Config struct {
	Default Rules
	Agents  map[string]Rules // per-agent overrides
	TTL     CounterTTL
	Errors  StatusSet
	// GroupWithin is how close in time trips must be to be reported as
	// one correlated group (2 minutes).
	GroupWithin time.Duration
}

// NewConfig returns the defaults.
func NewConfig() Config {
	return Config{Default: DefaultRules, TTL: TTLRefresh, Errors: DefaultErrors, GroupWithin: 2 * time.Minute}
}

// RulesFor returns the rules of agent's breakers: its override, or the
// default.
func (c *Config) RulesFor(agent string) Rules { return c.rules(agent) }

func (c *Config) rules(agent string) Rules {
	if r, ok := c.Agents[agent]; ok {
		return r
	}
	return c.Default
}

// Validate checks every rule set.
func (c *Config) Validate() error {
	if err := c.Default.Validate(); err != nil {
		return err
	}
	names := make([]string, 0, len(c.Agents))
	for n := range c.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := c.Agents[n].Validate(); err != nil {
			return fmt.Errorf("agent %q: %w", n, err)
		}
	}
	if c.GroupWithin < 0 {
		return errors.New("negative grouping span")
	}
	return nil
}

// Scope is what one breaker keys on. A record without a workflow is
// workflow "default"; without a tenant, tenant "".
type Scope struct{ Tenant, Agent, Workflow string }

// String renders the scope as tenant/agent/workflow (agent/workflow when
// the tenant is empty).
func (s Scope) String() string {
	if s.Tenant == "" {
		return s.Agent + "/" + s.Workflow
	}
	return s.Tenant + "/" + s.Agent + "/" + s.Workflow
}

// counter is one Redis counter key: its value and when it expires.
type counter struct {
	value   int
	expires time.Time // zero: no key
	events  []time.Time
}

func (c *counter) read(now time.Time, ttl CounterTTL, window time.Duration) int {
	if ttl == TTLSliding {
		cut := 0
		for cut < len(c.events) && !c.events[cut].After(now.Add(-window)) {
			cut++
		}
		c.events = c.events[cut:]
		return len(c.events)
	}
	if c.expires.IsZero() || !now.Before(c.expires) {
		c.value, c.expires = 0, time.Time{}
	}
	return c.value
}

// expiry is when the key holding the counter expires (after read): for a
// sliding count, when its newest outcome leaves the window (the count only
// falls to zero then). Zero when the counter is zero.
func (c *counter) expiry(ttl CounterTTL, window time.Duration) time.Time {
	if ttl == TTLSliding {
		if len(c.events) == 0 {
			return time.Time{}
		}
		return c.events[len(c.events)-1].Add(window)
	}
	if c.value == 0 {
		return time.Time{}
	}
	return c.expires
}

// incr adds one outcome at now.
func (c *counter) incr(now time.Time, ttl CounterTTL, window time.Duration) {
	switch ttl {
	case TTLSliding:
		c.read(now, ttl, window)
		c.events = append(c.events, now)
	case TTLFixed:
		if c.read(now, ttl, window) == 0 {
			c.expires = now.Add(window)
		}
		c.value++
	default:
		c.read(now, ttl, window)
		c.value++
		c.expires = now.Add(window)
	}
}

// pct renders a rate as the live message does: "83%".
func pct(r float64) string { return strconv.FormatFloat(math.Round(r*100), 'f', 0, 64) + "%" }
