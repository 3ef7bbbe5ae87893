package main

import (
	"encoding/json"
	"fmt"
	"github.com/killswitch/killswitch/analyze/sweep"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/breaker"
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
	case report.FormatTable, report.FormatJSON:
	default:
		return errorf(e, "sweep", "--policy breaker: -f %s is not available (want table or json)", f.format)
	}
	set, err := openAll(e, paths, f.input)
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	defer set.close()
	problem := reportProblem(e, f.strict, f.verbose)
	var col breaker.Collector
	malformed := 0
	for set.src.Scan() {
		rec := set.src.Record()
		if rec.Err != nil || rec.Skip != "" {
			if rec.Err != nil {
				malformed++
			}
			if err := problem(rec, ""); err != nil {
				return errorf(e, "sweep", "%v", err)
			}
			continue
		}
		if rec.Control == nil {
			col.Add(rec)
		}
	}
	if err := set.src.Err(); err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	if len(col.Outcomes) == 0 && !f.allowEmpty {
		return errorf(e, "sweep", "%v", noRequests(0, malformed, nil))
	}
	res, err := breaker.Sweep(col.Outcomes, base, rates, ms, windows, ttls, f.maxFP)
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	err = writeOutput(e, f.output, func(w io.Writer) error {
		if f.format == report.FormatJSON {
			return breakerSweepJSON(w, res)
		}
		return breakerSweepTable(w, res)
	})
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	return exitOK
}

func breakerSweepTable(w io.Writer, r *breaker.SweepResult) error {
	fmt.Fprintf(w, "Circuit breaker sweep — %d settings over %d requests\n", len(r.Settings), r.Requests)
	if !r.Labelled {
		fmt.Fprintln(w, "no request is labelled: trips cannot be judged inside or outside an incident, and nothing is recommended")
	}
	fmt.Fprintln(w)
	tw := &strings.Builder{}
	rows := [][]string{{"RATE", "MIN SAMPLES", "WINDOW", "COUNTERS", "SCOPES TRIPPED", "TRIPS", "REFUSED", "IN INCIDENTS", "OUTSIDE", "UNLABELLED", "CORRELATED"}}
	for i, s := range r.Settings {
		rate := strconv.FormatFloat(s.Rate, 'f', -1, 64)
		if i == r.Recommended {
			rate += " *"
		}
		rows = append(rows, []string{rate, strconv.Itoa(s.MinSamples), s.Window.String(), s.TTL.String(),
			strconv.Itoa(s.ScopesTripped), strconv.Itoa(s.Trips), strconv.Itoa(s.Refused),
			strconv.Itoa(s.Inside), strconv.Itoa(s.Outside), strconv.Itoa(s.Unlabelled), strconv.Itoa(s.InGroups)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		for i, c := range r {
			fmt.Fprintf(tw, "%-*s", widths[i]+2, c)
		}
		io.WriteString(w, strings.TrimRight(tw.String(), " ")+"\n")
		tw.Reset()
	}
	if r.Recommended >= 0 {
		s := r.Settings[r.Recommended]
		fmt.Fprintf(w, "\nrecommended (*): error rate %s, min_samples %d, window %s, %s counters — %d trips in incidents, %d outside (at most %d allowed), %d requests refused; ties go to fewer refusals, then the higher rate\n",
			strconv.FormatFloat(s.Rate, 'f', -1, 64), s.MinSamples, s.Window, s.TTL, s.Inside, s.Outside, r.MaxOutside, s.Refused)
	}
	return nil
}

func breakerSweepJSON(w io.Writer, r *breaker.SweepResult) error {
	type setting struct {
		ErrorRate     float64 `json:"kill_on_error_rate"`
		MinSamples    int     `json:"min_samples"`
		WindowSec     float64 `json:"error_window_seconds"`
		CounterTTL    string  `json:"counter_ttl"`
		ScopesTripped int     `json:"scopes_tripped"`
		Trips         int     `json:"trips"`
		Refused       int     `json:"requests_refused"`
		Inside        int     `json:"trips_in_incidents"`
		Outside       int     `json:"trips_outside_incidents"`
		Unlabelled    int     `json:"trips_unlabelled"`
		InGroups      int     `json:"trips_correlated"`
	}
	out := struct {
		Requests    int       `json:"requests"`
		Labelled    bool      `json:"labelled"`
		Recommended *int      `json:"recommended"`
		Settings    []setting `json:"settings"`
	}{Requests: r.Requests, Labelled: r.Labelled, Settings: []setting{}}
	if r.Recommended >= 0 {
		out.Recommended = &r.Recommended
	}
	for _, s := range r.Settings {
		out.Settings = append(out.Settings, setting{s.Rate, s.MinSamples, s.Window.Seconds(), s.TTL.String(),
			s.ScopesTripped, s.Trips, s.Refused, s.Inside, s.Outside, s.Unlabelled, s.InGroups})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
