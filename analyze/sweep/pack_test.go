package sweep

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// TestPackRoundTrip: every field of a request comes back from the packed
// form as it went in, for values at and away from the usual ones (zero
// hashes, status 200, no tokens, an entry time equal to the record's),
// deltas that go backwards, times before 1970, and agents packed
// interleaved so that they share the packer's tables.
func TestPackRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	files := []ingest.Pos{{File: "a.jsonl", Kind: ingest.PosLine}, {File: "b.har", Kind: ingest.PosEntry}, {File: "c.csv", Kind: ingest.PosRow}}
	pick := func(vs ...int64) int64 { return vs[rng.IntN(len(vs))] }
	req := func() sweepReq {
		ts := time.Unix(pick(0, -86400*400, 1_767_000_000, math.MaxInt32*4), pick(0, 1, 999_999_999, 123_000_000, rng.Int64N(1e9))).UTC()
		pos := files[rng.IntN(len(files))]
		pos.N = pick(0, 1, rng.Int64N(1e6), math.MaxInt64/2)
		r := sweepReq{
			Entry: analyze.Entry{Prompt: uint64(pick(0, 1, -1, rng.Int64())), Response: uint64(pick(0, rng.Int64(), -1)),
				HasPrompt: rng.IntN(2) == 0, HasResp: rng.IntN(2) == 0, TS: ts.UnixNano()},
			seq: pick(0, 1, rng.Int64N(1e9)), ts: ts, pos: pos,
			tokensIn: pick(0, 5, -3, math.MaxInt64), tokensOut: pick(0, 7, math.MinInt64),
			cost:      []float64{0, 0.25, -1, math.Inf(1), math.SmallestNonzeroFloat64}[rng.IntN(5)],
			status:    int32(pick(200, 0, 429, -1, math.MaxInt32)),
			hasTokens: rng.IntN(2) == 0, hasCost: rng.IntN(2) == 0, skip: rng.IntN(3) == 0,
			label: ingest.Label(rng.IntN(4)),
		}
		if rng.IntN(3) == 0 {
			r.TS = pick(0, -5, rng.Int64())
		}
		if rng.IntN(2) == 0 {
			r.ToolSig = []string{"search(q)", "read(path)", "x"}[rng.IntN(3)]
		}
		if rng.IntN(4) == 0 {
			r.ext = rng.IntN(100)
		}
		return r
	}
	var p packer
	agents := make([]*sweepTraffic, 5)
	want := make([][]sweepReq, len(agents))
	for i := range agents {
		agents[i] = &sweepTraffic{name: string(rune('a' + i))}
	}
	for range 3000 {
		i := rng.IntN(len(agents))
		r := req()
		p.add(agents[i], &r)
		want[i] = append(want[i], r)
	}
	var scratch []sweepReq
	for i, a := range agents {
		scratch = p.unpack(a, a.packed, scratch)
		if a.n != len(want[i]) || len(scratch) != len(want[i]) {
			t.Fatalf("agent %d: %d requests unpacked, n %d, want %d", i, len(scratch), a.n, len(want[i]))
		}
		for j := range scratch {
			if !reflect.DeepEqual(scratch[j], want[i][j]) {
				t.Fatalf("agent %d request %d:\n got %+v\nwant %+v", i, j, scratch[j], want[i][j])
			}
		}
	}
}
