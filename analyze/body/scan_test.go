package body

import (
	"math/rand/v2"
	"testing"

	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// TestSkipStringPaths compares skipString with AVX-512 and without, from
// every opening quote of strings of quotes, backslashes and other bytes
// around the 8- and 64-byte blocks the two paths read.
func TestSkipStringPaths(t *testing.T) {
	if !jsonsimd.Enabled {
		t.Skip("no AVX-512 here: skipString has one path")
	}
	defer func() { jsonsimd.Enabled = true }()
	rng := rand.New(rand.NewPCG(21, 22))
	for range 20000 {
		b := make([]byte, rng.IntN(200))
		p := 0.02 + 0.3*rng.Float64()
		for j := range b {
			if rng.Float64() < p {
				b[j] = `"\`[rng.IntN(2)]
			} else {
				b[j] = 'x'
			}
		}
		for i, c := range b {
			if c != '"' {
				continue
			}
			jsonsimd.Enabled = true
			fast, okFast := skipString(b, i)
			jsonsimd.Enabled = false
			slow, okSlow := skipString(b, i)
			if fast != slow || okFast != okSlow {
				t.Fatalf("skipString(%q, %d) = %d, %v with AVX-512; %d, %v without", b, i, fast, okFast, slow, okSlow)
			}
		}
	}
}
