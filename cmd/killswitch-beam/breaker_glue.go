package main

// breaker_glue.go runs the error-rate breaker (--policy breaker): a shard
// is the scopes whose Redis key stem hashes to it (scopes sharing a stem
// are one breaker), each shard is replayed through the policy's own state
// machine, and the shards' results are merged (breaker.Merge) into the
// documents `killswitch replay --policy breaker` writes: the decision
// records (-f jsonl), the report (-f json) and the Redis state
// (--writes FILE.redis).

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/analyze"
	kbreaker "github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/ingest"
	pbreaker "github.com/killswitch/killswitch/policy/breaker"
	"github.com/killswitch/killswitch/store/redis"
)

// breakerPolicy is the breaker's name on the command line. This file is
// the only one of the pipeline that names a policy (scripts/policy-names.sh).
const breakerPolicy = "breaker"

// breakerFlagNames are the breaker's replay flags the pipeline passes on.
var breakerFlagNames = pbreaker.FlagNames

// errorBody reports whether a response body is an error document, which
// the breaker counts as an error whatever the status.
func errorBody(p *fastjson.Parser, resp []byte) bool { return kbreaker.ErrorBody(p, resp) }

// breakerPart is one shard's breaker result as it crosses to the merge.
type breakerPart struct {
	Scopes      []*kbreaker.ScopeResult
	Shared      []kbreaker.SharedKeys
	SharedOrder []orderKey // the replay order of each Shared scope's first record
	NoStatus    []kbreaker.FileCount
	Start, End  time.Time
}

// orderKey is a record's place in the replay order.
type orderKey struct {
	PMax int64
	File int
	Idx  int64
}

func (a orderKey) less(b orderKey) bool {
	if a.PMax != b.PMax {
		return a.PMax < b.PMax
	}
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Idx < b.Idx
}

// breakerShard is the shard of a record under the breaker: its scope's
// Redis key stem's.
func breakerShard(rec *ingest.Record, shards int) int {
	return shardOf(kbreaker.KeyStem(kbreaker.ScopeOf(rec)), shards)
}

// breakerConfig rebuilds the breaker's configuration on a worker, as
// `killswitch replay --policy breaker` builds it from the same flags and
// settings file.
func breakerConfig(opt *policyOptions) (kbreaker.Config, error) {
	return pbreaker.Config(opt.Args, opt.SettingsName, opt.SettingsData)
}

// replayBreakerShard replays a shard's records (in replay order) through
// the breaker and writes its decision records to w; end is the capture's
// last time (of a request or a breaker control), at which every breaker
// is read.
func replayBreakerShard(bcfg kbreaker.Config, recs *batchMerge, seq func(*featRec) (int64, error), end time.Time, w io.Writer) (agentResult, error) {
	var res agentResult
	pol, err := kbreaker.NewPolicy(bcfg)
	if err != nil {
		return res, err
	}
	cfg := analyze.NewConfig()
	cfg.Profile = analyze.ProfileUsage
	cfg.Policies = []analyze.Policy{pol}
	eng, err := analyze.NewEngine(cfg)
	if err != nil {
		return res, err
	}
	first := map[kbreaker.Scope]orderKey{}
	see := func(fr *featRec, rec *ingest.Record) {
		if c := rec.Control; c == nil || c.Event == ingest.ControlBreakerOpen || c.Event == ingest.ControlBreakerClose {
			if sc := kbreaker.ScopeOf(rec); first[sc] == (orderKey{}) {
				first[sc] = orderKey{fr.PMax, fr.File, fr.Idx}
			}
		}
	}
	seqs, err := stepShard(eng, recs, seq, &res, see, func(*analyze.Decision, []int64) error { return nil })
	if err != nil {
		return res, err
	}
	global := func(local int64) (int64, error) {
		if local < 1 || local > int64(len(seqs)) {
			return 0, fmt.Errorf("breaker numbered a request %d of %d", local, len(seqs))
		}
		return seqs[local-1], nil
	}
	ds := pol.Decisions()
	for i := range ds {
		if ds[i].Seq, err = global(ds[i].Seq); err != nil {
			return res, err
		}
	}
	if err := pbreaker.DecisionsJSONL(w, ds); err != nil {
		return res, err
	}
	r := pol.ResultAt(end)
	for _, s := range r.Scopes {
		for k := range s.Trips {
			if s.Trips[k].Seq, err = global(s.Trips[k].Seq); err != nil {
				return res, err
			}
		}
	}
	part := breakerPart{Scopes: r.Scopes, Shared: r.Shared, NoStatus: r.NoStatus, Start: r.Start, End: r.End}
	for _, sh := range r.Shared {
		part.SharedOrder = append(part.SharedOrder, first[sh.Scope])
	}
	res.Summary, err = json.Marshal(part)
	return res, err
}

// mergeBreaker merges the shards' results and writes the report (as
// `replay --policy breaker -f json`) to report and the Redis state (as
// `--writes FILE.redis`) to state.
func mergeBreaker(bcfg kbreaker.Config, results []agentResult, report, state io.Writer) error {
	var parts []*kbreaker.Result
	type shared struct {
		s  kbreaker.SharedKeys
		at orderKey
	}
	var all []shared
	for _, r := range results {
		var p breakerPart
		if err := json.Unmarshal(r.Summary, &p); err != nil {
			return err
		}
		if len(p.SharedOrder) != len(p.Shared) {
			return fmt.Errorf("breaker part: %d shared scopes, %d places", len(p.Shared), len(p.SharedOrder))
		}
		for i := range p.Shared {
			all = append(all, shared{p.Shared[i], p.SharedOrder[i]})
		}
		parts = append(parts, &kbreaker.Result{Scopes: p.Scopes, NoStatus: p.NoStatus, Start: p.Start, End: p.End})
	}
	res := kbreaker.Merge(bcfg, parts)
	// The single replay lists shared scopes in the order first seen.
	sort.Slice(all, func(i, j int) bool { return all[i].at.less(all[j].at) })
	res.Shared = nil
	for _, s := range all {
		res.Shared = append(res.Shared, s.s)
	}
	if err := pbreaker.JSON(report, res); err != nil {
		return err
	}
	return redis.WriteScript(state, pbreaker.RedisState(res))
}
