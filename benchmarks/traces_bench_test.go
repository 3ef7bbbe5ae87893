package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/killswitch/killswitch/ingest"
	_ "github.com/killswitch/killswitch/ingest/formats"
	"github.com/killswitch/killswitch/internal/tracegen"
)

// The trace export benchmarks read traceCalls chat calls (benchChatRecords:
// a request of about 2 KB, a response of about 0.5 KB) as trace exports
// through ingest.Open, detection included: each call an AGENT span
// (session.id) over a framework LLM span over the client's LLM span, beside
// a TOOL span (4 spans, 1 record); as Vercel AI SDK spans, an
// ai.generateText span over one doGenerate (2 spans, 1 record); as
// Bedrock Converse invocation logs, one record per line (1 record); as
// Phoenix span JSON, the OpenInference spans (4 spans, 1 record); as
// OpenTelemetry console output, an invoke_agent span over a chat span (2
// spans, 1 record); as LangSmith payloads, a chain run over an llm run,
// posted and patched (4 lines, 1 record); as Datadog traces, a
// langchain.request span over an openai.request span (2 spans, 1 record).
// Each
// reports MB/s of file bytes and records/s (calls, not spans).

const traceCalls = 5000

var traceData struct {
	once                  sync.Once
	parquet, otlp, vercel []byte
	bedrock, phoenix      []byte
	console, langsmith    []byte
	datadog               []byte
	err                   error
}

func traceFiles(b *testing.B) {
	traceData.once.Do(func() {
		d := &traceData
		var spans, bedrockCalls []tracegen.Span
		var calls []tracegen.VercelCall
		if spans, d.err = oiTraceSpans(benchChatRecords(traceCalls)); d.err != nil {
			return
		}
		for i := 0; i < len(spans); i += 4 {
			root, inner := spans[i], spans[i+2]
			step := inner
			step.ParentID = root.SpanID
			calls = append(calls, tracegen.VercelCall{TraceID: root.TraceID, FunctionID: root.Session, Steps: []tracegen.Span{step}})
			call := inner
			call.Session = root.Session
			bedrockCalls = append(bedrockCalls, call)
		}
		var pqBuf bytes.Buffer
		if d.err = tracegen.OpenInferenceParquet(&pqBuf, spans); d.err != nil {
			return
		}
		d.parquet, d.otlp, d.vercel = pqBuf.Bytes(), tracegen.OpenInferenceOTLP(spans), tracegen.VercelSpans(calls, nil)
		d.bedrock = tracegen.BedrockConverse(bedrockCalls)
		d.phoenix = tracegen.PhoenixSpans(spans)
		d.console = tracegen.ConsoleGenAI(bedrockCalls, false)
		d.langsmith = tracegen.LangSmithRuns(bedrockCalls)
		d.datadog = tracegen.DatadogTraces(bedrockCalls, 0)
	})
	if traceData.err != nil {
		b.Fatal(traceData.err)
	}
}

// oiTraceSpans returns the spans of each call of recs: an AGENT span
// (session.id: the record's agent) over a framework LLM span over the
// client's LLM span (the call), beside a TOOL span; 4 spans a call, in
// that order.
func oiTraceSpans(recs []ingest.Record) ([]tracegen.Span, error) {
	spans := make([]tracegen.Span, 0, 4*len(recs))
	for i, rec := range recs {
		trace := fmt.Sprintf("%032x", i+1)
		id := func(k int) string { return fmt.Sprintf("%016x", 4*i+k) }
		root := tracegen.Span{TraceID: trace, SpanID: id(1), Name: "agent.run", Kind: "AGENT", Start: rec.TS, End: rec.TS, Session: rec.Agent}
		outer := tracegen.Span{TraceID: trace, SpanID: id(2), ParentID: root.SpanID, Name: "llm", Kind: "LLM", Start: rec.TS, End: rec.TS}
		inner := tracegen.Span{TraceID: trace, SpanID: id(3), ParentID: outer.SpanID, Name: "ChatCompletion", Kind: "LLM", Start: rec.TS, End: rec.TS}
		if err := tracegen.FromChat(&inner, rec.Request, rec.Response); err != nil {
			return nil, err
		}
		tool := tracegen.Span{TraceID: trace, SpanID: id(4), ParentID: root.SpanID, Name: "tool", Kind: "TOOL", Start: rec.TS, End: rec.TS}
		spans = append(spans, root, outer, inner, tool)
	}
	return spans, nil
}

// benchTrace reads data as the file name (in a temporary directory: Open
// reads files) and requires the format detected.
func benchTrace(b *testing.B, data []byte, name, format string) {
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = readCalls(b, path, format, nil)
	}
	if n != traceCalls {
		b.Fatalf("read %d calls, want %d", n, traceCalls)
	}
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// readCalls reads path through ingest.Open, requires the format
// detected and no malformed item, and returns the calls read; each, when
// set, is called after every record with the calls so far.
func readCalls(b *testing.B, path, format string, each func(n int)) int {
	f, err := ingest.Open(path, ingest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if f.Format != format {
		b.Fatalf("format %q, want %q", f.Format, format)
	}
	n := 0
	for f.Scan() {
		rec := f.Record()
		if rec.Err != nil {
			b.Fatal(rec.Err)
		}
		if rec.Skip == "" {
			n++
		}
		if each != nil {
			each(n)
		}
	}
	if err := f.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkTraceOpenInferenceParquet(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.parquet, "spans.parquet", "openinference (parquet)")
}

func BenchmarkTraceOpenInferenceOTLP(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.otlp, "spans.json", "openinference")
}

func BenchmarkTraceVercelAI(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.vercel, "vercel.json", "vercel-ai")
}

func BenchmarkTraceBedrock(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.bedrock, "invocations.jsonl", "bedrock")
}

func BenchmarkTracePhoenix(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.phoenix, "phoenix.json", "phoenix")
}

func BenchmarkTraceOTelConsole(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.console, "console.json", "otel-console")
}

func BenchmarkTraceLangSmith(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.langsmith, "runs.jsonl", "langsmith")
}

func BenchmarkTraceDatadog(b *testing.B) {
	traceFiles(b)
	benchTrace(b, traceData.datadog, "traces.json", "datadog")
}
