package main

import (
	"fmt"
	"sync/atomic"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
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

func cmdSweep(e *env, args []string) int {
	fs := newFlags(e, "sweep", "[flags] FILE...", sweepSummary)
	name := policyFlag(fs, "the kill switch swept")
	format := fs.StringP("format", "f", "table", "output: table, json, csv, markdown or html (one self-contained page with charts)")
	output := fs.StringP("output", "o", "", "write the report to this file (atomically) instead of standard output")
	var o policy.SweepOptions
	fs.StringVar(&o.Settings, "settings", "", "gateway: the settings file the other numbers come from ({\"gateway\": {…}})")
	fs.IntVar(&o.MaxFP, "max-false-positives", 0, "the recommended setting kills at most this many agents outside a loop")
	fs.BoolVar(&o.All, "all", false, "table: every setting of the grid (else the recommended one and the settings around it)")
	fs.BoolVar(&o.Wide, "wide", false, "table: every column, whatever the terminal's width")
	fs.BoolVar(&o.AllowEmpty, "allow-empty", false, "accept input without any LLM request (else exit 2)")
	var rf readFlags
	rf.register(fs)
	policy.MarkOutput(fs, "output")
	policy.MarkInput(fs, "settings")
	sweepers := map[string]policy.Sweeper{}
	policy.RegisterFlags(fs, func(p *policy.Policy) bool {
		if p.Sweep == nil {
			return false
		}
		sweepers[p.Name] = p.Sweep(fs)
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
	if err == nil && p.Sweep == nil {
		err = fmt.Errorf("--policy %s has no sweep", p.Name)
	}
	if err == nil {
		err = policy.GuardFiles(fs)
	}
	if err == nil && !p.SweepReadsSettings && fs.Changed("settings") {
		// Not silently ignored: the other sweeps take their grid from flags.
		var readers []string
		for _, q := range policy.All() {
			if q.SweepReadsSettings {
				readers = append(readers, q.Name)
			}
		}
		err = fmt.Errorf("--settings is read by --policy %s only: the %s sweep takes its settings from its flags", policy.List(readers), p.Name)
	}
	if err == nil {
		err = checkFormat(p, *format, p.SweepFormats)
	}
	if err == nil {
		err = checkWorkers(rf.workers)
	}
	if err == nil {
		err = policy.CheckSettingsFile(o.Settings)
	}
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	defer tuneGC(e)()
	o.Format = *format
	if err := sweepers[p.Name].Sweep(rf.policyEnv(e, "sweep", fs, *output), &o); err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	return exitOK
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

// eachRecord reads paths and hands step every record that is neither
// malformed nor skipped, in replay order; the others are reported (and
// end the read under --strict). It returns how many were malformed.
// The policy sweeps step their settings as records come, keeping none.
func (f *readFlags) eachRecord(e *env, paths []string, step func(*ingest.Record)) (malformed int, err error) {
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
