package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/internal/tracegen"
)

// TestTraceExportsGiveIdenticalDecisions writes the same traffic as
// capture JSONL, as an OpenInference span table in Parquet, as
// OpenInference OTLP JSON, as Phoenix span JSON, as OpenTelemetry console
// exporter output by the GenAI conventions (every chat span printed twice),
// as LangSmith run payloads (post and patch) and as Bedrock Converse
// invocation logs (internal/tracegen, which shares
// no code with the readers), and requires the same decision records from each under
// the spec and progress profiles (positions aside). Each call is an AGENT span over a
// framework LLM span over the provider's LLM span that holds the messages,
// beside a TOOL span: the readers must count the call once and skip the
// rest. Agents come from session.id on the AGENT span, half of them, and
// from user.id on the other half.
func TestTraceExportsGiveIdenticalDecisions(t *testing.T) {
	recs := fixtureRecords(t, "scenarios/identical-loop", "scenarios/prompt-only-loop", "scenarios/tool-call-loop",
		"scenarios/numbers-only-loop", "scenarios/healthy", "library/same-call-same-result", "library/short-cycle")

	var spans, calls []tracegen.Span
	for i, rec := range recs {
		trace := fmt.Sprintf("%032x", i+1)
		id := func(k int) string { return fmt.Sprintf("%016x", 4*i+k) }
		root := tracegen.Span{TraceID: trace, SpanID: id(1), Name: "agent.run", Kind: "AGENT", Start: rec.TS, End: rec.TS}
		if i%2 == 0 {
			root.Session = rec.Agent
		} else {
			root.User = rec.Agent
		}
		outer := tracegen.Span{TraceID: trace, SpanID: id(2), ParentID: root.SpanID, Name: "llm", Kind: "LLM",
			Start: rec.TS, End: rec.TS}
		inner := tracegen.Span{TraceID: trace, SpanID: id(3), ParentID: outer.SpanID, Name: "ChatCompletion", Kind: "LLM",
			Start: rec.TS, End: rec.TS}
		if err := tracegen.FromChat(&inner, rec.Request, rec.Response); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		tool := tracegen.Span{TraceID: trace, SpanID: id(4), ParentID: root.SpanID, Name: "tool", Kind: "TOOL",
			Start: rec.TS, End: rec.TS}
		spans = append(spans, root, outer, inner, tool)
		// A Bedrock log has no tree: the call names its agent, by its
		// requestMetadata or (User) by its role session.
		call := inner
		call.Session, call.User = root.Session, root.User
		calls = append(calls, call)
	}
	dir := t.TempDir()
	files := map[string]string{
		"jsonl":      writeJSONL(t, dir, recs),
		"oi-otlp":    filepath.Join(dir, "spans.json"),
		"oi-parquet": filepath.Join(dir, "spans.parquet"),
		"bedrock":    filepath.Join(dir, "bedrock.jsonl"),
		"phoenix":    filepath.Join(dir, "phoenix.json"),
		"console":    filepath.Join(dir, "console.json"),
		"langsmith":  filepath.Join(dir, "runs.jsonl"),
	}
	if err := os.WriteFile(files["langsmith"], tracegen.LangSmithRuns(calls), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files["phoenix"], tracegen.PhoenixSpans(spans), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files["console"], tracegen.ConsoleGenAI(calls, true), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files["bedrock"], tracegen.BedrockConverse(calls), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files["oi-otlp"], tracegen.OpenInferenceOTLP(spans), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tracegen.OpenInferenceParquet(&b, spans); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files["oi-parquet"], b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not agentgazer: it hashes the raw response body text (SimHash), and
	// a span's response is rebuilt from its output messages, a different
	// text of the same message, so similar-response counts near its
	// distance threshold differ by design (as for streamed HAR bodies in
	// TestFormatsGiveIdenticalDecisions).
	for _, profile := range []string{"spec", "progress"} {
		want := decisions(t, files["jsonl"], profile)
		if len(want) != len(recs) {
			t.Fatalf("%s: %d decisions for %d records", profile, len(want), len(recs))
		}
		for _, kind := range []string{"oi-otlp", "oi-parquet", "bedrock", "phoenix", "console", "langsmith"} {
			got := decisions(t, files[kind], profile)
			if len(got) != len(want) {
				t.Errorf("%s %s: %d decisions, want %d", profile, kind, len(got), len(want))
				continue
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s %s: decision %d differs:\n got %s\nwant %s", profile, kind, i+1, got[i], want[i])
					break
				}
			}
		}
	}
}

// TestDatadogTracesGiveIdenticalDecisions: the same traffic as capture
// JSONL and as Datadog APM traces (internal/tracegen: dd-trace's OpenAI
// tags, texts not cut) gives the same decisions under spec and progress.
// Only traffic without tool calls in its requests: dd-trace tags a request
// message's role, name and content, never its tool calls, so a tool-call
// loop's signature cannot be replayed from Datadog traces (docs/formats.md
// says so).
func TestDatadogTracesGiveIdenticalDecisions(t *testing.T) {
	recs := fixtureRecords(t, "scenarios/identical-loop", "scenarios/prompt-only-loop", "scenarios/numbers-only-loop", "scenarios/healthy")
	var calls []tracegen.Span
	for i, rec := range recs {
		call := tracegen.Span{SpanID: fmt.Sprint(i), Start: rec.TS, End: rec.TS, Session: rec.Agent}
		if err := tracegen.FromChat(&call, rec.Request, rec.Response); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		for _, m := range call.Input {
			if len(m.ToolCalls) > 0 {
				t.Fatalf("record %d: a request with tool calls: not replayable from Datadog tags", i)
			}
		}
		calls = append(calls, call)
	}
	dir := t.TempDir()
	jsonl, dd := writeJSONL(t, dir, recs), filepath.Join(dir, "traces.json")
	if err := os.WriteFile(dd, tracegen.DatadogTraces(calls, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, profile := range []string{"spec", "progress"} {
		want, got := decisions(t, jsonl, profile), decisions(t, dd, profile)
		if len(want) != len(recs) || len(got) != len(want) {
			t.Fatalf("%s: %d decisions from JSONL, %d from Datadog, for %d records", profile, len(want), len(got), len(recs))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: decision %d differs:\n got %s\nwant %s", profile, i+1, got[i], want[i])
				break
			}
		}
	}
}
