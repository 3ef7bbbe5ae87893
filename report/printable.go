package report

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printable returns s with what a terminal would act on escaped: C0 and C1
// control characters, DEL and invalid UTF-8 become \xNN (a newline \n, a
// tab \t), so that an agent id or a reason from a capture can neither
// move the cursor, clear the screen nor break a table or a CSV row. Text
// without them is returned as it is.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + strconv.FormatUint(uint64(r)|0x100, 16)[1:])
		case r >= 0x80 && r < 0xa0:
			b.WriteString(`\u00` + strconv.FormatUint(uint64(r), 16))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// printableRow applies Printable to every cell.
func printableRow(r []string) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = Printable(c)
	}
	return out
}
