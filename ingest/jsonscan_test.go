package ingest

import (
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
