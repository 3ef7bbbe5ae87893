package analyze_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// TestJoinSummaries: replaying each agent (and the malformed lines) on its
// own and joining the summaries gives the summary of one replay of all.
func TestJoinSummaries(t *testing.T) {
	const capture = `{"ts":"2026-01-02T03:04:01Z","agent":"b","request":{"messages":[{"role":"user","content":"same"}]}}
{"ts":"2026-01-02T03:04:02Z","agent":"a","request":{"messages":[{"role":"user","content":"one"}]}}
not json
{"ts":"2026-01-02T03:04:03Z","agent":"b","request":{"messages":[{"role":"user","content":"same"}]}}
{"ts":"2026-01-02T03:04:04Z","agent":"b","request":{"messages":[{"role":"user","content":"same"}]}}
{"ts":"2026-01-02T03:04:05Z","agent":"t","request":{"messages":[{"role":"user","content":"task"},{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"ls","arguments":"{\"p\":1}"}}]},{"role":"tool","tool_call_id":"1","content":"out 1"},{"role":"user","content":"task"}]}}
{"ts":"2026-01-02T03:04:06Z","agent":"t","request":{"messages":[{"role":"user","content":"task"},{"role":"assistant","tool_calls":[{"id":"2","type":"function","function":{"name":"cat","arguments":"{\"p\":2}"}}]},{"role":"tool","tool_call_id":"2","content":"out 2"},{"role":"user","content":"task"}]}}
{"ts":"2026-01-02T03:04:07Z","agent":"t","request":{"messages":[{"role":"user","content":"task"},{"role":"assistant","tool_calls":[{"id":"3","type":"function","function":{"name":"grep","arguments":"{\"p\":3}"}}]},{"role":"tool","tool_call_id":"3","content":"out 3"},{"role":"user","content":"task"}]}}
`
	cfg := analyze.NewConfig()
	cfg.Default.Threshold = 1
	whole, err := analyze.Replay(ingest.NewJSONL(strings.NewReader(capture), "c.jsonl", ingest.JSONLOptions{}), cfg, 1, analyze.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	// One part per agent, one for the malformed line: each a replay of the
	// lines that belong to it, at their line numbers.
	lines := strings.SplitAfter(capture, "\n")
	var parts []*analyze.Summary
	for _, pick := range []string{`"agent":"a"`, `"agent":"b"`, `"agent":"t"`, "not json"} {
		var sub strings.Builder
		for _, l := range lines {
			if strings.Contains(l, pick) {
				sub.WriteString(l)
			} else {
				sub.WriteString("\n") // a blank line keeps the line numbers
			}
		}
		p, err := analyze.Replay(ingest.NewJSONL(strings.NewReader(sub.String()), "c.jsonl", ingest.JSONLOptions{}), cfg, 1, analyze.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	got := analyze.JoinSummaries(cfg, parts, whole.Warnings)
	if whole.Totals.Kills != 2 || whole.Malformed != 1 || whole.ToolAgentKills != 1 {
		t.Fatalf("the whole replay should kill b and the tool agent t once each (t by its unchanged task) and see one malformed line: %+v, tool-agent kills %d", whole.Totals, whole.ToolAgentKills)
	}
	// The per-part replays number requests within their part; the joined
	// summary keeps those numbers (a distributed replay renumbers them).
	// Compare everything else.
	for _, a := range got.Agents {
		for i := range a.Kills() {
			a.Kills()[i].Seq = 0
		}
	}
	for _, a := range whole.Agents {
		for i := range a.Kills() {
			a.Kills()[i].Seq = 0
		}
	}
	for i := range whole.Agents {
		if i >= len(got.Agents) || !reflect.DeepEqual(got.Agents[i], whole.Agents[i]) {
			t.Errorf("agent %d differs:\n got %+v\nwant %+v", i, got.Agents[i], whole.Agents[i])
		}
	}
	if got.Totals != whole.Totals || got.Malformed != whole.Malformed || got.Controls != whole.Controls || got.ToolAgentKills != whole.ToolAgentKills ||
		len(got.Skips) != len(whole.Skips) || len(got.Agents) != len(whole.Agents) {
		t.Errorf("joined summary differs:\n got %+v\nwant %+v", got, whole)
	}
}
