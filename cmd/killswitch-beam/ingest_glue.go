package main

// ingest_glue.go opens captures through Beam's filesystems and hands the
// stream to ingest's format registry, as cmd/killswitch/input.go hands it
// a path: one detection of formats for both.

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/killswitch/killswitch/ingest"
	_ "github.com/killswitch/killswitch/ingest/formats" // every input format, as killswitch replay reads them
)

// openCapture opens path through Beam's filesystems (local, gs://, s3://)
// and returns a record reader for its format, detected by the format
// registry exactly as `killswitch replay` detects it (ingest.OpenReader:
// the same sniffing and decompression; Parquet, which needs random
// access, is spooled to a temporary file), and a function that closes it.
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
	f, err := ingest.OpenReader(path, rc, ingest.Options{Format: "auto", AgentHeader: "X-Agent-Id"})
	if err != nil {
		rc.Close()
		fs.Close()
		return nil, nil, err
	}
	return f.Reader, func() { f.Close(); rc.Close(); fs.Close() }, nil
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
