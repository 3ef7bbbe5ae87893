package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/tracegen"
)

// unitCases are the inputs every document format is read both ways in:
// the fixtures of fixtures/logs and fixtures/traces, the fuzz seeds (each
// as is and over lines), the malformed cases, tracegen's exports, and
// hand-made documents and arrays.
func unitCases(t testing.TB) []fastSeed {
	seeds := fastSeeds()
	for _, dir := range []string{"logs", "traces"} {
		paths, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", dir, "*.json*"))
		for _, p := range paths {
			if strings.HasSuffix(p, ".expect.json") {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := Detect(b); ok {
				seeds = append(seeds, fastSeed{f, b})
			}
		}
	}
	calls := traceSpans()
	seeds = append(seeds,
		fastSeed{FormatPhoenix, tracegen.PhoenixSpans(calls)},
		fastSeed{FormatPhoenix, phoenixArray(t, tracegen.PhoenixSpans(calls))},
		fastSeed{FormatOTelConsole, tracegen.ConsoleGenAI(calls, true)},
		fastSeed{FormatLangSmith, tracegen.LangSmithRuns(calls)},
		fastSeed{FormatLangSmith, jsonlAsArray(t, tracegen.LangSmithRuns(calls))},
		fastSeed{FormatLangSmith, multiline(string(tracegen.LangSmithRuns(calls)))},
		// Runs with what readAll orders and merges: a payload that is no
		// object, a patch before... after its post, an error emptied by
		// a patch, an llm run over an llm run, a run without an id.
		fastSeed{FormatLangSmith, []byte(`[
 {"id": "a", "run_type": "chain", "name": "Root", "start_time": "2026-01-02T03:04:05Z", "extra": {"metadata": {"thread_id": "th"}}},
 7,
 {"id": "b", "parent_run_id": "a", "trace_id": "a", "run_type": "llm", "start_time": "2026-01-02T03:04:06Z", "inputs": {"messages": [{"role": "user", "content": "hi"}]}, "error": "RateLimitError"},
 {"id": "c", "parent_run_id": "b", "trace_id": "a", "run_type": "llm", "start_time": "2026-01-02T03:04:06Z", "inputs": {"messages": [{"role": "user", "content": "hi"}]}},
 {"id": "b", "error": null, "end_time": "2026-01-02T03:04:07Z"},
 {"id": "d", "run_type": "llm", "start_time": "2026-01-02T03:04:01Z", "error": "boom", "extra": null},
 {"id": "d", "error": "", "extra": {"metadata": {"agent_id": "x"}}},
 {"run_type": "llm", "start_time": "bad"},
 {"id": "e", "run_type": "llm", "inputs": {"prompts": ["p"]}}
]
`)},
		fastSeed{FormatDatadog, tracegen.DatadogTraces(calls, 0)},
		fastSeed{FormatBedrock, tracegen.BedrockConverse(calls)},
		fastSeed{FormatLangfuse, []byte("{\n\"id\": \"t1\", \"observations\": []\n}\n{\n\"id\": \"t2\", \"observations\": [1]\n}\n")},
		// Console output with what readAll orders among the spans: a
		// span with bad attributes, one printed again, one without a
		// start, an OpenInference wrapper over its call, a GenAI call
		// under an agent span, a document that is not a span.
		fastSeed{FormatOTelConsole, []byte(`{
  "name": "agent", "context": {"trace_id": "0xT", "span_id": "0xA"}, "parent_id": null,
  "start_time": "2026-01-02T03:04:05Z", "attributes": {"gen_ai.agent.name": "planner", "gen_ai.operation.name": "invoke_agent"}
}
{
  "name": "chat", "context": {"trace_id": "0xT", "span_id": "0xB"}, "parent_id": "0xA",
  "start_time": "2026-01-02T03:04:04Z", "end_time": "2026-01-02T03:04:06Z",
  "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.prompt": "hi"}
}
{
  "name": "bad", "context": {"trace_id": "0xT", "span_id": "0xC"}, "start_time": "2026-01-02T03:04:01Z", "attributes": [1]
}
{
  "name": "chat", "context": {"trace_id": "0xT", "span_id": "0xB"}, "parent_id": "0xA",
  "start_time": "2026-01-02T03:04:04Z", "attributes": {"gen_ai.operation.name": "chat"}
}
[1, 2]
{
  "name": "no start", "context": {"trace_id": "0xT", "span_id": "0xD"}, "attributes": {"gen_ai.operation.name": "chat"}
}
{
  "name": "llm outer", "context": {"trace_id": "0xU", "span_id": "0xE"}, "start_time": "2026-01-02T03:04:00Z",
  "attributes": {"openinference.span.kind": "LLM", "session.id": "s1", "llm.model_name": "m", "input.value": "q"}
}
{
  "name": "llm inner", "context": {"trace_id": "0xU", "span_id": "0xF"}, "parent_id": "0xE", "start_time": "2026-01-02T03:04:00Z",
  "attributes": {"openinference.span.kind": "LLM", "llm.model_name": "m", "input.value": "q"}
}
`)},
		// Phoenix pages: spans and non-spans, a member after data, data
		// twice (read whole), a span with data (not a page), an empty page.
		fastSeed{FormatPhoenix, []byte("{\"data\": [\n" + `{"name": "llm", "context": {"trace_id": "t", "span_id": "a"}, "span_kind": "LLM", "start_time": "2026-01-02T03:04:05Z", "attributes": {"llm.model_name": "m", "input.value": "q", "session.id": "s"}},
1, {"name": "x"}, {"name": "llm", "context": {"trace_id": "t", "span_id": "a"}, "span_kind": "LLM", "start_time": "2026-01-02T03:04:05Z"}` + "\n], \"next_cursor\": \"c\"}\n")},
		fastSeed{FormatPhoenix, []byte("{\"data\": [\n{\"name\": \"a\"}], \"data\": [\n{\"name\": \"b\"}]}")},
		fastSeed{FormatPhoenix, []byte("{\"context\": {\"trace_id\": \"t\", \"span_id\": \"a\"},\n\"data\": [], \"span_kind\": \"LLM\", \"start_time\": \"2026-01-02T03:04:05Z\"}")},
		fastSeed{FormatPhoenix, []byte("{\"data\": [\n]}")},
		fastSeed{FormatPhoenix, []byte("{\"data\": [\n{\"data\": [1]}, {\"name\": \"x\", \"data\": []}]}")}, // spans that look like pages
		fastSeed{FormatLiteLLM, []byte("[\n" + `{"call_type":"acompletion","startTime":1,"messages":[{"role":"user","content":"hi"}]}` + ",\n2, \"x\", [3]\n]\n")},
	)
	n := len(seeds)
	for _, s := range seeds[:n] {
		if len(s.data) > 0 && !bytes.Contains(s.data[:min(len(s.data), 200)], []byte("\n")) {
			seeds = append(seeds, fastSeed{s.format, multiline(string(s.data))})
		}
	}
	return seeds
}

// TestUnitsReadAlike: every document input read at offsets (in two
// passes, when planUnits takes it) gives the records, messages and error
// of the same input read whole, at several window sizes, in every format
// that reads units.
func TestUnitsReadAlike(t *testing.T) {
	defer func(w int, m int64) { streamWindow, flatStreamMin = w, m }(streamWindow, flatStreamMin)
	flatStreamMin = 0
	planned := map[Format]int{}
	for i, c := range unitCases(t) {
		if c.format == FormatCapture || c.format == FormatCompletionLog {
			continue
		}
		name := fmt.Sprintf("%s case %d", c.format, i)
		p := readsAlike(t, name, c.format, c.data, Options{})
		if p {
			planned[c.format]++
		}
	}
	for _, f := range []Format{FormatLangfuse, FormatLiteLLM, FormatPhoenix, FormatOTelConsole, FormatDatadog, FormatBedrock} {
		if planned[f] == 0 {
			t.Errorf("no %s input was read in two passes", f)
		}
	}
	t.Logf("read span by span: %v", flatStreamed)
	for _, f := range []Format{FormatPhoenix, FormatOTelConsole, "page", FormatLangSmith} {
		if flatStreamed[f] == 0 {
			t.Errorf("no %s input was read span by span (planFlat)", f)
		}
	}
}

// flatStreamed counts, per format, the reads planFlat took.
var flatStreamed = map[Format]int{}

// readsAlike reads data whole and at offsets and fails when they differ;
// it reports whether planUnits took the input.
func readsAlike(t *testing.T, name string, format Format, data []byte, opt Options) (planned bool) {
	t.Helper()
	whole, err := NewReader(bytes.NewReader(data), "in.json", format, opt)
	if err != nil {
		t.Fatal(err)
	}
	want, werr := collect(whole, "in.json")
	if werr != nil {
		t.Fatalf("%s: whole: %v", name, werr)
	}
	for _, window := range []int{1, 7, 64, 1 << 20} {
		streamWindow = window
		file := sizedReader{Reader: bytes.NewReader(data), size: int64(len(data)), ra: bytes.NewReader(data)}
		r, err := NewReader(file, "in.json", format, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, gerr := collect(r, "in.json")
		if gerr != nil {
			t.Fatalf("%s: at offsets: %v", name, gerr)
		}
		if rd, ok := r.(*reader); ok {
			planned = planned || rd.src.planned
			if _, ok := rd.stream.(*lsStream); ok {
				flatStreamed[FormatLangSmith]++
			}
			if st, ok := rd.stream.(*flatStream); ok {
				flatStreamed[format]++
				if st.page {
					flatStreamed["page"]++
				}
			}
		}
		if !reflect.DeepEqual(got, want) || fmt.Sprint(r.Err()) != fmt.Sprint(whole.Err()) {
			t.Fatalf("%s (window %d): %d records (err %v), want %d (err %v)\n%s", name, window, len(got), r.Err(),
				len(want), whole.Err(), firstDiff(got, want))
		}
	}
	return planned
}

// TestUnitOverLimit: an element of a top-level array, a document, or a
// JSONL line over MaxValue is one malformed record at its position, read
// past without being kept; the others read as before. An input that is
// one document over the limit is refused, not read whole; so is a
// document input over the limit that cannot be read at offsets.
func TestUnitOverLimit(t *testing.T) {
	defer func(w int) { streamWindow = w }(streamWindow)
	good := `{"call_type":"acompletion","startTime":1,"messages":[{"role":"user","content":"hi"}]}`
	big := `{"call_type":"acompletion","startTime":1,"messages":[{"role":"user","content":"` + strings.Repeat(`x\"`, 3000) + `"}]}`
	doc := "{\n\"x\": \"" + strings.Repeat("y", 2000) + "\"}"
	broken := "[\n" + good + ",\n" + big + ",\n" + good + ",\n{\"x\": tru}\n]\n"
	long := func(n int, what string) string {
		return fmt.Sprintf("%s of %d bytes is %s than the 1024-byte limit (--max-line): skipped", what, n, map[string]string{"item": "larger", "line": "longer"}[what])
	}
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"array element", "[\n" + good + ",\n" + big + ",\n" + good + "\n]\n", []string{
			"in.json:[0]", "in.json:[1]: " + long(len(big), "item"), "in.json:[2]"}},
		{"document", doc + "\n" + multilineStr(good), []string{
			"in.json:1: " + long(len(doc), "item"), "in.json:3"}},
		{"a problem after the limit", broken, []string{
			"in.json:[0]", "in.json:[1]: " + long(len(big), "item"), "in.json:[2]",
			"in.json:5: JSON from here on is not read: it is not valid JSON objects or arrays, and the input (" + fmt.Sprint(len(broken)) + " bytes) is larger than the 1024-byte limit (--max-line) for reading it whole to say where"}},
		{"the one document", doc, []string{"in.json:1: document of 2010 bytes is larger than the 1024-byte limit (--max-line): skipped"}},
		{"jsonl line", good + "\n" + big + "\n" + good + "\n", []string{
			"in.json:1", "in.json:2: " + long(len(big), "line"), "in.json:3"}},
	} {
		for _, way := range []int{0, 64, 1 << 20} { // whole; at offsets through a window of this size
			at := way > 0
			if at {
				streamWindow = way
			}
			var in = any(bytes.NewReader([]byte(tt.in)))
			if at {
				in = sizedReader{Reader: bytes.NewReader([]byte(tt.in)), size: int64(len(tt.in)), ra: bytes.NewReader([]byte(tt.in))}
			}
			r, err := NewReader(in.(interface{ Read([]byte) (int, error) }), "in.json", FormatLiteLLM, Options{MaxValue: 1024})
			if err != nil {
				t.Fatal(err)
			}
			got := errsOrPositions(r)
			want := tt.want
			if tt.name != "jsonl line" && !at {
				// The whole-document path holds no more than the limit.
				want = []string{fmt.Sprintf("in.json:1: JSON input of %d bytes is larger than the 1024-byte limit (--max-line) for an input read whole: skipped", len(tt.in))}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s (window %d):\n got %q\nwant %q", tt.name, way, got, want)
			}
		}
	}
}

// errsOrPositions reads r and returns, per record, its error, or its
// position when it has none.
func errsOrPositions(r ingest.Reader) []string {
	var got []string
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			got = append(got, rec.Err.Error())
		} else {
			got = append(got, rec.Pos.String())
		}
	}
	return got
}

// jsonlAsArray is the lines of a JSONL input as an indented JSON array.
func jsonlAsArray(t testing.TB, jsonl []byte) []byte {
	var els []json.RawMessage
	for _, l := range bytes.Split(bytes.TrimSpace(jsonl), []byte("\n")) {
		els = append(els, l)
	}
	b, err := json.MarshalIndent(els, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// phoenixArray is a Phoenix page's spans as a top-level array.
func phoenixArray(t testing.TB, page []byte) []byte {
	var p struct{ Data []json.RawMessage }
	if err := json.Unmarshal(page, &p); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(p.Data, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func multilineStr(s string) string { return string(multiline(s)) }

// FuzzUnitsReadAlike: any input reads alike whole and at offsets, in
// every format of unitCases, under the default limit and a small one.
func FuzzUnitsReadAlike(f *testing.F) {
	for _, c := range unitCases(f) {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(w int, m int64) { streamWindow, flatStreamMin = w, m }(streamWindow, flatStreamMin)
		flatStreamMin = 0
		for _, format := range []Format{FormatLiteLLM, FormatLangfuse, FormatPhoenix, FormatOTelConsole, FormatLangSmith, FormatDatadog, FormatBedrock} {
			readsAlike(t, "fuzz", format, data, Options{})
		}
	})
}
