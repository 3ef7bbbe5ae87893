package main

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"reflect"
	"slices"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// The pipeline:
//
//	files ─ readFn (one worker per file: read, extract features) ─┬─ problems ──────────────────────────────────┐
//	                                                               ├─ requests per minute ─ CombinePerKey          │
//	                                                               │    ─ baseFn (one worker: each minute's base)   │
//	                                                               ├─ order runs keyed by minute ─┤                 │
//	                                                               │    ─ CoGroupByKey ─ numberFn ─ the numbering   │
//	                                                               │      keyed by the shards that need it ──┐      │
//	                                                               └─ feature batches keyed by shard ─────────┤      │
//	  ─ CoGroupByKey ─ replayFn (one engine per shard, in replay order)                                       │
//	       ─ PREFIX-decisions-S-of-N.jsonl; warnings (and with --timelines the timelines) ─ combineFn ─────────┘
//	       ─ logged warnings (PREFIX-timelines.json)
//
// A shard is the agents whose id hashes to it: the records of one shard
// are replayed on one worker, and its decision file is written there.

// bucketNanos is the time span of one numbering bucket (one minute).
const bucketNanos = 60e9

// batchBytes is the size at which the reader sends a shard's batch.
const batchBytes = 256 << 10

// inputFile is one capture, with its index in the order of the inputs.
type inputFile struct {
	Idx  int
	Path string
}

func init() {
	beam.RegisterCoder(reflect.TypeFor[orderRun](), encodeRun, decodeRun)
	register.DoFn6x1[context.Context, inputFile, func(int, []byte), func(int64, orderRun), func(int64, bucketSum), func(int, problemRec), error](&readFn{})
	register.Emitter2[int, []byte]()
	register.Emitter2[int64, orderRun]()
	register.Emitter2[int, problemRec]()
	register.Iter1[orderRun]()
	register.Function2x1[bucketSum, bucketSum, bucketSum](mergeSums)
	register.Function3x0[int64, bucketSum, func(int, bucketSum)](sumToZero)
	register.Emitter2[int, bucketSum]()
	register.Emitter2[int64, bucketSum]()
	register.Iter1[bucketSum]()
	register.DoFn3x0[int, func(*bucketSum) bool, func(int64, bucketBase)](&baseFn{})
	register.Emitter2[int64, bucketBase]()
	register.Iter1[bucketBase]()
	register.DoFn4x1[int64, func(*orderRun) bool, func(*bucketBase) bool, func(int, seqEntry), error](&numberFn{})
	register.Emitter2[int, seqEntry]()
	register.Iter1[seqEntry]()
	register.Iter1[[]byte]()
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(*seqEntry) bool, func(int, agentResult), error](&replayFn{})
	register.Emitter2[int, agentResult]()
	register.Iter1[agentResult]()
	register.Iter1[problemRec]()
	register.Iter1[int]()
	register.DoFn6x1[context.Context, int, func(*agentResult) bool, func(*problemRec) bool, func(*int) bool, func(int, int), error](&combineFn{})
	register.Function3x0[int, []byte, func(int, []byte)](keyBatch)
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(*problemRec) bool, func(*int) bool, func(int, int), error](&sweepFn{})
}

// policyOptions name the policy the pipeline runs and, for a policy
// other than loop, its flags (as on killswitch replay's command line) and
// settings file (name and content, read where the pipeline is launched).
type policyOptions struct {
	Name         string // the policy's name ("": the default)
	Args         []string
	SettingsName string
	SettingsData []byte
}

// options are the pipeline's settings.
type options struct {
	Config  string // analyze.Config as JSON (loop)
	Policy  policyOptions
	Sweep   string // sweep.Config as JSON, when --sweep
	Inputs  []string
	Output  string // PREFIX
	Shards  int    // decision files
	Verbose bool
	// Timelines: also write PREFIX-timelines.json (replay -f json's
	// document). Without it the shards send the combining step only
	// their warnings, which it logs as replay prints them.
	Timelines bool
}

// build adds the replay to the pipeline rooted at s.
func build(s beam.Scope, opt options) {
	files := make([]inputFile, len(opt.Inputs))
	for i, p := range opt.Inputs {
		files[i] = inputFile{i, p}
	}
	in := beam.CreateList(s.Scope("files"), files)
	batches, runs, counts, problems := beam.ParDo4(s.Scope("read"), &readFn{Config: opt.Config, Policy: opt.Policy, Shards: opt.Shards}, in)
	// Each bucket's base (the requests before it) from the sums of every
	// bucket on one worker, joined with the bucket's runs. Neither this
	// nor the numbering reaches the next stage as a side input: Prism
	// (v2.77.0) reschedules a stage with a side input for as long as its
	// bundle runs (its watermark loop spins, allocating). The numbering
	// reaches each shard with its batches, keyed by shard.
	sums := beam.ParDo(s, sumToZero, beam.CombinePerKey(s.Scope("bucket-counts"), mergeSums, counts))
	bases := beam.ParDo(s.Scope("bucket-bases"), &baseFn{}, beam.GroupByKey(s, sums))
	numbering := beam.ParDo(s.Scope("number"), &numberFn{Shards: opt.Shards}, beam.CoGroupByKey(s, runs, bases))
	results := beam.ParDo(s.Scope("replay"), &replayFn{Config: opt.Config, Policy: opt.Policy, Prefix: opt.Output, Shards: opt.Shards, Timelines: opt.Timelines},
		beam.CoGroupByKey(s, batches, numbering))
	one := beam.ParDo(s, keyZero[int], beam.Create(s, 0)) // so that the timelines are written when no file held a record
	sinkOutput(s, beam.ParDo(s.Scope("timelines"), &combineFn{Config: opt.Config, Policy: opt.Policy, Prefix: opt.Output, Verbose: opt.Verbose, Timelines: opt.Timelines},
		beam.CoGroupByKey(s, results, problems, one)))
	if opt.Sweep != "" {
		// The grid is evaluated on one worker from the feature records
		// (never bodies), as one sweep evaluates it from one read.
		all := beam.ParDo(s.Scope("sweep-key"), keyBatch, batches)
		sinkOutput(s, beam.ParDo(s.Scope("sweep"), &sweepFn{Config: opt.Config, Sweep: opt.Sweep, Prefix: opt.Output},
			beam.CoGroupByKey(s, all, problems, one)))
	}
}

// sinkOutput gives a stage that only writes files an output, which a
// GroupByKey consumes and nothing reads; the stage's DoFn emits nothing
// into it. Prism (v2.77.0, runners/prism/internal/stage.go) waits for a
// bundle's response in a select that, for a stage with no output, finds
// its data-done channel closed from the start and spins until the bundle
// ends: a second core busy for as long as the timelines are joined and
// written. With an output, it waits on that output's end of data.
func sinkOutput(s beam.Scope, col beam.PCollection) {
	beam.GroupByKey(s.Scope("sink-output"), col)
}

// keyBatch puts every feature batch under one key, for the sweep.
func keyBatch(_ int, b []byte, emit func(int, []byte)) { emit(0, b) }

// sweepFn evaluates the sweep grid and writes PREFIX-sweep.json, the same
// document as `killswitch sweep -f json`.
type sweepFn struct {
	Config, Sweep, Prefix string
}

func (f *sweepFn) ProcessElement(ctx context.Context, _ int, batches func(*[]byte) bool, problems func(*problemRec) bool, _ func(*int) bool, _ func(int, int)) error {
	cfg, err := parseConfig(f.Config)
	if err != nil {
		return err
	}
	scfg, err := parseSweep(f.Sweep)
	if err != nil {
		return err
	}
	var ps []problemRec
	var p problemRec
	for problems(&p) {
		ps = append(ps, p)
	}
	res, err := sweepTraffic(cfg, scfg, newBatchMerge(collectBatches(batches)), ps)
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

// shardOf is the shard of an agent's records and decisions.
func shardOf(agent string, shards int) int {
	h := fnv.New32a()
	io.WriteString(h, agent)
	return int(h.Sum32() % uint32(shards))
}

// readFn reads one capture and extracts each record's features: feature
// batches per shard, the runs of its requests per minute for the
// numbering and their counts, and its malformed and skipped items.
type readFn struct {
	Config string
	Policy policyOptions
	Shards int
}

func (f *readFn) ProcessElement(ctx context.Context, in inputFile, batch func(int, []byte), emitRun func(int64, orderRun), count func(int64, bucketSum), problem func(int, problemRec)) error {
	cfg, err := parseConfig(f.Config)
	if err != nil {
		return err
	}
	src, done, err := openCapture(ctx, in.Path)
	if err != nil {
		return err
	}
	defer done()
	// The default policy's records go to the shard of their agent, with
	// their features; another policy's to the shard of its key, trimmed
	// to what it reads.
	key := func(rec *ingest.Record) string { return rec.Agent }
	ends := func(*ingest.Record) bool { return false }
	x := newExtractor(cfg.Profile, nil)
	if !f.Policy.isDefault() {
		sp, err := workerSplitter(&f.Policy)
		if err != nil {
			return err
		}
		key, ends = sp.Key, sp.Ends
		x = newExtractor(sp.Profile(), sp.Trim)
	}
	ws := make([]*batchWriter, f.Shards)
	flush := func(shard int) {
		if w := ws[shard]; w != nil && w.n > 0 {
			b := w.bytes()
			batch(shard, b)
			w.sent(b)
		}
	}
	order := func(bucket int64, r orderRun) {
		emitRun(bucket, r)
		count(bucket, runSum(&r))
	}
	run := orderRun{File: in.Idx}
	inRun := make([]bool, f.Shards) // the shards of run's requests
	var pmax, idx, req, end int64
	timed, ended := false, false
	// A Holder's records are handed back once their features are out
	// (nothing here keeps a record, its bodies are copied into the batch),
	// so that the next ones reuse their memory, as the replay does.
	release := func() {}
	if holder, ok := src.(ingest.Holder); ok {
		var held ingest.Held
		holder.Hold(&held)
		release = func() { holder.Hold(&held); held.Release() }
	}
	for ; src.Scan(); release() {
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
		if ends(rec) {
			if ts := rec.TS.UnixNano(); !ended || ts > end {
				end, ended = ts, true
			}
		}
		shard := shardOf(key(rec), f.Shards) // before the record is trimmed
		fr := x.feature(rec, pmax, in.Idx, idx, req)
		if ws[shard] == nil {
			ws[shard] = newBatchWriter(in.Idx)
		}
		ws[shard].add(&fr)
		if len(ws[shard].buf) >= batchBytes {
			flush(shard)
		}
		if rec.Control != nil {
			continue
		}
		if b := floorDiv(pmax, bucketNanos); len(run.PMax) == 0 || b != run.Bucket {
			if len(run.PMax) > 0 {
				order(run.Bucket, run)
			}
			for _, s := range run.Shards {
				inRun[s] = false
			}
			run = orderRun{File: in.Idx, Bucket: b, K0: req}
		}
		if !inRun[shard] {
			inRun[shard] = true
			run.Shards = append(run.Shards, shard)
		}
		if n := len(run.PMax); n > 0 && run.PMax[n-1] == pmax {
			run.Count[n-1]++
		} else {
			run.PMax, run.Count = append(run.PMax, pmax), append(run.Count, 1)
		}
		req++
	}
	if err := src.Err(); err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	for shard := range ws {
		flush(shard)
	}
	if len(run.PMax) > 0 || ended {
		if len(run.PMax) == 0 { // no request: the run carries the end alone
			run.Bucket = floorDiv(pmax, bucketNanos)
		}
		run.End, run.HasEnd = end, ended
		order(run.Bucket, run)
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

// replayFn replays one shard and writes its decision file.
type replayFn struct {
	Config    string
	Policy    policyOptions
	Prefix    string
	Shards    int
	Timelines bool
}

func (f *replayFn) ProcessElement(ctx context.Context, shard int, batches func(*[]byte) bool, numbering func(*seqEntry) bool, result func(int, agentResult)) error {
	cfg, err := parseConfig(f.Config)
	if err != nil {
		return err
	}
	bs := collectBatches(batches)
	var entries []seqEntry
	var e seqEntry
	for numbering(&e) {
		entries = append(entries, e)
	}
	if len(bs) == 0 {
		return nil // numbering only (the capture's end): no agent hashes to the shard
	}
	recs := newBatchMerge(bs)
	table := newSeqTable(entries)
	var res agentResult
	name := fmt.Sprintf("%s-decisions-%05d-of-%05d.jsonl", f.Prefix, shard, f.Shards)
	err = writeFile(ctx, name, func(w io.Writer) error {
		if !f.Policy.isDefault() {
			sp, err := workerSplitter(&f.Policy)
			if err != nil {
				return err
			}
			res, err = replayPart(sp, recs, table.seq, table.end(), w)
			return err
		}
		var err error
		res, err = replayShard(cfg, recs, table.seq, w, f.Timelines)
		return err
	})
	if err != nil {
		return err
	}
	result(0, res)
	return nil
}

// combineFn reports the malformed items and the replay's warnings and,
// with Timelines, joins the shards' timelines into PREFIX-timelines.json;
// for a policy other than loop it merges the shards' results into its
// state writes (and its report, with Timelines).
type combineFn struct {
	Config    string
	Policy    policyOptions
	Prefix    string
	Verbose   bool
	Timelines bool
}

func (f *combineFn) ProcessElement(ctx context.Context, _ int, results func(*agentResult) bool, problems func(*problemRec) bool, _ func(*int) bool, _ func(int, int)) error {
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
	if !f.Policy.isDefault() {
		sp, err := workerSplitter(&f.Policy)
		if err != nil {
			return err
		}
		// The replay's warnings (a body the gateway rejects, a record out
		// of order for its tenant), logged as replay reports them.
		logWarnings(rs, false)
		parts := make([][]byte, len(rs))
		for i := range rs {
			if err := rs[i].unpack(); err != nil {
				return err
			}
			parts[i] = rs[i].Summary
		}
		slices.SortFunc(parts, bytes.Compare) // any order merges alike; this one is fixed
		var decisions, doc, state bytes.Buffer
		if err := sp.Merge(parts, &decisions, &doc, &state); err != nil {
			return err
		}
		if decisions.Len() > 0 { // records only the whole replay knows
			if err := writeFile(ctx, f.Prefix+"-decisions-merge.jsonl", func(w io.Writer) error { _, err := w.Write(decisions.Bytes()); return err }); err != nil {
				return err
			}
		}
		if f.Timelines {
			if err := writeFile(ctx, f.Prefix+"-timelines.json", func(w io.Writer) error { _, err := w.Write(doc.Bytes()); return err }); err != nil {
				return err
			}
		}
		if sp.StateExt() == "" {
			return nil // the policy makes no state writes
		}
		return writeFile(ctx, stateName(f.Prefix, sp), func(w io.Writer) error { _, err := w.Write(state.Bytes()); return err })
	}
	logWarnings(rs, true)
	if !f.Timelines {
		return nil
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
