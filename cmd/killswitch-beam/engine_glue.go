package main

// engine_glue.go is the one file of this module that uses analyze's feature
// and engine API: what a feature record carries across the shuffle, how one
// is extracted from a record, and how one agent's records are replayed
// through the engine and renumbered in the global replay order.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sort"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// posW is an ingest.Pos as it crosses the shuffle.
type posW struct {
	File string
	Kind int
	N    int64
	Path string
}

func wrapPos(p ingest.Pos) posW { return posW{p.File, int(p.Kind), p.N, p.Path} }
func (p posW) pos() ingest.Pos {
	return ingest.Pos{File: p.File, Kind: ingest.PosKind(p.Kind), N: p.N, Path: p.Path}
}

// featRec is one request or control record as the replay needs it: its
// place in the replay order, what the engine reads of the record, and its
// features; never its bodies. It crosses the shuffle in batches (codec.go).
type featRec struct {
	// The replay order: the running maximum of the file's times up to this
	// record (a time-ordered merge of files emits records in this order),
	// then the file's index, then the record's index in its file.
	PMax int64
	File int
	Idx  int64
	// Req counts the file's requests before this record: a request's
	// place among its file's, from which the numbering gives its Seq.
	Req int64

	Agent  string
	TS     int64 // Unix nanoseconds
	Pos    posW
	Status int
	Label  int

	// Control records.
	Control                             bool
	Event                               int
	By                                  string
	SetEnabled, SetWindow, SetThreshold bool
	Enabled                             bool
	Window                              int
	Threshold                           float64
	TokensIn, TokensOut                 int64
	CostUSD                             float64
	HasTokens, HasCost                  bool
	Prompt, Response                    int64 // SimHashes, bit for bit
	ToolSig                             string
	HasPrompt, HasResp                  bool
	UsageIn, UsageOut                   int64
	HasUsage                            bool
	FeatErr, Warn                       string // Features.Err (when HasFeatErr) and Features.Warn
	HasFeatErr                          bool

	// What a policy other than the loop detector reads besides, as its
	// split replay trims the record (policy.Splitter.Trim): the subject
	// and the upstream, whether the status was missing, the bodies it
	// keeps; a control record's entity, duration and reason.
	Tenant, Workflow, APIKeyID string
	Provider, Model, Endpoint  string
	NoStatus                   bool
	ReqBody, RespBody          []byte
	Entity, Reason             string
	Duration                   int64 // nanoseconds
}

// problemRec is a malformed or skipped input item, for the counts and the
// messages.
type problemRec struct {
	File      int
	Idx       int64
	Pos       posW
	Malformed bool
	Msg       string // the error (with its position) or the skip reason
}

// extractor computes feature records for one profile; trim, when set, is
// a policy's split replay's (policy.Splitter.Trim): the record is trimmed
// once its features are extracted, and what it keeps is carried.
type extractor struct {
	x    *analyze.Extractor
	trim func(*ingest.Record)
}

func newExtractor(profile *analyze.Profile, trim func(*ingest.Record)) extractor {
	return extractor{analyze.NewExtractor(profile), trim}
}

// feature returns the feature record of rec, a request or control record
// (not malformed, not skipped).
func (e extractor) feature(rec *ingest.Record, pmax int64, file int, idx, req int64) featRec {
	fr := featRec{PMax: pmax, File: file, Idx: idx, Req: req, Agent: rec.Agent, TS: rec.TS.UnixNano(), Pos: wrapPos(rec.Pos),
		Status: rec.Status, Label: int(rec.Label),
		TokensIn: rec.TokensIn, TokensOut: rec.TokensOut, CostUSD: rec.CostUSD, HasTokens: rec.HasTokens, HasCost: rec.HasCost}
	if c := rec.Control; c != nil {
		fr.Control, fr.Event, fr.By = true, int(c.Event), c.By
		if p := c.KillSwitch.Enabled; p != nil {
			fr.SetEnabled, fr.Enabled = true, *p
		}
		if p := c.KillSwitch.WindowSize; p != nil {
			fr.SetWindow, fr.Window = true, *p
		}
		if p := c.KillSwitch.Threshold; p != nil {
			fr.SetThreshold, fr.Threshold = true, *p
		}
	} else {
		f := e.x.Extract(rec)
		fr.Prompt, fr.Response, fr.ToolSig = int64(f.Prompt), int64(f.Response), f.ToolSig
		fr.HasPrompt, fr.HasResp = f.HasPrompt, f.HasResp
		fr.UsageIn, fr.UsageOut, fr.HasUsage = f.TokensIn, f.TokensOut, f.HasUsage
		if f.Err != nil {
			fr.FeatErr, fr.HasFeatErr = f.Err.Error(), true
		}
		fr.Warn = f.Warn
	}
	if e.trim == nil {
		return fr
	}
	e.trim(rec)
	fr.Tenant, fr.Workflow, fr.APIKeyID = rec.Tenant, rec.Workflow, rec.APIKeyID
	fr.Provider, fr.Model, fr.Endpoint = rec.Provider, rec.Model, rec.Endpoint
	fr.NoStatus = rec.NoStatus
	fr.ReqBody, fr.RespBody = rec.Request, rec.Response
	if c := rec.Control; c != nil {
		fr.Entity, fr.Reason, fr.Duration = c.Entity, c.Reason, int64(c.Duration)
	}
	return fr
}

// record rebuilds what the engine reads of the record and its features
// into rec and f.
func (fr *featRec) record(rec *ingest.Record, f *analyze.Features) {
	*rec = ingest.Record{Pos: fr.Pos.pos(), TS: time.Unix(0, fr.TS).UTC(), Agent: fr.Agent, Status: fr.Status,
		TokensIn: fr.TokensIn, TokensOut: fr.TokensOut, CostUSD: fr.CostUSD, HasTokens: fr.HasTokens, HasCost: fr.HasCost,
		Label: ingest.Label(fr.Label), Tenant: fr.Tenant, Workflow: fr.Workflow, APIKeyID: fr.APIKeyID,
		Provider: fr.Provider, Model: fr.Model, Endpoint: fr.Endpoint, NoStatus: fr.NoStatus,
		Request: fr.ReqBody, Response: fr.RespBody}
	if fr.Control {
		c := &ingest.Control{Event: ingest.ControlEvent(fr.Event), By: fr.By, Entity: fr.Entity, Duration: time.Duration(fr.Duration), Reason: fr.Reason}
		// Copies: a control record may be kept (the sweep keeps it), and
		// fr is reused for the next record.
		if fr.SetEnabled {
			c.KillSwitch.Enabled = new(fr.Enabled)
		}
		if fr.SetWindow {
			c.KillSwitch.WindowSize = new(fr.Window)
		}
		if fr.SetThreshold {
			c.KillSwitch.Threshold = new(fr.Threshold)
		}
		rec.Control = c
		*f = analyze.Features{}
		return
	}
	*f = analyze.Features{TokensIn: fr.UsageIn, TokensOut: fr.UsageOut, HasUsage: fr.HasUsage, Warn: fr.Warn}
	f.Prompt, f.Response, f.ToolSig = uint64(fr.Prompt), uint64(fr.Response), fr.ToolSig
	f.HasPrompt, f.HasResp = fr.HasPrompt, fr.HasResp
	if fr.HasFeatErr {
		f.Err = errors.New(fr.FeatErr)
	}
}

// less is the replay order.
func (fr *featRec) less(o *featRec) bool {
	if fr.PMax != o.PMax {
		return fr.PMax < o.PMax
	}
	if fr.File != o.File {
		return fr.File < o.File
	}
	return fr.Idx < o.Idx
}

// warnRec is a warning in replay order: the record's order, then Sub
// (the extractor's warning, the out-of-order one, the engine's own).
type warnRec struct {
	PMax int64
	File int
	Idx  int64
	Sub  int
	Pos  posW
	Msg  string
	Kind int // analyze.WarningKind
}

// agentResult is one shard's replay: its agents' timelines
// (analyze.Summary as JSON, renumbered; only when the timelines document
// is written), its warnings (the first analyze.KeptWarnings of each kind)
// and how many it met of each kind.
type agentResult struct {
	Summary  []byte
	Warnings []warnRec
	Counts   []int64 // by analyze.WarningKind
	Packed   bool    // Summary is compressed (pack)
}

// packAt is the size from which a shard's result crosses compressed: a
// policy's part may carry its calls' bodies to the merge, and the loop's
// timelines of a shard's agents are ~400 bytes of JSON an agent, which
// the runner would otherwise copy several times on their way.
const packAt = 64 << 10

// pack compresses a large Summary; unpack undoes it.
func (r *agentResult) pack() {
	if len(r.Summary) >= packAt {
		r.Summary, r.Packed = zstdEnc().EncodeAll(r.Summary, nil), true
	}
}

func (r *agentResult) unpack() error {
	if !r.Packed {
		return nil
	}
	b, err := zstdDec().DecodeAll(r.Summary, nil)
	if err != nil {
		return fmt.Errorf("shard result: %w", err)
	}
	r.Summary, r.Packed = b, false
	return nil
}

// replayShard replays the feature records of a shard's agents (sorted in
// replay order) through one engine, writing each request's decision record
// to w. seq gives a request's number in the whole replay; decisions and
// the timelines (in the result when withTimelines) carry it. The agents are independent in the engine, so
// one engine replays them all in the global order: its warnings are the
// single replay's, and its first KeptWarnings of a kind are among the
// first of the whole replay.
func replayShard(cfg analyze.Config, recs *batchMerge, seq func(*featRec) (int64, error), w io.Writer, withTimelines bool) (agentResult, error) {
	var res agentResult
	eng, err := analyze.NewEngine(cfg)
	if err != nil {
		return res, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	seqs, err := stepShard(eng, recs, seq, &res, nil, func(d *analyze.Decision, seqs []int64) error {
		if d.KillSeq >= 1 && d.KillSeq <= int64(len(seqs)) {
			// The engine numbered the shard's requests alone: the kill's
			// number in the whole replay, and the reason that says it.
			d.KillSeq = seqs[d.KillSeq-1]
			d.Reason = analyze.BlockedReason("kill_switch", d.KillSeq)
		}
		buf = append(report.AppendDecision(buf[:0], d), '\n')
		_, err := bw.Write(buf)
		return err
	})
	if err != nil {
		return res, err
	}
	if err := bw.Flush(); err != nil {
		return res, err
	}
	sum := eng.Finish()
	for _, c := range sum.WarningCounts {
		for int(c.Kind) >= len(res.Counts) {
			res.Counts = append(res.Counts, 0)
		}
		res.Counts[c.Kind] += int64(c.Count)
	}
	if !withTimelines {
		return res, nil
	}
	global := func(local int64) int64 {
		if local >= 1 && local <= int64(len(seqs)) {
			return seqs[local-1]
		}
		return local
	}
	for _, a := range sum.Agents {
		for k := range a.Kills() {
			a.Extra.Kills[k].Seq = global(a.Extra.Kills[k].Seq)
		}
	}
	sum.Warnings = nil // reported per step above; WarningCounts counts them all
	if res.Summary, err = json.Marshal(sum); err != nil {
		return res, err
	}
	res.pack()
	return res, nil
}

// stepShard replays a shard's records (in replay order) through eng:
// each record is shown to see (when set) before its step, each request's
// decision, renumbered with its Seq in the whole replay, to decision with
// the global numbers of the shard's requests so far, and the engine's
// warnings are kept in res. It returns the global Seq of the shard's n-th
// request (engine Seq n).
func stepShard(eng *analyze.Engine, recs *batchMerge, seq func(*featRec) (int64, error), res *agentResult,
	see func(*featRec, *ingest.Record), decision func(*analyze.Decision, []int64) error) ([]int64, error) {
	var seqs []int64
	var fr featRec
	var rec ingest.Record
	var f analyze.Features
	var d analyze.Decision // one for every step: decision gets its address, so a Decision per step would be allocated
	var ok bool
	for recs.next(&fr) {
		fr.record(&rec, &f)
		if see != nil {
			see(&fr, &rec)
		}
		d, ok, _ = eng.Step(&rec, &f)
		for k, w := range eng.Reported() {
			res.Warnings = append(res.Warnings, warnRec{fr.PMax, fr.File, fr.Idx, k, fr.Pos, w.Msg, int(w.Kind)})
		}
		if !ok {
			continue
		}
		g, err := seq(&fr)
		if err != nil {
			return seqs, err
		}
		seqs = append(seqs, g)
		if d.Seq != int64(len(seqs)) {
			return seqs, fmt.Errorf("agent %q: engine numbered request %d as %d", fr.Agent, len(seqs), d.Seq)
		}
		d.Seq = g
		if err := decision(&d, seqs); err != nil {
			return seqs, err
		}
	}
	return seqs, recs.Err()
}

// timelines joins the agents' timelines, the problems (counted by a
// replay of their own) and the warnings into the summary one replay of all
// the captures yields.
func timelines(cfg analyze.Config, results []agentResult, problems []problemRec) (*analyze.Summary, error) {
	parts := make([]*analyze.Summary, 0, len(results)+1)
	var warns []warnRec
	for _, r := range results {
		if err := r.unpack(); err != nil {
			return nil, err
		}
		var s analyze.Summary
		if err := json.Unmarshal(r.Summary, &s); err != nil {
			return nil, err
		}
		parts = append(parts, &s)
		warns = append(warns, r.Warnings...)
	}
	eng, err := analyze.NewEngine(cfg)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		rec := &ingest.Record{Pos: p.Pos.pos()}
		if p.Malformed {
			rec.Err = errors.New(p.Msg)
		} else {
			rec.Skip = p.Msg
		}
		eng.Step(rec, &analyze.Features{})
	}
	parts = append(parts, eng.Finish())
	sortWarnings(warns)
	ws := make([]analyze.Warning, len(warns))
	for i, w := range warns {
		ws[i] = analyze.Warning{Pos: w.Pos.pos(), Msg: w.Msg, Kind: analyze.WarningKind(w.Kind)}
	}
	return analyze.JoinSummaries(cfg, parts, ws), nil
}

// logWarnings logs the shards' warnings in replay order, as replay prints
// them. With kept, the first analyze.KeptWarnings of each kind (each shard
// kept its first ones: among them are the first of the whole replay) and
// how many more of each kind were met, from the shards' Counts.
func logWarnings(results []agentResult, kept bool) {
	var warns []warnRec
	var counts []int64
	for _, r := range results {
		warns = append(warns, r.Warnings...)
		for k, n := range r.Counts {
			for k >= len(counts) {
				counts = append(counts, 0)
			}
			counts[k] += n
		}
	}
	sortWarnings(warns)
	shown := map[int]int{}
	for _, w := range warns {
		if kept && shown[w.Kind] >= analyze.KeptWarnings {
			continue
		}
		shown[w.Kind]++
		log.Printf("%s: warning: %s", w.Pos.pos(), w.Msg)
	}
	for k, n := range counts {
		if more := n - int64(shown[k]); kept && more > 0 {
			log.Printf("%d more %s warnings not shown (%d in all)", more, analyze.WarningKind(k), n)
		}
	}
}

// sortWarnings puts warnings in replay order.
func sortWarnings(warns []warnRec) {
	sort.Slice(warns, func(i, j int) bool {
		a, b := &warns[i], &warns[j]
		if a.PMax != b.PMax {
			return a.PMax < b.PMax
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Idx != b.Idx {
			return a.Idx < b.Idx
		}
		return a.Sub < b.Sub
	})
}

// parseConfig and encodeConfig carry the configuration to the workers.
func encodeConfig(cfg analyze.Config) string {
	b, err := json.Marshal(cfg)
	if err != nil {
		panic("killswitch-beam: configuration does not encode: " + err.Error()) // a programming error, caught by the tests
	}
	return string(b)
}

func parseConfig(s string) (analyze.Config, error) {
	var cfg analyze.Config
	err := json.Unmarshal([]byte(s), &cfg)
	return cfg, err
}

// configFromFlags builds the replay configuration as `killswitch replay`
// does (analyze.SettingsFile.Apply): defaults, then the settings file's
// default, then --window and --threshold when given, then the file's
// per-agent entries; the file's errors name file:line:column and the key.
func configFromFlags(profile, mode string, window *int, threshold *float64, settingsPath string, readFile func(string) ([]byte, error)) (analyze.Config, error) {
	cfg := analyze.NewConfig()
	var err error
	if cfg.Profile, err = analyze.ParseProfile(profile); err != nil {
		return cfg, err
	}
	cfg.Default = cfg.Profile.Defaults
	if cfg.Mode, err = analyze.ParseMode(mode); err != nil {
		return cfg, err
	}
	var sf analyze.SettingsFile
	if settingsPath != "" {
		data, err := readFile(settingsPath)
		if err != nil {
			return cfg, err
		}
		if sf, err = analyze.ParseSettingsFile(settingsPath, data); err != nil {
			return cfg, err
		}
	}
	return cfg, sf.Apply(&cfg, ingest.KillSwitchPatch{WindowSize: window, Threshold: threshold})
}

// sweepTraffic runs the sweep's collection over every feature record (in
// the replay order: PMax, file, index, as the merge gives them) and problem record, as sweep.Collect
// does over the captures, and evaluates the grid of scfg.
func sweepTraffic(cfg analyze.Config, scfg sweep.Config, feats *batchMerge, problems []problemRec) (*sweep.Result, error) {
	c, err := sweep.NewCollector(cfg.Profile, nil)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		rec := &ingest.Record{Pos: p.Pos.pos()}
		if p.Malformed {
			rec.Err = errors.New(p.Msg)
		} else {
			rec.Skip = p.Msg
		}
		if err := c.Step(rec, &analyze.Features{}); err != nil {
			return nil, err
		}
	}
	var fr featRec
	var rec ingest.Record
	var f analyze.Features
	for feats.next(&fr) {
		fr.record(&rec, &f)
		if err := c.Step(&rec, &f); err != nil {
			return nil, err
		}
	}
	if err := feats.Err(); err != nil {
		return nil, err
	}
	return c.Finish().Sweep(scfg)
}

func encodeSweep(c sweep.Config) string {
	b, err := json.Marshal(c)
	if err != nil {
		panic("killswitch-beam: sweep configuration does not encode: " + err.Error())
	}
	return string(b)
}

func parseSweep(s string) (sweep.Config, error) {
	var c sweep.Config
	err := json.Unmarshal([]byte(s), &c)
	return c, err
}
