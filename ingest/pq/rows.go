package pq

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Rows reads chosen top-level columns of any Parquet file one row at a
// time, each row as a JSON object: {"column": value, …}, members in schema
// order, null members left out, nested groups and lists written as JSON
// (see assemble.go), timestamps as RFC 3339 text in UTC, and columns of the
// NULL type (pandas' all-None columns, lists of NULL) as null. It is how
// the readers of foreign table layouts (OpenInference span exports) see a
// Parquet file, with the same defences as Reader: column chunks are
// checked against the file before they are read, and a decoder panic is an
// error naming the row.
//
// Use it like bufio.Scanner: for rs.Next() { rs.Row() … }; rs.Err().
type Rows struct {
	groupWalk
	name   string
	cols   []string
	tree   *jnode
	asm    assembler
	err    error
	closed bool
	// values mode (OpenValues): each row's column values
	values bool
	vopt   ValueOptions
	vals   []any
}

// OpenRows opens the Parquet file held by r (size bytes) and plans the
// reading of the top-level columns whose names keep accepts (every column
// when keep is nil). A column that cannot be written as JSON (a BSON or
// geometry leaf) is an error only when kept. Errors name the file.
func OpenRows(r io.ReaderAt, size int64, name string, keep func(column string) bool) (rs *Rows, err error) {
	defer func() {
		if p := recover(); p != nil {
			rs, err = nil, fmt.Errorf("%s: corrupt Parquet file (decoder panic: %v)", name, p)
		}
	}()
	w, err := openWalk(r, size, name)
	if err != nil {
		return nil, err
	}
	f := w.file
	rs = &Rows{groupWalk: w, name: name}
	var p planner
	root := &jnode{kind: jObject, path: "", lo: 0}
	for _, c := range f.Root().Columns() {
		if keep != nil && !keep(c.Name()) {
			continue
		}
		kn, err := p.value(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		kn.key = jsonKey(c.Name())
		root.kids = append(root.kids, kn)
		rs.cols = append(rs.cols, c.Name())
	}
	root.hi = len(p.leaves)
	rs.tree = root
	for _, c := range p.leaves {
		rs.asm.cur = append(rs.asm.cur, newCursor(c))
	}
	runtime.AddCleanup(rs, closeCursors, rs.asm.cur)
	return rs, nil
}

// Columns returns the names of the columns read, in schema order. The
// caller must not modify the slice.
func (rs *Rows) Columns() []string { return rs.cols }

// AllColumns returns the names of every top-level column of the file, in
// schema order, for messages.
func (rs *Rows) AllColumns() []string {
	var names []string
	for _, c := range rs.file.Root().Columns() {
		names = append(names, c.Name())
	}
	return names
}

// Metadata returns the file's key-value metadata entry key (pandas writes
// its schema under "pandas").
func (rs *Rows) Metadata(key string) (string, bool) { return rs.file.Lookup(key) }

// NumRows returns the number of rows the file declares.
func (rs *Rows) NumRows() int64 { return rs.file.NumRows() }

// Next advances to the next row; false at the end of the file or when the
// file turns out to be corrupt (see Err).
func (rs *Rows) Next() (ok bool) {
	if rs.values {
		panic("pq: Next on rows opened by OpenValues (use NextValues)")
	}
	return rs.read(func() error {
		_, err := rs.asm.row(rs.tree)
		return err
	})
}

// read advances to the next row and reads it with f; an error f returns,
// or a decoder panic, ends the rows.
func (rs *Rows) read(f func() error) (ok bool) {
	if !rs.advance() {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			rs.fail(max(rs.row, 1), fmt.Errorf("decoder panic: %v", p))
			ok = false
		}
	}()
	if err := f(); err != nil {
		rs.fail(rs.row, err)
		return false
	}
	return true
}

// advance moves to the next row, opening the next row group when the
// current one is done; false at the end or on an error (see Err).
func (rs *Rows) advance() (ok bool) {
	if rs.err != nil || rs.closed {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			rs.fail(max(rs.row, 1), fmt.Errorf("decoder panic: %v", p))
			ok = false
		}
	}()
	ok, err := rs.next(func(rg parquet.RowGroup, meta []format.ColumnChunk) error {
		for _, c := range rs.asm.cur {
			err := checkChunk(rs.ra, rs.size, &meta[c.col.Index()], c.path)
			if err == nil {
				err = c.open(rg)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		rs.fail(rs.row+1, err)
	} else if !ok {
		closeCursors(rs.asm.cur)
	}
	return ok
}

// groupWalk walks the row groups of a file row by row, for Rows and
// Leaves.
type groupWalk struct {
	ra     io.ReaderAt
	size   int64
	file   *parquet.File
	groups []parquet.RowGroup
	g      int
	left   int64
	row    int64 // rows read so far
}

// openWalk opens the Parquet file held by r (size bytes); errors name
// the file.
func openWalk(r io.ReaderAt, size int64, name string) (groupWalk, error) {
	if size < 12 {
		return groupWalk{}, fmt.Errorf("%s: not a Parquet file: only %d bytes", name, size)
	}
	if err := checkTrailer(r, size); err != nil {
		return groupWalk{}, fmt.Errorf("%s: not a readable Parquet file: %w", name, err)
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(64<<10))
	if err != nil {
		return groupWalk{}, fmt.Errorf("%s: not a readable Parquet file: %w", name, err)
	}
	return groupWalk{ra: r, size: size, file: f, groups: f.RowGroups()}, nil
}

// next moves to the next row; open opens the column chunks of each row
// group entered (meta: their metadata). false at the end of the file; the
// error is open's, naming the row group.
func (w *groupWalk) next(open func(rg parquet.RowGroup, meta []format.ColumnChunk) error) (bool, error) {
	for w.left <= 0 {
		if w.g >= len(w.groups) {
			return false, nil
		}
		rg := w.groups[w.g]
		w.g++
		w.left = rg.NumRows()
		if w.left <= 0 {
			continue
		}
		if err := open(rg, w.file.Metadata().RowGroups[w.g-1].Columns); err != nil {
			return false, fmt.Errorf("row group %d: %w", w.g, err)
		}
	}
	w.left--
	w.row++
	return true, nil
}

// Row returns the current row as a JSON object. The bytes are valid until
// the next call to Next.
func (rs *Rows) Row() []byte { return rs.asm.out }

// RowErr returns what was wrong with a value of the current row (text that
// is not UTF-8, invalid JSON in a JSON column), written as null; nil when
// nothing was.
func (rs *Rows) RowErr() error { return rs.asm.bad }

// N returns the current row's number, counted from 1 across the file.
func (rs *Rows) N() int64 { return rs.row }

// Err returns the error that ended the rows: a corrupt or truncated file.
func (rs *Rows) Err() error { return rs.err }

// Close releases the pages held; after Close, Next returns false.
func (rs *Rows) Close() error {
	closeCursors(rs.asm.cur)
	rs.closed = true
	return nil
}

func (rs *Rows) fail(row int64, err error) {
	closeCursors(rs.asm.cur)
	rs.err = fmt.Errorf("%s:row %d: corrupt Parquet file: %w", rs.name, row, err)
}

// ColumnList renders names for a message: at most max, then "… N more".
func ColumnList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(", … %d more", len(names)-max)
}

// TopColumns returns the names of the top-level columns of the Parquet
// file held by r (size bytes), in schema order, reading only its footer.
func TopColumns(r io.ReaderAt, size int64, name string) ([]string, error) {
	rs, err := OpenRows(r, size, name, func(string) bool { return false })
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	return rs.AllColumns(), nil
}
