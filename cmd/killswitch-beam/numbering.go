package main

// numbering.go gives every request its Seq, its place among all requests
// in the replay order (PMax, file, index), without moving the records: the
// readers send, per file and minute, the run of their requests' PMax
// values (one entry per distinct value); the numbering turns them into a
// small table from which the replay computes any request's Seq.
//
// For a request that is its file F's k-th (0-based), in bucket b, with
// running maximum p:
//
//	Seq = k + 1 + Before(b) − K0(F, b) + Cross(F, b, p)
//
// Before(b) counts the requests of every file in earlier buckets, K0(F, b)
// those of F, and Cross(F, b, p) those of the other files in bucket b that
// the merge puts first: a smaller PMax, or the same PMax in an earlier
// file. A file alone in its bucket has no Cross: one entry of the table
// per file and bucket, plus a step wherever files interleave.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"
)

// orderRun is one file's requests in one bucket: K0 requests of the file
// came before, then Count[i] requests with running maximum PMax[i].
type orderRun struct {
	File   int
	Bucket int64
	K0     int64
	PMax   []int64
	Count  []int64
	// End is the file's last time of a record the policy's split replay
	// ends at (policy.Splitter.Ends; when HasEnd: on the file's last run),
	// where its parts are finished.
	End    int64
	HasEnd bool
	// Shards are the shards of the run's requests: the ones its
	// numbering is sent to.
	Shards []int
}

// bucketSum is the number of requests in one bucket, of every file, and
// the bucket's latest End: each reader sends one per run, summed per
// bucket (mergeSums).
type bucketSum struct {
	Bucket   int64
	Requests int64
	End      int64
	HasEnd   bool
}

// encodeRun is orderRun's coder across the shuffle (registered in
// pipeline.go): Beam's row coder wrote it field by field through
// reflection, 2 % of the pipeline's CPU on the short corpus (a run holds
// one PMax a distinct time). Integers are varints, each PMax the
// difference from the previous one (from the bucket's start for the
// first).
func encodeRun(r orderRun) []byte {
	b := make([]byte, 0, 24+3*len(r.PMax)+len(r.Shards))
	b = binary.AppendVarint(b, int64(r.File))
	b = binary.AppendVarint(b, r.Bucket)
	b = binary.AppendVarint(b, r.K0)
	b = binary.AppendUvarint(b, uint64(len(r.PMax)))
	prev := r.Bucket * bucketNanos
	for i, p := range r.PMax {
		b = binary.AppendVarint(b, p-prev)
		b = binary.AppendVarint(b, r.Count[i])
		prev = p
	}
	b = binary.AppendVarint(b, r.End)
	hasEnd := byte(0)
	if r.HasEnd {
		hasEnd = 1
	}
	b = append(b, hasEnd)
	b = binary.AppendUvarint(b, uint64(len(r.Shards)))
	for _, s := range r.Shards {
		b = binary.AppendVarint(b, int64(s))
	}
	return b
}

// errRun is the error of a run that does not decode: a programming error
// or a worker of another build, never the user's input.
var errRun = errors.New("numbering run does not decode")

// decodeRun undoes encodeRun.
func decodeRun(b []byte) (orderRun, error) {
	var r orderRun
	bad := false
	varint := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	count := func() int { // a length: at most one element a byte left
		v, n := binary.Uvarint(b)
		if n <= 0 || v > uint64(len(b)-n) {
			bad = true
			return 0
		}
		b = b[n:]
		return int(v)
	}
	file := varint()
	r.File, r.Bucket, r.K0 = int(file), varint(), varint()
	if n := count(); n > 0 {
		r.PMax, r.Count = make([]int64, n), make([]int64, n)
		prev := r.Bucket * bucketNanos
		for i := range n {
			prev += varint()
			r.PMax[i], r.Count[i] = prev, varint()
		}
	}
	r.End = varint()
	if bad || len(b) == 0 || b[0] > 1 {
		return orderRun{}, errRun
	}
	r.HasEnd, b = b[0] == 1, b[1:]
	if n := count(); n > 0 {
		r.Shards = make([]int, n)
		for i := range n {
			r.Shards[i] = int(varint())
		}
	}
	if bad || len(b) > 0 || int64(r.File) != file {
		return orderRun{}, errRun
	}
	return r, nil
}

// seqEntry is the numbering of one file's requests in one bucket: Base is
// Before(b) − K0(F, b), and Cross(p) is Cross[i] for the last P[i] ≤ p.
type seqEntry struct {
	File   int
	Bucket int64
	Base   int64
	P      []int64
	Cross  []int64
	End    int64 // the run's End, when HasEnd
	HasEnd bool
}

// runSum is what a run adds to its bucket's sum.
func runSum(r *orderRun) bucketSum {
	s := bucketSum{Bucket: r.Bucket, End: r.End, HasEnd: r.HasEnd}
	for _, n := range r.Count {
		s.Requests += n
	}
	return s
}

// mergeSums adds two sums of one bucket.
func mergeSums(a, b bucketSum) bucketSum {
	a.Requests += b.Requests
	if b.HasEnd && (!a.HasEnd || b.End > a.End) {
		a.End, a.HasEnd = b.End, true
	}
	return a
}

// sumToZero puts a bucket's sum under one key, for baseFn.
func sumToZero(_ int64, s bucketSum, emit func(int, bucketSum)) { emit(0, s) }

// bucketBase is what the numbering of one bucket needs of the others:
// Before(b), the requests of earlier buckets, and, for the last bucket,
// the capture's end (the latest End, when HasEnd).
type bucketBase struct {
	Before int64
	Last   bool
	End    int64
	HasEnd bool
}

// baseFn turns the buckets' sums (all of them, under one key: one number
// a minute of capture) into each bucket's base.
type baseFn struct{}

func (baseFn) ProcessElement(_ int, sums func(*bucketSum) bool, emit func(int64, bucketBase)) {
	var all []bucketSum
	var s bucketSum
	for sums(&s) {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Bucket < all[j].Bucket })
	var end bucketBase
	for _, b := range all {
		if b.HasEnd && (!end.HasEnd || b.End > end.End) {
			end.End, end.HasEnd = b.End, true
		}
	}
	var acc int64
	for i, b := range all {
		base := bucketBase{Before: acc}
		if i == len(all)-1 {
			base.Last, base.End, base.HasEnd = true, end.End, end.HasEnd
		}
		emit(b.Bucket, base)
		acc += b.Requests
	}
}

// numberFn turns a bucket's runs into the numbering of each of its files,
// sent to the shards of each run's requests; the last bucket's sends the
// capture's end (the latest End) to every shard. Its base comes joined
// with the runs by bucket, not as a side input: Prism (v2.77.0) keeps its
// watermark loop spinning for as long as a stage with a side input runs.
type numberFn struct {
	Shards int
}

func (f *numberFn) ProcessElement(bucket int64, runs func(*orderRun) bool, bases func(*bucketBase) bool, emit func(int, seqEntry)) error {
	var base bucketBase
	if !bases(&base) {
		return fmt.Errorf("bucket %d missing from the counts", bucket)
	}
	var rs []orderRun
	var r orderRun
	for runs(&r) {
		rs = append(rs, r)
	}
	for i, e := range numberBucket(bucket, base.Before, rs) {
		for _, s := range rs[i].Shards {
			emit(s, e)
		}
	}
	if base.Last && base.HasEnd {
		end := seqEntry{File: -1, End: base.End, HasEnd: true} // no file's: it numbers no request
		for s := range f.Shards {
			emit(s, end)
		}
	}
	return nil
}

// numberBucket numbers the runs of one bucket (one run per file), before
// being the requests of earlier buckets.
func numberBucket(bucket, before int64, runs []orderRun) []seqEntry {
	type step struct {
		p    int64
		file int
		n    int64
		run  int
	}
	var all []step
	for i, r := range runs {
		for j, p := range r.PMax {
			all = append(all, step{p, r.File, r.Count[j], i})
		}
	}
	// The merge's order; a file has one step per PMax value.
	sort.Slice(all, func(i, j int) bool {
		if all[i].p != all[j].p {
			return all[i].p < all[j].p
		}
		return all[i].file < all[j].file
	})
	out := make([]seqEntry, len(runs))
	own := make([]int64, len(runs)) // each file's requests met so far
	for i, r := range runs {
		out[i] = seqEntry{File: r.File, Bucket: bucket, Base: before - r.K0, End: r.End, HasEnd: r.HasEnd}
	}
	var rank int64 // requests of every file met so far
	for _, s := range all {
		e := &out[s.run]
		cross := rank - own[s.run]
		if len(e.Cross) == 0 || e.Cross[len(e.Cross)-1] != cross {
			e.P = append(e.P, s.p)
			e.Cross = append(e.Cross, cross)
		}
		rank += s.n
		own[s.run] += s.n
	}
	return out
}

// seqTable looks up a request's Seq.
type seqTable map[[2]int64]*seqEntry

// end is the capture's end for the policy's split replay: the last time
// of a record its Splitter.Ends (the zero time when it has none).
func (t seqTable) end() time.Time {
	var end time.Time
	for _, e := range t {
		if at := time.Unix(0, e.End).UTC(); e.HasEnd && at.After(end) {
			end = at
		}
	}
	return end
}

func newSeqTable(entries []seqEntry) seqTable {
	t := make(seqTable, len(entries))
	for i := range entries {
		e := &entries[i]
		t[[2]int64{int64(e.File), e.Bucket}] = e
	}
	return t
}

// seq is the Seq of the request fr.
func (t seqTable) seq(fr *featRec) (int64, error) {
	b := floorDiv(fr.PMax, bucketNanos)
	e := t[[2]int64{int64(fr.File), b}]
	if e == nil {
		return 0, fmt.Errorf("request at %s: file %d, bucket %d missing from the numbering", fr.Pos.pos(), fr.File, b)
	}
	i := sort.Search(len(e.P), func(i int) bool { return e.P[i] > fr.PMax }) - 1
	if i < 0 {
		return 0, fmt.Errorf("request at %s: its time is before its bucket's numbering", fr.Pos.pos())
	}
	return fr.Req + 1 + e.Base + e.Cross[i], nil
}
