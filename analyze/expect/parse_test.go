package expect

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
)

func ip(n int) *int                          { return &n }
func fp(f float64) *float64                  { return &f }
func pp(p *analyze.Profile) *analyze.Profile { return p }
func mp(m analyze.Mode) *analyze.Mode        { return &m }
func between(min, max int) Range             { return Range{Min: min, Max: max, HasMin: true, HasMax: true} }
func atLeast(n int) Range                    { return Range{Min: n, HasMin: true} }
func atMost(n int) Range                     { return Range{Max: n, HasMax: true} }
func agentAt(name string, line int, r Range) Agent {
	return Agent{Name: name, Line: line, Killed: true, AtRequest: r}
}

// issueExample is the expectation file of the issue, one key per line so
// that the expected lines can be read off it.
const issueExample = `{"settings": {"profile": "spec", "window": 20, "threshold": 10, "mode": "deactivate"},
 "agents": {"billing-bot": {"killed": true, "at_request": {"min": 6, "max": 8}},
            "report-writer": {"killed": false}},
 "totals": {"agents_killed": {"max": 1}}}
`

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want Expectation
	}{
		{"issue example", issueExample, Expectation{
			Settings: Settings{Profile: pp(analyze.ProfileSpec), Mode: mp(analyze.ModeDeactivate), Window: ip(20), Threshold: fp(10)},
			Agents:   []Agent{agentAt("billing-bot", 2, between(6, 8)), {Name: "report-writer", Line: 3}},
			Totals:   []Total{{Key: "agents_killed", Line: 4, Range: atMost(1)}},
		}},
		{"bare integers are exact counts", `{"agents": {"a": {"killed": true, "at_request": 7, "kills": 2}}}`, Expectation{
			Agents: []Agent{{Name: "a", Line: 1, Killed: true, AtRequest: Plain(7), Kills: Plain(2)}},
		}},
		{"one bound", "{\"agents\": {\"a\": {\"killed\": true, \"at_request\": {\"min\": 3}},\n\"b\": {\"killed\": true, \"at_request\": {\"max\": 9}}}}", Expectation{
			Agents: []Agent{agentAt("a", 1, atLeast(3)), agentAt("b", 2, atMost(9))},
		}},
		{"agents sorted by name", "{\"agents\": {\"zed\": {\"killed\": false},\n\"abe\": {\"killed\": false}}}", Expectation{
			Agents: []Agent{{Name: "abe", Line: 2}, {Name: "zed", Line: 1}},
		}},
		{"partial settings, other profile and mode", `{"about": "x", "settings": {"profile": "agentgazer", "mode": "block", "threshold": 12.5}, "totals": {"requests": 40}}`, Expectation{
			About:    "x",
			Settings: Settings{Profile: pp(analyze.ProfileAgentGazer), Mode: mp(analyze.ModeBlock), Threshold: fp(12.5)},
			Totals:   []Total{{Key: "requests", Line: 1, Range: Plain(40)}},
		}},
		{"whole-number floats", `{"settings": {"window": 30.0}, "agents": {"a": {"killed": true, "at_request": {"min": 6.0, "max": 1e1}}}}`, Expectation{
			Settings: Settings{Window: ip(30)},
			Agents:   []Agent{agentAt("a", 1, between(6, 10))},
		}},
		{"byte order mark ignored", "\uFEFF{\"totals\": {\"kills\": 0}}", Expectation{
			Totals: []Total{{Key: "kills", Line: 1, Range: Plain(0)}},
		}},
		{"every total", `{"totals": {"skipped": 0, "requests": 1, "malformed": 2, "kills": 3, "blocked": 4, "agents_killed": 5, "agents": 6}}`, Expectation{
			Totals: []Total{{"agents", 1, Plain(6)}, {"agents_killed", 1, Plain(5)}, {"blocked", 1, Plain(4)},
				{"kills", 1, Plain(3)}, {"malformed", 1, Plain(2)}, {"requests", 1, Plain(1)}, {"skipped", 1, Plain(0)}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("f.json", []byte(tc.doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("Parse =\n%s\nwant\n%s", dump(got), dump(&tc.want))
			}
		})
	}
}

func dump(e *Expectation) string {
	s := fmt.Sprintf("about %q settings %s agents %+v totals %+v", e.About, settingsString(e.Settings), e.Agents, e.Totals)
	for _, k := range slices.Sorted(maps.Keys(e.Parts)) {
		s += fmt.Sprintf(" %s %+v", k, e.Parts[k])
	}
	return s
}

// The schemas of the tests: the loop detector (the default) and a policy
// made up for them, "quota", with two variants, a settings object whose
// only key is "limit" (a number), and a section of named outcomes,
// "users", so that this package's tests name no real policy.
var (
	loopSchema  = &Schema{Policy: "loop", LoopSettings: true}
	userKeys    = OutcomeKeys{Section: "users", What: "user", Fired: "throttled", At: "at_request", Count: "throttles", Not: "never throttled", AtHint: "a user's requests are counted from 1"}
	quotaSchema = &Schema{
		Policy:   "quota",
		Variants: []string{"hard", "soft"},
		Settings: func(p *Parser, n *Node, path string) {
			for _, m := range p.Object(n, path, "limit") {
				p.Integer(m.Val, path+"."+m.Key)
			}
		},
		Sections: []Section{{Key: "users", Parse: func(p *Parser, _ string, n *Node) Part {
			return &Outcomes{Keys: userKeys, List: p.Outcomes(n, userKeys)}
		}}},
	}
	testSchemas = []*Schema{loopSchema, quotaSchema}
)

func settingsString(s Settings) string {
	var parts []string
	if s.Profile != nil {
		parts = append(parts, "profile "+s.Profile.String())
	}
	if s.Mode != nil {
		parts = append(parts, "mode "+s.Mode.String())
	}
	if s.Window != nil {
		parts = append(parts, fmt.Sprint("window ", *s.Window))
	}
	if s.Threshold != nil {
		parts = append(parts, fmt.Sprint("threshold ", *s.Threshold))
	}
	if s.Policy != nil {
		parts = append(parts, "policy "+*s.Policy)
	}
	if s.Variant != nil {
		parts = append(parts, "variant "+*s.Variant)
	}
	if s.Own != nil {
		parts = append(parts, "own "+string(s.Own))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// wantErr is one expected problem: at is a string of the document whose
// first occurrence starts where the error must point (its line and column
// are computed by searching for it, not by the code under test), or "@N"
// for column N of line 1 where no marker can name the place.
type wantErr struct {
	at, key, msg string
}

// posOf returns the 1-based line and column (in characters) of the first
// occurrence of at in doc.
func posOf(t *testing.T, doc, at string) (int, int) {
	t.Helper()
	i := strings.Index(doc, at)
	if i < 0 {
		t.Fatalf("marker %q not in the document", at)
	}
	line := 1 + strings.Count(doc[:i], "\n")
	start := strings.LastIndex(doc[:i], "\n") + 1
	return line, 1 + len([]rune(doc[start:i]))
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestParseErrors(t *testing.T) {
	deep := `{"about": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`
	tests := []struct {
		name string
		doc  string
		want []wantErr
	}{
		// The document.
		{"empty", "", []wantErr{{"", "", "empty file: want a JSON object"}}},
		{"blank", " \n\t", []wantErr{{"", "", "empty file: want a JSON object"}}},
		{"bad literal", `{"agents": {"a": {"killed": tru}}}`, []wantErr{{"}}}", "", `not valid JSON: invalid character '}' in literal true (expecting 'e')`}}},
		{"python literal", "{\"agents\": {\"a\":\n {\"killed\": True}}}", []wantErr{{"True", "", `not valid JSON: invalid character 'T' looking for beginning of value`}}},
		{"truncated", `{"agents": {`, []wantErr{{"@12", "", "not valid JSON: unexpected end of JSON input"}}}, // the last character
		{"trailing data", `{"totals": {"kills": 1}} x`, []wantErr{{"x", "", `not valid JSON: invalid character 'x' after top-level value`}}},
		{"not an object", `[1]`, []wantErr{{"[", "", "want a JSON object, got a JSON array"}}},
		// The root object is level 0, the n-th '[' level n: the 32nd '['
		// (character 10 + 32) is one too many.
		{"too deep", deep, []wantErr{{"@42", "", "nested more than 32 levels deep: not an expectation file"}}},
		{"expects nothing", `{}`, []wantErr{{"{", "", `expects nothing: give "agents" or "totals"`}}},
		{"only about", `{"about": "x"}`, []wantErr{{"{", "", `expects nothing: give "agents" or "totals"`}}},
		{"empty agents", `{"agents": {}}`, []wantErr{{"{", "", `expects nothing: every section is empty`}}},

		// Unknown and repeated keys.
		{"unknown top key", `{"agent": {"a": {"killed": true}}}`, []wantErr{{`"agent"`, "agent", `unknown key (want "about", "settings", "agents", "totals" or "users")`}}},
		{"agent key typo", `{"agents": {"a": {"killed": true, "at_requst": 3}}}`, []wantErr{{`"at_requst"`, "agents.a.at_requst", `unknown key (want "killed", "at_request" or "kills")`}}},
		{"settings typo", `{"settings": {"treshold": 10}, "totals": {"kills": 0}}`, []wantErr{{`"treshold"`, "settings.treshold", `unknown key (want "policy", "variant", "profile", "mode", "window", "threshold" or "quota")`}}},
		{"totals typo", `{"totals": {"agent_killed": 1}}`, []wantErr{{`"agent_killed"`, "totals.agent_killed", `unknown key (want "agents", "agents_killed", "blocked", "kills", "malformed", "requests" or "skipped")`}}},
		{"range typo", `{"totals": {"kills": {"minimum": 1}}}`, []wantErr{{`"minimum"`, "totals.kills.minimum", `unknown key (want "min" or "max")`}}},
		{"repeated key", `{"totals": {"kills": 1, "kills": 2}}`, []wantErr{{`"kills": 2`, "totals.kills", "key given twice (first at 1:13)"}}},

		// Types and values.
		{"about not a string", `{"about": 3, "totals": {"kills": 0}}`, []wantErr{{"3", "about", "want a string, got a JSON number"}}},
		{"settings not an object", `{"settings": [], "totals": {"kills": 0}}`, []wantErr{{"[", "settings", "want a JSON object, got a JSON array"}}},
		{"unknown profile", `{"settings": {"profile": "gazer"}, "totals": {"kills": 0}}`, []wantErr{{`"gazer"`, "settings.profile", `unknown profile "gazer" (want agentgazer, progress or spec)`}}},
		{"empty profile", `{"settings": {"profile": ""}, "totals": {"kills": 0}}`, []wantErr{{`""`, "settings.profile", `unknown profile "" (want agentgazer, progress or spec)`}}},
		{"profile not a string", `{"settings": {"profile": 1}, "totals": {"kills": 0}}`, []wantErr{{"1}", "settings.profile", "want a string, got a JSON number"}}},
		{"unknown mode", `{"settings": {"mode": "kill"}, "totals": {"kills": 0}}`, []wantErr{{`"kill"`, "settings.mode", `unknown mode "kill" (want "deactivate" or "block")`}}},
		{"window zero", `{"settings": {"window": 0}, "totals": {"kills": 0}}`, []wantErr{{"0}", "settings.window", "window 0 out of range 1..100000"}}},
		{"window too big", `{"settings": {"window": 100001}, "totals": {"kills": 0}}`, []wantErr{{"100001", "settings.window", "window 100001 out of range 1..100000"}}},
		{"window fraction", `{"settings": {"window": 2.5}, "totals": {"kills": 0}}`, []wantErr{{"2.5", "settings.window", "want a whole number, got 2.5"}}},
		{"window string", `{"settings": {"window": "20"}, "totals": {"kills": 0}}`, []wantErr{{`"20"`, "settings.window", "want a whole number, got a JSON string"}}},
		{"threshold negative", `{"settings": {"threshold": -1}, "totals": {"kills": 0}}`, []wantErr{{"-1", "settings.threshold", "threshold -1 is not a number ≥ 0"}}},
		{"threshold infinite", `{"settings": {"threshold": 1e400}, "totals": {"kills": 0}}`, []wantErr{{"1e400", "settings.threshold", "threshold 1e400 is not a number ≥ 0"}}},
		{"threshold string", `{"settings": {"threshold": "10"}, "totals": {"kills": 0}}`, []wantErr{{`"10"`, "settings.threshold", "want a number, got a JSON string"}}},
		{"agents not an object", `{"agents": []}`, []wantErr{{"[", "agents", "want a JSON object, got a JSON array"}}},
		{"agent not an object", `{"agents": {"a": true}}`, []wantErr{{"true", "agents.a", "want a JSON object, got a JSON boolean"}}},
		{"empty agent id", `{"agents": {"": {"killed": false}}}`, []wantErr{{`""`, "agents.", "empty agent id"}}},
		{"killed missing", `{"agents": {"a": {"at_request": 3}}}`, []wantErr{{`{"at_request"`, "agents.a", `missing key "killed" (true or false)`}}},
		{"killed not a boolean", `{"agents": {"a": {"killed": "yes"}}}`, []wantErr{{`"yes"`, "agents.a.killed", "want true or false, got a JSON string"}}},
		{"at_request zero", `{"agents": {"a": {"killed": true, "at_request": 0}}}`, []wantErr{{"0}", "agents.a.at_request", "0 is below 1 (an agent's requests are counted from 1)"}}},
		{"at_request negative", `{"agents": {"a": {"killed": true, "at_request": -2}}}`, []wantErr{{"-2", "agents.a.at_request", "-2 is below 1 (an agent's requests are counted from 1)"}}},
		{"at_request min zero", `{"agents": {"a": {"killed": true, "at_request": {"min": 0}}}}`, []wantErr{{"0}", "agents.a.at_request.min", "0 is below 1 (an agent's requests are counted from 1)"}}},
		{"at_request fraction", `{"agents": {"a": {"killed": true, "at_request": 6.5}}}`, []wantErr{{"6.5", "agents.a.at_request", "want a whole number, got 6.5"}}},
		{"at_request string", `{"agents": {"a": {"killed": true, "at_request": "6"}}}`, []wantErr{{`"6"`, "agents.a.at_request", `want a whole number or {"min": …, "max": …}, got a JSON string`}}},
		{"at_request bound string", `{"agents": {"a": {"killed": true, "at_request": {"max": "8"}}}}`, []wantErr{{`"8"`, "agents.a.at_request.max", "want a whole number, got a JSON string"}}},
		{"empty range", `{"agents": {"a": {"killed": true, "at_request": {}}}}`, []wantErr{{"{}", "agents.a.at_request", `empty range: give "min", "max" or both`}}},
		{"min above max", `{"agents": {"a": {"killed": true, "at_request": {"min": 8, "max": 6}}}}`, []wantErr{{`{"min"`, "agents.a.at_request", "min 8 is greater than max 6"}}},
		{"at_request when not killed", `{"agents": {"a": {"killed": false, "at_request": 6}}}`, []wantErr{{`"at_request"`, "agents.a.at_request", `given but "killed" is false`}}},
		{"kills when not killed", `{"agents": {"a": {"killed": false, "kills": 0}}}`, []wantErr{{`"kills"`, "agents.a.kills", `given but "killed" is false (leave it out)`}}},
		{"no kills when killed", `{"agents": {"a": {"killed": true, "kills": {"max": 0}}}}`, []wantErr{{`"kills"`, "agents.a.kills", `at most 0 contradicts "killed": true`}}},
		{"negative total", `{"totals": {"kills": -1}}`, []wantErr{{"-1", "totals.kills", "-1 is below 0 (a count)"}}},

		// Every problem is reported, in file order.
		// A policy's settings are its own: another's are refused, never ignored.
		{"loop setting for another policy", `{"settings": {"policy": "quota", "threshold": 5}, "totals": {"kills": 0}}`, []wantErr{{`"threshold"`, "settings.threshold", "a loop detector setting: this file replays the quota (its own settings go in settings.quota)"}}},
		{"profile for a policy with variants", `{"settings": {"policy": "quota", "profile": "spec"}, "totals": {"kills": 0}}`, []wantErr{{`"profile"`, "settings.profile", `a loop detector setting: this file replays the quota (its "hard" or "soft" goes in "variant")`}}},
		{"unknown policy", `{"settings": {"policy": "brake"}, "totals": {"kills": 0}}`, []wantErr{{`"brake"`, "settings.policy", `unknown policy "brake" (want "loop" or "quota")`}}},
		{"unknown variant", `{"settings": {"policy": "quota", "variant": "firm"}, "totals": {"kills": 0}}`, []wantErr{{`"firm"`, "settings.variant", `unknown quota variant "firm" (want "hard" or "soft")`}}},
		{"variant for the loop", `{"settings": {"variant": "hard"}, "totals": {"kills": 0}}`, []wantErr{{`"variant"`, "settings.variant", `the loop policy has no variants`}}},
		{"a policy's settings for the loop", `{"settings": {"quota": {"limit": 5}}, "totals": {"kills": 0}}`, []wantErr{{`{"limit`, "settings.quota", `quota settings need "policy": "quota"`}}},
		{"a policy's settings checked", `{"settings": {"policy": "quota", "quota": {"limit": "x"}}, "totals": {"kills": 0}}`, []wantErr{{`"x"`, "settings.quota.limit", `want a whole number, got a JSON string`}}},
		{"a policy's settings not an object", `{"settings": {"policy": "quota", "quota": [1]}, "totals": {"kills": 0}}`, []wantErr{{`[1]`, "settings.quota", `want a JSON object, got a JSON array`}}},
		{"a policy's section in a loop file", `{"users": {"u": {"throttled": true}}}`, []wantErr{{`"users"`, "users", `"users" is the quota's: it needs "settings": {"policy": "quota"}`}}},
		{"a policy's section read by it", `{"settings": {"policy": "quota"}, "users": {"u": {"killed": true}}}`, []wantErr{
			{`{"killed"`, "users.u", `missing key "throttled" (true or false)`},
			{`"killed"`, "users.u.killed", `unknown key (want "throttled", "at_request" or "throttles")`}}},
		{"a policy's empty section", `{"settings": {"policy": "quota"}, "users": {}}`, []wantErr{{"{", "", `expects nothing: every section is empty`}}},
		{"several", "{\"totals\": {\"kills\": -1},\n \"settings\": {\"window\": 0, \"mode\": \"x\"},\n \"agents\": {\"a\": {\"killed\": true, \"at_requst\": 6}}}", []wantErr{
			{"-1", "totals.kills", "-1 is below 0 (a count)"},
			{"0,", "settings.window", "window 0 out of range 1..100000"},
			{`"x"`, "settings.mode", `unknown mode "x" (want "deactivate" or "block")`},
			{`"at_requst"`, "agents.a.at_requst", `unknown key (want "killed", "at_request" or "kills")`},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse("dir/f.expect.json", []byte(tc.doc), testSchemas...)
			if err == nil {
				t.Fatalf("Parse accepted it: %s", dump(e))
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T is not an ErrorList: %v", err, err)
			}
			if len(list) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(list), len(tc.want), err)
			}
			for i, w := range tc.want {
				var line, col int
				if n, ok := strings.CutPrefix(w.at, "@"); ok {
					line, col = 1, atoi(t, n)
				} else {
					line, col = posOf(t, tc.doc, w.at)
				}
				g := list[i]
				if g.File != "dir/f.expect.json" || g.Line != line || g.Col != col || g.Key != w.key || g.Msg != w.msg {
					t.Errorf("error %d = %q\nwant at %d:%d key %q msg %q", i, g.Error(), line, col, w.key, w.msg)
				}
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: "a.expect.json", Line: 3, Col: 14, Key: "agents.b.at_requst", Msg: "unknown key"}, "a.expect.json:3:14: agents.b.at_requst: unknown key"},
		{Error{File: "a.expect.json", Line: 1, Col: 1, Msg: "empty file"}, "a.expect.json:1:1: empty file"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	list := ErrorList{&tests[0].err, &tests[1].err}
	if got, want := list.Error(), tests[0].want+"\n"+tests[1].want; got != want {
		t.Errorf("ErrorList.Error() = %q, want %q", got, want)
	}
}

func TestColumnsCountCharacters(t *testing.T) {
	// "é" is two bytes: the unknown key after it is at character 16, byte 17.
	doc := `{"about": "é", "x": 1, "totals": {"kills": 0}}`
	_, err := Parse("f", []byte(doc))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("want one error, got %v", err)
	}
	if list[0].Line != 1 || list[0].Col != 16 {
		t.Errorf("error at %d:%d, want 1:16 (%v)", list[0].Line, list[0].Col, err)
	}
}

// A policy's own parts of a file: its variant, its settings object (as
// compact JSON), its section read by its own Parse; written back by
// Format in the same form.
func TestParsePolicySections(t *testing.T) {
	doc := `{"settings": {"policy": "quota", "variant": "soft", "quota": {"limit": 5}},
 "users": {"ann": {"throttled": true, "at_request": 3},
           "bob": {"throttled": false}}}`
	e, err := Parse("f", []byte(doc), testSchemas...)
	if err != nil {
		t.Fatal(err)
	}
	if got := settingsString(e.Settings); got != `{policy quota, variant soft, own {"limit":5}}` {
		t.Errorf("settings %s", got)
	}
	users, ok := e.Part("users").(*Outcomes)
	if !ok || len(users.List) != 2 || users.List[0] != (Agent{Name: "ann", Line: 2, Killed: true, AtRequest: Plain(3)}) || users.List[1] != (Agent{Name: "bob", Line: 3}) {
		t.Fatalf("users %s", dump(e))
	}
	// Checked against outcomes as agents are.
	res := users.Compare([]Outcome{{Name: "ann", Requests: 5, Fired: []int{4}, Desc: "throttled at 4"}, {Name: "bob", Requests: 2}})
	if len(res) != 2 || res[0].Pass || res[0].Name() != "users.ann" || res[0].Reason != "throttled at request 4, expected 3" || !res[1].Pass {
		t.Errorf("compare %+v", res)
	}
	out, err := Format(e)
	want := `{
  "settings": {
    "policy": "quota",
    "quota": {
      "limit": 5
    },
    "variant": "soft"
  },
  "users": {
    "ann": {
      "at_request": 3,
      "throttled": true
    },
    "bob": {
      "throttled": false
    }
  }
}
`
	if err != nil || string(out) != want {
		t.Errorf("Format = %v\n%s\nwant\n%s", err, out, want)
	}
}
