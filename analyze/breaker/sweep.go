package breaker

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
)

// errorBody reports whether a response is an error document ({"error": …}
// not null).
func errorBody(p *fastjson.Parser, resp []byte) bool {
	if len(resp) == 0 || resp[0] != '{' {
		return false
	}
	v, err := p.ParseBytes(resp)
	if err != nil {
		return false
	}
	e := v.Get("error")
	return e != nil && e.Type() != fastjson.TypeNull
}

// SweepSetting is one point of the grid and what the breaker did there.
type SweepSetting struct {
	Rules
	TTL                         CounterTTL
	ScopesTripped, Trips        int
	Refused                     int
	Inside, Outside, Unlabelled int // trips on requests labelled loop (an incident), legit, or neither
	InGroups                    int // trips in a correlated group
}

// SweepResult is the grid, in the order rates × min samples × windows ×
// TTLs, and the recommended setting.
type SweepResult struct {
	Settings    []SweepSetting
	Recommended int // -1: none (no labelled incident, or every setting trips outside one too often)
	Labelled    bool
	Requests    int
	MaxOutside  int
}

// Sweeper replays requests at every setting of a grid as they are read:
// a breaker per setting, each stepped with every request (the breaker is
// cheap), so nothing is kept per request. The recommendation is the
// setting with the most trips inside labelled incidents and at most
// maxOutside outside them; ties go to fewer refused requests, then the
// higher rate, the higher min_samples, the longer window.
type Sweeper struct {
	res      SweepResult
	breakers []*Breaker
	json     fastjson.Parser
}

// NewSweeper prepares the grid in the order rates × min samples × windows
// × TTLs; a setting a breaker cannot run at is an error.
func NewSweeper(base Config, rates []float64, minSamples []int, windows []time.Duration, ttls []CounterTTL, maxOutside int) (*Sweeper, error) {
	sw := &Sweeper{res: SweepResult{Recommended: -1, MaxOutside: maxOutside}}
	for _, rate := range rates {
		for _, ms := range minSamples {
			for _, w := range windows {
				for _, ttl := range ttls {
					cfg := base
					cfg.Default = Rules{Enabled: true, Rate: rate, Window: w, MinSamples: ms, Recover: base.Default.Recover}
					cfg.Agents, cfg.TTL = nil, ttl
					b, err := New(cfg)
					if err != nil {
						return nil, err
					}
					sw.breakers = append(sw.breakers, b)
					sw.res.Settings = append(sw.res.Settings, SweepSetting{Rules: cfg.Default, TTL: ttl})
				}
			}
		}
	}
	return sw, nil
}

// Step replays one request (control records are not swept) at every
// setting.
func (sw *Sweeper) Step(rec *ingest.Record) {
	sw.res.Requests++
	if rec.Label != ingest.LabelNone {
		sw.res.Labelled = true
	}
	errBody := errorBody(&sw.json, rec.Response)
	for i, b := range sw.breakers {
		d, ok := b.Step(rec, errBody)
		if !ok || d.Action != ActionTrip {
			continue
		}
		s := &sw.res.Settings[i]
		switch rec.Label {
		case ingest.LabelLoop:
			s.Inside++
		case ingest.LabelLegit:
			s.Outside++
		default:
			s.Unlabelled++
		}
	}
}

// Finish ends the replays and returns the sweep.
func (sw *Sweeper) Finish() *SweepResult {
	res := &sw.res
	for i, b := range sw.breakers {
		s := &res.Settings[i]
		r := b.Finish()
		s.Trips, s.Refused = r.Trips, r.Refused
		for _, sc := range r.Scopes {
			if len(sc.Trips) > 0 {
				s.ScopesTripped++
			}
		}
		grouped := map[GroupTrip]bool{}
		for _, g := range r.Groups {
			for _, t := range g.Trips {
				grouped[t] = true
			}
		}
		s.InGroups = len(grouped)
	}
	if res.Labelled {
		for i := range res.Settings {
			s := &res.Settings[i]
			if s.Outside > res.MaxOutside {
				continue
			}
			if res.Recommended < 0 || betterSetting(s, &res.Settings[res.Recommended]) {
				res.Recommended = i
			}
		}
	}
	return res
}

func betterSetting(a, b *SweepSetting) bool {
	switch {
	case a.Inside != b.Inside:
		return a.Inside > b.Inside
	case a.Refused != b.Refused:
		return a.Refused < b.Refused
	case a.Rate != b.Rate:
		return a.Rate > b.Rate
	case a.MinSamples != b.MinSamples:
		return a.MinSamples > b.MinSamples
	}
	return a.Window > b.Window
}
