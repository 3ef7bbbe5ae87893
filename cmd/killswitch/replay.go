package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// replayFlags are the flags every command that replays shares.
type replayFlags struct {
	profile, mode, settings string
	window                  int
	threshold               float64
	disabled                bool
	input                   inputOptions
	workers                 int
	strict, verbose         bool
	reactivateAfter         time.Duration
	retryAfter              time.Duration
	fs                      *pflag.FlagSet
}

func (f *replayFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.profile, "profile", "spec", "detector profile: "+analyze.ProfileNames()+analyze.ProfileHelp())
	fs.IntVar(&f.window, "window", analyze.DefaultSettings.WindowSize, "sliding window size N (per agent)")
	fs.Float64Var(&f.threshold, "threshold", 0, "kill when the score passes this threshold (default: the profile's: 10 for spec and agentgazer, 4 for progress, 1 for gemini-cli, openhands and openclaw, 3 for roo, 5 for cline)")
	fs.StringVar(&f.mode, "mode", "deactivate", "enforcement: deactivate (kill the agent) or block (HTTP 429, agent stays active)")
	fs.StringVar(&f.settings, "settings", "", "per-agent kill-switch settings file (JSON: {\"default\": {…}, \"agents\": {ID: {…}}})")
	fs.BoolVar(&f.disabled, "disabled", false, "start every agent with the kill switch disabled (the live default); settings and config records enable it")
	markInput(fs, "settings")
	f.input.register(fs)
	fs.DurationVar(&f.reactivateAfter, "reactivate-after", 0, "simulate an operator re-activating killed agents after this delay (e.g. 10m)")
	fs.DurationVar(&f.retryAfter, "retry-after", 60*time.Second, "block mode: the retry_after_seconds a refusal announces")
	fs.IntVar(&f.workers, "workers", 0, "parallel feature extraction (0: one per CPU); output is identical at any value")
	fs.BoolVar(&f.strict, "strict", false, "stop at the first malformed input item")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "also report each skipped (non-LLM) input item on standard error")
}

// config builds the analysis configuration from the flags.
func (f *replayFlags) config() (analyze.Config, error) {
	cfg := analyze.NewConfig()
	var err error
	if cfg.Profile, err = analyze.ParseProfile(f.profile); err != nil {
		return cfg, err
	}
	// A profile's own defaults (progress: threshold 4) apply unless a flag
	// or the settings file says otherwise.
	cfg.Default = cfg.Profile.Defaults
	if cfg.Mode, err = analyze.ParseMode(f.mode); err != nil {
		return cfg, err
	}
	if f.disabled {
		cfg.Default.Enabled = false
	}
	var flagPatch ingest.KillSwitchPatch
	if f.fs.Changed("window") {
		flagPatch.WindowSize = &f.window
	}
	if f.fs.Changed("threshold") {
		flagPatch.Threshold = &f.threshold
	}
	var fileDef ingest.KillSwitchPatch
	var agents map[string]ingest.KillSwitchPatch
	if f.settings != "" {
		if fileDef, agents, err = loadSettings(f.settings); err != nil {
			return cfg, err
		}
	}
	if err := applySettings(&cfg, fileDef, flagPatch, agents); err != nil {
		return cfg, err
	}
	if err := checkWorkers(f.workers); err != nil {
		return cfg, err
	}
	if f.reactivateAfter < 0 || f.retryAfter < 0 {
		return cfg, errors.New("durations must not be negative")
	}
	cfg.ReactivateAfter, cfg.RetryAfter = f.reactivateAfter, f.retryAfter
	return cfg, nil
}

var errStrict = errors.New("stopped at the first malformed input item (--strict)")

// replayFiles opens every path, merges them in time order and replays them.
// Problems go to standard error as they are met.
func (f *replayFlags) replayFiles(e *env, cmd string, paths []string, cfg analyze.Config, h analyze.Hooks) (*analyze.Summary, error) {
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

func cmdReplay(e *env, args []string) int {
	fs := newFlags(e, "replay", "[flags] FILE...",
		"Replays captures (JSONL, HAR, Parquet, LiteLLM, Langfuse, OTLP or Batch files; gzip/zstd compressed\n"+
			"or not; - for standard input) in time order through the kill switch and prints what it would have\n"+
			"done: per-agent deactivation timelines (table, json, csv, markdown, html) or the per-request\n"+
			"decision records (jsonl, SPEC §5). --writes/--apply add the state writes the live system would\n"+
			"have made.")
	var rf replayFlags
	rf.register(fs)
	format := fs.StringP("format", "f", "table", "output: table, json, jsonl (decision records), csv, markdown or html")
	output := fs.StringP("output", "o", "", "write the report to this file (atomically) instead of standard output")
	markOutput(fs, "output")
	failOnKill := fs.Bool("fail-on-kill", false, "exit 1 when any agent would have been killed or blocked")
	policy := fs.String("policy", "loop", "the kill switch replayed: loop (the loop detector), breaker (the error-rate circuit breaker\n"+
		"per tenant/agent/workflow; -f jsonl, table or markdown) or gateway (tenant/key freezes and M22's guardrail\n"+
		"pack; --profile m22 (default) or spec; -f jsonl, table or markdown; --writes FILE.sql, --apply postgres://…)")
	var bf breakerFlags
	bf.register(fs)
	wide := fs.Bool("wide", false, "table: every column, whatever the terminal's width (else a table wider than the terminal, or than 100 columns when not a terminal, shows the columns that matter)")
	all := fs.Bool("all", false, fmt.Sprintf("table, markdown, html: every row, streamed in table and markdown (else more than %d rows show the agents that matter most: killed first, then by score and cost)", report.MaxRows))
	allowEmpty := fs.Bool("allow-empty", false, "accept input without any LLM request (else exit 2: a corrupt or wrong file must not pass a nightly job)")
	var sf stateFlags
	sf.register(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	switch *format {
	case report.FormatTable, report.FormatJSON, report.FormatJSONL, report.FormatCSV, report.FormatMarkdown, report.FormatHTML:
	default:
		return errorf(e, "replay", "unknown --format %q (want table, json, jsonl, csv, markdown or html)", *format)
	}
	if err := guardFiles(fs); err != nil {
		return errorf(e, "replay", "%v", err)
	}
	defer tuneGC(e)()
	switch *policy {
	case "loop":
	case "breaker":
		if err := checkWorkers(rf.workers); err != nil {
			return errorf(e, "replay", "%v", err)
		}
		return runBreaker(e, &rf, &bf, breakerOut{format: *format, output: *output, writes: sf.writes, apply: sf.apply,
			failOnKill: *failOnKill, allowEmpty: *allowEmpty}, fs.Args())
	case "gateway":
		if err := checkWorkers(rf.workers); err != nil {
			return errorf(e, "replay", "%v", err)
		}
		g := gatewayRun{rf: &rf, profileGiven: fs.Changed("profile"), format: *format, output: *output,
			writes: sf.writes, apply: sf.apply, failOnKill: *failOnKill, allowEmpty: *allowEmpty}
		return g.run(e, fs.Args())
	default:
		return errorf(e, "replay", "unknown --policy %q (want loop, breaker or gateway)", *policy)
	}
	cfg, err := rf.config()
	if err != nil {
		return errorf(e, "replay", "%v", err)
	}
	st, err := sf.open(cfg)
	if err != nil {
		return errorf(e, "replay", "%v", err)
	}
	var sum *analyze.Summary
	var noText textless
	err = writeOutput(e, *output, func(w io.Writer) error {
		var h analyze.Hooks
		var dw *report.DecisionWriter
		if *format == report.FormatJSONL {
			dw = report.NewDecisionWriter(w)
			h.Decision = dw.Write
		}
		var col *analyze.SeriesCollector
		var spill *seriesSpill
		twoPass := *format == report.FormatHTML && rereadable(fs.Args())
		if *format == report.FormatHTML && !twoPass {
			var err error
			if spill, err = newSeriesSpill(); err != nil {
				return err
			}
			defer spill.close()
			h = spill.hooks(h)
		}
		h = noText.hooks(st.hooks(h))
		var err error
		if sum, err = rf.replayFiles(e, "replay", fs.Args(), cfg, h); err != nil {
			return err
		}
		if !*allowEmpty {
			if err := noRequests(sum.Totals.Requests, sum.Malformed, sum.Skips); err != nil {
				return err
			}
		}
		switch *format {
		case report.FormatJSONL:
			return dw.Flush()
		case report.FormatTable:
			return report.TimelineTableOpts(w, sum, report.TableOptions{Width: termWidth(e, *output), Wide: *wide, All: *all})
		case report.FormatJSON:
			return report.TimelineJSON(w, sum)
		case report.FormatCSV:
			return report.TimelineCSV(w, sum)
		case report.FormatMarkdown:
			return report.TimelineMarkdownOpts(w, sum, report.TableOptions{All: *all})
		case report.FormatHTML:
			if twoPass {
				col, err = rf.chartSeries(e, fs.Args(), cfg, sum)
			} else {
				col, err = spill.collect(sum)
			}
			if err != nil {
				return err
			}
			return report.TimelineHTML(w, sum, col.Series, report.TableOptions{All: *all})
		}
		return nil
	})
	err = st.finish(err)
	if err != nil {
		return errorf(e, "replay", "%v", err)
	}
	reportHiddenWarnings(e, "replay", sum.WarningCounts)
	noText.report(e, "replay")
	if sum.Malformed > 0 {
		fmt.Fprintf(e.stderr, "killswitch replay: %d malformed input items skipped (reported above)\n", sum.Malformed)
	}
	if *failOnKill && (sum.Totals.Kills > 0 || sum.Totals.Blocks > 0) {
		return exitFound
	}
	return exitOK
}
