package pq

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/killswitch/killswitch/internal/pqtest"
)

// leafTranscript reads every leaf of every row of data through Leaves,
// the rows of some columns put off (Defer), and writes down what it read:
// each slot's levels and value, each error where it happened, and where
// the reading ended. With prefetch, the cursors of the columns pick says
// read every chunk's pages ahead (Prefetch(0)).
func leafTranscript(t *testing.T, data []byte, pick func(c int) bool) string {
	t.Helper()
	var out strings.Builder
	ls, err := OpenLeaves(bytes.NewReader(data), int64(len(data)), "t.parquet")
	if err != nil {
		return "open: " + err.Error()
	}
	defer ls.Close()
	var cs []*LeafCursor
	for i, l := range ls.Schema() {
		c := ls.Use(l)
		if pick(i) {
			c.Prefetch(0)
		}
		cs = append(cs, c)
	}
rows:
	for n := 0; ls.Next(); n++ {
		fmt.Fprintf(&out, "row %d:", ls.N())
		for i, c := range cs {
			if ls.Schema()[i].MaxRep == 0 && (n+i)%5 == 1 {
				c.Defer()
				continue
			}
			if err := c.CatchUp(); err != nil {
				fmt.Fprintf(&out, " catch-up %d: %v\n", i, err)
				break rows
			}
			for first := true; ; first = false {
				rep, _, more, err := c.Peek()
				if err != nil {
					fmt.Fprintf(&out, " peek %d: %v\n", i, err)
					break rows
				}
				if !more || !first && rep == 0 {
					break
				}
				rep, def, has, err := c.Next()
				if err != nil {
					fmt.Fprintf(&out, " next %d: %v\n", i, err)
					break rows
				}
				fmt.Fprintf(&out, " %d/%d/%d", i, rep, def)
				if has {
					switch ls.Schema()[i].Kind {
					case LeafText:
						b, ok := c.Bytes()
						fmt.Fprintf(&out, "=%q,%v", b, ok)
					case LeafDouble:
						x, ok := c.Double()
						fmt.Fprintf(&out, "=%v,%v", x, ok)
					case LeafInt64, LeafTimestamp:
						x, ok := c.Int64()
						fmt.Fprintf(&out, "=%v,%v", x, ok)
					}
				}
			}
			if err := c.RowEnd(); err != nil {
				fmt.Fprintf(&out, " row end %d: %v\n", i, err)
				break rows
			}
		}
		out.WriteString("\n")
		ls.Release()
	}
	fmt.Fprintf(&out, "end: %v\n", ls.Err())
	return out.String()
}

// Cursors that read their pages ahead (Prefetch) read what cursors that
// do not read, errors included and in the same place: over a table of
// long texts (sparseRows; snappy-compressed pages of a few KB, row groups
// of many pages), lists and numbers, whole and damaged (bytes changed through
// its pages, with and without page checksums, so that damaged pages
// reach the decoders), with some columns put off (Defer) and some or all
// columns prefetched.
func TestLeafCursorPrefetch(t *testing.T) {
	rows := sparseRows(700, 40)
	whole := writeRows(t, rows, parquet.PageBufferSize(4096), parquet.MaxRowsPerRowGroup(300),
		parquet.Compression(&parquet.Snappy))
	files := map[string][]byte{"whole": whole}
	for _, base := range [][]byte{whole, pqtest.WithoutCRC(t, whole)} {
		for k := range 16 {
			d := bytes.Clone(base)
			pos := 4 + (k*7919+len(d)/3)%(len(d)-12)
			if k%2 == 0 {
				d[pos] ^= 0xff
			} else {
				d[pos] ^= 0x01
			}
			files[fmt.Sprintf("%d@%d", len(d), pos)] = d
		}
	}
	none := func(int) bool { return false }
	picks := map[string]func(int) bool{
		"all":  func(int) bool { return true },
		"text": func(c int) bool { return c == 0 },
		"odd":  func(c int) bool { return c%2 == 1 },
	}
	wholeRead := leafTranscript(t, whole, none)
	if strings.Count(wholeRead, "\n") != len(rows)+1 || !strings.HasSuffix(wholeRead, "end: <nil>\n") {
		t.Fatalf("the whole table does not read whole")
	}
	damaged := 0
	for name, data := range files {
		want := leafTranscript(t, data, none)
		if want != wholeRead {
			damaged++
		}
		for p, pick := range picks {
			if got := leafTranscript(t, data, pick); got != want {
				t.Errorf("%s, prefetching %s: the reading differs:\n%s", name, p, firstDiff(got, want))
			}
		}
	}
	t.Logf("%d of %d damaged copies read otherwise than the whole table", damaged, len(files)-1)
	if damaged == 0 {
		t.Fatalf("no damaged copy reads otherwise than the whole table: the test damages nothing the reader sees")
	}
}

// firstDiff is the first line where got and want differ, each.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %.300s\nwant %.300s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// panicPages are pages whose decoder panics.
type panicPages struct{}

func (panicPages) ReadPage() (parquet.Page, error) { panic("bad page") }
func (panicPages) SeekToRow(int64) error           { return nil }
func (panicPages) Close() error                    { return nil }

// A page whose decoder panics is the same error, worded alike, whether
// the cursor reads its pages itself or ahead in a goroutine.
func TestLeafCursorPrefetchPanic(t *testing.T) {
	read := func(prefetch bool) error {
		c := &LeafCursor{path: "col", set: &leafSet{}}
		if prefetch {
			c.Prefetch(0)
		}
		c.open(panicPages{}, 1)
		defer c.close()
		_, _, _, err := c.Peek()
		return err
	}
	want := `column "col": corrupt page (decoder panic: bad page)`
	for _, prefetch := range []bool{false, true} {
		if err := read(prefetch); err == nil || err.Error() != want {
			t.Errorf("prefetch %v: %v, want %s", prefetch, err, want)
		}
	}
}
