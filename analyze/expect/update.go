package expect

import (
	"encoding/json"
	"maps"
	"strconv"

	"github.com/killswitch/killswitch/analyze"
)

// Update returns a copy of e changed so that it holds for s, the summary
// of replaying its capture (deliberate behaviour changes: `killswitch
// check --update`), and the changes made, one line each. The change is the
// smallest that holds:
//
//   - settings: a setting the replay ran with (s.Profile, s.Mode,
//     s.Default) is written when the file gave it with another value, or
//     did not give it and it differs from the built-in default (the
//     command line overrode it);
//   - an agent expected killed and not killed becomes "killed": false
//     (at_request and kills dropped); one expected not killed and killed
//     becomes "killed": true with at_request exactly its first firing, and
//     kills when it fired more than once;
//   - a count that fails is set to the observed value when it was exact,
//     else the bound it violates moves to the observed value;
//   - an agent with no request in the capture cannot be updated: it is left
//     as is and reported.
//
// loopSettings says whether the file's policy takes the loop detector's
// settings (its Schema's LoopSettings); a policy's own sections (Parts)
// are its to update, on the copy.
//
// Lines in the copy are those of e; re-parse Format's output for fresh ones.
func Update(e *Expectation, s *analyze.Summary, loopSettings bool) (*Expectation, []string) {
	c := *e
	n := &c
	n.Agents, n.Totals = append([]Agent(nil), e.Agents...), append([]Total(nil), e.Totals...)
	n.Parts = maps.Clone(e.Parts)
	var changes []string
	if loopSettings {
		n.Settings, changes = updateSettings(e.Settings, s)
	}
	byName := agentsByName(s)
	for i := range n.Agents {
		a := &n.Agents[i]
		got := byName[a.Name]
		if got == nil || got.Requests == 0 {
			changes = append(changes, a.Name+": no requests in the capture: left as is (remove it by hand if the agent is gone)")
			continue
		}
		before := describeWant(*a, AgentKeys)
		updateOutcome(a, firsts(got))
		if after := describeWant(*a, AgentKeys); after != before {
			changes = append(changes, a.Name+": "+before+" → "+after)
		}
	}
	for i := range n.Totals {
		t := &n.Totals[i]
		def, _ := totalDefOf(t.Key)
		before := t.Range
		t.Range = Widen(t.Range, def.get(s))
		if t.Range != before {
			changes = append(changes, "totals."+t.Key+": "+before.String()+" → "+t.Range.String())
		}
	}
	return n, changes
}

// updateOutcome changes a so that it holds for the firings seen (their
// request numbers): expected and not seen becomes not fired (at_request
// and the count dropped); seen and not expected becomes fired at exactly
// the first, with the count when more than one; else the bounds widen.
func updateOutcome(a *Agent, fired []int) {
	switch {
	case a.Killed && len(fired) == 0:
		a.Killed, a.AtRequest, a.Kills = false, Range{}, Range{}
	case !a.Killed && len(fired) > 0:
		a.Killed, a.AtRequest = true, Exactly(fired[0])
		if k := len(fired); k > 1 {
			a.Kills = Plain(k)
		}
	case len(fired) > 0:
		a.AtRequest = Widen(a.AtRequest, fired[0])
		a.Kills = Widen(a.Kills, len(fired))
	}
}

// Widen returns r changed to hold v: unchanged when it already does (or is
// unset), v exactly when r was exact, else with the violated bound moved
// to v.
func Widen(r Range, v int) Range {
	switch {
	case !r.IsSet() || r.Contains(v):
		return r
	case r.IsExact():
		r.Min, r.Max = v, v
		return r
	case r.HasMin && v < r.Min:
		r.Min = v
	case r.HasMax && v > r.Max:
		r.Max = v
	}
	return r
}

// replaySettings returns every loop detector setting the replay
// summarized by s ran with.
func replaySettings(s *analyze.Summary) Settings {
	p, m, w, t := s.Profile, s.Mode, s.Default.WindowSize, s.Default.Threshold
	return Settings{Profile: p, Mode: &m, Window: &w, Threshold: &t}
}

func updateSettings(old Settings, s *analyze.Summary) (Settings, []string) {
	def := analyze.NewConfig()
	got := replaySettings(s)
	n := old
	var changes []string
	if got.Profile == nil { // a summary that names no profile: nothing to compare
		return n, changes
	}
	def.Default = got.Profile.Defaults // a profile's own defaults are not news
	note := func(key string, was *string, now string) {
		if was == nil {
			changes = append(changes, "settings."+key+": (default) → "+now)
		} else {
			changes = append(changes, "settings."+key+": "+*was+" → "+now)
		}
	}
	str := func(v string) *string { return &v }
	switch {
	case old.Profile != nil && old.Profile.String() != got.Profile.String():
		note("profile", str(old.Profile.String()), got.Profile.String())
		n.Profile = got.Profile
	case old.Profile == nil && got.Profile.String() != def.Profile.String():
		note("profile", nil, got.Profile.String())
		n.Profile = got.Profile
	}
	switch {
	case old.Mode != nil && *old.Mode != *got.Mode:
		note("mode", str(old.Mode.String()), got.Mode.String())
		n.Mode = got.Mode
	case old.Mode == nil && *got.Mode != def.Mode:
		note("mode", nil, got.Mode.String())
		n.Mode = got.Mode
	}
	switch {
	case old.Window != nil && *old.Window != *got.Window:
		note("window", str(strconv.Itoa(*old.Window)), strconv.Itoa(*got.Window))
		n.Window = got.Window
	case old.Window == nil && *got.Window != def.Default.WindowSize:
		note("window", nil, strconv.Itoa(*got.Window))
		n.Window = got.Window
	}
	switch {
	case old.Threshold != nil && *old.Threshold != *got.Threshold:
		note("threshold", str(fmtFloat(*old.Threshold)), fmtFloat(*got.Threshold))
		n.Threshold = got.Threshold
	case old.Threshold == nil && *got.Threshold != def.Default.Threshold:
		note("threshold", nil, fmtFloat(*got.Threshold))
		n.Threshold = got.Threshold
	}
	return n, changes
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// FromSummary returns an expectation that describes s, a replay of the
// loop detector, exactly: every setting the replay ran with, and every agent with requests (killed or
// not, the first firing's request exactly, kills when more than one). It
// is what `killswitch check --update` writes for a capture that has no
// expectation file yet. A summary without agents yields the bound
// totals.requests = 0, so that the expectation expects something.
func FromSummary(s *analyze.Summary) *Expectation {
	e := &Expectation{Settings: replaySettings(s)}
	for _, a := range s.Agents {
		if a.Requests == 0 {
			continue
		}
		x := Agent{Name: a.Agent, Killed: len(a.Kills()) > 0}
		if x.Killed {
			x.AtRequest = Exactly(a.Kills()[0].AgentN)
			if len(a.Kills()) > 1 {
				x.Kills = Plain(len(a.Kills()))
			}
		}
		e.Agents = append(e.Agents, x)
	}
	if len(e.Agents) == 0 {
		e.Totals = []Total{{Key: "requests", Range: Exactly(s.Totals.Requests)}}
	}
	return e
}

// Format renders e as the canonical expectation file: keys sorted, two
// spaces of indentation, a final newline — the bytes fixtures/gen writes,
// so that formatting a file it wrote gives the file back. Lines are
// ignored; settings not set and unset counts are left out. The error is
// for a threshold JSON cannot hold (NaN or infinite), which Parse never
// yields.
func Format(e *Expectation) ([]byte, error) {
	doc := map[string]any{}
	if e.About != "" {
		doc["about"] = e.About
	}
	st := map[string]any{}
	if e.Settings.Policy != nil {
		st["policy"] = *e.Settings.Policy
	}
	if e.Settings.Profile != nil {
		st["profile"] = e.Settings.Profile.String()
	}
	if e.Settings.Mode != nil {
		st["mode"] = e.Settings.Mode.String()
	}
	if e.Settings.Window != nil {
		st["window"] = *e.Settings.Window
	}
	if e.Settings.Threshold != nil {
		st["threshold"] = *e.Settings.Threshold
	}
	if e.Settings.Variant != nil {
		st["variant"] = *e.Settings.Variant
	}
	if e.Settings.Own != nil && e.Settings.Policy != nil {
		st[*e.Settings.Policy] = json.RawMessage(e.Settings.Own)
	}
	if len(st) > 0 {
		doc["settings"] = st
	}
	if len(e.Agents) > 0 {
		doc["agents"] = outcomesJSON(e.Agents, AgentKeys)
	}
	for key, p := range e.Parts {
		if !p.Empty() {
			doc[key] = p.JSON()
		}
	}
	if len(e.Totals) > 0 {
		totals := map[string]any{}
		for _, t := range e.Totals {
			totals[t.Key] = RangeJSON(t.Range)
		}
		doc["totals"] = totals
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// RangeJSON is the value Format writes for r: the integer of an exact
// count given as one, else {"min": A, "max": B} with the bounds set.
func RangeJSON(r Range) any {
	if r.plain && r.IsExact() {
		return r.Min
	}
	m := map[string]any{}
	if r.HasMin {
		m["min"] = r.Min
	}
	if r.HasMax {
		m["max"] = r.Max
	}
	return m
}
