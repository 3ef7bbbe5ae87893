package main

import (
	"bytes"
	"reflect"
	"testing"
)

// batchSample is feature records covering every field and flag: requests
// with and without hashes, usage, errors and warnings, control records with
// every setting, times before their running maximum, a position with a path.
func batchSample() []featRec {
	return []featRec{
		{PMax: 1_700_000_000_000_000_000, Idx: 1, Req: 0, Agent: "a", TS: 1_700_000_000_000_000_000,
			Pos: posW{File: "c.jsonl", N: 1}, Status: 200, Label: 1, HasTokens: true, TokensIn: 12, TokensOut: -3,
			HasCost: true, CostUSD: 0.25, HasPrompt: true, Prompt: -1, HasResp: true, Response: 1 << 62,
			ToolSig: "lookup{}", HasUsage: true, UsageIn: 7, UsageOut: 9},
		{PMax: 1_700_000_000_000_000_000, Idx: 3, Req: 1, Agent: "b", TS: 1_699_999_999_000_000_000,
			Pos: posW{File: "c.jsonl", Kind: 3, N: 0, Path: "observations[2]"}, Status: 0,
			HasFeatErr: true, FeatErr: "request body is not JSON", Warn: "response truncated"},
		{PMax: 1_700_000_001_000_000_000, Idx: 4, Req: 2, Agent: "a", TS: 1_700_000_001_000_000_000,
			Pos: posW{File: "c.jsonl", N: 4}, Control: true, Event: 3, By: "ops",
			SetEnabled: true, Enabled: true, SetWindow: true, Window: 5, SetThreshold: true, Threshold: 2.5},
		{PMax: 1_700_000_001_000_000_000, Idx: 5, Req: 2, Agent: "a", TS: 1_700_000_001_000_000_000,
			Pos: posW{File: "c.jsonl", N: 5}, Control: true, Event: 2, SetEnabled: true},
		{PMax: 1_700_000_002_000_000_000, Idx: 9, Req: 2, Agent: "b", TS: 1_700_000_002_000_000_000,
			Pos: posW{File: "c.jsonl", N: 9}, Status: 503, HasPrompt: true, Prompt: 42, ToolSig: "lookup{}"},
		// What a policy's split replay keeps: the subject, the upstream,
		// the bodies; a freeze's entity and reason, a breaker's duration.
		{PMax: 1_700_000_003_000_000_000, Idx: 10, Req: 3, Agent: "c", TS: 1_700_000_003_000_000_000,
			Pos: posW{File: "c.jsonl", N: 10}, Status: 200, NoStatus: true, Tenant: "acme", Workflow: "w", APIKeyID: "k1",
			Provider: "openai", Model: "gpt-4o", Endpoint: "/v1/chat/completions",
			ReqBody: []byte(`{"messages":[]}`), RespBody: []byte(`{"error":true}`)},
		{PMax: 1_700_000_003_000_000_000, Idx: 11, Req: 4, Agent: "c", TS: 1_700_000_003_000_000_000,
			Pos: posW{File: "c.jsonl", N: 11}, Control: true, Event: 7, By: "ops", Tenant: "acme", APIKeyID: "k1",
			Entity: "key", Reason: "leaked", Duration: 5e9},
	}
}

func encodeSample(file int, recs []featRec) []byte {
	w := newBatchWriter(file)
	for i := range recs {
		w.add(&recs[i])
	}
	return w.bytes()
}

// TestBatchRoundTrip: every record decodes to what was encoded, with the
// batch's file index; and a record costs tens of bytes, not hundreds.
func TestBatchRoundTrip(t *testing.T) {
	want := batchSample()
	for i := range want {
		want[i].File = 7
	}
	b := encodeSample(7, want)
	r := newBatchReader(b)
	var got []featRec
	var fr featRec
	for r.next(&fr) {
		got = append(got, fr)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// The fifth record repeats its agent, file and tool signature: two
	// bytes of flags, the deltas (a second of PMax: five bytes), string
	// references, N, status and label (eight bytes) and its prompt's hash
	// (eight): 26 bytes, against ~330 for Beam's row coding of a featRec.
	w := newBatchWriter(7)
	for i := range want[:4] {
		w.add(&want[i])
	}
	before := len(w.buf)
	w.add(&want[4]) // the last request of the loop detector's kind
	if n := len(w.buf) - before; n > 26 {
		t.Errorf("a request with known strings takes %d bytes, want at most 26", n)
	}
}

// TestBatchWriterReused: a writer sent and reused writes each batch as a
// fresh writer does, whether the batch before crossed compressed (its
// buffer reused) or as it was (then a new buffer: the batch sent, which
// is that buffer, is left as it was sent).
func TestBatchWriterReused(t *testing.T) {
	small := batchSample()[:5] // no bodies: crosses as it is
	var big []featRec          // crosses compressed for its size
	for len(big)*20 < compressAt {
		big = append(big, small...)
	}
	bodies := batchSample() // crosses compressed for its bodies
	w := newBatchWriter(5)
	var prev, prevWas []byte
	for i, batch := range [][]featRec{small, big, small, small[1:], bodies, small} {
		for j := range batch {
			w.add(&batch[j])
		}
		b := w.bytes()
		if !bytes.Equal(b, encodeSample(5, batch)) {
			t.Fatalf("batch %d: the reused writer's differs from a fresh writer's", i)
		}
		if prev != nil && !bytes.Equal(prev, prevWas) {
			t.Fatalf("batch %d overwrote batch %d after it was sent", i, i-1)
		}
		if i == 0 && b[w.hdr-1] != modeRaw || i == 1 && b[w.hdr-1] != modeZstd {
			t.Fatalf("batch %d: mode %d: the test covers neither kind", i, b[w.hdr-1])
		}
		w.sent(b)
		prev, prevWas = b, bytes.Clone(b)
	}
}

// TestBatchRefusesDamage: a batch cut short, of another version or with a
// reference past its strings is an error, never a panic or a wrong record.
func TestBatchRefusesDamage(t *testing.T) {
	b := encodeSample(0, batchSample())
	for _, bad := range [][]byte{nil, {1, 0}, // version 1: feature records without bodies
		b[:len(b)-1], append(append([]byte{}, b[:2]...), 0x01, 0, 0, 0, 0, 0x7f)} {
		r := newBatchReader(bad)
		var fr featRec
		for r.next(&fr) {
		}
		if r.Err() == nil {
			t.Errorf("% x: decoded without an error", bad)
		}
	}
}

// FuzzBatchReader: any bytes decode to records or an error, without a
// panic, and what decodes re-encodes to the same records.
func FuzzBatchReader(f *testing.F) {
	f.Add(encodeSample(0, batchSample()))
	f.Add(encodeSample(3, batchSample()[2:]))
	f.Add([]byte{batchVersion, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newBatchReader(b)
		var recs []featRec
		var fr featRec
		for r.next(&fr) {
			recs = append(recs, fr)
		}
		if r.Err() != nil {
			return
		}
		again := newBatchReader(encodeSample(r.file, recs))
		for i := 0; again.next(&fr); i++ {
			if !reflect.DeepEqual(fr, recs[i]) {
				t.Fatalf("record %d: %+v re-read as %+v", i, recs[i], fr)
			}
		}
		if again.Err() != nil {
			t.Fatal(again.Err())
		}
	})
}

// TestNumberBucket: two files interleaved in one bucket, numbered by hand.
// File 0 has requests at PMax 1, 3; file 1 at 2, 3, 3. The merge (PMax,
// file) replays 0@1, 1@2, 0@3, 1@3, 1@3: Seq 1..5 after the 10 requests of
// earlier buckets (file 0 had 4 of them, file 1 had 6).
func TestNumberBucket(t *testing.T) {
	runs := []orderRun{
		{File: 1, Bucket: 9, K0: 6, PMax: []int64{2, 3}, Count: []int64{1, 2}},
		{File: 0, Bucket: 9, K0: 4, PMax: []int64{1, 3}, Count: []int64{1, 1}},
	}
	tab := newSeqTable(numberBucket(9, 10, runs))
	at := func(file int, req, pmax int64) int64 {
		t.Helper()
		// Bucket 9 holds PMax in [9 min, 10 min): shift the PMax into it.
		s, err := tab.seq(&featRec{File: file, Req: req, PMax: 9*bucketNanos + pmax})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for i := range runs {
		e := tab[[2]int64{int64(runs[i].File), 9}]
		for j := range e.P {
			e.P[j] += 9 * bucketNanos
		}
	}
	got := []int64{at(0, 4, 1), at(1, 6, 2), at(0, 5, 3), at(1, 7, 3), at(1, 8, 3)}
	want := []int64{11, 12, 13, 14, 15}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("seqs %v, want %v", got, want)
	}
	if _, err := tab.seq(&featRec{File: 2, PMax: 9 * bucketNanos}); err == nil {
		t.Error("a file missing from the numbering: no error")
	}
}

// runSamples are runs as a reader sends them: several times and shards,
// one time alone, a file's last run with the capture's end and no
// request, a negative bucket (times before 1970).
func runSamples() []orderRun {
	return []orderRun{
		{File: 2, Bucket: 29_000_000, K0: 17, PMax: []int64{29_000_000*bucketNanos + 5, 29_000_000*bucketNanos + 9e9}, Count: []int64{3, 1}, Shards: []int{0, 3}},
		{File: 0, Bucket: 7, PMax: []int64{7 * bucketNanos}, Count: []int64{1}, Shards: []int{65535}},
		{File: 1, Bucket: 9, K0: 40, End: 9*bucketNanos + 1, HasEnd: true},
		{File: 0, Bucket: -2, K0: 1, PMax: []int64{-2*bucketNanos + 3}, Count: []int64{2}, End: -1, HasEnd: true, Shards: []int{1}},
	}
}

// TestRunCoder: a run crosses the shuffle as it was; cut or padded, it
// is an error.
func TestRunCoder(t *testing.T) {
	for _, r := range runSamples() {
		b := encodeRun(r)
		got, err := decodeRun(b)
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("%+v crossed as %+v (%v)", r, got, err)
		}
		for n := range len(b) {
			if _, err := decodeRun(b[:n]); err == nil {
				t.Errorf("%+v cut to %d of %d bytes: no error", r, n, len(b))
			}
		}
		if _, err := decodeRun(append(b, 0)); err == nil {
			t.Errorf("%+v with a byte more: no error", r)
		}
	}
}

// FuzzRunCoder: any bytes decode to a run or an error, without a panic,
// and what decodes crosses again as it is.
func FuzzRunCoder(f *testing.F) {
	for _, r := range runSamples() {
		f.Add(encodeRun(r))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRun(b)
		if err != nil {
			return
		}
		again, err := decodeRun(encodeRun(r))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("%x decoded as %+v, crossed again as %+v (%v)", b, r, again, err)
		}
	})
}

// TestBucketBases: the runs' sums, merged per bucket and given to baseFn
// in any order, become each bucket's base, by hand: bucket 2 has 4+1
// requests (ends at 100 and 70), bucket 5 has 3, bucket 9 has 1 (ends at
// 50); so 2 has 0 before it, 5 has 5, 9 has 8 and is the last, carrying
// the capture's end, 100.
func TestBucketBases(t *testing.T) {
	runs := []orderRun{
		{Bucket: 9, Count: []int64{1}, End: 50, HasEnd: true},
		{Bucket: 2, Count: []int64{3, 1}, End: 100, HasEnd: true},
		{Bucket: 5, Count: []int64{2, 1}},
		{Bucket: 2, Count: []int64{1}, End: 70, HasEnd: true},
	}
	merged := map[int64]bucketSum{}
	for i := range runs {
		r := runSum(&runs[i])
		if m, ok := merged[r.Bucket]; ok {
			r = mergeSums(m, r)
		}
		merged[r.Bucket] = r
	}
	sums := []bucketSum{merged[5], merged[9], merged[2]}
	i := 0
	got := map[int64]bucketBase{}
	baseFn{}.ProcessElement(0, func(s *bucketSum) bool {
		if i == len(sums) {
			return false
		}
		*s, i = sums[i], i+1
		return true
	}, func(b int64, base bucketBase) { got[b] = base })
	want := map[int64]bucketBase{2: {Before: 0}, 5: {Before: 5}, 9: {Before: 8, Last: true, End: 100, HasEnd: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bases %+v, want %+v", got, want)
	}
}

// TestPackRoundTrip: a large shard result crosses compressed and comes
// back as it was; a small one crosses as it is; damage is an error.
func TestPackRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte(`{"messages":[{"role":"user","content":"Where is order 1234?"}]}`), 2000)
	r := agentResult{Summary: append([]byte(nil), big...)}
	r.pack()
	if !r.Packed || len(r.Summary) >= len(big)/4 {
		t.Fatalf("packed: %v, %d bytes of %d", r.Packed, len(r.Summary), len(big))
	}
	if err := r.unpack(); err != nil || r.Packed || !bytes.Equal(r.Summary, big) {
		t.Fatalf("unpacked: %v, equal %v", err, bytes.Equal(r.Summary, big))
	}
	small := agentResult{Summary: []byte(`{}`)}
	if small.pack(); small.Packed {
		t.Error("a small result was packed")
	}
	bad := agentResult{Summary: []byte("not zstd"), Packed: true}
	if err := bad.unpack(); err == nil {
		t.Error("damaged result unpacked")
	}
}
