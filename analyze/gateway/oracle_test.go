package gateway

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze/gateway/pyrepr"
	"github.com/killswitch/killswitch/ingest"
)

// TestM22Oracle replays every body of testdata/m22_oracle.jsonl, whose
// answers CPython and pydantic computed (testdata/gen_oracle.py), through
// the m22 profile: status, block_reason, len(str(messages)), the cost
// estimate as repr() prints it, and policy_decisions_json byte for byte.
func TestM22Oracle(t *testing.T) {
	f, err := os.Open("testdata/m22_oracle.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 8<<20)
	sc.Scan() // versions
	g, _ := New(DefaultConfig(M22))
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Body        string  `json:"body"`
			Status      int     `json:"status"`
			BlockReason *string `json:"block_reason"`
			ReprLen     int     `json:"repr_len"`
			Cost        string  `json:"cost"`
			Decisions   string  `json:"decisions"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		rec := &ingest.Record{Pos: ingest.Pos{File: "oracle", N: int64(n)}, TS: time.Unix(int64(n), 0), Agent: "a", Tenant: "t", Request: []byte(c.Body), Status: 200}
		d, ok := g.Step(rec)
		if !ok {
			t.Fatalf("line %d: no decision", n)
		}
		short := c.Body
		if len(short) > 120 {
			short = short[:120] + "…"
		}
		if d.HTTPStatus != c.Status {
			t.Errorf("line %d %s: status %d (%s), want %d", n, short, d.HTTPStatus, d.Invalid, c.Status)
			continue
		}
		if c.Status >= 422 {
			continue
		}
		want := ""
		if c.BlockReason != nil {
			want = *c.BlockReason
		}
		if d.BlockReason != want || d.ReprLen != c.ReprLen {
			t.Errorf("line %d %s: block_reason %q len %d, want %q len %d", n, short, d.BlockReason, d.ReprLen, want, c.ReprLen)
		}
		if got := string(pyrepr.AppendFloat(nil, d.CostCents)); got != c.Cost {
			t.Errorf("line %d %s: cost %s, want %s", n, short, got, c.Cost)
		}
		if got := string(AppendDecisionsJSON(nil, d.Guardrails)); got != c.Decisions {
			t.Errorf("line %d %s: decisions\n got %s\nwant %s", n, short, got, c.Decisions)
		}
	}
	if n < 400 {
		t.Fatalf("%d oracle lines, want ≥ 400", n)
	}
}
