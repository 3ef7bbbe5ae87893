package formats_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"compress/gzip"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/tracegen"
)

// openCase is one input read every way: its name (positions and the
// extension detection looks at), its bytes and a forced format, if any.
type openCase struct {
	name, format string
	data         []byte
}

// openCases are every file of fixtures/ and ../shared/captures (when
// present), the trace exports tracegen writes, a Parquet capture, the
// inline documents of TestDetect, compressed copies, and the names only
// --input-format reaches.
func openCases(t *testing.T) []openCase {
	var cases []openCase
	for _, dir := range []string{"../../fixtures", "../../../shared/captures"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".txt") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, openCase{name: p, data: b})
			return nil
		})
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var spans, calls []tracegen.Span
	var vercel []tracegen.VercelCall
	for i := range 3 {
		trace, id := fmt.Sprintf("%032x", i+1), func(k int) string { return fmt.Sprintf("%016x", 4*i+k) }
		ts := at.Add(time.Duration(i) * time.Second)
		root := tracegen.Span{TraceID: trace, SpanID: id(1), Name: "agent.run", Kind: "AGENT", Start: ts, End: ts, Session: "s"}
		llm := tracegen.Span{TraceID: trace, SpanID: id(2), ParentID: root.SpanID, Name: "ChatCompletion", Kind: "LLM", Start: ts, End: ts.Add(time.Second)}
		req := fmt.Sprintf(`{"model":"gpt-4o","messages":[{"role":"user","content":"step %d"}]}`, i)
		if err := tracegen.FromChat(&llm, []byte(req), []byte(`{"choices":[{"message":{"role":"assistant","content":"ok"}}]}`)); err != nil {
			t.Fatal(err)
		}
		spans = append(spans, root, llm)
		call := llm
		call.Session = "s"
		calls = append(calls, call)
		vercel = append(vercel, tracegen.VercelCall{TraceID: trace, FunctionID: "f", Steps: []tracegen.Span{llm}})
	}
	var oiParquet bytes.Buffer
	if err := tracegen.OpenInferenceParquet(&oiParquet, spans); err != nil {
		t.Fatal(err)
	}
	cases = append(cases,
		openCase{name: "gen/otlp.json", data: tracegen.OpenInferenceOTLP(spans)},
		openCase{name: "gen/vercel.json", data: tracegen.VercelSpans(vercel, nil)},
		openCase{name: "gen/phoenix.json", data: tracegen.PhoenixSpans(spans)},
		openCase{name: "gen/console.json", data: tracegen.ConsoleGenAI(calls, true)},
		openCase{name: "gen/langsmith.jsonl", data: tracegen.LangSmithRuns(calls)},
		openCase{name: "gen/datadog.json", data: tracegen.DatadogTraces(calls, 0)},
		openCase{name: "gen/bedrock.jsonl", data: tracegen.BedrockConverse(calls)},
		openCase{name: "gen/spans.parquet", data: oiParquet.Bytes()},
		openCase{name: "gen/spans.bin", data: oiParquet.Bytes()}, // detected by its magic
		openCase{name: "gen/capture.parquet", data: []byte(captureParquet())},
		openCase{name: "gen/capture.parquet.gz", data: []byte(gz(captureParquet()))},
		openCase{name: "gen/phoenix.json.gz", data: []byte(gz(string(tracegen.PhoenixSpans(spans))))},
		openCase{name: "gen/vercel.json.gz", data: []byte(gz(string(tracegen.VercelSpans(vercel, nil))))},
		openCase{name: "inline/t.har", data: []byte(harDoc)},
		openCase{name: "inline/b.jsonl", data: []byte(batch)},
		openCase{name: "inline/l.json", data: []byte(langfuse)},
		openCase{name: "inline/o.json", data: []byte(oiOTLP)},
		openCase{name: "inline/p.json", data: []byte(`{"resourceSpans": []}`)},
		openCase{name: "inline/genai.json", data: []byte(genAI)},
		openCase{name: "inline/d.json", data: []byte(document)},
		openCase{name: "inline/c.jsonl", format: "capture", data: []byte(capture)},
		// Without ../shared/captures, every format still has an input that
		// yields records: a HAR entry, a LiteLLM log, an Anthropic batch.
		openCase{name: "inline/one.har", data: []byte(`{"log":{"entries":[{"startedDateTime":"2026-01-02T03:04:05Z","time":1,` +
			`"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions","headers":[],"postData":{"mimeType":"application/json",` +
			`"text":"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"}},` +
			`"response":{"status":200,"headers":[],"content":{"mimeType":"application/json","text":"{}"}}}]}}`)},
		openCase{name: "inline/litellm.jsonl", data: []byte(`{"call_type":"acompletion","startTime":1737710446.847371,"endTime":1737710446.851954,"model":"gpt-4o",` +
			`"messages":[{"role":"user","content":"Hello"}],"response":{"choices":[{"message":{"role":"assistant","content":"hi"}}]},"id":"c1","status":"success"}` + "\n")},
		openCase{name: "inline/anthropic-batch.jsonl", data: []byte(`{"custom_id":"r1","params":{"model":"claude-3-5-sonnet-20241022","max_tokens":10,` +
			`"messages":[{"role":"user","content":"Hi"}]}}` + "\n")},
		openCase{name: "inline/c.jsonl", format: "completion-log", data: []byte(`{"messages": [{"role": "user", "content": "hi"}], "response": {}, "timestamp": 1}` + "\n")},
	)
	return cases
}

// genAI is an OTLP document of one GenAI chat span, over lines.
const genAI = `{"resourceSpans": [{
  "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]},
  "scopeSpans": [{"spans": [{
    "traceId": "t1", "spanId": "s1", "name": "chat gpt-4o",
    "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
    "attributes": [
      {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
      {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}},
      {"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"hi\"}]}]"}}
    ]
  }]}]
}]}
`

// forwardOnly hides every method of its reader but Read, as a pipe would.
type forwardOnly struct{ r io.Reader }

func (f forwardOnly) Read(p []byte) (int, error) { return f.r.Read(p) }

// opened is what one way of opening an input gave: the format, the
// records (errors as text) and the I/O error, or the error opening it.
type opened struct {
	format string
	recs   []ingest.Record
	errs   []string
	ioErr  string
	err    string
}

func readOpened(f *ingest.File, err error) opened {
	if err != nil {
		return opened{err: err.Error()}
	}
	defer f.Close()
	o := opened{format: f.Format}
	for f.Scan() {
		rec := *f.Record()
		rec.CopyInto(nil)
		msg := ""
		if rec.Err != nil {
			msg, rec.Err = rec.Err.Error(), nil
		}
		o.recs, o.errs = append(o.recs, rec), append(o.errs, msg)
	}
	if err := f.Err(); err != nil {
		o.ioErr = err.Error()
	}
	return o
}

// TestOpenReader reads every input of openCases three ways: Open on a
// file, OpenReader on a *bytes.Reader (random access: the two-pass and
// in-place paths) and OpenReader on a reader that only reads (the
// forward path), under the same name; the formats, records, positions
// and messages must be the same. Every registered format must be among
// those read.
func TestOpenReader(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	for i, c := range openCases(t) {
		path := filepath.Join(dir, fmt.Sprint(i), filepath.Base(c.name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		opt := ingest.Options{Format: c.format}
		want := readOpened(ingest.Open(path, opt))
		// The file's name in positions is the path given to Open.
		for _, way := range []struct {
			name string
			r    io.Reader
		}{
			{"bytes.Reader", bytes.NewReader(c.data)},
			{"forward only", forwardOnly{bytes.NewReader(c.data)}},
		} {
			got := readOpened(ingest.OpenReader(path, way.r, opt))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s (%s), OpenReader on a %s: %s", c.name, c.format, way.name, diffOpened(got, want))
			}
		}
		if want.err == "" && len(want.recs) > 0 {
			seen[strings.SplitN(want.format, " ", 2)[0]] = true
		}
	}
	for _, name := range strings.Split(ingest.FormatNames(), ", ")[1:] {
		if !seen[name] {
			t.Errorf("no input read as %s", name)
		}
	}
}

// diffOpened says how got differs from want, briefly.
func diffOpened(got, want opened) string {
	switch {
	case got.err != want.err:
		return fmt.Sprintf("error %q, Open's %q", got.err, want.err)
	case got.format != want.format:
		return fmt.Sprintf("format %q, Open's %q", got.format, want.format)
	case got.ioErr != want.ioErr:
		return fmt.Sprintf("I/O error %q, Open's %q", got.ioErr, want.ioErr)
	case len(got.recs) != len(want.recs):
		return fmt.Sprintf("%d records, Open's %d", len(got.recs), len(want.recs))
	}
	for i := range got.recs {
		if !reflect.DeepEqual(got.recs[i], want.recs[i]) || got.errs[i] != want.errs[i] {
			return fmt.Sprintf("record %d: %+v %q, Open's %+v %q", i, got.recs[i], got.errs[i], want.recs[i], want.errs[i])
		}
	}
	return "?"
}

// TestOpenReaderAtOffset opens a Parquet capture (which needs random
// access) and a JSONL capture from files positioned past a prefix: the
// content starts where the reader is, positions name the name given, and
// Close leaves the file open.
func TestOpenReaderAtOffset(t *testing.T) {
	for _, c := range []struct{ name, data string }{
		{"c.parquet", captureParquet()},
		{"c.jsonl", capture},
	} {
		path := filepath.Join(t.TempDir(), "both")
		prefix := "junk before the capture\n"
		if err := os.WriteFile(path, []byte(prefix+c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if _, err := fh.Seek(int64(len(prefix)), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		f, err := ingest.OpenReader("upload/"+c.name, fh, ingest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if f.At == nil || f.Size != int64(len(c.data)) {
			t.Errorf("%s: At %v, Size %d, want random access to %d bytes", c.name, f.At, f.Size, len(c.data))
		}
		if !f.Scan() || f.Record().Agent != "a" || f.Record().Pos.File != "upload/"+c.name {
			t.Errorf("%s: first record %+v", c.name, f.Record())
		}
		f.Close()
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			t.Errorf("%s: the file was closed: %v", c.name, err)
		}
	}
}

// TestTruncatedCompressed reads every uncompressed input of openCases
// gzipped and cut short (a download or copy that stopped): whatever the
// format, the input fails, at open or at the end of its records, with a
// message that names the file (and the line, where the input is read as
// lines) and says the stream is truncated, never a bare decoder error or
// "not a capture format".
func TestTruncatedCompressed(t *testing.T) {
	for _, c := range openCases(t) {
		if ingest.DetectCompression(c.data) != ingest.CompressionNone || bytes.HasPrefix(c.data, []byte("PAR1")) || len(c.data) < 100 {
			continue
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(c.data)
		zw.Close()
		for _, cut := range []int{12, z.Len() / 2, z.Len() - 9} {
			name := filepath.Base(c.name) + ".gz"
			o := readOpened(ingest.OpenReader(name, bytes.NewReader(z.Bytes()[:cut]), ingest.Options{Format: c.format}))
			msg := o.err + o.ioErr
			if !strings.HasPrefix(msg, name+":") || !strings.Contains(msg, "gzip stream is truncated after ") {
				t.Errorf("%s cut to %d of %d gzip bytes: %d records, error %q; want it to name %s and say the stream is truncated", c.name, cut, z.Len(), len(o.recs), msg, name)
			}
		}
	}
}
