package openclaw

import (
	"testing"

	"github.com/killswitch/killswitch/analyze/peers/jsjson"
)

var paramsSeeds = []string{
	`{}`, `{"action":"poll","sessionId":"s1"}`, `{"action":"log"}`, `{"action":"po\"ll"}`, `{"action":1}`,
	`{"command":"ls","cwd":"/tmp"}`, `{"b":1,"a":2}`, `{"a":{"action":"poll"},"b":[1,"x"]}`, `{"action":"é"}`,
	`{"1":"x"}`, `not json`, `{"action":"send","to":"x"}`, `{"a":"}","b":"\\"}`,
}

// TestCanonicalParams: arguments stableStringify writes back unchanged
// are keyed without a parse, exactly as the parsed path keys them.
func TestCanonicalParams(t *testing.T) {
	fast := 0
	for _, args := range paramsSeeds {
		if checkParams(t, args) {
			fast++
		}
	}
	if fast < 7 {
		t.Fatalf("%d seeds took the canonical path, want 7 or more", fast)
	}
}

// checkParams fails when NewParams and the parsed path differ, and
// reports whether args took the canonical path.
func checkParams(t *testing.T, args string) bool {
	t.Helper()
	got, want := NewParams("process", args), parsedParams("process", args)
	if got != want {
		t.Fatalf("NewParams(%q) = %+v; parsed: %+v", args, got, want)
	}
	return jsjson.Canonical(args, jsjson.Sorted)
}

// FuzzParams: any arguments are keyed as the parsed path keys them.
func FuzzParams(f *testing.F) {
	for _, s := range paramsSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		if jsjson.Trim(args) == "" {
			return // "{}" by then: a seed
		}
		checkParams(t, args)
	})
}
