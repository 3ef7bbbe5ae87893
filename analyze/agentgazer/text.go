package agentgazer

import "unicode/utf8"

// AgentGazer runs on JavaScript, whose strings are sequences of UTF-16 code
// units. Everything in this package that must match it bit for bit works on
// []uint16; this file converts between Go strings and those units.
//
// Two byte-to-unit decodings exist:
//
//   - strict (for raw bodies): bytes are decoded as Node's
//     Buffer.toString("utf-8") does (the WHATWG UTF-8 decoder): each
//     maximal ill-formed subpart becomes one U+FFFD. Go's own decoder differs:
//     it makes one U+FFFD per byte of a truncated sequence ("\xe2\x82A" is one
//     U+FFFD and "A" in Node, two U+FFFD and "A" in Go).
//   - WTF-8 (for strings this package hands out and takes back): like strict,
//     except that the three-byte encoding of a surrogate code point
//     (ED A0..BF 80..BF) is one lone surrogate code unit. JSON strings such as
//     "\ud800" hold lone surrogates in JavaScript; Prompt and ToolSignature
//     return them in this form so that Normalize and SimHash can read them back.
//     Two encoded surrogates that form a pair read as that pair, as two lone
//     halves concatenated do in JavaScript, and are written back in 4 bytes.

const (
	surrogateMin = 0xD800
	surrogateMax = 0xDFFF
	replacement  = 0xFFFD
)

// appendUnits appends the UTF-16 code units of s to dst: strictly decoded
// (wtf8 false) or as WTF-8 (wtf8 true).
func appendUnits(dst []uint16, s string, wtf8 bool) []uint16 {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, uint16(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r, size = decodeIllFormed(s[i:], wtf8)
		}
		dst = appendRune(dst, r)
		i += size
	}
	return dst
}

// decodeIllFormed handles a sequence at the start of s that Go's decoder
// rejected. It returns a lone surrogate (WTF-8 only) or U+FFFD, and how many
// bytes that consumes: the maximal subpart of a well-formed sequence, at
// least one byte (WHATWG "UTF-8 decode", Unicode §3.9 "U+FFFD substitution of
// maximal subparts").
func decodeIllFormed(s string, wtf8 bool) (rune, int) {
	lead := s[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF) // bounds of the first continuation byte
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead == 0xED:
		need = 2
		if !wtf8 {
			hi = 0x9F
		}
	case lead >= 0xE1 && lead <= 0xEF:
		need = 2
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	case lead == 0xF4:
		need, hi = 3, 0x8F
	default:
		return replacement, 1
	}
	r := rune(lead) & (0x3F >> need)
	for k := 1; k <= need; k++ {
		if k >= len(s) || s[k] < lo || s[k] > hi {
			return replacement, k
		}
		r = r<<6 | rune(s[k]&0x3F)
		lo, hi = 0x80, 0xBF
	}
	return r, need + 1
}

// appendRune appends r as UTF-16: one unit, or a surrogate pair above U+FFFF.
// A surrogate code point r becomes that single (lone) unit.
func appendRune(dst []uint16, r rune) []uint16 {
	if r < 0x10000 {
		return append(dst, uint16(r))
	}
	r -= 0x10000
	return append(dst, uint16(surrogateMin+(r>>10)), uint16(0xDC00+(r&0x3FF)))
}

// runeAt decodes the code point starting at u[i] the way ICU and
// String.prototype.codePointAt do: a high surrogate followed by a low one is
// a pair; any other surrogate stands for itself. It returns the code point
// and its length in units (1 or 2).
func runeAt(u []uint16, i int) (rune, int) {
	c := u[i]
	if c >= surrogateMin && c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] <= surrogateMax {
		return 0x10000 + (rune(c)-surrogateMin)<<10 + rune(u[i+1]) - 0xDC00, 2
	}
	return rune(c), 1
}

// runeBefore decodes the code point that ends just before u[i].
func runeBefore(u []uint16, i int) (rune, int) {
	c := u[i-1]
	if c >= 0xDC00 && c <= surrogateMax && i >= 2 && u[i-2] >= surrogateMin && u[i-2] < 0xDC00 {
		return 0x10000 + (rune(u[i-2])-surrogateMin)<<10 + rune(c) - 0xDC00, 2
	}
	return rune(c), 1
}

// appendWTF8 appends u encoded as WTF-8: surrogate pairs as 4-byte UTF-8,
// lone surrogates as their 3-byte generalized UTF-8 form, everything else as
// UTF-8. The encoding is injective, so equal strings mean equal units.
func appendWTF8(dst []byte, u []uint16) []byte {
	for i := 0; i < len(u); {
		c := u[i]
		if c < utf8.RuneSelf {
			dst = append(dst, byte(c))
			i++
			continue
		}
		r, n := runeAt(u, i)
		i += n
		if r >= surrogateMin && r <= surrogateMax {
			dst = append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// wtf8String returns u as a WTF-8 Go string.
func wtf8String(u []uint16) string {
	return string(appendWTF8(make([]byte, 0, len(u)), u))
}

// unitsOf returns the UTF-16 code units of the ASCII string s.
func unitsOf(s string) []uint16 {
	u := make([]uint16, len(s))
	for i := range len(s) {
		u[i] = uint16(s[i])
	}
	return u
}
