package gateway

import (
	"fmt"
	"math"
	"sort"
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
	// Tenants are the tenants with a call refused here (sorted; "" for
	// calls without a tenant); NewTenants those of them with none refused
	// at the base: tenants the base leaves alone that this value hits.
	Tenants, NewTenants []string
	tenants             map[string]bool
}

// SweepResult is a gateway sweep.
type SweepResult struct {
	Variant  string
	Config   Config // the base
	Requests int
	Base     SweepSetting
	Settings []SweepSetting // by parameter (in SweepGrid's order), then value as given
	// Inert names the swept parameters the variant never refuses on (m22:
	// rpm and spike_rate), which were not replayed.
	Inert []string
}

// Sweep replays recs (requests and control records, in replay order)
// through a fresh gateway at base and at every value of grid, and
// compares each with the base call by call. It is NewSweeper, Step and
// Finish over a slice.
func Sweep(base Config, recs []*ingest.Record, grid SweepGrid) (*SweepResult, error) {
	sw, err := NewSweeper(base, grid)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		sw.Step(r)
	}
	return sw.Finish(), nil
}

// Sweeper is a gateway sweep fed one record at a time: one gateway per
// setting (the base first), each stepped with every record, and each
// decision compared with the base's at once, so nothing is kept per
// request but the calls whose fate changes.
type Sweeper struct {
	res      SweepResult
	gates    []*Gateway      // the base, then one per setting
	settings []*SweepSetting // the tallies, in the same order
}

// NewSweeper prepares a sweep at base and every value of grid; a value a
// gateway cannot run at is an error naming it.
func NewSweeper(base Config, grid SweepGrid) (*Sweeper, error) {
	if base.Variant == nil {
		base = DefaultConfig(M22)
	}
	sw := &Sweeper{res: SweepResult{Variant: base.Variant.Name, Config: base}}
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
	}{{ParamRPM, base.Variant.rpmWorks, len(grid.RPM)}, {ParamSpikeRate, base.Variant.spikeWorks, len(grid.SpikeRates)}} {
		if p.n > 0 && !p.works {
			sw.res.Inert = append(sw.res.Inert, p.name)
		}
	}
	if base.Variant.rpmWorks {
		for _, v := range grid.RPM {
			tries = append(tries, try{ParamRPM, float64(v), func(c *Config) { c.RPM = v }})
		}
	}
	if base.Variant.spikeWorks {
		for _, v := range grid.SpikeRates {
			tries = append(tries, try{ParamSpikeRate, v, func(c *Config) { c.SpikeRate = v }})
		}
	}
	g, err := newCounting(base)
	if err != nil {
		return nil, err
	}
	sw.res.Base = newSetting()
	sw.res.Base.IsBase = true
	sw.gates, sw.settings = []*Gateway{g}, []*SweepSetting{&sw.res.Base}
	sw.res.Settings = make([]SweepSetting, len(tries))
	for i, t := range tries {
		cfg := base
		t.set(&cfg)
		if err := cfg.validateSwept(); err != nil {
			return nil, fmt.Errorf("%s %s: %v", t.param, strconv.FormatFloat(t.value, 'f', -1, 64), err)
		}
		g, err := newCounting(cfg)
		if err != nil {
			return nil, err
		}
		s := &sw.res.Settings[i]
		*s = newSetting()
		s.Param, s.Value = t.param, t.value
		s.IsBase = cfg.MaxCostCents == base.MaxCostCents && cfg.MaxTokens == base.MaxTokens && cfg.RPM == base.RPM && cfg.SpikeRate == base.SpikeRate
		sw.gates, sw.settings = append(sw.gates, g), append(sw.settings, s)
	}
	return sw, nil
}

// newCounting returns a gateway whose incidents keep no calls and no
// events: a sweep counts incidents, and a gateway per setting holding
// every refused call would grow with the capture.
func newCounting(cfg Config) (*Gateway, error) {
	g, err := New(cfg)
	if err == nil {
		g.counting, g.inc.counting = true, true
	}
	return g, err
}

func newSetting() SweepSetting {
	return SweepSetting{ByStatus: map[int]int{}, ByReason: map[string]int{}, tenants: map[string]bool{}}
}

// Step replays one record (a request or a control record, in replay
// order) at every setting.
func (sw *Sweeper) Step(r *ingest.Record) {
	if r.Err == nil && r.Skip == "" && r.Control == nil {
		sw.res.Requests++
	}
	var b *body
	if r.Err == nil && r.Skip == "" && r.Control == nil {
		b = parseBody(r) // once for every setting
	}
	atBase := false
	for i, g := range sw.gates {
		d, ok := g.stepParsed(r, b)
		if !ok {
			continue
		}
		s := sw.settings[i]
		ref := d.Refused()
		s.ByStatus[d.HTTPStatus]++
		if d.BlockReason != "" {
			s.ByReason[d.BlockReason]++
		}
		if ref {
			s.Refused++
			s.tenants[d.Tenant] = true
		}
		if d.Blocked {
			s.CostAvoidedCents += d.CostCents
		}
		switch {
		case i == 0:
			atBase = ref
		case ref && !atBase:
			s.Added = append(s.Added, d.Source)
		case !ref && atBase:
			s.Dropped = append(s.Dropped, d.Source)
		}
	}
}

// Finish ends the replays and returns the sweep.
func (sw *Sweeper) Finish() *SweepResult {
	for i, g := range sw.gates {
		s := sw.settings[i]
		s.Incidents = g.inc.made
		s.Tenants = make([]string, 0, len(s.tenants))
		for t := range s.tenants {
			s.Tenants = append(s.Tenants, t)
		}
		sort.Strings(s.Tenants)
		s.NewTenants = []string{}
		for _, t := range s.Tenants {
			if !sw.res.Base.tenants[t] {
				s.NewTenants = append(s.NewTenants, t)
			}
		}
	}
	return &sw.res
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
