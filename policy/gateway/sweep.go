package gateway

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
)

// sweepFlags are the gateway's sweep flags.
type sweepFlags struct {
	maxCosts, maxTokens, rpms, spikeRates, variant string
}

func newSweep(fs *pflag.FlagSet) policy.Sweeper {
	f := &sweepFlags{}
	fs.StringVar(&f.variant, "variant", "m22", variantHelp)
	fs.StringVar(&f.maxCosts, "max-costs", "25,50,100,200", "gateway: max cost per request in cents to try (a list, or start:stop:step)")
	fs.StringVar(&f.maxTokens, "max-tokens", "4000,8000,16000,32000", "gateway: max_tokens limits to try")
	fs.StringVar(&f.rpms, "rpms", "30,60,100,200", "gateway: requests per tenant per minute to try (spec only)")
	fs.StringVar(&f.spikeRates, "spike-rates", "0.3,0.5,0.7", "gateway: failure-spike error rates to try (spec only)")
	return f
}

// Sweep is `sweep --policy gateway`: one read of the captures, the
// gateway replayed at each value of each guardrail number, the others at
// the base (the variant's defaults, or --settings).
func (gf *sweepFlags) Sweep(e *policy.Env, o *policy.SweepOptions) error {
	prof, err := gateway.VariantByName(gf.variant)
	if err != nil {
		return fmt.Errorf("--policy gateway: --variant: %v", err)
	}
	base := gateway.DefaultConfig(prof)
	if err := loadGatewaySettings(&base, o.Settings); err != nil {
		return err
	}
	var grid gateway.SweepGrid
	if grid.MaxCostCents, err = sweep.ParseGrid(gf.maxCosts, numberIn(0, gateway.MaxSetting, false, "cents")); err != nil {
		return fmt.Errorf("--max-costs: %v", err)
	}
	whole := func(s string, lo float64, what string) ([]int64, error) {
		vs, err := sweep.ParseGrid(s, numberIn(lo, gateway.MaxSetting, true, what))
		var out []int64
		for _, v := range vs {
			if v != math.Trunc(v) { // a range's step can leave whole bounds
				return nil, fmt.Errorf("%v is not a whole number", v)
			}
			out = append(out, int64(v))
		}
		return out, err
	}
	if grid.MaxTokens, err = whole(gf.maxTokens, 0, "tokens"); err != nil {
		return fmt.Errorf("--max-tokens: %v", err)
	}
	// Checked under every variant, also where the variant ignores them.
	rpms, err := whole(gf.rpms, 1, "requests per minute")
	if err != nil {
		return fmt.Errorf("--rpms: %v", err)
	}
	for _, v := range rpms {
		grid.RPM = append(grid.RPM, int(v))
	}
	if grid.SpikeRates, err = sweep.ParseGrid(gf.spikeRates, numberIn(0, 1, false, "an error rate")); err != nil {
		return fmt.Errorf("--spike-rates: %v", err)
	}
	sw, err := gateway.NewSweeper(base, grid)
	if err != nil {
		return fmt.Errorf("--policy gateway: %v", err)
	}
	malformed, err := e.Records(sw.Step)
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
		case report.FormatHTML:
			return SweepHTML(w, res)
		}
		return SweepText(w, res, report.TextOptions{Markdown: o.Format == report.FormatMarkdown, Width: e.Width})
	})
}

// numberIn parses a value of a sweep flag: a number from lo to hi (whole
// when whole is set), or an error quoting what was given.
func numberIn(lo, hi float64, whole bool, what string) func(string) (float64, error) {
	return func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(v):
			return 0, fmt.Errorf("%q is not a number", s)
		case err != nil || v < lo || v > hi:
			return 0, fmt.Errorf("%q is out of range: want %s from %s to %s", s, what, fmtBound(lo), fmtBound(hi))
		case whole && v != math.Trunc(v):
			return 0, fmt.Errorf("%q is not a whole number", s)
		}
		return v, nil
	}
}

// fmtBound prints a range's bound: 0, 1, 1e+15.
func fmtBound(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
