package body

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/jsonsimd"
)

// This file reads JSON bytes in place, for the fast path of fast.go: it
// walks a document once, skipping the values it is not asked about, and
// builds no tree.
//
// It accepts strictly less than fastjson: every document it accepts parses
// with fastjson into the values it reads here, and anything else (numbers
// outside the JSON grammar, NaN and Inf, escaped names in an object whose
// members it looks up, nesting deeper than maxSkipDepth) makes it fail, so
// that the caller falls back to fastjson. Strings are read as fastjson reads them: a string ends at the
// first quote not escaped by a backslash, and its bytes are not checked
// (control characters, invalid UTF-8 and unknown escapes pass through).

// maxSkipDepth is the deepest nesting skipValue follows (fastjson's limit is
// 300 for the whole document; the fast path adds at most 6 levels).
const maxSkipDepth = 64

// skipWS returns the index of the first byte at or after i that is not JSON
// whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"',
// or false when it is not terminated. A backslash escapes the byte after it.
func skipString(b []byte, i int) (int, bool) {
	k := jsonsimd.StringEnd(b[i+1:])
	if k < 0 {
		return 0, false
	}
	return i + k + 2, true
}

// scanName returns the index just past the member name starting at
// b[i] == '"', or false when the name is not terminated or holds a
// backslash: fastjson matches escaped names only after unescaping the names
// of the whole object, and which member it then finds depends on the order
// of earlier lookups, so the fast path leaves such objects to it.
func scanName(b []byte, i int) (int, bool) {
	j := i + 1
	for ; j+8 <= len(b); j += 8 {
		if m := jsonsimd.QuoteOrBackslash(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			k := j + bits.TrailingZeros64(m)>>3
			return k + 1, b[k] == '"'
		}
	}
	for ; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, true
		case '\\':
			return 0, false
		}
	}
	return 0, false
}

// skipLiteral returns the index just past lit at b[i], or false.
func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipScalar returns the index just past the string, number, true, false or
// null starting at b[i], or false when there is none.
func skipScalar(b []byte, i int) (int, bool) {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case 't':
		return skipLiteral(b, i, "true")
	case 'f':
		return skipLiteral(b, i, "false")
	case 'n':
		return skipLiteral(b, i, "null")
	}
	return ingest.SkipJSONNumber(b, i)
}

// skipValue returns the index just past the JSON value starting at b[i],
// checking its syntax, or false when it is not one (or nests deeper than
// maxSkipDepth).
func skipValue(b []byte, i int) (int, bool) {
	var objects uint64 // bit d is set when the container at depth d is an object
	depth := 0
	var ok bool
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; c {
		case '{', '[':
			if depth == maxSkipDepth {
				return 0, false
			}
			i = skipWS(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			if c == '{' {
				objects |= 1 << depth
				if i, ok = skipNameColon(b, i); !ok {
					return 0, false
				}
			} else {
				objects &^= 1 << depth
			}
			depth++
			continue
		default:
			if i, ok = skipScalar(b, i); !ok {
				return 0, false
			}
		}
		// A value ends before b[i]: close containers until one continues.
		for {
			if depth == 0 {
				return i, true
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, false
			}
			object := objects>>(depth-1)&1 == 1
			if b[i] == ',' {
				i = skipWS(b, i+1)
				if object {
					if i, ok = skipNameColon(b, i); !ok {
						return 0, false
					}
				}
				break
			}
			if (object && b[i] != '}') || (!object && b[i] != ']') {
				return 0, false
			}
			i++
			depth--
		}
	}
}

// skipNameColon returns the index of the value of the member whose name
// starts at b[i]. The name may hold escapes: nobody looks it up.
func skipNameColon(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	i, ok := skipString(b, i)
	if !ok {
		return 0, false
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return skipWS(b, i+1), true
}

// cursor is the position of a members or elements reader in a container.
type cursor struct {
	b      []byte
	i      int  // the container's opening byte before the first item; then the current item
	inside bool // past the opening byte
	failed bool
}

// advance moves to the next item of a container that closes with close and
// returns its index; false after the last item (c.i is then just past
// close) or on failure.
func (c *cursor) advance(close byte) (int, bool) {
	if c.failed {
		return 0, false
	}
	b := c.b
	i := skipWS(b, c.i)
	if !c.inside {
		c.inside = true
		if i = skipWS(b, i+1); i < len(b) && b[i] == close { // empty
			c.i = i + 1
			return 0, false
		}
	} else {
		switch {
		case i < len(b) && b[i] == close:
			c.i = i + 1
			return 0, false
		case i < len(b) && b[i] == ',':
			i = skipWS(b, i+1)
		default:
			c.failed = true
			return 0, false
		}
	}
	if i >= len(b) {
		c.failed = true
		return 0, false
	}
	return i, true
}

// value skips the current item's value and returns its span.
func (c *cursor) value() span {
	end, ok := skipValue(c.b, c.i)
	if !ok {
		c.failed = true
		return span{}
	}
	v := span{c.i, end}
	c.i = end
	return v
}

// members reads the members of a JSON object in order:
//
//	m := objectAt(b, i) // b[i] == '{'
//	for name, ok := m.next(); ok; name, ok = m.next() {
//		… consume the value at m.i, e.g. v := m.value() …
//	}
//	if m.failed { … }
//
// Each member's value must be consumed (m.i moved past it) before the next
// call. Names holding a backslash fail (see scanName) unless escapes is set.
type members struct {
	cursor
	escapes bool // names may hold escapes; next returns them raw
}

// objectAt returns a reader of the object at b[i] == '{'.
func objectAt(b []byte, i int) members { return members{cursor: cursor{b: b, i: i}} }

// next moves to the next member and returns its name, unquoted; its value
// starts at m.i. It returns false after the last member (m.i is then just
// past the '}') or on failure.
func (m *members) next() ([]byte, bool) {
	i, ok := m.advance('}')
	if !ok {
		return nil, false
	}
	b := m.b
	if b[i] != '"' {
		m.failed = true
		return nil, false
	}
	var end int
	if m.escapes {
		end, ok = skipString(b, i)
	} else {
		end, ok = scanName(b, i)
	}
	if !ok {
		m.failed = true
		return nil, false
	}
	j := skipWS(b, end)
	if j >= len(b) || b[j] != ':' {
		m.failed = true
		return nil, false
	}
	if m.i = skipWS(b, j+1); m.i >= len(b) {
		m.failed = true
		return nil, false
	}
	return b[i+1 : end-1], true
}

// firstOf reports whether the current member is the first of its name (as
// *seen says, which it then sets) and its value starts with open: the one
// fastjson's Get finds, of the type the caller reads. The caller skips the
// value when it is not.
func (m *members) firstOf(seen *bool, open byte) bool {
	ok := !*seen && m.b[m.i] == open
	*seen = true
	return ok
}

// elements reads the elements of a JSON array in order, like members.
type elements struct{ cursor }

// arrayAt returns a reader of the array at b[i] == '['.
func arrayAt(b []byte, i int) elements { return elements{cursor: cursor{b: b, i: i}} }

// next moves to the next element, which starts at e.i. It returns false
// after the last element (e.i is then just past the ']') or on failure.
func (e *elements) next() bool {
	i, ok := e.advance(']')
	if ok {
		e.i = i
	}
	return ok
}

// fields reads the object at b[i] == '{' and sets vals[k] to the value of
// its first member named names[k] (absent when there is none), as fastjson's
// Get finds them. It returns the index just past the object.
func fields(b []byte, i int, names []string, vals []span) (int, bool) {
	m := objectAt(b, i)
	for name, more := m.next(); more; name, more = m.next() {
		v := m.value()
		for k, n := range names {
			if string(name) == n {
				first(&vals[k], v)
				break
			}
		}
	}
	return m.i, !m.failed
}

// first sets *dst to v unless a value is already there: fastjson's Get finds
// the first member of a name.
func first(dst *span, v span) {
	if dst.absent() {
		*dst = v
	}
}

// A value span of the document read by the fast path; the zero span is an
// absent value (no value of a document starts at byte 0 but the root).
func (s span) absent() bool { return s.end == 0 }

// kind returns the first byte of the value at s in b ('"', '{', '[', 't',
// 'f', 'n', or a number's first byte), 0 when absent.
func (s span) kind(b []byte) byte {
	if s.absent() {
		return 0
	}
	return b[s.off]
}

// str returns the raw bytes of the string at s in b, between the quotes.
func (s span) str(b []byte) []byte { return b[s.off+1 : s.end-1] }

// appendUnescaped appends the string s (raw, between the quotes) to dst
// unescaped exactly as fastjson unescapes it (unescapeStringBestEffort):
// unknown escapes, short or invalid \u escapes and unpaired surrogates are
// kept as written; a surrogate followed by any \u escape is decoded as a
// pair (U+FFFD when it is not one).
func appendUnescaped(dst, s []byte) []byte {
	n := bytes.IndexByte(s, '\\')
	if n < 0 {
		return append(dst, s...)
	}
	dst = append(dst, s[:n]...)
	s = s[n+1:]
	for len(s) > 0 {
		ch := s[0]
		s = s[1:]
		switch ch {
		case '"', '\\', '/':
			dst = append(dst, ch)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			x, ok := hex4(s)
			if !ok {
				dst = append(dst, `\u`...)
				break
			}
			xs := s[:4]
			s = s[4:]
			if !utf16.IsSurrogate(rune(x)) {
				dst = utf8.AppendRune(dst, rune(x))
				break
			}
			x1, ok := rune(0), false
			if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				x1, ok = hex4(s[2:])
			}
			if !ok {
				dst = append(dst, `\u`...)
				dst = append(dst, xs...)
				break
			}
			dst = utf8.AppendRune(dst, utf16.DecodeRune(rune(x), x1))
			s = s[6:]
		default:
			dst = append(dst, '\\', ch)
		}
		n = bytes.IndexByte(s, '\\')
		if n < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:n]...)
		s = s[n+1:]
	}
	return dst
}

// hex4 decodes the 4 hex digits s starts with (what strconv.ParseUint(s[:4],
// 16, 16) accepts), or reports false.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var x rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		x = x<<4 | rune(c)
	}
	return x, true
}

// smallInt returns the value of the number at s in b when it is an integer
// of at most 18 digits without leading zeros, which fastjson's Int64 reads
// as the same value; false for any other number.
func smallInt(b []byte, s span) (int64, bool) {
	d := b[s.off:s.end]
	neg := len(d) > 0 && d[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
