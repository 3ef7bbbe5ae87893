package gatewaylog

import (
	"fmt"
	"io"
	"slices"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

// ParquetReader reads proxy_calls rows from a Parquet file whose columns
// are top-level columns named as in Columns (as DuckDB's or pandas' export
// of the table writes them). Rows are read through pq.Rows — the reader
// the capture formats use, with its defences: every column chunk's page
// headers are checked against the file before anything is read or
// allocated, and a decoder panic is an error naming the row — as JSON
// objects, which are then decoded as the JSONL reader decodes a line:
// text as JSON strings (UUIDs in their text form, JSON columns as JSON),
// numbers and decimals as numbers, booleans, timestamps and dates as RFC
// 3339 text. Rows are positioned name:row N, N counted from 1 across the
// file.
type ParquetReader struct {
	name string
	rows *pq.Rows
	call *Call
	err  error
}

// NewParquet opens the Parquet file held by r (size bytes). A file that is
// not Parquet, or lacks a required column, is an error naming the file.
func NewParquet(r io.ReaderAt, size int64, name string) (*ParquetReader, error) {
	rs, err := pq.OpenRows(r, size, name, func(col string) bool { return slices.Contains(Columns, col) })
	if err != nil {
		return nil, err
	}
	for _, c := range required {
		if !slices.Contains(rs.Columns(), c) {
			rs.Close()
			return nil, fmt.Errorf("%s: no column %q (a proxy_calls export needs %v)", name, c, required)
		}
	}
	return &ParquetReader{name: name, rows: rs}, nil
}

// Scan advances to the next row.
func (r *ParquetReader) Scan() bool {
	if r.err != nil {
		return false
	}
	if !r.rows.Next() {
		r.err = r.rows.Err()
		return false
	}
	pos := ingest.Pos{File: r.name, Kind: ingest.PosRow, N: r.rows.N()}
	if err := r.rows.RowErr(); err != nil {
		// A value that cannot be read (text that is not UTF-8, a JSON
		// column holding something else) is a bad row naming its column.
		r.call = &Call{Pos: pos, Err: ingest.Errorf(pos, "%v", err)}
		return true
	}
	r.call = parseJSONRow(pos, r.rows.Row())
	return true
}

// Call returns the current row.
func (r *ParquetReader) Call() *Call { return r.call }

// Err returns the error that ended the rows (a corrupt or truncated file),
// if any.
func (r *ParquetReader) Err() error { return r.err }
