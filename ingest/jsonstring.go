package ingest

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// AppendJSONString appends s as a JSON string literal (see AppendJSONEscaped).
func AppendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	b = AppendJSONEscaped(b, s)
	return append(b, '"')
}

// AppendJSONEscaped appends s escaped for the inside of a JSON string:
// '"', '\\' and control characters escaped (\n, \r, \t, else \u00XX),
// U+2028 and U+2029 escaped (JavaScript line terminators), and invalid
// UTF-8 replaced by \ufffd; everything else is copied as is. Every package
// that writes JSON by hand uses it, so they all escape alike.
func AppendJSONEscaped[T string | []byte](b []byte, s T) []byte {
	return appendEscaped(b, s, false)
}

// AppendJSONStringStd appends s as a JSON string literal exactly as
// encoding/json writes it with SetEscapeHTML(false): as AppendJSONString,
// but \b and \f in their short forms. Readers that used to build bodies
// with encoding/json write them with it, so those bodies keep every byte.
func AppendJSONStringStd(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s, true)
	return append(b, '"')
}

// AppendJSONStringMarshal appends s as a JSON string literal exactly as
// json.Marshal writes it: as AppendJSONStringStd, with <, > and & escaped
// too (\u003c, \u003e, \u0026: encoding/json's HTML escaping).
func AppendJSONStringMarshal(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for {
		i := strings.IndexAny(s, "<>&")
		if i < 0 {
			break
		}
		b = appendEscaped(b, s[:i], true)
		b = append(b, '\\', 'u', '0', '0', hex[s[i]>>4], hex[s[i]&0xf])
		s = s[i+1:]
	}
	b = appendEscaped(b, s, true)
	return append(b, '"')
}

// Hex4 returns the value of the 4 hex digits s starts with (a \u escape's),
// or -1 when it does not start with 4.
func Hex4[T string | []byte](s T) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendEscaped is AppendJSONEscaped; shortBF writes \b and \f as such
// (encoding/json) instead of \u0008 and \u000c.
func appendEscaped[T string | []byte](b []byte, s T, shortBF bool) []byte {
	return appendEscapedString(b, asString(s), shortBF)
}

// asString views s as a string: a []byte's bytes are not copied (the
// escaper only reads them).
func asString[T string | []byte](s T) string {
	switch v := any(s).(type) {
	case string:
		return v
	case []byte:
		return unsafe.String(unsafe.SliceData(v), len(v))
	}
	return ""
}

// appendEscapedString is appendEscaped of a string.
func appendEscapedString(b []byte, s string, shortBF bool) []byte {
	const hex = "0123456789abcdef"
	start := 0
	slow := 0 // up to here, text that is not ASCII is read a rune at a time
	for i := 0; i < len(s); {
		if i = plainEnd(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b', '\f':
				switch {
				case !shortBF:
					b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
				case c == '\b':
					b = append(b, '\\', 'b')
				default:
					b = append(b, '\\', 'f')
				}
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		if i >= slow {
			// A run of text up to the next byte that may need escaping
			// (textEnd), valid UTF-8 as a whole, is written as it is:
			// no rune of it needs a look.
			if j := textEnd(s, i); j > i {
				if utf8.ValidString(s[i:j]) {
					i = j
					continue
				}
				slow = j // a bad byte lies before j: a rune at a time
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

// plainEnd returns the index of the first byte of s from i that needs a
// look — a control byte, a quote, a backslash or a byte from 0x80 —
// and len(s) when none does. The first sixteen bytes are read as two
// words (load64); past them, a long run (a message's text) is scanned 64
// bytes at a time where the processor can (jsonsimd.EscapeEnd), else
// sixteen, then eight bytes at a time. Text that is not ASCII stops the
// scan at every rune: it stops within the first sixteen bytes, without
// the call. (That first step is written apart from the loop below: a
// loop that hands over after its first step measured 5–8 % slower.)
func plainEnd(s string, i int) int {
	const highs = 0x8080808080808080
	if jsonsimd.Enabled && i+16+escapeCall <= len(s) {
		w, v := load64(s, i), load64(s, i+8)
		if m := w&highs | special(w); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		if m := v&highs | special(v); m != 0 {
			return i + 8 + bits.TrailingZeros64(m)>>3
		}
		return i + 16 + jsonsimd.EscapeEnd(s[i+16:])
	}
	for ; i+16 <= len(s); i += 16 {
		w, v := load64(s, i), load64(s, i+8)
		if (w|v)&highs|special(w)|special(v) == 0 {
			continue
		}
		if m := w&highs | special(w); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		return i + 8 + bits.TrailingZeros64(v&highs|special(v))>>3
	}
	for ; i+8 <= len(s); i += 8 {
		w := load64(s, i)
		if m := w&highs | special(w); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// textEnd returns the index of the first byte of s from i that is a
// control byte, a quote, a backslash or 0xE2 (the first byte of U+2028
// and U+2029, which are escaped), and len(s) when none is: eight bytes at
// a time. Bytes from 0x80 otherwise pass, so that a run of text that is
// not ASCII is checked whole (see appendEscapedString).
func textEnd(s string, i int) int {
	const e2s = 0xe2e2e2e2e2e2e2e2
	for ; i+8 <= len(s); i += 8 {
		w := load64(s, i)
		if m := special(w) | jsonsimd.ZeroByte(w^e2s); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == 0xe2 {
			return i
		}
	}
	return i
}

// escapeCall is the shortest run past plainEnd's first sixteen bytes
// that it hands to jsonsimd.EscapeEnd: a shorter one costs less read a
// word at a time than the call.
const escapeCall = 48

// load64 returns the eight bytes of s from i (i+8 <= len(s)) as a
// little-endian word: one load.
func load64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:i+8]), 8))
}

// special returns a word whose high bits are set where a byte of w is
// below 0x20, a quote or a backslash: zero when none is, and exact for
// the lowest byte that is one when no byte below it is from 0x80 (the
// test for a zero byte, jsonsimd.ZeroByte, is exact up to the lowest
// zero byte: a borrow starts only there). So the lowest byte
// flagged in w&0x80…80 | special(w) is the first byte that needs a look.
func special(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	low := (w - ones*0x20) &^ w & highs // a byte below 0x20
	return low | jsonsimd.QuoteOrBackslash(w)
}
