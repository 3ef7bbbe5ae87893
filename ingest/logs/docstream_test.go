package logs

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/internal/tracegen"
)

// streamCase is an input the streamed path and the whole-document path
// must read alike; streamed says whether the streamed path must take it.
type streamCase struct {
	name     string
	data     []byte
	streamed bool
}

// vercelStreamCases are the Vercel inputs of the differential test: the
// fixture, the fuzz seeds, hand-made trees, and tracegen exports in and
// out of time order.
func vercelStreamCases() []streamCase {
	cases := []streamCase{
		{"fixture", traceFixture("vercel-ai-spans.json"), true},
		{"vercelDoc", []byte(vercelDoc), true},
		{"bom", append(append([]byte{}, bom...), "\n\n  "+vercelDoc+"\n\n"...), true},
		// Ancestors: a session two levels up, a user on the parent, a
		// chain of wrappers, a cycle of parent ids, a duplicate id (the
		// first counts), a missing parent, a root with a parent id.
		{"tree", []byte(`[
{"name":"root","spanContext":{"traceId":"t","spanId":"r"},"startTime":[1767344400,0],"attributes":{"session.id":"s-1"}},
{"name":"ai.generateText","spanContext":{"traceId":"t","spanId":"g"},"parentSpanId":"r","startTime":[1767344401,0],"attributes":{"ai.operationId":"ai.generateText","user.id":"u"}},
{"name":"ai.streamText","spanContext":{"traceId":"t","spanId":"h"},"parentSpanId":"g","startTime":[1767344401,5],"attributes":{"ai.operationId":"ai.streamText"}},
{"name":"x.doStream","spanContext":{"traceId":"t","spanId":"d"},"parentSpanId":"h","startTime":[1767344402,0],"endTime":[1767344403,0],"attributes":{"ai.operationId":"ai.streamText.doStream","ai.response.text":"hi","ai.prompt":"{\"prompt\":\"q\"}","ai.settings.temperature":0.5}},
{"name":"c1","spanContext":{"traceId":"c","spanId":"a"},"parentSpanId":"b","startTime":[1767344300,0],"attributes":{"ai.operationId":"ai.generateText"}},
{"name":"c2","spanContext":{"traceId":"c","spanId":"b"},"parentSpanId":"a","startTime":[1767344300,0],"attributes":{"ai.operationId":"ai.generateText.doGenerate","ai.telemetry.metadata.userId":"mu"}},
{"name":"dup","spanContext":{"traceId":"t","spanId":"r"},"startTime":[1767344399,0],"attributes":{"ai.operationId":"ai.generateText","session.id":"other"}},
{"name":"orphan","spanContext":{"traceId":"o","spanId":"o1"},"parentSpanId":"gone","startTime":[1767344399,0],"attributes":{"ai.operationId":"ai.generateText.doGenerate"}},
{"name":"bad","attributes":[1],"startTime":[1767344399,0]},
{"name":"ai.generateText.doGenerate","spanContext":{"spanId":"n"},"startTime":"nope","attributes":{"ai.operationId":"ai.generateText.doGenerate","api_key":"sk-x"}},
{"name":"ai.embed","spanContext":{"spanId":"e"},"parentSpanId":"r","startTime":[1767344399,0],"attributes":{"ai.operationId":"ai.embed"}}
]`), true},
		{"no parent links", []byte(strings.ReplaceAll(vercelDoc, `"parentSpanId": "g",`, "")), true},
		{"empty", []byte("[\n]\n"), true},
		// Left to the whole-document path.
		{"not objects", []byte("[\n1, {\"a\":1}]"), false},
		{"trailing comma", []byte("[\n{\"a\":1},\n]"), false},
		{"after the array", []byte("[\n{\"a\":1}\n] x"), false},
		{"two arrays", []byte("[\n{\"a\":1}\n]\n[\n{\"a\":2}\n]"), false},
		{"object", []byte("{\n\"name\":\"ai.generateText.doGenerate\"}"), false},
		{"truncated", []byte("[\n{\"a\":1},\n{\"b\":"), false},
		{"bad utf-8", []byte("[\n{\"a\":\"\xff\"}\n]"), false},
		{"bad escape", []byte("[\n{\"a\":\"\\x\"}\n]"), false},
		{"jsonl", []byte(`{"name":"ai.streamText.doStream","_spanContext":{"spanId":"a"},"startTime":1767344400000,"attributes":{}}` + "\n"), false},
	}
	for i, c := range malformedCases {
		if c.format == FormatVercelAI {
			cases = append(cases, streamCase{name: fmt.Sprintf("malformed %d", i), data: []byte(c.in)})
		}
	}
	cases = append(cases, streamCase{name: "seed", data: []byte(`[{"spanContext":{},"startTime":[1e300,0]},{"startTime":"2026-01-02T09:00:00Z","attributes":null}]`)})
	for _, reverse := range []bool{false, true} {
		cases = append(cases, streamCase{name: fmt.Sprintf("tracegen reverse=%v", reverse), data: tracegen.VercelSpans(vercelCalls(40, reverse), nil), streamed: true})
	}
	return cases
}

// multiline breaks a one-line document after its first byte, so that it
// is read as a document, not as JSONL.
func multiline(s string) []byte { return []byte(s[:1] + "\n" + s[1:]) }

// otelStreamCases are the OTLP inputs of the differential test: the
// fixture, the fuzz seeds and malformed cases (as they are, and broken
// over lines), hand-made documents, and tracegen exports in and out of
// time order.
func otelStreamCases() []streamCase {
	mixed := otlpDoc([]string{sa("service.name", "svc"), sa("user.id", "res-user")},
		otlpSpan("r", "", "agent.run", "00", []string{oiKind("AGENT"), sa("session.id", "sess-1"), sa("gen_ai.agent.name", "oi-agent")}, ""),
		otlpSpan("c", "r", "chat", "01", []string{sa("gen_ai.operation.name", "chat"), sa("gen_ai.prompt", "hi"),
			sa("gen_ai.request.model", "m")}, ""),
		otlpSpan("d", "c", "chat", "02", []string{sa("gen_ai.request.model", "m"), sa("gen_ai.conversation.id", "conv")}, ""),
		otlpSpan("x", "x", "self", "03", []string{sa("gen_ai.request.model", "m")}, ""),
		otlpSpan("y", "", "nothing", "04", []string{sa("gen_ai.operation.name", "embeddings")}, ""),
		otlpSpan("z", "r", "bad start", "zz", []string{sa("gen_ai.request.model", "m")}, ""),
		otlpSpan("k", "r", "llm", "05", []string{oiKind("LLM"), sa("input.value", `{"messages":[{"role":"user","content":"q"}],"api_key":"sk-no"}`),
			sa("llm.invocation_parameters", `{"api_key":"sk-nope","temperature":1}`)}, ""),
		// A session as a nested attribute, beside a flat one it overrides
		// (flattenAttrs writes "session" first, then "session.id").
		otlpSpan("p", "", "chain", "06", []string{oiKind("CHAIN"),
			`{"key":"session","value":{"kvlistValue":{"values":[{"key":"id","value":{"stringValue":"nested"}}]}}}`}, ""),
		otlpSpan("p2", "", "chain", "06", []string{oiKind("CHAIN"), sa("session.id", "flat"),
			`{"key":"session","value":{"kvlistValue":{"values":[{"key":"id","value":{"stringValue":"nested"}}]}}}`}, ""),
		otlpSpan("q", "p", "llm", "07", []string{oiKind("LLM"), sa("input.value", "q")}, ""),
		otlpSpan("q2", "p2", "llm", "07", []string{oiKind("LLM"), sa("input.value", "q")}, ""),
	)
	// The resource after its spans, two resources, the older scope key.
	late := `{"resourceSpans":[
{"scopeSpans":[{"spans":[` + otlpSpan("a", "", "chat", "09", []string{sa("gen_ai.request.model", "m")}, "") + `]}],
 "resource":{"attributes":[` + sa("service.name", "late") + `]}},
{"resource":{"attributes":null},"instrumentationLibrarySpans":[{"spans":[` + otlpSpan("b", "a", "chat", "01", []string{sa("gen_ai.request.model", "m")}, "") + `]}]}
], "extra": [1, 2.5e3, {"a": null}]}`
	cases := []streamCase{
		{name: "fixture", data: traceFixture("openinference-otlp.json"), streamed: true},
		{name: "oiDoc", data: multiline(oiDoc), streamed: true},
		{name: "mixed", data: multiline(mixed), streamed: true},
		{name: "late resource", data: []byte(late), streamed: true},
		{name: "snake", data: multiline(strings.Replace(mixed, "resourceSpans", "resource_spans", 1)), streamed: true},
		// Left to the whole-document path.
		{name: "one line", data: []byte(mixed)},
		{name: "no spans", data: []byte("{\n\"resourceSpans\": []}")},
		{name: "both keys", data: multiline(strings.Replace(mixed, `{"resourceSpans":[`, `{"resource_spans":[],"resourceSpans":[`, 1))},
		{name: "two span lists", data: multiline(strings.Replace(mixed, `"spans":[`, `"spans":[],"spans":[`, 1))},
		{name: "span not an object", data: multiline(strings.Replace(mixed, `"spans":[`, `"spans":[1,`, 1))},
		{name: "attributes not a list", data: multiline(strings.Replace(mixed, `"attributes":[`+oiKind("AGENT"), `"attributes":{}, "x":[`+oiKind("AGENT"), 1))},
		{name: "two documents", data: append(multiline(mixed), multiline(mixed)...)},
		{name: "truncated", data: multiline(mixed[:len(mixed)-3])},
		{name: "bad utf-8", data: multiline(strings.Replace(mixed, "agent.run", "agent\xff", 1))},
	}
	for i, seed := range fastSeeds() {
		if seed.format == FormatOTel || seed.format == FormatOpenInference {
			cases = append(cases, streamCase{name: fmt.Sprintf("seed %d", i), data: seed.data},
				streamCase{name: fmt.Sprintf("seed %d multiline", i), data: multiline(string(seed.data))})
		}
	}
	for i, c := range malformedCases {
		if c.format == FormatOTel || c.format == FormatOpenInference {
			cases = append(cases, streamCase{name: fmt.Sprintf("malformed %d", i), data: []byte(c.in)})
			if len(c.in) > 0 {
				cases = append(cases, streamCase{name: fmt.Sprintf("malformed %d multiline", i), data: multiline(c.in)})
			}
		}
	}
	for _, reverse := range []bool{false, true} {
		spans := traceSpans()
		for i := range 30 {
			for _, s := range traceSpans() {
				s.TraceID, s.SpanID, s.ParentID = fmt.Sprint(s.TraceID, i), fmt.Sprint(s.SpanID, i), fmt.Sprint(s.ParentID, i)
				if s.ParentID == fmt.Sprint(i) {
					s.ParentID = ""
				}
				d := time.Duration(i) * time.Minute
				if reverse {
					d = -d
				}
				s.Start, s.End = s.Start.Add(d), s.End.Add(d)
				spans = append(spans, s)
			}
		}
		cases = append(cases, streamCase{name: fmt.Sprintf("tracegen reverse=%v", reverse), data: tracegen.OpenInferenceOTLP(spans), streamed: true})
	}
	return cases
}

// vercelCalls makes n calls for tracegen: one or two steps each, some
// streamed, sessions and function ids on some; with reverse, each call
// starts before the one listed before it.
func vercelCalls(n int, reverse bool) []tracegen.VercelCall {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var calls []tracegen.VercelCall
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Second)
		if reverse {
			at = t0.Add(-time.Duration(i) * time.Second)
		}
		c := tracegen.VercelCall{TraceID: fmt.Sprintf("t%d", i), Stream: i%3 == 0}
		if i%2 == 0 {
			c.FunctionID = fmt.Sprintf("agent-%d", i%5)
		}
		if i%4 == 1 {
			c.Session = fmt.Sprintf("sess-%d", i%7)
		}
		for k := range 1 + i%2 {
			c.Steps = append(c.Steps, tracegen.Span{TraceID: c.TraceID, SpanID: fmt.Sprintf("s%d-%d", i, k), ParentID: fmt.Sprintf("g%d", i),
				Start: at.Add(time.Duration(k) * time.Millisecond), End: at.Add(time.Second), Model: "gpt-4o", Provider: "openai.chat",
				Params: map[string]any{"temperature": 0.5, "api_key": "sk-secret"}, Error: i%9 == 4,
				Input:  []tracegen.Message{{Role: "user", Content: fmt.Sprintf("q%d", i)}},
				Output: []tracegen.Message{{Role: "assistant", Content: fmt.Sprintf("a%d", i)}}, TokensIn: int64(i), TokensOut: 2})
		}
		calls = append(calls, c)
	}
	return calls
}

// TestStreamedReadsAlike: an input read as a file (streamed in two
// passes when it can be) gives the records, messages and error of the
// same input read whole, at every window size.
func TestStreamedReadsAlike(t *testing.T) {
	defer func(w int) { streamWindow = w }(streamWindow)
	formats := map[Format][]streamCase{FormatVercelAI: vercelStreamCases(), FormatOTel: otelStreamCases()}
	for _, f := range []Format{FormatVercelAI, FormatOTel} {
		testStreamedReadsAlike(t, f, formats[f])
	}
}

// FuzzStreamedReadsAlike: any input reads alike whole and as a file
// (streamed when it can be), as Vercel AI SDK spans and as OTLP.
func FuzzStreamedReadsAlike(f *testing.F) {
	for _, c := range vercelStreamCases() {
		f.Add(c.data)
	}
	for _, c := range otelStreamCases() {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{FormatVercelAI, FormatOTel} {
			testStreamedReadsAlike(t, format, []streamCase{{name: "seed fuzz", data: data}})
		}
	})
}

func testStreamedReadsAlike(t *testing.T, format Format, cases []streamCase) {
	t.Helper()
	for _, c := range cases {
		if len(c.data) == 0 && c.streamed {
			t.Fatalf("%s: no data", c.name)
		}
		whole, err := NewReader(bytes.NewReader(c.data), "in.json", format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, werr := collect(whole, "in.json")
		if werr != nil {
			t.Fatalf("%s: whole: %v", c.name, werr)
		}
		for _, window := range []int{1, 7, 64, 1 << 20} {
			streamWindow = window
			file := sizedReader{Reader: bytes.NewReader(c.data), size: int64(len(c.data)), ra: bytes.NewReader(c.data)}
			r, err := NewReader(file, "in.json", format, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, gerr := collect(r, "in.json")
			if gerr != nil {
				t.Fatalf("%s: streamed: %v", c.name, gerr)
			}
			streamed := false
			switch r := r.(type) {
			case *vercelReader:
				streamed = r.stream != nil
			case *reader:
				streamed = r.stream != nil
			}
			if streamed != c.streamed && !eitherPath(c.name) {
				t.Errorf("%s %s (window %d): streamed %v, want %v", format, c.name, window, streamed, c.streamed)
			}
			if !reflect.DeepEqual(got, want) || fmt.Sprint(r.Err()) != fmt.Sprint(whole.Err()) {
				t.Fatalf("%s %s (window %d): %d records (err %v), want %d (err %v)\n%s", format, c.name, window, len(got), r.Err(),
					len(want), whole.Err(), firstDiff(got, want))
			}
			for _, rec := range got {
				if strings.Contains(string(rec.Request), "sk-") {
					t.Errorf("%s: a secret in %s", c.name, rec.Request)
				}
			}
		}
	}
}

// firstDiff describes the first record that differs.
func firstDiff[T any](got, want []T) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	return "one is a prefix of the other"
}

// eitherPath reports a seed or malformed case, which the test reads both
// ways without saying which path the streamed read takes.
func eitherPath(name string) bool {
	return strings.HasPrefix(name, "seed") || strings.HasPrefix(name, "malformed")
}
