package main

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/ingest"
	_ "github.com/killswitch/killswitch/ingest/formats" // every input format
	"github.com/killswitch/killswitch/internal/units"
	"github.com/killswitch/killswitch/policy"
)

// inputOptions are the flags that shape how captures are read.
type inputOptions struct {
	format      string // auto or a registered format (ingest.FormatNames)
	agent       string // explicit agent id for every record
	agentHeader string
	perFile     bool     // qualify agent ids with the file's base name
	batchOutput string   // a Batch API output file to join with the input on custom_id
	mapping     []string // Parquet: field=column renames (--map)
	maxLine     string   // --max-line: the largest item kept (JSONL line, HAR entry, log item)
}

// openInput opens path ("-" is standard input) through ingest.Open, which
// detects its format; read, when set, counts the bytes read.
func openInput(e *env, path string, opt inputOptions, read *atomic.Int64) (*ingest.File, error) {
	maxLine := 0 // ingest.DefaultMaxLine
	if opt.maxLine != "" {
		var err error
		if maxLine, err = units.ParseSize(opt.maxLine); err != nil {
			return nil, fmt.Errorf("--max-line: %v", err)
		}
	}
	return ingest.Open(path, ingest.Options{
		Format: opt.format, Agent: opt.agent, AgentHeader: opt.agentHeader, PerFile: opt.perFile,
		Map: opt.mapping, BatchOutput: opt.batchOutput, Stdin: e.stdin, Count: read, MaxLine: maxLine,
	})
}

// register adds the flags that shape how captures are read.
func (o *inputOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.format, "input-format", "auto", "input format: "+ingest.FormatNames()+" (auto: by extension and content)")
	fs.StringVar(&o.agent, "agent", "", "agent id for every record (overrides what the capture says)")
	fs.StringVar(&o.agentHeader, "agent-header", "X-Agent-Id", "HAR: request header holding the agent id")
	fs.BoolVar(&o.perFile, "agent-per-file", false, "qualify agent ids with their file's name (agent@file), when ids repeat across unrelated captures")
	fs.StringArrayVar(&o.mapping, "map", nil, "Parquet: read logical field from a differently named column (field=column; repeatable)")
	fs.StringVar(&o.maxLine, "max-line", "64MiB", "the largest item kept: a JSONL line, a HAR entry, one item of a JSON log document (a larger one is reported and skipped, so memory stays bounded)")
	fs.StringVar(&o.batchOutput, "batch-output", "", "OpenAI/Anthropic Batch API: the output (results) file to join with the input on custom_id")
	policy.MarkInput(fs, "batch-output")
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
		set.closers = append(set.closers, in.Close)
		if st, err := os.Stat(p); err == nil && p != "-" {
			set.total += st.Size()
		}
		readers = append(readers, in.Reader)
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
				return policy.ErrStrict
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
