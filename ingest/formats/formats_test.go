package formats_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
	_ "github.com/killswitch/killswitch/ingest/formats"
	"github.com/killswitch/killswitch/ingest/har"
	"github.com/killswitch/killswitch/ingest/logs"
	"github.com/killswitch/killswitch/ingest/pq"
)

// captureParquet is a Parquet capture of one record (SPEC §3 layout).
func captureParquet() string {
	var b bytes.Buffer
	pq.WriteRecords(&b, []ingest.Record{{TS: time.Unix(1, 0), Agent: "a", Request: []byte(`{"messages":[]}`)}})
	return b.String()
}

func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

const (
	capture  = `{"ts": 1, "agent": "a", "request": {"messages": [{"role": "user", "content": "hi"}]}}` + "\n"
	harDoc   = `{"log": {"version": "1.2", "entries": []}}`
	batch    = `{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "m", "messages": []}}` + "\n"
	langfuse = "{\n  \"id\": \"t1\",\n  \"observations\": []\n}\n"
	document = "{\n  \"hello\": \"world\"\n}\n"
	oiOTLP   = `{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "LLM"}}]}]}]}]}`
	vercel   = "[\n  {\n    \"name\": \"ai.generateText\",\n    \"spanContext\": {\"traceId\": \"t\", \"spanId\": \"s\"}\n  }\n]\n"
)

// TestDetect pins what Open detects, file name and content together. The
// expectations are the rules of cmd/killswitch's sniffFormat before the
// registry (commit 24dff76), applied by hand: a .har/.zhar or
// .parquet/.pq name decides; else Parquet magic, a first member "log"
// (HAR), then logs.Detect (capture and completion logs read as jsonl);
// else jsonl, unless the file is not named .jsonl/.ndjson and is a JSON
// document whose first line is not JSON.
func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name, file, content, format, want, err string
	}{
		{name: "capture by content", file: "x.json", content: capture, want: "jsonl"},
		{name: "har by name whatever the content", file: "x.har", content: capture, want: "har"},
		{name: "zhar by name", file: "x.ZHAR", content: harDoc, want: "har"},
		{name: "har by content", file: "x.json", content: "  \n{ \"log\": {}, \"request\": 1}", want: "har"},
		{name: "har name under compression", file: "x.har.gz", content: gz(capture), want: "har"},
		{name: "compression extensions come off in one order", file: "x.har.gz.zst", content: capture, want: "jsonl"},
		{name: "parquet by name", file: "x.pq", content: "PAR1", err: "x.pq: not a Parquet file"}, // read as Parquet, too short
		{name: "batch in a .jsonl file", file: "x.jsonl", content: batch, want: "openai-batch"},
		{name: "langfuse document", file: "t.json", content: langfuse, want: "langfuse"},
		{name: "text is no format", file: "notes.txt", content: "not json\nnor this\n",
			err: "notes.txt: not a capture format killswitch reads: not one line of its first 64 KiB is a JSON object"},
		{name: "a JSON line after text is jsonl", file: "x.log", content: "a preamble\n{\"ts\": 1}\n", want: "jsonl"},
		{name: "text named .jsonl is jsonl", file: "notes.jsonl", content: "not json\n", want: "jsonl"},
		{name: "empty is jsonl", file: "e.json", content: "", want: "jsonl"},
		{name: "a document named .jsonl is jsonl", file: "d.jsonl.gz", content: gz(document), want: "jsonl"},
		{name: "one-line document", file: "d.json", content: `{"hello": "world"}` + "\n", want: "jsonl"},
		{name: "unknown document", file: "d.json", content: document,
			err: "d.json: not a capture format killswitch reads: a JSON document with members \"hello\" that is neither HAR, a Langfuse trace, LiteLLM, OTLP (OpenInference included), Vercel AI SDK spans, OpenTelemetry console spans, Phoenix spans, LangSmith runs, Datadog traces, Bedrock invocation logs nor a Batch file (JSONL needs one record per line); --input-format forces one of " + names},
		{name: "forced", file: "d.json", content: document, format: "capture", want: "capture"},
		// A pretty-printed document whose first member is "input" and
		// without "timestamp": refused, not read line by line as a
		// completion log (#27).
		{name: "document with input only", file: "d.json", content: "{\n  \"input\": {\"messages\": []},\n  \"output\": {}\n}\n",
			err: "a JSON document with members \"input\", \"output\" that is neither"},
		{name: "array of unknown objects", file: "d.json", content: "[\n  {\"a\": 1, \"b\": 2}\n]\n",
			err: "a JSON array whose first object has members \"a\", \"b\" that is neither"},
		{name: "pretty completion log with timestamp", file: "d.json", content: "{\n  \"messages\": [],\n  \"timestamp\": 1\n}\n", want: "jsonl"},
		{name: "openinference otlp", file: "t.json", content: oiOTLP, want: "openinference"},
		{name: "plain otlp", file: "t.json", content: `{"resourceSpans": []}`, want: "otel"},
		{name: "vercel spans", file: "v.json", content: vercel, want: "vercel-ai"},
		{name: "otel console output", file: "../../../fixtures/logs/otel-console-spans.json", want: "otel-console"},
		{name: "phoenix spans", file: "../../../fixtures/logs/phoenix-spans.json", want: "phoenix"},
		{name: "langsmith runs", file: "../../../fixtures/logs/langsmith-runs.jsonl", want: "langsmith"},
		{name: "datadog traces", file: "../../../fixtures/logs/datadog-traces.json", want: "datadog"},
		{name: "bedrock s3 delivery", file: "../../../fixtures/logs/bedrock-invocations.jsonl", want: "bedrock"},
		{name: "bedrock logs insights", file: "../../../fixtures/logs/bedrock-insights.json", want: "bedrock"},
		{name: "openinference parquet by columns", file: "../../../fixtures/traces/phoenix-spans.parquet", want: "openinference (parquet)"},
		{name: "openinference parquet forced", file: "../../../fixtures/traces/phoenix-spans.parquet", format: "openinference", want: "openinference (parquet)"},
		{name: "capture parquet", file: "c.parquet", content: captureParquet(), want: "parquet"},
		{name: "capture parquet forced openinference", file: "c.parquet", content: captureParquet(), format: "openinference",
			err: "not an OpenInference span export"},
		{name: "forced auto", file: "d.json", content: capture, format: "auto", want: "jsonl"},
		{name: "forced unknown", file: "d.json", content: capture, format: "bogus",
			err: `d.json: input format "bogus" is not supported (want ` + names + ")"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, tt.file)
			if strings.HasPrefix(tt.file, "../") { // a fixture
				p = tt.file[3:]
			} else if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := ingest.Open(p, ingest.Options{Format: tt.format})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to hold %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Format != tt.want {
				t.Errorf("format = %q, want %q", f.Format, tt.want)
			}
		})
	}
}

// names is what --input-format listed before the registry (cmd/killswitch
// formatNames at commit 24dff76), with the trace exports of #14 (openinference,
// vercel-ai) beside otel, then the log formats of #27.
const names = "auto, jsonl, har, parquet, capture, completion-log, litellm, langfuse, openinference, otel, vercel-ai, otel-console, phoenix, langsmith, datadog, bedrock, openai-batch, anthropic-batch"

func TestFormatNames(t *testing.T) {
	if got := ingest.FormatNames(); got != names {
		t.Errorf("FormatNames() = %q, want %q", got, names)
	}
}

func TestStem(t *testing.T) {
	for path, want := range map[string]string{
		"logs/day1.jsonl.zst": "day1",
		"a/b.HAR":             "b",
		"t.trace.json":        "t.trace",
		"x.parquet.gz":        "x",
		"notes.txt":           "notes.txt", // not a capture extension
		"<stdin>":             "<stdin>",
		"d.json.jsonl":        "d",
	} {
		if got := ingest.Stem(path); got != want {
			t.Errorf("Stem(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestStdin reads standard input, compressed, through Options.Stdin.
func TestStdin(t *testing.T) {
	f, err := ingest.Open("-", ingest.Options{Stdin: strings.NewReader(gz(capture)), PerFile: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Name != "<stdin>" || f.Format != "jsonl" || f.Compression != ingest.CompressionGzip {
		t.Errorf("got %s %s %s", f.Name, f.Format, f.Compression)
	}
	if !f.Scan() || f.Record().Agent != "a@<stdin>" {
		t.Fatalf("first record: %+v", f.Record())
	}
}

// TestSniffersDisjoint checks that no two formats claim the same head on
// every file in fixtures/ and ../shared/captures and on the plain heads
// of TestDetect, so that a new format whose sniffer overlaps another's is
// noticed. (They can overlap: a document whose first member is "log" and
// which holds "request" is claimed by HAR and by JSONL; HAR is registered
// first, see "har by content" above.)
func TestSniffersDisjoint(t *testing.T) {
	all := []ingest.Format{har.Format, logs.Parquet}
	all = append(all, logs.InputFormats...)
	heads := [][]byte{[]byte(capture), []byte(harDoc), []byte(batch), []byte(langfuse), []byte(document), []byte("PAR1")}
	for _, dir := range []string{"../../fixtures", "../../../shared/captures"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err == nil {
				heads = append(heads, b[:min(len(b), ingest.SniffLen)])
			}
			return nil
		})
	}
	for _, h := range heads {
		var claim []string
		for _, f := range all {
			if f.Sniff != nil && f.Sniff(h) {
				claim = append(claim, f.Name)
			}
		}
		if len(claim) > 1 {
			t.Errorf("%q… claimed by %v", h[:min(len(h), 60)], claim)
		}
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	ingest.Register(har.Format)
}
