package openhands_test

import (
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/openhands"
	pt "github.com/killswitch/killswitch/analyze/peers/peertest"
)

var (
	ls      = pt.ToolCall{Name: "execute_bash", Args: `{"command":"ls"}`}
	lsShell = pt.ToolCall{Name: "bash", Args: `{"command":"ls"}`}
	view    = pt.ToolCall{Name: "str_replace_editor", Args: `{"command":"view","path":"/a.py"}`}
)

const done = "\n[The command completed with exit code 0.]"

func killedAt(t *testing.T, p *analyze.Profile, c *pt.Conv) (int, string) {
	t.Helper()
	return pt.FirstKill(pt.Replay(t, p, analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 1}, analyze.ModeDeactivate, c.Records))
}

// Each case's history, derived by hand from PEER-REPLAY.md's steps (R: the
// recall action a user prompt brings, A/O: an action and its
// observation, M: an agent message, C: a condensation observation).
func TestProfileDecisions(t *testing.T) {
	loop := func(c *pt.Conv, n int, call pt.ToolCall, result string) *pt.Conv {
		for i := 0; i < n; i++ {
			c.Respond("", call).Results(result)
		}
		return c
	}
	cases := []struct {
		name     string
		conv     *pt.Conv
		headless bool
		at       int
		reason   string
	}{
		// Request k checks R, (A, O)×(k−1): the 4 last actions are all
		// A from request 5 on: request 5 is the call OpenHands would not
		// have made.
		{"repeating action/observation", loop(pt.New("a").User("go"), 6, ls, "a.txt"+done), false, 5,
			"openhands: repeating action/observation ×4 (execute_bash)"},
		// Bash's output is ignored, only the command and exit code count.
		{"output ignored", func() *pt.Conv {
			c := pt.New("a").User("go")
			for i := 0; i < 6; i++ {
				c.Respond("", ls).Results("tick " + strings.Repeat("x", i) + done)
			}
			return c
		}(), false, 5, "repeating action/observation ×4"},
		// Another agent's shell tool is a CmdRunAction too.
		{"shell tool", loop(pt.New("a").User("go"), 6, lsShell, "a.txt"+done), false, 5, "repeating action/observation ×4 (bash)"},
		// Four calls in one response: each further action is taken
		// from the queue after a check; the check before request 2 sees
		// R, (A, O)×4.
		{"one response, four calls", pt.New("a").User("go").Respond("", ls, ls, ls, ls).Results("a"+done, "a"+done, "a"+done, "a"+done).Respond("", ls), false, 2,
			"repeating action/observation ×4"},
		// The thought is compared: a different text each time makes
		// every action different.
		{"thought differs", func() *pt.Conv {
			c := pt.New("a").User("go")
			for i := 0; i < 8; i++ {
				c.Respond("Attempt "+strings.Repeat("I", i+1), ls).Results("a.txt" + done)
			}
			return c
		}(), false, 0, ""},
		// Errors (conversation_memory's suffix) with different texts:
		// the last 3 actions equal, 3 ErrorObservations: request 4.
		{"repeating action/error", func() *pt.Conv {
			c := pt.New("a").User("go")
			for i := 0; i < 5; i++ {
				c.Respond("", view).Results("failure " + strings.Repeat("!", i) + "\n[Error occurred in processing last action]")
			}
			return c
		}(), false, 4, "openhands: repeating action/error ×3 (str_replace_editor)"},
		// R, M, M, M: three equal agent messages, no observation
		// between: request 4.
		{"monologue", pt.New("a").User("go").Respond("I am done.").Respond("I am done.").Respond("I am done.").Respond("I am done."), false, 4,
			"openhands: monologue ×3"},
		// A user message after each agent message: interactive mode
		// starts afresh each time…
		{"monologue across user messages, interactive", pt.New("a").User("go").Respond("I am done.").User("ok").Respond("I am done.").User("ok").Respond("I am done.").User("ok").Respond("x"), false, 0, ""},
		// …headless mode filters the user messages out; their recall
		// actions are not observations: R, M, R, M, R, M, R → request 4.
		{"monologue across user messages, headless", pt.New("a").User("go").Respond("I am done.").User("ok").Respond("I am done.").User("ok").Respond("I am done.").User("ok").Respond("x"), true, 4, "monologue ×3"},
		// ls, view, ls, view…: the 6 last actions alternate from
		// request 7 on (R, then (A, O) × 6 with A alternating).
		{"alternation", func() *pt.Conv {
			c := pt.New("a").User("go")
			for i := 0; i < 8; i++ {
				if i%2 == 0 {
					c.Respond("", ls).Results("a.py" + done)
				} else {
					c.Respond("", view).Results("print(1)")
				}
			}
			return c
		}(), false, 7, "openhands: alternating action/observation pattern ×3 (execute_bash, str_replace_editor)"},
		// A tool neither native nor offered: one ErrorObservation per
		// response, no action: R, E, E, … never 3 actions.
		{"unknown tool", func() *pt.Conv {
			c := pt.New("a").User("go")
			c.Tools = []string{"execute_bash"}
			for i := 0; i < 6; i++ {
				c.Respond("", pt.ToolCall{Name: "nope", Args: `{}`})
			}
			return c
		}(), false, 0, ""},
		// Context-window failures after a tool call: R, A, O, then a C
		// for each failed call: 10 C's at the check of request 12.
		{"context window loop", func() *pt.Conv {
			c := pt.New("a").User("go").Respond("", ls).Results("a" + done)
			for i := 0; i < 12; i++ {
				c.FailWith(400, `{"error":{"message":"litellm.ContextWindowExceededError: prompt is too long"}}`)
			}
			return c
		}(), false, 12, "openhands: context window error loop"},
		// Other failures add nothing.
		{"other failures", func() *pt.Conv {
			c := pt.New("a").User("go").Respond("", ls).Results("a" + done)
			for i := 0; i < 12; i++ {
				c.Fail(500)
			}
			return c
		}(), false, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := openhands.Profile
			if c.headless {
				p = openhands.ProfileHeadless
			}
			at, reason := killedAt(t, p, c.conv)
			if at != c.at || !strings.Contains(reason, c.reason) {
				t.Fatalf("killed at %d (%q), want %d (%q)", at, reason, c.at, c.reason)
			}
		})
	}
}

// TestBlockModeUndoes: a refused call's response never happened. After
// the 4th (A, O), request 5 is refused (429) and the agent goes on: the
// history is as before request 5 (its response's A is not in it); request
// 6's result, whose id answers no pending action, is taken by position
// for the 4th A again: the same 4 pairs, and request 6 is refused too.
func TestBlockModeUndoes(t *testing.T) {
	c := pt.New("a").User("go")
	for i := 0; i < 6; i++ {
		c.Respond("", ls).Results("a" + done)
	}
	ds := pt.Replay(t, openhands.Profile, analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 1}, analyze.ModeBlock, c.Records)
	var got []string
	for _, d := range ds {
		got = append(got, d.Action.String())
	}
	if want := "forward forward forward forward block block"; strings.Join(got, " ") != want {
		t.Fatalf("actions %v, want %s", got, want)
	}
}
