package expect

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/killswitch/killswitch/analyze"
)

func TestWiden(t *testing.T) {
	tests := []struct {
		name string
		r    Range
		v    int
		want Range
	}{
		{"holds already", between(6, 8), 7, between(6, 8)},
		{"unset stays unset", Range{}, 4, Range{}},
		{"exact becomes the value", Exactly(6), 4, Exactly(4)},
		{"plain exact stays plain", Plain(2), 3, Plain(3)},
		{"below the min", between(6, 8), 4, between(4, 8)},
		{"above the max", between(6, 8), 11, between(6, 11)},
		{"min only", atLeast(6), 2, atLeast(2)},
		{"max only", atMost(1), 3, atMost(3)},
	}
	for _, tc := range tests {
		if got := Widen(tc.r, tc.v); got != tc.want {
			t.Errorf("%s: Widen(%s, %d) = %+v, want %+v", tc.name, tc.r, tc.v, got, tc.want)
		}
	}
}

func TestUpdate(t *testing.T) {
	e := &Expectation{
		About:    "keep me",
		Settings: Settings{Profile: pp(analyze.ProfileSpec), Threshold: fp(10)},
		Agents: []Agent{
			{Name: "early", Line: 3, Killed: true, AtRequest: between(6, 8)},                // killed at 4
			{Name: "exact", Line: 4, Killed: true, AtRequest: Exactly(6), Kills: Plain(1)},  // killed at 9 and 18
			{Name: "fine", Line: 5, Killed: true, AtRequest: between(6, 8)},                 // killed at 7
			{Name: "gone", Line: 6, Killed: true},                                           // not in the capture
			{Name: "healthy", Line: 7},                                                      // killed at 12 and 20
			{Name: "lost", Line: 8, Killed: true, AtRequest: Exactly(5), Kills: atLeast(1)}, // not killed
		},
		Totals: []Total{{Key: "agents_killed", Line: 10, Range: atMost(1)}, {Key: "malformed", Line: 11, Range: atMost(0)}},
	}
	s := summaryOf(agentSum("early", 10, 13, 4), agentSum("exact", 20, 13, 9, 18), agentSum("fine", 10, 13, 7),
		agentSum("healthy", 30, 13, 12, 20), agentSum("lost", 10, 9))
	s.Profile, s.Default = analyze.ProfileSpec, analyze.Settings{Enabled: true, WindowSize: 30, Threshold: 12}
	s.Totals.AgentsKilled = 4

	n, changes := Update(e, s, true)
	want := &Expectation{
		About:    "keep me",
		Settings: Settings{Profile: pp(analyze.ProfileSpec), Threshold: fp(12), Window: ip(30)},
		Agents: []Agent{
			{Name: "early", Line: 3, Killed: true, AtRequest: between(4, 8)},
			{Name: "exact", Line: 4, Killed: true, AtRequest: Exactly(9), Kills: Plain(2)},
			{Name: "fine", Line: 5, Killed: true, AtRequest: between(6, 8)},
			{Name: "gone", Line: 6, Killed: true},
			{Name: "healthy", Line: 7, Killed: true, AtRequest: Exactly(12), Kills: Plain(2)},
			{Name: "lost", Line: 8},
		},
		Totals: []Total{{Key: "agents_killed", Line: 10, Range: atMost(4)}, {Key: "malformed", Line: 11, Range: atMost(0)}},
	}
	if !reflect.DeepEqual(n, want) {
		t.Errorf("Update =\n%s\nwant\n%s", dump(n), dump(want))
	}
	wantChanges := []string{
		"settings.window: (default) → 30",
		"settings.threshold: 10 → 12",
		"early: killed at request 6–8 → killed at request 4–8",
		"exact: killed at request 6, kills 1 → killed at request 9, kills 2",
		"gone: no requests in the capture: left as is (remove it by hand if the agent is gone)",
		"healthy: not killed → killed at request 12, kills 2",
		"lost: killed at request 5, kills ≥ 1 → not killed",
		"totals.agents_killed: ≤ 1 → ≤ 4",
	}
	if !reflect.DeepEqual(changes, wantChanges) {
		t.Errorf("changes =\n%q\nwant\n%q", changes, wantChanges)
	}
	// e itself is untouched.
	if e.Agents[0].AtRequest != between(6, 8) || *e.Settings.Threshold != 10 {
		t.Errorf("Update changed its input: %s", dump(e))
	}
	// Everything but the missing agent now holds.
	for _, r := range Compare(n, s, nil) {
		if r.Pass == (r.Agent == "gone") {
			t.Errorf("after Update, %s: pass %v (%s)", r.Name(), r.Pass, r.Reason)
		}
	}
}

func TestUpdateNothingToDo(t *testing.T) {
	e, err := Parse("f", []byte(issueExample))
	if err != nil {
		t.Fatal(err)
	}
	s := summaryOf(agentSum("billing-bot", 10, 13, 7), agentSum("report-writer", 40, 2))
	s.Default, s.Totals.AgentsKilled = analyze.DefaultSettings, 1
	n, changes := Update(e, s, true)
	if len(changes) != 0 || !reflect.DeepEqual(n, e) {
		t.Errorf("Update of a holding expectation changed %q:\n%s", changes, dump(n))
	}
}

func TestUpdateSettings(t *testing.T) {
	// The file gives profile and mode; the replay ran agentgazer (a flag)
	// in block mode, threshold 10 (default, not in the file: stays out).
	s := &analyze.Summary{Profile: analyze.ProfileAgentGazer, Mode: analyze.ModeDeactivate, Default: analyze.DefaultSettings}
	old := Settings{Profile: pp(analyze.ProfileSpec), Mode: mp(analyze.ModeBlock)}
	got, changes := updateSettings(old, s)
	want := Settings{Profile: pp(analyze.ProfileAgentGazer), Mode: mp(analyze.ModeDeactivate)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings = %s, want %s", settingsString(got), settingsString(want))
	}
	if w := []string{"settings.profile: spec → agentgazer", "settings.mode: block → deactivate"}; !reflect.DeepEqual(changes, w) {
		t.Errorf("changes = %q, want %q", changes, w)
	}
	s.Mode = analyze.ModeBlock
	if _, changes := updateSettings(Settings{}, s); !reflect.DeepEqual(changes,
		[]string{"settings.profile: (default) → agentgazer", "settings.mode: (default) → block"}) {
		t.Errorf("changes = %q", changes)
	}
}

func TestFromSummary(t *testing.T) {
	s := summaryOf(agentSum("a", 10, 13, 6), agentSum("b", 40, 3), agentSum("c", 18, 13, 6, 15), agentSum("ctl-only", 0, 0))
	s.Profile, s.Mode, s.Default = analyze.ProfileSpec, analyze.ModeDeactivate, analyze.DefaultSettings
	got := FromSummary(s)
	want := &Expectation{
		Settings: Settings{Profile: pp(analyze.ProfileSpec), Mode: mp(analyze.ModeDeactivate), Window: ip(20), Threshold: fp(10)},
		Agents: []Agent{{Name: "a", Killed: true, AtRequest: Exactly(6)}, {Name: "b"},
			{Name: "c", Killed: true, AtRequest: Exactly(6), Kills: Plain(2)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromSummary =\n%s\nwant\n%s", dump(got), dump(want))
	}
	empty := FromSummary(&analyze.Summary{Default: analyze.DefaultSettings})
	if w := []Total{{Key: "requests", Range: Exactly(0)}}; !reflect.DeepEqual(empty.Totals, w) || empty.Agents != nil {
		t.Errorf("FromSummary(empty) = %s", dump(empty))
	}
}

func TestFormat(t *testing.T) {
	e := &Expectation{
		About:    "a <loop> & more",
		Settings: Settings{Threshold: fp(12.5), Profile: pp(analyze.ProfileAgentGazer)},
		Agents: []Agent{{Name: "b", Killed: true, AtRequest: atLeast(3), Kills: Plain(2)},
			{Name: "a", Killed: false}},
		Totals: []Total{{Key: "kills", Range: between(1, 2)}},
	}
	// Written by hand: keys sorted at every level, two spaces, the HTML
	// characters escaped as encoding/json (and so fixtures/gen) writes them.
	want := `{
  "about": "a \u003cloop\u003e \u0026 more",
  "agents": {
    "a": {
      "killed": false
    },
    "b": {
      "at_request": {
        "min": 3
      },
      "killed": true,
      "kills": 2
    }
  },
  "settings": {
    "profile": "agentgazer",
    "threshold": 12.5
  },
  "totals": {
    "kills": {
      "max": 2,
      "min": 1
    }
  }
}
`
	got, err := Format(e)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("Format =\n%s\nwant\n%s", got, want)
	}
	back, err := Parse("f", got)
	if err != nil {
		t.Fatal(err)
	}
	if !equalIgnoringLines(back, e) {
		t.Errorf("Parse(Format(e)) =\n%s\nwant\n%s", dump(back), dump(e))
	}
}

// equalIgnoringLines compares two expectations without their line
// numbers: what Format writes is everything else.
func equalIgnoringLines(a, b *Expectation) bool {
	fa, errA := Format(a)
	fb, errB := Format(b)
	return errA == nil && errB == nil && bytes.Equal(fa, fb)
}

func sortAgents(a []Agent) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].Name < a[j-1].Name; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
