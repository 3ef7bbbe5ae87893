package breaker

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/valyala/fastjson"

	"github.com/killswitch/killswitch/ingest"
)

// TestMergeEqualsOneReplay: every breaker fixture replayed in parts split
// by KeyStem (as a distributed replay splits it), each part finished at the
// capture's end and renumbered, merges into the decisions and the result of
// one replay, for 1 to 4 parts and every counter TTL.
func TestMergeEqualsOneReplay(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/breaker/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no breaker fixtures")
	}
	for _, file := range files {
		recs := readAll(t, file)
		for _, ttl := range []CounterTTL{TTLRefresh, TTLFixed, TTLSliding} {
			cfg := NewConfig()
			cfg.TTL = ttl
			wantD, want := replayParts(t, cfg, recs, 1)
			if want.Requests == 0 {
				t.Fatalf("%s: no requests: the comparison would prove nothing", file)
			}
			for n := 2; n <= 4; n++ {
				gotD, got := replayParts(t, cfg, recs, n)
				if !reflect.DeepEqual(gotD, wantD) {
					t.Errorf("%s ttl %v, %d parts: decisions differ from one replay's", file, ttl, n)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s ttl %v, %d parts: result differs:\n got %+v\nwant %+v", file, ttl, n, got, want)
				}
			}
		}
	}
}

// TestMergeSharedKeysStayInOnePart: scopes of one Redis stem land in one
// part, and the merged result is the single replay's (one breaker).
func TestMergeSharedKeysStayInOnePart(t *testing.T) {
	if KeyStem(Scope{"t", "a:b", "c"}) != KeyStem(Scope{"t", "a", "b:c"}) {
		t.Fatal("scopes with one Redis key stem have different stems")
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var recs []*ingest.Record
	for i := 0; i < 12; i++ {
		agent, wf := "a:b", "c"
		if i%2 == 1 {
			agent, wf = "a", "b:c"
		}
		recs = append(recs, &ingest.Record{Pos: ingest.Pos{File: "b.jsonl", N: int64(i + 1)}, TS: base.Add(time.Duration(i) * time.Second),
			Tenant: "t", Agent: agent, Workflow: wf, Status: 500})
		recs = append(recs, &ingest.Record{Pos: ingest.Pos{File: "b.jsonl", N: int64(100 + i)}, TS: base.Add(time.Duration(i) * time.Second),
			Tenant: "u", Agent: "x" + string(rune('a'+i)), Status: 200})
	}
	wantD, want := replayParts(t, NewConfig(), recs, 1)
	gotD, got := replayParts(t, NewConfig(), recs, 3)
	if len(want.Shared) != 1 || !reflect.DeepEqual(gotD, wantD) || !reflect.DeepEqual(got, want) {
		t.Errorf("shared stem: 3 parts differ from one replay (Shared %v)", want.Shared)
	}
}

func readAll(t *testing.T, file string) []*ingest.Record {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := ingest.NewJSONL(f, file, ingest.JSONLOptions{})
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

// replayParts replays recs (in order) through n breakers, each record in
// the part of its scope's KeyStem, and merges them as a distributed replay
// does: sequence numbers made global, every part finished at the end of
// the whole capture.
func replayParts(t *testing.T, cfg Config, recs []*ingest.Record, n int) ([]Decision, *Result) {
	t.Helper()
	parts := make([]*Breaker, n)
	for i := range parts {
		b, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		parts[i] = b
	}
	seqs := make([][]int64, n) // per part: the global Seq of its k-th request
	var ds []Decision
	var end time.Time
	var p fastjson.Parser
	var seq int64
	for _, rec := range recs {
		if rec.Err != nil || rec.Skip != "" {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(KeyStem(ScopeOf(rec))))
		i := int(h.Sum32() % uint32(n))
		if rec.Control != nil {
			if e := rec.Control.Event; e == ingest.ControlBreakerOpen || e == ingest.ControlBreakerClose {
				end = later(end, rec.TS)
			}
			parts[i].Control(rec)
			continue
		}
		end = later(end, rec.TS)
		d, ok := parts[i].Step(rec, errorBody(&p, rec.Response))
		if !ok {
			continue
		}
		seq++
		seqs[i] = append(seqs[i], seq)
		d.Seq = seqs[i][d.Seq-1]
		ds = append(ds, d)
	}
	if n == 1 {
		return ds, parts[0].Finish()
	}
	results := make([]*Result, n)
	for i, b := range parts {
		results[i] = b.FinishAt(end)
		for _, s := range results[i].Scopes {
			for k := range s.Trips {
				s.Trips[k].Seq = seqs[i][s.Trips[k].Seq-1]
			}
		}
	}
	return ds, Merge(cfg, results)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestMergeReadsAtTheCapturesEnd: a part whose scopes fall silent early is
// still read at the end of the whole capture: scope a trips in its first
// seconds (it would still be open, with live counters, at its own last
// record), while scope b's requests go on for an hour; in the whole replay
// a's breaker has closed and its counters expired by then.
func TestMergeReadsAtTheCapturesEnd(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var recs []*ingest.Record
	for i := 0; i < 12; i++ {
		recs = append(recs, &ingest.Record{Pos: ingest.Pos{File: "e.jsonl", N: int64(i + 1)}, TS: base.Add(time.Duration(i) * time.Second),
			Agent: "a", Status: 500})
	}
	for i := 0; i < 60; i++ {
		recs = append(recs, &ingest.Record{Pos: ingest.Pos{File: "e.jsonl", N: int64(100 + i)}, TS: base.Add(time.Duration(i) * time.Minute),
			Agent: "b", Status: 200})
	}
	_, want := replayParts(t, NewConfig(), recs, 1)
	if want.Trips != 1 || want.Scopes[0].Open || want.Scopes[0].ErrorCount != 0 {
		t.Fatalf("one replay: %d trips, a open %v with %d errors counted; want a trip, closed and expired by the end", want.Trips, want.Scopes[0].Open, want.Scopes[0].ErrorCount)
	}
	split := false
	for n := 2; n <= 6; n++ {
		part := func(agent string) uint32 {
			h := fnv.New32a()
			h.Write([]byte(KeyStem(Scope{Agent: agent, Workflow: "default"})))
			return h.Sum32() % uint32(n)
		}
		split = split || part("a") != part("b")
		if _, got := replayParts(t, NewConfig(), recs, n); !reflect.DeepEqual(got, want) {
			t.Errorf("%d parts: result differs:\n got %+v\nwant %+v", n, got.Scopes[0], want.Scopes[0])
		}
	}
	if !split {
		t.Fatal("a and b never in different parts: the test proves nothing")
	}
}
