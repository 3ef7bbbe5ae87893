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

// TestJSONLStatusDigits: a status of one to three digits, read without
// parsing a float, is what the general path reads; any other spelling
// (a numeric string, an exponent, a fraction, a sign, four digits) still
// goes through it, and is read or refused as before; leading zeros are
// not JSON, refused before either.
func TestJSONLStatusDigits(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int // -1: refused
	}{
		{"200", 200}, {"0", 0}, {"7", 7}, {"007", -1}, {"429", 429}, {"999", 999},
		{"1000", -1}, {`"503"`, 503}, {"2e2", 200}, {"200.0", 200}, {"200.5", -1},
		{"-1", -1}, {"-0", 0}, {"", -1}, {"20a", -1},
	} {
		if n, ok := statusDigits([]byte(c.raw)); ok && n != c.want && c.raw != "007" { // 007 is not JSON: the line's scan refuses it first
			t.Errorf("statusDigits(%s) = %d, want %d", c.raw, n, c.want)
		}
		if c.raw == "" {
			continue
		}
		r := NewJSONL(strings.NewReader(`{"ts":1,"agent":"a","request":{},"status":`+c.raw+"}\n"), "s.jsonl", JSONLOptions{})
		if !r.Scan() {
			t.Fatalf("status %s: no record", c.raw)
		}
		rec := r.Record()
		switch {
		case c.want < 0 && rec.Err == nil:
			t.Errorf("status %s read as %d, want it refused", c.raw, rec.Status)
		case c.want >= 0 && (rec.Err != nil || rec.Status != c.want):
			t.Errorf("status %s: %d, %v; want %d", c.raw, rec.Status, rec.Err, c.want)
		}
	}
}
