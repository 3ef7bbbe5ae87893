package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

const sweepSummary = `Replays captures once per grid of settings (window sizes × thresholds) and reports, per setting,
the agents killed, the loops caught, caught late or missed, the healthy agents killed (false
positives, named), the requests, tokens and cost refused after kills (saved on loops, lost on
healthy traffic) and the detection delay; then the recommended setting (the most loops caught
with at most --max-false-positives false positives, ties to the higher threshold) and the
precision/recall curve of each window with its area.

Ground truth, in this order: the capture's "label" field ("loop" or "legit" per request); the
--labels file (CSV with a header, or JSONL: agent, optional from/to times, label; the last
matching entry wins); kills the live system made (deactivate records with "by": "kill_switch"),
against which the replay is compared. Agents without any are judged by a heuristic: a kill is a
likely false positive when more than half of the agent's next 10 requests after it (at least 3)
are new: a prompt, tool call or answer unlike any in the window.`

// sweepFlags are the sweep command's flags.
type sweepFlags struct {
	windows, thresholds, profile, profiles, mode, labels, format, output string
	maxFP, late, workers                                                 int
	input                                                                inputOptions
	spill                                                                spillFlags
	reactivateAfter, retryAfter                                          time.Duration
	strict, verbose, allowEmpty, all, wide                               bool
}

func cmdSweep(e *env, args []string) int {
	fs := newFlags(e, "sweep", "[flags] FILE...", sweepSummary)
	var f sweepFlags
	fs.StringVar(&f.windows, "windows", "10,20,40", "window sizes: a list (10,20,40) or start:stop:step")
	fs.StringVar(&f.thresholds, "thresholds", "", "thresholds: start:stop:step (stop included) or a list (8,10,12) (default: the profile's scale: 4:16:0.5 for spec and agentgazer, 1:12:0.5 for progress)")
	fs.StringVar(&f.profile, "profile", "spec", "detector profile: "+analyze.ProfileNames())
	fs.StringVar(&f.profiles, "profiles", "", "compare profiles side by side in one report (spec,progress): each at its defaults and its recommended setting, then each one's sweep")
	fs.StringVar(&f.mode, "mode", "deactivate", "enforcement: deactivate or block (HTTP 429)")
	fs.StringVar(&f.labels, "labels", "", "ground-truth file: CSV or JSONL of agent, optional from/to times, label (loop or legit)")
	fs.IntVar(&f.maxFP, "max-false-positives", 0, "the recommended setting kills at most this many agents outside a loop")
	fs.IntVar(&f.late, "late", sweep.DefaultLateAfter, "a loop caught more than N requests after its start is caught late")
	fs.StringVarP(&f.format, "format", "f", "table", "output: table, json, csv, markdown or html (one self-contained page with charts)")
	fs.StringVarP(&f.output, "output", "o", "", "write the report to this file (atomically) instead of standard output")
	markOutput(fs, "output")
	markInput(fs, "labels")
	f.input.register(fs)
	f.spill.register(fs)
	fs.DurationVar(&f.reactivateAfter, "reactivate-after", 0, "simulate an operator re-activating killed agents after this delay (e.g. 10m)")
	fs.DurationVar(&f.retryAfter, "retry-after", 60*time.Second, "block mode: the retry_after_seconds a refusal announces")
	policy := fs.String("policy", "loop", "the kill switch swept: loop, breaker (--error-rates, --min-samples, --error-windows, --counter-ttls)\n"+
		"or gateway (--profile m22 or spec; --max-costs, --max-tokens, --rpms, --spike-rates, --settings)")
	var bsf breakerSweepFlags
	bsf.register(fs)
	var gsf gatewaySweepFlags
	gsf.register(fs)
	fs.BoolVar(&f.all, "all", false, "table: every setting of the grid (else the recommended one and the settings around it)")
	fs.BoolVar(&f.wide, "wide", false, "table: every column, whatever the terminal's width")
	fs.BoolVar(&f.allowEmpty, "allow-empty", false, "accept input without any LLM request (else exit 2)")
	fs.IntVar(&f.workers, "workers", 0, "parallel feature extraction (0: one per CPU); output is identical at any value")
	fs.BoolVar(&f.strict, "strict", false, "stop at the first malformed input item")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "also report each skipped (non-LLM) input item on standard error")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	if err := guardFiles(fs); err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	if *policy != "gateway" && fs.Changed("settings") {
		// Not silently ignored: the other sweeps take their grid from flags.
		return errorf(e, "sweep", "--settings is read by --policy gateway only: the %s sweep takes its settings from its flags", *policy)
	}
	defer tuneGC(e)()
	switch *policy {
	case "loop":
	case "breaker":
		return runBreakerSweep(e, &f, &bsf, fs.Args())
	case "gateway":
		return runGatewaySweep(e, &f, &gsf, fs.Changed("profile"), fs.Args())
	default:
		return errorf(e, "sweep", "unknown --policy %q (want loop, breaker or gateway)", *policy)
	}
	switch f.format {
	case report.FormatTable, report.FormatJSON, report.FormatCSV, report.FormatMarkdown, report.FormatHTML:
	default:
		return errorf(e, "sweep", "unknown --format %q (want table, json, csv, markdown or html)", f.format)
	}
	if err := checkWorkers(f.workers); err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	profiles, err := f.profileList(fs)
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	if len(profiles) > 1 && slices.Contains(fs.Args(), "-") {
		return errorf(e, "sweep", "--profiles reads the captures once per profile: standard input can be read only once (give a file)")
	}
	spill, spillFile, err := f.spill.spill(e)
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	defer spillFile.Close()
	var results []*sweep.Result
	for i, p := range profiles {
		cfg, err := f.config(p)
		if err != nil {
			return errorf(e, "sweep", "%v", err)
		}
		// Each profile reads the same captures: their problems are
		// reported on the first read only.
		if spillFile != nil {
			if err := spillFile.Reset(); err != nil {
				return errorf(e, "sweep", "%v", err)
			}
		}
		tr, err := f.collect(e, fs.Args(), p, i > 0, spill)
		if err != nil {
			return errorf(e, "sweep", "%v", err)
		}
		if !f.allowEmpty {
			if err := noRequests(tr.Input.Requests, tr.Input.Malformed, tr.Input.Skips); err != nil {
				return errorf(e, "sweep", "%v", err)
			}
		}
		res, err := tr.Sweep(cfg)
		if err != nil {
			return errorf(e, "sweep", "%v", err)
		}
		results = append(results, res)
	}
	res := results[0]
	if len(results) > 1 {
		err = writeCompare(e, &f, sweep.Compare(results))
	} else {
		err = writeSweep(e, &f, res)
	}
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	if n := spillFile.note(); n != "" && f.verbose {
		fmt.Fprintf(e.stderr, "killswitch sweep: %s\n", n)
	}
	for _, w := range res.Input.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", w.Pos, w.Msg)
	}
	reportHiddenWarnings(e, "sweep", res.Input.WarningCounts)
	if res.Input.Malformed > 0 {
		fmt.Fprintf(e.stderr, "killswitch sweep: %d malformed input items skipped (reported above)\n", res.Input.Malformed)
	}
	return exitOK
}

// profileList returns the profiles swept: --profiles, else --profile.
func (f *sweepFlags) profileList(fs *pflag.FlagSet) ([]*analyze.Profile, error) {
	if f.profiles == "" {
		p, err := analyze.ParseProfile(f.profile)
		return []*analyze.Profile{p}, err
	}
	if fs.Changed("profile") {
		return nil, errors.New("--profile and --profiles: give one")
	}
	var out []*analyze.Profile
	for _, name := range strings.Split(f.profiles, ",") {
		p, err := analyze.ParseProfile(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("--profiles: %v", err)
		}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("--profiles: %s given twice", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// writeCompare writes a comparison of profiles in the format asked for.
func writeCompare(e *env, f *sweepFlags, c *sweep.Comparison) error {
	return writeOutput(e, f.output, func(w io.Writer) error {
		switch f.format {
		case report.FormatJSON:
			return report.SweepCompareJSON(w, c)
		case report.FormatCSV:
			return report.SweepCompareCSV(w, c)
		case report.FormatMarkdown:
			return report.SweepCompareMarkdown(w, c)
		case report.FormatHTML:
			return report.SweepCompareHTML(w, c)
		}
		return report.SweepCompareTable(w, c, report.SweepTableOptions{
			TableOptions: report.TableOptions{Width: termWidth(e, f.output), Wide: f.wide}, All: f.all})
	})
}

// writeSweep writes one sweep in the format asked for.
func writeSweep(e *env, f *sweepFlags, res *sweep.Result) error {
	return writeOutput(e, f.output, func(w io.Writer) error {
		switch f.format {
		case report.FormatJSON:
			return report.SweepJSON(w, res)
		case report.FormatCSV:
			return report.SweepCSV(w, res)
		case report.FormatMarkdown:
			return report.SweepMarkdown(w, res)
		case report.FormatHTML:
			return report.SweepHTML(w, res)
		}
		return report.SweepTableOpts(w, res, report.SweepTableOptions{
			TableOptions: report.TableOptions{Width: termWidth(e, f.output), Wide: f.wide}, All: f.all})
	})
}

// config builds the sweep configuration of profile p from the flags.
func (f *sweepFlags) config(p *analyze.Profile) (sweep.Config, error) {
	cfg := sweep.Config{Profile: p, MaxFalsePositives: f.maxFP, LateAfter: f.late, RetryAfter: f.retryAfter,
		ReactivateAfter: f.reactivateAfter, Series: f.format == report.FormatHTML}
	var err error
	if cfg.Mode, err = analyze.ParseMode(f.mode); err != nil {
		return cfg, err
	}
	if cfg.Windows, err = sweep.ParseWindows(f.windows); err != nil {
		return cfg, err
	}
	if p.NoWindow {
		cfg.Windows = []int{p.Defaults.WindowSize}
	}
	thresholds := f.thresholds
	if thresholds == "" {
		thresholds = p.SweepThresholds
	}
	if cfg.Thresholds, err = sweep.ParseThresholds(thresholds); err != nil {
		return cfg, err
	}
	if len(cfg.Windows)*len(cfg.Thresholds) > sweep.MaxGridValues {
		return cfg, fmt.Errorf("%d settings in the grid, more than %d", len(cfg.Windows)*len(cfg.Thresholds), sweep.MaxGridValues)
	}
	for _, w := range cfg.Windows {
		if w > analyze.MaxWindow {
			return cfg, fmt.Errorf("--windows: window size %d above %d", w, analyze.MaxWindow)
		}
	}
	switch {
	case f.maxFP < 0:
		return cfg, fmt.Errorf("--max-false-positives must not be negative")
	case f.late < 0:
		return cfg, fmt.Errorf("--late must not be negative")
	case f.reactivateAfter < 0 || f.retryAfter < 0:
		return cfg, fmt.Errorf("durations must not be negative")
	}
	if f.labels != "" {
		data, err := os.ReadFile(f.labels)
		if err != nil {
			return cfg, err
		}
		if cfg.Labels, err = sweep.ParseLabels(f.labels, data); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// countingRecords counts the records read, for progress.
type countingRecords struct {
	ingest.Reader
	n *atomic.Int64
}

func (c countingRecords) Scan() bool {
	ok := c.Reader.Scan()
	if ok {
		c.n.Add(1)
	}
	return ok
}

// collect opens every path, merges them in time order and reads them once
// for the sweep. Problems go to standard error as they are met.
func (f *sweepFlags) collect(e *env, paths []string, p *analyze.Profile, quiet bool, spill sweep.Spill) (*sweep.Traffic, error) {
	set, err := openAll(e, paths, f.input)
	if err != nil {
		return nil, err
	}
	defer set.close()
	defer set.progress(e)()
	problem := reportProblem(e, f.strict, f.verbose)
	if quiet {
		problem = func(*ingest.Record, string) error { return nil }
	}
	return sweep.Collect(countingRecords{set.src, &set.records}, p, f.workers, problem, spill)
}

// eachRecord reads paths and hands step every record that is neither
// malformed nor skipped, in replay order; the others are reported (and
// end the read under --strict). It returns how many were malformed.
// The policy sweeps step their settings as records come, keeping none.
func (f *sweepFlags) eachRecord(e *env, paths []string, step func(*ingest.Record)) (malformed int, err error) {
	set, err := openAll(e, paths, f.input)
	if err != nil {
		return 0, err
	}
	defer set.close()
	problem := reportProblem(e, f.strict, f.verbose)
	for set.src.Scan() {
		rec := set.src.Record()
		if rec.Err != nil || rec.Skip != "" {
			if rec.Err != nil {
				malformed++
			}
			if err := problem(rec, ""); err != nil {
				return malformed, err
			}
			continue
		}
		step(rec)
	}
	return malformed, set.src.Err()
}
