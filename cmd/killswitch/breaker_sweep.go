package main

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// breakerSweepFlags are sweep's flags for --policy breaker.
type breakerSweepFlags struct {
	rates, minSamples, windows, ttls, errorStatus string
	recover                                       time.Duration
}

func (f *breakerSweepFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.rates, "error-rates", "0.3,0.5,0.7", "breaker: error rates to try (a list, or start:stop:step)")
	fs.StringVar(&f.minSamples, "min-samples", "5,10,20", "breaker: min_samples values to try")
	fs.StringVar(&f.windows, "error-windows", "1m,5m,15m", "breaker: counter windows to try")
	fs.StringVar(&f.ttls, "counter-ttls", "refresh", "breaker: counter expiries to try (refresh, fixed, sliding)")
	fs.StringVar(&f.errorStatus, "error-status", "4xx,5xx", "breaker: the statuses that count as errors")
	fs.DurationVar(&f.recover, "auto-recover", breaker.DefaultRules.Recover, "breaker: how long it stays open")
}

// runBreakerSweep is `sweep --policy breaker`: one read of the captures,
// the breaker replayed at every setting of the grid.
func runBreakerSweep(e *env, f *sweepFlags, bf *breakerSweepFlags, paths []string) int {
	rates, err := sweep.ParseGrid(bf.rates, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return errorf(e, "sweep", "--error-rates: %v", err)
	}
	msf, err := sweep.ParseGrid(bf.minSamples, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return errorf(e, "sweep", "--min-samples: %v", err)
	}
	var ms []int
	for _, v := range msf {
		ms = append(ms, int(v))
	}
	var windows []time.Duration
	for _, s := range strings.Split(bf.windows, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return errorf(e, "sweep", "--error-windows %q: %v", bf.windows, err)
		}
		windows = append(windows, d)
	}
	var ttls []breaker.CounterTTL
	for _, s := range strings.Split(bf.ttls, ",") {
		t, err := breaker.ParseCounterTTL(strings.TrimSpace(s))
		if err != nil {
			return errorf(e, "sweep", "--counter-ttls: %v", err)
		}
		ttls = append(ttls, t)
	}
	base := breaker.NewConfig()
	base.Default.Recover = bf.recover
	if base.Errors, err = breaker.ParseStatusSet(bf.errorStatus); err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	for _, r := range rates {
		for _, m := range ms {
			for _, w := range windows {
				if err := (breaker.Rules{Enabled: true, Rate: r, Window: w, MinSamples: m, Recover: bf.recover}).Validate(); err != nil {
					return errorf(e, "sweep", "--policy breaker: %v", err)
				}
			}
		}
	}
	switch f.format {
	case report.FormatTable, report.FormatMarkdown, report.FormatJSON, report.FormatCSV, report.FormatHTML:
	default:
		return errorf(e, "sweep", "--policy breaker: -f %s is not available (want table, markdown, json, csv or html)", f.format)
	}
	sw, err := breaker.NewSweeper(base, rates, ms, windows, ttls, f.maxFP)
	if err != nil {
		return errorf(e, "sweep", "--policy breaker: %v", err)
	}
	malformed, err := f.eachRecord(e, paths, func(rec *ingest.Record) {
		if rec.Control == nil { // operators' controls are not swept
			sw.Step(rec)
		}
	})
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	res := sw.Finish()
	if res.Requests == 0 && !f.allowEmpty {
		return errorf(e, "sweep", "%v", noRequests(0, malformed, nil))
	}
	err = writeOutput(e, f.output, func(w io.Writer) error {
		switch f.format {
		case report.FormatJSON:
			return report.BreakerSweepJSON(w, res)
		case report.FormatCSV:
			return report.BreakerSweepCSV(w, res)
		case report.FormatHTML:
			return report.BreakerSweepHTML(w, res)
		}
		return report.BreakerSweepText(w, res, report.TextOptions{Markdown: f.format == report.FormatMarkdown, Width: termWidth(e, f.output)})
	})
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	return exitOK
}
