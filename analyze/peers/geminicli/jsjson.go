package geminicli

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/killswitch/killswitch/analyze/agentgazer"
)

// stringifyParsed returns JSON.stringify(JSON.parse(text)) as JavaScript
// computes it, or ok = false when JSON.parse would throw. It follows
// ECMA-262: objects keep their first key's position (a repeated key keeps
// the last value), array-index keys ("0", "17") come first in ascending
// order, numbers print as Number.prototype.toString does (1.0 → 1,
// 1e21 → 1e+21, overflow → null), and strings are escaped only where
// JSON.stringify escapes (quotes, backslashes, control characters, lone
// surrogates); other characters are written as they are.
func stringifyParsed(text string) (v jsVal, ok bool) {
	p := jsParser{s: text}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return jsVal{}, false
	}
	p.ws()
	if p.i != len(p.s) {
		return jsVal{}, false
	}
	return v, true
}

// jsVal is a parsed value: its JSON.stringify text, and whether it is
// falsy in JavaScript (null, false, 0, -0, NaN, "").
type jsVal struct {
	out   string
	falsy bool
}

type jsParser struct {
	s string
	i int
}

var errSyntax = errors.New("syntax error")

// maxDepth bounds nesting: JavaScript engines throw (a RangeError) on
// deep enough input too, and a capture must not exhaust the stack.
const maxDepth = 10000

func (p *jsParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsParser) value(depth int) (jsVal, error) {
	if p.i >= len(p.s) || depth > maxDepth {
		return jsVal{}, errSyntax
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		u, err := p.str()
		if err != nil {
			return jsVal{}, err
		}
		return jsVal{out: quote(u), falsy: len(u) == 0}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return jsVal{out: "true"}, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return jsVal{out: "false", falsy: true}, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return jsVal{out: "null", falsy: true}, nil
	}
	return jsVal{}, errSyntax
}

type member struct {
	key   []uint16
	index uint32 // when isIndex
	isIdx bool
	val   string
}

func (p *jsParser) object(depth int) (jsVal, error) {
	p.i++ // {
	var ms []member
	pos := map[string]int{}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return jsVal{out: "{}"}, nil
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return jsVal{}, errSyntax
		}
		k, err := p.str()
		if err != nil {
			return jsVal{}, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return jsVal{}, errSyntax
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return jsVal{}, err
		}
		ks := string(utf16Bytes(k))
		if j, dup := pos[ks]; dup {
			ms[j].val = v.out
		} else {
			idx, isIdx := arrayIndex(k)
			pos[ks] = len(ms)
			ms = append(ms, member{key: k, index: idx, isIdx: isIdx, val: v.out})
		}
		if more, err := p.next('}'); err != nil {
			return jsVal{}, err
		} else if !more {
			break
		}
	}
	// Array-index keys first, ascending; the others keep their order.
	sort.SliceStable(ms, func(a, b int) bool {
		if ms[a].isIdx != ms[b].isIdx {
			return ms[a].isIdx
		}
		return ms[a].isIdx && ms[a].index < ms[b].index
	})
	var sb strings.Builder
	sb.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(quote(m.key))
		sb.WriteByte(':')
		sb.WriteString(m.val)
	}
	sb.WriteByte('}')
	return jsVal{out: sb.String()}, nil
}

// utf16Bytes encodes code units two bytes each: a map key that keeps lone
// surrogates apart.
func utf16Bytes(u []uint16) []byte {
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c>>8), byte(c)
	}
	return b
}

// arrayIndex reports whether k is an array index: the canonical decimal
// form of an integer below 2³² − 1.
func arrayIndex(k []uint16) (uint32, bool) {
	if len(k) == 0 || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	var n uint64
	for _, c := range k {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n >= 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}

// next reads what follows a member or an element: a comma (more is
// true) or the closing bracket.
func (p *jsParser) next(close byte) (more bool, err error) {
	p.ws()
	switch {
	case p.i >= len(p.s):
		return false, errSyntax
	case p.s[p.i] == ',':
		p.i++
		return true, nil
	case p.s[p.i] != close:
		return false, errSyntax
	}
	p.i++
	return false, nil
}

func (p *jsParser) array(depth int) (jsVal, error) {
	p.i++ // [
	var sb strings.Builder
	sb.WriteByte('[')
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return jsVal{out: "[]"}, nil
	}
	for n := 0; ; n++ {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return jsVal{}, err
		}
		if n > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(v.out)
		if more, err := p.next(']'); err != nil {
			return jsVal{}, err
		} else if !more {
			break
		}
	}
	sb.WriteByte(']')
	return jsVal{out: sb.String()}, nil
}

// str reads a JSON string into UTF-16 code units, as JSON.parse does
// (bytes that are not UTF-8 read as U+FFFD, as a decoder would give them).
func (p *jsParser) str() ([]uint16, error) {
	p.i++ // "
	var u []uint16
	for {
		if p.i >= len(p.s) {
			return nil, errSyntax
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return u, nil
		case c < 0x20:
			return nil, errSyntax
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, errSyntax
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				u = append(u, uint16(e))
			case 'b':
				u = append(u, '\b')
			case 'f':
				u = append(u, '\f')
			case 'n':
				u = append(u, '\n')
			case 'r':
				u = append(u, '\r')
			case 't':
				u = append(u, '\t')
			case 'u':
				if p.i+4 > len(p.s) {
					return nil, errSyntax
				}
				n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 16)
				if err != nil || strings.ContainsAny(p.s[p.i:p.i+4], "+-_xX") {
					return nil, errSyntax
				}
				u = append(u, uint16(n))
				p.i += 4
			default:
				return nil, errSyntax
			}
		case c < utf8.RuneSelf:
			u = append(u, uint16(c))
			p.i++
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += size
			u = utf16.AppendRune(u, r)
		}
	}
}

func (p *jsParser) number() (jsVal, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i >= len(p.s) {
		return jsVal{}, errSyntax
	}
	if p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return jsVal{}, errSyntax
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return jsVal{}, errSyntax
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return jsVal{}, errSyntax
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil && !math.IsInf(f, 0) {
		return jsVal{}, errSyntax
	}
	return jsVal{out: jsNumber(f), falsy: f == 0}, nil
}

// jsNumber formats f as JSON.stringify does: Number.prototype.toString
// for finite values, null for infinities.
func jsNumber(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	return agentgazer.NumberToString(f)
}

// quote returns JSON.stringify of a string given as UTF-16 code units.
func quote(u []uint16) string {
	var sb strings.Builder
	sb.Grow(len(u) + 2)
	sb.WriteByte('"')
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '"':
			sb.WriteString(`\"`)
		case c == '\\':
			sb.WriteString(`\\`)
		case c == '\b':
			sb.WriteString(`\b`)
		case c == '\f':
			sb.WriteString(`\f`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c < 0x20:
			sb.WriteString(`\u00`)
			sb.WriteByte(hexDigits[c>>4])
			sb.WriteByte(hexDigits[c&15])
		case c >= 0xd800 && c < 0xdc00 && i+1 < len(u) && u[i+1] >= 0xdc00 && u[i+1] < 0xe000:
			sb.WriteRune(utf16.DecodeRune(rune(c), rune(u[i+1])))
			i++
		case c >= 0xd800 && c < 0xe000:
			sb.WriteString(`\u`)
			for sh := 12; sh >= 0; sh -= 4 {
				sb.WriteByte(hexDigits[(c>>sh)&15])
			}
		case c < utf8.RuneSelf:
			sb.WriteByte(byte(c))
		default:
			sb.WriteRune(rune(c))
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

const hexDigits = "0123456789abcdef"

// jsQuoteString is JSON.stringify of a Go string (read as UTF-8; bytes
// that are not UTF-8 as U+FFFD).
func jsQuoteString(s string) string {
	u := make([]uint16, 0, len(s))
	for _, r := range s {
		u = utf16.AppendRune(u, r)
	}
	return quote(u)
}
