package analyze

import (
	"errors"
	"testing"

	"github.com/killswitch/killswitch/internal/jsontree"
)

func TestParseSettingsFile(t *testing.T) {
	sf, err := ParseSettingsFile("s.json", []byte(`{"default": {"enabled": true, "window_size": 30, "threshold": 12.5},
 "agents": {"billing-bot": {"threshold": 0}, "reporter": {"enabled": false}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if *sf.Default.Enabled != true || *sf.Default.WindowSize != 30 || *sf.Default.Threshold != 12.5 ||
		*sf.Agents["billing-bot"].Threshold != 0 || *sf.Agents["reporter"].Enabled != false || len(sf.Agents) != 2 {
		t.Errorf("got %+v", sf)
	}
	for _, tc := range []struct{ doc, want string }{
		{``, "s.json:1:1: empty file: want a JSON object"},
		{`[]`, "s.json:1:1: want a JSON object, got a JSON array"},
		{`{"default": {"threshold": "x"}}`, "s.json:1:27: default.threshold: want a number, got a JSON string"},
		{`{"default": {"window_size": 20.5}}`, "s.json:1:29: default.window_size: want a whole number from 1 to 100000, got 20.5"},
		{"{\"agents\": {\"a\": {\"enabled\": 1}}}", "s.json:1:30: agents.a.enabled: want true or false, got a JSON number"},
		{"{\"agents\": {}, \n \"breaker\": {}}", `s.json:2:2: breaker: unknown key (want "default" or "agents")`},
		{`{"default": {"threshold": -1, "threshold": 2}}`, "s.json:1:27: default.threshold: want a number ≥ 0, got -1\n" +
			"s.json:1:31: default.threshold: key given twice (first at 1:14)"},
	} {
		_, err := ParseSettingsFile("s.json", []byte(tc.doc))
		var el jsontree.ErrorList
		if !errors.As(err, &el) || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
}

// FuzzParseSettingsFile: any input is read without a panic, and every
// error has a position inside the file.
func FuzzParseSettingsFile(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"default": {"enabled": true, "window_size": 20, "threshold": 10}}`,
		`{"agents": {"a": {"threshold": 1e400}}}`, "\uFEFF{\"default\": {}}", `{"default": [[[[[[[[[[]]]]]]]]]]}`, `{"x": }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseSettingsFile("f", data)
		if err == nil {
			return
		}
		var el jsontree.ErrorList
		if !errors.As(err, &el) || len(el) == 0 {
			t.Fatalf("%T %v", err, err)
		}
		for _, e := range el {
			if e.File != "f" || e.Line < 1 || e.Col < 1 || e.Line > 1+len(data) {
				t.Fatalf("bad position: %v", e)
			}
		}
	})
}
