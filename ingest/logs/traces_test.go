package logs

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
	"github.com/killswitch/killswitch/internal/tracegen"
)

// oiKind is the span kind attribute of OpenInference spans.
func oiKind(k string) string { return sa("openinference.span.kind", k) }

// oiDoc is an OpenInference agent run in OTLP JSON (start times are
// seconds after 2025-01-01T00:00:00Z, see otlpSpan):
//
//	[0] r AGENT (session.id sess-1) 00
//	[1] o   LLM, the framework's span 01 — wraps i: skipped
//	[2] i     LLM, the client's span 02, status ERROR: the call
//	[3] t   TOOL 03: skipped
//	[4] u LLM root, user.id u-9, input.value / output.value as text 04
//	[5] n LLM root "nightly", no session or user 05
//	[6] b LLM with an unreadable start time: malformed
var oiDoc = otlpDoc([]string{sa("service.name", "svc")},
	otlpSpan("r", "", "agent.run", "00", []string{oiKind("AGENT"), sa("session.id", "sess-1")}, ""),
	otlpSpan("o", "r", "llama_index.llm", "01", []string{oiKind("LLM"), sa("llm.model_name", "gpt-4o")}, ""),
	otlpSpan("i", "o", "ChatCompletion", "02", []string{oiKind("LLM"), sa("llm.model_name", "gpt-4o"), sa("llm.provider", "openai"),
		sa("llm.invocation_parameters", `{"temperature":0.1,"api_key":"sk-secret-1","messages":["dropped"]}`),
		sa("llm.tools.0.tool.json_schema", `{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}`),
		sa("llm.input_messages.0.message.role", "system"), sa("llm.input_messages.0.message.content", "be brief"),
		sa("llm.input_messages.1.message.role", "user"), sa("llm.input_messages.1.message.content", "q1"),
		sa("llm.output_messages.0.message.role", "assistant"),
		sa("llm.output_messages.0.message.tool_calls.0.tool_call.id", "call_1"),
		sa("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "lookup"),
		sa("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", `{"id":7}`),
		ia("llm.token_count.prompt", "12"), ia("llm.token_count.completion", "3")}, `"status":{"code":2}`),
	otlpSpan("t", "r", "lookup", "03", []string{oiKind("TOOL")}, ""),
	otlpSpan("u", "", "chat", "04", []string{oiKind("LLM"), sa("user.id", "u-9"), sa("input.value", "plain question"),
		sa("output.value", "plain answer")}, ""),
	otlpSpan("n", "", "nightly", "05", []string{oiKind("llm")}, ""),
	`{"traceId":"x","spanId":"b","name":"bad","startTimeUnixNano":"abc","attributes":[`+oiKind("LLM")+`]}`,
)

func TestOpenInferenceOTLP(t *testing.T) {
	if f, ok := Detect([]byte(oiDoc)); !ok || f != FormatOpenInference {
		t.Fatalf("Detect = %q, %v; want openinference", f, ok)
	}
	recs := readAll(t, open(t, oiDoc, "oi.json", FormatOpenInference, Options{}), "oi.json")
	cs := calls(recs)
	type want struct {
		agent, from, user, answer string
		status                    int
	}
	// By hand from oiDoc: i's agent is its grandparent's session.id; u's
	// is its own user.id; n has neither and is its trace's root.
	wants := []want{
		{"sess-1", "session.id", "q1", "tools:lookup", 500},
		{"u-9", "user.id", "plain question", "text:plain answer", 200},
		{"nightly", "root span name", "", "", 200},
	}
	if len(cs) != len(wants) {
		t.Fatalf("%d calls, want %d", len(cs), len(wants))
	}
	for i, w := range wants {
		c := cs[i]
		if c.Agent != w.agent || c.AgentFrom != w.from || lastUser(t, c.Request) != w.user || answer(t, c.Response) != w.answer || c.Status != w.status {
			t.Errorf("call %d at %s: agent %q from %q, user %q, answer %q, status %d; want %+v", i, c.Pos, c.Agent, c.AgentFrom,
				lastUser(t, c.Request), answer(t, c.Response), c.Status, w)
		}
	}
	c := cs[0]
	if c.Pos.String() != "oi.json:resourceSpans[0].scopeSpans[0].spans[2]" {
		t.Errorf("first call at %s, want spans[2]", c.Pos)
	}
	if !c.HasTokens || c.TokensIn != 12 || c.TokensOut != 3 || c.Model != "gpt-4o" || c.Provider != "openai" || c.Session != "sess-1" {
		t.Errorf("first call: tokens %v %d/%d, model %q, provider %q, session %q", c.HasTokens, c.TokensIn, c.TokensOut, c.Model, c.Provider, c.Session)
	}
	if !c.HasLatency || c.LatencyMS != 500 {
		t.Errorf("first call: latency %v %d, want 500 ms (end − start)", c.HasLatency, c.LatencyMS)
	}
	var body struct {
		Model       string            `json:"model"`
		Temperature float64           `json:"temperature"`
		Messages    []json.RawMessage `json:"messages"`
		Tools       []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(c.Request, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "gpt-4o" || body.Temperature != 0.1 || len(body.Messages) != 2 || len(body.Tools) != 1 {
		t.Errorf("request %s: want model gpt-4o, temperature 0.1, the 2 messages and the tool", c.Request)
	}
	if bytes.Contains(c.Request, []byte("sk-secret")) {
		t.Errorf("the api_key of llm.invocation_parameters reached the request: %s", c.Request)
	}
	wantSkips := []skipCount{
		{"OpenInference AGENT span is not an LLM call", 1},
		{"OpenInference LLM span wrapping another LLM span (the call counts once, at the inner span)", 1},
		{"OpenInference TOOL span is not an LLM call", 1},
	}
	if got := skipCounts(recs); !slices.Equal(got, wantSkips) {
		t.Errorf("skips %v, want %v", got, wantSkips)
	}
	wantErrs := []string{`oi.json:resourceSpans[0].scopeSpans[0].spans[6]: start time: not a number of nanoseconds: "abc"`}
	if got := errs(recs); !slices.Equal(got, wantErrs) {
		t.Errorf("errors %q, want %q", got, wantErrs)
	}
	// --agent wins over every attribute.
	for _, c := range calls(readAll(t, open(t, oiDoc, "oi.json", FormatOpenInference, Options{Agent: "fixed"}), "oi.json")) {
		if c.Agent != "fixed" || c.AgentFrom != "--agent" {
			t.Errorf("%s: agent %q from %q with --agent fixed", c.Pos, c.Agent, c.AgentFrom)
		}
	}
}

// TestOpenInferenceMixed: an OTLP document whose spans follow the GenAI
// conventions except one OpenInference span is read by both mappings.
func TestOpenInferenceMixed(t *testing.T) {
	doc := otlpDoc(nil,
		otlpSpan("g", "", "chat gpt-4o", "00", []string{sa("gen_ai.operation.name", "chat"), sa("gen_ai.request.model", "gpt-4o"),
			sa("gen_ai.conversation.id", "conv")}, ""),
		otlpSpan("i", "", "oi", "01", []string{oiKind("LLM"), sa("session.id", "s"), sa("input.value", "x")}, ""))
	cs := calls(readAll(t, open(t, doc, "m.json", FormatOTel, Options{}), "m.json"))
	if len(cs) != 2 || cs[1].Agent != "s" || cs[1].AgentFrom != "session.id" || lastUser(t, cs[1].Request) != "x" {
		t.Fatalf("calls %d; want the GenAI span and the OpenInference span (agent s)", len(cs))
	}
}

// vercelDoc is a Vercel AI SDK export, an array of ReadableSpans
// (startTime [seconds, nanos]; 1767344400 is 2026-01-02T09:00:00Z):
//
//	[0] ai.generateText, functionId weather: wraps [1] and [2]: skipped
//	[1]   ai.generateText.doGenerate: asks for the weather tool
//	[2]   ai.generateText.doGenerate: answers "sunny"
//	[3]   ai.toolCall: skipped
//	[4] ai.embed: skipped as an embedding
//	[5] ai.streamText without provider spans (an export that dropped
//	    them): the call itself, its agent the root span's name
//	[6] a doGenerate with a startTime of three numbers: malformed
const vercelDoc = `[
{"name": "ai.generateText", "spanContext": {"traceId": "t1", "spanId": "g"}, "startTime": [1767344400, 0], "endTime": [1767344403, 0],
 "status": {"code": 0}, "attributes": {"ai.operationId": "ai.generateText", "ai.telemetry.functionId": "weather", "ai.model.id": "gpt-4o"}},
{"name": "ai.generateText.doGenerate", "spanContext": {"traceId": "t1", "spanId": "d1"}, "parentSpanId": "g",
 "startTime": [1767344400, 100000000], "endTime": [1767344401, 0], "status": {"code": 0},
 "attributes": {"ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o", "ai.model.provider": "openai.chat",
  "ai.prompt.messages": "[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"weather in Paris?\"}]}]",
  "ai.prompt.tools": ["{\"type\":\"function\",\"name\":\"weather\",\"parameters\":{\"type\":\"object\"}}"],
  "ai.settings.temperature": 0, "ai.settings.maxRetries": 2,
  "ai.response.toolCalls": "[{\"toolCallId\":\"c1\",\"toolName\":\"weather\",\"args\":\"{\\\"city\\\":\\\"Paris\\\"}\"}]",
  "ai.response.finishReason": "tool-calls", "ai.usage.promptTokens": 20, "ai.usage.completionTokens": 5}},
{"name": "ai.generateText.doGenerate", "spanContext": {"traceId": "t1", "spanId": "d2"}, "parentSpanId": "g",
 "startTime": [1767344402, 0], "endTime": [1767344403, 0], "status": {"code": 2},
 "attributes": {"ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o",
  "ai.prompt.messages": "[{\"role\":\"user\",\"content\":\"weather in Paris?\"}]", "ai.response.text": "sunny"}},
{"name": "ai.toolCall", "spanContext": {"traceId": "t1", "spanId": "tc"}, "parentSpanId": "g", "startTime": [1767344401, 0],
 "attributes": {"ai.operationId": "ai.toolCall", "ai.toolCall.name": "weather"}},
{"name": "ai.embed", "spanContext": {"traceId": "t2", "spanId": "e"}, "startTime": [1767344404, 0], "attributes": {"ai.operationId": "ai.embed"}},
{"name": "ai.streamText", "spanContext": {"traceId": "t3", "spanId": "s"}, "startTime": [1767344405, 0],
 "attributes": {"ai.operationId": "ai.streamText", "ai.model.id": "claude", "ai.prompt": "{\"system\":\"s\",\"prompt\":\"hello\"}",
  "ai.response.text": "hi"}},
{"name": "ai.generateText.doGenerate", "spanContext": {"traceId": "t4", "spanId": "x"}, "startTime": [1, 2, 3], "attributes": {}}
]`

// vercelDocSkips are the spans of vercelDoc that are no call, by reason.
var vercelDocSkips = []skipCount{
	{"Vercel AI SDK ai.embed span is an embedding, not chat", 1},
	{"Vercel AI SDK ai.toolCall span is not an LLM call", 1},
	{"Vercel AI SDK function span wrapping its provider calls (each counts once, at its doGenerate/doStream span)", 1},
}

func TestVercelAI(t *testing.T) {
	if f, ok := Detect([]byte(vercelDoc)); !ok || f != FormatVercelAI {
		t.Fatalf("Detect = %q, %v; want vercel-ai", f, ok)
	}
	recs := readAll(t, open(t, vercelDoc, "v.json", FormatVercelAI, Options{}), "v.json")
	cs := calls(recs)
	type want struct {
		pos, agent, from, user, answer string
		status                         int
	}
	// By hand from vercelDoc: the doGenerate spans take the functionId of
	// their parent; the lone streamText span is its own trace's root.
	wants := []want{
		{"v.json:[1]", "weather", "ai.telemetry.functionId", "weather in Paris?", "tools:weather", 200},
		{"v.json:[2]", "weather", "ai.telemetry.functionId", "weather in Paris?", "text:sunny", 500},
		{"v.json:[5]", "ai.streamText", "root span name", "hello", "text:hi", 200},
	}
	if len(cs) != len(wants) {
		t.Fatalf("%d calls, want %d", len(cs), len(wants))
	}
	for i, w := range wants {
		c := cs[i]
		// lastUser reads string content only: [1]'s user message is a
		// list of parts, which the reader must have joined to text.
		if c.Pos.String() != w.pos || c.Agent != w.agent || c.AgentFrom != w.from || lastUser(t, c.Request) != w.user ||
			answer(t, c.Response) != w.answer || c.Status != w.status {
			t.Errorf("call %d at %s: agent %q from %q, user %q, answer %q, status %d; want %+v", i, c.Pos, c.Agent, c.AgentFrom,
				lastUser(t, c.Request), answer(t, c.Response), c.Status, w)
		}
	}
	c := cs[0]
	if !c.HasTokens || c.TokensIn != 20 || c.TokensOut != 5 || c.Provider != "openai.chat" || !c.HasLatency || c.LatencyMS != 900 ||
		!c.TS.Equal(time.Date(2026, 1, 2, 9, 0, 0, 1e8, time.UTC)) {
		t.Errorf("first call: tokens %d/%d, provider %q, latency %d, ts %s", c.TokensIn, c.TokensOut, c.Provider, c.LatencyMS, c.TS)
	}
	var body struct {
		Temperature *float64          `json:"temperature"`
		MaxRetries  any               `json:"maxRetries"`
		Tools       []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(c.Request, &body); err != nil {
		t.Fatal(err)
	}
	if body.Temperature == nil || *body.Temperature != 0 || body.MaxRetries != nil || len(body.Tools) != 1 {
		t.Errorf("request %s: want temperature 0, the tool, no maxRetries", c.Request)
	}
	if got := skipCounts(recs); !slices.Equal(got, vercelDocSkips) {
		t.Errorf("skips %v, want %v", got, vercelDocSkips)
	}
	wantErrs := []string{"v.json:[6]: start time: want [seconds, nanoseconds], got an array of 3"}
	if got := errs(recs); !slices.Equal(got, wantErrs) {
		t.Errorf("errors %q, want %q", got, wantErrs)
	}
	// One span per line reads the same, at line positions.
	var lines []string
	var spans []json.RawMessage
	if err := json.Unmarshal([]byte(vercelDoc), &spans); err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		var b bytes.Buffer
		json.Compact(&b, s)
		lines = append(lines, b.String())
	}
	jl := calls(readAll(t, open(t, strings.Join(lines, "\n")+"\n", "v.jsonl", FormatVercelAI, Options{}), "v.jsonl"))
	if len(jl) != 3 || jl[0].Pos.String() != "v.jsonl:2" || !bytes.Equal(jl[0].Request, cs[0].Request) {
		t.Errorf("JSONL: %d calls, first at %s; want 3, the first at v.jsonl:2 with the same request", len(jl), jl[0].Pos)
	}
}

// TestVercelAIWithoutParentLinks: the same export without its
// parentSpanId members (as exporters that drop parent links write it)
// gives the same calls: ai.generateText is a wrapper by its name, as its
// trace t1 holds doGenerate spans; the lone ai.streamText of trace t3
// still counts itself. Only the agent changes: without the link the
// doGenerate spans are roots themselves, named by their span name.
func TestVercelAIWithoutParentLinks(t *testing.T) {
	doc := strings.ReplaceAll(vercelDoc, `"parentSpanId": "g",`, "")
	if strings.Contains(doc, "parentSpanId") {
		t.Fatal("a parent link is left")
	}
	recs := readAll(t, open(t, doc, "v.json", FormatVercelAI, Options{}), "v.json")
	var got []string
	for _, c := range calls(recs) {
		got = append(got, c.Pos.String()+" "+c.Agent)
	}
	want := []string{"v.json:[1] ai.generateText.doGenerate", "v.json:[2] ai.generateText.doGenerate", "v.json:[5] ai.streamText"}
	if !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	if got := skipCounts(recs); !slices.Equal(got, vercelDocSkips) {
		t.Errorf("skips %v, want %v", got, vercelDocSkips)
	}
}

// traceSpans is an OpenInference run for tracegen: AGENT > LLM > LLM, a
// TOOL, and a second trace whose LLM span starts before the first's.
func traceSpans() []tracegen.Span {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	return []tracegen.Span{
		{TraceID: "t1", SpanID: "r", Name: "agent", Kind: "AGENT", Start: sec(10), End: sec(20), Session: "sess-1"},
		{TraceID: "t1", SpanID: "o", ParentID: "r", Name: "llm", Kind: "LLM", Start: sec(11), End: sec(19), Model: "gpt-4o"},
		{TraceID: "t1", SpanID: "i", ParentID: "o", Name: "ChatCompletion", Kind: "LLM", Start: sec(12), End: sec(18.5), Model: "gpt-4o",
			Provider: "openai", Params: map[string]any{"temperature": 0.5, "api_key": "sk-secret-2"},
			Tools:    []string{`{"type":"function","function":{"name":"lookup"}}`},
			Input:    []tracegen.Message{{Role: "user", Content: "q1"}},
			Output:   []tracegen.Message{{Role: "assistant", ToolCalls: []tracegen.ToolCall{{ID: "c1", Name: "lookup", Arguments: "{}"}}}},
			TokensIn: 9, TokensOut: 4},
		{TraceID: "t1", SpanID: "t", ParentID: "r", Name: "lookup", Kind: "TOOL", Start: sec(19), End: sec(19.5)},
		{TraceID: "t2", SpanID: "u", Name: "ask", Kind: "LLM", Start: sec(1), End: sec(2), User: "u-9", Error: true,
			Input: []tracegen.Message{{Role: "user", Content: "q2"}}, Output: []tracegen.Message{{Role: "assistant", Content: "a2"}}},
	}
}

// TestOIParquet reads tracegen's Parquet span table: the records are those
// of the same spans in OTLP JSON (positions aside), at "file:row N", in
// start-time order although the rows are not.
func TestOIParquet(t *testing.T) {
	pr := spanTableReader(t, traceSpans())
	recs := readAll(t, pr, "s.parquet")
	pr.Close()
	otlp := readAll(t, open(t, string(tracegen.OpenInferenceOTLP(traceSpans())), "s.json", FormatOpenInference, Options{}), "s.json")
	// Rows 1–5 are the spans in order; the call of trace t2 (row 5, start
	// 1 s) comes before everything of t1 (start 10 s and on).
	wantPos := []string{"s.parquet:row 5", "s.parquet:row 1", "s.parquet:row 2", "s.parquet:row 3", "s.parquet:row 4"}
	if len(recs) != len(wantPos) || len(otlp) != len(recs) {
		t.Fatalf("%d records from Parquet, %d from OTLP; want %d", len(recs), len(otlp), len(wantPos))
	}
	for i, r := range recs {
		if r.Pos.String() != wantPos[i] {
			t.Errorf("record %d at %s, want %s", i, r.Pos, wantPos[i])
		}
		o := otlp[i]
		if r.Skip != o.Skip || r.Agent != o.Agent || r.AgentFrom != o.AgentFrom || !r.TS.Equal(o.TS) || !bytes.Equal(r.Request, o.Request) ||
			!bytes.Equal(r.Response, o.Response) || r.Status != o.Status || r.TokensIn != o.TokensIn || r.TokensOut != o.TokensOut ||
			r.LatencyMS != o.LatencyMS || r.Model != o.Model || r.Provider != o.Provider {
			t.Errorf("record %d differs:\nparquet %s %+v\n   otlp %s %+v", i, r.Pos, r, o.Pos, o)
		}
	}
	cs := calls(recs)
	if len(cs) != 2 || cs[0].Agent != "u-9" || cs[0].Status != 500 || cs[1].Agent != "sess-1" || cs[1].AgentFrom != "session.id" ||
		answer(t, cs[1].Response) != "tools:lookup" || bytes.Contains(cs[1].Request, []byte("sk-secret")) {
		t.Errorf("calls: want u-9 (status 500), then sess-1 asking for lookup, no secret")
	}
}

// TestOIParquetNotSpans: a capture Parquet file is no span export, and
// the message lists its columns.
func TestOIParquetNotSpans(t *testing.T) {
	var b bytes.Buffer
	if err := writeCaptureParquet(&b); err != nil {
		t.Fatal(err)
	}
	_, err := NewOIParquetReader(bytes.NewReader(b.Bytes()), int64(b.Len()), "c.parquet", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), `c.parquet: not an OpenInference span export: want columns "span_kind" and "context.span_id"; columns: ts, agent`) {
		t.Errorf("err = %v", err)
	}
	_, err = NewOIParquetReader(strings.NewReader("PAR1"), 4, "x.parquet", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "x.parquet: not a Parquet file") {
		t.Errorf("err = %v", err)
	}
}

// writeCaptureParquet writes a one-record capture in the layout of SPEC §3.
func writeCaptureParquet(w io.Writer) error {
	return pq.WriteRecords(w, []ingest.Record{{TS: time.Unix(1, 0), Agent: "a", Request: []byte(`{"messages":[]}`)}})
}

// spanTableReader opens a reader, as s.parquet, on the spans written as an
// OpenInference Parquet table.
func spanTableReader(t *testing.T, spans []tracegen.Span) *OIParquetReader {
	t.Helper()
	var b bytes.Buffer
	if err := tracegen.OpenInferenceParquet(&b, spans); err != nil {
		t.Fatal(err)
	}
	pr, err := NewOIParquetReader(bytes.NewReader(b.Bytes()), int64(b.Len()), "s.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// TestOIParquetBadRow: a row with a value that cannot be read (text that
// is not UTF-8 in a message) is one malformed record at its row, naming
// the column; the other rows read as before.
func TestOIParquetBadRow(t *testing.T) {
	spans := traceSpans()
	spans[4].Input[0].Content = "bad \xff"
	pr := spanTableReader(t, spans)
	defer pr.Close()
	recs := readAll(t, pr, "s.parquet")
	want := []string{`s.parquet:row 5: column "attributes.llm.input_messages.list.element.message.content": is not valid UTF-8`}
	if got := errs(recs); !slices.Equal(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
	if cs := calls(recs); len(cs) != 1 || cs[0].Agent != "sess-1" {
		t.Errorf("%d calls, want the one of sess-1", len(cs))
	}
}

// TestOIParquetFewerRows: when the second reading of a span table finds
// fewer rows than the first planned (the file changed in between), the
// reader stops with an error saying so, whether it yields rows as it reads
// them or sorts them first.
func TestOIParquetFewerRows(t *testing.T) {
	for _, sorted := range []bool{false, true} {
		spans := traceSpans()
		if sorted {
			slices.SortStableFunc(spans, func(a, b tracegen.Span) int { return a.Start.Compare(b.Start) })
		}
		pr := spanTableReader(t, spans)
		if pr.sorted != sorted {
			t.Fatalf("sorted = %v, want %v", pr.sorted, sorted)
		}
		// The first reading as if it had seen one more row, last in time.
		n := len(pr.plan.flags)
		pr.plan.flags = append(pr.plan.flags, 0)
		pr.plan.skip = append(pr.plan.skip, 0)
		if pr.plan.order != nil {
			pr.plan.order = append(pr.plan.order, int32(n))
		}
		for pr.Scan() {
		}
		want := "s.parquet: the file changed between its two readings (fewer rows)"
		if err := pr.Err(); err == nil || err.Error() != want {
			t.Errorf("sorted %v: Err() = %v, want %q", sorted, err, want)
		}
		pr.Close()
	}
}
