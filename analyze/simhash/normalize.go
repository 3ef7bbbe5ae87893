package simhash

import (
	"encoding/binary"
	"math"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Byte classes of the scanner, one table lookup per input byte.
const (
	cPlain = 1 << iota // ASCII byte copied as itself (lowercased); no rule starts here
	cDigit             // 0-9: TS, UUID, hex ID or NUM may start here
	cHex               // a-f, A-F: UUID or hex ID may start here at a word boundary
	cAlnum             // 0-9, a-z, A-Z: not a word boundary
	cSpace             // ASCII white space: \t \n \v \f \r and ' '
	cMulti             // first byte of a multi-byte sequence, or an invalid byte
)

// class holds the cXxx bits of every byte value; lower is the ASCII
// lowercase mapping (identity for every other byte).
var class, lower = func() (cl, lo [256]byte) {
	for b := range 256 {
		c := byte(b)
		lo[b] = c
		switch {
		case c >= 0x80:
			cl[b] = cMulti
		case c == ' ', c >= '\t' && c <= '\r':
			cl[b] = cSpace
		case c >= '0' && c <= '9':
			cl[b] = cDigit | cAlnum
		case c >= 'a' && c <= 'f':
			cl[b] = cHex | cAlnum
		case c >= 'A' && c <= 'F':
			cl[b] = cHex | cAlnum
			lo[b] = c + 'a' - 'A'
		case c >= 'g' && c <= 'z':
			cl[b] = cPlain | cAlnum
		case c >= 'G' && c <= 'Z':
			cl[b] = cPlain | cAlnum
			lo[b] = c + 'a' - 'A'
		default:
			cl[b] = cPlain
		}
	}
	return cl, lo
}()

// Placeholders written in place of the replaced tokens. They are upper case,
// so they can never be confused with lowercased input text.
const (
	phTS  = "<TS>"
	phID  = "<ID>"
	phNum = "<NUM>"
)

// Normalize appends the spec-profile normalized form of src to dst and
// returns the extended slice; the rules are in the package documentation.
// src is only read; the caller owns both slices. Normalize allocates only when
// dst lacks capacity. The normalized form is usually no longer than src and
// at most 4×len(src)+1 bytes (a digit becomes the 5-byte <NUM>, an invalid
// byte the 3-byte U+FFFD).
func Normalize(dst, src []byte) []byte {
	var s scanner
	return s.run(slices.Grow(dst, len(src)), src, math.MaxInt)
}

// maxEmit is the most bytes one step of scanner.run appends: a placeholder
// (5 bytes) or a lowercased rune (at most 4).
const maxEmit = 5

// scanner is the state of a normalization that may stop and resume at any
// token boundary, so that Hash can stream the normalized text through a
// small buffer. The zero value starts at the beginning of the text.
type scanner struct {
	i         int  // next unread byte of src
	prevAlnum bool // the lowercased rune before src[i] is an ASCII letter or digit
	started   bool // some non-space output has been produced
}

// run appends the normalized form of src[s.i:] to dst until src is exhausted
// or len(dst) reaches limit; it overshoots limit by at most maxEmit-1 bytes.
// Every stop falls on a token boundary, so successive runs produce exactly
// the bytes of one run over the whole of src.
func (s *scanner) run(dst, src []byte, limit int) []byte {
	i, prevAlnum, started := s.i, s.prevAlnum, s.started
	for i < len(src) && len(dst) < limit {
		c := src[i]
		k := class[c]
		if k&cPlain != 0 || (k&cHex != 0 && (prevAlnum || !hexStart(src, i))) {
			// The hot loop: a run of ASCII text copied lowercased, single
			// white-space bytes between words included. Inside the run the
			// byte before src[j] is ASCII, so word boundaries are a table
			// lookup away.
			end := len(src)
			if room := limit - len(dst); room < end-i {
				end = i + room
			}
			seg := src[i:end]
			n := len(dst)
			dst = slices.Grow(dst, len(seg))[:n+len(seg)]
			out := dst[n:]
			out = out[:len(seg)]
			out[0] = lower[c]
			j := 1
			for {
				// Eight bytes at a time while they are plain text.
				for j+16 <= len(seg) {
					y, ok := swarText(binary.LittleEndian.Uint64(seg[j:]),
						binary.LittleEndian.Uint64(seg[j+8:]), class[seg[j-1]]&cAlnum != 0)
					if !ok {
						break
					}
					binary.LittleEndian.PutUint64(out[j:], y)
					j += 8
				}
				// Then up to eight bytes one at a time.
				for stop := min(j+8, len(seg)); j < stop; j++ {
					c := seg[j]
					k := class[c]
					switch {
					case k&cPlain != 0:
					case k&cHex != 0:
						if class[seg[j-1]]&cAlnum == 0 && hexStart(src, i+j) {
							goto stop
						}
					case k&cSpace != 0:
						// A lone white-space byte before more ASCII text
						// (not white space) is a complete run: one space.
						if j+1 == len(seg) || class[seg[j+1]]&(cPlain|cHex|cDigit) == 0 {
							goto stop
						}
						c = ' '
					default:
						goto stop
					}
					out[j] = lower[c]
				}
				if j == len(seg) {
					break
				}
			}
		stop:
			dst = dst[:n+j]
			prevAlnum = class[seg[j-1]]&cAlnum != 0
			i += j
			started = true
			continue
		}
		switch {
		case k&cSpace != 0:
			i = skipSpace(src, i+1)
			if i < len(src) && started {
				dst = append(dst, ' ')
			}
			prevAlnum = false
			continue
		case k&cDigit != 0:
			started = true
			if j := matchTS(src, i); j > 0 {
				dst = append(dst, phTS...)
				i, prevAlnum = j, true
				continue
			}
			if !prevAlnum {
				if j := matchID(src, i); j > 0 {
					dst = append(dst, phID...)
					i, prevAlnum = j, true
					continue
				}
			}
			dst = append(dst, phNum...)
			i, prevAlnum = matchNum(src, i), true
			continue
		case k&cHex != 0: // a hex letter at a word boundary
			started = true
			if j := matchID(src, i); j > 0 {
				dst = append(dst, phID...)
				i, prevAlnum = j, true
				continue
			}
			dst = append(dst, lower[c])
			i, prevAlnum = i+1, true
			continue
		}
		// Non-ASCII: a rune, or an invalid byte read as U+FFFD (size 1).
		r, size := utf8.DecodeRune(src[i:])
		if unicode.IsSpace(r) {
			i = skipSpace(src, i+size)
			if i < len(src) && started {
				dst = append(dst, ' ')
			}
			prevAlnum = false
			continue
		}
		r = unicode.ToLower(r)
		dst = utf8.AppendRune(dst, r)
		// U+0130 and U+212A lowercase to the ASCII letters i and k.
		prevAlnum = r < utf8.RuneSelf && class[r]&cAlnum != 0
		i += size
		started = true
	}
	s.i, s.prevAlnum, s.started = i, prevAlnum, started
	return dst
}

// SWAR constants: a one, the low seven bits and the top bit of every byte.
const (
	ones8 = 0x0101010101010101
	low7  = 0x7f7f7f7f7f7f7f7f
	high8 = 0x8080808080808080
)

// inRange returns the top bit of every byte of x within [a, b], all bytes of
// x being ASCII (no carry crosses a byte).
func inRange(x uint64, a, b byte) uint64 {
	return (x + ones8*uint64(0x80-a)) &^ (x + ones8*uint64(0x7f-b)) & high8
}

// swarText is the hot loop eight bytes at a time. For the little-endian
// bytes x of the source, followed by next, it returns their normalized form
// when the byte-at-a-time loop would copy all eight: printable ASCII but
// digits, white space followed by more text, and no UUID or hex identifier
// starting at a word boundary (prevAlnum tells whether the byte before x is
// a letter or digit). Otherwise it returns false, and the byte-at-a-time
// loop takes over.
func swarText(x, next uint64, prevAlnum bool) (uint64, bool) {
	// Bytes above 0x7f, and digits.
	if x&high8|inRange(x, '0', '9') != 0 {
		return 0, false
	}
	y := x | inRange(x, 'A', 'Z')>>2 // lowercase
	// White space becomes ' ' and must be followed by text: not by white
	// space, nor, after the last byte, by anything but text. Other control
	// characters are left to the byte-at-a-time loop.
	t := x ^ ones8*' '
	ws := ^(t&low7 + low7 | t) & high8              // spaces
	if ctl := ^(x + ones8*0x60) & high8; ctl != 0 { // bytes below 0x20
		other := inRange(x, '\t', '\r')
		if ctl&^other != 0 {
			return 0, false
		}
		ws |= other
		b := (other >> 7) * 0xff
		y = y&^b | b&(ones8*' ')
	}
	if ws&(ws>>8) != 0 || ws>>63 != 0 && class[byte(next)]&(cPlain|cHex|cDigit) == 0 {
		return 0, false
	}
	// Hex letters at a word start: a UUID or hex ID may start there if the
	// 8 bytes from it are hex digits (letters in x, digits too in next).
	hex := inRange(y, 'a', 'f')
	prev := (high8 &^ inRange(y, 'a', 'z')) << 8 // x has no digits
	if !prevAlnum {
		prev |= 0x80
	}
	nx := next &^ high8
	ny := nx | inRange(nx, 'A', 'Z')>>2
	nextHex := (inRange(ny, 'a', 'f') | inRange(nx, '0', '9')) &^ (next & high8)
	// The bytes starting 2, 4, then 8 hex digits in a row, without the
	// branch per candidate that mispredicted on words like "cache".
	r, n := hex&(hex>>8|nextHex<<56), nextHex&(nextHex>>8)
	r, n = r&(r>>16|n<<48), n&(n>>16)
	if r&(r>>32|n<<32)&prev != 0 {
		return 0, false
	}
	return y, true
}

// hexStart reports whether the 8 bytes at src[i:] are hex digits, as the
// first group of a UUID and every hex identifier start with 8 of them.
func hexStart(src []byte, i int) bool {
	if len(src)-i < 8 || class[src[i+1]]&(cDigit|cHex) == 0 {
		return false
	}
	for _, c := range src[i+2 : i+8] {
		if class[c]&(cDigit|cHex) == 0 {
			return false
		}
	}
	return true
}

// skipSpace returns the index of the first non-space rune at or after i.
func skipSpace(src []byte, i int) int {
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if class[c]&cSpace == 0 {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += size
	}
	return i
}

// alnumAt reports whether the lowercased rune at src[i] is an ASCII letter or
// digit; false at the end of src.
func alnumAt(src []byte, i int) bool {
	if i >= len(src) {
		return false
	}
	c := src[i]
	if c < utf8.RuneSelf {
		return class[c]&cAlnum != 0
	}
	r, _ := utf8.DecodeRune(src[i:])
	r = unicode.ToLower(r)
	return r < utf8.RuneSelf && class[r]&cAlnum != 0
}

// digits returns the end of the run of ASCII digits starting at i.
func digits(src []byte, i int) int {
	for i < len(src) && class[src[i]]&cDigit != 0 {
		i++
	}
	return i
}

// hexRun returns the end of the run of ASCII hex digits (either case)
// starting at i.
func hexRun(src []byte, i int) int {
	for i < len(src) && class[src[i]]&(cDigit|cHex) != 0 {
		i++
	}
	return i
}

// digits2 reports whether src[i] and src[i+1] are ASCII digits.
func digits2(src []byte, i int) bool {
	return i+1 < len(src) && class[src[i]]&class[src[i+1]]&cDigit != 0
}

// byteAt returns the ASCII-lowercased src[i], or 0 past the end.
func byteAt(src []byte, i int) byte {
	if i < len(src) {
		return lower[src[i]]
	}
	return 0
}

// matchNum returns the end of the number starting at the digit src[i]:
// a digit run with an optional fraction ".digits".
func matchNum(src []byte, i int) int {
	i = digits(src, i)
	if byteAt(src, i) == '.' && i+1 < len(src) && class[src[i+1]]&cDigit != 0 {
		i = digits(src, i+1)
	}
	return i
}

// matchTS returns the end of the ISO timestamp starting at i, or 0:
// YYYY-MM-DD, then optionally [Tt ]HH:MM[:SS[.fraction]][Zz|±HH[:]MM].
func matchTS(src []byte, i int) int {
	if !digits2(src, i) || !digits2(src, i+2) || byteAt(src, i+4) != '-' ||
		!digits2(src, i+5) || byteAt(src, i+7) != '-' || !digits2(src, i+8) {
		return 0
	}
	i += 10
	if sep := byteAt(src, i); (sep != 't' && sep != ' ') ||
		!digits2(src, i+1) || byteAt(src, i+3) != ':' || !digits2(src, i+4) {
		return i
	}
	i += 6
	if byteAt(src, i) == ':' && digits2(src, i+1) {
		i += 3
		if byteAt(src, i) == '.' && i+1 < len(src) && class[src[i+1]]&cDigit != 0 {
			i = digits(src, i+1)
		}
	}
	switch byteAt(src, i) {
	case 'z':
		i++
	case '+', '-':
		if digits2(src, i+1) {
			j := i + 3
			if byteAt(src, j) == ':' {
				j++
			}
			if digits2(src, j) {
				i = j + 2
			}
		}
	}
	return i
}

// matchID returns the end of the UUID or hex identifier starting at i, or 0.
// The caller has checked the word boundary before i.
func matchID(src []byte, i int) int {
	j := hexRun(src, i)
	if j-i == 8 {
		// UUID: 8-4-4-4-12 hex digits.
		for _, n := range [...]int{4, 4, 4, 12} {
			if byteAt(src, j) != '-' {
				return 0
			}
			k := hexRun(src, j+1)
			if k-(j+1) != n {
				return 0
			}
			j = k
		}
		if alnumAt(src, j) {
			return 0
		}
		return j
	}
	start := i
	if j-i == 1 && src[i] == '0' && byteAt(src, i+1) == 'x' {
		start = i + 2
		j = hexRun(src, start)
	}
	if j-start < minHexID || alnumAt(src, j) {
		return 0
	}
	var seen byte
	for _, c := range src[start:j] {
		seen |= class[c]
	}
	if seen&cDigit == 0 || seen&cHex == 0 {
		return 0
	}
	return j
}

// minHexID is the shortest run of hex digits replaced as an identifier.
const minHexID = 16
