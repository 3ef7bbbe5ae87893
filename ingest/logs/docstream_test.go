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
		cases = append(cases, streamCase{fmt.Sprintf("tracegen reverse=%v", reverse), tracegen.VercelSpans(vercelCalls(40, reverse), nil), true})
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
	for _, c := range vercelStreamCases() {
		if len(c.data) == 0 {
			t.Fatalf("%s: no data", c.name)
		}
		whole, err := NewReader(bytes.NewReader(c.data), "in.json", FormatVercelAI, Options{})
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
			r, err := NewReader(file, "in.json", FormatVercelAI, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, gerr := collect(r, "in.json")
			if gerr != nil {
				t.Fatalf("%s: streamed: %v", c.name, gerr)
			}
			if streamed := r.(*vercelReader).stream != nil; streamed != c.streamed {
				t.Errorf("%s (window %d): streamed %v, want %v", c.name, window, streamed, c.streamed)
			}
			if !reflect.DeepEqual(got, want) || fmt.Sprint(r.Err()) != fmt.Sprint(whole.Err()) {
				t.Fatalf("%s (window %d): %d records (err %v), want %d (err %v)\n%s", c.name, window, len(got), r.Err(),
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
