package simhash

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkPlainWords fails t when plainWordsFast differs from plainWords on
// src from p, with room for room word hashes after n kept ones. The two
// must agree on where they stop and on every hash, from any p (not only
// the start of a word) and whatever follows the text in memory.
func checkPlainWords(t *testing.T, src []byte, p, room int) {
	t.Helper()
	const n = 3
	want := make([]uint64, n+room)
	got := make([]uint64, n+room)
	wantEnd, wantN := plainWords(src, p, want, n)
	gotEnd, gotN := plainWordsFast(src, p, got, n)
	if gotEnd != wantEnd || gotN != wantN || !slices.Equal(got, want) {
		t.Fatalf("plainWordsFast(%q, %d, room %d) = %d, %d, %x; plainWords %d, %d, %x",
			src, p, room, gotEnd, gotN, got[n:], wantEnd, wantN, want[n:])
	}
}

// TestPlainWordsFast compares the assembly version of plainWords (where
// there is one) with the Go one from every position of the edge cases of
// TestFastPathEdges, of prose and of mutated prose, with room for every
// word and for a few; the text is followed by bytes that would extend its
// last word, so that reading past it would show.
func TestPlainWordsFast(t *testing.T) {
	texts := [][]byte{
		[]byte("abcdefghijklmno abcdefghijklmnop abcdefghijklmnopq AbCdEfGh ABCDEFGHIJKLMNO@[`{ z"),
		[]byte("words then\ttab\nnewline\r\ncrlf  two spaces\v\fand\u00a0nbsp\u2028ls end \x00\x1f\x7f\x80 x"),
		[]byte("a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9 /:;<=>?@ "),
		[]byte("   \n\n\t\t  \r\n    lots of   white \v\f space    \n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"),
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 60 {
		texts = append(texts, proseText(rng, n), mutate(rng, proseText(rng, n)))
	}
	for i := range 200 {
		b := make([]byte, i)
		for j := range b {
			b[j] = " \t\nAZaz@[`{09/:\x00\x7f\x80\xff-.éx"[rng.IntN(22)]
		}
		texts = append(texts, b)
	}
	for _, text := range texts {
		src := append(bytes.Clone(text), "abcdefghijklmnop"...)[:len(text)]
		for p := range len(src) + 1 {
			for _, room := range []int{0, 1, 2, len(src)} {
				checkPlainWords(t, src, p, room)
			}
		}
	}
}

func FuzzPlainWords(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice: ABCDEFGHIJKLMNO x"), uint16(0), uint8(40))
	f.Add([]byte("  \n\t spaces   then words \x00 and \x7f\x80 more words here and there "), uint16(1), uint8(2))
	f.Fuzz(func(t *testing.T, src []byte, p uint16, room uint8) {
		checkPlainWords(t, src, min(int(p), len(src)), int(room))
	})
}
