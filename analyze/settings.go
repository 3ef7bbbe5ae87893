// Package analyze is the kill-switch core: it replays records through the
// normalize → SimHash → window → score → enforce pipeline and computes
// decisions, timelines and summaries as plain values. It does no I/O.
//
// Seams: a loop-detection profile is a *Profile value registered with
// RegisterProfile (profile.go; the built-in ones in profile_builtin.go); an
// enforcement policy implements Policy (policy.go) and keys its state on
// any field of Subject; the Engine (engine.go) runs a stack of policies in
// a stated order, and LoopPolicy (loop.go) is the loop kill switch on it.
package analyze

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Mode is the enforcement variant of SPEC §1.6.
type Mode uint8

const (
	// ModeDeactivate deactivates the agent; later requests are blocked.
	ModeDeactivate Mode = iota
	// ModeBlock refuses the request with HTTP 429; the agent stays active.
	ModeBlock
)

func (m Mode) String() string {
	if m == ModeBlock {
		return "block"
	}
	return "deactivate"
}

// ParseMode parses "deactivate" or "block".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "deactivate", "":
		return ModeDeactivate, nil
	case "block":
		return ModeBlock, nil
	}
	return 0, fmt.Errorf("unknown mode %q (want deactivate or block)", s)
}

// Settings is one agent's kill-switch configuration (SPEC §1.7).
type Settings struct {
	Enabled    bool
	WindowSize int     // entries kept per agent, ≥ 1
	Threshold  float64 // the kill switch fires when the score passes it
}

// DefaultSettings are the live system's defaults except Enabled: the live
// default is false, but a replay asks what the kill switch would have done,
// so it is on unless settings say otherwise.
var DefaultSettings = Settings{Enabled: true, WindowSize: 20, Threshold: 10}

// Apply returns s changed by the non-nil fields of p.
func (s Settings) Apply(p ingest.KillSwitchPatch) Settings {
	if p.Enabled != nil {
		s.Enabled = *p.Enabled
	}
	if p.WindowSize != nil {
		s.WindowSize = *p.WindowSize
	}
	if p.Threshold != nil {
		s.Threshold = *p.Threshold
	}
	return s
}

// Validate reports settings no kill switch could run with.
func (s Settings) Validate() error {
	if s.WindowSize < 1 || s.WindowSize > MaxWindow {
		return fmt.Errorf("window size %d out of range 1..%d", s.WindowSize, MaxWindow)
	}
	if s.Threshold < 0 || math.IsNaN(s.Threshold) || math.IsInf(s.Threshold, 0) {
		return fmt.Errorf("threshold %v is not a number ≥ 0", s.Threshold)
	}
	return nil
}

// MaxWindow bounds window sizes.
const MaxWindow = 100000

// Config is everything a replay needs besides the records. The zero value
// is not usable: start from NewConfig.
type Config struct {
	// Profile is the loop detector (nil: ProfileSpec).
	Profile *Profile
	Mode    Mode
	// Default applies to every agent without an entry in Agents.
	Default Settings
	// Agents holds per-agent settings (from a settings file). Control
	// records in the capture change them at their time.
	Agents map[string]Settings
	// RetryAfter is the retry_after_seconds a block-mode refusal announces.
	RetryAfter time.Duration
	// ReactivateAfter, when > 0, simulates an operator re-activating an
	// agent killed by the kill switch that long after the kill.
	ReactivateAfter time.Duration
	// Policies, when non-empty, are the policies a replay runs, in order;
	// when empty, the loop kill switch configured by the fields above.
	Policies []Policy
}

// NewConfig returns the defaults: profile spec, deactivate, DefaultSettings.
func NewConfig() Config {
	return Config{Profile: ProfileSpec, Default: DefaultSettings, RetryAfter: 60 * time.Second}
}

// SettingsFor returns the settings agent starts with.
func (c *Config) SettingsFor(agent string) Settings {
	if s, ok := c.Agents[agent]; ok {
		return s
	}
	return c.Default
}

// AgentNames returns the agents with explicit settings, sorted.
func (c *Config) AgentNames() []string {
	names := make([]string, 0, len(c.Agents))
	for n := range c.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
