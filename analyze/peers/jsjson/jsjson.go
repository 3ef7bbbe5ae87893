// Package jsjson computes what JavaScript's JSON.parse then
// JSON.stringify (or a key-sorting stringify) makes of a JSON text, for
// the peer profiles whose source keys tool calls that way: gemini-cli
// (JSON.stringify, keys in property order), Cline (its sortKeys, then
// JSON.stringify) and Roo-Code (safe-stable-stringify, every key sorted).
package jsjson

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/killswitch/killswitch/analyze/agentgazer"
)

// Order is the order an object's keys are written in.
type Order int

const (
	// PropertyOrder is JSON.stringify's: ECMA-262's own-property order,
	// array-index keys ("0", "17") first in ascending order, the others
	// in the order they first appear.
	PropertyOrder Order = iota
	// SortedIndexFirst is JSON.stringify of an object rebuilt with its
	// keys inserted in sorted order (Cline's sortKeys): array-index keys
	// still come first, ascending; the others sorted by UTF-16 code
	// units.
	SortedIndexFirst
	// Sorted is safe-stable-stringify's: every key sorted by UTF-16 code
	// units, array-index keys included ("10" before "9").
	Sorted
)

// Stringify returns what JSON.stringify(JSON.parse(text)) gives, with
// object keys written in order o, or ok = false when JSON.parse would
// throw. It follows ECMA-262: a repeated key keeps its first position and
// its last value, numbers print as Number.prototype.toString does (1.0 →
// 1, 1e21 → 1e+21, overflow → null), and strings are escaped only where
// JSON.stringify escapes (quotes, backslashes, control characters, lone
// surrogates); other characters are written as they are.
func Stringify(text string, o Order) (v Value, ok bool) {
	p := parser{s: text, order: o}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, false
	}
	p.ws()
	if p.i != len(p.s) {
		return Value{}, false
	}
	return v, true
}

// Value is a parsed value.
type Value struct {
	// Out is its JSON.stringify text.
	Out string
	// Falsy says it is falsy in JavaScript (null, false, 0, -0, "").
	Falsy bool
	// Kind is its type: '{', '[', '"', '0' (a number), 't' (a boolean)
	// or 'n' (null).
	Kind byte
	// Members are an object's members in the order written; Elems a
	// top-level array's elements; Str a string's code units (kept in the
	// top two levels: deeper strings are only written).
	Members []Member
	Elems   []Value
	Str     []uint16
}

// Member is one member of an object: its key, quoted as JSON.stringify
// quotes it, and its value.
type Member struct {
	Key   string
	Value Value
	key   []uint16
	index uint32 // when isIdx
	isIdx bool
}

// Units returns the member's key as UTF-16 code units.
func (m *Member) Units() []uint16 { return m.key }

type parser struct {
	s     string
	i     int
	order Order
}

var errSyntax = errors.New("syntax error")

// maxDepth bounds nesting: JavaScript engines throw (a RangeError) on
// deep enough input too, and a capture must not exhaust the stack.
const maxDepth = 10000

func (p *parser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.s) || depth > maxDepth {
		return Value{}, errSyntax
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		if out, ok := p.plainString(); ok {
			v := Value{Out: out, Falsy: len(out) == 2, Kind: '"'}
			if depth <= 1 {
				v.Str = utf16.Encode([]rune(out[1 : len(out)-1]))
			}
			return v, nil
		}
		u, err := p.str()
		if err != nil {
			return Value{}, err
		}
		return Value{Out: quote(u), Falsy: len(u) == 0, Kind: '"', Str: u}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return Value{Out: "true", Kind: 't'}, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return Value{Out: "false", Falsy: true, Kind: 't'}, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return Value{Out: "null", Falsy: true, Kind: 'n'}, nil
	}
	return Value{}, errSyntax
}

func (p *parser) object(depth int) (Value, error) {
	p.i++ // {
	var ms []Member
	var pos map[string]int // the members' positions by key, once there are many
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return Value{Out: "{}", Kind: '{'}, nil
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return Value{}, errSyntax
		}
		k, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, errSyntax
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		if j := find(ms, pos, k); j >= 0 {
			ms[j].Value = v
		} else {
			idx, isIdx := arrayIndex(k)
			ms = append(ms, Member{key: k, index: idx, isIdx: isIdx, Value: v})
			if pos != nil || len(ms) > linearKeys {
				pos = index(ms, pos)
			}
		}
		if more, err := p.next('}'); err != nil {
			return Value{}, err
		} else if !more {
			break
		}
	}
	if !slices.IsSortedFunc(ms, p.compare) {
		slices.SortStableFunc(ms, p.compare)
	}
	n := 2
	for i := range ms {
		ms[i].Key = quote(ms[i].key)
		n += len(ms[i].Key) + 2 + len(ms[i].Value.Out)
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte('{')
	for i := range ms {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(ms[i].Key)
		sb.WriteByte(':')
		sb.WriteString(ms[i].Value.Out)
	}
	sb.WriteByte('}')
	return Value{Out: sb.String(), Kind: '{', Members: ms}, nil
}

// linearKeys is how many members an object's repeated keys are looked for
// one by one; past it, by a map.
const linearKeys = 16

// find returns the position of the member with key k, or -1.
func find(ms []Member, pos map[string]int, k []uint16) int {
	if pos != nil {
		if j, ok := pos[string(utf16Bytes(k))]; ok {
			return j
		}
		return -1
	}
	for j := range ms {
		if slices.Equal(ms[j].key, k) {
			return j
		}
	}
	return -1
}

// index adds the last member of ms to pos (all of them when pos is nil).
func index(ms []Member, pos map[string]int) map[string]int {
	if pos == nil {
		pos = make(map[string]int, 2*len(ms))
		for j := range ms {
			pos[string(utf16Bytes(ms[j].key))] = j
		}
		return pos
	}
	pos[string(utf16Bytes(ms[len(ms)-1].key))] = len(ms) - 1
	return pos
}

// compare orders members: a before b is negative, after positive, and 0
// where the order keeps them as they came.
func (p *parser) compare(a, b Member) int {
	switch {
	case p.before(&a, &b):
		return -1
	case p.before(&b, &a):
		return 1
	}
	return 0
}

// before reports whether member a is written before b.
func (p *parser) before(a, b *Member) bool {
	if p.order != Sorted && a.isIdx != b.isIdx {
		return a.isIdx
	}
	switch {
	case p.order != Sorted && a.isIdx:
		return a.index < b.index
	case p.order == PropertyOrder:
		return false // insertion order
	}
	return slices.Compare(a.key, b.key) < 0
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
func (p *parser) next(close byte) (more bool, err error) {
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

func (p *parser) array(depth int) (Value, error) {
	p.i++ // [
	var sb strings.Builder
	var es []Value
	sb.WriteByte('[')
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return Value{Out: "[]", Kind: '['}, nil
	}
	for n := 0; ; n++ {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		if n > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(v.Out)
		if depth == 0 {
			es = append(es, v) // kept for the top level only
		}
		if more, err := p.next(']'); err != nil {
			return Value{}, err
		} else if !more {
			break
		}
	}
	sb.WriteByte(']')
	return Value{Out: sb.String(), Kind: '[', Elems: es}, nil
}

// plainString reads a string without escapes whose bytes are valid
// UTF-8: JSON.stringify writes it back as it is, quotes included, so its
// text is the output (no conversion to UTF-16 and back). ok is false for
// any other string, which str reads.
func (p *parser) plainString() (string, bool) {
	i := p.i + 1
	ascii := true
	for ; i < len(p.s); i++ {
		c := p.s[i]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 {
			return "", false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if i >= len(p.s) || (!ascii && !utf8.ValidString(p.s[p.i+1:i])) {
		return "", false
	}
	out := p.s[p.i : i+1]
	p.i = i + 1
	return out, true
}

// str reads a JSON string into UTF-16 code units, as JSON.parse does
// (bytes that are not UTF-8 read as U+FFFD, as a decoder would give them).
func (p *parser) str() ([]uint16, error) {
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

func (p *parser) number() (Value, error) {
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
		return Value{}, errSyntax
	}
	if p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return Value{}, errSyntax
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return Value{}, errSyntax
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return Value{}, errSyntax
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil && !math.IsInf(f, 0) {
		return Value{}, errSyntax
	}
	return Value{Out: jsNumber(f), Falsy: f == 0, Kind: '0'}, nil
}

// jsNumber formats f as JSON.stringify does: Number.prototype.toString
// for finite values, null for infinities.
func jsNumber(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	return agentgazer.NumberToString(f)
}

// Quote returns JSON.stringify of a string given as UTF-16 code units.
func Quote(u []uint16) string { return quote(u) }

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

// QuoteString is JSON.stringify of a Go string (read as UTF-8; bytes
// that are not UTF-8 as U+FFFD).
func QuoteString(s string) string {
	u := make([]uint16, 0, len(s))
	for _, r := range s {
		u = utf16.AppendRune(u, r)
	}
	return quote(u)
}

// IsSpace reports whether JavaScript's \s (and String.prototype.trim)
// takes the code unit c for white space: WhiteSpace and LineTerminator.
func IsSpace(c uint16) bool {
	switch {
	case c >= 0x09 && c <= 0x0d, c == 0x20, c == 0xa0, c == 0x1680,
		c >= 0x2000 && c <= 0x200a, c == 0x2028, c == 0x2029, c == 0x202f,
		c == 0x205f, c == 0x3000, c == 0xfeff:
		return true
	}
	return false
}

// Trim is String.prototype.trim.
func Trim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r < 0x10000 && IsSpace(uint16(r)) })
}
