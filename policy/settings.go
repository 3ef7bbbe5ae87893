package policy

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/killswitch/killswitch/internal/jsontree"
)

// SettingsPart is a policy's part of a settings file (--settings). One
// file may hold the parts of several policies (docs/settings.md): each
// policy reads its own keys, skips those another registered policy owns,
// and refuses any other; CheckSettingsFile checks every part at once, so
// a mistake anywhere in the file fails whichever policy runs.
type SettingsPart struct {
	// Keys are the top-level keys the policy reads ("agents", which holds
	// every policy's per-agent entries, is everyone's and not listed).
	Keys []string
	// AgentKeys are the keys it reads in an agent's entry under "agents".
	AgentKeys []string
	// Example is a settings document of this part alone, valid: the
	// conformance suite joins every policy's into one file.
	Example string
	// Check checks the policy's part of data (the file named file) as its
	// replay reads it, skipping the other policies' keys (OtherSettings);
	// its errors name file:line:column and the key.
	Check func(file string, data []byte) error
}

// SettingsKeys are the keys of a settings file: top-level ones and those
// of an agent's entry under "agents".
type SettingsKeys struct{ Top, Agent []string }

// AgentsKey is the top-level key of per-agent entries, shared by all.
const AgentsKey = "agents"

// OtherSettings returns the keys of the settings file that the
// registered policies other than the one named name read: that policy's
// part skips them. A key both own (none today) stays the policy's.
func OtherSettings(name string) SettingsKeys {
	var own SettingsKeys
	if p := Lookup(name); p != nil && p.Settings != nil {
		own = SettingsKeys{p.Settings.Keys, p.Settings.AgentKeys}
	}
	var o SettingsKeys
	for _, p := range registry {
		if p.Name == name || p.Settings == nil {
			continue
		}
		for _, k := range p.Settings.Keys {
			if !slices.Contains(own.Top, k) && !slices.Contains(o.Top, k) {
				o.Top = append(o.Top, k)
			}
		}
		for _, k := range p.Settings.AgentKeys {
			if !slices.Contains(own.Agent, k) && !slices.Contains(o.Agent, k) {
				o.Agent = append(o.Agent, k)
			}
		}
	}
	return o
}

// CheckSettingsFile checks every registered policy's part of the
// settings file at path ("" : none), each skipping the others' keys, and
// returns every problem once, in file order: a key no policy reads, a
// value of the wrong type or out of range in any part.
func CheckSettingsFile(path string) error {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var list jsontree.ErrorList
	var other []string
	for _, p := range registry {
		if p.Settings == nil || p.Settings.Check == nil {
			continue
		}
		err := p.Settings.Check(path, data)
		var l jsontree.ErrorList
		var e *jsontree.Error
		switch {
		case err == nil:
		case errors.As(err, &l):
			list = append(list, l...)
		case errors.As(err, &e):
			list = append(list, e)
		default:
			other = append(other, err.Error())
		}
	}
	slices.SortStableFunc(list, func(a, b *jsontree.Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	// A key no policy reads is found by every policy's check, each
	// listing the keys in its own order: said once, as the first says it.
	var lines []string
	type at struct {
		line, col int
		key       string
	}
	seenAt, seen := map[at]bool{}, map[string]bool{}
	for _, e := range list {
		if k := (at{e.Line, e.Col, e.Key}); !seenAt[k] {
			seenAt[k] = true
			lines = append(lines, e.Error())
		}
	}
	for _, l := range other {
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return errors.New(strings.Join(lines, "\n"))
}
