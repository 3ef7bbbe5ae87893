// Package logs reads the LLM call logs users already have — JSON and JSONL
// schemas written by gateways, tracing tools and batch APIs — as
// ingest.Records, so that they replay like a capture.
//
// Formats (see Format): the capture record and per-call completion logs
// (read by ingest.NewJSONL), LiteLLM StandardLoggingPayload and SpendLogs
// rows, Langfuse trace exports, OpenTelemetry GenAI spans in OTLP JSON,
// OpenInference spans (OTLP JSON, or Parquet span tables: see Parquet),
// Vercel AI SDK spans, OpenTelemetry console exporter output, Phoenix span
// JSON, LangSmith runs, Datadog APM traces, Amazon Bedrock model
// invocation logs, and OpenAI /
// Anthropic batch files. Detect sniffs the format from the first
// bytes of an input; NewReader reads one.
//
// # Inputs: lines or documents
//
// Every format is read either as JSONL (one JSON value per line) or as JSON
// documents (a pretty-printed document, several concatenated, or a top-level
// array whose elements are the items). The choice is made once per input:
// when its first non-blank line is a complete JSON value, or longer than
// 64 KiB, the input is JSONL and is streamed line by line; otherwise it is
// read whole as documents (a trace export in a regular file, Vercel AI SDK
// spans or an OTLP document, is read in two passes instead of held whole,
// to the same records: see docstream.go). If the documents do not parse and the input's
// first and last non-blank lines both begin with '{', it is a JSONL file
// with a broken line, and it is read as JSONL so that the other lines
// still count.
//
// # Positions
//
// A record of a JSONL input is at file:LINE; of a document, at the line
// where the document starts. Items inside a document add a JSON path
// (ingest.PosPath): "file:observations[3]" for a single document,
// "file:12:observations[3]" when the input holds several (JSONL of traces),
// "file:[2].observations[3]" in a top-level array.
//
// # What every reader promises
//
// A malformed item is a Record whose Err is an *ingest.SyntaxError at its
// position, and reading goes on; an item that is well-formed but is no LLM
// call (a Langfuse SPAN, an OTel tool span, a canceled batch request) is a
// Record with a Skip reason, so it is counted. Nothing panics. Credentials
// never reach a Record: request bodies are rebuilt from the members that
// make a request, and members named like a credential (authorization,
// api_key, x-api-key, secret, password, …; any member containing "key"
// inside metadata and header objects) are dropped wherever they occur (see
// scrub). Records own their byte slices.
package logs

import (
	"fmt"
	"io"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// Format names an input schema.
type Format string

const (
	// FormatCapture is the capture record of SPEC §3 (read by ingest.NewJSONL).
	FormatCapture Format = "capture"
	// FormatCompletionLog is a per-call completion log with messages,
	// response and timestamp, as the OpenHands SDK writes it (also read by
	// ingest.NewJSONL, which tells the two apart line by line).
	FormatCompletionLog Format = "completion-log"
	// FormatLiteLLM is LiteLLM's StandardLoggingPayload or a SpendLogs row.
	FormatLiteLLM Format = "litellm"
	// FormatLangfuse is a Langfuse trace export: a JSON document per trace.
	FormatLangfuse Format = "langfuse"
	// FormatOTel is OpenTelemetry traces in OTLP JSON with gen_ai.* attributes.
	FormatOTel Format = "otel"
	// FormatOpenInference is OpenInference spans (Arize Phoenix and the
	// OpenInference instrumentations): OTLP JSON with llm.* attributes (read
	// by the OTLP reader), or a Parquet span table (see Parquet).
	FormatOpenInference Format = "openinference"
	// FormatVercelAI is the Vercel AI SDK's telemetry: OpenTelemetry JS
	// ReadableSpan JSON with ai.* attributes.
	FormatVercelAI Format = "vercel-ai"
	// FormatOTelConsole is what OpenTelemetry's ConsoleSpanExporter
	// prints: span objects with flat attributes, one pretty-printed JSON
	// document after the other.
	FormatOTelConsole Format = "otel-console"
	// FormatPhoenix is Arize Phoenix's span JSON (its REST API and
	// phoenix-client): span objects with span_kind and flat OpenInference
	// attributes.
	FormatPhoenix Format = "phoenix"
	// FormatLangSmith is LangSmith runs: exported runs, or the SDK's post
	// and patch payloads merged by run id.
	FormatLangSmith Format = "langsmith"
	// FormatDatadog is Datadog APM traces ([[span, …], …]) with dd-trace's
	// OpenAI integration tags.
	FormatDatadog Format = "datadog"
	// FormatBedrock is Amazon Bedrock model invocation logs: records of
	// schemaType ModelInvocationLog, one per line, in an array, or inside
	// CloudWatch Logs exports and Logs Insights query results.
	FormatBedrock Format = "bedrock"
	// FormatOpenAIBatch is an OpenAI Batch API input (or output) file.
	FormatOpenAIBatch Format = "openai-batch"
	// FormatAnthropicBatch is an Anthropic Message Batches requests (or
	// results) file.
	FormatAnthropicBatch Format = "anthropic-batch"
)

// Formats lists every format, in the order Detect and help texts name them.
var Formats = []Format{
	FormatCapture, FormatCompletionLog, FormatLiteLLM, FormatLangfuse,
	FormatOTel, FormatOpenInference, FormatVercelAI, FormatOTelConsole, FormatPhoenix, FormatLangSmith, FormatDatadog, FormatBedrock,
	FormatOpenAIBatch, FormatAnthropicBatch,
}

// ParseFormat parses a format name as given to --input-format.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown input format %q (want one of %s)", s, strings.Join(names, ", "))
}

// Options configures a reader. The zero value derives every agent id from
// the input, as SPEC §3 orders the sources.
type Options struct {
	// Agent, when set, is the agent id of every record (the mapping flag,
	// first in SPEC §3's order).
	Agent string
	// MaxValue bounds one item in bytes — a JSONL line, an element of a
	// top-level array, a document — as --max-line does (0:
	// ingest.DefaultMaxLine). A longer one is a malformed item, read past
	// without being kept.
	MaxValue int
}

// NewReader reads a whole input of format f (already decompressed: see
// ingest.Decompress) and yields its records; name is the file name records
// use in their positions. Batch formats read requests only: to join their
// results, use NewBatchReader. The error is for an unknown format only;
// everything wrong with the input surfaces through the reader.
func NewReader(r io.Reader, name string, f Format, opt Options) (ingest.Reader, error) {
	switch f {
	case FormatCapture, FormatCompletionLog:
		return newJSONL(r, name, opt), nil
	case FormatLiteLLM:
		s := newSource(r, name, opt.MaxValue)
		c := &litellm{src: s, opt: opt}
		return &reader{src: s, conv: c.convert}, nil
	case FormatLangfuse:
		s := newSource(r, name, opt.MaxValue)
		c := &langfuse{src: s, opt: opt}
		return &reader{src: s, conv: c.convert}, nil
	case FormatOTel, FormatOpenInference:
		s := newSource(r, name, opt.MaxValue)
		c := &otel{src: s, opt: opt}
		return &reader{src: s, conv: c.convert, plan: func() recordStream {
			if st := planOTel(c); st != nil {
				return st
			}
			return nil
		}}, nil
	case FormatVercelAI:
		return &vercelReader{src: newSource(r, name, opt.MaxValue), opt: opt}, nil
	case FormatOTelConsole, FormatPhoenix:
		s := newSource(r, name, opt.MaxValue)
		fr := &flatReader{src: s, opt: opt}
		return streamOrWhole(s, func() *flatStream { return planFlat(fr) }, fr.readAll), nil
	case FormatLangSmith:
		s := newSource(r, name, opt.MaxValue)
		c := &langsmith{src: s, opt: opt}
		return streamOrWhole(s, func() *lsStream { return planLangSmith(c) }, c.readAll), nil
	case FormatDatadog:
		s := newSource(r, name, opt.MaxValue)
		c := &datadog{src: s, opt: opt}
		return &reader{src: s, conv: c.convert}, nil
	case FormatBedrock:
		s := newSource(r, name, opt.MaxValue)
		c := &bedrock{src: s, opt: opt}
		return &reader{src: s, conv: c.convert}, nil
	case FormatOpenAIBatch, FormatAnthropicBatch:
		return NewBatchReader(r, name, nil, "", opt)
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// reader turns the items of a source into records, a few at a time: one
// item (a line, a document) may hold many calls.
type reader struct {
	src   *source
	conv  func(u unit) []*ingest.Record
	queue []*ingest.Record
	cur   *ingest.Record
	err   error
	// plan, when set, is tried first: a stream of the records of a file
	// read in two passes (see docstream.go), or nil to read as usual.
	plan   func() recordStream
	stream recordStream
}

// streamOrWhole is a reader of s that reads the stream plan gives (the
// second pass of an input read in two passes) or, when plan gives nil,
// the records readAll makes on the first Scan (a reader whose items refer
// to items that may come later).
func streamOrWhole[S any, P interface {
	*S
	recordStream
}](s *source, plan func() P, readAll func() []*ingest.Record) *reader {
	return &reader{src: s, plan: func() recordStream {
		if st := plan(); st != nil {
			return st
		}
		return &queueStream{recs: readAll(), err: s.err}
	}}
}

// recordStream yields records one at a time: nil at the end, with the
// error that ended the input early, if any.
type recordStream interface {
	next() (*ingest.Record, error)
}

func (r *reader) Scan() bool {
	if r.plan != nil {
		r.stream, r.plan = r.plan(), nil
	}
	if r.stream != nil {
		r.cur, r.err = r.stream.next()
		return r.cur != nil
	}
	for len(r.queue) == 0 {
		u, ok := r.src.next()
		if !ok {
			r.err = r.src.err
			r.cur = nil
			return false
		}
		if u.err != nil {
			r.queue = append(r.queue[:0], &ingest.Record{Pos: u.err.Pos, Err: u.err})
			continue
		}
		r.queue = r.conv(u)
	}
	r.cur = r.queue[0]
	r.queue[0] = nil
	r.queue = r.queue[1:]
	return true
}

func (r *reader) Record() *ingest.Record { return r.cur }
func (r *reader) Err() error             { return r.src.ioErr(r.err) }

// bad is a malformed item at pos.
func bad(pos ingest.Pos, format string, args ...any) *ingest.Record {
	err := ingest.Errorf(pos, format, args...)
	return &ingest.Record{Pos: pos, Err: err}
}

// unitObject decodes an item that must be a JSON object; else it returns
// the bad record saying what is wrong (what names the item: "a LiteLLM
// log entry").
func unitObject(raw []byte, pos ingest.Pos, what string) (obj, *ingest.Record) {
	v, err := decodeTree(raw)
	if err != nil {
		return nil, bad(pos, "%v", err)
	}
	o, ok := v.(obj)
	if !ok {
		return nil, bad(pos, "%s is a JSON object, got %s", what, kind(v))
	}
	return o, nil
}

// skip is a well-formed item at pos that is no LLM call.
func skip(pos ingest.Pos, reason string) *ingest.Record {
	return &ingest.Record{Pos: pos, Skip: reason}
}
