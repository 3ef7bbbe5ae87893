// Package expect reads the expectation files of `killswitch check` and
// compares the summary of a replay with them. It is pure: bytes in, values
// out; no files, no printing (cmd/killswitch walks and runs, report renders).
//
// An expectation file NAME.expect.json sits beside its capture NAME.jsonl
// (or .har, .parquet, compressed or not) and says what replaying that
// capture must do:
//
//	{"about": "billing-bot loops on a failing refund; report-writer is healthy",
//	 "settings": {"profile": "spec", "window": 20, "threshold": 10, "mode": "deactivate"},
//	 "agents": {"billing-bot": {"killed": true, "at_request": {"min": 6, "max": 8}},
//	            "report-writer": {"killed": false}},
//	 "totals": {"agents_killed": {"max": 1}}}
//
// Keys (every other key is an error naming the file, line, column and key,
// so that a typo never passes silently; a key given twice is an error too):
//
//   - about: a sentence saying what the capture holds (informational).
//   - settings: the replay settings the expectation was recorded under:
//     policy (the kill switch replayed: the default's name, or a policy
//     given to Parse), then the loop detector's profile ("spec" |
//     "agentgazer" | …), window (entries, 1..analyze.MaxWindow), threshold
//     (a number ≥ 0), mode ("deactivate" | "block"). A setting left out
//     takes the built-in default; settings given on the command line
//     override the file's. Control records in the capture still apply at
//     their time. A policy with a Schema of its own takes its settings in
//     settings.<policy> and its variant in settings.variant, and refuses
//     the loop detector's (never ignored).
//   - agents: agent id → expectation. Every agent named must have requests
//     in the capture. Agents not named are not checked.
//   - killed (required): whether the kill switch fires for the agent at
//     least once (in block mode: refuses at least one request with 429).
//   - at_request: a count (the agent's requests numbered from 1, control
//     records not counted) the first firing must fall in. Only with killed.
//   - kills: how many times the kill switch fires for the agent (more than
//     once only after a re-activation, or in block mode). Only with killed.
//   - a policy's own sections (see Schema): the breaker's "scopes", the
//     gateway's "http_status", "block_reason" and "incidents"; each
//     needs settings.policy naming its policy.
//   - totals: bounds over the whole replay: agents (agents with requests),
//     agents_killed (agents with at least one firing), kills (firings),
//     blocked (requests refused because their agent was inactive),
//     requests, skipped (requests that could not be scored), malformed
//     (input items that are not records).
//
// A count is an integer (exactly that) or an object {"min": A, "max": B}
// with either bound or both, inclusive.
package expect

import (
	"strconv"

	"github.com/killswitch/killswitch/analyze"
)

// Range is an inclusive range of counts. A bound whose Has flag is false
// is open; the zero Range is unset and holds for every count.
type Range struct {
	Min, Max       int
	HasMin, HasMax bool

	// plain: the file wrote this exact count as a bare integer (2), not as
	// {"min": 2, "max": 2}; Format keeps the form it was given in.
	plain bool
}

// Exactly is the Range holding only n, written {"min": n, "max": n}.
func Exactly(n int) Range { return Range{Min: n, Max: n, HasMin: true, HasMax: true} }

// Plain is the Range holding only n, written as the integer n.
func Plain(n int) Range {
	r := Exactly(n)
	r.plain = true
	return r
}

// IsSet reports whether r bounds anything.
func (r Range) IsSet() bool { return r.HasMin || r.HasMax }

// IsExact reports whether r holds exactly one count.
func (r Range) IsExact() bool { return r.HasMin && r.HasMax && r.Min == r.Max }

// Contains reports whether n lies in r.
func (r Range) Contains(n int) bool {
	return (!r.HasMin || n >= r.Min) && (!r.HasMax || n <= r.Max)
}

// String renders r the way messages show it: "6", "6–8", "≥ 6", "≤ 8",
// or "any" when unset.
func (r Range) String() string {
	switch {
	case r.IsExact():
		return strconv.Itoa(r.Min)
	case r.HasMin && r.HasMax:
		return strconv.Itoa(r.Min) + "–" + strconv.Itoa(r.Max)
	case r.HasMin:
		return "≥ " + strconv.Itoa(r.Min)
	case r.HasMax:
		return "≤ " + strconv.Itoa(r.Max)
	}
	return "any"
}

// Settings are the replay settings of an expectation. A nil field is not
// set: the built-in default (or the command line) applies.
type Settings struct {
	// Policy is the kill switch the capture is replayed through (nil: the
	// default policy, the first Schema given to Parse).
	Policy *string
	// The loop detector's settings (a policy whose Schema has
	// LoopSettings).
	Profile   *analyze.Profile
	Mode      *analyze.Mode
	Window    *int     // entries per agent window
	Threshold *float64 // the kill switch fires when the score passes it
	// Variant is settings.variant, one of the policy's Schema.Variants.
	Variant *string
	// Own is settings.<policy>, the policy's own settings object, as
	// compact JSON (nil: not given).
	Own []byte
}

// Override returns s with every setting o sets replacing s's.
func (s Settings) Override(o Settings) Settings {
	if o.Policy != nil {
		s.Policy = o.Policy
	}
	if o.Profile != nil {
		s.Profile = o.Profile
	}
	if o.Mode != nil {
		s.Mode = o.Mode
	}
	if o.Window != nil {
		s.Window = o.Window
	}
	if o.Threshold != nil {
		s.Threshold = o.Threshold
	}
	if o.Variant != nil {
		s.Variant = o.Variant
	}
	return s
}

// Apply returns cfg with the settings s sets: profile, mode, and the
// default window and threshold of every agent.
func (s Settings) Apply(cfg analyze.Config) analyze.Config {
	if s.Profile != nil {
		// The profile's own window and threshold, unless given.
		cfg.Profile = s.Profile
		enabled := cfg.Default.Enabled
		cfg.Default = s.Profile.Defaults
		cfg.Default.Enabled = enabled
	}
	if s.Mode != nil {
		cfg.Mode = *s.Mode
	}
	if s.Window != nil {
		cfg.Default.WindowSize = *s.Window
	}
	if s.Threshold != nil {
		cfg.Default.Threshold = *s.Threshold
	}
	return cfg
}

// Agent is what one agent's replay must do.
type Agent struct {
	Name      string
	Line      int   // line of the agent's key in the file (1-based), for annotations
	Killed    bool  // the kill switch fires for the agent at least once
	AtRequest Range // the agent's request number (from 1) of the first firing; unset: not checked
	Kills     Range // number of firings; unset: not checked
}

// Total is a bound on one total of the replay.
type Total struct {
	Key   string // one of TotalKeys
	Line  int    // line of the key in the file (1-based)
	Range Range
}

// Expectation is one parsed expectation file.
type Expectation struct {
	About    string
	Settings Settings
	Agents   []Agent // sorted by name
	Totals   []Total // sorted by key
	// Parts are the sections of the policy the file replays, by key, as
	// its Schema read them (nil when it gave none).
	Parts map[string]Part
}

// Part returns the section key as its policy read it, or nil.
func (e *Expectation) Part(key string) Part { return e.Parts[key] }

// expectsSomething reports whether e bounds anything.
func (e *Expectation) expectsSomething() bool {
	if len(e.Agents) > 0 || len(e.Totals) > 0 {
		return true
	}
	for _, p := range e.Parts {
		if !p.Empty() {
			return true
		}
	}
	return false
}

// totalDef names one total and reads it from a summary.
type totalDef struct {
	key string
	get func(*analyze.Summary) int
}

// totals are the keys of "totals", sorted.
var totals = []totalDef{
	{"agents", func(s *analyze.Summary) int { return s.Totals.Agents }},
	{"agents_killed", func(s *analyze.Summary) int { return s.Totals.AgentsKilled }},
	{"blocked", func(s *analyze.Summary) int { return s.Totals.Blocked }},
	{"kills", firings},
	{"malformed", func(s *analyze.Summary) int { return s.Malformed }},
	{"requests", func(s *analyze.Summary) int { return s.Totals.Requests }},
	{"skipped", func(s *analyze.Summary) int { return s.Totals.Skipped }},
}

// firings counts every firing of the kill switch, in either mode.
func firings(s *analyze.Summary) int {
	n := 0
	for _, a := range s.Agents {
		n += len(a.Kills())
	}
	return n
}

// TotalKeys returns the keys "totals" accepts, sorted.
func TotalKeys() []string {
	keys := make([]string, len(totals))
	for i, t := range totals {
		keys[i] = t.key
	}
	return keys
}

func totalDefOf(key string) (totalDef, bool) {
	for _, t := range totals {
		if t.key == key {
			return t, true
		}
	}
	return totalDef{}, false
}
