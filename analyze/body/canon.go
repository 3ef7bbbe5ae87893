package body

import (
	"bytes"
	"slices"

	"github.com/killswitch/killswitch/analyze/simhash"
	"github.com/killswitch/killswitch/ingest"
	"github.com/valyala/fastjson"
)

// span is a half-open byte range [off, end) of a buffer.
type span struct{ off, end int }

// canonicalizer writes JSON values in the canonical form of tool-call
// arguments: object keys sorted recursively, strings normalized with
// simhash.Normalize, numbers replaced by <NUM>, strings and keys escaped so
// that the result never holds a raw newline. Its buffers are scratch space.
type canonicalizer struct {
	tmp   []byte // an object's members while they are sorted
	norm  []byte // one normalized string
	unq   []byte // one unescaped string or name (text only)
	spans []span // a stack of object members, one frame per open object
}

// value appends the canonical form of v to dst.
func (c *canonicalizer) value(dst []byte, v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeObject:
		return c.object(dst, v)
	case fastjson.TypeArray:
		a, _ := v.Array()
		dst = append(dst, '[')
		for i, e := range a {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = c.value(dst, e)
		}
		return append(dst, ']')
	case fastjson.TypeString:
		s, _ := v.StringBytes()
		return c.str(dst, s)
	case fastjson.TypeNumber:
		return append(dst, "<NUM>"...)
	case fastjson.TypeTrue:
		return append(dst, "true"...)
	case fastjson.TypeFalse:
		return append(dst, "false"...)
	}
	return append(dst, "null"...)
}

// str appends the quoted, escaped, normalized form of the string s.
func (c *canonicalizer) str(dst, s []byte) []byte {
	c.norm = simhash.Normalize(c.norm[:0], s)
	return ingest.AppendJSONString(dst, c.norm)
}

// object appends v's members as "key":value, sorted bytewise. Sorting the
// whole member text orders by key first, and equal keys (a duplicate key)
// by value, so the result does not depend on the document's member order.
func (c *canonicalizer) object(dst []byte, v *fastjson.Value) []byte {
	o, _ := v.Object()
	dst = append(dst, '{')
	start := len(dst)
	base := len(c.spans)
	o.Visit(func(k []byte, mv *fastjson.Value) {
		m := len(dst)
		dst = ingest.AppendJSONString(dst, k)
		dst = append(dst, ':')
		dst = c.value(dst, mv)
		c.spans = append(c.spans, span{m - start, len(dst) - start})
	})
	return c.sortMembers(dst, start, base)
}

// sortMembers ends an object whose members, dst[start:], were written back
// to back as c.spans[base:] (offsets from start): it sorts them, separates
// them with commas and closes the object.
func (c *canonicalizer) sortMembers(dst []byte, start, base int) []byte {
	members := c.spans[base:]
	if len(members) > 1 {
		// The members were written back to back; copy them out, sort, and
		// write them again with separators. Nested objects are finished, so
		// the scratch buffer is free.
		c.tmp = append(c.tmp[:0], dst[start:]...)
		tmp := c.tmp
		slices.SortFunc(members, func(a, b span) int {
			return bytes.Compare(tmp[a.off:a.end], tmp[b.off:b.end])
		})
		dst = dst[:start]
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, tmp[m.off:m.end]...)
		}
	}
	c.spans = c.spans[:base]
	return append(dst, '}')
}

// text appends the canonical form of the JSON text b, reading it in place
// (scan.go) instead of building fastjson's tree of it: the same bytes value
// appends for that tree. It reports false, and dst is to be taken as it was,
// when b is not one strict JSON value (fastjson then decides what it is).
func (c *canonicalizer) text(dst, b []byte) ([]byte, bool) {
	base := len(c.spans)
	out, end, ok := c.raw(dst, b, skipWS(b, 0), 0)
	if !ok || skipWS(b, end) != len(b) {
		c.spans = c.spans[:base]
		return dst, false
	}
	return out, true
}

// raw appends the canonical form of the JSON value at b[i] (depth levels
// down) and returns the index just past it.
func (c *canonicalizer) raw(dst, b []byte, i, depth int) (out []byte, end int, ok bool) {
	if i >= len(b) || depth == maxSkipDepth {
		return dst, 0, false
	}
	switch b[i] {
	case '{':
		dst = append(dst, '{')
		start, base := len(dst), len(c.spans)
		m := objectAt(b, i)
		m.escapes = true // a name is unescaped, as fastjson's Visit gives it
		for name, more := m.next(); more; name, more = m.next() {
			k := len(dst)
			c.unq = appendUnescaped(c.unq[:0], name)
			dst = ingest.AppendJSONString(dst, c.unq)
			dst = append(dst, ':')
			if dst, m.i, ok = c.raw(dst, b, m.i, depth+1); !ok {
				return dst, 0, false
			}
			c.spans = append(c.spans, span{k - start, len(dst) - start})
		}
		return c.sortMembers(dst, start, base), m.i, !m.failed
	case '[':
		dst = append(dst, '[')
		e := arrayAt(b, i)
		for n := 0; e.next(); n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			if dst, e.i, ok = c.raw(dst, b, e.i, depth+1); !ok {
				return dst, 0, false
			}
		}
		return append(dst, ']'), e.i, !e.failed
	case '"':
		if end, ok = skipString(b, i); !ok {
			return dst, 0, false
		}
		c.unq = appendUnescaped(c.unq[:0], b[i+1:end-1])
		return c.str(dst, c.unq), end, true
	case 't':
		end, ok = skipLiteral(b, i, "true")
		return append(dst, "true"...), end, ok
	case 'f':
		end, ok = skipLiteral(b, i, "false")
		return append(dst, "false"...), end, ok
	case 'n':
		end, ok = skipLiteral(b, i, "null")
		return append(dst, "null"...), end, ok
	}
	end, ok = ingest.SkipJSONNumber(b, i)
	return append(dst, "<NUM>"...), end, ok
}

// callSet collects the canonical forms of tool calls.
type callSet struct {
	buf   []byte
	spans []span
}

func (s *callSet) reset() {
	s.buf = s.buf[:0]
	s.spans = s.spans[:0]
}

func (s *callSet) empty() bool { return len(s.spans) == 0 }

// appendTo appends the calls to dst as a set: sorted bytewise, duplicates
// dropped, each preceded by sep except the first when dst is empty.
func (s *callSet) appendTo(dst []byte, sep byte) []byte {
	buf := s.buf
	slices.SortFunc(s.spans, func(a, b span) int {
		return bytes.Compare(buf[a.off:a.end], buf[b.off:b.end])
	})
	var prev []byte
	for i, sp := range s.spans {
		c := buf[sp.off:sp.end]
		if i > 0 && bytes.Equal(c, prev) {
			continue
		}
		if len(dst) > 0 {
			dst = append(dst, sep)
		}
		dst = append(dst, c...)
		prev = c
	}
	return dst
}

// addCall adds the call name(args), where args is the arguments value as the
// provider gives it: a JSON string holding JSON text (OpenAI), or the JSON
// value itself (Anthropic input, Gemini args, some OpenAI compatibles).
// A missing or null args is {}.
func (p *Parser) addCall(name []byte, args *fastjson.Value) {
	if args == nil || args.Type() == fastjson.TypeNull {
		p.addCallJSON(name, nil)
		return
	}
	if args.Type() == fastjson.TypeString {
		s, _ := args.StringBytes()
		p.addCallJSON(name, s)
		return
	}
	start := len(p.calls.buf)
	b := ingest.AppendJSONEscaped(p.calls.buf, name)
	b = append(b, '(')
	b = p.canon.value(b, args)
	p.calls.buf = append(b, ')')
	p.calls.spans = append(p.calls.spans, span{start, len(p.calls.buf)})
}

// addCallJSON adds the call name(args) for arguments given as JSON text.
// Empty (or all-whitespace) text is {}; text that is not JSON becomes a
// quoted normalized string.
func (p *Parser) addCallJSON(name, text []byte) {
	start := len(p.calls.buf)
	b := ingest.AppendJSONEscaped(p.calls.buf, name)
	b = append(b, '(')
	switch t := bytes.TrimSpace(text); {
	case len(t) == 0:
		b = append(b, "{}"...)
	default:
		if out, ok := p.canon.text(b, t); ok {
			b = out
		} else if v, err := p.aux.ParseBytes(t); err == nil {
			b = p.canon.value(b, v)
		} else {
			b = p.canon.str(b, t)
		}
	}
	p.calls.buf = append(b, ')')
	p.calls.spans = append(p.calls.spans, span{start, len(p.calls.buf)})
}

// textParts joins the text parts of a response with "\n", skipping empty ones.
type textParts struct {
	buf []byte
	n   int
}

func (t *textParts) reset() {
	t.buf = t.buf[:0]
	t.n = 0
}

func (t *textParts) add(s []byte) {
	if len(s) == 0 {
		return
	}
	if t.n > 0 {
		t.buf = append(t.buf, '\n')
	}
	t.buf = append(t.buf, s...)
	t.n++
}

// resetOutput clears the text parts and calls of the response being built.
func (p *Parser) resetOutput() {
	p.text.reset()
	p.calls.reset()
}

// output assembles the response text: the calls follow the collected text
// parts in the text buffer (so the text is not copied again).
func (p *Parser) output() []byte {
	n := len(p.text.buf)
	out := p.calls.appendTo(p.text.buf, '\n')
	p.text.buf = out[:n] // keeps a grown buffer; the calls are not text parts
	if len(out) == 0 {
		return nil
	}
	return out
}
