package main

import (
	"fmt"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/report"
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

// reportMalformed says how many malformed input items a command skipped
// (each was reported where it was met), if any.
func reportMalformed(e *env, cmd string, n int) {
	if n > 0 {
		fmt.Fprintf(e.stderr, "killswitch %s: %s skipped (reported above)\n", cmd, report.Plural(n, "malformed input item"))
	}
}

// skipped totals skip counts.
func skipped(skips []analyze.SkipCount) int {
	n := 0
	for _, s := range skips {
		n += s.Count
	}
	return n
}
