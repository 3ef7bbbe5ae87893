package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/outfile"
	"github.com/killswitch/killswitch/policy"
	_ "github.com/killswitch/killswitch/policy/all" // every policy
	"github.com/killswitch/killswitch/report"
)

// readFlags are the flags of every command that reads captures.
type readFlags struct {
	input           inputOptions
	workers         int
	strict, verbose bool
}

func (f *readFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.workers, "workers", 0, "parallel feature extraction (0: one per CPU while the input is long enough to share and they run in parallel; see docs/performance.md); output is identical at any value")
	fs.BoolVar(&f.strict, "strict", false, "stop at the first malformed input item")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "also report each skipped (non-LLM) input item on standard error")
	f.input.register(fs)
}

// replayFiles opens every path, merges them in time order and replays them.
// Problems go to standard error as they are met.
func (f *readFlags) replayFiles(e *env, paths []string, cfg analyze.Config, h analyze.Hooks) (*analyze.Summary, error) {
	set, err := openAll(e, paths, f.input)
	if err != nil {
		return nil, err
	}
	defer set.close()
	defer set.progress(e)()
	h.Problem = reportProblem(e, f.strict, f.verbose)
	inner := h.Decision
	h.Decision = func(d *analyze.Decision) error {
		set.records.Add(1)
		if inner != nil {
			return inner(d)
		}
		return nil
	}
	return analyze.Replay(set.src, cfg, f.workers, h)
}

// policyEnv is what cmd hands a policy: the captures of fs, the report's
// destination output, the replay and the reads that report problems as
// this command does.
func (f *readFlags) policyEnv(e *env, cmd string, fs *pflag.FlagSet, output string) *policy.Env {
	paths := fs.Args()
	return &policy.Env{
		Command: cmd, Paths: paths, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Getenv: e.getenv,
		Workers: f.workers, Verbose: f.verbose, Width: termWidth(e, output),
		Replay: func(cfg analyze.Config, h analyze.Hooks) (*analyze.Summary, error) {
			return f.replayFiles(e, paths, cfg, h)
		},
		Records: func(step func(*ingest.Record)) (int, error) { return f.eachRecord(e, paths, step) },
		Open: func() (ingest.Reader, func(), error) {
			set, err := openAll(e, paths, f.input)
			if err != nil {
				return nil, nil, err
			}
			stop := set.progress(e)
			return countingRecords{set.src, &set.records}, func() { stop(); set.close() }, nil
		},
		OpenFiles: func(paths []string) (ingest.Reader, func(), error) {
			set, err := openAll(e, paths, inputOptions{format: "auto", agentHeader: "X-Agent-Id"})
			if err != nil {
				return nil, nil, err
			}
			return set.src, set.close, nil
		},
		Rereadable: rereadable(paths),
		Problem:    reportProblem(e, f.strict, f.verbose),
		Output:     func(fn func(io.Writer) error) error { return writeOutput(e, output, fn) },
		WriteFile: func(path string, fn func(io.Writer) error) error {
			if path == "-" { // --writes -: the report went to -o FILE
				return writeOutput(e, "-", fn)
			}
			return outfile.Write(path, fn)
		},
		Summarize: func(counts []analyze.WarningCount, malformed int) {
			reportHiddenWarnings(e, cmd, counts)
			reportMalformed(e, cmd, malformed)
		},
	}
}

// policyFlag adds --policy, its help listing the registered policies.
func policyFlag(fs *pflag.FlagSet, what string) *string {
	var parts []string
	for _, p := range policy.All() {
		parts = append(parts, p.Name+" ("+p.Help+")")
	}
	return fs.String("policy", policy.Default().Name, what+": "+policy.List(parts))
}

// lookupPolicy returns the policy --policy names, after refusing the
// flags of the other policies that were given.
func lookupPolicy(fs *pflag.FlagSet, name string) (*policy.Policy, error) {
	p := policy.Lookup(name)
	if p == nil {
		return nil, policy.Unknown(name)
	}
	return p, policy.CheckFlags(fs, p)
}

// checkFormat refuses a format the policy does not render.
func checkFormat(p *policy.Policy, format string, offered []string) error {
	if slices.Contains(offered, format) {
		return nil
	}
	known := false
	for _, q := range policy.All() {
		known = known || slices.Contains(q.ReplayFormats, format) || slices.Contains(q.SweepFormats, format)
	}
	if !known {
		return fmt.Errorf("unknown --format %q (want %s)", format, policy.List(offered))
	}
	return fmt.Errorf("--policy %s: -f %s is not available (want %s)", p.Name, format, policy.List(offered))
}

func cmdReplay(e *env, args []string) int {
	fs := newFlags(e, "replay", "[flags] FILE...",
		"Replays captures (JSONL, HAR, Parquet, LiteLLM, Langfuse, OTLP or Batch files; gzip/zstd compressed\n"+
			"or not; - for standard input) in time order through the kill switch and prints what it would have\n"+
			"done: per-agent deactivation timelines (table, json, csv, markdown, html) or the per-request\n"+
			"decision records (jsonl, SPEC §5). --writes/--apply add the state writes the live system would\n"+
			"have made.")
	name := policyFlag(fs, "the kill switch replayed")
	format := fs.StringP("format", "f", "table", "output: table, json, jsonl (decision records), csv, markdown or html")
	output := fs.StringP("output", "o", "", "write the report to this file (atomically) instead of standard output")
	var o policy.ReplayOptions
	fs.StringVar(&o.Settings, "settings", "", "the settings file (JSON; docs/settings.md): the loop detector's {\"default\": {…}, \"agents\": {ID: {…}}},\n"+
		"the breaker's {\"breaker\": {…}, \"agents\": {ID: {\"breaker\": {…}}}}, the gateway's {\"gateway\": {…}}")
	fs.StringVar(&o.Writes, "writes", "", "also write the state writes the live system would have made to `FILE`: loop: .jsonl (one JSON object\n"+
		"per write) or .sql (a SQLite script: one transaction, idempotent); breaker: .redis (redis-cli < FILE) or .jsonl\n"+
		"(every Redis command at its capture time); gateway: .sql (PostgreSQL); - writes the script form to standard output\n"+
		"(for sqlite3, redis-cli or psql) when -o takes the report elsewhere")
	fs.StringVar(&o.Apply, "apply", "", "also apply the state writes: loop: sqlite:PATH (created if absent; one transaction, idempotent);\n"+
		"breaker: redis://HOST:PORT/DB or unix:///PATH; gateway: postgres://…")
	failOnKill := fs.Bool("fail-on-kill", false, "exit 1 when any agent would have been killed or blocked")
	fs.BoolVar(&o.Wide, "wide", false, "table: every column, whatever the terminal's width (else a table wider than the terminal, or than 100 columns when not a terminal, shows the columns that matter)")
	fs.BoolVar(&o.All, "all", false, fmt.Sprintf("table, markdown, html: every row, streamed in table and markdown (else more than %d rows show the agents that matter most: killed first, then by score and cost)", report.MaxRows))
	fs.BoolVar(&o.AllowEmpty, "allow-empty", false, "accept input without any LLM request (else exit 2: a corrupt or wrong file must not pass a nightly job)")
	var rf readFlags
	rf.register(fs)
	policy.MarkInput(fs, "settings")
	policy.MarkOutput(fs, "output", "writes")
	policy.MarkOutputDSN(fs, "apply", "sqlite:")
	replayers := map[string]policy.Replayer{}
	policy.RegisterFlags(fs, func(p *policy.Policy) bool {
		replayers[p.Name] = p.Replay(fs)
		return true
	})
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	p, err := lookupPolicy(fs, *name)
	if err == nil {
		err = checkFormat(p, *format, p.ReplayFormats)
	}
	if err == nil {
		err = policy.GuardFiles(fs)
	}
	if err == nil {
		err = checkWorkers(rf.workers)
	}
	if err == nil {
		// Every policy's part of the file, not only the one that runs.
		err = policy.CheckSettingsFile(o.Settings)
	}
	if err == nil && o.Writes == "-" && (*output == "" || *output == "-") {
		err = errors.New("--writes -: standard output carries the report: give -o FILE (or -o /dev/null) to pipe the state writes")
	}
	if err != nil {
		return errorf(e, "replay", "%v", err)
	}
	defer tuneGC(e)()
	o.Format = *format
	pe := rf.policyEnv(e, "replay", fs, *output)
	out, err := replayers[p.Name].Replay(pe, &o)
	if err != nil {
		return errorf(e, "replay", "%v", err)
	}
	reportHiddenWarnings(e, "replay", out.Summary.WarningCounts)
	for _, n := range out.Notes {
		fmt.Fprintln(e.stderr, strings.TrimRight(n, "\n"))
	}
	reportMalformed(e, "replay", out.Summary.Malformed)
	if *failOnKill && out.Found {
		return exitFound
	}
	return exitOK
}
