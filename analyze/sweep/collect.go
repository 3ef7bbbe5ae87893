// Package sweep evaluates a grid of loop kill-switch settings over one
// capture: which loops each setting catches, which healthy agents it
// kills, what it saves and loses, and the setting to recommend. It runs
// the replay's own per-agent state machine (analyze.LoopAgent) and holds
// itself to analyze.Replay (TestSweepEqualsReplay).
package sweep

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// A sweep evaluates a grid of kill-switch settings (window sizes ×
// thresholds) over one capture. Its cost stays close to one replay:
//
//   - Collect reads the capture once and keeps, per agent, each request's
//     fingerprint and cost (no bodies) and the control records. Feature
//     extraction, the expensive part of a replay, runs once.
//   - For every agent, one pass with a ring of the largest window scores
//     each request at every window size at once: the score at a smaller
//     window derives from the counts over the last k entries of the bigger
//     ring (Window.Count's k), and one backward scan yields all k.
//   - Before an agent's first kill, its window holds the same entries
//     whatever the threshold, so its scores do not depend on the threshold:
//     the first kill at threshold T is the first request whose running
//     maximum score fires at T — a binary search over the record-setting
//     scores. In deactivate mode the rest follows: every later request of
//     the agent is refused until an operator activation, which empties the
//     window for every setting alike.
//   - Where the future after a kill does depend on the setting (block mode:
//     the agent stays active and its window changes; --reactivate-after:
//     it comes back at a time set by the kill), that agent alone is
//     followed from its first kill on at that setting (simulate), from the
//     window it had then. An agent whose config records change its
//     settings mid-stream is replayed exactly through an Engine fed its
//     collected fingerprints. Neither extracts anything again.
//
// TestSweepEqualsReplay holds every setting to a Replay at that setting.

// Config is a grid of settings and how to judge them. The zero value
// is not usable: Windows and Thresholds must not be empty.
type Config struct {
	Profile *analyze.Profile // must be the profile the Traffic was collected with
	Mode    analyze.Mode
	// Windows and Thresholds span the grid; they are sorted and
	// de-duplicated by Sweep. Every agent gets the grid's setting, enabled;
	// config control records in the capture change it at their time, as in
	// a replay.
	Windows    []int
	Thresholds []float64
	// RetryAfter and ReactivateAfter are those of Config.
	RetryAfter, ReactivateAfter time.Duration
	// Labels is the optional labels file (ground truth after the capture's
	// own label field).
	Labels *Labels
	// MaxFalsePositives is how many false-positive agents the recommended
	// setting may have.
	MaxFalsePositives int
	// LateAfter: a loop caught more than this many requests after its first
	// loop request is "caught late".
	LateAfter int
	// Series asks for score-over-time series of every agent killed at some
	// threshold of the chart window (the recommended one, else the first),
	// for charts.
	Series bool
}

// DefaultLateAfter is the default Config.LateAfter, in requests.
const DefaultLateAfter = 10

// Traffic is a capture read once for sweeps: per agent, the fingerprint
// and cost of every request and the control records, in replay order. It
// keeps no request or response bodies, and packs the requests (pack.go:
// 20–40 bytes each), which past a budget go to a spill store (spill.go).
type Traffic struct {
	Profile *analyze.Profile
	Input   Input
	agents  []*sweepTraffic // sorted by name
	pk      packer
	sp      spiller
	// liveKills: the capture holds deactivations by the live kill switch.
	liveKills bool
}

// Input describes what the input held; it is the same at every
// setting.
type Input struct {
	Agents, Requests int
	Malformed        int                 // input items that were not records
	Skips            []analyze.SkipCount // input items that were not LLM calls, by reason
	Controls         int                 // control records applied
	LiveKills        int                 // deactivate records by "kill_switch": kills the live system made
	Warnings         []analyze.Warning   // out-of-order records, unreadable responses, ignored config records (the first KeptWarnings of each kind)
	WarningCounts    []analyze.WarningCount
}

// sweepTraffic is one agent's collected traffic.
type sweepTraffic struct {
	name    string
	n       int     // requests
	packed  []byte  // the requests packed since the last spill (pack.go, spill.go)
	seg     segment // the newest spilled segment
	spilled int64   // packed bytes spilled
	ext     []any   // each request's Features.Ext, when one has any
	last    packState
	// reqs are the requests unpacked while the sweep evaluates the agent
	// (Traffic.unpacked), else nil.
	reqs     []sweepReq
	ctrls    []sweepCtrl // in order; each applies before reqs[at]
	config   bool        // has config records: settings change mid-stream
	liveKill bool        // has deactivate records by the live kill switch
}

// sweepReq is what a replay needs of one request, besides its agent.
type sweepReq struct {
	analyze.Entry             // fingerprint (ToolSig interned), with the response hash
	seq                 int64 // Decision.Seq: global, the same at every setting
	ts                  time.Time
	pos                 ingest.Pos
	tokensIn, tokensOut int64
	cost                float64
	status              int32
	hasTokens, hasCost  bool
	skip                bool // not scorable (Features.Err)
	label               ingest.Label
	ext                 any // Features.Ext, for profiles with their own Detector
}

// sweepCtrl is one control record of an agent.
type sweepCtrl struct {
	at  int // how many of the agent's requests come before it
	ts  time.Time
	pos ingest.Pos
	ctl ingest.Control
}

func (c *sweepCtrl) isLiveKill() bool {
	return c.ctl.Event == ingest.ControlDeactivate && c.ctl.By == "kill_switch"
}

// errSweepSkip stands for the extraction error of a request that could not
// be scored when a collected agent is replayed again.
var errSweepSkip = errors.New("not scorable")

// Collector gathers what a sweep needs of each request, one record at a
// time in replay order, from records whose features are already
// extracted: Collect drives it from a reader, a distributed replay from
// feature records that crossed its shuffle.
type Collector struct {
	eng     *analyze.Engine
	t       *Traffic
	byName  map[string]*sweepTraffic
	problem func(rec *ingest.Record, warn string) error
}

// NewCollector returns a collector for profile p. problem, if not nil,
// sees every malformed or skipped item and every feature warning in replay
// order, as Hooks.Problem does; an error it returns is returned by Step.
func NewCollector(p *analyze.Profile, problem func(rec *ingest.Record, warn string) error) (*Collector, error) {
	// A baseline engine numbers the requests (Seq, AgentN), merges usage
	// into tokens and counts what the input held; its threshold never fires.
	cfg := analyze.NewConfig()
	cfg.Profile = p
	cfg.Default = analyze.Settings{Enabled: true, WindowSize: 1, Threshold: math.MaxFloat64}
	eng, err := analyze.NewEngine(cfg)
	if err != nil {
		return nil, err
	}
	return &Collector{eng: eng, t: &Traffic{Profile: p}, byName: map[string]*sweepTraffic{},
		problem: problem}, nil
}

// Step collects one record, in replay order, with its features (zero for
// malformed, skipped and control records).
func (c *Collector) Step(rec *ingest.Record, f *analyze.Features) error {
	if rec.Err != nil || rec.Skip != "" {
		if c.problem != nil {
			if err := c.problem(rec, ""); err != nil {
				return err
			}
		}
	}
	d, ok, _ := c.eng.Step(rec, f)
	if c.problem != nil {
		for _, w := range c.eng.Reported() {
			if w.Kind != analyze.WarnResponse {
				continue // the others are printed from Input.Warnings
			}
			if err := c.problem(rec, w.Msg); err != nil {
				return err
			}
		}
	}
	if rec.Err != nil || rec.Skip != "" || (!ok && rec.Control == nil) {
		return nil
	}
	a := c.byName[rec.Agent]
	if a == nil {
		a = &sweepTraffic{name: rec.Agent}
		c.byName[rec.Agent] = a
		c.t.agents = append(c.t.agents, a)
	}
	if rec.Control != nil {
		ctl := sweepCtrl{at: a.n, ts: rec.TS, pos: rec.Pos, ctl: *rec.Control}
		switch {
		case ctl.ctl.Event == ingest.ControlConfig:
			a.config = true
		case ctl.isLiveKill():
			a.liveKill = true
			c.t.Input.LiveKills++
		}
		a.ctrls = append(a.ctrls, ctl)
		return nil
	}
	before := cap(a.packed)
	c.t.pk.add(a, &sweepReq{
		Entry: f.Entry, seq: d.Seq, ts: d.TS, pos: d.Source,
		tokensIn: d.TokensIn, tokensOut: d.TokensOut, cost: d.CostUSD, status: int32(d.Status),
		hasTokens: d.HasTokens, hasCost: d.HasCost, skip: f.Err != nil, label: d.Label, ext: f.Ext,
	})
	return c.t.sp.grew(c.t.agents, before, cap(a.packed))
}

// SpillTo makes the collector spill packed requests past s.Budget to
// s.Store (see Spill). Call it before the first Step; the store must stay
// readable for as long as the Traffic is swept.
func (c *Collector) SpillTo(s Spill) {
	c.t.sp = spiller{Spill: s, limit: s.Budget}
}

// unpacked unpacks the agent's requests into a.reqs (in scratch's
// storage) for as long as fn runs, and returns scratch for reuse.
func (t *Traffic) unpacked(a *sweepTraffic, scratch []sweepReq, fn func() error) ([]sweepReq, error) {
	b, err := t.sp.packedBytes(a)
	if err != nil {
		return scratch, err
	}
	if a.reqs, err = t.unpackSpilled(a, b, scratch); err != nil {
		return scratch, err
	}
	err = fn()
	scratch, a.reqs = a.reqs, nil
	clear(scratch) // no ext or tool signature kept alive
	return scratch, err
}

// unpackSpilled unpacks b, the agent's packed requests; when some were
// read back from the spill store, bytes that do not decode (a store that
// gave back other bytes than it was given) are an error, not a panic.
func (t *Traffic) unpackSpilled(a *sweepTraffic, b []byte, scratch []sweepReq) (reqs []sweepReq, err error) {
	if a.spilled > 0 {
		defer func() {
			if recover() != nil {
				reqs, err = scratch[:0], fmt.Errorf("reading back the spilled requests of agent %q: they do not decode (the spill file was changed)", a.name)
			}
		}()
	}
	return t.pk.unpack(a, b, scratch), nil
}

// Finish returns the collected traffic. The collector must not be used
// afterwards.
func (c *Collector) Finish() *Traffic {
	sum := c.eng.Finish()
	t := c.t
	sort.Slice(t.agents, func(i, j int) bool { return t.agents[i].name < t.agents[j].name })
	t.liveKills = t.Input.LiveKills > 0
	t.Input.Agents = len(t.agents)
	t.Input.Requests = sum.Totals.Requests
	t.Input.Malformed = sum.Malformed
	t.Input.Skips = sum.Skips
	t.Input.Controls = sum.Controls
	t.Input.Warnings = sum.Warnings
	t.Input.WarningCounts = sum.WarningCounts
	return t
}

// Collect reads src once and extracts every request's features, on
// workers goroutines (≤ 0: the default, as Replay's), the way Replay does, into a
// Collector (see NewCollector for problem) that spills as spill says.
// The returned error is src's I/O error, problem's or the spill store's.
func Collect(src ingest.Reader, p *analyze.Profile, workers int, problem func(rec *ingest.Record, warn string) error, spill Spill) (*Traffic, error) {
	ts, err := CollectProfiles(src, []*analyze.Profile{p}, workers, problem, spill)
	if err != nil {
		return nil, err
	}
	return ts[0], nil
}

// CollectProfiles is Collect for several profiles over one read of src
// (analyze.DriveProfiles): it returns one Traffic per profile, in the
// order of ps, each the Traffic Collect would return for that profile.
// problem sees the items and warnings of the first profile's collection
// only (the input's problems are the same for every profile). The
// profiles share spill's store, and its budget: each Traffic keeps at most
// its share of Budget in memory.
func CollectProfiles(src ingest.Reader, ps []*analyze.Profile, workers int, problem func(rec *ingest.Record, warn string) error, spill Spill) ([]*Traffic, error) {
	if len(ps) == 0 {
		return nil, errors.New("no profile to collect")
	}
	cs := make([]*Collector, len(ps))
	share := spill
	share.Budget /= int64(len(ps))
	for i, p := range ps {
		var err error
		if i > 0 {
			problem = nil
		}
		if cs[i], err = NewCollector(p, problem); err != nil {
			return nil, err
		}
		cs[i].SpillTo(share)
	}
	err := analyze.DriveProfiles(src, ps, workers, func(rec *ingest.Record, fs []analyze.Features) error {
		for i, c := range cs {
			if err := c.Step(rec, &fs[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ts := make([]*Traffic, len(cs))
	for i, c := range cs {
		ts[i] = c.Finish()
	}
	return ts, nil
}

// Sweep reads src once (see Collect) and evaluates the grid of cfg.
func Run(src ingest.Reader, cfg Config, workers int, problem func(rec *ingest.Record, warn string) error) (*Result, error) {
	if _, err := cfg.normalize(); err != nil {
		return nil, err
	}
	t, err := Collect(src, cfg.Profile, workers, problem, Spill{})
	if err != nil {
		return nil, err
	}
	return t.Sweep(cfg)
}

// normalize sorts and de-duplicates the grid and checks every setting.
func (c *Config) normalize() (*Config, error) {
	if len(c.Windows) == 0 || len(c.Thresholds) == 0 {
		return nil, errors.New("empty grid: give at least one window size and one threshold")
	}
	ws := append([]int(nil), c.Windows...)
	sort.Ints(ws)
	ts := append([]float64(nil), c.Thresholds...)
	sort.Float64s(ts)
	c.Windows, c.Thresholds = dedupe(ws), dedupe(ts)
	for _, w := range c.Windows {
		if err := (analyze.Settings{WindowSize: w}).Validate(); err != nil {
			return nil, err
		}
	}
	for _, th := range c.Thresholds {
		if err := (analyze.Settings{WindowSize: 1, Threshold: th}).Validate(); err != nil {
			return nil, err
		}
	}
	if c.MaxFalsePositives < 0 || c.LateAfter < 0 {
		return nil, errors.New("max false positives and late-after must not be negative")
	}
	if c.RetryAfter < 0 || c.ReactivateAfter < 0 {
		return nil, errors.New("negative duration")
	}
	return c, nil
}

func dedupe[T comparable](s []T) []T {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// settingConfig is the replay configuration of one grid setting.
func (c *Config) settingConfig(w int, th float64) analyze.Config {
	cfg := analyze.NewConfig()
	cfg.Profile, cfg.Mode = c.Profile, c.Mode
	cfg.Default = analyze.Settings{Enabled: true, WindowSize: w, Threshold: th}
	cfg.RetryAfter, cfg.ReactivateAfter = c.RetryAfter, c.ReactivateAfter
	return cfg
}

// SettingConfig returns the replay configuration equivalent to the grid
// setting (w, th): a Replay with it gives the results Sweep reports there.
func (c Config) SettingConfig(w int, th float64) analyze.Config { return c.settingConfig(w, th) }

// replay replays one collected agent through a fresh Engine with cfg,
// calling fn with each request's index and decision (Seq is the engine's
// own count; the caller knows the global one).
func (a *sweepTraffic) replay(cfg analyze.Config, fn func(i int, d *analyze.Decision)) error {
	eng, err := analyze.NewEngine(cfg)
	if err != nil {
		return err
	}
	ci := 0
	for i := range a.reqs {
		for ; ci < len(a.ctrls) && a.ctrls[ci].at == i; ci++ {
			c := &a.ctrls[ci]
			ctl := c.ctl
			eng.Step(&ingest.Record{Pos: c.pos, TS: c.ts, Agent: a.name, Control: &ctl}, &analyze.Features{})
		}
		r := &a.reqs[i]
		rec := ingest.Record{Pos: r.pos, TS: r.ts, Agent: a.name, Status: int(r.status),
			TokensIn: r.tokensIn, TokensOut: r.tokensOut, HasTokens: r.hasTokens,
			CostUSD: r.cost, HasCost: r.hasCost, Label: r.label}
		f := analyze.Features{Entry: r.Entry, Ext: r.ext}
		if r.skip {
			f.Err = errSweepSkip
		}
		d, ok, _ := eng.Step(&rec, &f)
		if !ok {
			return fmt.Errorf("agent %q: request %d yielded no decision", a.name, i+1)
		}
		fn(i, &d)
	}
	return nil
}
