package pq

import (
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// parquet-go allocates what a page header claims (the compressed and
// uncompressed sizes, the number of values) before it finds out whether the
// file holds that much, and keeps the buffers in a pool afterwards. One
// damaged header could cost gigabytes, so checkChunk reads the headers of
// a column chunk first and refuses a page that claims more than its chunk
// holds or more than these limits, which real writers stay far below
// (their pages are about 1 MB).
const (
	maxPageValues   = 1 << 24 // values (or dictionary entries) in one page
	maxPageBytes    = 1 << 30 // uncompressed bytes of one page
	maxPageRatio    = 4096    // uncompressed bytes per compressed byte…
	minPageAllowed  = 16 << 20
	maxHeaderBytes  = 1 << 20 // a page header, statistics included
	firstHeaderRead = 512
)

// checkChunk validates the page headers of a column chunk of a file of size
// bytes: every page must lie inside the chunk, and the chunk inside the
// file.
func checkChunk(r io.ReaderAt, size int64, cc *format.ColumnChunk, path string) error {
	md := &cc.MetaData
	start := md.DataPageOffset
	if md.DictionaryPageOffset > 0 {
		start = md.DictionaryPageOffset
	}
	end := start + md.TotalCompressedSize
	if start < 4 || md.TotalCompressedSize < 0 || end > size || end < start {
		return fmt.Errorf("column %q: chunk [%d, %d) is not inside the file of %d bytes", path, start, end, size)
	}
	var proto thrift.CompactProtocol
	buf := make([]byte, firstHeaderRead)
	for off := start; off < end; {
		n := int(min(int64(len(buf)), end-off))
		if _, err := r.ReadAt(buf[:n], off); err != nil {
			return fmt.Errorf("column %q: reading the page header at offset %d: %w", path, off, err)
		}
		var h format.PageHeader
		pr := proto.NewReaderFromBytes(buf[:n])
		if err := thrift.NewDecoder(pr).Decode(&h); err != nil {
			if int64(n) < end-off && len(buf) < maxHeaderBytes {
				buf = make([]byte, len(buf)*4) // a header with long statistics
				continue
			}
			return fmt.Errorf("column %q: bad page header at offset %d: %w", path, off, err)
		}
		body := off + int64(pr.BytesRead())
		if err := checkHeader(&h, end-body); err != nil {
			return fmt.Errorf("column %q: page at offset %d: %w", path, off, err)
		}
		off = body + int64(h.CompressedPageSize)
	}
	return nil
}

// checkHeader checks one page header; room is what is left of the chunk
// after the header.
func checkHeader(h *format.PageHeader, room int64) error {
	var values int32
	switch {
	case h.DataPageHeader.Valid:
		values = h.DataPageHeader.V.NumValues
	case h.DataPageHeaderV2.Valid:
		values = h.DataPageHeaderV2.V.NumValues
	case h.DictionaryPageHeader.Valid:
		values = h.DictionaryPageHeader.V.NumValues
	}
	if values < 0 || values > maxPageValues {
		return fmt.Errorf("claims %d values", values)
	}
	c, u := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if u < 0 || u > maxPageBytes || u > max(c*maxPageRatio, minPageAllowed) {
		return fmt.Errorf("claims %d uncompressed bytes from %d", u, c)
	}
	if c < 0 || c > room {
		return fmt.Errorf("claims %d bytes where the chunk has %d left", c, room)
	}
	return nil
}

// CheckRowGroup validates the page headers of every column chunk of row
// group g of f (a file of size bytes read through r) before parquet-go
// trusts them: for readers of other tables (gatewaylog) that read whole
// rows through parquet-go.
func CheckRowGroup(r io.ReaderAt, size int64, f *parquet.File, g int) error {
	md := f.Metadata()
	if g < 0 || g >= len(md.RowGroups) {
		return fmt.Errorf("no row group %d", g+1)
	}
	cols := md.RowGroups[g].Columns
	for i := range cols {
		path := strings.Join(cols[i].MetaData.PathInSchema, ".")
		if err := checkChunk(r, size, &cols[i], path); err != nil {
			return fmt.Errorf("row group %d: %w", g+1, err)
		}
	}
	return nil
}
