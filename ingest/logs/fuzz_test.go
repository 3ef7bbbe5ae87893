package logs

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/tracegen"
)

// Named regression seeds live in malformedCases (every broken shape) and
// below (every well-formed shape); the fuzz targets also start from the
// shared captures when present.

var detectSeeds = []string{
	`{"ts":1,"agent":"a","request":{}}`,
	`{"messages":[],"timestamp":1}`,
	`{"call_type":"acompletion","startTime":1}`,
	"{\n  \"trace\": {\"id\": \"t\"},\n  \"observations\": []\n}",
	`{"resourceSpans":[]}`,
	`{"custom_id":"a","body":{}}`,
	`{"custom_id":"a","params":{}}`,
	`[{"custom_id":"a","result":{}}]`,
	`{"log":{"entries":[]}}`,
	"\xef\xbb\xbf{\"a\\\"b\":1,\"spend\":1}",
	`{"a":[{"b":"}"}],"custom_id":`,
	`{"a":tru`,
	`[[[[`,
	``,
}

func FuzzDetect(f *testing.F) {
	for _, s := range detectSeeds {
		f.Add([]byte(s))
	}
	for _, c := range malformedCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		got, ok := Detect(head)
		if ok != (got != "") || (ok && !slices.Contains(Formats, got)) {
			t.Fatalf("Detect = %q, %v", got, ok)
		}
		if again, _ := Detect(head); again != got {
			t.Fatalf("not deterministic: %q then %q", got, again)
		}
		// Leading white space never changes the verdict.
		if !bytes.HasPrefix(head, bom) {
			if spaced, _ := Detect(append([]byte(" \n\t"), head...)); spaced != got {
				t.Fatalf("with leading space %q, without %q", spaced, got)
			}
		}
	})
}

// fuzzReader checks what every reader promises on any input: no panic, no
// I/O error from an in-memory input, every malformed item a *SyntaxError
// at a position in the file, every call with an agent and a JSON request.
//
// It reads data forward and at offsets (as a file), under the default
// limit and under a limit of 64 bytes, which most items pass: the paths
// that refuse an item, a document or a whole input over --max-line keep
// the same promises.
func fuzzReader(t *testing.T, f Format, data []byte) {
	for _, max := range []int{0, 64} {
		for _, at := range []bool{false, true} {
			var in io.Reader = bytes.NewReader(data)
			if at {
				in = sizedReader{Reader: bytes.NewReader(data), size: int64(len(data)), ra: bytes.NewReader(data)}
			}
			r, err := NewReader(in, "fuzz.in", f, Options{MaxValue: max})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := collect(r, "fuzz.in"); err != nil {
				t.Fatalf("limit %d, at offsets %v: %v", max, at, err)
			}
			if err := r.Err(); err != nil {
				t.Fatalf("I/O error from memory: %v", err)
			}
		}
	}
}

// addSeeds adds the malformed cases of format f, the given well-formed
// inputs and the named capture files (when present).
func addSeeds(f *testing.F, format Format, good []string, files ...string) {
	for _, c := range malformedCases {
		if c.format == format {
			f.Add([]byte(c.in))
		}
	}
	for _, g := range good {
		f.Add([]byte(g))
	}
	for _, name := range files {
		if b, err := os.ReadFile(filepath.Join(captures, name)); err == nil {
			f.Add(b)
		}
	}
}

func FuzzLiteLLM(f *testing.F) {
	addSeeds(f, FormatLiteLLM, []string{
		payload(`"agent_id":"a","status":"failure","error_information":{"error_code":"429"}`),
		`{"startTime":"2025-01-24 09:20:46.847371","messages":"[{\"role\":\"user\",\"content\":\"q\"}]","response":"{\"choices\":[]}","metadata":"{}"}`,
		`[` + payload("") + `,` + payload("") + `]`,
	}, "json-litellm-logging-samples/standard_logging_payload.json", "json-litellm-logging-samples/spend_logs_payload.json")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatLiteLLM, data) })
}

func FuzzLangfuse(f *testing.F) {
	addSeeds(f, FormatLangfuse, []string{
		trace(`,"sessionId":"s"`, gen("1", `{"messages":["role='user' content='q'"]}`, `"None"`),
			gen("2", `{"contents":[{"role":"user","parts":[{"text":"hi"},{"function_response":{}}]}]}`, `{"content":{"parts":[{"function_call":{"name":"f","args":{}}}]}}`),
			gen("3", `"user: a\nassistant: b"`, `[{"toolCallId":"c","toolName":"f","input":"{}"}]`),
			gen("4", `[{"lc":1,"id":["HumanMessage"],"kwargs":{"content":[{"type":"text","text":"x"}]}}]`, `{"index":0,"message":{"role":"assistant","parts":[{"type":"tool_call","name":"g"}]}}`)),
	}, "json-langfuse-trace-exports/crewai-2025-07-11.trace.json", "json-langfuse-trace-exports/vercel-aisdk-2025-11-17.trace.json")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatLangfuse, data) })
}

func FuzzOTel(f *testing.F) {
	addSeeds(f, FormatOTel, []string{
		otlpDoc([]string{sa("service.name", "s")},
			otlpSpan("p", "", "agent", "00", []string{sa("gen_ai.agent.id", "a")}, ""),
			otlpSpan("c", "p", "chat", "01", []string{sa("gen_ai.operation.name", "chat"),
				sa("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"q"}]}]`),
				sa("gen_ai.prompt.0.content", "x"), sa("gen_ai.completion.0.tool_calls.0.name", "f"),
				`{"key":"k","value":{"kvlistValue":{"values":[{"key":"a","value":{"arrayValue":{"values":[{"intValue":"1"},{"doubleValue":2.5}]}}}]}}}`},
				`"events":[{"name":"gen_ai.choice","attributes":[`+sa("message", `{"role":"assistant","content":"a"}`)+`]}],"status":{"code":2}`)),
	})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatOTel, data) })
}

func FuzzCaptureDocuments(f *testing.F) {
	addSeeds(f, FormatCapture, []string{
		"{\n\"ts\": 1, \"agent\": \"a\", \"request\": {}\n}",
		"[\n{\"ts\":1,\"agent\":\"a\",\"request\":{}}\n]",
		"{\n\"messages\": [], \"timestamp\": 1\n}",
	})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatCapture, data) })
}

// FuzzBatch splits its input at the first NUL into a request file and an
// output file.
func FuzzBatch(f *testing.F) {
	for _, c := range malformedCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte(oaReq("a", `,"user":"u"`) + "\n" + oaReq("b", "") + "\x00" + oaOut("a", 1711652795, 200, "") + "\n" +
		`{"custom_id":"b","response":null,"error":{"code":"x"}}` + "\n" + oaOut("c", 1, 500, "")))
	f.Add([]byte(`{"custom_id":"r","params":{"model":"m","messages":[]}}` + "\n" + `{"custom_id":"r","params":{}}` + "\x00" +
		`{"custom_id":"r","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error"}}}}` + "\n" +
		`{"custom_id":"q","result":{"type":"succeeded","message":"x"}}`))
	f.Add([]byte(`{"custom_id":"a","body":{}}` + "\x00" + `{"custom_id":"a","result":{}}`))
	in, _ := os.ReadFile(filepath.Join(captures, "jsonl-batch-api-instructor/anthropic_batch_requests.jsonl"))
	out, _ := os.ReadFile(filepath.Join(captures, "jsonl-batch-api-instructor/anthropic_batch_results.jsonl"))
	f.Add(append(append(in, 0), out...))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, out, hasOut := bytes.Cut(data, []byte{0})
		var output io.Reader // nil unless given: an untyped nil, as callers pass it
		if hasOut {
			output = bytes.NewReader(out)
		}
		r, err := NewBatchReader(bytes.NewReader(in), "in", output, "out", Options{})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := collect(r, "in", "out")
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Err(); err != nil {
			t.Fatalf("I/O error from memory: %v", err)
		}
		// The calls come in input order, 1 ms apart or more.
		cs := calls(recs)
		for i := 1; i < len(cs); i++ {
			if !cs[i].TS.After(cs[i-1].TS) {
				t.Fatalf("%s then %s: not in time order", cs[i-1].Pos, cs[i].Pos)
			}
		}
	})
}

// traceFixture reads a file of fixtures/traces (the seeds of the trace
// readers), or nil.
func traceFixture(name string) []byte {
	b, _ := os.ReadFile(filepath.Join("..", "..", "fixtures", "traces", name))
	return b
}

func FuzzOpenInference(f *testing.F) {
	addSeeds(f, FormatOpenInference, []string{oiDoc, string(tracegen.OpenInferenceOTLP(traceSpans())),
		otlpDoc(nil, otlpSpan("a", "a", "loop", "00", []string{oiKind("LLM"), sa("llm.input_messages.x.message.role", "user"),
			sa("llm.input_messages.0.message.contents.0.message_content.text", "t"), sa("llm.output_messages.1", "o")}, ""))})
	f.Add(traceFixture("openinference-otlp.json"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatOpenInference, data) })
}

func FuzzVercelAI(f *testing.F) {
	addSeeds(f, FormatVercelAI, []string{vercelDoc,
		`{"name":"ai.streamText.doStream","_spanContext":{"spanId":"a"},"parentSpanId":"a","startTime":1767344400000,"attributes":{"ai.prompt.messages":"x"}}`,
		`[{"spanContext":{},"startTime":[1e300,0]},{"startTime":"2026-01-02T09:00:00Z","attributes":null}]`})
	f.Add(traceFixture("vercel-ai-spans.json"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatVercelAI, data) })
}

func FuzzBedrock(f *testing.F) {
	q, _ := json.Marshal(bedrockRec("2026-03-02T10:00:01Z", "Converse", "m", converseIn, converseOut, ""))
	addSeeds(f, FormatBedrock, []string{
		bedrockRec("2026-03-02T10:00:01Z", "Converse", "arn:aws:bedrock:us-east-1:1:inference-profile/m", converseIn, converseOut,
			`,"requestMetadata":{"agent":"a"}`),
		bedrockRec("2026-03-02T10:00:02Z", "InvokeModel", "amazon.titan-text-express-v1", `{"inputText":"t"}`,
			`{"results":[{"outputText":"o"}]}`, `,"errorCode":"ThrottlingException"`),
		"[\n" + bedrockRec("2026-03-02T10:00:03Z", "InvokeModelWithResponseStream", "m", `"not an object"`, `[{"chunk":{}}]`, "") + "\n]",
		`[{"@message":` + string(q) + `},{"@message":"{\"schemaType\":1}"}]`,
		"\ufeff{\"results\":[[{\"field\":\"@message\",\"value\":" + string(q) + "}],[{\"field\":1}],7]}",
	})
	f.Add(traceFixture("../logs/bedrock-invocations.jsonl"))
	f.Add(traceFixture("../logs/bedrock-insights.json"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatBedrock, data) })
}

func FuzzOTelConsole(f *testing.F) {
	addSeeds(f, FormatOTelConsole, []string{
		consoleSpan("chat m", "aa", "02", "01", "2026-03-03T09:00:01.000000Z", chatAttrs, "ERROR") +
			consoleSpan("chat m", "aa", "02", "01", "2026-03-03T09:00:01.000000Z", chatAttrs, "UNSET") +
			consoleSpan("a", "aa", "01", "01", "x", `{"gen_ai.agent.id": 1}`, "UNSET"),
		`{"traceId":"t","id":"c","timestamp":1e30,"duration":-1,"attributes":{"gen_ai.operation.name":"chat"},"status":{"code":2}}`,
		`[{"context":{"trace_id":1},"start_time":"2026-03-03T09:00:01Z","attributes":null,"events":[1,{"attributes":[]}]}]`,
	})
	f.Add(traceFixture("../logs/otel-console-spans.json"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatOTelConsole, data) })
}

func FuzzPhoenix(f *testing.F) {
	addSeeds(f, FormatPhoenix, []string{
		`{"data":[{"context":{"trace_id":"t","span_id":"a"},"span_kind":"LLM","parent_id":"a","start_time":"2026-03-04T15:00:00+00:00",` +
			`"attributes":{"llm.input_messages.0.message.role":"user","llm.output_messages.x":1}},7]}`,
		`{"context":{"span_id":"b"},"span_kind":"AGENT","start_time":"2026-03-04T15:00:00Z","status_code":"ERROR","attributes":{}}`,
	})
	f.Add(traceFixture("../logs/phoenix-spans.json"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatPhoenix, data) })
}

func FuzzLangSmith(f *testing.F) {
	addSeeds(f, FormatLangSmith, []string{
		`{"id":"r","run_type":"chain","start_time":"2026-03-05T08:00:00","extra":{"metadata":{"thread_id":"t"}}}` + "\n" +
			`{"id":"o","parent_run_id":"r","run_type":"llm","start_time":1772697603000,"inputs":{"messages":[[{"lc":1,"kwargs":{"content":"q"}}]]}}` + "\n" +
			`{"id":"i","parent_run_id":"o","run_type":"llm","start_time":"x","outputs":{"generations":[[{"text":"t"}]],"llm_output":{"token_usage":{"prompt_tokens":-1}}}}` + "\n" +
			`{"id":"i","parent_run_id":"i","end_time":"2026","error":"429"}`,
		`{"post":[{"id":"a","run_type":"llm","inputs":"x","outputs":[1]}],"patch":[7,{"id":"a","outputs":{"usage_metadata":{"input_tokens":"3"}}}]}`,
	})
	f.Add(traceFixture("../logs/langsmith-runs.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatLangSmith, data) })
}

func FuzzDatadog(f *testing.F) {
	call := ddSpanJSON(2, 1, "openai.request", "createChatCompletion", "svc", "1772787600123456789", 1, ddMeta,
		`{"openai.response.usage.prompt_tokens":40}`)
	addSeeds(f, FormatDatadog, []string{
		"[[" + ddSpanJSON(1, 0, "langchain.request", "x", "svc", "1", 0, `{}`, `{}`) + "," + call + "],[7]]",
		"[" + call + "]\n[" + ddSpanJSON(3, 0, "openai.request", "", "", `"9e18"`, 0, `{"http.status_code":"abc"}`, `[]`) + "]",
		`[{"trace_id":1,"span_id":2,"start":-1,"duration":"x","name":"openai.request","meta":null}]`,
	})
	f.Add(traceFixture("../logs/datadog-traces.json"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatDatadog, data) })
}

// FuzzOIParquet mutates OpenInference span tables: reading must never
// panic, an error must name the file, and the records keep every reader's
// promises (see checkRecord), at row positions. Run it with a short
// minimize time, as FuzzParquet in ingest/pq.
func FuzzOIParquet(f *testing.F) {
	var b bytes.Buffer
	if err := tracegen.OpenInferenceParquet(&b, traceSpans()); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(traceFixture("phoenix-spans.parquet"))
	f.Add(pagedParquet(f, 128, 40))
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "fuzz.parquet", Options{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.parquet") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		defer r.Close()
		recs, err := collect(r, "fuzz.parquet")
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			if rec.Pos.Kind != ingest.PosRow || rec.Pos.N < 1 {
				t.Fatalf("record at %s: not a row position", rec.Pos)
			}
		}
		if err := r.Err(); err != nil && !strings.HasPrefix(err.Error(), "fuzz.parquet") {
			t.Fatalf("error without the file name: %v", err)
		}
	})
}
