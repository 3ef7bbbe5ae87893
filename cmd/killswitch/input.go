package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/spf13/pflag"
	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/har"
	"github.com/killswitch/killswitch/ingest/logs"
	"github.com/killswitch/killswitch/ingest/pq"
)

// inputOptions are the flags that shape how captures are read.
type inputOptions struct {
	format      string // auto, jsonl, har, parquet
	agent       string // explicit agent id for every record
	agentHeader string
	perFile     bool     // qualify agent ids with the file's base name
	batchOutput string   // a Batch API output file to join with the input on custom_id
	mapping     []string // Parquet: field=column renames (--map)
	maxLine     string   // --max-line: the longest JSONL line kept
}

// columnMap parses --map field=column flags.
func (o inputOptions) columnMap() (map[string]string, error) {
	if len(o.mapping) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range o.mapping {
		field, col, ok := strings.Cut(kv, "=")
		if !ok || field == "" || col == "" {
			return nil, fmt.Errorf("--map %q: want field=column", kv)
		}
		m[field] = col
	}
	return m, nil
}

// formatNames lists what --input-format accepts.
func formatNames() string {
	names := []string{"auto", "jsonl", "har", "parquet"}
	for _, f := range logs.Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// perFileReader qualifies each record's agent id with its file's base name
// (agent@file), for captures whose agent ids are not unique across files.
type perFileReader struct {
	ingest.Reader
	suffix string
}

func (p perFileReader) Record() *ingest.Record {
	rec := p.Reader.Record()
	if rec.Err == nil && rec.Skip == "" {
		rec.Agent += p.suffix
	}
	return rec
}

// fileTag is a file's base name without its format and compression
// extensions: "day1" for "logs/day1.jsonl.zst".
func fileTag(path string) string {
	base := filepath.Base(path)
	for {
		ext := filepath.Ext(base)
		switch strings.ToLower(ext) {
		case ".gz", ".zst", ".zstd", ".zlib", ".jsonl", ".ndjson", ".json", ".har", ".zhar", ".parquet", ".pq":
			base = strings.TrimSuffix(base, ext)
			continue
		}
		return base
	}
}

// openedInput is one capture being read.
type openedInput struct {
	name        string
	reader      ingest.Reader
	format      string
	compression string
	close       func()
}

// countingReader counts the bytes read from a file, for progress.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// openInput opens path ("-" is standard input) and returns a record reader
// for its format: named by --input-format, else sniffed from the content
// (Parquet magic, a JSON document whose first member is "log" for HAR,
// else JSONL), compressed or not.
func openInput(e *env, path string, opt inputOptions, read *atomic.Int64) (*openedInput, error) {
	var f io.Reader
	closeFile := func() {}
	name := path
	if path == "-" {
		f, name = e.stdin, "<stdin>"
	} else {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if st, err := fh.Stat(); err == nil && st.IsDir() {
			fh.Close()
			return nil, fmt.Errorf("%s is a directory", path)
		}
		f, closeFile = fh, func() { fh.Close() }
	}
	if read != nil {
		f = countingReader{f, read}
	}
	r, comp, closeDec, err := ingest.Decompress(f)
	if err != nil {
		closeFile()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, ok := r.(peeker); !ok {
		r = bufio.NewReaderSize(r, 1<<16)
	}
	format := opt.format
	if format == "" || format == "auto" {
		format = sniffFormat(path, r)
	}
	in := &openedInput{name: name, format: format, compression: comp.String(), close: func() { closeDec(); closeFile() }}
	switch format {
	case "jsonl", string(logs.FormatCapture), string(logs.FormatCompletionLog):
		maxLine := 0 // ingest.DefaultMaxLine
		if opt.maxLine != "" {
			var err error
			if maxLine, err = parseSize(opt.maxLine); err != nil {
				in.close()
				return nil, fmt.Errorf("--max-line: %v", err)
			}
		}
		in.reader = ingest.NewJSONL(r, name, ingest.JSONLOptions{Agent: opt.agent, MaxLine: maxLine})
	case "har":
		in.reader = har.NewReader(r, name, har.Options{Agent: opt.agent, AgentHeader: opt.agentHeader})
	case string(logs.FormatOpenAIBatch), string(logs.FormatAnthropicBatch):
		var out io.Reader
		outName := ""
		if opt.batchOutput != "" {
			fh, err := os.Open(opt.batchOutput)
			if err != nil {
				in.close()
				return nil, err
			}
			dec, _, closeOut, err := ingest.Decompress(fh)
			if err != nil {
				fh.Close()
				in.close()
				return nil, fmt.Errorf("%s: %w", opt.batchOutput, err)
			}
			prev := in.close
			in.close = func() { closeOut(); fh.Close(); prev() }
			out, outName = dec, opt.batchOutput
		}
		br, err := logs.NewBatchReader(r, name, out, outName, logs.Options{Agent: opt.agent})
		if err != nil {
			in.close()
			return nil, err
		}
		in.reader = br
	case "parquet":
		pr, cleanup, err := openParquet(path, name, r, comp, opt)
		in.close()
		if err != nil {
			return nil, err
		}
		in.reader, in.close = pr, cleanup
	case "unknown":
		in.close()
		return nil, fmt.Errorf("%s: not a capture format killswitch reads: a JSON document that is neither HAR, a Langfuse trace, LiteLLM, OTLP nor a Batch file (JSONL needs one record per line); --input-format forces one of %s", name, formatNames())
	default:
		f, err := logs.ParseFormat(format)
		if err != nil {
			in.close()
			return nil, fmt.Errorf("%s: input format %q is not supported (want %s)", name, format, formatNames())
		}
		lr, err := logs.NewReader(r, name, f, logs.Options{Agent: opt.agent})
		if err != nil {
			in.close()
			return nil, err
		}
		in.reader = lr
	}
	if opt.perFile {
		in.reader = perFileReader{in.reader, "@" + fileTag(name)}
	}
	return in, nil
}

// peeker is what Decompress returns: a buffered reader we can peek into.
type peeker interface {
	Peek(n int) ([]byte, error)
}

func sniffFormat(path string, r io.Reader) string {
	base := strings.ToLower(filepath.Base(path))
	for _, ext := range []string{".gz", ".zst", ".zstd", ".zlib"} {
		base = strings.TrimSuffix(base, ext)
	}
	named := "" // what the extension says, when content does not decide
	switch filepath.Ext(base) {
	case ".har", ".zhar":
		return "har"
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		named = "jsonl"
	}
	p, ok := r.(peeker)
	if !ok {
		return "jsonl"
	}
	// 64 KiB: a large value before the deciding key (a Langfuse trace's
	// input before its observations) must not hide it.
	head, _ := p.Peek(1 << 16)
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return "parquet"
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(t, []byte("{")) {
		t2 := bytes.TrimLeft(t[1:], " \t\r\n")
		if bytes.HasPrefix(t2, []byte(`"log"`)) {
			return "har"
		}
	}
	if f, ok := logs.Detect(head); ok {
		switch f {
		case logs.FormatCapture, logs.FormatCompletionLog:
			return "jsonl"
		}
		return string(f)
	}
	// Undetected: JSONL (bad lines are then reported one by one), unless
	// the file is not named .jsonl and is a JSON document spread over
	// lines, which is none of the formats we read.
	if named != "" || (!bytes.HasPrefix(t, []byte("{")) && !bytes.HasPrefix(t, []byte("["))) {
		return "jsonl"
	}
	first := t
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	} else if len(head) == 1<<16 {
		return "jsonl" // a first line longer than the peek: JSONL with a big record
	}
	if fastjson.ValidateBytes(first) != nil {
		return "unknown"
	}
	return "jsonl"
}

// openParquet opens a Parquet capture, which needs random access: a plain
// file is read in place; standard input or a compressed file is first
// spooled to a temporary file, removed when the input is closed.
func openParquet(path, name string, r io.Reader, comp ingest.Compression, opt inputOptions) (*pq.Reader, func(), error) {
	m, err := opt.columnMap()
	if err != nil {
		return nil, nil, err
	}
	var f *os.File
	var cleanup func()
	if path != "-" && comp == ingest.CompressionNone {
		if f, err = os.Open(path); err != nil {
			return nil, nil, err
		}
		cleanup = func() { f.Close() }
	} else {
		if f, err = os.CreateTemp("", "killswitch-*.parquet"); err != nil {
			return nil, nil, err
		}
		cleanup = func() { f.Close(); os.Remove(f.Name()) }
		if _, err := io.Copy(f, r); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	st, err := f.Stat()
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	pr, err := pq.NewReader(f, st.Size(), name, pq.Options{Map: m, Agent: opt.agent})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return pr, func() { pr.Close(); cleanup() }, nil
}

// register adds the flags that shape how captures are read.
func (o *inputOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.format, "input-format", "auto", "input format: "+formatNames()+" (auto: by extension and content)")
	fs.StringVar(&o.agent, "agent", "", "agent id for every record (overrides what the capture says)")
	fs.StringVar(&o.agentHeader, "agent-header", "X-Agent-Id", "HAR: request header holding the agent id")
	fs.BoolVar(&o.perFile, "agent-per-file", false, "qualify agent ids with their file's name (agent@file), when ids repeat across unrelated captures")
	fs.StringArrayVar(&o.mapping, "map", nil, "Parquet: read logical field from a differently named column (field=column; repeatable)")
	fs.StringVar(&o.maxLine, "max-line", "64MiB", "JSONL: the longest line kept (a longer one is reported and skipped, so memory stays bounded)")
	fs.StringVar(&o.batchOutput, "batch-output", "", "OpenAI/Anthropic Batch API: the output (results) file to join with the input on custom_id")
}

// inputSet is several captures opened and merged in time order, with the
// counters a progress line shows.
type inputSet struct {
	src     ingest.Reader
	read    atomic.Int64 // bytes read from the files
	records atomic.Int64 // requests replayed (the caller counts)
	total   int64        // bytes in all regular files
	closers []func()
}

// openAll opens every path ("-" is standard input) and merges them.
func openAll(e *env, paths []string, opt inputOptions) (*inputSet, error) {
	set := &inputSet{}
	var readers []ingest.Reader
	// The same file twice would replay every record twice (with the same
	// ids, so writes would dedupe them, but not the timelines): refused.
	var seen []os.FileInfo
	for i, p := range paths {
		if p == "-" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue // opening it reports the error
		}
		for j, s := range seen {
			if s != nil && os.SameFile(fi, s) {
				return nil, fmt.Errorf("%s is the same file as %s: given twice", p, paths[j])
			}
		}
		for len(seen) < i {
			seen = append(seen, nil)
		}
		seen = append(seen, fi)
	}
	for _, p := range paths {
		in, err := openInput(e, p, opt, &set.read)
		if err != nil {
			set.close()
			return nil, err
		}
		set.closers = append(set.closers, in.close)
		if st, err := os.Stat(p); err == nil && p != "-" {
			set.total += st.Size()
		}
		readers = append(readers, in.reader)
	}
	set.src = ingest.Merge(readers...)
	return set, nil
}

func (s *inputSet) close() {
	for _, c := range s.closers {
		c()
	}
}

// progress starts the progress line (only on a terminal); call the result to stop it.
func (s *inputSet) progress(e *env) func() { return startProgress(e, &s.read, &s.records, s.total) }

// reportProblem returns the Hooks.Problem every replaying command uses:
// malformed items and warnings go to standard error with their positions
// as they are met (skipped items only when verbose); strict stops at the
// first malformed item.
func reportProblem(e *env, strict, verbose bool) func(rec *ingest.Record, warn string) error {
	return func(rec *ingest.Record, warn string) error {
		switch {
		case rec.Err != nil:
			fmt.Fprintf(e.stderr, "%v\n", rec.Err)
			if strict {
				return errStrict
			}
		case rec.Skip != "":
			if verbose {
				fmt.Fprintf(e.stderr, "%s: skipped: %s\n", rec.Pos, rec.Skip)
			}
		case warn != "":
			fmt.Fprintf(e.stderr, "%s: warning: %s\n", rec.Pos, warn)
		}
		return nil
	}
}
