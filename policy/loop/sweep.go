package loop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// sweepFlags are the loop sweep's flags.
type sweepFlags struct {
	windows, thresholds, profile, profiles, mode, labels string
	late                                                 int
	spill                                                spillFlags
	reactivateAfter, retryAfter                          time.Duration
	fs                                                   *pflag.FlagSet
}

func newSweep(fs *pflag.FlagSet) policy.Sweeper {
	f := &sweepFlags{fs: fs}
	fs.StringVar(&f.windows, "windows", "10,20,40", "window sizes: a list (10,20,40) or start:stop:step")
	fs.StringVar(&f.thresholds, "thresholds", "", "thresholds: start:stop:step (stop included) or a list (8,10,12) (default: the profile's scale: 4:16:0.5 for spec and agentgazer, 1:12:0.5 for progress)")
	fs.StringVar(&f.profile, "profile", "spec", "detector profile: "+analyze.ProfileNames())
	fs.StringVar(&f.profiles, "profiles", "", "compare profiles side by side in one report (spec,progress): each at its defaults and its recommended setting, then each one's sweep")
	fs.StringVar(&f.mode, "mode", "deactivate", "enforcement: deactivate or block (HTTP 429)")
	fs.StringVar(&f.labels, "labels", "", "ground-truth file: CSV or JSONL of agent, optional from/to times, label (loop or legit)")
	fs.IntVar(&f.late, "late", sweep.DefaultLateAfter, "a loop caught more than N requests after its start is caught late")
	policy.MarkInput(fs, "labels")
	f.spill.register(fs)
	fs.DurationVar(&f.reactivateAfter, "reactivate-after", 0, "simulate an operator re-activating killed agents after this delay (e.g. 10m)")
	fs.DurationVar(&f.retryAfter, "retry-after", 60*time.Second, "block mode: the retry_after_seconds a refusal announces")
	return f
}

// Sweep is `sweep` of the loop kill switch: the captures read once, every
// profile's features extracted from that one read, every setting of the
// grid replayed from what was collected.
func (f *sweepFlags) Sweep(e *policy.Env, o *policy.SweepOptions) error {
	profiles, err := f.profileList()
	if err != nil {
		return err
	}
	cfgs, err := f.configs(profiles, o)
	if err != nil {
		return err
	}
	spill, spillFile, err := f.spill.spill(e)
	if err != nil {
		return err
	}
	defer spillFile.Close()
	traffic, err := collect(e, profiles, spill)
	if err != nil {
		return err
	}
	var results []*sweep.Result
	for i, tr := range traffic {
		if !o.AllowEmpty {
			if err := policy.NoRequests(tr.Input.Requests, tr.Input.Malformed, tr.Input.Skips); err != nil {
				return err
			}
		}
		res, err := tr.Sweep(cfgs[i])
		if err != nil {
			return err
		}
		results = append(results, res)
	}
	res := results[0]
	if len(results) > 1 {
		err = writeCompare(e, o, sweep.Compare(results))
	} else {
		err = writeSweep(e, o, res)
	}
	if err != nil {
		return err
	}
	if n := spillFile.note(); n != "" && e.Verbose {
		fmt.Fprintf(e.Stderr, "killswitch sweep: %s\n", n)
	}
	for _, w := range res.Input.Warnings {
		fmt.Fprintf(e.Stderr, "%s: warning: %s\n", w.Pos, w.Msg)
	}
	e.Summarize(res.Input.WarningCounts, res.Input.Malformed)
	return nil
}

// profileList returns the profiles swept: --profiles, else --profile.
func (f *sweepFlags) profileList() ([]*analyze.Profile, error) {
	if f.profiles == "" {
		p, err := analyze.ParseProfile(f.profile)
		return []*analyze.Profile{p}, err
	}
	if f.fs.Changed("profile") {
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
func writeCompare(e *policy.Env, o *policy.SweepOptions, c *sweep.Comparison) error {
	return e.Output(func(w io.Writer) error {
		switch o.Format {
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
			TableOptions: report.TableOptions{Width: e.Width, Wide: o.Wide}, All: o.All})
	})
}

// writeSweep writes one sweep in the format asked for.
func writeSweep(e *policy.Env, o *policy.SweepOptions, res *sweep.Result) error {
	return e.Output(func(w io.Writer) error {
		switch o.Format {
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
			TableOptions: report.TableOptions{Width: e.Width, Wide: o.Wide}, All: o.All})
	})
}

// configs builds the sweep configuration of each profile from the flags.
// The labels file is read once, after the first profile's settings are
// checked, and shared (Labels is read-only).
func (f *sweepFlags) configs(profiles []*analyze.Profile, o *policy.SweepOptions) ([]sweep.Config, error) {
	cfgs := make([]sweep.Config, len(profiles))
	var labels *sweep.Labels
	for i, p := range profiles {
		var err error
		if cfgs[i], err = f.config(p, o); err != nil {
			return nil, err
		}
		if i == 0 {
			if labels, err = f.readLabels(); err != nil {
				return nil, err
			}
		}
		cfgs[i].Labels = labels
	}
	return cfgs, nil
}

// config builds the sweep configuration of profile p from the flags
// (without its labels).
func (f *sweepFlags) config(p *analyze.Profile, o *policy.SweepOptions) (sweep.Config, error) {
	cfg := sweep.Config{Profile: p, MaxFalsePositives: o.MaxFP, LateAfter: f.late, RetryAfter: f.retryAfter,
		ReactivateAfter: f.reactivateAfter, Series: o.Format == report.FormatHTML}
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
	case o.MaxFP < 0:
		return cfg, fmt.Errorf("--max-false-positives must not be negative")
	case f.late < 0:
		return cfg, fmt.Errorf("--late must not be negative")
	case f.reactivateAfter < 0 || f.retryAfter < 0:
		return cfg, fmt.Errorf("durations must not be negative")
	}
	return cfg, nil
}

// readLabels reads the --labels file, once for every profile swept (nil
// without one).
func (f *sweepFlags) readLabels() (*sweep.Labels, error) {
	if f.labels == "" {
		return nil, nil
	}
	data, err := os.ReadFile(f.labels)
	if err != nil {
		return nil, err
	}
	return sweep.ParseLabels(f.labels, data)
}

// collect reads the captures once and collects, from that one read, the
// traffic of every profile, in order. Problems go to standard error as
// they are met (the first profile's: the input's problems are the same
// for every profile).
func collect(e *policy.Env, ps []*analyze.Profile, spill sweep.Spill) ([]*sweep.Traffic, error) {
	src, closer, err := e.Open()
	if err != nil {
		return nil, err
	}
	defer closer()
	return sweep.CollectProfiles(src, ps, e.Workers, e.Problem, spill)
}
