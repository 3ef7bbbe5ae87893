package main

import (
	"strings"
	"testing"
)

// TestFlagValueErrors: a flag value its type cannot parse is refused in
// the words of the other checks, naming the flag and the value, never
// with strconv's or time's internals ("strconv.ParseFloat: parsing …").
func TestFlagValueErrors(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"replay --policy breaker --error-rate x", `killswitch replay: --error-rate: "x" is not a number`},
		{"replay --window x", `killswitch replay: --window: "x" is not a whole number`},
		{"replay --window 99999999999999999999", `killswitch replay: --window: "99999999999999999999" is out of range`},
		{"replay --reactivate-after 5q", `killswitch replay: --reactivate-after: "5q" is not a duration (want 30s, 5m, 1h30m)`},
		{"replay --wide=maybe", `killswitch replay: --wide: "maybe" is not true or false`},
		{"replay --policy breaker --error-window 3", `killswitch replay: --error-window: "3" is not a duration (want 30s, 5m, 1h30m)`},
	} {
		_, stderr, code := runCLI(t, "", append(strings.Fields(c.args), "fixtures/breaker/outage.jsonl")...)
		if code != exitUsage || strings.TrimSpace(stderr) != c.want {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}
