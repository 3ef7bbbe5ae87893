package openclaw_test

import (
	"fmt"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/openclaw"
	pt "github.com/killswitch/killswitch/analyze/peers/peertest"
)

var (
	readA = pt.ToolCall{Name: "read_file", Args: `{"path":"a.txt"}`}
	listB = pt.ToolCall{Name: "list_dir", Args: `{"dir":"."}`}
)

// TestProfileDecisions: replays at the profile level. Call k is admitted
// against calls 1..k−1, whose outcomes the requests up to k brought.
func TestProfileDecisions(t *testing.T) {
	unknown := pt.New("a")
	unknown.Tools = []string{"read_file"}
	unknown.User("go")
	for i := 0; i < 12; i++ {
		unknown.Respond("", pt.ToolCall{Name: "exec_cmd", Args: fmt.Sprintf(`{"command":"ls %d"}`, i)}).Results("error")
	}
	pt.RunCases(t, openclaw.Profile, []pt.Case{
		// The 21st identical call has 20 identical outcomes behind it.
		pt.Expect("generic repeat", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 25, readA)}, 1, analyze.ModeDeactivate, 21,
			"openclaw: read_file called 20 times with identical outcomes (generic_repeat)"),
		// Threshold 2: the first critical blocks the batch (a veto); the
		// 22nd call finds the veto and 20 outcomes: 21, the second critical.
		pt.Expect("second critical", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 25, readA)}, 2, analyze.ModeDeactivate, 22,
			"openclaw: read_file called 21 times with identical outcomes (generic_repeat); critical detection 2 in this run"),
		// A, B, A, B… with stable outcomes: call 20 extends a tail of 19.
		pt.Expect("ping-pong", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 25, readA, listB)}, 1, analyze.ModeDeactivate, 20,
			"openclaw: alternating tool calls 20 times with no progress (ping_pong, list_dir)"),
		// A user message starts a new run: 15 and 15 never reach 20.
		pt.Expect("new run", []*pt.Conv{pt.Loop(pt.Loop(pt.New("a").User("go"), 15, readA).User("again"), 15, readA)}, 1, analyze.ModeDeactivate, 0, ""),
		// A tool the request does not offer fails as unknown: the 11th call
		// follows 10 such failures.
		pt.Expect("unknown tool", []*pt.Conv{unknown}, 1, analyze.ModeDeactivate, 11,
			"openclaw: unavailable tool attempted 10 times (unknown_tool_repeat)"),
		// Changing outcomes: progress; only warnings.
		pt.Expect("progress", []*pt.Conv{func() *pt.Conv {
			c := pt.New("a").User("go")
			for i := 0; i < 30; i++ {
				c.Respond("", readA).Results(fmt.Sprintf("line %d", i))
			}
			return c
		}()}, 1, analyze.ModeDeactivate, 0, ""),
		// Block mode: the refused call never happened; the next one is the
		// 21st again.
		pt.Expect("block mode", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 25, readA)}, 1, analyze.ModeBlock, 21, "generic_repeat"),
	})
}
