// Package jsonsimd finds JSON structure 64 bytes at a time with AVX-512,
// for the scanners of ingest and analyze/body: the end of an object or
// array (SkipContainer), the end of a string (StringEnd), the ASCII prefix
// of a line (ASCIIPrefix, ValidUTF8). SkipContainer and ASCIIPrefix run
// only with AVX-512: their callers check Enabled and keep a scalar twin
// (ingest's skipValue loop, utf8.Valid), which stays the reference and
// words the errors. StringEnd and ValidUTF8 run everywhere, with their
// scalar code here. Tests turn Enabled off to compare the two paths.
package jsonsimd

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// ValidUTF8 is utf8.Valid, its ASCII blocks checked 64 bytes at a time
// where the processor can; what is left, when it is under 64 bytes (the
// last block's bytes), a word at a time (ASCII) before utf8.Valid is
// called. A longer rest holds text that is not ASCII: utf8.Valid alone.
func ValidUTF8(b []byte) bool {
	if Enabled {
		b = b[ASCIIPrefix(b):]
	}
	if len(b) < 64 && ASCII(b) {
		return true
	}
	return utf8.Valid(b)
}

// ASCII reports whether b holds only bytes below 0x80, reading eight
// bytes at a time (the last word overlaps the one before it): for short
// texts (an id, a role, a block's tail), where a call of utf8.Valid
// costs more than the check.
func ASCII(b []byte) bool {
	n := len(b)
	if n < 8 {
		var acc byte
		for _, c := range b {
			acc |= c
		}
		return acc < utf8.RuneSelf
	}
	var acc uint64
	for i := 0; i+8 < n; i += 8 {
		acc |= binary.LittleEndian.Uint64(b[i:])
	}
	acc |= binary.LittleEndian.Uint64(b[n-8:])
	return acc&0x8080808080808080 == 0
}

// StringEnd returns the index in b of the first quote no backslash
// escapes (a backslash escapes the byte after it), or -1 when there is
// none: b is a JSON string's content from its start, or from any byte
// that is not escaped.
func StringEnd(b []byte) int {
	if Enabled {
		// A short string (a role, a name, an id) ends in its first 16
		// bytes: found there without a call into the 64-byte loop, whose
		// set-up costs more than such a string. Where the first quote or
		// backslash is a backslash, the loop starts over.
		if len(b) >= 16 {
			if m := QuoteOrBackslash(binary.LittleEndian.Uint64(b)); m != 0 {
				if k := bits.TrailingZeros64(m) >> 3; b[k] == '"' {
					return k
				}
			} else if m := QuoteOrBackslash(binary.LittleEndian.Uint64(b[8:])); m != 0 {
				if k := 8 + bits.TrailingZeros64(m)>>3; b[k] == '"' {
					return k
				}
			}
		}
		return stringEndAVX512(b)
	}
	return stringEnd(b)
}

// ZeroByte flags the lowest zero byte of x exactly (bytes above it may be
// flagged wrongly, none below it is): its top bit is set in the result.
func ZeroByte(x uint64) uint64 {
	return (x - 0x0101010101010101) &^ x & 0x8080808080808080
}

// QuoteOrBackslash flags the lowest '"' or '\\' byte of the 8 bytes x
// (little-endian) exactly: the top bit of its byte is set in the result,
// which is zero when x holds neither.
func QuoteOrBackslash(x uint64) uint64 {
	return ZeroByte(x^0x2222222222222222) | ZeroByte(x^0x5c5c5c5c5c5c5c5c)
}

// stringEnd is StringEnd without AVX-512: 8 bytes at a time for a quote or
// a backslash, stepping over escapes, until 4 words in a row hold neither
// (names, ids and JSON text in strings end or escape soon); then, in a
// long run of text, IndexByte for quotes, a quote being escaped by an odd
// number of backslashes before it.
func stringEnd(b []byte) int {
	j := 0
	for n := 0; n < 4 && j+8 <= len(b); {
		x := binary.LittleEndian.Uint64(b[j:])
		m := QuoteOrBackslash(x)
		if m == 0 {
			j += 8
			n++
			continue
		}
		k := j + bits.TrailingZeros64(m)>>3
		if b[k] == '"' {
			return k
		}
		j, n = k+2, 0 // past the backslash and the byte it escapes
	}
	if j+8 > len(b) {
		for ; j < len(b); j++ {
			switch b[j] {
			case '"':
				return j
			case '\\':
				j++
			}
		}
		return -1
	}
	start := j
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for q := j - 1; q >= start && b[q] == '\\'; q-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
		j++
	}
}
