package openhands

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/killswitch/killswitch/ingest"
)

// Tool-call arguments are read as the profile has always read them —
// json.NewDecoder(strings.NewReader(args)).Decode(&m) into a
// map[string]any, accepted when that succeeds, d.More() is false and m is
// not nil — and compared as json.Marshal writes them. encoding/json costs
// a quarter of a replay on tool-heavy captures, so decodeArgs and
// appendCanon do the same by hand: the same grammar (its nesting limit
// included), the same values (float64 numbers, out of range refused;
// strings coerced to UTF-8, an unpaired surrogate escape as U+FFFD; the
// last of repeated keys), the same leniency after the value (whitespace,
// then nothing, ']' or '}'), and the same output (sorted keys, HTML and
// U+2028/2029 escaped). FuzzArgs holds them to encoding/json.

// maxArgsDepth is encoding/json's nesting limit (maxNestingDepth).
const maxArgsDepth = 10000

// decodeArgs decodes a call's arguments: the object, or ok false when the
// profile's decoder would refuse them (the response's validation error).
func decodeArgs(s string) (map[string]any, bool) {
	d := argsDecoder{s: s}
	d.ws()
	if d.i >= len(s) || s[d.i] != '{' {
		return nil, false // not an object: an error, or null (a nil map)
	}
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	// Decoder.More: true unless what follows is the end, ']' or '}'.
	if d.ws(); d.i < len(s) && s[d.i] != ']' && s[d.i] != '}' {
		return nil, false
	}
	return v.(map[string]any), true
}

type argsDecoder struct {
	s string
	i int
}

func (d *argsDecoder) ws() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

// value decodes the value at d.i (no whitespace before it) at nesting
// depth depth.
func (d *argsDecoder) value(depth int) (any, bool) {
	s := d.s
	if d.i >= len(s) {
		return nil, false
	}
	switch c := s[d.i]; {
	case c == '{':
		if depth == maxArgsDepth {
			return nil, false
		}
		d.i++
		m := map[string]any{}
		d.ws()
		if d.i < len(s) && s[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
			if d.i >= len(s) || s[d.i] != '"' {
				return nil, false
			}
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			if d.ws(); d.i >= len(s) || s[d.i] != ':' {
				return nil, false
			}
			d.i++
			d.ws()
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			d.ws()
			if d.i < len(s) && s[d.i] == ',' {
				d.i++
				d.ws()
				continue
			}
			if d.i < len(s) && s[d.i] == '}' {
				d.i++
				return m, true
			}
			return nil, false
		}
	case c == '[':
		if depth == maxArgsDepth {
			return nil, false
		}
		d.i++
		a := []any{}
		d.ws()
		if d.i < len(s) && s[d.i] == ']' {
			d.i++
			return a, true
		}
		for {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			d.ws()
			if d.i < len(s) && s[d.i] == ',' {
				d.i++
				d.ws()
				continue
			}
			if d.i < len(s) && s[d.i] == ']' {
				d.i++
				return a, true
			}
			return nil, false
		}
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, false
}

func (d *argsDecoder) literal(lit string) bool {
	if !strings.HasPrefix(d.s[d.i:], lit) {
		return false
	}
	d.i += len(lit)
	return true
}

// number reads a number of JSON's grammar as a float64 (out of range: not
// ok, as encoding/json refuses to store it).
func (d *argsDecoder) number() (any, bool) {
	s, start := d.s, d.i
	digits := func() int {
		n := 0
		for d.i < len(s) && s[d.i] >= '0' && s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(s) && s[d.i] == '0':
		d.i++
	case digits() == 0:
		return nil, false
	}
	if d.i < len(s) && s[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(s) && (s[d.i] == 'e' || s[d.i] == 'E') {
		d.i++
		if d.i < len(s) && (s[d.i] == '+' || s[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(s[start:d.i], 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

// str reads the string at d.i as encoding/json unquotes it.
func (d *argsDecoder) str() (string, bool) {
	s := d.s
	start := d.i + 1
	// The plain case: no escape, no control byte, valid UTF-8.
	i := start
	for i < len(s) {
		c := s[i]
		if c == '"' {
			d.i = i + 1
			return s[start:i], true
		}
		if c == '\\' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	b := make([]byte, 0, len(s)-start)
	b = append(b, s[start:i]...)
	for {
		if i >= len(s) {
			return "", false
		}
		switch c := s[i]; {
		case c == '"':
			d.i = i + 1
			return string(b), true
		case c < ' ':
			return "", false
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := ingest.Hex4(s[i+2:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair when the next escape completes one; else
					// U+FFFD, and the next escape is read on its own.
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, ingest.Hex4(s[i+2:])); dec != unicode.ReplacementChar {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r) // invalid UTF-8: U+FFFD a byte
			i += size
		}
	}
}

// appendCanon appends v as json.Marshal writes it, for the values
// decodeArgs makes and the profile builds from them; anything else is
// left to json.Marshal.
func appendCanon(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case string:
		return ingest.AppendJSONStringMarshal(dst, v)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			break // json.Marshal's error
		}
		f := byte('f')
		if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
			f = 'e'
		}
		dst = strconv.AppendFloat(dst, v, f, -1, 64)
		if n := len(dst); f == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1] // e-09 is written e-9
			dst = dst[:n-1]
		}
		return dst
	case []any:
		if v == nil {
			return append(dst, "null"...)
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanon(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		if v == nil {
			return append(dst, "null"...)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = ingest.AppendJSONStringMarshal(dst, k)
			dst = append(dst, ':')
			dst = appendCanon(dst, v[k])
		}
		return append(dst, '}')
	}
	b, _ := json.Marshal(v)
	return append(dst, b...)
}
