package main

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
)

// reportHiddenWarnings says, per kind, how many warnings were counted but
// not printed (a replay prints the first analyze.KeptWarnings of each kind).
func reportHiddenWarnings(e *env, cmd string, counts []analyze.WarningCount) {
	for _, c := range counts {
		if n := c.Count - analyze.KeptWarnings; n > 0 {
			fmt.Fprintf(e.stderr, "killswitch %s: %d more %s warnings not shown (%d in all)\n", cmd, n, c.Kind, c.Count)
		}
	}
}

// noRequests is the error for input that held no LLM request: random
// bytes, an empty file, a wrong --input-format. A nightly job must not
// pass on such a file (--allow-empty accepts it).
func noRequests(requests, malformed int, skips []analyze.SkipCount) error {
	if requests > 0 {
		return nil
	}
	return fmt.Errorf("no LLM request in the input (%d malformed items, %d skipped items); --allow-empty accepts it", malformed, skipped(skips))
}

// skipped totals skip counts.
func skipped(skips []analyze.SkipCount) int {
	n := 0
	for _, s := range skips {
		n += s.Count
	}
	return n
}
