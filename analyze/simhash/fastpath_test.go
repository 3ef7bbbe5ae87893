package simhash

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Hash reads plain words straight from the source and sends everything
// else through the scanner in stretches (hasher.region). These tests check
// it against the streaming path it replaced, which normalizes the whole
// text through the scanner and splits the result at spaces (streamHash),
// and which the reference tests check against the documented rules.

// streamHash is the hash of src computed without the plain-word path: the
// whole text through the scanner and a buffer of size bytes.
func streamHash(src []byte, size int) (uint64, bool) {
	var h hasher
	h.reset(newSpace(maxBuffered), len(src))
	h.normalized(src, 0, len(src), make([]byte, size))
	return h.finish()
}

// checkFastPath fails t when Hash(src) differs from streamHash(src).
func checkFastPath(t *testing.T, src []byte) {
	t.Helper()
	want, wantOK := streamHash(src, hashBuf)
	if got, ok := Hash(src); got != want || ok != wantOK {
		t.Fatalf("Hash(%q) = %016x, %v; streaming path %016x, %v", src, got, ok, want, wantOK)
	}
}

// proseText returns n words of English-like prose drawn from a fixed
// vocabulary, with sentence ends, line breaks and occasional numbers, as the
// short-record benchmark corpus has them.
func proseText(rng *rand.Rand, n int) []byte {
	vocab := strings.Fields(`the a to of and in is that for it on with as this be are was by at or
		account address answer archive audit balance batch billing dashboard database deadline
		delivery deploy design Device discount draft driver email error Estimate responsibilities
		configuration internationalization don't e-mail "quoted" (parens) café`)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", " ", ". ", ".\n", "\n\n", "  ", "\t"}[rng.IntN(9)])
		}
		b.WriteString(vocab[rng.IntN(len(vocab))])
		if rng.IntN(20) == 0 {
			fmt.Fprintf(&b, " #%d", rng.IntN(100000))
		}
	}
	return []byte(b.String())
}

// mutate returns src with a few random edits drawn from what the rules and
// the plain-word path care about: digits, timestamps split by one space,
// hex runs, UUIDs of letters only, upper case, white space of every kind,
// control and non-ASCII bytes, and words of 15 and 16 bytes.
func mutate(rng *rand.Rand, src []byte) []byte {
	pieces := []string{"0", "7", "42", "3.14", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\x00", "\x1f", "\x7f",
		"-", ":", ".", "T", "Z", "2024-01-15", "2024-01-15 10:30:00", " 10:30", "2024-01-15 ",
		"deadbeefdeadbeef", "deadbeef-dead-beef-dead-beefdeadbeef", "0x1234abcd1234abcd", "DEADBEEF",
		"abcdefghijklmno", "abcdefghijklmnop", "ABCDEFGHIJKLMNO ", "é", "\u00a0", "\u2028", "\xff", "İ", "\u212a"}
	out := append([]byte(nil), src...)
	for range 1 + rng.IntN(4) {
		at := 0
		if len(out) > 0 {
			at = rng.IntN(len(out) + 1)
		}
		switch rng.IntN(3) {
		case 0: // insert
			p := pieces[rng.IntN(len(pieces))]
			out = append(out[:at], append([]byte(p), out[at:]...)...)
		case 1: // delete a few bytes
			end := min(len(out), at+1+rng.IntN(4))
			out = append(out[:at], out[end:]...)
		default: // flip the case of a byte
			if at < len(out) {
				out[at] ^= 0x20
			}
		}
	}
	return out
}

// TestFastPathMatchesStream compares Hash with the streaming path on the
// regression seeds, on prose like the benchmark corpus's, on the long texts
// of TestHashMatchesReference, on the Go documentation corpus when GOROOT
// holds it, and on random mutations of all of them.
func TestFastPathMatchesStream(t *testing.T) {
	var texts [][]byte
	for _, s := range fuzzSeeds {
		texts = append(texts, []byte(s.text))
	}
	rng := rand.New(rand.NewPCG(16, 17))
	for n := range 300 {
		texts = append(texts, proseText(rng, n))
	}
	for _, n := range []int{15, 16, 17, 31, 32, 33, 100, 1000, 5000} {
		texts = append(texts, longText(rng, n))
	}
	if !testing.Short() {
		corpus := goDocCorpus(t, 1)
		for _, c := range corpus {
			texts = append(texts, []byte(c.text))
		}
	}
	for _, src := range texts {
		checkFastPath(t, src)
		for range 5 {
			checkFastPath(t, mutate(rng, src))
		}
	}
}

// TestFastPathEdges checks the plain-word path where it hands over to the
// scanner: words of 15 and 16 bytes, the last 16 bytes of a text, a
// timestamp split by one space, and letters-only hex runs.
func TestFastPathEdges(t *testing.T) {
	for _, s := range []string{
		"abcdefghijklmno abcdefghijklmnop abcdefghijklmnopq and then some more words here",
		"ABCDEFGHIJKLMNO ABCDEFGHIJKLMNOP ABCDEFGHIJKLMNOPQ AND THEN SOME MORE WORDS HERE",
		"the run started at 2024-01-15 10:30:00 and ended at 2024-01-16 11:00 again later",
		"the run started at 2024-01-15 and ended at 11:00 of the 2024-01-16 day, twice",
		"a uuid deadbeef-dead-beef-dead-beefdeadbeef of letters and deadbeefdeadbeef too",
		"words then\ttab\nnewline\r\ncrlf  two spaces\v\fand\u00a0nbsp\u2028ls end",
		"sixteen chars ok then exactly sixteen bytesxx ",
		"   leading and trailing white space around a text of plain words here   \n",
		"a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9",
		"control\x00bytes\x01in words\x1f and \x7fdel in the middle of the plain words",
		// Words with one number (numberWord) and near misses that are not.
		"order #12345 of 42 items, v2.5 at 10% (3), 1st and 3. then 3.x or .5 and -7 done",
		"ID=17 X9Y 12345678901234 123456789012345 1234567890123456 abcdefghijklm12 ok",
		"v1.2.3 2024-01-15 1-2 0x1f 1e5 a1b2 deadbeef1 deadbeef-1 1.5.7 3.14159265358979",
		"naïve2 2é 12\u00a0 7\x00 8\x7f \x7f9 #1\t#2\n#3\r\n#4\v#5\f#6 end of the text here",
		"2024-01-15 10 and 2024-01-15 10:30 and 10:30 2024-01-15 and 12 34 56 end of it",
	} {
		for i := 0; i <= len(s); i++ {
			checkFastPath(t, []byte(s[:i]))
			checkFastPath(t, []byte(s[i:]))
		}
	}
}

func FuzzHashFastPath(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s.text))
	}
	f.Add(proseText(rand.New(rand.NewPCG(1, 1)), 60))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkFastPath(t, src)
		// The streaming path does not depend on its buffer's size.
		want, wantOK := streamHash(src, hashBuf)
		if got, ok := streamHash(src, 16); got != want || ok != wantOK {
			t.Fatalf("streaming hash of %q with a 16-byte buffer = %016x, %v; with %d bytes %016x, %v",
				src, got, ok, hashBuf, want, wantOK)
		}
	})
}
