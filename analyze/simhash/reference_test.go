package simhash

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The reference implementation: the documented rules written the obvious
// way (strings.ToLower, one anchored regexp per rule, a Go map for the
// feature counts, a per-bit loop for the SimHash), sharing nothing with the
// fast path but the hash primitives wordBlock, wordOpen, mix64 and bigram
// and the constants tfCap and tieBits. FuzzHash checks that both agree.

var (
	refSpace = regexp.MustCompile(`^[\t\n\v\f\r \x{85}\p{Z}]+`)
	refTS    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[t ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:z|[+-][0-9]{2}:?[0-9]{2})?)?`)
	refUUID  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	refHex   = regexp.MustCompile(`^(?:0x)?([0-9a-f]{16,})`)
	refNum   = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)?`)
	refDigit = regexp.MustCompile(`[0-9]`)
	refAF    = regexp.MustCompile(`[a-f]`)
)

// refAlnum reports whether the string starts with an ASCII letter or digit.
func refAlnum(s string) bool {
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

// refNormalize applies the rules of the package documentation to src:
// lowercase the whole text (strings.ToLower turns every invalid byte into
// U+FFFD), then walk it left to right trying, at each position, white space,
// then TS, UUID, hex ID (those two only at a word boundary) and NUM, in that
// order, copying one rune when none applies.
func refNormalize(src []byte) string {
	s := strings.ToLower(string(src))
	var b strings.Builder
	prevAlnum := false // the rune before s[i] is an ASCII letter or digit
	for i := 0; i < len(s); {
		rest := s[i:]
		if m := refSpace.FindString(rest); m != "" {
			if b.Len() > 0 && i+len(m) < len(s) {
				b.WriteByte(' ')
			}
			i += len(m)
			prevAlnum = false
			continue
		}
		repl, n := "", 0
		if m := refTS.FindString(rest); m != "" {
			repl, n = "<TS>", len(m)
		} else if m := refUUID.FindString(rest); !prevAlnum && m != "" && !refAlnum(rest[len(m):]) {
			repl, n = "<ID>", len(m)
		} else if m := refHex.FindStringSubmatch(rest); !prevAlnum && m != nil && !refAlnum(rest[len(m[0]):]) &&
			refDigit.MatchString(m[1]) && refAF.MatchString(m[1]) {
			repl, n = "<ID>", len(m[0])
		} else if m := refNum.FindString(rest); m != "" {
			repl, n = "<NUM>", len(m)
		}
		if n > 0 {
			b.WriteString(repl)
			prevAlnum = refAlnum(rest[n-1:])
			i += n
			continue
		}
		_, size := utf8.DecodeRuneInString(rest)
		b.WriteString(rest[:size])
		prevAlnum = refAlnum(rest)
		i += size
	}
	return b.String()
}

// refWordHash hashes one word in one go: whole 8-byte blocks, then the
// zero-padded tail and the length.
func refWordHash(w string) uint64 {
	n := len(w)
	h := uint64(wordSeed)
	for len(w) >= 8 {
		h = wordBlock(h, binary.LittleEndian.Uint64([]byte(w[:8])))
		w = w[8:]
	}
	var pad [8]byte
	copy(pad[:], w)
	return mix64(wordOpen(h, binary.LittleEndian.Uint64(pad[:]), n))
}

// refFeatures returns the counted features of normalized text: for each
// word, its hash and (after the first word) the hash of the pair it ends,
// each distinct feature (told apart by its top 61 bits) kept at most tfCap
// times.
func refFeatures(norm string) []uint64 {
	if norm == "" {
		return nil
	}
	var feats []uint64
	count := map[uint64]int{} // by the top 61 bits of the feature
	add := func(f uint64) {
		if count[f>>3]++; count[f>>3] <= tfCap {
			feats = append(feats, f)
		}
	}
	var prev uint64
	for i, w := range strings.Split(norm, " ") {
		if w == "" {
			panic("empty word in normalized text " + norm)
		}
		u := refWordHash(w)
		add(u)
		if i > 0 {
			add(bigram(prev, u))
		}
		prev = u
	}
	return feats
}

// refSimHash is the SimHash of features, bit by bit.
func refSimHash(feats []uint64) (uint64, bool) {
	if len(feats) == 0 {
		return 0, false
	}
	var h uint64
	for i := range 64 {
		ones := 0
		for _, f := range feats {
			ones += int(f >> i & 1)
		}
		if 2*ones > len(feats) || 2*ones == len(feats) && tieBits>>i&1 == 1 {
			h |= 1 << i
		}
	}
	return h, true
}

// refHash is the reference for Hash.
func refHash(src []byte) (uint64, bool) {
	return refSimHash(refFeatures(refNormalize(src)))
}

// hashWithBuf runs the streaming hasher with a normalization buffer of the
// given size, to exercise words and tokens that straddle buffer boundaries,
// and room for as many word hashes, so that texts of more words are counted
// through the exact table from a word on (see count.go).
func hashWithBuf(src []byte, size int) (uint64, bool) {
	var h hasher
	return h.hash(src, make([]byte, size), newSpace(size))
}

// fuzzSeeds are named regression seeds for FuzzHash and FuzzNormalize.
var fuzzSeeds = []struct{ name, text string }{
	{"empty", ""},
	{"spaces only", " \t\r\n\u00a0\u2028\u3000"},
	{"one word", "hello"},
	{"order number", "order #12345"},
	{"crlf runs", "a\r\n\r\nb\rc\n\nd"},
	{"timestamp zone", "at 2024-01-15T10:30:00.123456+05:30 ok"},
	{"timestamp lowercase t z", "2024-01-15t10:30:00z"},
	{"timestamp space", "2024-01-15 10:30:00.123456"},
	{"timestamp partial zone", "2024-01-15T10:30+05:3"},
	{"timestamp in number", "12024-01-15"},
	{"uuid upper", "id 550E8400-E29B-41D4-A716-446655440000."},
	{"uuid glued", "x550e8400-e29b-41d4-a716-446655440000y"},
	{"hex sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8"},
	{"hex 0x", "0x742d35Cc6634C0532925a3b844Bc454e4438f44e"},
	{"hex letters only", "deadbeefdeadbeefdeadbeef"},
	{"hex digits only", "12345678901234567890.5"},
	{"numbers in words", "file_123.txt v1.2.3 3.14."},
	{"kelvin boundary", "\u212aabcdef0123456789abcdef"},
	{"dotted capital i", "İstanbul ΣΑΣ"},
	{"invalid utf8", "a\xffb\xe2\x82 \xc0\x80"},
	{"long word", strings.Repeat("abcdefghij", 30) + " end"},
	{"repeated word", "a a a a a a"},
	{"placeholder lookalike", "<NUM> <TS> <ID>"},
	{"nbsp between digits", "1\u00a02"},
	{"prose for the 8-byte loop", "The Quick brown fox jumps over the lazy dog,\nand\tthen it sleeps. Each bee can be fed."},
	{"hex id after 8-byte chunks", "abcdefgh ijklmnop the deadbeef00112233 and cafe babe 0xfeedface0123456789"},
	{"uuid after 8-byte chunks", "please retry the job (id DEADBEEF-0000-4000-8000-00000000ABCD) now"},
	{"double spaces in prose", "some words  then  more words\r\n\r\nand a last line\x00with control"},
	{"non-ascii in prose", "plain ascii text then naïve café and ÜBER text again here"},
}

func FuzzHash(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s.text))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		want := refNormalize(src)
		if got := string(Normalize(nil, src)); got != want {
			t.Fatalf("Normalize(%q)\n got %q\nwant %q", src, got, want)
		}
		wantH, wantOK := refHash(src)
		if h, ok := Hash(src); h != wantH || ok != wantOK {
			t.Fatalf("Hash(%q) = %016x, %v; reference %016x, %v", src, h, ok, wantH, wantOK)
		}
		for _, size := range []int{16, 21, 40} {
			if h, ok := hashWithBuf(src, size); h != wantH || ok != wantOK {
				t.Fatalf("hash of %q with a %d-byte buffer = %016x, %v; reference %016x, %v",
					src, size, h, ok, wantH, wantOK)
			}
		}
	})
}

func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s.text))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		prefix := []byte("keep")
		out := Normalize(prefix, src)
		if !bytes.HasPrefix(out, []byte("keep")) {
			t.Fatalf("Normalize(%q) lost the dst prefix: %q", src, out)
		}
		n := string(out[len("keep"):])
		if len(n) > 4*len(src)+1 {
			t.Errorf("Normalize(%q) = %d bytes, more than 4×%d+1", src, len(n), len(src))
		}
		if !utf8.ValidString(n) {
			t.Errorf("Normalize(%q) = %q: invalid UTF-8", src, n)
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Errorf("Normalize(%q) = %q: space not collapsed or trimmed", src, n)
		}
		// Outside the placeholders: no digit, no upper case ASCII, no white
		// space other than single spaces.
		bare := strings.NewReplacer("<TS>", "", "<ID>", "", "<NUM>", "").Replace(n)
		for _, r := range bare {
			if r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r != ' ' && unicode.IsSpace(r) {
				t.Errorf("Normalize(%q) = %q: %q survived", src, n, r)
			}
		}
		if _, ok := Hash(src); ok != (n != "") {
			t.Errorf("Hash(%q) ok = %v, normalized %q", src, ok, n)
		}
	})
}

// TestMatchesReferenceRandom compares the fast path with the reference on
// random texts over an alphabet dense in the characters the rules look at,
// long enough to take the 8-bytes-at-a-time loop and to cross its chunks.
func TestMatchesReferenceRandom(t *testing.T) {
	pieces := []string{"a", "b", "e", "f", "F", "x", "X", "t", "T", "z", "Z", "g", "q", "0", "1", "9", "42",
		" ", " ", " ", "  ", "\n", "\r\n", "\t", "-", ":", ".", "+", "_", "0x", "deadbeef", "2024-01-15",
		"T10:30", ":59", ".5", "+05:30", "550e8400-e29b-41d4-a716-446655440000", "0123456789abcdef",
		"é", "İ", "\u212a", "\u00a0", "\u2028", "\xff", "\xe2\x82", "\x00", "word", "Other", "the"}
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 10000 {
		var b strings.Builder
		for b.Len() < n%400 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		src := []byte(b.String())
		want := refNormalize(src)
		if got := string(Normalize(nil, src)); got != want {
			t.Fatalf("Normalize(%q)\n got %q\nwant %q", src, got, want)
		}
		wantH, wantOK := refSimHash(refFeatures(want))
		eachPath(func(avx bool) {
			if h, ok := Hash(src); h != wantH || ok != wantOK {
				t.Fatalf("Hash(%q), AVX-512 %v = %016x, %v; reference %016x, %v", src, avx, h, ok, wantH, wantOK)
			}
		})
		if h, ok := hashWithBuf(src, 16+n%50); h != wantH || ok != wantOK {
			t.Fatalf("hash of %q with a %d-byte buffer = %016x, %v; reference %016x, %v",
				src, 16+n%50, h, ok, wantH, wantOK)
		}
	}
}
