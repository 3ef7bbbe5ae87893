// Package jsonend finds where a JSON object, array or string ends in a
// stream, a buffer at a time, without holding it: the readers use it to
// read past a value over their size limit.
package jsonend

// A Scanner follows one value from its first byte. The zero value is
// ready; it does not check the JSON beyond strings, their escapes and
// the nesting of brackets.
type Scanner struct {
	depth             int
	inString, escaped bool
}

// Feed reads b, the value's next bytes, and returns the offset in b just
// past the value's end, or -1 when the value goes on past b.
func (s *Scanner) Feed(b []byte) int {
	for i, c := range b {
		switch {
		case s.inString:
			if s.escaped {
				s.escaped = false
			} else if c == '\\' {
				s.escaped = true
			} else if c == '"' {
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			s.depth--
		}
		if s.depth <= 0 && !s.inString {
			return i + 1
		}
	}
	return -1
}
