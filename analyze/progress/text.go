package progress

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// FNV-1a, 64 bits: the hash of every exact comparison (observations,
// actions, answers). Equal hashes stand for equal normalized texts.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func fnvUint(h, v uint64) uint64 {
	for range 8 {
		h = fnvByte(h, byte(v))
		v >>= 8
	}
	return h
}

// Token kinds the churn normalization distinguishes. Words and numbers are
// kept exactly (numbers are where progress shows: 45% → 50%, offset 200 →
// 300); identifiers, timestamps and durations are churn (a new trace id,
// the clock, how long a failing command took) and are replaced.
type tokKind uint8

const (
	tokWord tokKind = iota
	tokNum          // a plain number: kept
	tokID           // UUID, hex id, #123, a token with a run of ≥ 4 digits among letters
	tokTS           // a date, a time of day, a Unix time (≥ 10 digits)
	tokDur          // a number with a time unit: 3.42s, 120ms, "4 seconds"
)

// Placeholders written for replaced tokens; upper case and bracketed, so
// that they cannot be confused with the (lowercased) text.
var placeholder = [...]string{tokID: "<ID>", tokTS: "<TS>", tokDur: "<DUR>"}

// byteClass says what a byte is to the tokenizer: classBoundary ends a
// token (ASCII white space and the punctuation that delimits words in
// prose, JSON and paths), classDigit is a digit (a token without one is a
// plain word, and needs no classify).
const (
	classBoundary = 1 << iota
	classDigit
	classTrail // sentence punctuation, not part of a token it ends (isTrail)
)

var byteClass = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r\v\f\"'`()[]{}<>,;=|/\\") {
		t[c] = classBoundary
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	for _, c := range []byte(".:!?,") {
		if t[c] == 0 {
			t[c] = classTrail
		}
	}
	return t
}()

// lower maps ASCII upper case to lower case, every other byte to itself;
// same maps every byte to itself (the hash of a normalizer that keeps case).
var lower, same = func() (l, s [256]byte) {
	for i := range l {
		l[i], s[i] = byte(i), byte(i)
		if i >= 'A' && i <= 'Z' {
			l[i] += 'a' - 'A'
		}
	}
	return l, s
}()

// normalizer hashes texts in their churn-normalized form: ASCII lowercased,
// split into tokens, identifiers, timestamps and durations replaced, words
// and numbers kept. It also counts words and notices error words. A
// normalizer is reused; reset starts a new text.
//
// The hash is FNV-1a of the normalized text as a stream of bytes: each
// token preceded by 0x1f, each part (add) ended by 0x1e. The tokens are
// found first and their normalized bytes written to buf; the hash is then
// taken over buf in one loop (sum). Both loops are cheaper apart: the
// hash is a chain of one multiplication a byte, with no branch in it, and
// the tokens are found from bit masks of the text's boundary and digit
// bytes (marks), so that a word's end costs no branch that depends on its
// length.
type normalizer struct {
	h     uint64
	words int
	errs  bool  // an error word or phrase was seen
	empty bool  // a phrase saying the result is empty ("no matches") was seen
	shell uint8 // shellName, shellLine: the last words began a shell's error prefix
	exit  bool  // the last words were "exit code", "exit status" or "returncode"
	// keepCase hashes words with their case (an action's arguments: a
	// search for RetryBudget is not one for retryBudget); observations
	// are compared without it.
	keepCase bool
	prev     wordFlag // what the last word is (see wordFlag), 0 after anything else
	pending  []byte   // a number token that a duration unit may follow
	out      []byte   // when non-nil, the normalized text is appended (fingerprint)
	show     bool
	buf      []byte // normalized bytes not yet hashed (sum)
	// marks: the bytes that end tokens, the digits, the sentence
	// punctuation of the text add reads
	bnd, dig, trail []uint64
}

func (n *normalizer) reset() {
	n.h, n.words, n.errs, n.empty, n.shell, n.exit, n.prev, n.pending = fnvOffset, 0, false, false, 0, false, 0, nil
	n.buf = n.buf[:0]
}

// A shell prefixes its errors with its own input line counter
// ("/bin/bash: line 13053: cd: x: No such file or directory", dash's
// "sh: 1: javac: not found"): a count of what the session ran, not of the
// work, that changes at every command. The number after "bash line" (or
// "sh line", "sh") is replaced like an identifier.
const (
	shellNone uint8 = iota
	shellName       // the last word was bash, sh, zsh, dash
	shellLine       // the last two were a shell's name and "line"
)

// Placeholder of a shell's line counter.
const shellCounter = "<LINE>"

// add feeds one text (one part: a tool result, a user turn). Parts are
// separated in the hash, so "a b" + "c" differs from "a" + "b c".
func (n *normalizer) add(s []byte) {
	if n.show {
		for i := 0; i < len(s); {
			if byteClass[s[i]]&classBoundary != 0 {
				i++
				continue
			}
			i = n.slowToken(s, i)
		}
	} else {
		n.tokens(s)
	}
	n.flush()
	n.buf = append(n.buf, 0x1e)
	n.sum()
	if n.show {
		n.out = append(n.out, '\n')
	}
}

// sum hashes the normalized bytes of buf into h and empties buf.
func (n *normalizer) sum() {
	h := n.h
	for _, c := range n.buf {
		h = (h ^ uint64(c)) * fnvPrime
	}
	n.h, n.buf = h, n.buf[:0]
}

// maxBuf is the size of hashed bytes past which tokens empties buf, so
// that it stays small and in cache whatever the text's length.
const maxBuf = 4 << 10

// tokens feeds the tokens of s: a word without a digit that follows no
// number is written to buf 16 bytes at a time, here; any other token goes
// through token, as slowToken sends it. The tokens are found from the bit
// masks of marks, 64 bytes at a time: a token starts at a byte that is not
// a boundary after one that is, and its kept bytes end at the first byte
// of n.bnd after it (a boundary, or its trailing punctuation). No branch
// depends on a word's length, which varies from word to word (a branch
// the processor cannot predict costs as much as hashing a few bytes).
func (n *normalizer) tokens(s []byte) {
	n.marks(s)
	buf, words, h := n.buf, n.words, n.h
	hashed := 0        // buf[:hashed] is in h
	carry := uint64(1) // the byte before the text counts as a boundary
	start := 0         // the start of the last token begun
	nextDigit := -1    // the first digit at or after start, when not below it
	// slow: a number is pending (token must see the next token); follow:
	// the last words began a phrase (follow must see the next word).
	slow, follow := n.pending != nil, n.prev != 0 || n.shell != shellNone || n.exit
	for k, b := range n.bnd {
		prev := b<<1 | carry
		carry = b >> 63
		starts, ends := ^b&prev, b&^prev
		base := k << 6
		for ends != 0 {
			end := base + bits.TrailingZeros64(ends)
			ends &= ends - 1
			if below := starts & (1<<(end-base) - 1); below != 0 {
				start = base + 63 - bits.LeadingZeros64(below)
			}
			if nextDigit < start {
				nextDigit = nextSet(n.dig, start)
			}
			l := end - start
			if nextDigit < end || slow || l > 16 || len(s)-start < 16 {
				n.buf, n.words = buf, words
				n.token(s[start:end], nextDigit < end)
				buf, words = n.buf, n.words
				slow, follow = n.pending != nil, n.prev != 0 || n.shell != shellNone || n.exit
				continue
			}
			// The word, lowercased unless keepCase, 16 bytes at a time
			// (those past it are overwritten by the next, or cut off);
			// its first bytes packed for kindOf.
			t := s[start : start+16 : start+16]
			x0, x1 := binary.LittleEndian.Uint64(t), binary.LittleEndian.Uint64(t[8:])
			l0 := lower8(x0)
			if !n.keepCase {
				x0, x1 = l0, lower8(x1)
			}
			o := len(buf)
			if cap(buf)-o < 17 {
				buf = slices.Grow(buf, 17)
			}
			w := buf[o : o+17 : o+17]
			w[0] = 0x1f
			binary.LittleEndian.PutUint64(w[1:], x0)
			binary.LittleEndian.PutUint64(w[9:], x1)
			buf = buf[:o+1+l]
			words++
			kind := kindOf(l0&firstBytes[l&31] | uint64(l)<<56)
			if kind != 0 || follow {
				n.follow(kind, s[start:end])
				follow = n.prev != 0 // else the word was none of wordKinds: nothing is pending
			}
		}
		if starts != 0 {
			start = base + 63 - bits.LeadingZeros64(starts)
		}
		// Hash what the blocks wrote, but their last bytes (which may
		// not have left the store buffer): the chain of multiplications
		// runs while the next block is read.
		for ; hashed+8+hashLag <= len(buf); hashed += 8 {
			h = fnv8(h, buf[hashed:hashed+8:hashed+8])
		}
		if hashed >= maxBuf {
			buf, hashed = buf[:copy(buf, buf[hashed:])], 0
		}
	}
	n.buf, n.words, n.h = buf[:copy(buf, buf[hashed:])], words, h
}

// hashLag is how far behind the end of buf tokens hashes it.
const hashLag = 32

// fnv8 adds the eight bytes of b to the FNV-1a hash h.
func fnv8(h uint64, b []byte) uint64 {
	b = b[:8:8]
	h = (h ^ uint64(b[0])) * fnvPrime
	h = (h ^ uint64(b[1])) * fnvPrime
	h = (h ^ uint64(b[2])) * fnvPrime
	h = (h ^ uint64(b[3])) * fnvPrime
	h = (h ^ uint64(b[4])) * fnvPrime
	h = (h ^ uint64(b[5])) * fnvPrime
	h = (h ^ uint64(b[6])) * fnvPrime
	return (h ^ uint64(b[7])) * fnvPrime
}

// marks sets bit i of n.bnd for each byte s[i] that ends a token's kept
// bytes, and of n.dig for each digit, and every bit past len(s) of both
// (so that nextSet finds one before their end). A byte that ends a token's
// kept bytes is a boundary, or sentence punctuation at the end of a token
// (isTrail: "done." is the token "done"), but for the token's first byte
// ("..." is "."). Eight bytes' classes are added up in one integer
// (classBits).
func (n *normalizer) marks(s []byte) {
	words := len(s)/64 + 1
	n.bnd, n.dig = slices.Grow(n.bnd[:0], words)[:words], slices.Grow(n.dig[:0], words)[:words]
	n.trail = slices.Grow(n.trail[:0], words)[:words]
	bnd, dig, trail := n.bnd, n.dig, n.trail
	for k := range words {
		var b, d, t uint64
		blk := s[k*64 : min(k*64+64, len(s))]
		if len(blk) == 64 {
			for g := 0; g < 64; g += 8 {
				// Byte i's classes at bits i, 8+i and 16+i.
				e := blk[g : g+8 : g+8]
				c := classBits[e[0]] | classBits[e[1]]<<1 | classBits[e[2]]<<2 | classBits[e[3]]<<3 |
					classBits[e[4]]<<4 | classBits[e[5]]<<5 | classBits[e[6]]<<6 | classBits[e[7]]<<7
				b |= uint64(c&0xff) << g
				d |= uint64(c>>8&0xff) << g
				t |= uint64(c>>16&0xff) << g
			}
		} else {
			for g, c := range blk {
				b |= uint64(byteClass[c]&classBoundary) << g
				d |= uint64(byteClass[c]&classDigit>>1) << g
				t |= uint64(byteClass[c]&classTrail>>2) << g
			}
			b |= ^uint64(0) << len(blk)
			d |= ^uint64(0) << len(blk)
		}
		bnd[k], dig[k], trail[k] = b, d, t
	}
	// Sentence punctuation before a boundary, or before more of it,
	// ends the token's kept bytes: from the last block back, as a run of
	// it may go on into the next block.
	next := uint64(1) // bit 0 of the next block (past the text: a boundary)
	for k := words - 1; k >= 0; k-- {
		b, t := bnd[k], trail[k]
		if t != 0 {
			before := uint64(1) // the byte before the text counts as a boundary
			if k > 0 {
				before = bnd[k-1] >> 63
			}
			starts := ^b & (b<<1 | before)
			run := uint64(0)
			for { // each round takes one more byte of a run
				r := t & ((b|run)>>1 | next<<63)
				if r == run {
					break
				}
				run = r
			}
			b |= run &^ starts
			bnd[k] = b
		}
		next = b & 1
	}
}

// classBits holds, for each byte value, its boundary, digit and trailing
// punctuation classes (byteClass) at bits 0, 8 and 16: eight bytes' classes
// shifted by their place and added up give three bytes of marks.
var classBits = func() (t [256]uint32) {
	for c, k := range byteClass {
		t[c] = uint32(k&classBoundary) | uint32(k&classDigit>>1)<<8 | uint32(k&classTrail>>2)<<16
	}
	return t
}()

// ones8 has the lowest bit of every byte set; low7 the lower seven bits,
// high8 the highest.
const (
	ones8 = 0x0101010101010101
	low7  = 0x7f7f7f7f7f7f7f7f
	high8 = 0x8080808080808080
)

// firstBytes[l] keeps the first min(l, maxFollowed) bytes of a packed
// word of l bytes.
var firstBytes = func() (m [32]uint64) {
	for l := range m {
		m[l] = 1<<(8*min(l, maxFollowed)) - 1
	}
	return m
}()

// nextSet returns the index of the first set bit of bm at or after i (bm
// has one past the text: see marks).
func nextSet(bm []uint64, i int) int {
	k := i >> 6
	if w := bm[k] >> (i & 63); w != 0 {
		return i + bits.TrailingZeros64(w)
	}
	for k++; ; k++ {
		if w := bm[k]; w != 0 {
			return k<<6 + bits.TrailingZeros64(w)
		}
	}
}

// inRange returns the top bit of every byte of x within [a, b], all bytes
// of x being below 0x80 (no carry crosses a byte).
func inRange(x uint64, a, b byte) uint64 {
	return (x + ones8*uint64(0x80-a)) &^ (x + ones8*uint64(0x7f-b)) & high8
}

// lower8 returns the eight bytes of x with ASCII upper case lowercased.
func lower8(x uint64) uint64 {
	return x | inRange(x&low7, 'A', 'Z')&^x>>2
}

// slowToken feeds the token that starts at s[i] through token and returns
// the index past it.
func (n *normalizer) slowToken(s []byte, i int) int {
	j, class := i, uint8(0)
	for j < len(s) {
		c := byteClass[s[j]]
		if c&classBoundary != 0 {
			break
		}
		class |= c
		j++
	}
	tok := s[i:j]
	// Sentence punctuation at the end of a token is not part of it.
	for len(tok) > 1 && isTrail(tok[len(tok)-1]) {
		tok = tok[:len(tok)-1]
	}
	n.token(tok, class&classDigit != 0)
	return j
}

func isTrail(c byte) bool { return c == '.' || c == ':' || c == '!' || c == '?' || c == ',' }

// token feeds one token; digits says whether it holds a digit (without
// one it is a word: classify is not asked).
func (n *normalizer) token(tok []byte, digits bool) {
	if n.pending != nil {
		if isDurationUnit(tok) {
			n.emitKind(tokDur)
			n.pending = nil
			n.emitWord(tok)
			return
		}
		n.flush()
	}
	k := tokWord
	if digits {
		k = classify(tok)
	}
	switch k {
	case tokWord:
		n.emitWord(tok)
	case tokNum:
		// A non-zero exit status says the command failed ("exit code:
		// 1", "<returncode>2</returncode>").
		if n.exit && string(tok) != "0" {
			n.errs = true
		}
		n.exit = false
		if n.shell != shellNone {
			n.emitPlaceholder(shellCounter)
			return
		}
		n.pending = tok
	default:
		n.emitKind(k)
	}
}

// flush emits a pending number as itself.
func (n *normalizer) flush() {
	if n.pending != nil {
		n.emitWord(n.pending)
		n.pending = nil
	}
}

func (n *normalizer) emitKind(k tokKind) { n.emitPlaceholder(placeholder[k]) }

func (n *normalizer) emitPlaceholder(p string) {
	n.words++
	n.buf = append(append(n.buf, 0x1f), p...)
	if n.show {
		n.out = append(n.out, p...)
		n.out = append(n.out, ' ')
	}
	n.prev, n.shell = 0, shellNone
}

// emitWord writes a word to buf (lowercased unless keepCase), counts it,
// shows it, and follows it.
func (n *normalizer) emitWord(tok []byte) {
	tab := &lower
	if n.keepCase {
		tab = &same
	}
	o := len(n.buf)
	n.buf = slices.Grow(n.buf, 1+len(tok))[:o+1+len(tok)]
	b := n.buf[o:]
	b[0] = 0x1f
	b = b[1:]
	i := 0
	for ; len(tok)-i >= 8; i += 8 { // a path, a URL: 8 bytes at a time
		x := binary.LittleEndian.Uint64(tok[i:])
		if !n.keepCase {
			x = lower8(x)
		}
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	for ; i < len(tok); i++ {
		b[i] = tab[tok[i]]
	}
	n.words++
	if n.show {
		for _, c := range tok {
			n.out = append(n.out, lower[c])
		}
		n.out = append(n.out, ' ')
	}
	n.follow(kindOf(pack(tok)), tok)
}

// follow takes in the flags k (kindOf) of the next word, tok: the words
// and phrases that say a tool failed, that a result is empty, that an exit
// status or a shell's line counter comes next.
func (n *normalizer) follow(k wordFlag, tok []byte) {
	if k&wfLong != 0 {
		// Its first bytes and length are those of a long word of
		// wordKinds: is it the word?
		if !equalLower(tok, "exception") && !equalLower(tok, "traceback") && !equalLower(tok, "returncode") {
			k = 0
		}
		k &^= wfLong
	}
	prev := n.prev
	if k&wfErr != 0 {
		n.errs = true
	}
	switch {
	case prev&wfNot != 0 && k&wfFound != 0,
		prev&wfNo != 0 && k&wfSuch != 0,
		prev&wfTimed != 0 && k&wfOut != 0:
		n.errs = true
	case prev&wfNo != 0 && k&(wfNoResult|wfOutput) != 0,
		prev&wfAny != 0 && k&wfOutput != 0:
		// "No matches found", "did not produce any output": an
		// empty answer, which is news for a new question.
		n.empty = true
	}
	switch {
	case k&wfShell != 0:
		n.shell = shellName
	case n.shell == shellName && k&wfLine != 0:
		n.shell = shellLine
	default:
		n.shell = shellNone
	}
	n.exit = k&wfReturncode != 0 || (prev&wfExit != 0 && k&wfCode != 0)
	n.prev = k
}

// A wordFlag says what a word is to emitWord: an error word by itself
// (wfErr), or a word of a phrase ("not found", "no such", "timed out", "no
// matches", "any output", "bash line", "exit code").
type wordFlag uint16

const (
	wfErr        wordFlag = 1 << iota // error, failed, denied, …
	wfNot                             // not (found)
	wfNo                              // no (such; results, matches, result, output)
	wfTimed                           // timed (out)
	wfAny                             // any (output)
	wfExit                            // exit (code, status)
	wfFound                           // (not) found
	wfSuch                            // (no) such
	wfOut                             // (timed) out
	wfNoResult                        // (no) results, matches, result
	wfOutput                          // (no, any) output
	wfShell                           // bash, sh, zsh, dash (line)
	wfLine                            // (bash) line
	wfCode                            // (exit) code, status
	wfReturncode                      // returncode: an exit status follows
	wfLong                            // (kindTable) a word longer than maxFollowed: compare it whole
)

// wordKinds are the words that follow takes in, lowercased. Those longer
// than maxFollowed (exception, traceback, returncode) are found in
// kindTable by their first maxFollowed bytes and their length, then
// compared whole (wfLong).
var wordKinds = map[string]wordFlag{
	"error": wfErr, "errors": wfErr, "err": wfErr, "err!": wfErr, "failed": wfErr, "failure": wfErr,
	"fatal": wfErr, "panic": wfErr, "denied": wfErr, "invalid": wfErr, "unknown": wfErr, "unable": wfErr,
	"cannot": wfErr, "can't": wfErr, "timeout": wfErr, "refused": wfErr, "enoent": wfErr,
	"not": wfNot, "no": wfNo, "timed": wfTimed, "any": wfAny, "exit": wfExit,
	"found": wfFound, "such": wfSuch, "out": wfOut, "results": wfNoResult, "matches": wfNoResult,
	"result": wfNoResult, "output": wfOutput,
	"bash": wfShell, "sh": wfShell, "zsh": wfShell, "dash": wfShell, "line": wfLine,
	"code": wfCode, "status": wfCode,
	"exception": wfErr, "traceback": wfErr, "returncode": wfReturncode,
}

// maxFollowed is how many first bytes of a word kindTable compares.
const maxFollowed = 7

// kindTable holds wordKinds by packed word (pack), each in its own slot
// (kindMul spreads them without a collision): one multiplication, one
// load and one comparison a word, without a branch.
const (
	kindBits  = 8
	kindSlots = 1 << kindBits
	// kindMul is the first odd multiple of the golden ratio's 2^64
	// (0x9e3779b97f4a7c15 × 15) that gives every word of wordKinds a slot
	// of its own; kindTable's construction checks it.
	kindMul = 0x454021de755d453b
)

var kindTable = func() (t [kindSlots]struct {
	w uint64
	k wordFlag
}) {
	for s, k := range wordKinds {
		if len(s) > maxFollowed {
			k |= wfLong
		}
		w := pack([]byte(s))
		i := kindSlot(w)
		if t[i].w != 0 {
			panic("progress: kindMul gives two words of wordKinds one slot: " + s)
		}
		t[i].w, t[i].k = w, k
	}
	return t
}()

func kindSlot(w uint64) uint64 { return (w * kindMul) >> (64 - kindBits) }

// kindOf returns the flags of a packed word (pack); 0 for any other word.
func kindOf(w uint64) wordFlag {
	e := &kindTable[kindSlot(w)]
	k := e.k
	if e.w != w {
		k = 0
	}
	return k
}

// pack returns a word's first maxFollowed bytes, lowercased, as one
// integer: its bytes from the lowest, its length in the highest byte (a
// longer word's is 8 or more: no word of kindTable has it).
func pack(tok []byte) uint64 {
	var w uint64
	for i, c := range tok[:min(len(tok), maxFollowed)] {
		w |= uint64(lower[c]) << (8 * i)
	}
	return w | uint64(min(len(tok), 255))<<56
}

// equalLower reports whether tok lowercased is s (lower case).
func equalLower(tok []byte, s string) bool {
	if len(tok) != len(s) {
		return false
	}
	for i, c := range tok {
		if lower[c] != s[i] {
			return false
		}
	}
	return true
}

func isDurationUnit(tok []byte) bool {
	var low [12]byte
	if len(tok) > len(low) {
		return false
	}
	for i, c := range tok {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(tok)]) {
	case "s", "sec", "secs", "second", "seconds", "ms", "millisecond", "milliseconds",
		"min", "mins", "minute", "minutes", "h", "hr", "hrs", "hour", "hours":
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// classify says what a token is (see tokKind).
func classify(t []byte) tokKind {
	digits, run, maxRun, letters := 0, 0, 0, 0
	for _, c := range t {
		if isDigit(c) {
			digits++
			run++
			maxRun = max(maxRun, run)
			continue
		}
		run = 0
		if c|0x20 >= 'a' && c|0x20 <= 'z' {
			letters++
		}
	}
	if digits == 0 {
		return tokWord
	}
	if t[0] == '#' && digits == len(t)-1 {
		return tokID
	}
	if isUUID(t) {
		return tokID
	}
	if isDateOrTime(t) {
		return tokTS
	}
	if num, unit := splitNumber(t); num > 0 {
		switch {
		case unit > 0 && isDurationUnit(t[num:]):
			return tokDur
		case unit > 0:
			// 10px, 3x, 2nd: a word.
		case maxRun >= 10:
			return tokTS // Unix seconds or milliseconds
		default:
			return tokNum
		}
	}
	if maxRun >= 4 && letters > 0 {
		return tokID
	}
	if len(t) >= 8 && letters > 0 {
		hex := true
		for _, c := range t {
			if !isHex(c) {
				hex = false
				break
			}
		}
		if hex {
			return tokID
		}
	}
	return tokWord
}

// splitNumber returns the length of a leading number (optional sign,
// digits with at most one '.', an optional '%') and of the letters after
// it; num is 0 when t does not start with a number or has more after it.
func splitNumber(t []byte) (num, unit int) {
	i := 0
	if i < len(t) && (t[i] == '-' || t[i] == '+') {
		i++
	}
	start, dot := i, false
	for i < len(t) && (isDigit(t[i]) || (t[i] == '.' && !dot)) {
		if t[i] == '.' {
			dot = true
		}
		i++
	}
	if i == start || !isDigit(t[i-1]) {
		return 0, 0
	}
	if i < len(t) && t[i] == '%' {
		i++
	}
	num = i
	for i < len(t) && t[i]|0x20 >= 'a' && t[i]|0x20 <= 'z' {
		i++
	}
	if i != len(t) {
		return 0, 0
	}
	return num, len(t) - num
}

func isUUID(t []byte) bool {
	if len(t) != 36 {
		return false
	}
	for i, c := range t {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !isHex(c) {
			return false
		}
	}
	return true
}

// isDateOrTime: 2026-02-03…, 2026/02/03 is split by '/', 14:05, 14:05:09Z.
func isDateOrTime(t []byte) bool {
	if len(t) >= 10 && isDigit(t[0]) && isDigit(t[1]) && isDigit(t[2]) && isDigit(t[3]) && t[4] == '-' &&
		isDigit(t[5]) && isDigit(t[6]) && t[7] == '-' && isDigit(t[8]) && isDigit(t[9]) {
		return true
	}
	// A time of day: hours below 24, minutes below 60 ("52:60", an edit's
	// line range, is not one).
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if i < 1 || i > 2 || i+2 >= len(t) || t[i] != ':' || !isDigit(t[i+1]) || !isDigit(t[i+2]) {
		return false
	}
	h := int(t[0] - '0')
	if i == 2 {
		h = 10*h + int(t[1]-'0')
	}
	return h < 24 && t[i+1] < '6'
}
