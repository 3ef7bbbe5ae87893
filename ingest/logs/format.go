package logs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

// InputFormats registers this package's formats with ingest.Open, in the
// order they are listed and sniffed: JSONL (the capture record and
// completion logs, told apart line by line; also the fallback for content
// nothing else claims), the same under the names capture and
// completion-log (when forced), then the log formats. Each sniffer claims
// the heads Detect assigns to its format, so no two of them claim the
// same head (a HAR document may also look like a capture to Detect: HAR
// is registered first).
var InputFormats = []ingest.Format{
	{Name: "jsonl", Extensions: []string{".jsonl", ".ndjson"}, Sniff: sniffJSONL, Fallback: fallbackJSONL, Open: openJSONL},
	{Name: string(FormatCapture), Open: openJSONL},
	{Name: string(FormatCompletionLog), Open: openJSONL},
	logFormat(FormatLiteLLM),
	logFormat(FormatLangfuse),
	{Name: string(FormatOpenInference), Sniff: detected(FormatOpenInference), Open: openOpenInference},
	logFormat(FormatOTel),
	logFormat(FormatVercelAI),
	logFormat(FormatOTelConsole),
	logFormat(FormatPhoenix),
	logFormat(FormatLangSmith),
	logFormat(FormatDatadog),
	logFormat(FormatBedrock),
	{Name: string(FormatOpenAIBatch), Sniff: detected(FormatOpenAIBatch), Open: openBatch},
	{Name: string(FormatAnthropicBatch), Sniff: detected(FormatAnthropicBatch), Open: openBatch},
}

// logFormat is a format NewReader reads, sniffed by Detect.
func logFormat(lf Format) ingest.Format {
	return ingest.Format{Name: string(lf), Sniff: detected(lf), Open: func(f *ingest.File) (ingest.Reader, error) {
		return NewReader(sized(f), f.Name, lf, Options{Agent: f.Options.Agent, MaxValue: f.Options.MaxLine})
	}}
}

// sizedReader is content whose size is known: a document input is read
// whole into a buffer made at that size (see source.decide), or, with ra,
// streamed (see source.scanArray).
type sizedReader struct {
	io.Reader
	size int64
	ra   io.ReaderAt // the file itself, read at offsets; nil when not opened
}

// sized returns f's content with its size and random access to it, so
// that a document input is read in two passes instead of held whole (see
// docstream.go): the input itself when it gives random access
// (ingest.File.At: a regular file, uncompressed); else, when its head is a
// JSON document spread over lines (isDocument), the content spooled to an
// unlinked temporary file, closed with f. Anything else (JSONL, read line
// by line anyway), or when no temporary file can be made, is the content
// as it is.
func sized(f *ingest.File) io.Reader {
	if f.At != nil {
		return sizedReader{Reader: f.Content, size: f.Size, ra: f.At}
	}
	br, ok := f.Content.(interface{ Peek(int) ([]byte, error) })
	if !ok {
		return f.Content
	}
	if head, _ := br.Peek(ingest.SniffLen); !isDocument(head) {
		return f.Content
	}
	fh, err := os.CreateTemp("", "killswitch-*.json")
	if err != nil {
		return f.Content
	}
	os.Remove(fh.Name())
	f.OnClose(func() { fh.Close() })
	n, err := io.Copy(fh, f.Content)
	spooled := io.NewSectionReader(fh, 0, n)
	if err != nil {
		// Read what came, then the error, as the whole-document path
		// would have read the content.
		return io.MultiReader(spooled, failingReader{err})
	}
	return sizedReader{Reader: spooled, size: n, ra: spooled}
}

// failingReader is a reader that fails with err.
type failingReader struct{ err error }

func (e failingReader) Read([]byte) (int, error) { return 0, e.err }

// detected returns a sniffer claiming the heads Detect assigns to lf.
func detected(lf Format) func(head []byte) bool {
	return func(head []byte) bool {
		f, ok := Detect(head)
		return ok && f == lf
	}
}

// sniffJSONL claims capture records and completion logs. A JSON document
// spread over lines (see isDocument) is claimed as a completion log only
// when it has the "timestamp" that reader needs: a pretty-printed
// document whose first member is "input" is more likely a log of some
// other tool, and is left to fallbackJSONL, which refuses it naming its
// members, rather than read as one malformed record.
func sniffJSONL(head []byte) bool {
	f, ok := Detect(head)
	if ok && f == FormatCompletionLog && isDocument(head) {
		_, ts := topKeys(head)["timestamp"]
		return ts
	}
	return ok && (f == FormatCapture || f == FormatCompletionLog)
}

// openJSONL reads capture records and completion logs: JSONL straight
// through ingest.NewJSONL; a JSON document or a top-level array spread
// over lines, never line by line, through newJSONL, which reads each
// document as one record at the line it starts.
func openJSONL(f *ingest.File) (ingest.Reader, error) {
	opt := ingest.JSONLOptions{Agent: f.Options.Agent, MaxLine: f.Options.MaxLine}
	if f.At != nil {
		opt.Size = f.Size
	}
	if br, ok := f.Content.(interface{ Peek(int) ([]byte, error) }); ok {
		if head, _ := br.Peek(ingest.SniffLen); isDocument(head) {
			return newJSONL(sized(f), f.Name, Options{Agent: f.Options.Agent, MaxValue: f.Options.MaxLine}), nil
		}
	}
	return ingest.NewJSONL(f.Content, f.Name, opt), nil
}

// isDocument reports whether head, the start of an input, is a JSON
// document read as one, not line by line: a top-level array (it opens
// with '[' after a byte order mark and blank space; no JSONL line is an
// array, and `jq -cs` writes a whole capture as one array on one line,
// read an item at a time like any document), or a document opening with
// '{' whose first line, complete within head (or head is all there is),
// is not JSON by itself.
func isDocument(head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	if bytes.HasPrefix(t, []byte("[")) {
		return true
	}
	if !bytes.HasPrefix(t, []byte("{")) {
		return false
	}
	first := t
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	} else if len(head) == ingest.SniffLen {
		return false // a first line longer than the peek: JSONL with a big record
	}
	return fastjson.ValidateBytes(bytes.TrimSpace(first)) != nil
}

// Parquet is the Parquet format (pq.Format: its name, extensions and
// magic) reading OpenInference span exports too: a file with the columns
// of a span table (span_kind or attributes.openinference.span.kind, and a
// span id) and no "request" column is read by NewOIParquetReader, unless
// --map renames columns (then it is a capture layout); any other by
// pq.OpenCapture. The decision is made on the file's columns, in its
// footer, which a sniffer of the first bytes cannot see.
var Parquet = ingest.Format{Name: pq.Format.Name, Extensions: pq.Format.Extensions, Sniff: pq.Format.Sniff, Open: openParquet}

func openParquet(f *ingest.File) (ingest.Reader, error) {
	ra, size, err := pq.Access(f)
	if err != nil {
		return nil, err
	}
	if len(f.Options.Map) == 0 {
		if cols, err := pq.TopColumns(ra, size, f.Name); err == nil && IsOpenInferenceParquet(cols) && !slices.Contains(cols, "request") {
			return openOIParquet(f, ra, size)
		}
	}
	return pq.OpenCapture(f, ra, size)
}

func openOIParquet(f *ingest.File, ra io.ReaderAt, size int64) (ingest.Reader, error) {
	r, err := NewOIParquetReader(ra, size, f.Name, Options{Agent: f.Options.Agent, MaxValue: f.Options.MaxLine})
	if err != nil {
		return nil, err
	}
	f.OnClose(func() { r.Close() })
	return r, nil
}

// openOpenInference reads OpenInference spans: a Parquet span table
// (content starting with the Parquet magic) or OTLP JSON, whose
// OpenInference spans the OTLP reader maps (see otel.openInference).
func openOpenInference(f *ingest.File) (ingest.Reader, error) {
	head, _ := f.Content.(interface{ Peek(int) ([]byte, error) }).Peek(4)
	if bytes.Equal(head, []byte("PAR1")) {
		ra, size, err := pq.Access(f)
		if err != nil {
			return nil, err
		}
		return openOIParquet(f, ra, size)
	}
	return NewReader(sized(f), f.Name, FormatOTel, Options{Agent: f.Options.Agent, MaxValue: f.Options.MaxLine})
}

// fallbackJSONL accepts content no other format claims as JSONL (its bad
// lines are then reported one by one) unless it is a JSON document spread
// over lines (isDocument): that is refused in one line naming the
// document's first members, so that the user sees what the file holds.
func fallbackJSONL(head []byte) error {
	if !isDocument(head) {
		if !objectLine(head) {
			return errors.New("not one line of its first 64 KiB is a JSON object (JSONL holds one per line)")
		}
		return nil
	}
	return errors.New(foundDocument(head) + " that is neither HAR, a Langfuse trace, LiteLLM, OTLP (OpenInference included), Vercel AI SDK spans, OpenTelemetry console spans, Phoenix spans, LangSmith runs, Datadog traces, Bedrock invocation logs nor a Batch file (JSONL needs one record per line)")
}

// objectLine reports whether a line of head (the start of an input)
// starts with '{' after blank space, or head holds nothing but blank
// space (an empty input is an empty capture): a file of another extension
// is taken for JSONL only then, not a text file whose every line would be
// malformed.
func objectLine(head []byte) bool {
	head = bytes.TrimPrefix(head, bom)
	if len(bytes.TrimSpace(head)) == 0 {
		return true
	}
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if t := bytes.TrimLeft(line, " \t\r"); len(t) > 0 && t[0] == '{' {
			return true
		}
	}
	return false
}

// foundDocument describes the document head opens: "a JSON document with
// members "input", "output"" (at most 8 names, in document order), or
// "a JSON array of objects with members …" .
func foundDocument(head []byte) string {
	what := "a JSON document"
	if t := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n"); bytes.HasPrefix(t, []byte("[")) {
		what = "a JSON array"
		if t = bytes.TrimLeft(t[1:], " \t\r\n"); !bytes.HasPrefix(t, []byte("{")) {
			return what
		}
		what += " whose first object"
	}
	names := keyOrder(head)
	if len(names) == 0 {
		return what
	}
	more := ""
	if len(names) > 8 {
		names, more = names[:8], ", …"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(clip(n, 40))
	}
	return what + map[bool]string{true: " has members ", false: " with members "}[strings.HasSuffix(what, "object")] + strings.Join(q, ", ") + more
}

// openBatch reads a Batch API input file, joined with the output file
// ingest.Options.BatchOutput names (compressed or not), if any.
func openBatch(f *ingest.File) (ingest.Reader, error) {
	var out io.Reader
	outName := f.Options.BatchOutput
	if outName != "" {
		fh, err := os.Open(outName)
		if err != nil {
			return nil, err
		}
		f.OnClose(func() { fh.Close() })
		dec, _, closeOut, err := ingest.Decompress(fh)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", outName, err)
		}
		f.OnClose(closeOut)
		out = dec
	}
	return NewBatchReader(f.Content, f.Name, out, outName, Options{Agent: f.Options.Agent, MaxValue: f.Options.MaxLine})
}
