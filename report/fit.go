package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A text report (-f table) fits its width (TextOptions.Width, else
// DefaultWidth): prose wraps at spaces, and a table wider than the width
// keeps its compact columns, then wraps its last column's cells, and says
// what was left out. Markdown is never narrowed.

// TextOptions shape a policy's text report.
type TextOptions struct {
	// Markdown renders Markdown instead of text; Width does not apply.
	Markdown bool
	// Width is the terminal's width in columns (0: DefaultWidth).
	Width int
}

func (o TextOptions) LineWidth() int {
	if o.Width <= 0 {
		return DefaultWidth
	}
	return o.Width
}

// line writes a line of prose, wrapped to the width unless in Markdown.
func (o TextOptions) Line(w io.Writer, s string) {
	if !o.Markdown {
		s = Wrap(s, o.LineWidth())
	}
	fmt.Fprintln(w, s)
}

// FitTable is a table of a text report that fits the report's width.
type FitTable struct {
	Header  []string
	Rows    [][]string
	Compact []int  // the columns kept when the table is too wide (nil: every one)
	Every   string // what shows every column: "-f csv or json"
	// Narrow, when set, replaces Rows (same columns, shorter cells) when
	// the table is too wide.
	Narrow [][]string
}

// Narrowed reports whether Write leaves columns or cells out to fit o.
func (t FitTable) Narrowed(o TextOptions) bool {
	return !o.Markdown && (t.Compact != nil || t.Narrow != nil) && textTableWidth(t.Header, t.Rows) > o.LineWidth()
}

// Write renders t as an aligned table (or Markdown) that fits o's width.
func (t FitTable) Write(w io.Writer, o TextOptions) {
	if o.Markdown {
		TextTable(w, true, t.Header, t.Rows)
		return
	}
	width := o.LineWidth()
	header, rows := t.Header, t.Rows
	if textTableWidth(header, rows) <= width {
		TextTable(w, false, header, rows)
		return
	}
	if t.Narrow != nil {
		rows = t.Narrow
	}
	if t.Compact != nil {
		all := rows
		header = pick(header, t.Compact)
		rows = make([][]string, len(all))
		for i, r := range all {
			rows[i] = pick(r, t.Compact)
		}
		defer fmt.Fprintln(w, Wrap(fmt.Sprintf("(%d of %d columns, to fit %d: %s shows every one)", len(t.Compact), len(t.Header), width, t.Every), width))
	}
	widths := columnWidths(header, rows)
	last := len(widths) - 1
	start := 0 // where the last column starts
	for _, cw := range widths[:last] {
		start += cw + 2
	}
	room := width - start
	if room < min(widths[last], 24) {
		// Too little room beside the other columns for the last one to
		// fit or wrap readably: its cells go under the row, indented.
		start, room = 4, width-4
	}
	widths[last] = min(widths[last], room)
	writeAligned(w, widths, header, start)
	for _, r := range rows {
		writeAligned(w, widths, r, start)
	}
}

// textTableWidth is how wide textTable renders these cells.
func textTableWidth(header []string, rows [][]string) int {
	widths := columnWidths(header, rows)
	n := 0
	for i, cw := range widths {
		if i == len(widths)-1 {
			n += maxCell(header, rows, i)
		} else {
			n += cw + 2
		}
	}
	return n
}

func maxCell(header []string, rows [][]string, i int) int {
	n := utf8.RuneCountInString(header[i])
	for _, r := range rows {
		n = max(n, utf8.RuneCountInString(r[i]))
	}
	return n
}

func columnWidths(header []string, rows [][]string) []int {
	widths := make([]int, len(header))
	for i := range header {
		widths[i] = maxCell(header, rows, i)
	}
	return widths
}

// writeAligned writes one row: every column padded to its width but the
// last, whose cell wraps at its width with continuation lines starting at
// column start (on the next line, indented, when start is not where the
// last column begins on the row).
func writeAligned(w io.Writer, widths []int, r []string, start int) {
	last := len(widths) - 1
	var b strings.Builder
	for i, c := range r[:last] {
		b.WriteString(c)
		b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
	}
	lines := wrapCell(r[last], widths[last])
	if utf8.RuneCountInString(b.String()) != start {
		// The last column goes under the row.
		if row := strings.TrimRight(b.String(), " "); row != "" {
			fmt.Fprintln(w, row)
		}
		if r[last] == "" {
			return
		}
		for _, l := range lines {
			fmt.Fprintln(w, strings.Repeat(" ", start)+l)
		}
		return
	}
	for i, l := range lines {
		if i > 0 {
			b.Reset()
			b.WriteString(strings.Repeat(" ", start))
		}
		b.WriteString(l)
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// wrapCell breaks s at spaces into lines of at most width characters (a
// longer word stays whole).
func wrapCell(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Split(s, " ") {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	return append(lines, line)
}

// TextTable writes a small aligned table (or a Markdown one).
func TextTable(w io.Writer, md bool, header []string, rows [][]string) {
	if md {
		mdRow(w, header)
		fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(header)))
		for _, r := range rows {
			mdRow(w, r)
		}
		return
	}
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			pad := widths[i] - len([]rune(c))
			if i == len(r)-1 {
				pad = 0
			}
			fmt.Fprint(w, c+strings.Repeat(" ", pad))
			if i < len(r)-1 {
				fmt.Fprint(w, "  ")
			}
		}
		fmt.Fprintln(w)
	}
}
