package loop

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// replayFlags are the loop kill switch's replay flags.
type replayFlags struct {
	profile, mode   string
	window          int
	threshold       float64
	disabled        bool
	reactivateAfter time.Duration
	retryAfter      time.Duration
	fs              *pflag.FlagSet
}

func newReplay(fs *pflag.FlagSet) policy.Replayer {
	f := &replayFlags{fs: fs}
	fs.StringVar(&f.profile, "profile", "spec", "detector profile: "+analyze.ProfileNames()+analyze.ProfileHelp())
	fs.IntVar(&f.window, "window", analyze.DefaultSettings.WindowSize, "sliding window size N (per agent)")
	fs.Float64Var(&f.threshold, "threshold", 0, "kill when the score passes this threshold (default: the profile's: 10 for spec and agentgazer, 4 for progress, 1 for gemini-cli, openhands and openclaw, 3 for roo, 5 for cline)")
	fs.StringVar(&f.mode, "mode", "deactivate", "enforcement: deactivate (kill the agent) or block (HTTP 429, agent stays active)")
	fs.BoolVar(&f.disabled, "disabled", false, "start every agent with the kill switch disabled (the live default); settings and config records enable it")
	fs.DurationVar(&f.reactivateAfter, "reactivate-after", 0, "simulate an operator re-activating killed agents after this delay (e.g. 10m)")
	fs.DurationVar(&f.retryAfter, "retry-after", 60*time.Second, "block mode: the retry_after_seconds a refusal announces")
	return f
}

// config builds the analysis configuration from the flags and the
// settings file (settings: "" for none).
func (f *replayFlags) config(settings string) (analyze.Config, error) {
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
	var sf analyze.SettingsFile
	if settings != "" {
		data, err := os.ReadFile(settings)
		if err != nil {
			return cfg, err
		}
		if sf, err = parseSettings(settings, data); err != nil {
			return cfg, err
		}
	}
	if err := sf.Apply(&cfg, flagPatch); err != nil {
		return cfg, err
	}
	if f.reactivateAfter < 0 || f.retryAfter < 0 {
		return cfg, errors.New("durations must not be negative")
	}
	cfg.ReactivateAfter, cfg.RetryAfter = f.reactivateAfter, f.retryAfter
	return cfg, nil
}

// Replay is `replay` of the loop kill switch: per-agent timelines in every
// format, or the decision records streamed as they are made; the state
// writes as they are made.
func (f *replayFlags) Replay(e *policy.Env, o *policy.ReplayOptions) (*policy.Outcome, error) {
	cfg, err := f.config(o.Settings)
	if err != nil {
		return nil, err
	}
	st, err := openWrites(o, cfg, e.Stdout)
	if err != nil {
		return nil, err
	}
	var sum *analyze.Summary
	var noText textless
	err = e.Output(func(w io.Writer) error {
		var h analyze.Hooks
		var dw *report.DecisionWriter
		if o.Format == report.FormatJSONL {
			dw = report.NewDecisionWriter(w)
			h.Decision = dw.Write
		}
		var col *analyze.SeriesCollector
		var spill *seriesSpill
		twoPass := o.Format == report.FormatHTML && e.Rereadable
		if o.Format == report.FormatHTML && !twoPass {
			var err error
			if spill, err = newSeriesSpill(); err != nil {
				return err
			}
			defer spill.close()
			h = spill.hooks(h)
		}
		h = st.hooks(h)
		if !cfg.Profile.NoText {
			h = noText.hooks(h)
		}
		var err error
		if sum, err = e.Replay(cfg, h); err != nil {
			return err
		}
		if !o.AllowEmpty {
			if err := policy.NoRequests(sum.Totals.Requests, sum.Malformed, sum.Skips); err != nil {
				return err
			}
		}
		switch o.Format {
		case report.FormatJSONL:
			return dw.Flush()
		case report.FormatTable:
			return report.TimelineTableOpts(w, sum, report.TableOptions{Width: e.Width, Wide: o.Wide, All: o.All})
		case report.FormatJSON:
			return report.TimelineJSON(w, sum)
		case report.FormatCSV:
			return report.TimelineCSV(w, sum)
		case report.FormatMarkdown:
			return report.TimelineMarkdownOpts(w, sum, report.TableOptions{All: o.All})
		case report.FormatHTML:
			if twoPass {
				col, err = chartSeries(e, cfg, sum)
			} else {
				col, err = spill.collect(sum)
			}
			if err != nil {
				return err
			}
			return report.TimelineHTML(w, sum, col.Series, report.TableOptions{All: o.All})
		}
		return nil
	})
	if err = st.finish(err); err != nil {
		return nil, err
	}
	return &policy.Outcome{Summary: sum, Found: sum.Totals.Kills > 0 || sum.Totals.Blocks > 0, Notes: append(noText.note(e.Command), st.note()...)}, nil
}

// parseSettings reads the loop detector's part of the settings file named
// file, the other policies' keys skipped.
func parseSettings(file string, data []byte) (analyze.SettingsFile, error) {
	others := policy.OtherSettings(name)
	return analyze.ParseSettings(file, data, others.Top, others.Agent)
}
