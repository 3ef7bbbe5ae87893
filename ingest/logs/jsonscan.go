package logs

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/killswitch/killswitch/ingest"
)

// A strict JSON scanner and tree builder for the readers' hot paths. They
// accept only input that encoding/json accepts and build exactly the tree
// it builds (map[string]any with the last of duplicate keys, []any,
// string, json.Number holding the literal, bool, nil; a lone surrogate
// escape becomes U+FFFD). They never explain a failure: the callers then
// run the encoding/json path, whose messages are the ones users see (so
// an error costs a second parse, and valid input one fast one).
//
// The input must be valid UTF-8 (every caller checks it first: see
// invalidUTF8), so string bytes are copied as they are.

// fastJSON turns the fast paths on; tests turn it off to run the
// encoding/json reference paths and compare.
var fastJSON = true

// maxScanDepth bounds nesting; deeper input takes the encoding/json path
// (whose own limit is 10000).
const maxScanDepth = 1000

// isSpace reports JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// strictValue returns the end of the JSON value that starts at b[i] (no
// leading space), or -1 when there is no valid value there.
func strictValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '{':
		if depth >= maxScanDepth {
			return -1
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = strictString(b, i); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = strictValue(b, skipSpace(b, i+1), depth+1); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		if depth >= maxScanDepth {
			return -1
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = strictValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ']' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
	case c == '"':
		return strictString(b, i)
	case c == 't':
		return strictWord(b, i, "true")
	case c == 'f':
		return strictWord(b, i, "false")
	case c == 'n':
		return strictWord(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return strictNumber(b, i)
	}
	return -1
}

func strictWord(b []byte, i int, w string) int {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return -1
	}
	return i + len(w)
}

// strSpecial marks the bytes a string scan stops at: the quote, the
// backslash and control characters.
var strSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// plainEnd returns the index of the first byte at or after j that
// strSpecial marks, or len(b).
func plainEnd(b []byte, j int) int {
	for j < len(b) && !strSpecial[b[j]] {
		j++
	}
	return j
}

// strictString returns the end of the string that starts at b[i] ('"'), or
// -1: a control character or a bad escape.
func strictString(b []byte, i int) int {
	for i = plainEnd(b, i+1); i < len(b); i = plainEnd(b, i+1) {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		default: // a backslash
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if hex4(b, i+1) < 0 {
					return -1
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// hex4 reads the 4 hex digits at b[i:], or -1.
func hex4(b []byte, i int) rune { return ingest.Hex4(b[i:]) }

// strictNumber returns the end of the number at b[i], or -1 (RFC 8259,
// ingest.SkipJSONNumber). A number must end where a delimiter can follow;
// the caller checks what follows.
func strictNumber(b []byte, i int) int {
	if end, ok := ingest.SkipJSONNumber(b, i); ok {
		return end
	}
	return -1
}

// fastTree parses b, one JSON value with optional white space around it,
// into a tree as decodeTreeStd would; false when b is not exactly that (or
// nests deeper than maxScanDepth). b must be valid UTF-8.
func fastTree(b []byte) (any, bool) {
	p := treeParser{b: b}
	v, ok := p.value(skipSpace(b, 0), 0)
	if !ok || skipSpace(b, p.i) != len(b) {
		return nil, false
	}
	return v, true
}

// treeParser builds trees; i is where the last value ended. keys and
// vals are scratch stacks of the members and elements of the containers
// being read.
type treeParser struct {
	b    []byte
	i    int
	keys []string
	vals []any
}

func (p *treeParser) value(i, depth int) (any, bool) {
	b := p.b
	if i >= len(b) {
		return nil, false
	}
	switch c := b[i]; {
	case c == '{':
		if depth >= maxScanDepth {
			return nil, false
		}
		// Members gather on the scratch stacks (nested values above
		// them), so that the map is made at its size.
		mark := len(p.vals)
		defer func() { p.keys, p.vals = p.keys[:mark], p.vals[:mark] }()
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			p.i = i + 1
			return obj{}, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return nil, false
			}
			k, ok := p.str(i)
			if !ok {
				return nil, false
			}
			i = skipSpace(b, p.i)
			if i >= len(b) || b[i] != ':' {
				return nil, false
			}
			v, ok := p.value(skipSpace(b, i+1), depth+1)
			if !ok {
				return nil, false
			}
			p.keys, p.vals = append(p.keys, k), append(p.vals, v)
			i = skipSpace(b, p.i)
			if i >= len(b) {
				return nil, false
			}
			if b[i] == '}' {
				p.i = i + 1
				o := make(obj, len(p.vals)-mark)
				for j, k := range p.keys[mark:] {
					o[k] = p.vals[mark+j] // the last of a repeated key wins
				}
				return o, true
			}
			if b[i] != ',' {
				return nil, false
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		if depth >= maxScanDepth {
			return nil, false
		}
		mark := len(p.vals)
		defer func() { p.keys, p.vals = p.keys[:mark], p.vals[:mark] }()
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			p.i = i + 1
			return []any{}, true
		}
		for {
			v, ok := p.value(i, depth+1)
			if !ok {
				return nil, false
			}
			p.keys, p.vals = append(p.keys, ""), append(p.vals, v)
			i = skipSpace(b, p.i)
			if i >= len(b) {
				return nil, false
			}
			if b[i] == ']' {
				p.i = i + 1
				return slices.Clone(p.vals[mark:]), true
			}
			if b[i] != ',' {
				return nil, false
			}
			i = skipSpace(b, i+1)
		}
	case c == '"':
		s, ok := p.str(i)
		return s, ok
	case c == 't':
		p.i = strictWord(b, i, "true")
		return true, p.i >= 0
	case c == 'f':
		p.i = strictWord(b, i, "false")
		return false, p.i >= 0
	case c == 'n':
		p.i = strictWord(b, i, "null")
		return nil, p.i >= 0
	case c == '-' || c >= '0' && c <= '9':
		end := strictNumber(b, i)
		if end < 0 {
			return nil, false
		}
		p.i = end
		return json.Number(b[i:end]), true
	}
	return nil, false
}

// str decodes the string at b[i] ('"') and sets p.i after it.
func (p *treeParser) str(i int) (string, bool) {
	b := p.b
	start := i + 1
	j := plainEnd(b, start)
	switch {
	case j == len(b) || b[j] < 0x20:
		return "", false
	case b[j] == '"':
		p.i = j + 1
		return string(b[start:j]), true
	}
	return p.unquote(start, j)
}

// unquote decodes a string with escapes: b[start:j] has none, b[j] is the
// first backslash. Escapes decode as encoding/json decodes them.
func (p *treeParser) unquote(start, j int) (string, bool) {
	b := p.b
	end := strictString(b, start-1)
	if end < 0 {
		return "", false
	}
	out := make([]byte, 0, end-1-start) // escapes only shorten
	out = append(out, b[start:j]...)
	for j < len(b) {
		k := plainEnd(b, j)
		out = append(out, b[j:k]...)
		if j = k; j == len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			p.i = j + 1
			// out is not touched again: the string may own it (as
			// strings.Builder does).
			return unsafe.String(unsafe.SliceData(out), len(out)), true
		case c < 0x20:
			return "", false
		}
		j++
		if j >= len(b) {
			return "", false
		}
		switch b[j] {
		case '"', '\\', '/':
			out = append(out, b[j])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(b, j+1)
			if r < 0 {
				return "", false
			}
			j += 4
			if utf16.IsSurrogate(r) {
				// A pair decodes to one rune; anything else is U+FFFD
				// and the next escape stands on its own.
				r2 := rune(-1)
				if j+2 < len(b) && b[j+1] == '\\' && b[j+2] == 'u' {
					r2 = hex4(b, j+3)
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					j += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
		j++
	}
	return "", false
}

// Walking JSON the strict scanner accepted: no checks, only boundaries.

// validEnd returns the end of the value at b[i] of valid JSON.
func validEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the end of the valid string at b[i] ('"').
func stringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// eachMember walks the valid object at b[i] ('{'): fn gets each member's
// key (decoded; it may alias b, so copy what is kept) and the start of its
// value, and returns the value's end. eachMember returns the object's end.
func eachMember(b []byte, i int, fn func(key []byte, i int) int) int {
	for i = skipSpace(b, i+1); b[i] != '}'; {
		end := stringEnd(b, i)
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			key = []byte(validString(b[i:end]))
		}
		i = skipSpace(b, fn(key, skipSpace(b, skipSpace(b, end)+1)))
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return i + 1
}

// eachElement walks the valid array at b[i] ('['): fn gets each element's
// index and start and returns its end. eachElem returns the array's end.
func eachElem(b []byte, i int, fn func(n, i int) int) int {
	i = skipSpace(b, i+1)
	for n := 0; b[i] != ']'; n++ {
		if i = skipSpace(b, fn(n, i)); b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return i + 1
}

// validString decodes the valid JSON string s (with its quotes).
func validString(s []byte) string {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s[1 : len(s)-1])
	}
	p := treeParser{b: s}
	v, _ := p.str(0)
	return v
}
