package agentgazer

import (
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/valyala/fastjson"
)

// JavaScript views of fastjson values: what JSON.parse would have produced.
//
// Strings. JSON.parse turns every \uXXXX escape into that one code unit,
// lone surrogates included. fastjson does not: it decodes a string lazily,
// the first time it is asked for its type or bytes, and then turns a lone
// "\ud800" into the six characters `\ud800` (or, when another \u escape
// follows, swallows both into one U+FFFD), and it overwrites the raw text
// while doing so. To stay exact, this file reads a string that fastjson has
// not decoded yet from its raw JSON text (fastjson keeps it in the Value's
// unexported fields t and s, which are read, never written, through
// reflect) and decodes it itself. A string that fastjson has already decoded
// (because a caller asked for it first) is taken as fastjson decoded it: for
// lone surrogates this is the one place where the package can differ from
// AgentGazer. If a future fastjson changes those fields, rawAccess turns
// itself off (and TestRawStringAccess fails) and every string is taken as
// fastjson decodes it.

// rawStringType is fastjson's internal type of a not-yet-decoded string.
const rawStringType = 7

// rawFields locates the fields of fastjson.Value read by kindOf and
// jsString; ok is false when fastjson's layout is not the one expected.
type rawFields struct {
	ok     bool
	tField int
	sField int
}

// rawAccess finds rawFields on first use (not at start-up: only the
// agentgazer profile reads fastjson values).
var rawAccess = sync.OnceValue(func() (a rawFields) {
	rt := reflect.TypeFor[fastjson.Value]()
	t, okT := rt.FieldByName("t")
	s, okS := rt.FieldByName("s")
	if !okT || !okS || t.Type != reflect.TypeFor[fastjson.Type]() || s.Type.Kind() != reflect.String {
		return a
	}
	a.tField, a.sField = t.Index[0], s.Index[0]
	// Check the layout on a real value: a raw string keeps its escapes.
	v, err := fastjson.Parse(`"\ud800"`)
	if err != nil {
		return a
	}
	rv := reflect.ValueOf(v).Elem()
	a.ok = rv.Field(a.tField).Int() == rawStringType && rv.Field(a.sField).String() == `\ud800`
	return a
})

// kindOf returns v's JSON type without making fastjson decode a string.
func kindOf(v *fastjson.Value) fastjson.Type {
	raw := rawAccess()
	if !raw.ok {
		return v.Type()
	}
	t := fastjson.Type(reflect.ValueOf(v).Elem().Field(raw.tField).Int())
	if t == rawStringType {
		return fastjson.TypeString
	}
	return t
}

// jsString returns the code units of the JSON string v as JSON.parse
// would, and false if v is not a string.
func jsString(v *fastjson.Value) ([]uint16, bool) {
	raw := rawAccess()
	if !raw.ok {
		if v.Type() != fastjson.TypeString {
			return nil, false
		}
		return appendUnits(nil, string(v.GetStringBytes()), false), true
	}
	rv := reflect.ValueOf(v).Elem()
	switch rv.Field(raw.tField).Int() {
	case rawStringType:
		return appendJSONString(nil, rv.Field(raw.sField).String()), true
	case int64(fastjson.TypeString):
		return appendUnits(nil, rv.Field(raw.sField).String(), false), true
	}
	return nil, false
}

// isJSString reports whether v is the JSON string s (ASCII), as ===.
func isJSString(v *fastjson.Value, s string) bool {
	if v == nil {
		return false
	}
	u, ok := jsString(v)
	if !ok || len(u) != len(s) {
		return false
	}
	for i := range len(s) {
		if u[i] != uint16(s[i]) {
			return false
		}
	}
	return true
}

// appendJSONString appends the code units of the raw JSON string text raw
// (without its quotes) as JSON.parse decodes it from a body that Node
// decoded with Buffer.toString("utf-8"). Escapes that JSON.parse rejects
// (it would reject the whole body) are kept as text, as fastjson keeps them.
func appendJSONString(dst []uint16, raw string) []uint16 {
	for i := 0; i < len(raw); {
		j := i
		for j < len(raw) && raw[j] != '\\' {
			j++
		}
		dst = appendUnits(dst, raw[i:j], false)
		if j == len(raw) {
			break
		}
		i = j + 1 // after the backslash
		if i == len(raw) {
			dst = append(dst, '\\')
			break
		}
		switch c := raw[i]; c {
		case '"', '\\', '/':
			dst = append(dst, uint16(c))
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
			if x, err := strconv.ParseUint(hex4(raw[i+1:]), 16, 16); err == nil {
				dst = append(dst, uint16(x))
				i += 4
			} else {
				dst = append(dst, '\\', 'u')
			}
		default:
			dst = append(dst, '\\') // the character itself is decoded next
			continue
		}
		i++
	}
	return dst
}

// hex4 returns the first four bytes of s if they are hex digits, else "".
func hex4(s string) string {
	if len(s) < 4 {
		return ""
	}
	for i := range 4 {
		if !is(uint16(s[i]), clHex) {
			return ""
		}
	}
	return s[:4]
}

// field returns the value of the own property key of the object v, as a
// JavaScript property read sees it: the last of duplicate keys (fastjson's
// Get returns the first). It returns nil if v is not an object or has no
// such key.
func field(v *fastjson.Value, key string) *fastjson.Value {
	if v == nil || kindOf(v) != fastjson.TypeObject {
		return nil
	}
	o, _ := v.Object()
	var last *fastjson.Value
	o.Visit(func(k []byte, x *fastjson.Value) {
		if string(k) == key {
			last = x
		}
	})
	return last
}

// truthy reports JavaScript's ToBoolean(v) for a JSON value.
func truthy(v *fastjson.Value) bool {
	switch kindOf(v) {
	case fastjson.TypeNull, fastjson.TypeFalse:
		return false
	case fastjson.TypeString:
		u, _ := jsString(v)
		return len(u) > 0
	case fastjson.TypeNumber:
		f := jsNumber(v)
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// jsNumber returns the number v as JSON.parse reads it (correctly rounded
// to a float64, overflowing to ±Infinity).
func jsNumber(v *fastjson.Value) float64 {
	f, err := strconv.ParseFloat(string(v.MarshalTo(nil)), 64)
	if err != nil && !math.IsInf(f, 0) {
		// Not JSON (JSON.parse would have rejected the body): fastjson's reading.
		f, _ = v.Float64()
	}
	return f
}

// errToPrimitive is returned by appendToString for an object whose own
// "toString" property hides Object.prototype.toString: JavaScript's
// ToPrimitive then finds no callable method and throws a TypeError.
type errToPrimitive struct{}

func (errToPrimitive) Error() string {
	return "is an object with its own \"toString\" key, which JavaScript cannot convert to a string (TypeError)"
}

// appendToString appends JavaScript's String(v) (as in a template literal)
// for a JSON value: strings as they are, numbers by Number::toString,
// true/false/null by name, arrays joined with "," (null elements as ""),
// objects as "[object Object]".
func appendToString(dst []uint16, v *fastjson.Value) ([]uint16, error) {
	switch kindOf(v) {
	case fastjson.TypeString:
		u, _ := jsString(v)
		return append(dst, u...), nil
	case fastjson.TypeNumber:
		return append(dst, unitsOf(NumberToString(jsNumber(v)))...), nil
	case fastjson.TypeTrue:
		return append(dst, unitsOf("true")...), nil
	case fastjson.TypeFalse:
		return append(dst, unitsOf("false")...), nil
	case fastjson.TypeNull:
		return append(dst, unitsOf("null")...), nil
	case fastjson.TypeArray:
		a, _ := v.Array()
		for i, x := range a {
			if i > 0 {
				dst = append(dst, ',')
			}
			if kindOf(x) == fastjson.TypeNull {
				continue
			}
			var err error
			if dst, err = appendToString(dst, x); err != nil {
				return dst, err
			}
		}
		return dst, nil
	}
	if field(v, "toString") != nil {
		return dst, errToPrimitive{}
	}
	return append(dst, unitsOf("[object Object]")...), nil
}

// NumberToString is ECMAScript's Number::toString(x) in radix 10: the
// shortest digits that round-trip, in plain notation for exponents from -7
// to 20 and in exponential notation ("1e+21", "1.5e-7") outside.
func NumberToString(x float64) string {
	switch {
	case x == 0:
		return "0" // -0 too
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	e := strconv.FormatFloat(x, 'e', -1, 64) // d[.ddd]e±XX
	mant, exp := e, 0
	for i := range len(e) {
		if e[i] == 'e' {
			mant = e[:i]
			exp, _ = strconv.Atoi(e[i+1:])
			break
		}
	}
	digits := mant[:1]
	if len(mant) > 2 {
		digits += mant[2:]
	}
	k, n := len(digits), exp+1 // x = 0.digits × 10^n
	zeros := func(c int) string {
		b := make([]byte, c)
		for i := range b {
			b[i] = '0'
		}
		return string(b)
	}
	switch {
	case k <= n && n <= 21:
		return sign + digits + zeros(n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + zeros(-n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return sign + digits + "e" + es + ex
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ex
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
