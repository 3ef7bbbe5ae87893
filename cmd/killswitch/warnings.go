package main

import (
	"fmt"
	"strconv"
	"strings"

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

// parseSize parses a byte size: a whole number with an optional unit (B,
// KiB, MiB, GiB, KB, MB, GB).
func parseSize(s string) (int, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mult := s, int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("%q is not a size (want e.g. 64MiB, 1GiB, 4096)", s)
	}
	return int(n * mult), nil
}

// textless counts the scored requests that had neither a prompt nor a
// response text to fingerprint: a reader that yields such requests has
// most likely not understood the bodies (a format it half knows), and a
// replay of them can never fire. It is said in one line, not per record.
type textless struct{ n, scored int }

// hooks wraps h to count the decisions without prompt and response hash
// among the requests the detector scored (forwarded or refused by it; a
// request refused because its agent was inactive never reaches it).
func (c *textless) hooks(h analyze.Hooks) analyze.Hooks {
	next := h.Decision
	h.Decision = func(d *analyze.Decision) error {
		if d.Action == analyze.ActionForward || d.Action == analyze.ActionKill || d.Action == analyze.ActionBlock {
			c.scored++
			if !d.HasPrompt && !d.HasResponse {
				c.n++
			}
		}
		if next != nil {
			return next(d)
		}
		return nil
	}
	return h
}

// report says how many scored requests had no text, if any did.
func (c *textless) report(e *env, cmd string) {
	if c.n > 0 {
		fmt.Fprintf(e.stderr, "killswitch %s: %s\n", cmd, textlessLine(c.n, c.scored))
	}
}

// textlessLine is the message for n requests of total without text.
func textlessLine(n, total int) string {
	return fmt.Sprintf("%d of %d requests have neither prompt nor response text to fingerprint (their bodies may be in a shape killswitch does not read; inspect shows their dialects)", n, total)
}
