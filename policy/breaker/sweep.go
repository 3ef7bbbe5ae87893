package breaker

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// sweepFlags are the breaker's sweep flags.
type sweepFlags struct {
	rates, minSamples, windows, ttls, errorStatus string
	recover                                       time.Duration
}

func newSweep(fs *pflag.FlagSet) policy.Sweeper {
	f := &sweepFlags{}
	fs.StringVar(&f.rates, "error-rates", "0.3,0.5,0.7", "breaker: error rates to try (a list, or start:stop:step)")
	fs.StringVar(&f.minSamples, "min-samples", "5,10,20", "breaker: min_samples values to try")
	fs.StringVar(&f.windows, "error-windows", "1m,5m,15m", "breaker: counter windows to try")
	fs.StringVar(&f.ttls, "counter-ttls", "refresh", "breaker: counter expiries to try (refresh, fixed, sliding)")
	fs.StringVar(&f.errorStatus, "error-status", "4xx,5xx", "breaker: the statuses that count as errors")
	fs.DurationVar(&f.recover, "auto-recover", breaker.DefaultRules.Recover, "breaker: how long it stays open")
	return f
}

// Sweep is `sweep --policy breaker`: one read of the captures, the
// breaker replayed at every setting of the grid.
func (bf *sweepFlags) Sweep(e *policy.Env, o *policy.SweepOptions) error {
	rates, err := sweep.ParseGrid(bf.rates, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return fmt.Errorf("--error-rates: %v", err)
	}
	msf, err := sweep.ParseGrid(bf.minSamples, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return fmt.Errorf("--min-samples: %v", err)
	}
	var ms []int
	for _, v := range msf {
		ms = append(ms, int(v))
	}
	var windows []time.Duration
	for _, s := range strings.Split(bf.windows, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("--error-windows %q: %v", bf.windows, err)
		}
		windows = append(windows, d)
	}
	var ttls []breaker.CounterTTL
	for _, s := range strings.Split(bf.ttls, ",") {
		t, err := breaker.ParseCounterTTL(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("--counter-ttls: %v", err)
		}
		ttls = append(ttls, t)
	}
	base := breaker.NewConfig()
	base.Default.Recover = bf.recover
	if base.Errors, err = breaker.ParseStatusSet(bf.errorStatus); err != nil {
		return err
	}
	for _, r := range rates {
		for _, m := range ms {
			for _, w := range windows {
				if err := (breaker.Rules{Enabled: true, Rate: r, Window: w, MinSamples: m, Recover: bf.recover}).Validate(); err != nil {
					return fmt.Errorf("--policy breaker: %v", err)
				}
			}
		}
	}
	sw, err := breaker.NewSweeper(base, rates, ms, windows, ttls, o.MaxFP)
	if err != nil {
		return fmt.Errorf("--policy breaker: %v", err)
	}
	malformed, err := e.Records(func(rec *ingest.Record) {
		if rec.Control == nil { // operators' controls are not swept
			sw.Step(rec)
		}
	})
	if err != nil {
		return err
	}
	res := sw.Finish()
	if res.Requests == 0 && !o.AllowEmpty {
		return policy.NoRequests(0, malformed, nil)
	}
	return e.Output(func(w io.Writer) error {
		switch o.Format {
		case report.FormatJSON:
			return SweepJSON(w, res)
		case report.FormatCSV:
			return SweepCSV(w, res)
		case report.FormatHTML:
			return SweepHTML(w, res)
		}
		return SweepText(w, res, report.TextOptions{Markdown: o.Format == report.FormatMarkdown, Width: e.Width})
	})
}
