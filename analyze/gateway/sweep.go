package gateway

import (
	"fmt"
	"math"
	"strconv"

	"github.com/killswitch/killswitch/ingest"
)

// Swept parameters: the guardrail numbers a sweep varies.
const (
	ParamMaxCost   = "max_cost_cents"
	ParamMaxTokens = "max_tokens"
	ParamRPM       = "rpm"
	ParamSpikeRate = "spike_rate"
)

// SweepGrid lists the values to try for each parameter; an empty list is
// not swept. Each value is tried with every other number at the base
// configuration's, one parameter at a time, so that each row says what
// that one number changes.
type SweepGrid struct {
	MaxCostCents []float64
	MaxTokens    []int64
	RPM          []int
	SpikeRates   []float64
}

// SweepSetting is the replay at one value of one parameter.
type SweepSetting struct {
	Param  string  // one of the Param constants; "" for the base
	Value  float64 // the value tried
	IsBase bool    // the value is the base configuration's

	Refused          int
	ByStatus         map[int]int
	ByReason         map[string]int
	CostAvoidedCents float64 // the estimates of the calls refused with a block
	Incidents        int
	// Added are the calls refused here and forwarded at the base; Dropped
	// the calls forwarded here and refused at the base. In capture order.
	Added, Dropped []ingest.Pos
}

// SweepResult is a gateway sweep.
type SweepResult struct {
	Profile  string
	Config   Config // the base
	Requests int
	Base     SweepSetting
	Settings []SweepSetting // by parameter (in SweepGrid's order), then value as given
	// Inert names the swept parameters the profile never refuses on (m22:
	// rpm and spike_rate), which were not replayed.
	Inert []string
}

// Sweep replays recs (requests and control records, in replay order)
// through a fresh gateway at base and at every value of grid, and
// compares each with the base call by call.
func Sweep(base Config, recs []*ingest.Record, grid SweepGrid) (*SweepResult, error) {
	if base.Profile == nil {
		base = DefaultConfig(M22)
	}
	b, refusedAtBase, err := sweepOne(base, recs, nil)
	if err != nil {
		return nil, err
	}
	b.IsBase = true
	res := &SweepResult{Profile: base.Profile.Name, Config: base, Base: b}
	for _, r := range recs {
		if r.Err == nil && r.Skip == "" && r.Control == nil {
			res.Requests++
		}
	}
	type try struct {
		param string
		value float64
		set   func(*Config)
	}
	var tries []try
	for _, v := range grid.MaxCostCents {
		tries = append(tries, try{ParamMaxCost, v, func(c *Config) { c.MaxCostCents = v }})
	}
	for _, v := range grid.MaxTokens {
		tries = append(tries, try{ParamMaxTokens, float64(v), func(c *Config) { c.MaxTokens = v }})
	}
	for _, p := range []struct {
		name  string
		works bool
		n     int
	}{{ParamRPM, base.Profile.rpmWorks, len(grid.RPM)}, {ParamSpikeRate, base.Profile.spikeWorks, len(grid.SpikeRates)}} {
		if p.n > 0 && !p.works {
			res.Inert = append(res.Inert, p.name)
		}
	}
	if base.Profile.rpmWorks {
		for _, v := range grid.RPM {
			tries = append(tries, try{ParamRPM, float64(v), func(c *Config) { c.RPM = v }})
		}
	}
	if base.Profile.spikeWorks {
		for _, v := range grid.SpikeRates {
			tries = append(tries, try{ParamSpikeRate, v, func(c *Config) { c.SpikeRate = v }})
		}
	}
	for _, t := range tries {
		cfg := base
		t.set(&cfg)
		if err := cfg.validateSwept(); err != nil {
			return nil, fmt.Errorf("%s %s: %v", t.param, strconv.FormatFloat(t.value, 'f', -1, 64), err)
		}
		s, _, err := sweepOne(cfg, recs, refusedAtBase)
		if err != nil {
			return nil, err
		}
		s.Param, s.Value = t.param, t.value
		s.IsBase = cfg.MaxCostCents == base.MaxCostCents && cfg.MaxTokens == base.MaxTokens && cfg.RPM == base.RPM && cfg.SpikeRate == base.SpikeRate
		res.Settings = append(res.Settings, s)
	}
	return res, nil
}

// validateSwept checks the numbers a sweep sets.
func (c *Config) validateSwept() error {
	switch {
	case !(c.MaxCostCents >= 0) || math.IsInf(c.MaxCostCents, 0):
		return fmt.Errorf("max cost must be a number ≥ 0")
	case c.MaxTokens < 0:
		return fmt.Errorf("max tokens must be ≥ 0")
	case c.RPM < 1:
		return fmt.Errorf("rpm must be ≥ 1")
	case !(c.SpikeRate >= 0 && c.SpikeRate <= 1):
		return fmt.Errorf("spike rate must lie in 0..1")
	}
	return nil
}

// sweepOne replays recs at cfg. It returns the tally, which requests were
// refused (by request number from 0), and compares with atBase when given.
func sweepOne(cfg Config, recs []*ingest.Record, atBase []bool) (SweepSetting, []bool, error) {
	g, err := New(cfg)
	if err != nil {
		return SweepSetting{}, nil, err
	}
	s := SweepSetting{ByStatus: map[int]int{}, ByReason: map[string]int{}}
	var refused []bool
	for _, r := range recs {
		d, ok := g.Step(r)
		if !ok {
			continue
		}
		i := len(refused)
		ref := d.Refused()
		refused = append(refused, ref)
		s.ByStatus[d.HTTPStatus]++
		if d.BlockReason != "" {
			s.ByReason[d.BlockReason]++
		}
		if ref {
			s.Refused++
		}
		if d.Blocked {
			s.CostAvoidedCents += d.CostCents
		}
		if atBase != nil && ref != atBase[i] {
			if ref {
				s.Added = append(s.Added, d.Source)
			} else {
				s.Dropped = append(s.Dropped, d.Source)
			}
		}
	}
	s.Incidents = len(g.Finish().Incidents)
	return s, refused, nil
}
