package pq

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// cursorBuffer is how many values a cursor decodes at a time.
const cursorBuffer = 256

// errChunkEnd is reading past the last value of a column chunk: the file
// says the row group holds more rows than the column has values.
var errChunkEnd = errors.New("column chunk ends before the row group's last row")

// A cursor streams the values of one leaf column through one row group,
// page by page: at most one decoded page is held at a time. Values carry
// their repetition and definition levels; the bytes of a byte-array value
// point into the page and stay valid only until the cursor moves past the
// page, so callers copy what they keep before the next call.
type cursor struct {
	col      *parquet.Column
	path     string // dotted column path, for messages
	prefetch bool   // read pages ahead in a goroutine (big text columns)

	pages   parquet.Pages
	page    parquet.Page
	vr      parquet.ValueReader
	pageEnd bool // vr is drained: release the page once buf is consumed
	end     bool // no more pages in this chunk
	buf     []parquet.Value
	i, n    int
}

func newCursor(c *parquet.Column) *cursor {
	return &cursor{col: c, path: pathOf(c), buf: make([]parquet.Value, cursorBuffer)}
}

// open positions the cursor at the start of the column's chunk in rg.
func (c *cursor) open(rg parquet.RowGroup) error {
	c.close()
	chunks := rg.ColumnChunks()
	i := c.col.Index()
	if i < 0 || i >= len(chunks) {
		return fmt.Errorf("column %q: row group has %d column chunks, no chunk %d", c.path, len(chunks), i)
	}
	c.pages = chunks[i].Pages()
	if c.prefetch {
		c.pages = newPrefetcher(c.pages, func(r any) error {
			return fmt.Errorf("corrupt Parquet data (decoder panic: %v)", r)
		})
	}
	return nil
}

// close releases the current page and the chunk's page reader.
func (c *cursor) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
	c.vr, c.pageEnd, c.end, c.i, c.n = nil, false, false, 0, 0
}

// fill makes buf[i] the next value; false at the end of the chunk.
func (c *cursor) fill() (bool, error) {
	stalls := 0
	for c.i >= c.n {
		switch {
		case c.pageEnd:
			parquet.Release(c.page)
			c.page, c.vr, c.pageEnd = nil, nil, false
		case c.vr != nil:
			n, err := c.vr.ReadValues(c.buf)
			c.i, c.n = 0, n
			switch {
			case err == io.EOF:
				c.pageEnd = true
			case err != nil:
				return false, fmt.Errorf("column %q: %w", c.path, err)
			case n == 0:
				if stalls++; stalls > 2 {
					return false, fmt.Errorf("column %q: page decoder makes no progress", c.path)
				}
			}
		case c.end || c.pages == nil:
			return false, nil
		default:
			p, err := c.pages.ReadPage()
			if err == io.EOF {
				c.end = true
				continue
			}
			if err != nil {
				return false, fmt.Errorf("column %q: %w", c.path, err)
			}
			c.page, c.vr = p, p.Values()
		}
	}
	return true, nil
}

// next returns the next value of the chunk.
func (c *cursor) next() (parquet.Value, error) {
	if c.i >= c.n {
		ok, err := c.fill()
		if err != nil {
			return parquet.Value{}, err
		}
		if !ok {
			return parquet.Value{}, fmt.Errorf("column %q: %w", c.path, errChunkEnd)
		}
	}
	v := c.buf[c.i]
	c.i++
	return v, nil
}

// peek returns the next value without consuming it; false at the end of
// the chunk.
func (c *cursor) peek() (*parquet.Value, bool, error) {
	if c.i >= c.n {
		ok, err := c.fill()
		if !ok || err != nil {
			return nil, false, err
		}
	}
	return &c.buf[c.i], true, nil
}
