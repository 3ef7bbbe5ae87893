package simhash

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// majority3 is the bitwise majority of three words: the SimHash of three
// features, derived by hand from the definition.
func majority3(a, b, c uint64) uint64 { return a&b | b&c | a&c }

// TestHashSmallTexts checks Hash against values derived by hand from the
// definition of the features (refWordHash and bigram are the primitives),
// without the reference SimHash.
func TestHashSmallTexts(t *testing.T) {
	w := refWordHash
	u, v := w("hello"), w("world")
	x := w("a")
	g := bigram(x, x)
	cases := []struct {
		name string
		in   string
		want uint64
	}{
		// One feature: the SimHash is the feature itself.
		{"one word", "hello", u},
		{"one word, case and spaces", "  HELLO\r\n", u},
		// Two words: features u, v and the pair; each bit is their majority.
		{"two words", "hello world", majority3(u, v, bigram(u, v))},
		// Word order matters through the pair feature.
		{"two words swapped", "world hello", majority3(v, u, bigram(v, u))},
		// "a a": x counted twice and the pair once: majority is x.
		{"repeated word", "a a", x},
		// "a a a a a a": x six times and the pair five times, each capped
		// at tfCap = 4: eight features, a tie wherever x and g differ,
		// decided by tieBits.
		{"cap and tie", "a a a a a a", x&g | (x^g)&tieBits},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := Hash([]byte(tc.in))
			if !ok || h != tc.want {
				t.Errorf("Hash(%q) = %016x, %v; want %016x, true", tc.in, h, ok, tc.want)
			}
		})
	}
}

func TestHashNoFeatures(t *testing.T) {
	for _, in := range []string{"", " ", "\r\n\t \u00a0\u2028\u3000"} {
		if h, ok := Hash([]byte(in)); ok || h != 0 {
			t.Errorf("Hash(%q) = %016x, %v; want no hash", in, h, ok)
		}
	}
	for _, in := range []string{"x", "1", ".", "\xff"} {
		if _, ok := Hash([]byte(in)); !ok {
			t.Errorf("Hash(%q) has no hash; a one-token text is one feature", in)
		}
	}
}

// TestHashIgnoresVariables: texts that differ only in numbers, timestamps,
// UUIDs, hex IDs, case and white space normalize to the same text, so their
// distance is 0 (SPEC §1.3 asks for < 3).
func TestHashIgnoresVariables(t *testing.T) {
	pairs := [][2]string{
		{"Order #12345 shipped at 2024-01-15T10:30:00Z to warehouse 7",
			"order #9 shipped at 2025-12-31 23:59:59.999+01:00 to warehouse 1234"},
		{"Fetch job 550e8400-e29b-41d4-a716-446655440000 (attempt 1 of 3)",
			"fetch  job  7F9C2A1E-0B3D-4C5E-8F6A-9B8C7D6E5F4A\r\n(attempt 2 of 3)"},
		{"deploy 9fceb02d0ae598e95dc970b74767f19372d61af8 failed after 12.5 s",
			"Deploy 0123456789abcdef0123 failed after 3 s"},
	}
	for _, p := range pairs {
		a, okA := Hash([]byte(p[0]))
		b, okB := Hash([]byte(p[1]))
		if !okA || !okB || Distance(a, b) != 0 {
			t.Errorf("Distance(Hash(%q), Hash(%q)) = %d, want 0", p[0], p[1], Distance(a, b))
		}
	}
}

func TestHashDifferentTexts(t *testing.T) {
	a, _ := Hash([]byte("Summarize the attached quarterly report and list the three biggest risks."))
	b, _ := Hash([]byte("Write a Python function that parses ISO dates and returns a datetime object."))
	if d := Distance(a, b); d <= 5 {
		t.Errorf("unrelated prompts at distance %d, want > 5", d)
	}
}

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b uint64
		want int
	}{
		{0, 0, 0},
		{0, ^uint64(0), 64},
		{0b1011, 0b0110, 3},
		{1 << 63, 1, 2},
	}
	for _, tc := range cases {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%#x, %#x) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// longText returns n bytes of words drawn from a small vocabulary, with
// numbers, long words and non-ASCII mixed in.
func longText(rng *rand.Rand, n int) []byte {
	vocab := []string{"the", "agent", "called", "tool", "search", "with", "query", "Über", "naïve",
		"2024-01-15T10:30:00Z", "42", "x", "deadbeef-0000-4000-8000-00000000abcd",
		strings.Repeat("long", 40), "a\tb", "\r\n", "ok.", "#", "é"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(vocab[rng.IntN(len(vocab))])
		b.WriteByte(" \n"[rng.IntN(2)])
	}
	return []byte(b.String()[:n])
}

// TestHashMatchesReference compares Hash with the reference on texts long
// enough to cross many buffer boundaries and to grow the feature table
// beyond the stack (pooled tables, twice in a row to reuse them).
func TestHashMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 8, 9, 100, 511, 512, 513, 4096, 50_000, 200_000, 200_000} {
		src := longText(rng, n)
		want, wantOK := refHash(src)
		if got, ok := Hash(src); got != want || ok != wantOK {
			t.Errorf("Hash of %d bytes = %016x, %v; reference %016x, %v", n, got, ok, want, wantOK)
		}
		if n <= 4096 {
			for _, size := range []int{16, 17, 64, 100} {
				if got, ok := hashWithBuf(src, size); got != want || ok != wantOK {
					t.Errorf("hash of %d bytes with %d-byte buffer = %016x; reference %016x", n, size, got, want)
				}
			}
		}
	}
	// Many distinct words: the feature table must grow.
	var b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&b, "w%c%c%c ", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26)
	}
	src := []byte(b.String())
	want, _ := refHash(src)
	for range 2 {
		if got, _ := Hash(src); got != want {
			t.Errorf("Hash of %d distinct words = %016x; reference %016x", 20_000, got, want)
		}
	}
}

func TestHashAllocs(t *testing.T) {
	src := longText(rand.New(rand.NewPCG(5, 6)), 4096)
	if n := testing.AllocsPerRun(100, func() { Hash(src) }); n != 0 && !raceEnabled {
		t.Errorf("Hash of 4 KB allocates %v times per call, want 0", n)
	}
	dst := make([]byte, 0, 8192)
	if n := testing.AllocsPerRun(100, func() { dst = Normalize(dst[:0], src) }); n != 0 {
		t.Errorf("Normalize into a large enough dst allocates %v times per call, want 0", n)
	}
}

// TestCountBucketsMatchesReference checks the bucketed capped count
// (count.go) where it differs from a table lookup per feature: words
// repeated far beyond the cap (the excess taken off, borrows rippling
// through many planes), texts around the number of words kept, and
// distinct features forced into shared buckets by a space with few of them.
func TestCountBucketsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	repeat := func(word string, n int) []byte { return []byte(strings.Repeat(word+" ", n)) }
	texts := map[string][]byte{
		"one word 5 times":      repeat("again", 5),
		"one word 2000 times":   repeat("the", 2000),
		"two words alternating": []byte(strings.Repeat("ping pong ", 1000)),
		"repeats amid prose":    append(repeat("the", 300), proseText(rng, 500)...),
	}
	for _, n := range []int{maxBuffered - 1, maxBuffered, maxBuffered + 1, 2*maxBuffered + 3} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "w%c%c%c ", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26)
		}
		texts[fmt.Sprintf("%d distinct words", n)] = []byte(b.String())
		texts[fmt.Sprintf("%d words of prose", n)] = proseText(rng, n)
	}
	for name, src := range texts {
		want, wantOK := refHash(src)
		eachPath(func(avx bool) {
			if got, ok := Hash(src); got != want || ok != wantOK {
				t.Errorf("%s, AVX-512 %v: Hash = %016x, %v; reference %016x, %v", name, avx, got, ok, want, wantOK)
			}
		})
		// A space of 64 buckets: most features share a full bucket with
		// others and are counted exactly, among them features seen once.
		sp := newSpace(maxBuffered)
		sp.cnt = sp.cnt[:64]
		var h hasher
		if got, ok := h.hash(src, make([]byte, hashBuf), sp); got != want || ok != wantOK {
			t.Errorf("%s, 64 buckets: hash = %016x, %v; reference %016x, %v", name, got, ok, want, wantOK)
		}
	}
}
