package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"sort"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/killswitch/killswitch/report"
)

// The pipeline:
//
//	files ─ readFn (one worker per file: read, extract features) ─┬─ problems ───────────────────────┐
//	                                                               └─ features keyed by minute        │
//	  ─ GroupByKey ─ numberFn (global Seq, out-of-order warnings; side input: per-minute counts)      │
//	  ─ keyed by agent ─ GroupByKey ─ replayFn (the engine, one agent at a time, in replay order) ─┬─ timelines ─ combineFn ─ PREFIX-timelines.json
//	                                                                                              └─ decisions keyed by shard ─ GroupByKey ─ writeFn ─ PREFIX-decisions-S-of-N.jsonl

// bucketNanos is the time span of one numbering bucket (one minute): the
// numbering holds one bucket's feature records in memory at a time.
const bucketNanos = 60e9

// inputFile is one capture, with its index in the order of the inputs.
type inputFile struct {
	Idx  int
	Path string
}

// bucketSum is what the numbering of later buckets needs from one bucket.
type bucketSum struct {
	Bucket   int64
	Requests int64
	LastTS   int64 // the last in-order record's time and position
	LastPos  posW
	HasLast  bool
}

func init() {
	register.DoFn4x1[context.Context, inputFile, func(int64, featRec), func(int, problemRec), error](&readFn{})
	register.Emitter2[int64, featRec]()
	register.Emitter2[int, problemRec]()
	register.Function2x1[int64, func(*featRec) bool, bucketSum](summarizeBucket)
	register.DoFn4x1[int64, func(*featRec) bool, []bucketSum, func(string, featRec), error](&numberFn{})
	register.Emitter2[string, featRec]()
	register.Iter1[featRec]()
	register.DoFn4x1[string, func(*featRec) bool, func(int, decisionLine), func(int, agentResult), error](&replayFn{})
	register.Emitter2[int, decisionLine]()
	register.Emitter2[int, agentResult]()
	register.Iter1[decisionLine]()
	register.DoFn3x1[context.Context, int, func(*decisionLine) bool, error](&writeDecisionsFn{})
	register.Iter1[agentResult]()
	register.Iter1[problemRec]()
	register.Iter1[int]()
	register.DoFn5x1[context.Context, int, func(*agentResult) bool, func(*problemRec) bool, func(*int) bool, error](&combineFn{})
	register.Function3x0[string, featRec, func(int, featRec)](keyFeat)
	register.Emitter2[int, featRec]()
	register.Iter1[featRec]()
	register.DoFn5x1[context.Context, int, func(*featRec) bool, func(*problemRec) bool, func(*int) bool, error](&sweepFn{})
}

// options are the pipeline's settings.
type options struct {
	Config  string // analyze.Config as JSON
	Sweep   string // sweep.Config as JSON, when --sweep
	Inputs  []string
	Output  string // PREFIX
	Shards  int    // decision files
	Verbose bool
}

// build adds the replay to the pipeline rooted at s.
func build(s beam.Scope, opt options) {
	files := make([]inputFile, len(opt.Inputs))
	for i, p := range opt.Inputs {
		files[i] = inputFile{i, p}
	}
	in := beam.CreateList(s.Scope("files"), files)
	feats, problems := beam.ParDo2(s.Scope("read"), &readFn{Config: opt.Config}, in)
	byMinute := beam.GroupByKey(s, feats)
	sums := beam.ParDo(s.Scope("bucket-counts"), summarizeBucket, byMinute)
	numbered := beam.ParDo(s.Scope("number"), &numberFn{}, byMinute, beam.SideInput{Input: sums})
	byAgent := beam.GroupByKey(s, numbered)
	decisions, results := beam.ParDo2(s.Scope("replay"), &replayFn{Config: opt.Config, Shards: opt.Shards}, byAgent)
	beam.ParDo0(s.Scope("write-decisions"), &writeDecisionsFn{Prefix: opt.Output, Shards: opt.Shards}, beam.GroupByKey(s, decisions))
	one := beam.ParDo(s, keyZero[int], beam.Create(s, 0)) // so that the timelines are written when no file held a record
	beam.ParDo0(s.Scope("timelines"), &combineFn{Config: opt.Config, Prefix: opt.Output, Verbose: opt.Verbose},
		beam.CoGroupByKey(s, results, problems, one))
	if opt.Sweep != "" {
		// The grid is evaluated on one worker from the feature records
		// (never bodies), as one sweep evaluates it from one read.
		all := beam.ParDo(s.Scope("sweep-key"), keyFeat, numbered)
		beam.ParDo0(s.Scope("sweep"), &sweepFn{Config: opt.Config, Sweep: opt.Sweep, Prefix: opt.Output},
			beam.CoGroupByKey(s, all, problems, one))
	}
}

// keyFeat puts every feature record under one key, for the sweep.
func keyFeat(_ string, fr featRec, emit func(int, featRec)) { emit(0, fr) }

// sweepFn evaluates the sweep grid and writes PREFIX-sweep.json, the same
// document as `killswitch sweep -f json`.
type sweepFn struct {
	Config, Sweep, Prefix string
}

func (f *sweepFn) ProcessElement(ctx context.Context, _ int, feats func(*featRec) bool, problems func(*problemRec) bool, _ func(*int) bool) error {
	cfg, err := parseConfig(f.Config)
	if err != nil {
		return err
	}
	scfg, err := parseSweep(f.Sweep)
	if err != nil {
		return err
	}
	var fs []featRec
	var fr featRec
	for feats(&fr) {
		fs = append(fs, fr)
	}
	var ps []problemRec
	var p problemRec
	for problems(&p) {
		ps = append(ps, p)
	}
	res, err := sweepTraffic(cfg, scfg, fs, ps)
	if err != nil {
		return err
	}
	return writeFile(ctx, f.Prefix+"-sweep.json", func(w io.Writer) error { return report.SweepJSON(w, res) })
}

func init() {
	register.Function2x0[int, func(int, int)](keyZero[int])
	register.Emitter2[int, int]()
}

func keyZero[T any](v T, emit func(int, T)) { emit(0, v) }

// readFn reads one capture and extracts each record's features.
type readFn struct {
	Config string
}

func (f *readFn) ProcessElement(ctx context.Context, in inputFile, emit func(int64, featRec), problem func(int, problemRec)) error {
	cfg, err := parseConfig(f.Config)
	if err != nil {
		return err
	}
	src, done, err := openCapture(ctx, in.Path)
	if err != nil {
		return err
	}
	defer done()
	x := newExtractor(cfg)
	var pmax, idx int64
	timed := false
	for src.Scan() {
		rec := src.Record()
		idx++
		switch {
		case rec.Err != nil:
			problem(0, problemRec{in.Idx, idx, wrapPos(rec.Pos), true, rec.Err.Error()})
			continue
		case rec.Skip != "":
			problem(0, problemRec{in.Idx, idx, wrapPos(rec.Pos), false, rec.Skip})
			continue
		}
		if ts := rec.TS.UnixNano(); !timed || ts > pmax {
			pmax, timed = ts, true
		}
		fr := x.feature(rec, pmax, in.Idx, idx)
		emit(floorDiv(pmax, bucketNanos), fr)
	}
	if err := src.Err(); err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func sortedBucket(iter func(*featRec) bool) []featRec {
	var recs []featRec
	var fr featRec
	for iter(&fr) {
		recs = append(recs, fr)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].less(&recs[j]) })
	return recs
}

// summarizeBucket counts a bucket's requests and finds its last in-order
// record (one whose time is its file's running maximum: no earlier record
// of any file is later, so the replay does not warn about it).
func summarizeBucket(bucket int64, iter func(*featRec) bool) bucketSum {
	s := bucketSum{Bucket: bucket}
	for _, fr := range sortedBucket(iter) {
		if !fr.Control {
			s.Requests++
		}
		if fr.TS == fr.PMax {
			s.LastTS, s.LastPos, s.HasLast = fr.TS, fr.Pos, true
		}
	}
	return s
}

// numberFn gives each request its Seq (its index among all requests in
// replay order) and each record out of time order the replay's warning.
type numberFn struct {
	before map[int64]bucketSum // per bucket: requests in earlier buckets, and the last in-order record before it
}

func (f *numberFn) ProcessElement(bucket int64, iter func(*featRec) bool, sums []bucketSum, emit func(string, featRec)) error {
	if f.before == nil {
		sorted := append([]bucketSum(nil), sums...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].Bucket < sorted[j].Bucket })
		f.before = make(map[int64]bucketSum, len(sorted))
		var acc bucketSum
		for _, b := range sorted {
			f.before[b.Bucket] = acc
			acc.Requests += b.Requests
			if b.HasLast {
				acc.LastTS, acc.LastPos, acc.HasLast = b.LastTS, b.LastPos, true
			}
		}
	}
	prev, ok := f.before[bucket]
	if !ok {
		return fmt.Errorf("bucket %d missing from the counts", bucket)
	}
	seq, lastTS, lastPos := prev.Requests, prev.LastTS, prev.LastPos
	for _, fr := range sortedBucket(iter) {
		// A record's file's running maximum is set by an earlier record
		// of its bucket, so every out-of-order record has a lastTS.
		if prev.HasLast && fr.TS < lastTS {
			fr.OutOfOrder = outOfOrder(unixUTC(fr.TS), unixUTC(lastTS), lastPos.pos())
		} else {
			lastTS, lastPos, prev.HasLast = fr.TS, fr.Pos, true
		}
		if !fr.Control {
			seq++
			fr.Seq = seq
		}
		emit(fr.Agent, fr)
	}
	return nil
}

// replayFn replays one agent.
type replayFn struct {
	Config string
	Shards int
}

func (f *replayFn) ProcessElement(agent string, iter func(*featRec) bool, decision func(int, decisionLine), result func(int, agentResult)) error {
	cfg, err := parseConfig(f.Config)
	if err != nil {
		return err
	}
	recs := sortedBucket(iter)
	h := fnv.New32a()
	io.WriteString(h, agent)
	shard := int(h.Sum32() % uint32(f.Shards))
	res, err := replayAgent(cfg, recs, func(d decisionLine) { decision(shard, d) })
	if err != nil {
		return err
	}
	result(0, res)
	return nil
}

// writeDecisionsFn writes one shard of decision records, in Seq order.
type writeDecisionsFn struct {
	Prefix string
	Shards int
}

func (f *writeDecisionsFn) ProcessElement(ctx context.Context, shard int, iter func(*decisionLine) bool) error {
	var lines []decisionLine
	var d decisionLine
	for iter(&d) {
		lines = append(lines, d)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].Seq < lines[j].Seq })
	name := fmt.Sprintf("%s-decisions-%05d-of-%05d.jsonl", f.Prefix, shard, f.Shards)
	return writeFile(ctx, name, func(w io.Writer) error {
		for _, l := range lines {
			if _, err := io.WriteString(w, l.Line+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

// combineFn joins the agents' timelines into PREFIX-timelines.json and
// reports the malformed items.
type combineFn struct {
	Config  string
	Prefix  string
	Verbose bool
}

func (f *combineFn) ProcessElement(ctx context.Context, _ int, results func(*agentResult) bool, problems func(*problemRec) bool, _ func(*int) bool) error {
	cfg, err := parseConfig(f.Config)
	if err != nil {
		return err
	}
	var rs []agentResult
	var r agentResult
	for results(&r) {
		rs = append(rs, r)
	}
	var ps []problemRec
	var p problemRec
	for problems(&p) {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].File != ps[j].File {
			return ps[i].File < ps[j].File
		}
		return ps[i].Idx < ps[j].Idx
	})
	for _, p := range ps {
		if p.Malformed {
			log.Print(p.Msg)
		} else if f.Verbose {
			log.Printf("%s: skipped: %s", p.Pos.pos(), p.Msg)
		}
	}
	sum, err := timelines(cfg, rs, ps)
	if err != nil {
		return err
	}
	return writeFile(ctx, f.Prefix+"-timelines.json", func(w io.Writer) error { return report.TimelineJSON(w, sum) })
}

// writeFile writes name through Beam's filesystems; a local file is
// written to a temporary name and renamed, so it is never half-written.
func writeFile(ctx context.Context, name string, fill func(io.Writer) error) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	target := name
	_, local := fs.(filesystem.Renamer)
	if local {
		name += ".tmp"
	}
	w, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return err
	}
	if err := fill(w); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", target, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	if local {
		return fs.(filesystem.Renamer).Rename(ctx, name, target)
	}
	return nil
}

func unixUTC(ns int64) time.Time { return time.Unix(0, ns).UTC() }
