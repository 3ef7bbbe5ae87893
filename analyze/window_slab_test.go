package analyze

import (
	"math/rand/v2"
	"testing"
)

// Windows growing from one slab stay plain FIFOs of their last Cap
// entries, whatever the pushes, resizes and clears of the others: no two
// share storage.
func TestWindowSlabSharedByManyWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	var slab windowSlab
	ws := make([]Window, 300)
	refs := make([][]uint64, len(ws))
	for i := range ws {
		ws[i].size = int32(1 + rng.IntN(20))
	}
	for step := 0; step < 100000; step++ {
		i := rng.IntN(len(ws))
		w := &ws[i]
		switch op := rng.IntN(50); {
		case op == 0:
			size := 1 + rng.IntN(20)
			w.Resize(size)
			if len(refs[i]) > size {
				refs[i] = refs[i][len(refs[i])-size:]
			}
		case op == 1:
			w.Clear()
			refs[i] = refs[i][:0]
		case op == 2:
			// An agent replaced by a new one (what finishing does to all).
			slab.put(w.buf)
			*w = Window{size: int32(1 + rng.IntN(20))}
			refs[i] = nil
		default:
			v := rng.Uint64() | 1
			w.push(Entry{Prompt: v, ToolSig: "t"}, &slab)
			refs[i] = append(refs[i], v)
			if len(refs[i]) > w.Cap() {
				refs[i] = refs[i][1:]
			}
		}
		for j, v := range refs[i] {
			if got := w.At(j).Prompt; got != v {
				t.Fatalf("step %d window %d: entry %d is %x, want %x", step, i, j, got, v)
			}
		}
		if w.Len() != len(refs[i]) {
			t.Fatalf("step %d window %d: len %d, want %d", step, i, w.Len(), len(refs[i]))
		}
	}
	for i := range ws {
		for j, v := range refs[i] {
			if ws[i].At(j).Prompt != v {
				t.Fatalf("end: window %d entry %d differs", i, j)
			}
		}
	}
}

// A nil slab grows windows from the heap, as Window.Push does.
func TestWindowSlabNil(t *testing.T) {
	var s *windowSlab
	b := s.get(4)
	if len(b) != 0 || cap(b) != 4 {
		t.Fatalf("nil slab: len %d cap %d", len(b), cap(b))
	}
	s.put(b) // no effect, no panic
	var slab windowSlab
	if b := slab.get(3); cap(b) != 3 {
		t.Fatalf("3 entries (not a class): cap %d", cap(b))
	}
	if b := slab.get(16); cap(b) != 16 {
		t.Fatalf("16 entries (past slabMax): cap %d", cap(b))
	}
	a := slab.get(2)
	a = append(a, Entry{Prompt: 1}, Entry{Prompt: 2})
	slab.put(a)
	if b := slab.get(2); &b[:1][0] != &a[0] || b[:2][0].Prompt != 0 {
		t.Fatalf("storage handed back is not reused empty")
	}
}
