package pq

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// A column's slots put off by Defer and consumed by CatchUp leave the
// cursor where reading them would: the values read after runs of
// deferred rows (short runs, runs across many small pages, runs to the
// end of a page) are those a reading of every row gives, for a text
// column with nulls (plain and dictionary-encoded), a double column, a
// required column, a list of texts and a repeated double.
func TestLeafCursorDefer(t *testing.T) {
	rows := sparseRows(3000, 1)
	data := writeRows(t, rows, parquet.PageBufferSize(256), parquet.MaxRowsPerRowGroup(1000))
	// read returns, by row, what each column holds ("-" for null); skip
	// says which rows of column c are put off instead of read.
	read := func(skip func(row, c int) bool) [][]string {
		ls, err := OpenLeaves(bytes.NewReader(data), int64(len(data)), "t.parquet")
		if err != nil {
			t.Fatal(err)
		}
		defer ls.Close()
		var cs []*LeafCursor
		for _, l := range ls.Schema() {
			cs = append(cs, ls.Use(l))
		}
		var out [][]string
		for n := 0; ls.Next(); n++ {
			vals := make([]string, len(cs))
			for i, c := range cs {
				if skip(n, i) {
					c.Defer()
					vals[i] = "?"
					continue
				}
				if err := c.CatchUp(); err != nil {
					t.Fatalf("row %d column %d: %v", n+1, i, err)
				}
				// The row's slots: the first, then those that do not
				// start a row.
				for first := true; ; first = false {
					if !first {
						rep, _, more, err := c.Peek()
						if err != nil || !more || rep == 0 {
							break
						}
					}
					_, _, has, err := c.Next()
					if err != nil {
						t.Fatalf("row %d column %d: %v", n+1, i, err)
					}
					switch kind := ls.Schema()[i].Kind; {
					case !has:
						vals[i] += "-,"
					case kind == LeafDouble:
						x, _ := c.Double()
						vals[i] += fmt.Sprint(x) + ","
					default:
						b, _ := c.Bytes()
						vals[i] += string(b) + ","
					}
				}
			}
			for i, c := range cs {
				if !c.NextStartsRow() && c.RowEnd() != nil {
					t.Fatalf("row %d column %d: does not end the row", n+1, i)
				}
			}
			ls.Release()
			out = append(out, vals)
		}
		if err := ls.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := read(func(int, int) bool { return false })
	if len(all) != len(rows) || all[4][0] != "text 4," || all[3][0] != "-," || all[8][1] != "d1," || all[7][2] != "70," ||
		all[8][5] != "l8.0,l8.1," || all[6][5] != "-," || all[5][6] != "5,6," || all[3][6] != "-," {
		t.Fatalf("plain reading: %d rows, row 4 %q", len(all), all[4])
	}
	for name, skip := range map[string]func(n, c int) bool{
		"every other row":  func(n, c int) bool { return (n+c)%2 == 0 },
		"runs of 37":       func(n, c int) bool { return n%40 < 37 },
		"long runs":        func(n, c int) bool { return n%700 != 699 && n%700 != 3 },
		"to a group's end": func(n, c int) bool { return n%1000 > 10 },
		"one column only":  func(n, c int) bool { return c == 1 && n%9 != 0 },
	} {
		got := read(skip)
		for n := range got {
			for c := range got[n] {
				if got[n][c] != "?" && got[n][c] != all[n][c] {
					t.Fatalf("%s: row %d column %d: %q, want %q", name, n+1, c, got[n][c], all[n][c])
				}
			}
		}
	}
}

// sparseRow is a row of the cursors' tests: texts with nulls (plain and
// dictionary-encoded), a double with nulls, a required double, a column
// always null, a list of texts and a repeated double.
type sparseRow struct {
	Text  *string   `parquet:"text,optional"`
	Dict  *string   `parquet:"dict,optional,dict"`
	Num   *float64  `parquet:"num,optional"`
	Req   float64   `parquet:"req"`
	Other *string   `parquet:"other,optional"`
	List  []string  `parquet:"list,list"`
	Tags  []float64 `parquet:"tags"`
}

// sparseRows returns n rows; with long above 1, the texts of row i are
// repeated up to long times (of the text column, 1+i%long times).
func sparseRows(n, long int) []sparseRow {
	var rows []sparseRow
	for i := range n {
		r := sparseRow{Req: float64(i)}
		if i%3 != 0 {
			s := fmt.Sprintf("text %d", i)
			if long > 1 {
				s = strings.Repeat(s+", ", 1+i%long)
			}
			r.Text = &s
		}
		if i%5 != 1 {
			d := fmt.Sprintf("d%d", i%7)
			r.Dict = &d
		}
		if i%4 != 2 {
			n := float64(i * 10)
			r.Num = &n
		}
		for k := range i % 6 {
			l := fmt.Sprintf("l%d.%d", i, k)
			if long > 1 {
				l = strings.Repeat(l+" ", 1+k*long/4)
			}
			r.List = append(r.List, l)
		}
		for k := range i % 3 {
			r.Tags = append(r.Tags, float64(i+k))
		}
		rows = append(rows, r)
	}
	return rows
}
