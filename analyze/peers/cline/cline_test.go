package cline_test

import (
	"slices"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/peers/cline"
	pt "github.com/killswitch/killswitch/analyze/peers/peertest"
)

// TestTrackerOrchestratorCases: the loop-detection cases of
// session-runtime-orchestrator.test.ts (cline 21cb8d25), on the tracker,
// with their thresholds soft 2 / hard 3. Derived from
// checkRepeatedToolCall: the count is 1 for a call unlike the last, one
// more for the same name and signature; soft is count == soft, hard
// count ≥ hard.
func TestTrackerOrchestratorCases(t *testing.T) {
	sig := cline.Signature(`{"a":1}`)
	// "aborts on hard-threshold loop detection of identical tool calls":
	// three identical calls, the third is hard.
	var tr cline.Tracker
	var got []cline.Verdict
	for i := 0; i < 3; i++ {
		_, v := tr.Inspect("same", sig, 2, 3)
		got = append(got, v)
	}
	if want := []cline.Verdict{cline.OK, cline.Soft, cline.Hard}; !slices.Equal(got, want) {
		t.Errorf("hard threshold: %v, want %v", got, want)
	}
	// "resets loop detection when run() starts a fresh conversation": two
	// runs of two identical calls never reach 3.
	tr.Reset()
	got = nil
	for run := 0; run < 2; run++ {
		tr.Reset()
		for i := 0; i < 2; i++ {
			_, v := tr.Inspect("same", sig, 2, 3)
			got = append(got, v)
		}
	}
	if want := []cline.Verdict{cline.OK, cline.Soft, cline.OK, cline.Soft}; !slices.Equal(got, want) {
		t.Errorf("fresh conversation: %v, want %v", got, want)
	}
	// The CLI's soft 3 / hard 5: OK, OK, Soft, OK, Hard, Hard (≥).
	tr.Reset()
	got = nil
	for i := 0; i < 6; i++ {
		_, v := tr.Inspect("read_file", sig, 3, 5)
		got = append(got, v)
	}
	if want := []cline.Verdict{cline.OK, cline.OK, cline.Soft, cline.OK, cline.Hard, cline.Hard}; !slices.Equal(got, want) {
		t.Errorf("soft 3 / hard 5: %v, want %v", got, want)
	}
	// The same input under another name is another call.
	tr.Reset()
	tr.Inspect("a", sig, 3, 5)
	if n, _ := tr.Inspect("b", sig, 3, 5); n != 1 {
		t.Errorf("another name: count %d, want 1", n)
	}
}

// TestSignature: toolCallSignature of the parsed input, derived by hand:
// sortKeys rebuilds objects with sorted keys, so array-index keys still
// come first; a string is itself; blank or unparseable arguments are {}.
func TestSignature(t *testing.T) {
	cases := []struct{ args, want string }{
		{`{"b":1,"a":{"d":[{"z":1,"y":2}],"c":2}}`, `{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}`},
		{`{"b":1,"10":2,"9":3}`, `{"9":3,"10":2,"b":1}`},
		{`{"a":1.0}`, `{"a":1}`},
		{`"ls -la"`, `ls -la`},
		{`42`, `42`},
		{`true`, `true`},
		{`null`, `null`},
		{`[2,{"b":1,"a":0}]`, `[2,{"a":0,"b":1}]`},
		{``, `{}`},
		{`  `, `{}`},
		{`{"a":`, `{}`},
		{`1e400`, `Infinity`},
	}
	for _, c := range cases {
		if got := cline.Signature(c.args); got != c.want {
			t.Errorf("%q: got %s, want %s", c.args, got, c.want)
		}
	}
}

var (
	readA  = pt.ToolCall{Name: "read_file", Args: `{"path":"a.txt","task_progress":"- [ ] read a"}`}
	readA2 = pt.ToolCall{Name: "read_file", Args: `{"task_progress":"- [ ] read a","path":"a.txt"}`}
	readB  = pt.ToolCall{Name: "read_file", Args: `{"path":"b.txt"}`}
)

// TestProfileDecisions: replays at the profile level (threshold: the
// hard threshold), each expectation derived from checkRepeatedToolCall.
func TestProfileDecisions(t *testing.T) {
	pt.RunCases(t, cline.Profile, []pt.Case{
		// Counts 1..5: the 5th identical call is hard.
		pt.Expect("five identical calls", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 7, readA)}, 5, analyze.ModeDeactivate, 5, "cline: 5 consecutive identical calls to read_file"),
		// Key order does not matter (sorted keys).
		pt.Expect("key order", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 7, readA, readA2)}, 5, analyze.ModeDeactivate, 5, "cline: 5 consecutive identical calls to read_file"),
		// A, B, A, B: never past 1.
		pt.Expect("alternation", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 12, readA, readB)}, 5, analyze.ModeDeactivate, 0, ""),
		// Threshold 3: the 3rd.
		pt.Expect("threshold 3", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 7, readA)}, 3, analyze.ModeDeactivate, 3, "cline: 3 consecutive identical calls to read_file"),
		// Five calls in one response: that record.
		pt.Expect("parallel calls", []*pt.Conv{pt.New("a").User("go").Respond("", readA, readA, readA, readA, readA)}, 5, analyze.ModeDeactivate, 1, "cline: 5 consecutive"),
		// A text reply, a failed call and a user message do not break the
		// run: only tool calls move the tracker (calls at records 1, 2, 5,
		// 6, 7).
		pt.Expect("text between", []*pt.Conv{pt.Loop(pt.Loop(pt.New("a").User("go"), 2, readA).Respond("thinking").Fail(500).User("continue"), 3, readA)}, 5, analyze.ModeDeactivate, 7,
			"cline: 5 consecutive identical calls to read_file"),
		// A fresh conversation (no assistant message) resets: 4 and 4.
		pt.Expect("fresh conversation", []*pt.Conv{pt.Loop(pt.New("a").User("go"), 4, readA), pt.Loop(pt.New("a").User("go"), 4, readA)}, 5, analyze.ModeDeactivate, 0, ""),
	})
}
