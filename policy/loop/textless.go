package loop

import (
	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/report"
)

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

// note says how many scored requests had no text, if any did.
func (c *textless) note(cmd string) []string {
	if c.n > 0 {
		return []string{"killswitch " + cmd + ": " + report.TextlessLine(c.n, c.scored)}
	}
	return nil
}
