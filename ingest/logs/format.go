package logs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
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
	logFormat(FormatOTel),
	{Name: string(FormatOpenAIBatch), Sniff: detected(FormatOpenAIBatch), Open: openBatch},
	{Name: string(FormatAnthropicBatch), Sniff: detected(FormatAnthropicBatch), Open: openBatch},
}

// logFormat is a format NewReader reads, sniffed by Detect.
func logFormat(lf Format) ingest.Format {
	return ingest.Format{Name: string(lf), Sniff: detected(lf), Open: func(f *ingest.File) (ingest.Reader, error) {
		return NewReader(f.Content, f.Name, lf, Options{Agent: f.Options.Agent})
	}}
}

// detected returns a sniffer claiming the heads Detect assigns to lf.
func detected(lf Format) func(head []byte) bool {
	return func(head []byte) bool {
		f, ok := Detect(head)
		return ok && f == lf
	}
}

func sniffJSONL(head []byte) bool {
	f, ok := Detect(head)
	return ok && (f == FormatCapture || f == FormatCompletionLog)
}

func openJSONL(f *ingest.File) (ingest.Reader, error) {
	return ingest.NewJSONL(f.Content, f.Name, ingest.JSONLOptions{Agent: f.Options.Agent, MaxLine: f.Options.MaxLine}), nil
}

// errDocument is why content no format claims is not read as JSONL.
var errDocument = errors.New("a JSON document that is neither HAR, a Langfuse trace, LiteLLM, OTLP nor a Batch file (JSONL needs one record per line)")

// fallbackJSONL accepts content no other format claims as JSONL (its bad
// lines are then reported one by one) unless it is a JSON document spread
// over lines: content that opens with '{' or '[' and whose first line,
// complete within head, is not JSON.
func fallbackJSONL(head []byte) error {
	t := bytes.TrimLeft(head, " \t\r\n")
	if !bytes.HasPrefix(t, []byte("{")) && !bytes.HasPrefix(t, []byte("[")) {
		return nil
	}
	first := t
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	} else if len(head) == ingest.SniffLen {
		return nil // a first line longer than the peek: JSONL with a big record
	}
	if fastjson.ValidateBytes(first) != nil {
		return errDocument
	}
	return nil
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
	return NewBatchReader(f.Content, f.Name, out, outName, Options{Agent: f.Options.Agent})
}
