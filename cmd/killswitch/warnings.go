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
