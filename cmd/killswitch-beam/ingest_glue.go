package main

// ingest_glue.go is the one file that knows how a capture is opened and its
// format sniffed, mirroring cmd/killswitch/input.go: when ingest grows an
// Open registry, this file shrinks to a call to it.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/har"
	"github.com/killswitch/killswitch/ingest/logs"
	"github.com/killswitch/killswitch/ingest/pq"
)

// openCapture opens path through Beam's filesystems (local, gs://, s3://)
// and returns a record reader for its format, sniffed as `killswitch
// replay` sniffs it, and a function that closes it.
func openCapture(ctx context.Context, path string) (ingest.Reader, func(), error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	rc, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	closeFile := func() { rc.Close(); fs.Close() }
	r, _, closeDec, err := ingest.Decompress(rc)
	if err != nil {
		closeFile()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := r.(peeker); !ok {
		r = bufio.NewReaderSize(r, 1<<16)
	}
	done := func() { closeDec(); closeFile() }
	switch format := sniffFormat(path, r); format {
	case "jsonl":
		return ingest.NewJSONL(r, path, ingest.JSONLOptions{}), done, nil
	case "har":
		return har.NewReader(r, path, har.Options{AgentHeader: "X-Agent-Id"}), done, nil
	case "parquet":
		pr, cleanup, err := openParquet(path, r)
		done()
		return pr, cleanup, err
	case string(logs.FormatOpenAIBatch), string(logs.FormatAnthropicBatch):
		br, err := logs.NewBatchReader(r, path, nil, "", logs.Options{})
		if err != nil {
			done()
			return nil, nil, err
		}
		return br, done, nil
	case "unknown":
		done()
		return nil, nil, fmt.Errorf("%s: not a capture format killswitch reads", path)
	default:
		f, err := logs.ParseFormat(format)
		if err == nil {
			var lr ingest.Reader
			if lr, err = logs.NewReader(r, path, f, logs.Options{}); err == nil {
				return lr, done, nil
			}
		}
		done()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
}

type peeker interface {
	Peek(n int) ([]byte, error)
}

// sniffFormat decides a capture's format from its name and first 64 KiB,
// as `killswitch replay --input-format auto` does.
func sniffFormat(path string, r io.Reader) string {
	base := strings.ToLower(filepath.Base(path))
	for _, ext := range []string{".gz", ".zst", ".zstd", ".zlib"} {
		base = strings.TrimSuffix(base, ext)
	}
	named := ""
	switch filepath.Ext(base) {
	case ".har", ".zhar":
		return "har"
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		named = "jsonl"
	}
	head, _ := r.(peeker).Peek(1 << 16)
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return "parquet"
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(t, []byte("{")) && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t\r\n"), []byte(`"log"`)) {
		return "har"
	}
	if f, ok := logs.Detect(head); ok {
		if f == logs.FormatCapture || f == logs.FormatCompletionLog {
			return "jsonl"
		}
		return string(f)
	}
	if named != "" || (!bytes.HasPrefix(t, []byte("{")) && !bytes.HasPrefix(t, []byte("["))) {
		return "jsonl"
	}
	first := t
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	} else if len(head) == 1<<16 {
		return "jsonl"
	}
	if fastjson.ValidateBytes(first) != nil {
		return "unknown"
	}
	return "jsonl"
}

// openParquet spools a Parquet capture to a temporary file (it needs random
// access; the Beam filesystems give a stream), removed when closed.
func openParquet(path string, r io.Reader) (*pq.Reader, func(), error) {
	f, err := os.CreateTemp("", "killswitch-beam-*.parquet")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	n, err := io.Copy(f, r)
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	pr, err := pq.NewReader(f, n, path, pq.Options{})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return pr, func() { pr.Close(); cleanup() }, nil
}

// expandInputs matches each --input glob through Beam's filesystems; files
// keep the order of the flags, each glob's matches sorted (as a shell
// expands them), and a pattern matching nothing is an error.
func expandInputs(ctx context.Context, globs []string) ([]string, error) {
	var out []string
	for _, g := range globs {
		fs, err := filesystem.New(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("--input %s: %w", g, err)
		}
		m, err := fs.List(ctx, g)
		fs.Close()
		if err != nil {
			return nil, fmt.Errorf("--input %s: %w", g, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("--input %s: no such file", g)
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	return out, nil
}
