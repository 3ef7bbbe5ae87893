package logs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/tracegen"
	"github.com/parquet-go/parquet-go"
)

// The fast paths (jsonscan.go and the readers' raw decoders) must read
// every input exactly as the encoding/json paths they replaced: the same
// trees, units, records and messages. These tests run both (fastJSON off
// is the reference) on the seeds of every fuzz target, generated traces
// and tricky JSON.

// trickyJSON are values at the edges of the grammar and of string
// decoding, valid and not.
var trickyJSON = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `-0.0e+0`, `1E9`, `1e`, `01`, `-`, `1.`, `.5`, `+1`, `1.5e-3`,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`,
	`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":null}]},"a":[]}`, `[1 2]`, `{"a":1}}`, `{"a":1} x`, ` {"a":1} `,
	`"\u0041\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\ud83dx"`,
	`"\ud83d\ud83d\ude00"`, `"\u12"`, `"\x"`, `"a\"b\\c\/d\b\f\n\r\t"`, "\"a\tb\"", "\"\x01\"", `"\u0000"`,
	`"é中😀"`, `[[[[[[]]]]]]`, `{"":""}`, `{"\u0061":1,"a":2}`, `[` + strings.Repeat(`[`, 1200) + strings.Repeat(`]`, 1200) + `]`,
	`"unterminated`, `{"a":`, `[`, ``, ` `, `1 2`, `{}{}`, `[]{}[1]`, "{}\n\n[\n1,\n2]\n{\"x\":3}", `{} 1`, `1 {}`, `{}"x"`,
}

// equalTrees compares two decodes: values, and error messages.
func equalTrees(t *testing.T, in []byte) {
	t.Helper()
	if !utf8.Valid(in) {
		return
	}
	want, werr := decodeTreeStd(in)
	got, gerr := decodeTree(in)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
		t.Fatalf("decodeTree(%q) = %#v, %v; encoding/json: %#v, %v", clip(string(in), 200), got, gerr, want, werr)
	}
	wu, wn, we := splitDocsStd("f", in)
	gu, gn, ge := splitDocs("f", in)
	for i := range gu {
		gu[i].valid = false
	}
	if !reflect.DeepEqual(wu, gu) || wn != gn || fmt.Sprint(we) != fmt.Sprint(ge) {
		t.Fatalf("splitDocs(%q) = %v, %d, %v; encoding/json: %v, %d, %v", clip(string(in), 200), gu, gn, ge, wu, wn, we)
	}
	if len(in) > 0 && in[0] == '[' {
		var wl, gl [][]byte
		we := eachElementStd(in, func(_ int, el []byte) { wl = append(wl, el) })
		ge := eachElement(in, func(_ int, el []byte) { gl = append(gl, el) })
		if !reflect.DeepEqual(wl, gl) || fmt.Sprint(we) != fmt.Sprint(ge) {
			t.Fatalf("eachElement(%q) = %q, %v; encoding/json: %q, %v", clip(string(in), 200), gl, ge, wl, we)
		}
	}
}

func TestFastTreeMatchesEncodingJSON(t *testing.T) {
	for _, s := range trickyJSON {
		equalTrees(t, []byte(s))
	}
	for _, in := range fastSeeds() {
		equalTrees(t, in.data)
	}
}

// sameRecords reads data as format f with the fast paths and without and
// requires the same records (every field, errors by message) and the
// same end error.
func sameRecords(t *testing.T, f Format, data []byte) {
	t.Helper()
	read := func(fast bool) ([]ingest.Record, string) {
		fastJSON = fast
		defer func() { fastJSON = true }()
		r, err := NewReader(bytes.NewReader(data), "in.json", f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return plainRecords(r)
	}
	want, werr := read(false)
	got, gerr := read(true)
	compareRecords(t, fmt.Sprintf("%s %q", f, clip(string(data), 120)), want, werr, got, gerr)
}

// plainRecords reads every record of r, errors as text (so that they
// compare), and r's end error.
func plainRecords(r ingest.Reader) ([]ingest.Record, string) {
	var recs []ingest.Record
	for r.Scan() {
		rec := *r.Record()
		if rec.Err != nil {
			rec.Err = fmt.Errorf("%s", rec.Err.Error())
		}
		rec.CopyInto(nil) // the bodies may be the reader's until the next Scan
		recs = append(recs, rec)
	}
	return recs, fmt.Sprint(r.Err())
}

func compareRecords(t *testing.T, what string, want []ingest.Record, werr string, got []ingest.Record, gerr string) {
	t.Helper()
	if werr != gerr {
		t.Fatalf("%s: end error %q, want %q", what, gerr, werr)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], got[i]) {
			t.Fatalf("%s: record %d:\n got %+v\nwant %+v\n got request %s\nwant request %s\n got response %s\nwant response %s",
				what, i, got[i], want[i], got[i].Request, want[i].Request, got[i].Response, want[i].Response)
		}
	}
}

// fastSeed is an input and the format it is read as.
type fastSeed struct {
	format Format
	data   []byte
}

// fastSeeds are the well-formed and malformed seeds of the fuzz targets,
// the trace fixtures and generated traces (tool calls, errors, agents).
func fastSeeds() []fastSeed {
	var seeds []fastSeed
	for _, c := range malformedCases {
		seeds = append(seeds, fastSeed{c.format, []byte(c.in)})
	}
	add := func(f Format, ins ...string) {
		for _, in := range ins {
			seeds = append(seeds, fastSeed{f, []byte(in)})
		}
	}
	add(FormatOpenInference, oiDoc, string(tracegen.OpenInferenceOTLP(traceSpans())), string(traceFixture("openinference-otlp.json")),
		otlpDoc(nil, otlpSpan("a", "a", "loop", "00", []string{oiKind("LLM"), sa("llm.input_messages.x.message.role", "user"),
			sa("llm.input_messages.0.message.contents.0.message_content.text", "t"), sa("llm.output_messages.1", "o")}, "")))
	add(FormatOTel, otlpDoc([]string{sa("service.name", "s")},
		otlpSpan("p", "", "agent", "00", []string{sa("gen_ai.agent.id", "a")}, ""),
		otlpSpan("c", "p", "chat", "01", []string{sa("gen_ai.operation.name", "chat"),
			sa("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"q"}]}]`),
			sa("gen_ai.prompt.0.content", "x"), sa("gen_ai.completion.0.tool_calls.0.name", "f"),
			`{"key":"k","value":{"kvlistValue":{"values":[{"key":"a","value":{"arrayValue":{"values":[{"intValue":"1"},{"doubleValue":2.5}]}}}]}}}`},
			`"events":[{"name":"gen_ai.choice","attributes":[`+sa("message", `{"role":"assistant","content":"a"}`)+`]}],"status":{"code":2}`)))
	// OTLP documents at the edges of what the fast path takes: repeated
	// members (the last counts), nulls, the older and snake_case names,
	// lists of the wrong type, escaped keys.
	chat := `{"traceId":"t","spanId":"s","name":"chat","startTimeUnixNano":"1767344400000000000","attributes":[` +
		sa("gen_ai.operation.name", "chat") + `,` + sa("gen_ai.request.model", "m") + `]}`
	add(FormatOTel,
		`{"resourceSpans":[{"resource":{"attributes":[`+sa("service.name", "a")+`]},"resource":{"attributes":null},"scopeSpans":[{"spans":[`+chat+`]}]}]}`,
		`{"resourceSpans":[{"resource":{"attributes":[`+sa("service.name", "a")+`],"attributes":[`+sa("service.name", "b")+`]},"scopeSpans":[{"spans":[`+chat+`],"spans":[]},{"spans":[`+chat+`]}]}]}`,
		`{"resourceSpans":[{"resource":"x","instrumentationLibrarySpans":[{"spans":[`+chat+`]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":null,"instrumentationLibrarySpans":[{"spans":[`+chat+`]}]}]}`,
		`{"resource_spans":[{"scopeSpans":[7,{"spans":{}},{"spans":[`+chat+`]}]}],"x":1}`,
		`{"resourceSpans":[],"resource_spans":[{"scopeSpans":[{"spans":[`+chat+`]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"a","attributes":[{"key":"k","value":{"stringValue":"x","stringValue":null,"intValue":"3"}},`+
			`{"value":{"stringValue":"v"},"key":"gen_ai.request.model","key":"gen_ai.request.model"},{"key":"gen_ai.system","value":null},`+
			`{"key":"gen_ai.system","value":{"boolValue":true}},{"key":"n","value":{}}],"attributes":[`+sa("gen_ai.request.model", "z")+`],`+
			`"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"d","value":{"doubleValue":1e3}},`+
			`{"key":"\u0067en_ai.request.model","value":{"stringValue":"esc\u00e9"}}],"startTimeUnixNano":1767344400000000000,"status":{"code":2},"status":{"code":0}}]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"a","attributes":[{"key":"k","value":{"stringValue":7}}]}]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"a","attributes":[{"key":7,"value":{"stringValue":"x"}}]}]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"a","attributes":{"key":"k"}}]}]}]}`,
		`{"resourceSpans":[{"resource":{"attributes":[{"key":"k","value":"x"}]},"scopeSpans":[{"spans":[`+chat+`]}]}]}`,
		`{"resourceSpans":[null,{"scopeSpans":[{"spans":[`+chat+`]}]}]}`,
		`{"resourceSpans":{}}`, `{"resource_spans":null}`, `{}`, `[]`,
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["+chat+"]}]}]}\n{\"resourceSpans\":[]}\n",
		"[{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["+chat+"]}]}]}, {\"resourceSpans\":[]}]")
	add(FormatVercelAI, vercelDoc, string(traceFixture("vercel-ai-spans.json")),
		`{"name":"ai.streamText.doStream","_spanContext":{"spanId":"a"},"parentSpanId":"a","startTime":1767344400000,"attributes":{"ai.prompt.messages":"x"}}`,
		`[{"spanContext":{},"startTime":[1e300,0]},{"startTime":"2026-01-02T09:00:00Z","attributes":null}]`)
	add(FormatLiteLLM, payload(`"agent_id":"a","status":"failure","error_information":{"error_code":"429"}`),
		`[`+payload("")+`,`+payload("")+`]`)
	add(FormatCapture, "{\n\"ts\": 1, \"agent\": \"a\", \"request\": {}\n}", "[\n{\"ts\":1,\"agent\":\"a\",\"request\":{}}\n]")
	spans, calls := generatedTraces()
	add(FormatOpenInference, string(tracegen.OpenInferenceOTLP(spans)))
	add(FormatVercelAI, string(tracegen.VercelSpans(calls, nil)))
	for _, name := range []string{"json-litellm-logging-samples/standard_logging_payload.json",
		"json-langfuse-trace-exports/crewai-2025-07-11.trace.json"} {
		if b, err := os.ReadFile(filepath.Join(captures, name)); err == nil {
			f := FormatLiteLLM
			if strings.Contains(name, "langfuse") {
				f = FormatLangfuse
			}
			seeds = append(seeds, fastSeed{f, b})
		}
	}
	return seeds
}

// generatedTraces are the spans of the benchmarks' shape (an agent over a
// framework LLM span over the client's, beside a tool), varied: tool calls,
// errors, users instead of sessions, out-of-order starts.
func generatedTraces() ([]tracegen.Span, []tracegen.VercelCall) {
	base := traceSpans()
	var spans []tracegen.Span
	var calls []tracegen.VercelCall
	t0 := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	for i := range 12 {
		trace := fmt.Sprintf("%032x", i+1)
		id := func(k int) string { return fmt.Sprintf("%016x", 4*i+k) }
		at := t0.Add(time.Duration((i*7)%12) * time.Second)
		inner := base[i%len(base)]
		inner.TraceID, inner.SpanID, inner.ParentID, inner.Start, inner.End = trace, id(3), id(2), at, at.Add(time.Duration(i)*time.Millisecond)
		inner.Error = i%5 == 4
		root := tracegen.Span{TraceID: trace, SpanID: id(1), Name: "agent.run", Kind: "AGENT", Start: at, End: at}
		if i%3 == 0 {
			root.User = fmt.Sprintf("user-%d", i%2)
		} else {
			root.Session = fmt.Sprintf("session-%d", i%4)
		}
		outer := tracegen.Span{TraceID: trace, SpanID: id(2), ParentID: id(1), Name: "llm", Kind: "LLM", Start: at, End: at}
		tool := tracegen.Span{TraceID: trace, SpanID: id(4), ParentID: id(1), Name: "tool", Kind: "TOOL", Start: at, End: at}
		spans = append(spans, root, outer, inner, tool)
		step := inner
		step.ParentID = id(1)
		calls = append(calls, tracegen.VercelCall{TraceID: trace, FunctionID: fmt.Sprintf("fn-%d", i%3), Steps: []tracegen.Span{step}})
	}
	return spans, calls
}

func TestFastPathsReadAsEncodingJSON(t *testing.T) {
	fast := 0
	for _, s := range fastSeeds() {
		sameRecords(t, s.format, s.data)
		if s.format == FormatOTel || s.format == FormatOpenInference {
			fast += sameOTLPSpans(t, s.data)
		}
	}
	t.Logf("fast OTLP documents: %d", fast)
	if fast < 5 {
		t.Errorf("the fast OTLP path read %d seed documents, want 5 or more", fast)
	}
}

// sameOTLPSpans requires otelSpansFast, on each document of data it
// takes, to decode the spans spansStd decodes (whose span objects also
// hold "attributes", decoded apart by both); it returns how many
// documents it took.
func sameOTLPSpans(t *testing.T, data []byte) int {
	t.Helper()
	src := newSource(bytes.NewReader(data), "in.json", 0)
	c := &otel{src: src}
	took := 0
	for {
		u, ok := src.next()
		if !ok {
			return took
		}
		if u.err != nil {
			continue
		}
		got, ok := otelSpansFast(u.raw, u.valid)
		if !ok {
			continue
		}
		took++
		want, problems, rec := c.spansStd(u)
		if rec != nil || len(problems) > 0 {
			t.Fatalf("%q: the fast path took a document spansStd reports: %v %v", clip(string(u.raw), 200), rec, problems)
		}
		for _, s := range want {
			delete(s.o, "attributes")
		}
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast spans differ", clip(string(u.raw), 200))
		}
	}
}

// sameParquetRecords reads the Parquet span table data with the reader
// (fast paths on and off) and with the reference (refOIParquetReader,
// fast paths off) and requires the same records, constructor error and
// end error.
func sameParquetRecords(t *testing.T, data []byte) {
	t.Helper()
	read := func(fast, ref bool) ([]ingest.Record, string) {
		fastJSON = fast
		defer func() { fastJSON = true }()
		var r interface {
			ingest.Reader
			Close() error
		}
		var err error
		if ref {
			r, err = refReadTwice(bytes.NewReader(data), int64(len(data)), "in.parquet", Options{})
		} else {
			r, err = NewOIParquetReader(bytes.NewReader(data), int64(len(data)), "in.parquet", Options{})
		}
		if err != nil {
			return nil, "open: " + err.Error()
		}
		defer r.Close()
		return plainRecords(r)
	}
	want, werr := read(false, true)
	for _, fast := range []bool{false, true} {
		got, gerr := read(fast, false)
		compareRecords(t, fmt.Sprintf("parquet of %d bytes (fast paths %v)", len(data), fast), want, werr, got, gerr)
	}
}

// parquetSeeds are span tables: the fixture, a table with nested
// attributes, one with message lists of every shape (msgParquet),
// tracegen's (rows out of time order), generated traces out of order and
// in order, and one in pages of a few hundred bytes (pagedParquet).
func parquetSeeds(t testing.TB) [][]byte {
	spans, _ := generatedTraces()
	sorted := slices.Clone(spans)
	slices.SortStableFunc(sorted, func(a, b tracegen.Span) int { return a.Start.Compare(b.Start) })
	seeds := [][]byte{traceFixture("phoenix-spans.parquet"), nestedParquet(t), msgParquet(t), pagedParquet(t, 128, 40)}
	for _, s := range [][]tracegen.Span{traceSpans(), spans, sorted} {
		var b bytes.Buffer
		if err := tracegen.OpenInferenceParquet(&b, s); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b.Bytes())
	}
	return seeds
}

// nestedRow is a span row whose attributes are a struct group, some of
// them seen only by the full view: an LLM span's kind (its span_kind
// column is empty) and the agent's session.id.
type nestedRow struct {
	Name      string `parquet:"name"`
	SpanKind  string `parquet:"span_kind"`
	ParentID  string `parquet:"parent_id"`
	StartTime string `parquet:"start_time"`
	Context   struct {
		SpanID  string `parquet:"span_id"`
		TraceID string `parquet:"trace_id"`
	} `parquet:"context"`
	Attributes struct {
		Kind    string `parquet:"openinference.span.kind"`
		Session string `parquet:"session.id"`
		Model   string `parquet:"llm.model_name"`
		Input   string `parquet:"input.value"`
	} `parquet:"attributes"`
}

func nestedParquet(t testing.TB) []byte {
	row := func(name, kind, nestedKind, id, parent, start, session string) nestedRow {
		var r nestedRow
		r.Name, r.SpanKind, r.ParentID, r.StartTime = name, kind, parent, start
		r.Context.SpanID, r.Context.TraceID = id, "t"
		r.Attributes.Kind, r.Attributes.Session, r.Attributes.Model, r.Attributes.Input = nestedKind, session, "m", "q-"+id
		return r
	}
	rows := []nestedRow{
		row("agent", "AGENT", "AGENT", "a", "", "2026-01-02T09:00:00Z", "S"),
		row("llm", "", "LLM", "o", "a", "2026-01-02T09:00:01Z", ""),
		row("client", "LLM", "LLM", "i", "o", "2026-01-02T09:00:02Z", ""),
		row("late", "", "LLM", "l", "a", "2026-01-02T08:59:00Z", ""),
	}
	var b bytes.Buffer
	if err := parquet.Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestOIParquetReadsAsReference(t *testing.T) {
	for _, data := range parquetSeeds(t) {
		if len(data) == 0 {
			continue
		}
		sameParquetRecords(t, data)
	}
}

// FuzzOIParquetReference requires the reader to read a mutated span
// table as the reference does.
func FuzzOIParquetReference(f *testing.F) {
	for _, data := range parquetSeeds(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameParquetRecords(t, data) })
}

// FuzzFastPaths requires the fast paths to read any input (first byte:
// the format) as the encoding/json paths do.
func FuzzFastPaths(f *testing.F) {
	formats := []Format{FormatOpenInference, FormatOTel, FormatVercelAI, FormatLiteLLM, FormatLangfuse, FormatCapture}
	for _, s := range fastSeeds() {
		for i, fm := range formats {
			if fm == s.format {
				f.Add(append([]byte{byte(i)}, s.data...))
			}
		}
	}
	for _, s := range trickyJSON {
		f.Add(append([]byte{0}, s...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		equalTrees(t, data[1:])
		f := formats[int(data[0])%len(formats)]
		sameRecords(t, f, data[1:])
		if f == FormatOTel || f == FormatOpenInference {
			sameOTLPSpans(t, data[1:])
		}
	})
}

// TestIndexAsAtoi: index takes exactly the keys that strconv.Atoi reads
// back to themselves as a non-negative number (the test it replaced).
func TestIndexAsAtoi(t *testing.T) {
	for _, k := range []string{"", "0", "7", "12", "012", "00", "+1", "-1", "-0", "1e3", "1.0", " 1", "x",
		"9223372036854775807", "9223372036854775808", "99999999999999999999", "٣"} {
		n, err := strconv.Atoi(k)
		want := err == nil && n >= 0 && strconv.Itoa(n) == k
		got, ok := index(k)
		if ok != want || ok && got != n {
			t.Errorf("index(%q) = %d, %v; want %v", k, got, ok, want)
		}
	}
}

// TestMarshalAsEncodingJSON: appendJSON writes what encoding/json writes
// (marshalStd) for strings of every ASCII byte and the escaped runes,
// trees, and the chat bodies in each of their optional shapes; values of
// other types fall back.
func TestMarshalAsEncodingJSON(t *testing.T) {
	var ascii []byte
	for c := range 0x80 {
		ascii = append(ascii, byte(c))
	}
	text := "t"
	strs := []string{"", string(ascii), "é中😀", "a\u2028b\u2029c", "\xff\xfe", "bad \xc3 utf8", "<a href='x'>&amp;</a>", "\u0000\b\f"}
	var values []any
	for _, s := range strs {
		values = append(values, s, obj{s: s, "k": s}, message{Role: s, Content: &s, ToolCallID: s})
	}
	calls := []toolCall{{ID: "c1", Type: "function", Function: toolFunction{Name: "f", Arguments: "{\"a\":1}"}},
		{Type: "function", Function: toolFunction{Name: "g"}}}
	msgs := []message{{Role: "user", Content: &text}, {Role: "assistant", ToolCalls: calls}, {Role: "tool", Content: &text, ToolCallID: "c1"}}
	values = append(values, nil, true, false, json.Number("12"), json.Number("-1.5e+3"), json.Number(""),
		obj(nil), []any(nil), []any{}, obj{}, []message(nil), []message{}, msgs,
		obj{"b": []any{1.5, "x"}, "a": obj{"z": nil, "y": []any{true, json.Number("3")}}, "é": 1, "A": int64(2)},
		obj{"messages": msgs, "model": "m", "tools": []any{obj{"type": "function"}}},
		chatRequest{Messages: []message{}}, chatRequest{Model: "m", Messages: msgs, Tools: []any{}, Functions: []any{obj{}}, ToolChoice: "auto"},
		chatRequest{Messages: []any{obj{"role": "user"}}, Tools: []any(nil)},
		chatResponse{Object: "chat.completion"}, chatResponse{Object: "o", Model: "m", Choices: []chatChoice{{Message: msgs[1], FinishReason: "stop"}, {Index: 1, Message: msgs[0]}}},
		[]any{map[string]string{"a": "b"}}, 3.25, []string{"x"})
	for _, v := range values {
		if got, want := marshal(v), marshalStd(v); !bytes.Equal(got, want) {
			t.Errorf("marshal(%#v):\n got %s\nwant %s", v, got, want)
		}
	}
}

// TestSizedSourceReadsAlike: an input read into a buffer made at its
// size (right, or wrong: the file changed) gives the units of one read
// without a size.
func TestSizedSourceReadsAlike(t *testing.T) {
	units := func(r io.Reader) []unit {
		s := newSource(r, "in.json", 0)
		var us []unit
		for {
			u, ok := s.next()
			if !ok {
				return us
			}
			us = append(us, u)
		}
	}
	for _, seed := range fastSeeds() {
		want := units(bytes.NewReader(seed.data))
		for _, size := range []int64{int64(len(seed.data)), 1, int64(len(seed.data)) * 3} {
			if got := units(sizedReader{Reader: bytes.NewReader(seed.data), size: size}); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q read with size %d: units differ", clip(string(seed.data), 80), size)
			}
		}
	}
}
