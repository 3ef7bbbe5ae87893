package simhash

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkPlainWords fails t when plainWordsFast differs from plainWords on
// src from p, with room for room open hashes after n kept ones (0 or 3):
// where they stop, and every open hash they keep. The two must agree from
// any p (not only the start of a word), whatever follows the text in
// memory.
func checkPlainWords(t *testing.T, src []byte, p, room, n int) {
	t.Helper()
	start := func() []uint64 {
		xs := make([]uint64, n+room)
		for i := range n {
			xs[i] = uint64(i+1) * 0x9e3779b97f4a7c15
		}
		return xs
	}
	want := start()
	wantEnd, wantN := plainWords(src, p, want, n)
	eachPath(func(avx bool) {
		got := start()
		gotEnd, gotN := plainWordsFast(src, p, got, n)
		if gotEnd != wantEnd || gotN != wantN || !slices.Equal(got, want) {
			t.Fatalf("plainWordsFast(%q, %d, room %d after %d; AVX-512 %v) = %d, %d, %x; plainWords %d, %d, %x",
				src, p, room, n, avx, gotEnd, gotN, got[n:], wantEnd, wantN, want[n:])
		}
	})
}

// hasAVX512 is whether this processor has what the AVX-512 code paths
// need.
var hasAVX512 = useAVX512

// eachPath runs f with useAVX512 off, then on where this processor has
// AVX-512, and leaves it as it found it.
func eachPath(f func(avx bool)) {
	defer func() { useAVX512 = hasAVX512 }()
	for _, avx := range []bool{false, true} {
		if avx && !hasAVX512 {
			return
		}
		useAVX512 = avx
		f(avx)
	}
}

// TestPlainWordsFast compares the assembly version of plainWords (where
// there is one) with the Go one from every position of the edge cases of
// TestFastPathEdges, of prose and of mutated prose, of runs of number
// words, with room for every word and for a few, with no word kept before
// and with some; the text is followed by bytes that would extend its last
// word, so that reading past it would show.
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
	// Words with one number, of every length around the 15-byte limit,
	// with and without a fraction, prefixes and suffixes of upper case,
	// punctuation and control bytes, and near misses (a second number, a
	// dot without digits, non-ASCII bytes).
	numbers := func() []byte {
		var b []byte
		for range 40 {
			for range rng.IntN(9) {
				b = append(b, "aZ#(\x01\x7f-._"[rng.IntN(9)])
			}
			for range 1 + rng.IntN(13) {
				b = append(b, byte('0'+rng.IntN(10)))
			}
			switch rng.IntN(4) {
			case 0:
				b = append(b, '.')
				for range rng.IntN(4) {
					b = append(b, byte('0'+rng.IntN(10)))
				}
			case 1:
				b = append(b, "é1.x-2"[rng.IntN(6)])
			}
			for range rng.IntN(5) {
				b = append(b, "%)Xs,:"[rng.IntN(6)])
			}
			b = append(b, " \t\n  "[rng.IntN(5)])
		}
		return b
	}
	for range 100 {
		texts = append(texts, numbers())
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
				checkPlainWords(t, src, p, room, 0)
				checkPlainWords(t, src, p, room, 3)
			}
		}
	}
}

func FuzzPlainWords(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice: ABCDEFGHIJKLMNO x"), uint16(0), uint8(40), false)
	f.Add([]byte("  \n\t spaces   then words \x00 and \x7f\x80 more words here and there "), uint16(1), uint8(2), true)
	f.Fuzz(func(t *testing.T, src []byte, p uint16, room uint8, kept bool) {
		n := 0
		if kept {
			n = 3
		}
		checkPlainWords(t, src, min(int(p), len(src)), int(room), n)
	})
}

// TestTallyFast compares the assembly version of tallyFast (where there
// is one) with the Go adder tree and listHot: from planes that already hold
// counts, on random features, on features with many bits set (carries
// rippling up many planes), and in buckets of every count around the cap,
// from an empty list and a list with features in it.
func TestTallyFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range []int{64, 1024} {
		cnt := make([]uint16, size)
		for i := range cnt {
			cnt[i] = uint16(rng.IntN(9))
		}
		cnt[0] = 0xffff
		for _, n := range []int{32, 64, 96, 1024, 4096} {
			for _, dense := range []bool{false, true} {
				fs := randomFeatures(rng, n, dense)
				for _, nh := range []int{0, 5} {
					var a accumulator
					a.reset()
					for j := range 6 {
						a.planes[j] = rng.Uint64()
					}
					wantPlanes := a.planes
					groupsGo(fs, &wantPlanes)
					want, got := make([]uint64, 8192), make([]uint64, 8192)
					wantN := listHot(fs, cnt, uint64(size-1), want, nh)
					var odd [4]uint64
					gotN := tallyFast(fs, &a.planes, &odd, cnt, uint64(size-1), got, nh)
					a.addPlanes(odd[:])
					if gotN != wantN || !slices.Equal(got[:gotN], want[:wantN]) {
						t.Fatalf("%d features, %d buckets, from %d: tallyFast lists %d %x; listHot %d %x",
							n, size, nh, gotN, got[:gotN], wantN, want[:wantN])
					}
					if a.planes != wantPlanes {
						t.Fatalf("%d features (dense %v): tallyFast's planes %x; groupsGo's %x", n, dense, a.planes[:16], wantPlanes[:16])
					}
				}
			}
		}
	}
}

// TestPlainWordsFastShort checks texts shorter than 16 bytes, nil among
// them: the kernel reads nothing and stops where it started.
func TestPlainWordsFastShort(t *testing.T) {
	for _, src := range [][]byte{nil, {}, []byte("fifteen bytes!!")} {
		for p := range len(src) + 1 {
			checkPlainWords(t, src, p, 4, 0)
		}
	}
}

// TestSettleFast compares settleFast (AVX-512 where the processor has it)
// and bucketFast with their Go versions, for every count of words around
// the eight a step, and checks they write nothing past the words.
func TestSettleFast(t *testing.T) {
	if !useAVX512 {
		t.Log("no AVX-512 here: settleFast is settle")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 40 {
		xs := make([]uint64, n+9)
		for i := range xs {
			xs[i] = rng.Uint64()
		}
		want := slices.Clone(xs)
		wantG := make([]uint64, n+9)
		settle(want, wantG, n)
		var got []uint64
		eachPath(func(avx bool) {
			got = slices.Clone(xs)
			gotG := make([]uint64, n+9)
			settleFast(got, gotG, n)
			if !slices.Equal(got, want) || !slices.Equal(gotG, wantG) {
				t.Fatalf("%d words, AVX-512 %v: settleFast %x %x; settle %x %x", n, avx, got, gotG, want, wantG)
			}
		})
		for _, size := range []int{64, 1024} {
			wantC, gotC := make([]uint16, size), make([]uint16, size)
			bucket(want[:n], wantC, uint64(size-1))
			bucketFast(got[:n], gotC, uint64(size-1))
			if !slices.Equal(gotC, wantC) {
				t.Fatalf("%d features in %d buckets: bucketFast %v; bucket %v", n, size, gotC, wantC)
			}
		}
	}
}

// TestTallyAVX512 compares tallyAVX512 with slicedCounts and listHot, for
// every count of features up to 70 and some larger ones, split at random
// between ws and gs, sparse and dense bits, with no bucket full, one to
// eight (listed by comparing buckets), nine, ten and many (by gathering
// counts); the count past cnt's end, which the gathers may read, must not
// matter.
func TestTallyAVX512(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 here")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	sizes := []int{100, 255, 256, 257, 1000, 2047, 4095}
	for n := range 71 {
		sizes = append(sizes, n)
	}
	for _, buckets := range []int{64, 1024, 2048, 4096} {
		mask := uint64(buckets - 1)
		for _, n := range sizes {
			for _, dense := range []bool{false, true} {
				fs := randomFeatures(rng, n, dense)
				split := rng.IntN(n + 1)
				for full := range 13 {
					// full buckets: 0-10 (most of them some features'),
					// or 11 and 12 meaning many.
					cnt := make([]uint16, buckets, buckets+1)
					cnt[:buckets+1][buckets] = 0xffff
					for i := range cnt {
						cnt[i] = uint16(rng.IntN(5))
						if full > 10 {
							cnt[i] = uint16(rng.IntN(9))
						}
					}
					for made := 0; made < full && full <= 10; {
						b := rng.IntN(buckets)
						if n > 0 && rng.IntN(4) > 0 {
							b = int(fs[rng.IntN(n)] >> countBits & mask)
						}
						if cnt[b] <= tfCap {
							cnt[b] = 5 + uint16(rng.IntN(3))
							made++
						}
					}
					want := slicedCounts(fs)
					wantHot := make([]uint64, 8192)
					wantN := listHot(fs, cnt, mask, wantHot, 0)
					var sums [12]uint64
					gotHot := make([]uint64, 8192)
					gotN := tallyAVX512(fs[:split], fs[split:], &sums, cnt, mask, gotHot)
					var a accumulator
					a.reset()
					a.addPlanes(sums[:])
					if gotN != wantN || !slices.Equal(gotHot[:gotN], wantHot[:wantN]) {
						t.Fatalf("%d features (%d+%d), %d buckets, %d full: tallyAVX512 lists %d %x; listHot %d %x",
							n, split, n-split, buckets, full, gotN, gotHot[:gotN], wantN, wantHot[:wantN])
					}
					if a.planes != want {
						t.Fatalf("%d features (%d+%d, dense %v): tallyAVX512's planes %x; slicedCounts' %x",
							n, split, n-split, dense, a.planes[:13], want[:13])
					}
				}
			}
		}
	}
}

// slicedCounts counts, bit by bit, how many of fs have each bit set, and
// returns the counts bit-sliced as an accumulator's planes hold them.
func slicedCounts(fs []uint64) [64]uint64 {
	var counts [64]uint64
	for _, f := range fs {
		for b := range 64 {
			counts[b] += f >> b & 1
		}
	}
	var planes [64]uint64
	for b, c := range counts {
		for j := range 64 {
			planes[j] |= (c >> j & 1) << b
		}
	}
	return planes
}

// randomFeatures returns n random features; dense ones have their bits
// from i%64 up set, so that many carries ripple far.
func randomFeatures(rng *rand.Rand, n int, dense bool) []uint64 {
	fs := make([]uint64, n)
	for i := range fs {
		fs[i] = rng.Uint64()
		if dense {
			fs[i] |= ^uint64(0) << (i % 64)
		}
	}
	return fs
}
