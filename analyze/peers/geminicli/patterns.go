package geminicli

import "github.com/killswitch/killswitch/analyze/peers/jsjson"

// The regular expressions checkContentLoop tests each content event with,
// written out over UTF-16 code units (JavaScript regular expressions
// without the u flag match code units). Where a pattern reads differently
// from what it seems to mean, the source's meaning is kept: [*-+] is the
// range '*'..'+' (a "- " list item does not match it), and [+-_=*…] is
// the range '+'..'_' (digits and capital letters count as divider
// characters).

// isSpace is JavaScript's \s (jsjson.IsSpace).
func isSpace(c uint16) bool { return jsjson.IsSpace(c) }

// isLineTerminator is what JavaScript's . does not match.
func isLineTerminator(c uint16) bool {
	return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029
}

// countFences is (content.match(/```/g) ?? []).length.
func countFences(u []uint16) int {
	n := 0
	for i := 0; i+3 <= len(u); {
		if u[i] == '`' && u[i+1] == '`' && u[i+2] == '`' {
			n++
			i += 3
			continue
		}
		i++
	}
	return n
}

// anyLine reports whether match holds at some position that
// (^|\n) leaves: the start, or just after a "\n".
func anyLine(u []uint16, match func(u []uint16, i int) bool) bool {
	if match(u, 0) {
		return true
	}
	for i, c := range u {
		if c == '\n' && match(u, i+1) {
			return true
		}
	}
	return false
}

// skipSpace is \s*: the characters the patterns look for after it are
// never spaces, so the greedy match is the only one that can succeed.
func skipSpace(u []uint16, i int) int {
	for i < len(u) && isSpace(u[i]) {
		i++
	}
	return i
}

// breaksContent is the patterns of a table, a list item, a heading or a
// blockquote, tested in one pass over the lines (the source tests them
// one after the other; the result is the same).
func breaksContent(u []uint16) bool {
	return anyLine(u, func(u []uint16, i int) bool {
		return tableAt(u, i) || listItemAt(u, i) || headingAt(u, i) || blockquoteAt(u, i)
	})
}

// tableAt is, at line start i, /(^|\n)\s*(\|.*\||[|+-]{3,})/.
func tableAt(u []uint16, i int) bool {
	i = skipSpace(u, i)
	if i < len(u) && u[i] == '|' {
		for j := i + 1; j < len(u) && !isLineTerminator(u[j]); j++ {
			if u[j] == '|' {
				return true
			}
		}
	}
	n := 0
	for j := i; j < len(u) && n < 3 && (u[j] == '|' || u[j] == '+' || u[j] == '-'); j++ {
		n++
	}
	return n == 3
}

// listItemAt is, at line start i, /(^|\n)\s*[*-+]\s/ || /(^|\n)\s*\d+\.\s/.
func listItemAt(u []uint16, i int) bool {
	i = skipSpace(u, i)
	if i+1 < len(u) && (u[i] == '*' || u[i] == '+') && isSpace(u[i+1]) {
		return true
	}
	j := i
	for j < len(u) && u[j] >= '0' && u[j] <= '9' {
		j++
	}
	return j > i && j+1 < len(u) && u[j] == '.' && isSpace(u[j+1])
}

// headingAt is, at line start i, /(^|\n)#+\s/.
func headingAt(u []uint16, i int) bool {
	j := i
	for j < len(u) && u[j] == '#' {
		j++
	}
	return j > i && j < len(u) && isSpace(u[j])
}

// blockquoteAt is, at line start i, /(^|\n)>\s/.
func blockquoteAt(u []uint16, i int) bool {
	return i+1 < len(u) && u[i] == '>' && isSpace(u[i+1])
}

// isDivider is /^[+-_=*\u2500-\u257F]+$/.
func isDivider(u []uint16) bool {
	if len(u) == 0 {
		return false
	}
	for _, c := range u {
		if !(c >= '*' && c <= '_') && !(c >= 0x2500 && c <= 0x257f) {
			return false
		}
	}
	return true
}
