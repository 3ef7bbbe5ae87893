package roo_test

import (
	"testing"

	"github.com/killswitch/killswitch/analyze"
	pt "github.com/killswitch/killswitch/analyze/peers/peertest"
	"github.com/killswitch/killswitch/analyze/peers/roo"
)

var (
	readA = pt.ToolCall{Name: "read_file", Args: `{"path":"a.txt"}`}
	readB = pt.ToolCall{Name: "read_file", Args: `{"path":"b.txt"}`}
	mcp   = pt.ToolCall{Name: "mcp--github--list_issues", Args: `{"page":1}`}
)

// TestProfileDecisions: replays at the profile level, each expectation
// derived from check() and recursivelyMakeClineRequests (the threshold is
// consecutiveMistakeLimit).
func TestProfileDecisions(t *testing.T) {
	text := func(n int) *pt.Conv {
		c := pt.New("a").User("go")
		for i := 0; i < n; i++ {
			c.Respond("I will look at the file.").User("[ERROR] You did not use a tool in your previous response!")
		}
		return c
	}
	pt.RunCases(t, roo.Profile, []pt.Case{
		// Counts 0, 1, 2, 3: the 4th identical call reaches the limit 3.
		pt.Expect("four identical calls", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 6, readA)}, 3, analyze.ModeDeactivate, 4,
			"roo: identical tool call 4 times in a row (read_file)"),
		// Limit 2: the 3rd.
		pt.Expect("limit 2", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 6, readA)}, 2, analyze.ModeDeactivate, 3,
			"roo: identical tool call 3 times in a row (read_file)"),
		// A, B, A, B: the count never passes 0.
		pt.Expect("alternation", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 12, readA, readB)}, 3, analyze.ModeDeactivate, 0, ""),
		// Three calls in one response: counts 0, 1, 2; the next response's
		// first call 3.
		pt.Expect("parallel calls", []*pt.Conv{pt.New("a").User("go").Respond("", readA, readA, readA).Results("x", "x", "x").Respond("", readA)},
			3, analyze.ModeDeactivate, 2, "roo: identical tool call 4 times in a row (read_file)"),
		// MCP tools become mcp_tool_use blocks, which are not checked.
		pt.Expect("mcp tool", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 8, mcp)}, 3, analyze.ModeDeactivate, 0, ""),
		// A user message within the task does not reset; a new task (a
		// request with no assistant message) does: 3 calls, then a new
		// conversation of 3.
		pt.Expect("user message", []*pt.Conv{pt.Loop(pt.Loop(pt.New("a").User("go"), 3, readA).User("go on"), 1, readA)}, 3, analyze.ModeDeactivate, 4,
			"roo: identical tool call 4 times in a row (read_file)"),
		pt.Expect("new task", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 3, readA), pt.Loop(pt.New("a").User("go"), 3, readA)}, 3, analyze.ModeDeactivate, 0, ""),
		// A failed call adds nothing: A, fail, A, A, A: the 5th record.
		pt.Expect("failed call", []*pt.Conv{pt.Loop(pt.Loop(pt.New("a").User("go"), 1, readA).Fail(500), 3, readA)}, 3, analyze.ModeDeactivate, 5,
			"roo: identical tool call 4 times in a row (read_file)"),
		// Replies without a tool use: noToolUse 1, 2 (mistakes 1), 3 (2),
		// 4 (3); the 5th request finds 3 mistakes and is not made.
		pt.Expect("replies without a tool use", []*pt.Conv{text(6)}, 3, analyze.ModeDeactivate, 5,
			"roo: 3 consecutive mistakes (replies without a tool use)"),
		// A tool use between them resets both counters: 3 text replies
		// (2 mistakes), a call, 3 more (2 mistakes): never 3.
		pt.Expect("tool use resets mistakes", []*pt.Conv{pt.Loop(text(3), 1, readA).Respond("a").Respond("b").Respond("c")}, 3, analyze.ModeDeactivate, 0, ""),
		// Block mode: the refused 4th call never happened, so the 5th is
		// the 4th identical one again.
		pt.Expect("block mode", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 5, readA)}, 3, analyze.ModeBlock, 4,
			"roo: identical tool call 4 times in a row (read_file)"),
	})
	// In block mode every later identical call is refused too.
	c := pt.Loop(pt.New("a").User("go"), 6, readA)
	ds := pt.Replay(t, roo.Profile, analyze.Settings{Enabled: true, WindowSize: 20, Threshold: 3}, analyze.ModeBlock, c.Records)
	for i, d := range ds {
		if want := i >= 3; (d.Action == analyze.ActionBlock) != want {
			t.Errorf("block mode: request %d: %s, want blocked %v", i+1, d.Action, want)
		}
	}
}
