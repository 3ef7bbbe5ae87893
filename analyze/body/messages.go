package body

import "bytes"

// Message is one element of a chat request's "messages" array as
// ChatMessages finds it: its JSON text, in the body, and whether its role
// is "assistant".
type Message struct {
	Raw       []byte
	Assistant bool // its first "role" member is the string "assistant"
}

// ChatMessages reads a request body whose first "messages" member is an
// array, in place and without building a tree (the scanner of the fast
// path, scan.go), and appends its elements to dst: a reader that needs
// only the newest messages parses those alone. It reports false when it
// cannot vouch for the document — not an object, a first "messages" member
// that is not an array, a member name holding an escape, a syntax fastjson
// may read differently, nesting deeper than maxSkipDepth, bytes after the
// object — and the caller then parses the body with fastjson. When it
// reports true, fastjson parses the whole body, its first "messages" member
// is that array, and each Raw parses into the element's value.
func ChatMessages(raw []byte, dst []Message) ([]Message, bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return dst, false
	}
	found := false
	m := objectAt(raw, i)
	for name, more := m.next(); more; name, more = m.next() {
		if string(name) != "messages" || found {
			m.value()
			continue
		}
		found = true
		if raw[m.i] != '[' {
			return dst, false
		}
		e := arrayAt(raw, m.i)
		for e.next() {
			msg := Message{}
			start := e.i
			if raw[start] != '{' {
				e.value() // not a message: no role
			} else {
				var role [1]span
				end, ok := fields(raw, start, roleName[:], role[:])
				if !ok {
					return dst, false
				}
				e.i = end
				msg.Assistant = role[0].kind(raw) == '"' && isAssistant(role[0].str(raw))
			}
			if e.failed {
				return dst, false
			}
			msg.Raw = raw[start:e.i]
			dst = append(dst, msg)
		}
		if e.failed {
			return dst, false
		}
		m.i = e.i
	}
	if m.failed || !found || skipWS(raw, m.i) != len(raw) {
		return dst, false
	}
	return dst, true
}

var roleName = [...]string{"role"}

// isAssistant reports whether the raw string s (between its quotes) is
// "assistant" once unescaped, as fastjson unescapes it.
func isAssistant(s []byte) bool {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s) == "assistant"
	}
	return string(appendUnescaped(nil, s)) == "assistant"
}
