package jsjson

import (
	"iter"
	"unicode/utf8"
)

// Canonical reports that text is an object that Stringify would write back
// unchanged in order o: Stringify(text, o).Out == text, and the value is not
// falsy. Tool-call arguments mostly come as JSON.stringify wrote them, so a
// caller that needs only the output text returns text itself and parses
// nothing. It says false for anything it does not vouch for (the caller
// then calls Stringify): whitespace between tokens, a number other than an
// integer of at most 15 digits, a key made of digits only (an array index
// sorts first), a repeated key, an escape other than \" \\ \b \f \n \r \t,
// bytes that are not UTF-8, keys out of order under Sorted and
// SortedIndexFirst (or not ASCII there, so that byte order is UTF-16's).
func Canonical(text string, o Order) bool {
	if len(text) == 0 || text[0] != '{' {
		return false
	}
	c := canon{s: text, order: o}
	return c.value(0) && c.i == len(text)
}

// canon is Canonical's scanner.
type canon struct {
	s     string
	i     int
	order Order
}

// maxCanonKeys is the most keys an object may have for Canonical, which
// looks for a repeated key one by one.
const maxCanonKeys = 32

func (c *canon) value(depth int) bool {
	if c.i >= len(c.s) || depth > maxDepth {
		return false
	}
	switch b := c.s[c.i]; {
	case b == '{':
		return c.object(depth)
	case b == '[':
		c.i++
		if c.i < len(c.s) && c.s[c.i] == ']' {
			c.i++
			return true
		}
		for {
			if !c.value(depth + 1) {
				return false
			}
			if c.i >= len(c.s) {
				return false
			}
			switch c.s[c.i] {
			case ',':
				c.i++
			case ']':
				c.i++
				return true
			default:
				return false
			}
		}
	case b == '"':
		_, ok := c.str()
		return ok
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(c.s)-c.i >= len(lit) && c.s[c.i:c.i+len(lit)] == lit {
			c.i += len(lit)
			return true
		}
	}
	return false
}

func (c *canon) object(depth int) bool {
	c.i++ // {
	if c.i < len(c.s) && c.s[c.i] == '}' {
		c.i++
		return true
	}
	var keys [maxCanonKeys]string
	n := 0
	for {
		if c.i >= len(c.s) || c.s[c.i] != '"' || n == maxCanonKeys {
			return false
		}
		k, ok := c.str()
		if !ok || !c.key(k, keys[:n]) {
			return false
		}
		keys[n] = k
		n++
		if c.i >= len(c.s) || c.s[c.i] != ':' {
			return false
		}
		c.i++
		if !c.value(depth+1) || c.i >= len(c.s) {
			return false
		}
		switch c.s[c.i] {
		case ',':
			c.i++
		case '}':
			c.i++
			return true
		default:
			return false
		}
	}
}

// key reports whether k (raw, between its quotes) may follow the keys
// before it.
func (c *canon) key(k string, before []string) bool {
	digits := true
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			digits = false
			break
		}
	}
	if digits && len(k) > 0 {
		return false // an array index, or a key like one
	}
	if c.order != PropertyOrder {
		for i := 0; i < len(k); i++ {
			if k[i] >= utf8.RuneSelf || k[i] == '\\' {
				return false
			}
		}
		return len(before) == 0 || before[len(before)-1] < k
	}
	for _, b := range before {
		if b == k {
			return false
		}
	}
	return true
}

// str reads a string as JSON.stringify writes it and returns its raw text
// (between the quotes).
func (c *canon) str() (string, bool) {
	start := c.i + 1
	ascii := true
	for i := start; i < len(c.s); i++ {
		switch b := c.s[i]; {
		case b == '"':
			if !ascii && !utf8.ValidString(c.s[start:i]) {
				return "", false
			}
			c.i = i + 1
			return c.s[start:i], true
		case b < 0x20:
			return "", false
		case b == '\\':
			if i+1 >= len(c.s) {
				return "", false
			}
			switch c.s[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i++
			default:
				return "", false
			}
		case b >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// number reads an integer of at most 15 digits, not -0: one that
// Number.prototype.toString writes as it is.
func (c *canon) number() bool {
	i := c.i
	if c.s[i] == '-' {
		i++
	}
	start := i
	for i < len(c.s) && c.s[i] >= '0' && c.s[i] <= '9' {
		i++
	}
	n := i - start
	switch {
	case n == 0 || n > 15:
		return false
	case c.s[start] == '0' && (n > 1 || start > c.i): // 01, -0
		return false
	}
	if i < len(c.s) && (c.s[i] == '.' || c.s[i] == 'e' || c.s[i] == 'E') {
		return false
	}
	c.i = i
	return true
}

// Members yields the members of text, an object Canonical vouched for (in
// any order), in order: each key quoted as text writes it, and its value's
// text. Nothing is parsed: canonical text has no white space, so strings
// are skipped to their closing quote and brackets counted.
func Members(text string) iter.Seq2[string, string] {
	return func(yield func(key, value string) bool) {
		for i := 1; i < len(text)-1; {
			ke := stringEnd(text, i)
			ve := valueEnd(text, ke+1) // past the colon
			if !yield(text[i:ke], text[ke+1:ve]) {
				return
			}
			i = ve + 1 // past the comma, or the closing brace
		}
	}
}

// stringEnd returns the end of the string that starts at i in canonical
// text, past its closing quote.
func stringEnd(s string, i int) int {
	for i++; s[i] != '"'; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// valueEnd returns the end of the value that starts at i in canonical
// text.
func valueEnd(s string, i int) int {
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch s[j] {
			case '"':
				j = stringEnd(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	j := i
	for s[j] != ',' && s[j] != '}' && s[j] != ']' {
		j++
	}
	return j
}
