package main

import (
	"strings"
	"testing"
)

// Requests without a status are reported once per file, with a count, and
// their decision records have no outcome.
func TestBreakerNoStatus(t *testing.T) {
	in := `{"ts":1,"agent":"a","request":{}}
{"ts":2,"agent":"a","request":{},"status":null}
{"ts":3,"agent":"a","request":{},"status":500}
`
	stdout, stderr, code := runCLI(t, in, "replay", "--policy", "breaker", "-f", "jsonl", "-")
	if code != 0 || !strings.Contains(stderr, "<stdin>: 2 requests without a status: counted as neither success nor error by the breaker\n") ||
		strings.Count(stderr, "without a status") != 1 || strings.Count(stdout, `"outcome":null`) != 2 {
		t.Errorf("exit %d\n%s\n%s", code, stderr, stdout)
	}
}
