package ingest

import (
	"math"
	"math/rand/v2"
	"strconv"
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

// TestJSONLStatusNumbers: a status is read as before the fast path for
// plain decimals (numberOf): written as digits, as a numeric string, with
// an exponent or a fraction; refused when it is not a whole number from 0
// to 999; leading zeros are not JSON, refused by the line's scan.
func TestJSONLStatusNumbers(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int // -1: refused
	}{
		{"200", 200}, {"0", 0}, {"7", 7}, {"007", -1}, {"429", 429}, {"999", 999},
		{"1000", -1}, {`"503"`, 503}, {"2e2", 200}, {"200.0", 200}, {"200.5", -1},
		{"-1", -1}, {"-0", 0}, {"20a", -1}, {"1234567890123456789", -1},
	} {
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

// TestDecimalValue: decimalValue reads what strconv.ParseFloat reads, bit
// for bit, wherever it takes a number (plain decimals of up to 15 digits,
// signed, with up to 15 decimals), and leaves everything else to it.
func TestDecimalValue(t *testing.T) {
	check := func(s string) {
		got, ok := decimalValue([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if ok && (err != nil || math.Float64bits(got) != math.Float64bits(want)) {
			t.Fatalf("decimalValue(%q) = %v (%x), ParseFloat %v (%x), %v", s, got, math.Float64bits(got), want, math.Float64bits(want), err)
		}
	}
	for _, s := range []string{"0", "-0", "0.0001", "0.1", "0.3", "1.005", "123.456", "999999999999999", "9999999999999999",
		"0.000000000000001", "1.23456789012345", "-12.5", "1e3", "1E-2", ".5", "5.", "-", "", "0x10", "1.2.3", "+1", "00.10"} {
		check(s)
	}
	if _, ok := decimalValue([]byte("1e3")); ok {
		t.Error("an exponent taken by the fast path")
	}
	if _, ok := decimalValue([]byte("1234567890.1234567")); ok {
		t.Error("17 digits taken by the fast path")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		digits := 1 + rng.IntN(16)
		b := make([]byte, 0, 20)
		if rng.IntN(4) == 0 {
			b = append(b, '-')
		}
		dot := rng.IntN(digits + 1)
		for i := range digits {
			if i == dot && i > 0 {
				b = append(b, '.')
			}
			b = append(b, byte('0'+rng.IntN(10)))
		}
		check(string(b))
	}
}

// FuzzDecimalValue: whatever the bytes, decimalValue either declines or
// returns ParseFloat's value, bit for bit.
func FuzzDecimalValue(f *testing.F) {
	for _, s := range []string{"0", "-0", "0.0001", "200", "1.005", "999999999999999", "9999999999999999", "1e3", ".5", "5.", "-", "", "1.2.3", "00.10", "0.000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := decimalValue([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("decimalValue(%q) = %v, ParseFloat %v, %v", s, got, want, err)
		}
	})
}
