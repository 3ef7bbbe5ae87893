package report

import (
	"strings"
	"testing"
)

func TestFitTable(t *testing.T) {
	header := []string{"name", "n", "long", "why"}
	rows := [][]string{
		{"a", "1", "xxxxxxxxxxxxxxxxxxxx", "one two three four five six seven eight nine ten"},
		{"", "", "", "more"},
	}
	tbl := FitTable{Header: header, Rows: rows, Compact: []int{0, 1, 3}, Every: "-f json"}
	for _, tc := range []struct {
		width int
		want  string
	}{
		// Fits: every column, as textTable writes it.
		{100, "name  n  long                  why\n" +
			"a     1  xxxxxxxxxxxxxxxxxxxx  one two three four five six seven eight nine ten\n" +
			"                               more\n"},
		// Too wide: the compact columns, the last one wrapped beside them.
		{40, "name  n  why\n" +
			"a     1  one two three four five six\n" +
			"         seven eight nine ten\n" +
			"         more\n" +
			"(3 of 4 columns, to fit 40: -f json\n  shows every one)\n"},
		// No room beside them: the last column goes under the row.
		{30, "name  n\n    why\n" +
			"a     1\n    one two three four five\n    six seven eight nine ten\n" +
			"    more\n" +
			"(3 of 4 columns, to fit 30: -f\n  json shows every one)\n"},
	} {
		var b strings.Builder
		tbl.Write(&b, TextOptions{Width: tc.width})
		if b.String() != tc.want {
			t.Errorf("width %d:\n%s\nwant\n%s", tc.width, b.String(), tc.want)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if len(l) > tc.width {
				t.Errorf("width %d: %q is wider", tc.width, l)
			}
		}
	}
}
