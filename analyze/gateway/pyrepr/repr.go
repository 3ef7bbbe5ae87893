// Package pyrepr reproduces, byte for byte, what CPython 3 prints for
// repr() of the values json.loads returns — None, bools, ints, floats,
// strings, lists and dicts — and what str.lower() does to the result.
//
// A gateway that estimates tokens as len(str(messages)) // 4 and matches
// blocked phrases against str(messages).lower() (AgenticVerz M22) decides
// on this text, so it must be exact: the quote CPython chooses, the escapes
// of control characters, backslashes and unprintable code points, the
// non-ASCII printable characters it keeps, and the length in code points.
// Which code points are printable comes from tables generated from Python's
// own unicodedata (gen_tables.py; PythonVersion, UnicodeVersion).
//
// Strings are held as UTF-8 bytes in which a lone surrogate, which
// json.loads accepts ("\ud800") and repr escapes, takes the three bytes
// UTF-8 would give it were it allowed (as WTF-8 does), so that it survives
// and the rest costs a byte a byte, not a rune.
package pyrepr

import (
	"bytes"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Kind is the Python type of a Value.
type Kind uint8

const (
	None  Kind = iota // None
	Bool              // bool
	Int               // int (arbitrary size, held as its decimal text)
	Float             // float
	Str               // str
	List              // list
	Dict              // dict (insertion order)
)

var kindNames = [...]string{"NoneType", "bool", "int", "float", "str", "list", "dict"}

// String returns the Python type name.
func (k Kind) String() string { return kindNames[k] }

// Value is a Python value as json.loads builds it.
type Value struct {
	Kind  Kind
	B     bool    // Bool
	Num   string  // Int: canonical decimal ("-12", "0")
	F     float64 // Float
	S     []byte  // Str: its code points, UTF-8 (a lone surrogate in the same three-byte form: see nextRune)
	Items []Value // List items; Dict values
	Keys  []Value // Dict keys, in insertion order (Str for JSON objects)
}

// Get returns the value of the dict key k and whether it is there.
func (v *Value) Get(k string) (*Value, bool) {
	if v.Kind != Dict {
		return nil, false
	}
	for i := range v.Keys {
		if v.Keys[i].Kind == Str && string(v.Keys[i].S) == k {
			return &v.Items[i], true
		}
	}
	return nil, false
}

// NewStr returns a str Value of s, valid UTF-8.
func NewStr(s string) Value { return Value{Kind: Str, S: []byte(s)} }

// Text returns the str v as a Go string, a lone surrogate as U+FFFD.
func (v *Value) Text() string {
	if bytes.IndexByte(v.S, 0xed) < 0 { // no surrogate can be there
		return string(v.S)
	}
	b := make([]byte, 0, len(v.S))
	for i := 0; i < len(v.S); {
		r, n := nextRune(v.S[i:])
		b = utf8.AppendRune(b, r) // U+FFFD for a surrogate
		i += n
	}
	return string(b)
}

// nextRune decodes the code point s starts with, as utf8.DecodeRune
// does, and a lone surrogate in its three-byte form (0xed 0xa0–0xbf
// 0x80–0xbf), which utf8.DecodeRune refuses.
func nextRune(s []byte) (rune, int) {
	if len(s) >= 3 && s[0] == 0xed && s[1] >= 0xa0 && s[1] <= 0xbf && s[2]&0xc0 == 0x80 {
		return 0xd000 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f), 3
	}
	return utf8.DecodeRune(s)
}

// appendRune appends r's UTF-8, a surrogate in the three bytes nextRune
// reads back.
func appendRune(dst []byte, r rune) []byte {
	if r >= 0xd800 && r <= 0xdfff {
		return append(dst, 0xed, 0x80|byte(r>>6&0x3f), 0x80|byte(r&0x3f))
	}
	return utf8.AppendRune(dst, r)
}

// NoneValue is Python's None.
var NoneValue = Value{Kind: None}

// AppendRepr appends repr(v) to dst, as UTF-8.
func AppendRepr(dst []byte, v *Value) []byte {
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
		return AppendQuote(dst, v.S)
	case List:
		dst = append(dst, '[')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendRepr(dst, &v.Items[i])
		}
		return append(dst, ']')
	case Dict:
		dst = append(dst, '{')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendRepr(dst, &v.Keys[i])
			dst = append(dst, ": "...)
			dst = AppendRepr(dst, &v.Items[i])
		}
		return append(dst, '}')
	}
	return dst
}

// Len returns len() of a Python str given as UTF-8: its code points.
func Len(s []byte) int { return utf8.RuneCount(s) }

const hexDigits = "0123456789abcdef"

// AppendQuote appends repr(s) for the str s, as CPython's unicode_repr
// writes it: single quotes unless s holds a single quote and no double
// quote; \\, \t, \n, \r and the chosen quote escaped; other ASCII controls
// and DEL as \xhh; non-ASCII code points kept when printable, else \xhh,
// \uhhhh or \Uhhhhhhhh (lower-case hex).
func AppendQuote(dst []byte, s []byte) []byte {
	quote := byte('\'')
	if bytes.IndexByte(s, '\'') >= 0 && bytes.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// A run of printable ASCII other than the quote and the
			// backslash is written as it is.
			j := i
			for j < len(s) && s[j] >= ' ' && s[j] < 0x7f && s[j] != quote && s[j] != '\\' {
				j++
			}
			if j > i {
				dst = append(dst, s[i:j]...)
				i = j
				continue
			}
			switch {
			case c == quote || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			default: // other controls and DEL
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, n := nextRune(s[i:])
		switch {
		case IsPrintable(r):
			dst = append(dst, s[i:i+n]...)
		case r <= 0xff:
			dst = append(dst, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
		case r <= 0xffff:
			dst = append(dst, '\\', 'u')
			dst = appendHex(dst, uint32(r), 4)
		default:
			dst = append(dst, '\\', 'U')
			dst = appendHex(dst, uint32(r), 8)
		}
		i += n
	}
	return append(dst, quote)
}

func appendHex(dst []byte, v uint32, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, hexDigits[(v>>(4*uint(i)))&0xf])
	}
	return dst
}

// IsPrintable reports str.isprintable() for the one-character string c.
func IsPrintable(c rune) bool {
	i := sort.Search(len(printableRanges), func(i int) bool { return printableRanges[i][1] >= c })
	return i < len(printableRanges) && printableRanges[i][0] <= c
}

// AppendFloat appends repr(f) for a Python float: the shortest digits that
// round-trip, in fixed notation when the decimal exponent is in [-4, 16)
// (with ".0" when integral), else d.ddde±XX.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case f != f:
		return append(dst, "nan"...)
	case f > 1.7976931348623157e308:
		return append(dst, "inf"...)
	case f < -1.7976931348623157e308:
		return append(dst, "-inf"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // -d.ddde±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		dst = append(dst, '-')
	}
	mant, exps, _ := cut(e, 'e')
	exp, _ := strconv.Atoi(string(exps))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if exp < -4 || exp >= 16 {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	if exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	// exp+1 digits before the point.
	for i := 0; i <= exp; i++ {
		if i < len(digits) {
			dst = append(dst, digits[i])
		} else {
			dst = append(dst, '0')
		}
	}
	dst = append(dst, '.')
	if len(digits) > exp+1 {
		return append(dst, digits[exp+1:]...)
	}
	return append(dst, '0')
}

func cut(b []byte, sep byte) (before, after []byte, found bool) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}
