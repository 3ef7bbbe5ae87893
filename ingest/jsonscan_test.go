package ingest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// refSkipString is skipString written the slow way: byte by byte, a
// backslash escaping the byte after it.
func refSkipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// TestSkipString compares skipString with refSkipString on strings of
// quotes, backslashes and other bytes around the 8-byte blocks its fast
// path reads, from every opening quote.
func TestSkipString(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		b := make([]byte, rng.IntN(48))
		for j := range b {
			b[j] = `ab"\\ "x`[rng.IntN(7)]
		}
		for i, c := range b {
			if c != '"' {
				continue
			}
			want, ok := refSkipString(b, i)
			got, err := skipString(b, i)
			if (err == nil) != ok || got != want {
				t.Fatalf("skipString(%q, %d) = %d, %v; want %d (terminated %v)", b, i, got, err, want, ok)
			}
		}
	}
}

// checkNumber compares SkipJSONNumber taking all of lit with json.Valid.
func checkNumber(t *testing.T, lit []byte) {
	t.Helper()
	end, ok := SkipJSONNumber(lit, 0)
	got := ok && end == len(lit)
	// json.Valid also takes true/false/null, strings and white space
	// around a value; a literal of the bytes below is none of those.
	if want := json.Valid(lit); got != want {
		t.Fatalf("SkipJSONNumber(%q) = %d, %v; json.Valid says %v", lit, end, ok, want)
	}
}

// TestSkipJSONNumber checks SkipJSONNumber's grammar against json.Valid
// on short strings of the bytes numbers are made of.
func TestSkipJSONNumber(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for range 200000 {
		lit := make([]byte, 1+rng.IntN(8))
		for j := range lit {
			lit[j] = "0123456789-+.eE"[rng.IntN(15)]
		}
		checkNumber(t, lit)
	}
}

// FuzzSkipJSONNumber: SkipJSONNumber agrees with json.Valid on any
// literal without white space, quotes or letters json.Valid would take.
func FuzzSkipJSONNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.5e+10", "01", "1.", ".5", "1e", "-", "2E-3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		if len(lit) == 0 || bytes.ContainsAny(lit, " \t\r\n\"tfn[{") {
			return
		}
		checkNumber(t, lit)
	})
}
