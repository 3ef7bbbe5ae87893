package breaker

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
)

// Outcome is what a breaker sweep keeps of one request: the record without
// its bodies, and whether its response was an error body.
type Outcome struct {
	Rec     ingest.Record
	ErrBody bool
}

// Collector keeps the outcomes of requests, in replay order.
type Collector struct {
	Outcomes []Outcome
	json     fastjson.Parser
}

// Add keeps rec (a request) without its bodies.
func (c *Collector) Add(rec *ingest.Record) {
	o := Outcome{Rec: *rec, ErrBody: errorBody(&c.json, rec.Response)}
	o.Rec.Request, o.Rec.Response = nil, nil
	c.Outcomes = append(c.Outcomes, o)
}

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

// Sweep replays the outcomes at every setting of the grid (the breaker is
// cheap: one pass per setting). The recommendation is the setting with the
// most trips inside labelled incidents and at most maxOutside outside
// them; ties go to fewer refused requests, then the higher rate, the
// higher min_samples, the longer window.
func Sweep(outcomes []Outcome, base Config, rates []float64, minSamples []int, windows []time.Duration, ttls []CounterTTL, maxOutside int) (*SweepResult, error) {
	res := &SweepResult{Recommended: -1, Requests: len(outcomes), MaxOutside: maxOutside}
	for _, o := range outcomes {
		if o.Rec.Label != ingest.LabelNone {
			res.Labelled = true
			break
		}
	}
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
					s := SweepSetting{Rules: cfg.Default, TTL: ttl}
					for i := range outcomes {
						d, ok := b.Step(&outcomes[i].Rec, outcomes[i].ErrBody)
						if !ok || d.Action != ActionTrip {
							continue
						}
						switch outcomes[i].Rec.Label {
						case ingest.LabelLoop:
							s.Inside++
						case ingest.LabelLegit:
							s.Outside++
						default:
							s.Unlabelled++
						}
					}
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
					res.Settings = append(res.Settings, s)
				}
			}
		}
	}
	if res.Labelled {
		for i := range res.Settings {
			s := &res.Settings[i]
			if s.Outside > maxOutside {
				continue
			}
			if res.Recommended < 0 || betterSetting(s, &res.Settings[res.Recommended]) {
				res.Recommended = i
			}
		}
	}
	return res, nil
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
