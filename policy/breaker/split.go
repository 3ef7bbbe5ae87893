package breaker

// split.go is the breaker's replay split into parts (policy.SplitReplayer,
// for cmd/killswitch-beam): a part is the scopes whose Redis key stem
// hashes to it (scopes sharing a stem are one breaker), each part runs
// the breaker's own state machine and reads its breakers at the end of
// the whole capture, and the parts' results merge (breaker.Merge) into
// the decision records, the -f json report and the Redis state of one
// `killswitch replay --policy breaker`.

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/store/redis"
)

// Split implements policy.SplitReplayer.
func (f *replayFlags) Split(settings string, data []byte) (policy.Splitter, error) {
	cfg, err := f.config()
	if err == nil && settings != "" {
		err = applySettingsData(&cfg, settings, data, f)
	}
	if err == nil {
		_, err = breaker.NewPolicy(cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("--policy breaker: %v", err)
	}
	return &splitter{cfg: cfg}, nil
}

type splitter struct {
	cfg  breaker.Config
	json fastjson.Parser
}

// errorDoc stands for a response body that was an error document: the
// breaker reads nothing else of a body.
var errorDoc = []byte(`{"error":true}`)

func (s *splitter) Profile() *analyze.Profile     { return analyze.ProfileUsage }
func (s *splitter) Key(rec *ingest.Record) string { return breaker.KeyStem(breaker.ScopeOf(rec)) }
func (s *splitter) StateExt() string              { return ".redis" }

// Trim keeps of the bodies whether the response was an error document.
func (s *splitter) Trim(rec *ingest.Record) {
	errBody := rec.Control == nil && breaker.ErrorBody(&s.json, rec.Response)
	rec.Request, rec.Response = nil, nil
	if errBody {
		rec.Response = errorDoc
	}
}

// Ends: the breakers are read at the last request or breaker record.
func (s *splitter) Ends(rec *ingest.Record) bool {
	c := rec.Control
	return c == nil || c.Event == ingest.ControlBreakerOpen || c.Event == ingest.ControlBreakerClose
}

func (s *splitter) NewPart() (policy.Part, error) {
	pol, err := breaker.NewPolicy(s.cfg)
	if err != nil {
		return nil, err
	}
	return &part{pol: pol, first: map[breaker.Scope]policy.Order{}}, nil
}

// part is one part's breaker, and where each of its scopes was first seen
// (the single replay lists shared scopes in that order).
type part struct {
	pol   *breaker.Policy
	first map[breaker.Scope]policy.Order
}

// partResult is a part's result as it crosses to the merge.
type partResult struct {
	Scopes      []*breaker.ScopeResult
	Shared      []breaker.SharedKeys
	SharedOrder []policy.Order // where each Shared scope was first seen
	NoStatus    []breaker.FileCount
	Start, End  time.Time
}

func (p *part) Policies() []analyze.Policy { return []analyze.Policy{p.pol} }

func (p *part) See(rec *ingest.Record, at policy.Order) {
	if c := rec.Control; c == nil || c.Event == ingest.ControlBreakerOpen || c.Event == ingest.ControlBreakerClose {
		if sc := breaker.ScopeOf(rec); p.first[sc] == (policy.Order{}) {
			p.first[sc] = at
		}
	}
}

func (p *part) Finish(w io.Writer, seq func(int64) (int64, error), end time.Time) ([]byte, error) {
	ds := p.pol.Decisions()
	if err := policy.Renumber(ds, func(d *breaker.Decision) *int64 { return &d.Seq }, seq); err != nil {
		return nil, err
	}
	if err := DecisionsJSONL(w, ds); err != nil {
		return nil, err
	}
	r := p.pol.ResultAt(end)
	for _, s := range r.Scopes {
		if err := policy.Renumber(s.Trips, func(t *breaker.Trip) *int64 { return &t.Seq }, seq); err != nil {
			return nil, err
		}
	}
	out := partResult{Scopes: r.Scopes, Shared: r.Shared, NoStatus: r.NoStatus, Start: r.Start, End: r.End}
	for _, sh := range r.Shared {
		out.SharedOrder = append(out.SharedOrder, p.first[sh.Scope])
	}
	return json.Marshal(out)
}

// Merge writes the merged report (-f json) and Redis state (--writes
// FILE.redis).
func (s *splitter) Merge(parts [][]byte, _, report, state io.Writer) error {
	var results []*breaker.Result
	type shared struct {
		s  breaker.SharedKeys
		at policy.Order
	}
	var all []shared
	for _, b := range parts {
		var p partResult
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("breaker part: %v", err)
		}
		if len(p.SharedOrder) != len(p.Shared) {
			return fmt.Errorf("breaker part: %d shared scopes, %d places", len(p.Shared), len(p.SharedOrder))
		}
		for i := range p.Shared {
			all = append(all, shared{p.Shared[i], p.SharedOrder[i]})
		}
		results = append(results, &breaker.Result{Scopes: p.Scopes, NoStatus: p.NoStatus, Start: p.Start, End: p.End})
	}
	res := breaker.Merge(s.cfg, results)
	// The single replay lists shared scopes in the order first seen.
	sort.SliceStable(all, func(i, j int) bool { return all[i].at.Less(all[j].at) })
	res.Shared = nil
	for _, sh := range all {
		res.Shared = append(res.Shared, sh.s)
	}
	if err := JSON(report, res); err != nil {
		return err
	}
	return redis.WriteScript(state, RedisState(res))
}
