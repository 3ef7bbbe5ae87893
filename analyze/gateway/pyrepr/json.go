package pyrepr

import (
	"fmt"
	"github.com/killswitch/killswitch/internal/jsonsimd"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SyntaxError is JSON that json.loads refuses, with the byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset+1) }

// maxDepth bounds nesting; CPython's own limit (its recursion limit) is
// near 1000 too, and a deeper body is refused rather than overflowing.
const maxDepth = 1000

// ParseJSON decodes data as CPython's json.loads does (strict mode, the
// default): whitespace is space, tab, CR and LF; NaN, Infinity and
// -Infinity are accepted; control characters inside strings are refused;
// \uXXXX escapes of a surrogate pair combine into one code point and a
// lone surrogate stays a code point of its own; an integer stays exact;
// a number with a fraction or exponent is a float (1e400 is inf); a key
// given twice keeps its first position and its last value. data must be
// UTF-8 (json.loads of bytes decodes them first).
func ParseJSON(data []byte) (Value, error) {
	p := parser{b: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.ws()
	if p.i != len(p.b) {
		return Value{}, p.errf("extra data")
	}
	return v, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errf("nesting deeper than %d", maxDepth)
	}
	if p.i >= len(p.b) {
		return Value{}, p.errf("expecting value")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return Value{Kind: Str, S: s}, err
	case p.lit("null"):
		return Value{Kind: None}, nil
	case p.lit("true"):
		return Value{Kind: Bool, B: true}, nil
	case p.lit("false"):
		return Value{Kind: Bool}, nil
	case p.lit("NaN"):
		return Value{Kind: Float, F: math.NaN()}, nil
	case p.lit("Infinity"):
		return Value{Kind: Float, F: math.Inf(1)}, nil
	case p.lit("-Infinity"):
		return Value{Kind: Float, F: math.Inf(-1)}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return Value{}, p.errf("expecting value")
}

func (p *parser) object(depth int) (Value, error) {
	p.i++ // {
	v := Value{Kind: Dict}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return Value{}, p.errf("expecting property name enclosed in double quotes")
		}
		k, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return Value{}, p.errf("expecting ':' delimiter")
		}
		p.i++
		p.ws()
		val, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		dup := -1
		for j := range v.Keys {
			if string(v.Keys[j].S) == string(k) {
				dup = j
				break
			}
		}
		if dup >= 0 {
			v.Items[dup] = val
		} else {
			v.Keys = append(v.Keys, Value{Kind: Str, S: k})
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
		return Value{}, p.errf("expecting ',' delimiter")
	}
}

func (p *parser) array(depth int) (Value, error) {
	p.i++ // [
	v := Value{Kind: List}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		item, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
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
		return Value{}, p.errf("expecting ',' delimiter")
	}
}

func (p *parser) str() ([]byte, error) {
	p.i++ // "
	out := make([]byte, 0, p.bytesAhead())
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
			out = appendRune(out, r)
		case c < utf8.RuneSelf:
			// A run of ASCII that needs no decoding.
			j := p.i + 1
			for j < len(p.b) && p.b[j] >= 0x20 && p.b[j] < utf8.RuneSelf && p.b[j] != '"' && p.b[j] != '\\' {
				j++
			}
			out = append(out, p.b[p.i:j]...)
			p.i = j
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return nil, p.errf("invalid UTF-8")
			}
			out = append(out, p.b[p.i:p.i+n]...)
			p.i += n
		}
	}
}

// bytesAhead is the number of bytes from p.i to the closing quote of the
// string p.i is in (or to the end of the input): at least the string's
// length once decoded, as an escape is two or more bytes for at most
// four (a lone surrogate's six for three, a pair's twelve for four), so
// that str makes its slice once instead of growing it.
func (p *parser) bytesAhead() int {
	if k := jsonsimd.StringEnd(p.b[p.i:]); k >= 0 {
		return k
	}
	return len(p.b) - p.i
}

func (p *parser) escape() (rune, error) {
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

func (p *parser) hex4(at int) (rune, bool) {
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

// maxIntDigits is CPython's default limit on converting decimal text to an
// int (sys.get_int_max_str_digits(), since 3.11): json.loads refuses more.
const maxIntDigits = 4300

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?; without a
// fraction or exponent it is an int.
func (p *parser) number() (Value, error) {
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
		return Value{}, p.errf("expecting value")
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
			return Value{}, p.errf("bad number %q", text)
		}
		return Value{Kind: Float, F: f}, nil
	}
	if n := len(text) - len(strings.TrimPrefix(text, "-")); len(text)-n > maxIntDigits {
		p.i = start
		return Value{}, p.errf("integer of more than %d digits", maxIntDigits)
	}
	if text == "-0" {
		text = "0"
	}
	return Value{Kind: Int, Num: text}, nil
}
