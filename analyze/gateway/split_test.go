package gateway

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// TestSplitEqualsOneReplay: records replayed in parts split by tenant (as
// a distributed replay splits them), each part advanced to the whole
// replay's clock before each record and finished at the capture's end,
// renumbered and merged, give the decisions and the result of one replay:
// the gateway fixtures together, and a capture of five tenants with a late
// call whose incident only the other tenants' records resolve (without
// Advance the parts differ), for both variants and 1 to 4 parts.
func TestSplitEqualsOneReplay(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/gateway/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no gateway fixtures")
	}
	captures := map[string][]*ingest.Record{"fixtures": readMerged(t, files), "tenants": manyTenants()}
	for name, recs := range captures {
		for _, v := range []*Variant{M22, Spec} {
			cfg := DefaultConfig(v)
			wantD, want := replaySplit(t, cfg, recs, 1)
			if want.Requests == 0 || v == Spec && len(want.Incidents) == 0 {
				t.Fatalf("%s %s: %d requests, %d incidents: the comparison would prove little", name, v.Name, want.Requests, len(want.Incidents))
			}
			for n := 2; n <= 4; n++ {
				gotD, got := replaySplit(t, cfg, recs, n)
				if !reflect.DeepEqual(gotD, wantD) {
					t.Errorf("%s %s, %d parts: decisions differ from one replay's", name, v.Name, n)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s, %d parts: result differs:\n got %+v\nwant %+v", name, v.Name, n, got, want)
					for i := range min(len(got.Incidents), len(want.Incidents)) {
						if !reflect.DeepEqual(got.Incidents[i], want.Incidents[i]) {
							t.Errorf("incident %d:\n got %+v\nwant %+v", i, got.Incidents[i], want.Incidents[i])
						}
					}
				}
			}
		}
	}
}

// TestMergeRefusesSharedFrozenKey: a key frozen by one tenant's record and
// used by another tenant in another part is refused, not merged wrong.
func TestMergeRefusesSharedFrozenKey(t *testing.T) {
	F := ingest.ControlFreeze
	a, b := policyOf(t, DefaultConfig(M22)), policyOf(t, DefaultConfig(M22))
	step(a, ctl(1, F, "key", "acme", "k1"))
	step(b, chat(2, "beta", "k1", hi))
	end := time.Unix(2, 0).UTC()
	_, err := Merge(DefaultConfig(M22), []*Result{a.ResultAt(end), b.ResultAt(end)})
	if err == nil || !strings.Contains(err.Error(), `"k1"`) {
		t.Fatalf("got %v, want the shared frozen key refused", err)
	}
	_, err = Merge(DefaultConfig(M22), []*Result{b.ResultAt(end), a.ResultAt(end)})
	if err == nil {
		t.Fatal("refused in one order of the parts only")
	}
}

func readMerged(t *testing.T, files []string) []*ingest.Record {
	t.Helper()
	var rs []ingest.Reader
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rs = append(rs, ingest.NewJSONL(f, file, ingest.JSONLOptions{}))
	}
	r := ingest.Merge(rs...)
	var recs []*ingest.Record
	for r.Scan() {
		rec := *r.Record()
		rec.CopyInto(nil)
		recs = append(recs, &rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// manyTenants is five tenants over two hours: calls refused by max_tokens
// (incidents in the spec variant), freezes of tenants and keys, quiet
// stretches longer than the auto-resolve time for some tenants while
// others go on, and a record a little out of order.
func manyTenants() []*ingest.Record {
	const big = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":20000}`
	F, U := ingest.ControlFreeze, ingest.ControlUnfreeze
	tenants := []string{"t0", "t1", "t2", "t3", "t4"}
	var recs []*ingest.Record
	for s := int64(0); s < 7200; s += 40 {
		i := int(s/40) % len(tenants)
		tn := tenants[i]
		if i < 2 && s > 1800 && s < 4000 {
			continue // t0 and t1 go quiet: their incidents resolve at others' records
		}
		body := hi
		if s%120 == 0 {
			body = big
		}
		recs = append(recs, chat(s, tn, tn+"-k", body))
		switch s {
		case 400:
			recs = append(recs, ctl(s+1, F, "tenant", "t2", ""))
		case 1200:
			recs = append(recs, ctl(s+1, U, "tenant", "t2", ""), ctl(s+2, U, "tenant", "t2", ""))
		case 2000:
			recs = append(recs, ctl(s+1, F, "key", "t3", "t3-k"))
		case 5000:
			recs = append(recs, ctl(s+1, U, "key", "t3", "t3-k"), chat(s-30, "t4", "t4-k", big)) // out of order
		case 5720:
			// Late, in the bucket of t0's incident of 4800, which t0's own
			// records (the last at 5600) leave open and the others' (at
			// 5720) resolve: one replay files this call under a new
			// incident, and so must a part (Advance).
			recs = append(recs, chat(4810, "t0", "t0-k", big))
		}
	}
	for i, r := range recs {
		r.Pos.N = int64(i + 1)
	}
	return recs
}

func policyOf(t *testing.T, cfg Config) *Policy {
	t.Helper()
	p, err := NewPolicy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func step(p *Policy, rec *ingest.Record) {
	var fx analyze.Effects
	if rec.Control != nil {
		p.Control(rec, &fx)
		return
	}
	var d analyze.Decision
	p.Decide(rec, nil, &d, &fx)
}

// replaySplit replays recs (in order) through n gateways, each record in
// the part of its tenant, and merges them as a distributed replay does.
func replaySplit(t *testing.T, cfg Config, recs []*ingest.Record, n int) ([]Decision, *Result) {
	t.Helper()
	if n == 1 {
		p := policyOf(t, cfg)
		for _, rec := range recs {
			step(p, rec)
		}
		return p.Decisions(), p.Result()
	}
	parts := make([]*Policy, n)
	for i := range parts {
		parts[i] = policyOf(t, cfg)
	}
	seqs := make([][]int64, n) // per part: the global Seq of its k-th request
	var freezeAt, warnAt [][]int
	freezeAt, warnAt = make([][]int, n), make([][]int, n)
	var clock, end time.Time
	var seq int64
	for k, rec := range recs {
		h := fnv.New32a()
		h.Write([]byte(TenantOf(rec)))
		i := int(h.Sum32() % uint32(n))
		if rec.TS.After(clock) {
			clock = rec.TS
		}
		end = clock
		p := parts[i]
		p.Advance(clock)
		f0, w0 := p.Logged()
		step(p, rec)
		f1, w1 := p.Logged()
		for range f1 - f0 {
			freezeAt[i] = append(freezeAt[i], k)
		}
		for range w1 - w0 {
			warnAt[i] = append(warnAt[i], k)
		}
		if rec.Control == nil && rec.Err == nil && rec.Skip == "" {
			seq++
			seqs[i] = append(seqs[i], seq)
		}
	}
	var ds []Decision
	results := make([]*Result, n)
	var freezes []FreezeEvent
	var warns []Warning
	var fAt, wAt []int
	for i, p := range parts {
		global := func(local int64) int64 { return seqs[i][local-1] }
		for _, d := range p.Decisions() {
			d.Seq = global(d.Seq)
			ds = append(ds, d)
		}
		r := p.ResultAt(end)
		for _, in := range r.Incidents {
			for c := range in.Calls {
				in.Calls[c].Seq = global(in.Calls[c].Seq)
			}
		}
		for j := range r.Rejected {
			r.Rejected[j].Seq = global(r.Rejected[j].Seq)
		}
		results[i] = r
		freezes, fAt = append(freezes, r.Freezes...), append(fAt, freezeAt[i]...)
		warns, wAt = append(warns, r.Warnings...), append(wAt, warnAt[i]...)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Seq < ds[j].Seq })
	res, err := Merge(cfg, results)
	if err != nil {
		t.Fatal(err)
	}
	res.Freezes = inOrder(freezes, fAt)
	res.Warnings = inOrder(warns, wAt)
	return ds, res
}

// inOrder sorts xs by the replay order at gives each.
func inOrder[T any](xs []T, at []int) []T {
	if len(xs) == 0 {
		return nil
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return at[idx[a]] < at[idx[b]] })
	out := make([]T, len(xs))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}
