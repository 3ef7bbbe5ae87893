package pq

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Leaves reads chosen leaf columns of a Parquet file a page at a time,
// for a reader that knows the file's layout from its schema (the
// OpenInference span tables Phoenix writes) and assembles its rows
// itself: no row object, no parquet.Value per value. Each leaf is read
// through a LeafCursor that walks the page's definition and repetition
// levels and its values in their typed views (Page.Data: byte arrays as
// one buffer and offsets, int64 and double slices; dictionary pages as
// indexes into the dictionary's views). The defences are Rows': column
// chunks are checked against the file before they are read
// (checkChunk), and a decoder panic is an error.
//
// Use it as: for ls.Next() { read each cursor's slots of the row; … };
// ls.Err(). The bytes a cursor returns are valid until Release, which
// the caller calls once it has copied what it keeps of a row: a page a
// cursor has moved past is released then, not before.
type Leaves struct {
	groupWalk
	name   string
	err    error
	cols   *leafSet // apart from Leaves, for its cleanup
	closed bool
}

// LeafKind is what a leaf column's values read as.
type LeafKind uint8

const (
	LeafOther     LeafKind = iota // a type the fast readers do not read
	LeafText                      // BYTE_ARRAY, plain or STRING/ENUM: text
	LeafTimestamp                 // INT64 TIMESTAMP: ticks of LeafInfo.Unit
	LeafInt64                     // INT64, plain or signed INT(64)
	LeafDouble                    // DOUBLE
	LeafNull                      // the NULL type: every value null
)

// LeafInfo describes one leaf column of a file's schema.
type LeafInfo struct {
	// Path names the nodes from the top-level column down to the leaf.
	Path []string
	// Optional and Repeated say, node by node along Path, how the node
	// repeats (neither: required); Defs are the nodes' maximum definition
	// levels; List says which nodes are groups annotated LIST, Annotated
	// which groups carry any annotation (LIST, MAP, …).
	Optional, Repeated, List, Annotated []bool
	Defs                                []int
	Kind                                LeafKind
	Unit                                time.Duration // LeafTimestamp: one tick
	MaxDef, MaxRep                      int
	col                                 *parquet.Column
}

// OpenLeaves opens the Parquet file held by r (size bytes) as OpenRows
// does; Schema lists its leaves and Use chooses those to read.
func OpenLeaves(r io.ReaderAt, size int64, name string) (ls *Leaves, err error) {
	defer func() {
		if p := recover(); p != nil {
			ls, err = nil, fmt.Errorf("%s: corrupt Parquet file (decoder panic: %v)", name, p)
		}
	}()
	w, err := openWalk(r, size, name)
	if err != nil {
		return nil, err
	}
	ls = &Leaves{groupWalk: w, name: name, cols: new(leafSet)}
	// Leaves dropped before their end stop their pages' readers when
	// collected.
	runtime.AddCleanup(ls, closeLeafCursors, ls.cols)
	return ls, nil
}

// Schema returns every leaf column of the file, in column order.
func (ls *Leaves) Schema() []LeafInfo {
	var out []LeafInfo
	var walk func(c *parquet.Column, up LeafInfo)
	walk = func(c *parquet.Column, up LeafInfo) {
		grow := func(s []bool, v bool) []bool { return append(s[:len(s):len(s)], v) }
		lt := c.Type().LogicalType()
		list := false
		if !c.Leaf() && lt != nil {
			_, list = lt.Value.(*format.ListType)
		}
		info := LeafInfo{Path: append(up.Path[:len(up.Path):len(up.Path)], c.Name()),
			Optional: grow(up.Optional, c.Optional()), Repeated: grow(up.Repeated, c.Repeated()),
			List: grow(up.List, list), Annotated: grow(up.Annotated, !c.Leaf() && lt != nil && lt.Value != nil),
			Defs: append(up.Defs[:len(up.Defs):len(up.Defs)], c.MaxDefinitionLevel())}
		if !c.Leaf() {
			for _, k := range c.Columns() {
				walk(k, info)
			}
			return
		}
		info.MaxDef, info.MaxRep, info.col = c.MaxDefinitionLevel(), c.MaxRepetitionLevel(), c
		t := leafTypeOf(c)
		switch {
		case t.logical == lNull:
			info.Kind = LeafNull
		case t.kind == parquet.ByteArray && (t.logical == lNone || t.logical == lString || t.logical == lEnum):
			info.Kind = LeafText
		case t.kind == parquet.Int64 && t.logical == lTimestamp:
			info.Kind, info.Unit = LeafTimestamp, t.unit
		case t.kind == parquet.Int64 && t.logical == lNone:
			info.Kind = LeafInt64
		case t.kind == parquet.Double && t.logical == lNone:
			info.Kind = LeafDouble
		}
		out = append(out, info)
	}
	for _, c := range ls.file.Root().Columns() {
		walk(c, LeafInfo{})
	}
	return out
}

// NumRows returns the number of rows the file declares.
func (ls *Leaves) NumRows() int64 { return ls.file.NumRows() }

// Use returns a cursor reading the leaf l (one of Schema's), in the
// order the caller will read the leaves of a row.
func (ls *Leaves) Use(l LeafInfo) *LeafCursor {
	c := &LeafCursor{info: l, path: pathOf(l.col), maxDef: uint8(l.MaxDef), set: ls.cols}
	ls.cols.cols = append(ls.cols.cols, c)
	return c
}

// Next advances to the next row, opening the next row group when the
// current one is done: each cursor is then at the row's first value.
// false at the end of the file or on an error (see Err).
func (ls *Leaves) Next() (ok bool) {
	if ls.err != nil || ls.closed {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			ls.fail(max(ls.row, 1), fmt.Errorf("decoder panic: %v", p))
			ok = false
		}
	}()
	ok, err := ls.next(func(rg parquet.RowGroup, meta []format.ColumnChunk) error {
		chunks := rg.ColumnChunks()
		for _, c := range ls.cols.cols {
			i := c.info.col.Index()
			if err := checkChunk(ls.ra, ls.size, &meta[i], c.path); err != nil {
				return err
			}
			if i < 0 || i >= len(chunks) {
				return fmt.Errorf("column %q: row group has %d column chunks, no chunk %d", c.path, len(chunks), i)
			}
			c.open(chunks[i].Pages(), meta[i].MetaData.TotalUncompressedSize)
		}
		return nil
	})
	if err != nil {
		ls.fail(ls.row+1, err)
	} else if !ok {
		closeLeafCursors(ls.cols)
	}
	return ok
}

// N returns the current row's number, counted from 1 across the file.
func (ls *Leaves) N() int64 { return ls.row }

// Err returns the error that ended the rows.
func (ls *Leaves) Err() error { return ls.err }

// Release releases the pages the cursors have moved past: the bytes they
// returned before are no longer valid.
func (ls *Leaves) Release() {
	if ls.cols.moved {
		ls.cols.release()
	}
}

// Close releases every page held; after Close, Next returns false.
func (ls *Leaves) Close() error {
	closeLeafCursors(ls.cols)
	ls.closed = true
	return nil
}

func (ls *Leaves) fail(row int64, err error) {
	closeLeafCursors(ls.cols)
	ls.err = fmt.Errorf("%s:row %d: corrupt Parquet file: %w", ls.name, row, err)
}

// leafSet are the cursors of a Leaves; moved is set when one of them
// has moved past a page since the last release.
type leafSet struct {
	cols  []*LeafCursor
	moved bool
}

func (s *leafSet) release() {
	for _, c := range s.cols {
		c.release()
	}
	s.moved = false
}

func closeLeafCursors(s *leafSet) {
	for _, c := range s.cols {
		c.close()
	}
}

// ErrLeafStructure is a cursor's error for levels or values that do not
// agree with each other or with the schema.
var ErrLeafStructure = errors.New("levels and values do not agree")

// A LeafCursor walks the slots of one leaf column through a row group:
// each slot has a repetition level, a definition level and, when the
// definition level is the column's maximum, a value. One decoded page is
// current; the pages before it are held until Leaves.Release.
type LeafCursor struct {
	info   LeafInfo
	path   string
	maxDef uint8
	set    *leafSet

	pages parquet.Pages
	page  parquet.Page
	old   []parquet.Page // pages moved past, released by Leaves.Release
	end   bool           // no more pages in the chunk

	reps, defs []byte // the page's levels, n each
	zeros      []byte // levels for a page without them
	n, i       int    // slots in the page, the next slot
	v          int    // the next value (slots at the maximum definition level)

	data []byte   // byte arrays: the values' bytes, offsets[k]:offsets[k+1]
	offs []uint32 // (of the dictionary when idx is set)
	i64  []int64
	f64  []float64
	idx  []int32 // dictionary indexes, one per value
	nval int     // values in the page
	lag  int     // rows Defer put off (CatchUp consumes their slots)

	// prefetch: read the pages of a chunk of at least prefetchMin bytes
	// (decompressed) ahead in a goroutine (Prefetch).
	prefetch    bool
	prefetchMin int64
}

// Prefetch makes c read (fetch, decompress, decode) the pages of each
// chunk of at least min bytes (decompressed, as the file's metadata says)
// in a goroutine of its own, ahead of its reader, as the capture reader
// does for its bodies: for a column of long texts (a message's content),
// decompression is most of its reading, and a small chunk is not worth a
// goroutine. The values, their order and every error are the same; c
// holds at most prefetchDepth pages more. Call it before the first
// Leaves.Next.
func (c *LeafCursor) Prefetch(min int64) { c.prefetch, c.prefetchMin = true, min }

// open positions c at the start of a chunk (its pages, size bytes
// decompressed).
func (c *LeafCursor) open(pages parquet.Pages, size int64) {
	c.close()
	if c.prefetch && size >= c.prefetchMin {
		pages = newPrefetcher(pages, corruptPage)
	}
	c.pages = pages
}

func (c *LeafCursor) release() {
	for i, p := range c.old {
		parquet.Release(p)
		c.old[i] = nil
	}
	c.old = c.old[:0]
}

func (c *LeafCursor) close() {
	c.release()
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
	c.end, c.n, c.i, c.v, c.nval, c.lag = false, 0, 0, 0, 0, 0
	c.reps, c.defs, c.data, c.offs, c.i64, c.f64, c.idx = nil, nil, nil, nil, nil, nil, nil
}

// Path returns the column's dotted path, for messages.
func (c *LeafCursor) Path() string { return c.path }

// fill makes slot i the next slot of the chunk; false at its end. A
// decoder panic is an error.
func (c *LeafCursor) fill() (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("column %q: %w", c.path, corruptPage(p))
			c.i, c.n = 0, 0
		}
	}()
	for c.i >= c.n {
		if c.page != nil {
			if c.v != c.nval {
				return false, fmt.Errorf("column %q: %w (%d values, %d used)", c.path, ErrLeafStructure, c.nval, c.v)
			}
			c.old = append(c.old, c.page)
			c.set.moved = true
			c.page = nil
		}
		if c.end || c.pages == nil {
			return false, nil
		}
		p, err := c.pages.ReadPage()
		if err == io.EOF {
			c.end = true
			continue
		}
		if err != nil {
			return false, fmt.Errorf("column %q: %w", c.path, err)
		}
		c.page = p
		if err := c.load(p); err != nil {
			return false, err
		}
	}
	return true, nil
}

// corruptPage is the error of a page whose decoder panicked with r, read
// in place (fill) or ahead (Prefetch).
func corruptPage(r any) error { return fmt.Errorf("corrupt page (decoder panic: %v)", r) }

// load sets the views of page p.
func (c *LeafCursor) load(p parquet.Page) error {
	c.n, c.i, c.v = int(p.NumValues()), 0, 0
	c.reps, c.defs = p.RepetitionLevels(), p.DefinitionLevels()
	c.data, c.offs, c.i64, c.f64, c.idx = nil, nil, nil, nil, nil
	if err := c.values(p); err != nil {
		c.n, c.reps, c.defs = 0, nil, nil
		return err
	}
	// A column that does not repeat (is not optional) may have no levels
	// of that kind: all 0 (all the maximum, 0). Their number is bounded by
	// what the page holds: its definition levels, else (a required
	// column, a value a slot) its values.
	if c.info.MaxDef == 0 && c.n > c.nval {
		c.n, c.reps, c.defs = 0, nil, nil
		return fmt.Errorf("column %q: %w (%d slots, %d values)", c.path, ErrLeafStructure, p.NumValues(), c.nval)
	}
	if c.reps == nil && c.info.MaxRep == 0 {
		c.reps = c.noLevels()
	}
	if c.defs == nil && c.info.MaxDef == 0 {
		c.defs = c.noLevels()
	}
	if len(c.reps) != c.n || len(c.defs) != c.n {
		c.n, c.reps, c.defs = 0, nil, nil
		return fmt.Errorf("column %q: %w (levels of a page)", c.path, ErrLeafStructure)
	}
	return nil
}

// values sets the value views of page p.
func (c *LeafCursor) values(p parquet.Page) error {
	if c.info.Kind == LeafNull {
		c.nval = 0
		return nil
	}
	vals := p.Data()
	if d := p.Dictionary(); d != nil {
		c.idx = vals.Int32()
		c.nval = len(c.idx)
		vals = d.Page().Data()
	}
	switch c.info.Kind {
	case LeafText:
		c.data, c.offs = vals.ByteArray()
		if c.idx == nil {
			c.nval = max(len(c.offs)-1, 0)
		}
		if len(c.offs) > 0 && int(c.offs[len(c.offs)-1]) > len(c.data) {
			return fmt.Errorf("column %q: %w (offsets)", c.path, ErrLeafStructure)
		}
	case LeafTimestamp, LeafInt64:
		c.i64 = vals.Int64()
		if c.idx == nil {
			c.nval = len(c.i64)
		}
	case LeafDouble:
		c.f64 = vals.Double()
		if c.idx == nil {
			c.nval = len(c.f64)
		}
	default:
		return fmt.Errorf("column %q: %w (type)", c.path, ErrLeafStructure)
	}
	return nil
}

// Peek returns the levels of the next slot without consuming it; ok is
// false at the end of the chunk.
func (c *LeafCursor) Peek() (rep, def uint8, ok bool, err error) {
	if i := c.i; i < len(c.reps) && i < len(c.defs) {
		return c.reps[i], c.defs[i], true, nil
	}
	return c.peekPage()
}

// peekPage is Peek at the end of a page.
func (c *LeafCursor) peekPage() (rep, def uint8, ok bool, err error) {
	if ok, err := c.fill(); !ok || err != nil {
		return 0, 0, false, err
	}
	return c.level(), c.def(), true, nil
}

// level and def are the levels of slot i (reps and defs hold the page's
// n slots).
func (c *LeafCursor) level() uint8 { return c.reps[c.i] }

func (c *LeafCursor) def() uint8 { return c.defs[c.i] }

// noLevels returns c.n zero levels (never written: shared by reps and
// defs).
func (c *LeafCursor) noLevels() []byte {
	if cap(c.zeros) < c.n {
		c.zeros = make([]byte, c.n)
	}
	return c.zeros[:c.n]
}

// Next consumes the next slot and returns its levels; has is whether it
// holds a value (its definition level is the maximum), which the typed
// accessors (Bytes, Int64, Double) then return. Reading past the
// chunk's end is an error.
func (c *LeafCursor) Next() (rep, def uint8, has bool, err error) {
	if i := c.i; i < len(c.reps) && i < len(c.defs) {
		// A slot of the page, null or with a value the page holds: the
		// steps of next, inlined.
		rep, def = c.reps[i], c.defs[i]
		if def < c.maxDef {
			c.i++
			return rep, def, false, nil
		}
		if def == c.maxDef && c.v < c.nval {
			c.i++
			c.v++
			return rep, def, true, nil
		}
	}
	return c.next()
}

// next is Next, every case.
func (c *LeafCursor) next() (rep, def uint8, has bool, err error) {
	if c.i >= c.n {
		ok, err := c.fill()
		if err != nil {
			return 0, 0, false, err
		}
		if !ok {
			return 0, 0, false, fmt.Errorf("column %q: %w", c.path, errChunkEnd)
		}
	}
	rep, def = c.level(), c.def()
	c.i++
	if def > c.maxDef {
		return 0, 0, false, fmt.Errorf("column %q: %w (definition level %d)", c.path, ErrLeafStructure, def)
	}
	if def < c.maxDef || c.info.Kind == LeafNull {
		return rep, def, false, nil
	}
	if c.v >= c.nval {
		return 0, 0, false, fmt.Errorf("column %q: %w (more values than the page holds)", c.path, ErrLeafStructure)
	}
	c.v++
	return rep, def, true, nil
}

// Bytes returns the text value of the slot Next consumed (valid until
// Release); false when a dictionary index is out of range.
func (c *LeafCursor) Bytes() ([]byte, bool) {
	k := c.slot()
	if k < 0 || k+1 >= len(c.offs) {
		return nil, false
	}
	lo, hi := c.offs[k], c.offs[k+1]
	if lo > hi {
		return nil, false
	}
	return c.data[lo:hi:hi], true
}

// Int64 returns the integer value of the slot Next consumed.
func (c *LeafCursor) Int64() (int64, bool) { return valueAt(c.i64, c.slot()) }

// Double returns the float value of the slot Next consumed.
func (c *LeafCursor) Double() (float64, bool) { return valueAt(c.f64, c.slot()) }

// slot is the index, in the page's (or its dictionary's) values, of the
// value Next consumed: a dictionary-encoded page's index, else its
// position.
func (c *LeafCursor) slot() int {
	k := c.v - 1
	if c.idx != nil {
		k = int(c.idx[k])
	}
	return k
}

// valueAt is vals[k]; false when k is out of range (a dictionary index
// past the dictionary's end).
func valueAt[T any](vals []T, k int) (T, bool) {
	if k < 0 || k >= len(vals) {
		var zero T
		return zero, false
	}
	return vals[k], true
}

// NextNull consumes the next slot when it is in the current page and
// null (below the maximum definition level), and returns its levels; ok
// is false, and nothing consumed, otherwise (Next then). Small enough to
// be inlined: most slots of a sparse table are null.
func (c *LeafCursor) NextNull() (rep, def uint8, ok bool) {
	i := c.i
	if i < len(c.reps) && i < len(c.defs) && c.defs[i] < c.maxDef {
		c.i = i + 1
		return c.reps[i], c.defs[i], true
	}
	return 0, 0, false
}

// NextStartsRow reports whether the next slot is in the current page and
// starts a row: RowEnd's answer without a call, where it is that simple.
// A cursor behind by slots Defer put off is at a row's start too (it
// lags by whole rows).
func (c *LeafCursor) NextStartsRow() bool {
	i := c.i
	return i < len(c.reps) && c.reps[i] == 0 || c.lag > 0
}

// Defer consumes the slots of the current row later, at the next
// CatchUp, without looking at them: for a reader that knows they are
// sound (an earlier reading of the same file checked them) and does not
// want their values. Call it at a row's start, instead of reading the
// row. The rows put off in a row group are dropped with it when
// Leaves.Next opens the next one.
func (c *LeafCursor) Defer() { c.lag++ }

// CatchUp consumes the slots of the rows Defer put off, counting their
// values, a page at a time (a column that does not repeat: a slot a
// row; one that does: up to the next slot that starts a row); reading
// past the chunk's end, or levels the page does not hold, is an error,
// as Next's. Call it before reading the cursor's next slot.
func (c *LeafCursor) CatchUp() error {
	if c.lag == 0 {
		return nil
	}
	return c.catchUp()
}

func (c *LeafCursor) catchUp() error {
	n := c.lag
	c.lag = 0
	if c.info.MaxRep != 0 {
		return c.catchUpRows(n)
	}
	loaded := false // the current page was loaded by this call
	for n > 0 {
		if c.i >= c.n {
			if loaded && c.page != nil && c.v == c.nval {
				// A page this call loaded and passed: none of its bytes
				// was handed out, so it goes now, not at Release (a
				// cursor far behind would hold every page it passed).
				parquet.Release(c.page)
				c.page = nil
			}
			ok, err := c.fill()
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("column %q: %w", c.path, errChunkEnd)
			}
			loaded = true
		}
		k := min(n, c.n-c.i)
		vals := 0
		for _, d := range c.defs[c.i : c.i+k] {
			if d > c.maxDef {
				return fmt.Errorf("column %q: %w (definition level %d)", c.path, ErrLeafStructure, d)
			}
			if d == c.maxDef {
				vals++
			}
		}
		if c.info.Kind == LeafNull {
			vals = 0
		}
		if c.v+vals > c.nval {
			return fmt.Errorf("column %q: %w (more values than the page holds)", c.path, ErrLeafStructure)
		}
		c.v += vals
		c.i += k
		n -= k
	}
	return nil
}

// catchUpRows is catchUp in a repeated column: the slots of n rows, each
// from a slot that starts a row (repetition level 0) to the next.
func (c *LeafCursor) catchUpRows(n int) error {
	loaded := false
	for started := 0; ; {
		if c.i >= c.n {
			if loaded && c.page != nil && c.v == c.nval {
				parquet.Release(c.page) // as in catchUp
				c.page = nil
			}
			ok, err := c.fill()
			if err != nil {
				return err
			}
			if !ok {
				if started == n {
					return nil // the chunk ends with the last row
				}
				return fmt.Errorf("column %q: %w", c.path, errChunkEnd)
			}
			loaded = true
		}
		for ; c.i < c.n; c.i++ {
			d := c.defs[c.i]
			if c.reps[c.i] == 0 {
				if started == n {
					return nil
				}
				started++
			} else if started == 0 {
				return fmt.Errorf("column %q: %w", c.path, errStructure)
			}
			if d > c.maxDef {
				return fmt.Errorf("column %q: %w (definition level %d)", c.path, ErrLeafStructure, d)
			}
			if d == c.maxDef && c.info.Kind != LeafNull {
				if c.v >= c.nval {
					return fmt.Errorf("column %q: %w (more values than the page holds)", c.path, ErrLeafStructure)
				}
				c.v++
			}
		}
	}
}

// RowEnd checks that the next slot starts a row (repetition level 0) or
// that the chunk has ended, as Rows checks after each row.
func (c *LeafCursor) RowEnd() error {
	if c.i < c.n {
		// The next slot is in the page (Peek's answer without its call).
		if c.level() != 0 {
			return fmt.Errorf("column %q: %w", c.path, errStructure)
		}
		return nil
	}
	rep, _, ok, err := c.Peek()
	if err != nil {
		return err
	}
	if ok && rep != 0 {
		return fmt.Errorf("column %q: %w", c.path, errStructure)
	}
	return nil
}

// AppendJSONFloat appends f as Rows writes a DOUBLE value: the shortest
// text that reads back as f, in exponent form below 1e-6 and from 1e21;
// "null" for NaN and infinities.
func AppendJSONFloat(b []byte, f float64) []byte { return appendJSONFloat(b, f, 64) }
