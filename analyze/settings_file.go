package analyze

import (
	"fmt"
	"math"
	"sort"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsontree"
	"slices"
)

// SettingsFile is a loop kill switch settings file:
//
//	{"default": {"enabled": true, "window_size": 20, "threshold": 10},
//	 "agents": {"billing-bot": {"threshold": 12}, "reporter": {"enabled": false}}}
//
// Default patches the built-in settings; each agent's entry patches the
// default (see Config.ApplySettingsFile for the precedence).
type SettingsFile struct {
	Default ingest.KillSwitchPatch
	Agents  map[string]ingest.KillSwitchPatch
}

// ParseSettingsFile reads the settings file named file from data. Unknown
// keys, values of the wrong type and out of range are errors, every one
// reported (a jsontree.ErrorList) with its file:line:column and key.
func ParseSettingsFile(file string, data []byte) (SettingsFile, error) {
	return ParseSettings(file, data, nil, nil)
}

// SettingsKeys and AgentSettingsKeys are the loop kill switch's keys of a
// settings file: top-level ("agents" holds the per-agent entries) and in
// an agent's entry.
var (
	SettingsKeys      = []string{"default"}
	AgentSettingsKeys = []string{"enabled", "window_size", "threshold"}
)

// ParseSettings is ParseSettingsFile on a file that may hold the settings
// of other policies too: the top-level keys otherTop and the keys
// otherAgent of an agent's entry are theirs, and skipped.
func ParseSettings(file string, data []byte, otherTop, otherAgent []string) (SettingsFile, error) {
	sf := SettingsFile{Agents: map[string]ingest.KillSwitchPatch{}}
	d, root, err := jsontree.Parse(file, data, 8, "a settings file")
	if err != nil {
		return sf, jsontree.ErrorList{err}
	}
	for _, m := range d.Object(root, "", slices.Concat(SettingsKeys, []string{"agents"}, otherTop)...) {
		switch m.Key {
		case "default":
			sf.Default = ParsePatch(d, m.Val, "default")
		case "agents":
			for _, a := range d.Object(m.Val, "agents") {
				sf.Agents[a.Key] = parsePatch(d, a.Val, "agents."+a.Key, otherAgent)
			}
		}
	}
	return sf, d.Err()
}

// ParsePatch reads a kill switch settings object n ("enabled",
// "window_size", "threshold"), at key path of document d, recording in d
// each unknown key and each value of the wrong type or out of range.
func ParsePatch(d *jsontree.Doc, n *jsontree.Node, path string) ingest.KillSwitchPatch {
	return parsePatch(d, n, path, nil)
}

// parsePatch is ParsePatch skipping the keys others (another policy's in
// the same agent entry).
func parsePatch(d *jsontree.Doc, n *jsontree.Node, path string, others []string) ingest.KillSwitchPatch {
	var p ingest.KillSwitchPatch
	for _, m := range d.Object(n, path, slices.Concat(AgentSettingsKeys, others)...) {
		if slices.Contains(others, m.Key) {
			continue
		}
		kp := jsontree.Join(path, m.Key)
		if m.Key == "enabled" {
			if b, ok := d.Boolean(m.Val, kp); ok {
				p.Enabled = &b
			}
			continue
		}
		f, ok := d.Number(m.Val, kp)
		if !ok {
			continue
		}
		if m.Key == "window_size" {
			if f != math.Trunc(f) || f < 1 || f > MaxWindow {
				d.Errorf(m.Val.Off, kp, "want a whole number from 1 to %d, got %v", MaxWindow, f)
				continue
			}
			w := int(f)
			p.WindowSize = &w
			continue
		}
		if f < 0 {
			d.Errorf(m.Val.Off, kp, "want a number ≥ 0, got %v", f)
			continue
		}
		p.Threshold = &f
	}
	return p
}

// Apply builds cfg's per-agent settings from the file: cfg.Default (the
// built-in or the profile's), then the file's default, then flags (the
// command line's --window and --threshold); each agent's entry patches
// that. Every result is validated.
func (sf SettingsFile) Apply(cfg *Config, flags ingest.KillSwitchPatch) error {
	cfg.Default = cfg.Default.Apply(sf.Default).Apply(flags)
	if err := cfg.Default.Validate(); err != nil {
		return err
	}
	names := make([]string, 0, len(sf.Agents))
	for n := range sf.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	cfg.Agents = map[string]Settings{}
	for _, n := range names {
		s := cfg.Default.Apply(sf.Agents[n])
		if err := s.Validate(); err != nil {
			return fmt.Errorf("agent %q: %v", n, err)
		}
		cfg.Agents[n] = s
	}
	return nil
}
