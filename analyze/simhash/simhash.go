// Package simhash implements the spec-profile text normalizer and 64-bit
// SimHash of killswitch (SPEC §1.2, §1.3, §4.1): prompts and responses that
// differ only in numbers, timestamps, IDs, case or white space get the same
// hash; unrelated texts land about 27 bits apart. It is pure computation: no
// I/O, and no global state but a pool of scratch space.
//
// # Normalization (profile spec)
//
// [Normalize] makes one pass over the bytes, left to right:
//
//  1. Decoding: UTF-8; every byte that does not start a valid sequence is
//     read as U+FFFD (as Go's range over a string does).
//  2. Case: each rune is lowercased with unicode.ToLower (ASCII through a
//     table). The token rules see the lowercased text, so T and Z in
//     timestamps and upper-case hex digits match too.
//  3. White space: a run of runes for which unicode.IsSpace holds (ASCII
//     \t \n \v \f \r and space, U+0085, U+00A0, U+1680, U+2000–U+200A,
//     U+2028, U+2029, U+202F, U+205F, U+3000; so any line ending) becomes
//     one space; a run at the start or end of the text is dropped.
//  4. Tokens: at each position the first of the rules below that matches
//     replaces the longest text it matches; without a match the rune is
//     copied. The scan resumes after the replaced text, so matches do not
//     overlap and the leftmost one wins.
//
// The token rules, in order (digits are ASCII 0-9; hex digits are 0-9 and
// a-f; a word boundary means that the neighbouring rune, after lowercasing,
// is not an ASCII letter or digit, or that there is none, so spaces and
// punctuation such as _ - . / : are boundaries):
//
//   - <TS>, an ISO timestamp: YYYY-MM-DD; then optionally t or one space
//     followed by HH:MM; then optionally :SS with an optional .fraction of
//     one or more digits; then optionally a zone: z, ±HH:MM or ±HHMM. An
//     optional part is taken only when complete; no boundary is needed.
//   - <ID>, a UUID: 8-4-4-4-12 hex digits with a word boundary on both
//     sides.
//   - <ID>, a hex identifier: a run of at least 16 hex digits, optionally
//     after 0x, containing at least one digit and one letter a–f, with a word
//     boundary on both sides (git SHAs, request IDs, addresses).
//   - <NUM>, a number: a run of digits with an optional fraction (a dot and
//     more digits), anywhere, even inside a word.
//
// Placeholders are written upper case, exactly <TS>, <ID> and <NUM>; as the
// rest is lowercased, they cannot be confused with text. Examples:
// "order #12345" → "order #<NUM>"; "file_123.txt" → "file_<NUM>.txt";
// "v1.2.3" → "v<NUM>.<NUM>"; "2024-01-15T10:30:00.5+05:30" → "<TS>";
// "12024-01-15" → "<NUM>-<NUM>-<NUM>" (leftmost match first);
// "deadbeefdeadbeef" is kept (no digit); "x0123456789abcdef" →
// "x<NUM>abcdef" (no boundary before the run). Digits of other scripts
// (such as fullwidth ０-９) are not numbers.
//
// # SimHash
//
// [Hash] reads the normalized text as words separated by single spaces.
// Its features are, for each word, the word itself (a unigram) and the pair
// of it and the word before (a bigram); a one-word text has one feature. A
// word's 64-bit hash is computed over its bytes in little-endian 8-byte
// blocks and finished by the SplitMix64 mixer; a pair's hash mixes the two
// word hashes asymmetrically. Each distinct feature (told apart by the top
// 61 bits of its hash) counts at most 4 times: without that cap, structure
// repeated on every line (Markdown tables, JSON keys, "the") outweighs the
// content and makes unrelated texts similar. Bit i of the SimHash is set
// when more than half of the counted features have bit i set; on a tie
// (possible with an even number of features) it is bit i of the constant
// 0x9e3779b97f4a7c15, as if every text had one more feature of weight ½,
// so ties no longer lean towards 0. A text with no words has no hash: Hash
// returns ok == false and such a text never counts as similar.
//
// # Measurements
//
// Measured by TestFeatureDistanceDistribution on 549 unrelated English texts
// of 1–4 KB (the comments of Go 1.26.8's standard library, up to 3 texts per
// package, and the 2 user prompts of at least 1 KB in the shared captures;
// 149,966 pairs from different sources):
//
//   - unigrams+bigrams, cap 4 (this package): mean distance 27.4 bits,
//     minimum 9; no pair within 5 bits. The same texts as Markdown tables
//     (4 words per row): mean 23.9, minimum 8, none within 5.
//     Near-duplicates (one word replaced at a random position, 2,196
//     pairs): 83.4% within 2 bits (75.5% for texts under 2 KB), 95% within 3,
//     99.6% within 5.
//   - word unigrams: mean 18.6 bits, 0.002% of pairs within 2, 0.005%
//     within 3, 0.058% within 5; as tables every pair within 2 bits.
//   - unigrams+bigrams without the cap: mean 22.0 bits, 0.0013% within 5;
//     as tables 99.3% of pairs within 2 bits; near-duplicates 90.6% within 2.
//
// Texts that differ only in what normalization replaces are at distance 0.
//
// # Speed
//
// Hash normalizes and hashes in one pass over src. Words of plain ASCII
// prose (up to 15 bytes, no digits, followed by white space) are hashed
// straight from src, as normalization only lowercases them, and so are
// short ASCII words with one number ("42", "#1234", "10%,"), whose number
// becomes <NUM> and nothing else changes but case; the rest is
// normalized through a 4 KB buffer, in stretches cut where no rule reaches
// across. The capped count needs no lookup for most features: the word
// hashes and bigrams are kept, each counted in a bucket as it comes, and at
// the end only the features of buckets holding more than four go through a
// table (see count.go). The bit counts are kept bit-sliced by a carry-save
// adder tree; the working memory is borrowed from a pool. Normalize copies
// runs of plain ASCII text eight bytes at a time (SWAR). See
// benchmarks/simhash_bench_test.go and benchmarks/short_test.go.
//
// On amd64, plain words are found, hashed and kept, and full buckets'
// features listed, by assembly (plain_amd64.s) that uses SSE2 only, which
// every amd64 processor has: no CPU dispatch, and integer work only, so
// every build gives the same hashes. The Go versions they replace run on
// other architectures and under the purego build tag, and tests compare
// the two on every position of their inputs (plain_test.go).
package simhash

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sync"
)

// tfCap is the most times one distinct feature counts towards the hash.
const tfCap = 4

// tieBits decides the bits whose counter is exactly tied (as many features
// with the bit set as without, possible only with an even number of
// features): such a bit is copied from tieBits. This equals adding a fixed
// feature of weight ½ to every text, so ties no longer bias bits towards 0.
const tieBits uint64 = 0x9e3779b97f4a7c15

// Hash returns the 64-bit SimHash of src's normalized form, computed in one pass
// without materializing the normalized text and without allocating. ok is false
// when the normalized text has no features (empty or whitespace-only): such a
// text has NO hash and never counts as similar (SPEC §4.1).
//
// Hash reads plain words from src and streams the rest of the normalized
// text through a 4 KB buffer; the buffer and the space features are counted
// in come from a pool of scratch space, so Hash allocates only when the pool
// is empty (after a garbage collection) or when a text has more than 2048
// distinct features that must be counted through the exact table (a text of
// more than 2048 words, about 12 KB of prose, or with many repeated words)
// and the table grows. Hash(src) always equals the hash of the features of
// Normalize(nil, src). It is safe for concurrent use.
func Hash(src []byte) (h uint64, ok bool) {
	s := scratchPool.Get().(*scratch)
	h, ok = s.hasher.hash(src, s.buf[:], &s.space)
	scratchPool.Put(s)
	return h, ok
}

// Distance is the Hamming distance between two hashes: the number of bits in
// which they differ, 0 to 64.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// hashBuf is the size of Hash's normalization buffer.
const hashBuf = 4096

// scratch is the working memory of one Hash call. Pooling it spares the
// zeroing of some 120 KB per call, which costs more than hashing a short
// prompt.
type scratch struct {
	hasher
	buf   [hashBuf]byte
	space space
}

var scratchPool = sync.Pool{New: func() any { return &scratch{space: *newSpace(maxBuffered)} }}

// hasher turns normalized text, fed in pieces, into counted features.
type hasher struct {
	acc    accumulator
	excess accumulator // occurrences counted in acc beyond the cap (see count.go)
	set    featureSet  // the exact table
	sp     *space
	ws     []uint64 // sp.words
	gs     []uint64 // sp.grams
	cnt    []uint16 // the part of sp.cnt the text's features are counted in
	mask   uint64   // len(cnt)-1
	n      int      // word hashes kept in ws
	size   int      // bytes of the text
	prev   uint64   // unigram feature of the last word counted through set
	words  int      // words counted through set
	wh     uint64   // hash state of the current word, over its whole 8-byte blocks
	wn     int      // bytes of the current word absorbed into wh (a multiple of 8)
}

// hash computes the SimHash of src using buf (at least 16 bytes) as the
// normalization buffer and sp to count the features in (any content; hash
// may replace its table by a larger one). Neither size changes the result.
//
// Most words of prose are hashed straight from src, without normalizing
// them first: a word of 1 to 15 bytes of ASCII without digits or white
// space, followed by white space, normalizes to itself lowercased (no rule
// can match in it: NUM and hex IDs need a digit, a UUID is 36 bytes long,
// and a timestamp spans white space only between digits); so are words of
// up to 15 bytes with one number in them (see numberWord). plainWordsFast
// does both, until a word that is neither; every other stretch of text
// goes through the scanner, cut at white space where no rule can reach
// across (see region).
func (h *hasher) hash(src, buf []byte, sp *space) (uint64, bool) {
	if len(src) > 64 {
		prefetch(src)
	}
	h.reset(sp, len(src))
	p := skipASCIISpace(src, 0)
	for p+16 <= len(src) {
		p, h.n = plainWordsFast(src, p, h.ws, h.n)
		switch {
		case h.n == len(h.ws):
			h.countExact()
		case p+16 <= len(src):
			p = h.region(src, p, buf)
		}
	}
	if p < len(src) {
		p = h.tail(src, p)
	}
	if p < len(src) {
		h.normalized(src, p, len(src), buf)
	}
	return h.finish()
}

// tail hashes the plain words (and words with one number) of src[p:], the
// text's last bytes (fewer than 16), as plainWordsFast does, from a copy
// followed by spaces: a word the text ends normalizes as one white space
// follows, which is what plainWordsFast needs to see. It returns where it
// stopped in src: len(src), or the start of the first word that is
// neither, which the scanner then reads.
func (h *hasher) tail(src []byte, p int) int {
	if h.n+16 > len(h.ws) {
		return p // no room for 16 more words: the scanner does it
	}
	pad := spaces32
	k := copy(pad[:], src[p:])
	var end int
	end, h.n = plainWordsFast(pad[:], 0, h.ws, h.n)
	return p + min(end, k)
}

// spaces32 is what tail pads a text's last bytes with.
var spaces32 = [32]byte{
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
}

// plainWords hashes the plain words of src from p, the start of a word,
// and the words with one number that numberWord hashes, and keeps them as
// xs[n:], each as its open hash (see wordOpen); it returns where it
// stopped and the new n: at the first word that is neither, when fewer
// than 16 bytes are left from p (maybe on white space), or when xs is full
// (likewise). On amd64, plainWordsFast does its work in assembly; this is
// the version for other architectures, and the reference the assembly is
// tested against.
func plainWords(src []byte, p int, xs []uint64, n int) (int, int) {
	for p+16 <= len(src) && n < len(xs) {
		w := src[p : p+16]
		x0 := binary.LittleEndian.Uint64(w)
		x1 := binary.LittleEndian.Uint64(w[8:])
		// k is the length of the word at p: the bytes before the first
		// white space, control, non-ASCII byte or digit, which must be
		// white space.
		l0 := uint(bits.TrailingZeros64(notWord(x0))) >> 3
		l1 := uint(bits.TrailingZeros64(notWord(x1))) >> 3
		k := l0 + l1&-(l0>>3)
		long := -uint64(k >> 3) // all ones for a word of 8 bytes or more
		last := x0 ^ (x0^x1)&long
		if k-1 >= 15 || class[byte(last>>(8*(k&7)))]&cSpace == 0 {
			if k == 0 && class[src[p]]&cSpace != 0 {
				// More white space after a word: no word here.
				p = skipASCIISpace(src, p+1)
				continue
			}
			q, x, ok := numberWord(src, p)
			if !ok {
				break
			}
			xs[n] = x
			n++
			p = q + 1 // past the white space that ends it
			continue
		}
		// Lowercase (the bytes of the word are ASCII, so no carry reaches
		// them), then hash as wordBlock and wordOpen do.
		y0 := x0 | inRange(x0, 'A', 'Z')>>2
		wh := wordSeed ^ (wordBlock(wordSeed, y0)^wordSeed)&long
		tail := last & (1<<(8*(k&7)) - 1)
		tail |= inRange(tail, 'A', 'Z') >> 2
		xs[n] = wordOpen(wh, tail, int(k))
		n++
		p += int(k) + 1
	}
	return p, n
}

// numberWord hashes, without the scanner, a word at p (with 16 bytes from
// p in src) of 15 bytes at most, followed by ASCII white space, made of one
// number between ASCII bytes that are no digits: a prefix, then digits with
// maybe a fraction (a dot and digits), then a suffix ("42", "#1234",
// "v2.5", "10%", "(3),", "1st"). It returns where the white space after it
// is, the word's hash, and whether the word has that shape. Such a word
// normalizes to its lowercased prefix, <NUM> and its lowercased suffix: no
// other rule can match in it (a timestamp needs three numbers, a UUID 36
// bytes, a hex ID 16 hex digits).
func numberWord(src []byte, p int) (end int, u uint64, ok bool) {
	src = src[p : p+16]
	const other = cDigit | cSpace | cMulti
	i := 0
	for i < 15 && class[src[i]]&other == 0 {
		i++
	}
	pre := i
	for i < 15 && class[src[i]]&cDigit != 0 {
		i++
	}
	if i == pre {
		return 0, 0, false
	}
	if i < 14 && src[i] == '.' && class[src[i+1]]&cDigit != 0 {
		for i += 2; i < 15 && class[src[i]]&cDigit != 0; i++ {
		}
	}
	num := i
	for i < 15 && class[src[i]]&other == 0 {
		i++
	}
	if class[src[i]]&cSpace == 0 {
		return 0, 0, false
	}
	var w [15 + len(phNum)]byte
	for j, c := range src[:pre] {
		w[j] = lower[c]
	}
	n := pre + copy(w[pre:], phNum)
	for _, c := range src[num:i] {
		w[n] = lower[c]
		n++
	}
	wh, k := uint64(wordSeed), 0
	for ; k+8 <= n; k += 8 {
		wh = wordBlock(wh, binary.LittleEndian.Uint64(w[k:]))
	}
	return p + i, wordOpen(wh, loadTail(w[k:n]), n), true
}

// notWord returns the top bit of every byte of x that cannot be in a word
// hashed from the source (white space and control bytes, non-ASCII bytes,
// digits), exactly for the lowest such byte; bytes above it may be flagged
// wrongly, as borrows and carries move up.
func notWord(x uint64) uint64 {
	return ((x-ones8*0x21)&^x | x | (x+ones8*(0x80-'0'))&^(x+ones8*(0x7f-'9'))) & high8
}

// skipASCIISpace returns the index of the first byte at or after i that is
// not ASCII white space.
func skipASCIISpace(src []byte, i int) int {
	for i < len(src) && class[src[i]]&cSpace != 0 {
		i++
	}
	return i
}

// region hashes, through the scanner, the stretch of src from p (the start
// of a token, or non-ASCII white space) to the first ASCII white space after
// which the next token does not start with a digit, and returns the start of
// that token. The stretch normalizes to the same words in place as alone:
// rules look beyond a token only to see white space, which ends every one
// of them alike, but for a timestamp's date followed by one space and a
// time, whose digit keeps the stretch going.
func (h *hasher) region(src []byte, p int, buf []byte) int {
	end := p
	for {
		for end < len(src) && class[src[end]]&cSpace == 0 {
			end++
		}
		next := skipASCIISpace(src, end)
		if next < len(src) && class[src[next]]&cDigit != 0 {
			end = next
			continue
		}
		h.normalized(src, p, end, buf)
		return next
	}
}

// normalized counts the words of src[p:end] normalized as a text of its
// own, streamed through buf.
func (h *hasher) normalized(src []byte, p, end int, buf []byte) {
	sc := scanner{i: p}
	src = src[:end]
	keep := 0
	for {
		out := sc.run(buf[:keep], src, len(buf)-maxEmit)
		last := sc.i >= len(src)
		keep = h.feed(out, last)
		if last {
			return
		}
	}
}

// reset prepares a used hasher for a new text of size bytes, counted in sp.
func (h *hasher) reset(sp *space, size int) {
	h.acc.reset()
	h.excess.reset()
	h.set = featureSet{}
	h.sp, h.ws, h.gs, h.n, h.size = sp, sp.words, sp.grams, 0, size
	h.prev, h.words, h.wh, h.wn = 0, 0, wordSeed, 0
}

// sizeBuckets takes, and clears, the part of h.sp.cnt the text's features
// are counted in: at least four buckets per feature (two per word kept),
// as a power of two from 64.
func (h *hasher) sizeBuckets() {
	buckets := 64
	for buckets < 8*h.n && buckets < len(h.sp.cnt) {
		buckets *= 2
	}
	h.cnt, h.mask = h.sp.cnt[:buckets], uint64(buckets-1)
	clear(h.cnt)
}

// feed consumes the normalized bytes in buf; last reports that the
// normalized text ends with buf. Otherwise the unfinished last word's bytes
// that do not fill an 8-byte block are moved to the start of buf and their
// count returned.
func (h *hasher) feed(buf []byte, last bool) int {
	p := 0
	for len(buf)-p >= 8 {
		x := binary.LittleEndian.Uint64(buf[p:])
		// Zero bytes of x^spaces mark spaces; the lowest flag is exact.
		y := x ^ 0x2020202020202020
		if m := (y - 0x0101010101010101) &^ y & 0x8080808080808080; m != 0 {
			k := bits.TrailingZeros64(m) >> 3 // bytes before the space
			h.endWord(x&(1<<(8*k)-1), k)
			p += k + 1
			continue
		}
		h.wh = wordBlock(h.wh, x)
		h.wn += 8
		p += 8
	}
	// Fewer than 8 bytes left: no whole block.
	for {
		rest := buf[p:]
		k := bytes.IndexByte(rest, ' ')
		if k < 0 {
			if !last {
				return copy(buf, rest)
			}
			if len(rest) > 0 || h.wn > 0 {
				h.endWord(loadTail(rest), len(rest))
			}
			return 0
		}
		h.endWord(loadTail(rest[:k]), k)
		p += k + 1
	}
}

// loadTail returns the bytes of b (fewer than 8) as a little-endian word.
func loadTail(b []byte) uint64 {
	var x uint64
	for i, c := range b {
		x |= uint64(c) << (8 * i)
	}
	return x
}

// endWord finishes the current word, whose last k bytes (fewer than 8) are
// tail, and counts its features (see count).
func (h *hasher) endWord(tail uint64, k int) {
	x := wordOpen(h.wh, tail, h.wn+k)
	h.wh, h.wn = wordSeed, 0
	h.count(x)
}

// The word hash: the word's bytes in little-endian 8-byte blocks, each
// folded into the state by wordBlock, then the remaining 0–7 bytes (tail,
// zero-padded) and the length folded in by wordOpen, then mixed by mix64.
// Words of up to 7 bytes (most words) get distinct hashes, as both steps
// are bijections of tail|length<<56.
const wordSeed = 0x243f6a8885a308d3

func wordBlock(h, x uint64) uint64 {
	return bits.RotateLeft64(h^x*0x9e3779b97f4a7c15, 27) * 0xc2b2ae3d27d4eb4f
}

// wordOpen is a word's open hash, its hash before the final mix64 (which
// the hasher applies to all the words it keeps at once, see settle): the
// tail, whose top byte is free, folded in with the length in it, so that
// words of the same blocks differ in tail or length modulo 256.
func wordOpen(h, tail uint64, n int) uint64 {
	return h ^ tail ^ uint64(n)<<56
}

// mix64 is the SplitMix64 finalizer: a bijection whose every output bit
// depends on every input bit.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// bigram returns the feature of the word pair whose unigram hashes are a and
// b: an asymmetric combination, mixed.
func bigram(a, b uint64) uint64 {
	return mix64(bits.RotateLeft64(a, 21) ^ b ^ 0x6a09e667f3bcc909)
}

// accumulator counts, for each of the 64 bits, how many features have it
// set, bit-sliced: planes[j] holds bit j of all 64 counts. Features are
// buffered and added sixteen at a time by a carry-save adder tree
// (Harley–Seal) into the planes 0 to 3 (ones, twos, fours, eights); each
// carry out of the eights, worth 16, ripples into the planes from 4 up.
type accumulator struct {
	n      int  // features counted by flush
	nb     uint // features in batch
	top    int  // planes that may be nonzero, at least 4
	batch  [256]uint64
	planes [64]uint64
}

// reset empties the accumulator; the batch needs no clearing.
func (a *accumulator) reset() {
	clear(a.planes[:a.top])
	a.n, a.nb, a.top = 0, 0, 4
}

// csa is a carry-save adder: for each bit, sum and carry are the low and
// high bits of a+b+c.
func csa(a, b, c uint64) (carry, sum uint64) {
	u := a ^ b
	return a&b | u&c, u ^ c
}

// flush counts the batched features, padded with zero words (which set no
// bit) to a multiple of 16.
func (a *accumulator) flush() {
	a.n += int(a.nb)
	for a.nb%16 != 0 {
		a.batch[a.nb] = 0
		a.nb++
	}
	a.groups(a.batch[:a.nb])
	a.nb = 0
}

// push counts f when keep is 1 (and not when it is 0).
func (a *accumulator) push(f uint64, keep uint) {
	a.batch[a.nb%uint(len(a.batch))] = f
	a.nb += keep
	if a.nb == uint(len(a.batch)) {
		a.flush()
	}
}

// subtract takes the counts of m, flushed, off those of a, flushed; each of
// m's counts must be at most a's. The planes are subtracted as binary
// numbers, 64 at once.
func (a *accumulator) subtract(m *accumulator) {
	a.n -= m.n
	var borrow uint64
	for j := range max(a.top, m.top) {
		p, q := a.planes[j], m.planes[j]
		a.planes[j] = p ^ q ^ borrow
		borrow = ^p&q | ^(p^q)&borrow
	}
}

// addAll counts the features fs: whole groups of 16 straight from fs, the
// rest through the batch.
func (a *accumulator) addAll(fs []uint64) {
	whole := len(fs) &^ 15
	a.n += whole
	a.groups(fs[:whole])
	for _, f := range fs[whole:] {
		a.push(f, 1)
	}
}

// groups adds the features of fs, a multiple of 16 of them, to the planes;
// it does not count them in a.n.
func (a *accumulator) groups(fs []uint64) {
	groupsGo(fs, &a.planes)
	// No count exceeds a.n, which callers have already raised.
	a.top = max(a.top, bits.Len(uint(a.n)))
}

// addPlanes adds the counts of x, planes 0 to len(x)-1 of 64 counts of
// their own (see tallyFast, tallyAVX512), to a's, as binary numbers 64 at
// once. It does not count them in a.n.
func (a *accumulator) addPlanes(x []uint64) {
	var carry uint64
	for j, q := range x {
		p := a.planes[j]
		a.planes[j] = p ^ q ^ carry
		carry = p&q | (p^q)&carry
	}
	for j := len(x); carry != 0; j++ {
		p := a.planes[j]
		a.planes[j] = p ^ carry
		carry &= p
	}
	a.top = max(a.top, bits.Len(uint(a.n)))
}

// ripple adds 16 to the count of every bit set in sixteens, rippling the
// carries up from plane 4; they thin out by half a plane each.
func ripple(planes *[64]uint64, sixteens uint64) {
	for j := 4; sixteens != 0; j++ {
		p := planes[j]
		planes[j] = p ^ sixteens
		sixteens &= p
	}
}

// groupsGo adds the features of fs, a multiple of 16 of them, to planes,
// sixteen at a time by a carry-save adder tree (Harley–Seal).
func groupsGo(fs []uint64, planes *[64]uint64) {
	ones, twos, fours, eights := planes[0], planes[1], planes[2], planes[3]
	for g := 0; g+16 <= len(fs); g += 16 {
		d := (*[16]uint64)(fs[g : g+16])
		var twosA, twosB, foursA, foursB, eightsA, eightsB, sixteens uint64
		twosA, ones = csa(ones, d[0], d[1])
		twosB, ones = csa(ones, d[2], d[3])
		foursA, twos = csa(twos, twosA, twosB)
		twosA, ones = csa(ones, d[4], d[5])
		twosB, ones = csa(ones, d[6], d[7])
		foursB, twos = csa(twos, twosA, twosB)
		eightsA, fours = csa(fours, foursA, foursB)
		twosA, ones = csa(ones, d[8], d[9])
		twosB, ones = csa(ones, d[10], d[11])
		foursA, twos = csa(twos, twosA, twosB)
		twosA, ones = csa(ones, d[12], d[13])
		twosB, ones = csa(ones, d[14], d[15])
		foursB, twos = csa(twos, twosA, twosB)
		eightsB, fours = csa(fours, foursA, foursB)
		sixteens, eights = csa(eights, eightsA, eightsB)
		ripple(planes, sixteens)
	}
	planes[0], planes[1], planes[2], planes[3] = ones, twos, fours, eights
}

// sum returns the SimHash: bit i is set when more than half of the features
// have it set, and on a tie (n even, count n/2) when bit i of tieBits is
// set; ok is false without features. The counts are compared with n/2 all
// at once, plane by plane from the most significant.
func (a *accumulator) sum() (uint64, bool) {
	a.flush()
	if a.n == 0 {
		return 0, false
	}
	half := uint64(a.n / 2)
	var gt uint64    // bits whose count is greater than half
	eq := ^uint64(0) // bits whose count equals half so far
	// Without a branch on half's bits, which no predictor learns: where
	// half has a 1 (set all ones), a count equal so far stays equal only
	// with a 1 too; where it has a 0, a 1 makes it greater, a 0 keeps it
	// equal.
	for j := max(a.top, bits.Len64(half)) - 1; j >= 0; j-- {
		p := a.planes[j]
		set := -(half >> j & 1)
		gt |= eq & p &^ set
		eq &^= p ^ set
	}
	if a.n%2 == 0 {
		gt |= eq & tieBits
	}
	return gt, true
}
