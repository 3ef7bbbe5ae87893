package breaker

import (
	"testing"
	"time"

	"github.com/killswitch/killswitch/ingest"
)

// Requests without a status are forwarded and counted as neither success
// nor error (12 of them never reach min_samples), unless the response is an
// error body; each file's count is reported once.
func TestNoStatus(t *testing.T) {
	b, err := New(NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	var ds []Decision
	for i := 0; i < 13; i++ {
		rec := &ingest.Record{Pos: ingest.Pos{File: "c.jsonl", N: int64(i + 1)}, TS: t0.Add(time.Duration(i) * time.Second),
			Agent: "a", Status: 200, NoStatus: true}
		d, ok := b.Step(rec, i == 12)
		if !ok {
			t.Fatal("no decision")
		}
		ds = append(ds, d)
	}
	for _, d := range ds[:12] {
		if d.Action != ActionForward || d.Counted || d.Samples != 0 || d.Reason != "no status: counted as neither success nor error" {
			t.Fatalf("%+v", d)
		}
	}
	if !ds[12].Counted || !ds[12].Error {
		t.Errorf("error body without status: %+v", ds[12])
	}
	res := b.Finish()
	if len(res.NoStatus) != 1 || res.NoStatus[0] != (FileCount{"c.jsonl", 12}) || res.Scopes[0].NoStatus != 12 || res.Scopes[0].ErrorCount != 1 {
		t.Errorf("no status %+v, scope %+v", res.NoStatus, res.Scopes[0])
	}
}
