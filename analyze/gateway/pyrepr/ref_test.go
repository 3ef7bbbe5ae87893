package pyrepr

// The parser and repr of strings as []rune, as they were before strings
// were held as WTF-8 bytes (#30's gateway round): the reference
// FuzzBytesAgainstRunes holds the new ones to. Kept verbatim but for the
// names and the duplicate-key check, which compares the runes (it
// compared string([]rune), making every lone surrogate U+FFFD).

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

type refValue struct {
	Kind  Kind
	B     bool
	Num   string
	F     float64
	S     []rune
	Items []refValue
	Keys  []refValue
}

func refParseJSON(data []byte) (refValue, error) {
	p := refParser{b: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return refValue{}, err
	}
	p.ws()
	if p.i != len(p.b) {
		return refValue{}, p.errf("extra data")
	}
	return v, nil
}

type refParser struct {
	b []byte
	i int
}

func (p *refParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}
func (p *refParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}
func (p *refParser) value(depth int) (refValue, error) {
	if depth > maxDepth {
		return refValue{}, p.errf("nesting deeper than %d", maxDepth)
	}
	if p.i >= len(p.b) {
		return refValue{}, p.errf("expecting value")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return refValue{Kind: Str, S: s}, err
	case p.lit("null"):
		return refValue{Kind: None}, nil
	case p.lit("true"):
		return refValue{Kind: Bool, B: true}, nil
	case p.lit("false"):
		return refValue{Kind: Bool}, nil
	case p.lit("NaN"):
		return refValue{Kind: Float, F: math.NaN()}, nil
	case p.lit("Infinity"):
		return refValue{Kind: Float, F: math.Inf(1)}, nil
	case p.lit("-Infinity"):
		return refValue{Kind: Float, F: math.Inf(-1)}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return refValue{}, p.errf("expecting value")
}
func (p *refParser) object(depth int) (refValue, error) {
	p.i++ // {
	v := refValue{Kind: Dict}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return refValue{}, p.errf("expecting property name enclosed in double quotes")
		}
		k, err := p.str()
		if err != nil {
			return refValue{}, err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return refValue{}, p.errf("expecting ':' delimiter")
		}
		p.i++
		p.ws()
		val, err := p.value(depth + 1)
		if err != nil {
			return refValue{}, err
		}
		dup := -1
		for j := range v.Keys {
			if slices.Equal(v.Keys[j].S, k) { // string([]rune) made every lone surrogate U+FFFD: two of them were one key
				dup = j
				break
			}
		}
		if dup >= 0 {
			v.Items[dup] = val
		} else {
			v.Keys = append(v.Keys, refValue{Kind: Str, S: k})
			v.Items = append(v.Items, val)
		}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			p.ws()
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return v, nil
		}
		return refValue{}, p.errf("expecting ',' delimiter")
	}
}
func (p *refParser) array(depth int) (refValue, error) {
	p.i++ // [
	v := refValue{Kind: List}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		item, err := p.value(depth + 1)
		if err != nil {
			return refValue{}, err
		}
		v.Items = append(v.Items, item)
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			p.ws()
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return v, nil
		}
		return refValue{}, p.errf("expecting ',' delimiter")
	}
}
func (p *refParser) str() ([]rune, error) {
	p.i++ // "
	out := make([]rune, 0, p.runesAhead())
	for {
		if p.i >= len(p.b) {
			return nil, p.errf("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return out, nil
		case c < 0x20:
			return nil, p.errf("invalid control character")
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		case c < utf8.RuneSelf:
			out = append(out, rune(c))
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return nil, p.errf("invalid UTF-8")
			}
			out = append(out, r)
			p.i += n
		}
	}
}
func (p *refParser) runesAhead() int {
	j := p.i
	for {
		k := bytes.IndexByte(p.b[j:], '"')
		if k < 0 {
			j = len(p.b)
			break
		}
		j += k
		bs := 0
		for q := j - 1; q >= p.i && p.b[q] == '\\'; q-- {
			bs++
		}
		if bs%2 == 0 {
			break
		}
		j++
	}
	return utf8.RuneCount(p.b[p.i:j])
}
func (p *refParser) escape() (rune, error) {
	if p.i+1 >= len(p.b) {
		return 0, p.errf("unterminated string")
	}
	c := p.b[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		u, ok := p.hex4(p.i)
		if !ok {
			return 0, p.errf("invalid \\uXXXX escape")
		}
		p.i += 4
		if u >= 0xd800 && u <= 0xdbff && p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
			if u2, ok := p.hex4(p.i + 2); ok && u2 >= 0xdc00 && u2 <= 0xdfff {
				p.i += 6
				return 0x10000 + (u-0xd800)<<10 + (u2 - 0xdc00), nil
			}
		}
		return u, nil
	}
	p.i -= 2
	return 0, p.errf("invalid \\escape")
}
func (p *refParser) hex4(at int) (rune, bool) {
	if at+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}
func (p *refParser) number() (refValue, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		p.i = start
		return refValue{}, p.errf("expecting value")
	}
	isFloat := false
	if p.i+1 < len(p.b) && p.b[p.i] == '.' && p.b[p.i+1] >= '0' && p.b[p.i+1] <= '9' {
		p.i++
		digits()
		isFloat = true
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		save := p.i
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.i = save // "1e" is the int 1 followed by extra data, as in CPython
		} else {
			isFloat = true
		}
	}
	text := string(p.b[start:p.i])
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !math.IsInf(f, 0) {
			return refValue{}, p.errf("bad number %q", text)
		}
		return refValue{Kind: Float, F: f}, nil
	}
	if n := len(text) - len(strings.TrimPrefix(text, "-")); len(text)-n > maxIntDigits {
		p.i = start
		return refValue{}, p.errf("integer of more than %d digits", maxIntDigits)
	}
	if text == "-0" {
		text = "0"
	}
	return refValue{Kind: Int, Num: text}, nil
}
func refAppendRepr(dst []byte, v *refValue) []byte {
	switch v.Kind {
	case None:
		return append(dst, "None"...)
	case Bool:
		if v.B {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case Int:
		return append(dst, v.Num...)
	case Float:
		return AppendFloat(dst, v.F)
	case Str:
		return refAppendQuote(dst, v.S)
	case List:
		dst = append(dst, '[')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = refAppendRepr(dst, &v.Items[i])
		}
		return append(dst, ']')
	case Dict:
		dst = append(dst, '{')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = refAppendRepr(dst, &v.Keys[i])
			dst = append(dst, ": "...)
			dst = refAppendRepr(dst, &v.Items[i])
		}
		return append(dst, '}')
	}
	return dst
}
func refAppendQuote(dst []byte, s []rune) []byte {
	quote := byte('\'')
	hasSingle, hasDouble := false, false
	for _, c := range s {
		switch c {
		case '\'':
			hasSingle = true
		case '"':
			hasDouble = true
		}
	}
	if hasSingle && !hasDouble {
		quote = '"'
	}
	dst = append(dst, quote)
	for _, c := range s {
		switch {
		case c == rune(quote) || c == '\\':
			dst = append(dst, '\\', byte(c))
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < ' ' || c == 0x7f:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		case c < 0x7f:
			dst = append(dst, byte(c))
		case IsPrintable(c):
			dst = utf8.AppendRune(dst, c)
		case c <= 0xff:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		case c <= 0xffff:
			dst = append(dst, '\\', 'u')
			dst = appendHex(dst, uint32(c), 4)
		default:
			dst = append(dst, '\\', 'U')
			dst = appendHex(dst, uint32(c), 8)
		}
	}
	return append(dst, quote)
}

func (p *refParser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}
