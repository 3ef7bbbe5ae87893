package sweep

import (
	"fmt"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// sliceStore is a SpillStore in memory.
type sliceStore struct{ data []byte }

func (s *sliceStore) Append(p []byte) (int64, error) {
	off := int64(len(s.data))
	s.data = append(s.data, p...)
	return off, nil
}

func (s *sliceStore) ReadAt(p []byte, off int64) (int, error) {
	return copy(p, s.data[off:]), nil
}

// TestSpillBudget: what stays in memory keeps to the documented bound
// after every request — the budget with few agents; with many, about
// 2×MinSpillSegment+16 bytes an agent plus half the budget — while
// everything else went to the store, and every agent reads back whole.
func TestSpillBudget(t *testing.T) {
	for _, tt := range []struct {
		agents int
		budget int64
	}{{3, 4096}, {7, 1 << 16}, {2000, 4096}} {
		t.Run(fmt.Sprintf("%d agents, budget %d", tt.agents, tt.budget), func(t *testing.T) {
			c, err := NewCollector(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := &sliceStore{}
			c.SpillTo(Spill{Store: st, Budget: tt.budget})
			bound := tt.budget
			if tt.agents*MinSpillSegment > int(tt.budget) {
				bound = tt.budget/2 + int64(tt.agents)*(2*MinSpillSegment+16)
			}
			t0 := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
			rec := ingest.Record{Pos: ingest.Pos{File: "b.jsonl"}, Status: 200, HasTokens: true}
			const n = 60_000
			for i := range n {
				rec.Pos.N++
				rec.TS = t0.Add(time.Duration(i) * 37 * time.Millisecond)
				rec.Agent = fmt.Sprint("agent-", i%tt.agents)
				rec.TokensIn = int64(i % 900)
				h := uint64(i) * 0x9e3779b97f4a7c15
				f := analyze.Features{Entry: analyze.Entry{Prompt: h, HasPrompt: true, Response: ^h, HasResp: true, TS: rec.TS.UnixNano()}}
				if err := c.Step(&rec, &f); err != nil {
					t.Fatal(err)
				}
				if c.t.sp.held > bound {
					t.Fatalf("request %d: %d bytes held, bound %d", i, c.t.sp.held, bound)
				}
			}
			tr := c.Finish()
			var held, spilled int64
			for _, a := range tr.agents {
				held += int64(cap(a.packed))
				spilled += a.spilled
				b, err := tr.sp.packedBytes(a)
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(b)) != a.spilled+int64(len(a.packed)) {
					t.Fatalf("%s: %d bytes read back, want %d", a.name, len(b), a.spilled+int64(len(a.packed)))
				}
				if reqs := tr.pk.unpack(a, b, nil); len(reqs) != a.n {
					t.Fatalf("%s: %d requests, want %d", a.name, len(reqs), a.n)
				}
			}
			if held != tr.sp.held {
				t.Errorf("held %d, accounted %d", held, tr.sp.held)
			}
			// Most of ~20 bytes a request went to the store.
			if spilled < n*10 || int64(len(st.data)) < spilled {
				t.Errorf("%d bytes spilled, %d stored", spilled, len(st.data))
			}
		})
	}
}
