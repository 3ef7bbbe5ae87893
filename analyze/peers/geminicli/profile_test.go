package geminicli_test

import (
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/geminicli"
	pt "github.com/killswitch/killswitch/analyze/peers/peertest"
)

var (
	readA = pt.ToolCall{Name: "read_file", Args: `{"file_path":"a.txt"}`}
	readB = pt.ToolCall{Name: "read_file", Args: `{"file_path":"b.txt"}`}
)

func settings(th float64) analyze.Settings {
	return analyze.Settings{Enabled: true, WindowSize: 20, Threshold: th}
}

// replayed returns the 1-based request that is killed (0: none) and its
// reason, at threshold th.
func replayed(t *testing.T, c *pt.Conv, th float64) (int, string) {
	t.Helper()
	return pt.FirstKill(pt.Replay(t, geminicli.Profile, settings(th), analyze.ModeDeactivate, c.Records))
}

var loopOf = pt.Loop

func TestProfileDecisions(t *testing.T) {
	cases := []struct {
		name   string
		conv   *pt.Conv
		th     float64
		at     int
		reason string
	}{
		// One call per response: the 5th identical key ends a cycle of 1
		// repeated 5 times.
		{"five identical calls", loopOf(pt.New("a").User("go"), 8, readA), 1, 5,
			"gemini-cli: tool call cycle of 1 repeated 5 times (read_file)"},
		// A, B, A, B…: the 10th key ends a cycle of 2 repeated 5 times.
		{"alternation", loopOf(pt.New("a").User("go"), 12, readA, readB), 1, 10,
			"gemini-cli: tool call cycle of 2 repeated 5 times (read_file, read_file)"},
		// Five identical calls in one response: the record that holds them.
		{"parallel calls", pt.New("a").User("go").Respond("", readA, readA, readA, readA, readA), 1, 1, "cycle of 1"},
		// The same arguments with their keys in the other order are a
		// different key: A, A', A, A'… has no cycle of 1, and 9 calls are
		// one short of a cycle of 2 repeated 5 times (in the same key
		// order, the 5th call would have been killed).
		{"key order", loopOf(pt.New("a").User("go"), 9,
			pt.ToolCall{Name: "edit", Args: `{"path":"x","text":"y"}`}, pt.ToolCall{Name: "edit", Args: `{"text":"y","path":"x"}`}), 1, 0, ""},
		// 4 calls, a new user prompt (reset), 4 calls: never 5 in one
		// prompt.
		{"a new prompt resets", loopOf(loopOf(pt.New("a").User("go"), 4, readA).User("again"), 4, readA), 1, 0, ""},
		// 4 calls, then a failed call (no events), then 1: the 5th
		// identical key is in request 6.
		{"a failed call adds nothing", loopOf(loopOf(pt.New("a").User("go"), 4, readA).Fail(500), 1, readA), 1, 6, "cycle of 1"},
		// Threshold 2 (0.61.0's nudge-then-abort): the first detection
		// at the 5th call is cleared; the 6th call still ends a cycle of
		// 1 (the history is kept): detection 2 kills request 6.
		{"nudge then abort", loopOf(pt.New("a").User("go"), 8, readA), 2, 6, "detection 2 in this prompt"},
		// Content chanting in one response: the sentence (35 characters,
		// one line) repeats on one line, so it is one content event; the
		// first chunk's 10th occurrence ends at 9·35 + 50 = 365 < 700.
		{"content chanting", pt.New("a").User("go").Respond(strings.Repeat("I will now mark the task complete. ", 20)), 1, 1,
			"gemini-cli: content chanting"},
		// The same text as a numbered list, one item per line: every
		// line is a list item and resets the tracking.
		{"a list is not chanting", pt.New("a").User("go").Respond(strings.Repeat("1. I will now mark the task complete.\n", 20)), 1, 0, ""},
		// Text-only responses carry the content history over: responses
		// of 4 lines of 37 characters (148 each); the first chunk recurs
		// every 37, its 10th occurrence ends at 9·37 + 50 = 383, inside
		// the third response (296..444): request 3.
		{"chanting across responses", pt.New("a").User("go").
			Respond(strings.Repeat("I am done. I will wait for the user.\n", 4)).
			Respond(strings.Repeat("I am done. I will wait for the user.\n", 4)).
			Respond(strings.Repeat("I am done. I will wait for the user.\n", 4)), 1, 3, "content chanting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at, reason := replayed(t, c.conv, c.th)
			if at != c.at || !strings.Contains(reason, c.reason) {
				t.Fatalf("killed at %d (%q), want %d (%q)", at, reason, c.at, c.reason)
			}
		})
	}
}

// TestBlockModeForgetsTheRefusedResponse: in block mode the refused
// response never happened: the calls it held do not count, so the
// agent's next identical call detects again (5 keys in the history, the
// 5th from the next response), and each later one too.
func TestBlockModeForgetsTheRefusedResponse(t *testing.T) {
	c := loopOf(pt.New("a").User("go"), 7, readA)
	ds := pt.Replay(t, geminicli.Profile, settings(1), analyze.ModeBlock, c.Records)
	var got []string
	for _, d := range ds {
		got = append(got, d.Action.String())
	}
	want := "forward forward forward forward block block block"
	if strings.Join(got, " ") != want {
		t.Fatalf("actions %v, want %s", got, want)
	}
}
