package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/report"
)

// gatewaySweepFlags are sweep's flags for --policy gateway.
type gatewaySweepFlags struct {
	maxCosts, maxTokens, rpms, spikeRates, settings string
}

func (f *gatewaySweepFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.maxCosts, "max-costs", "25,50,100,200", "gateway: max cost per request in cents to try (a list, or start:stop:step)")
	fs.StringVar(&f.maxTokens, "max-tokens", "4000,8000,16000,32000", "gateway: max_tokens limits to try")
	fs.StringVar(&f.rpms, "rpms", "30,60,100,200", "gateway: requests per tenant per minute to try (spec only)")
	fs.StringVar(&f.spikeRates, "spike-rates", "0.3,0.5,0.7", "gateway: failure-spike error rates to try (spec only)")
	fs.StringVar(&f.settings, "settings", "", "gateway: the settings file the other numbers come from ({\"gateway\": {…}})")
	markInput(fs, "settings")
}

// runGatewaySweep is `sweep --policy gateway`: one read of the captures,
// the gateway replayed at each value of each guardrail number, the others
// at the base (the profile's defaults, or --settings).
func runGatewaySweep(e *env, f *sweepFlags, gf *gatewaySweepFlags, profileGiven bool, paths []string) int {
	name := "m22"
	if profileGiven {
		name = f.profile
	}
	prof, err := gateway.ProfileByName(name)
	if err != nil {
		return errorf(e, "sweep", "--policy gateway: %v", err)
	}
	base := gateway.DefaultConfig(prof)
	if err := loadGatewaySettings(&base, gf.settings); err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	parse := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	var grid gateway.SweepGrid
	if grid.MaxCostCents, err = sweep.ParseGrid(gf.maxCosts, parse); err != nil {
		return errorf(e, "sweep", "--max-costs: %v", err)
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
		return errorf(e, "sweep", "--max-tokens: %v", err)
	}
	rpms, err := whole(gf.rpms)
	if err != nil {
		return errorf(e, "sweep", "--rpms: %v", err)
	}
	for _, v := range rpms {
		grid.RPM = append(grid.RPM, int(v))
	}
	if grid.SpikeRates, err = sweep.ParseGrid(gf.spikeRates, parse); err != nil {
		return errorf(e, "sweep", "--spike-rates: %v", err)
	}
	switch f.format {
	case report.FormatTable, report.FormatMarkdown, report.FormatJSON:
	default:
		return errorf(e, "sweep", "--policy gateway: -f %s is not available (want table, markdown or json)", f.format)
	}
	sw, err := gateway.NewSweeper(base, grid)
	if err != nil {
		return errorf(e, "sweep", "--policy gateway: %v", err)
	}
	malformed, err := f.eachRecord(e, paths, sw.Step)
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	res := sw.Finish()
	if res.Requests == 0 && !f.allowEmpty {
		return errorf(e, "sweep", "%v", noRequests(0, malformed, nil))
	}
	err = writeOutput(e, f.output, func(w io.Writer) error {
		if f.format == report.FormatJSON {
			return report.GatewaySweepJSON(w, res)
		}
		return report.GatewaySweepText(w, res, report.TextOptions{Markdown: f.format == report.FormatMarkdown, Width: termWidth(e, f.output)})
	})
	if err != nil {
		return errorf(e, "sweep", "%v", err)
	}
	return exitOK
}
