package logs

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unsafe"
)

// TestInterner numbers strings as they are first added, finds them
// again whether or not their bytes lie where the first one's did, and,
// when it owns its strings, keeps copies (a plan kept to the end must not
// hold the column decoder's chunks of texts alive).
func TestInterner(t *testing.T) {
	chunk := []byte("agent.runLLMagent.run")
	view := func(lo, hi int) string { return unsafe.String(&chunk[lo], hi-lo) }
	for _, own := range []bool{false, true} {
		in := interner{own: own}
		adds := []struct {
			s    string
			want int32
		}{{"", 0}, {view(0, 9), 1}, {view(9, 12), 2}, {view(0, 9), 1}, {view(12, 21), 1}, {"LLM", 2}, {view(9, 12), 2}, {"x", 3}, {"", 0}}
		for i, a := range adds {
			if got := in.add(a.s); got != a.want {
				t.Errorf("own %v: add %d (%q) = %d, want %d", own, i, a.s, got, a.want)
			}
		}
		if len(in.strs) != 4 || in.strs[1] != "agent.run" || in.strs[2] != "LLM" || in.strs[3] != "x" {
			t.Errorf("own %v: strings %q", own, in.strs)
		}
		inChunk := unsafe.StringData(in.strs[1]) == &chunk[0]
		if inChunk == own {
			t.Errorf("own %v: the first string's bytes in the chunk: %v", own, inChunk)
		}
		in.reset()
		if got := in.add("LLM"); got != 0 || len(in.strs) != 1 {
			t.Errorf("own %v: after reset, add = %d with %d strings", own, got, len(in.strs))
		}
	}
}

// sortHashes orders hashes as slices.Sort does: random ones (below and
// above its bucketing size), many equal, all in one bucket, and hashes
// whose top bits differ only in a few buckets.
func TestSortHashes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		make func(i int) uint64
		n    int
	}{
		{"random small", func(int) uint64 { return rnd.Uint64() }, 500},
		{"random", func(int) uint64 { return rnd.Uint64() }, 100_000},
		{"equal", func(int) uint64 { return 42 }, 5_000},
		{"one bucket", func(int) uint64 { return rnd.Uint64() >> 20 }, 5_000},
		{"few buckets", func(i int) uint64 { return uint64(i%3)<<62 | rnd.Uint64()>>40 }, 70_000},
		{"pairs", func(i int) uint64 { return uint64(i/2) * 0x9e3779b97f4a7c15 }, 30_000},
	} {
		h := make([]uint64, tc.n)
		for i := range h {
			h[i] = tc.make(i)
		}
		want := slices.Clone(h)
		slices.Sort(want)
		sortHashes(h)
		if !slices.Equal(h, want) {
			t.Errorf("%s: not sorted as slices.Sort sorts", tc.name)
		}
	}
}

// TestInternerNumbers: an interner numbers strings as a map from each
// string to the count of distinct strings before it does, below and
// above internScan strings (where it moves from a scan to its map), and
// again after every reset.
func TestInternerNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 19))
	var in interner
	for round := range 40 {
		distinct := 1 + round%(3*internScan) // up to three times what a scan holds
		want := map[string]int32{}
		for range 400 {
			s := strconv.Itoa(rng.IntN(distinct))
			w, ok := want[s]
			if !ok {
				w = int32(len(want))
				want[s] = w
			}
			if got := in.add(s); got != w {
				t.Fatalf("round %d (%d distinct): add(%q) = %d, want %d", round, distinct, s, got, w)
			}
			if in.strs[w] != s {
				t.Fatalf("round %d: strs[%d] = %q, want %q", round, w, in.strs[w], s)
			}
		}
		in.reset()
	}
}
