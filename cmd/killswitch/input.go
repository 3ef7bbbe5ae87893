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

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/har"
)

// inputOptions are the flags that shape how captures are read.
type inputOptions struct {
	format      string // auto, jsonl, har, parquet
	agent       string // explicit agent id for every record
	agentHeader string
	perFile     bool // qualify agent ids with the file's base name
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
	case "jsonl":
		in.reader = ingest.NewJSONL(r, name, ingest.JSONLOptions{Agent: opt.agent})
	case "har":
		in.reader = har.NewReader(r, name, har.Options{Agent: opt.agent, AgentHeader: opt.agentHeader})
	default:
		in.close()
		return nil, fmt.Errorf("%s: input format %q is not supported (want jsonl or har)", name, format)
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
	switch filepath.Ext(base) {
	case ".har", ".zhar":
		return "har"
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		return "jsonl"
	}
	p, ok := r.(peeker)
	if !ok {
		return "jsonl"
	}
	head, _ := p.Peek(4096)
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return "parquet"
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(t, []byte("{")) {
		t = bytes.TrimLeft(t[1:], " \t\r\n")
		if bytes.HasPrefix(t, []byte(`"log"`)) {
			return "har"
		}
	}
	return "jsonl"
}
