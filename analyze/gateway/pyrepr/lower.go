package pyrepr

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"
)

// lowerTable is newLowerTable's map, built on first use: a gateway replay
// that never lowers a non-ASCII string, and every other command, skip it.
var lowerTable = sync.OnceValue(newLowerTable)

// Lower returns s.lower() for a str given as UTF-8, with CPython's full
// case mapping (U+0130 → "i̇", U+212A KELVIN SIGN → "k", …), except the
// final-sigma rule: a capital sigma always lowers to σ here, where CPython
// writes ς at the end of a word. Both are non-ASCII, so a search for an
// ASCII phrase (as every guardrail pattern is) finds the same matches.
func Lower(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if l, ok := lowerTable()[r]; ok {
			out = append(out, l...)
		} else {
			out = append(out, s[i:i+n]...)
		}
		i += n
	}
	return out
}

// ContainsLower reports pattern.lower() in text.lower() for an ASCII
// pattern; lowered is Lower(text), computed once by the caller.
func ContainsLower(lowered []byte, pattern string) bool {
	return bytes.Contains(lowered, []byte(strings.ToLower(pattern)))
}
