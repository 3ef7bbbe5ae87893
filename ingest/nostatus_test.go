package ingest

import (
	"strings"
	"testing"
)

func TestJSONLNoStatus(t *testing.T) {
	r := NewJSONL(strings.NewReader(`{"ts":1,"agent":"a","request":{}}
{"ts":2,"agent":"a","request":{},"status":null}
{"ts":3,"agent":"a","request":{},"status":503}
`), "s.jsonl", JSONLOptions{})
	var got []bool
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		if rec.NoStatus && rec.Status != 200 {
			t.Errorf("status %d without one", rec.Status)
		}
		got = append(got, rec.NoStatus)
	}
	if len(got) != 3 || !got[0] || !got[1] || got[2] {
		t.Errorf("NoStatus %v, want [true true false]", got)
	}
}
