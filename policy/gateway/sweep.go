package gateway

import (
	"fmt"
	"io"
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
	parse := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	var grid gateway.SweepGrid
	if grid.MaxCostCents, err = sweep.ParseGrid(gf.maxCosts, parse); err != nil {
		return fmt.Errorf("--max-costs: %v", err)
	}
	whole := func(s string) ([]int64, error) {
		vs, err := sweep.ParseGrid(s, parse)
		var out []int64
		for _, v := range vs {
			if v != float64(int64(v)) {
				return nil, fmt.Errorf("%v is not a whole number", v)
			}
			out = append(out, int64(v))
		}
		return out, err
	}
	if grid.MaxTokens, err = whole(gf.maxTokens); err != nil {
		return fmt.Errorf("--max-tokens: %v", err)
	}
	rpms, err := whole(gf.rpms)
	if err != nil {
		return fmt.Errorf("--rpms: %v", err)
	}
	for _, v := range rpms {
		grid.RPM = append(grid.RPM, int(v))
	}
	if grid.SpikeRates, err = sweep.ParseGrid(gf.spikeRates, parse); err != nil {
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
		if o.Format == report.FormatJSON {
			return SweepJSON(w, res)
		}
		return SweepText(w, res, report.TextOptions{Markdown: o.Format == report.FormatMarkdown, Width: e.Width})
	})
}
