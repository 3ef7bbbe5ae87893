package analyze_test

import (
	"math/rand/v2"
	"testing"

	"github.com/killswitch/killswitch/analyze"
)

// The growing ring behaves as a plain FIFO of the last Cap entries,
// whatever the pushes, resizes and clears.
func TestWindowGrowsAsAFIFO(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 500; trial++ {
		size := 1 + rng.IntN(30)
		w := analyze.NewWindow(size)
		var ref []uint64
		for step := 0; step < 200; step++ {
			switch op := rng.IntN(20); {
			case op == 0:
				size = 1 + rng.IntN(30)
				w.Resize(size)
				if len(ref) > size {
					ref = ref[len(ref)-size:]
				}
			case op == 1:
				w.Clear()
				ref = ref[:0]
			default:
				v := rng.Uint64()
				w.Push(analyze.Entry{Prompt: v})
				ref = append(ref, v)
				if len(ref) > size {
					ref = ref[1:]
				}
			}
			if w.Len() != len(ref) || w.Cap() != size {
				t.Fatalf("trial %d step %d: len %d cap %d, want %d %d", trial, step, w.Len(), w.Cap(), len(ref), size)
			}
			for i, v := range ref {
				if w.At(i).Prompt != v {
					t.Fatalf("trial %d step %d: entry %d differs", trial, step, i)
				}
			}
		}
	}
}
