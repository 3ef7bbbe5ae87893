package simhash

import (
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
// dst lacks capacity: the normalized form is at most 3×len(src) bytes long
// (an invalid byte becomes the 3-byte U+FFFD).
func Normalize(dst, src []byte) []byte {
	base := len(dst)
	// prevAlnum reports whether the lowercased rune before src[i] is an
	// ASCII letter or digit: the word-boundary test of UUIDs and hex IDs.
	prevAlnum := false
	i := 0
	for i < len(src) {
		c := src[i]
		k := class[c]
		if k&cPlain != 0 || (k&cHex != 0 && prevAlnum) {
			dst = append(dst, lower[c])
			prevAlnum = k&cAlnum != 0
			i++
			continue
		}
		switch {
		case k&cSpace != 0:
			i = skipSpace(src, i+1)
			if i < len(src) && len(dst) > base {
				dst = append(dst, ' ')
			}
			prevAlnum = false
			continue
		case k&cDigit != 0:
			if j := matchTS(src, i); j > 0 {
				dst = append(dst, phTS...)
				i, prevAlnum = j, true
				continue
			}
			fallthrough
		case k&cHex != 0:
			if !prevAlnum {
				if j := matchID(src, i); j > 0 {
					dst = append(dst, phID...)
					i, prevAlnum = j, true
					continue
				}
			}
			if k&cDigit != 0 {
				dst = append(dst, phNum...)
				i, prevAlnum = matchNum(src, i), true
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
			if i < len(src) && len(dst) > base {
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
	}
	return dst
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
