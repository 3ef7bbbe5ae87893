package gatewaylog

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/ingest/pq"
)

// ParquetReader reads proxy_calls rows from a Parquet file whose columns
// are top-level leaves named as in Columns (as DuckDB's or pandas' export
// of the table writes them): text as BYTE_ARRAY, status and tokens as
// integers, was_blocked as BOOLEAN, created_at as a TIMESTAMP, an integer
// of Unix seconds or text. Rows are positioned name:row N, N counted from
// 1 across the file.
type ParquetReader struct {
	name   string
	ra     io.ReaderAt
	size   int64
	file   *parquet.File
	groups []parquet.RowGroup
	cols   map[string]leaf // by column name
	g      int
	rows   parquet.Rows
	buf    []parquet.Row
	row    int64
	call   *Call
	err    error
}

type leaf struct {
	index int
	kind  parquet.Kind
	unit  time.Duration // a TIMESTAMP's tick; 0: not a timestamp
	text  bool          // BYTE_ARRAY
}

// NewParquet opens the Parquet file held by r (size bytes). A file that is
// not Parquet, or lacks a required column, is an error naming the file.
func NewParquet(r io.ReaderAt, size int64, name string) (pr *ParquetReader, err error) {
	defer func() {
		if p := recover(); p != nil {
			pr, err = nil, fmt.Errorf("%s: corrupt Parquet file (decoder panic: %v)", name, p)
		}
	}()
	if size < 12 {
		return nil, fmt.Errorf("%s: not a Parquet file: only %d bytes", name, size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, fmt.Errorf("%s: reading the footer: %w", name, err)
	}
	if string(tail[4:]) != "PAR1" || int64(binary.LittleEndian.Uint32(tail[:4])) > size-12 {
		return nil, fmt.Errorf("%s: not a readable Parquet file: truncated or corrupt footer", name)
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", name, err)
	}
	pr = &ParquetReader{name: name, ra: r, size: size, file: f, groups: f.RowGroups(), cols: map[string]leaf{}}
	for _, path := range f.Schema().Columns() {
		if len(path) != 1 {
			continue
		}
		lc, ok := f.Schema().Lookup(path...)
		if !ok {
			continue
		}
		t := lc.Node.Type()
		l := leaf{index: lc.ColumnIndex, kind: t.Kind(), text: t.Kind() == parquet.ByteArray, unit: pq.TimestampUnit(t)}
		pr.cols[path[0]] = l
	}
	for _, c := range required {
		if _, ok := pr.cols[c]; !ok {
			return nil, fmt.Errorf("%s: no column %q (a proxy_calls export needs %v)", name, c, required)
		}
	}
	return pr, nil
}

// Scan advances to the next row.
func (r *ParquetReader) Scan() (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			r.err, ok = fmt.Errorf("%s:row %d: corrupt Parquet file (decoder panic: %v)", r.name, r.row+1, p), false
		}
	}()
	if r.err != nil {
		return false
	}
	if r.buf == nil {
		r.buf = make([]parquet.Row, 1)
	}
	for {
		if r.rows == nil {
			if r.g >= len(r.groups) {
				return false
			}
			if err := pq.CheckRowGroup(r.ra, r.size, r.file, r.g); err != nil {
				r.err = fmt.Errorf("%s:row %d: %w", r.name, r.row+1, err)
				return false
			}
			r.rows = r.groups[r.g].Rows()
			r.g++
		}
		n, err := r.rows.ReadRows(r.buf)
		if n == 1 {
			r.row++
			r.call = r.convert(r.buf[0])
			return true
		}
		if err != nil && err != io.EOF {
			r.err = fmt.Errorf("%s:row %d: %w", r.name, r.row+1, err)
			return false
		}
		r.rows.Close()
		r.rows = nil
	}
}

func (r *ParquetReader) convert(row parquet.Row) *Call {
	pos := ingest.Pos{File: r.name, Kind: ingest.PosRow, N: r.row}
	byIndex := map[int]parquet.Value{}
	for _, v := range row {
		if _, seen := byIndex[v.Column()]; !seen {
			byIndex[v.Column()] = v
		}
	}
	return build(pos, func(col string) (value, bool) {
		l, ok := r.cols[col]
		if !ok {
			return value{}, false
		}
		v, ok := byIndex[l.index]
		if !ok || v.IsNull() {
			return value{null: true}, true
		}
		switch {
		case l.text:
			return value{isText: true, text: string(v.ByteArray()), kind: "text"}, true
		case l.kind == parquet.Boolean:
			return value{isBool: true, b: v.Boolean(), kind: "a boolean"}, true
		case l.unit != 0 && l.kind == parquet.Int64:
			return value{isTime: true, t: time.Unix(0, 0).Add(time.Duration(v.Int64()) * l.unit).UTC(), kind: "a timestamp"}, true
		case l.kind == parquet.Int32:
			return value{isNum: true, num: float64(v.Int32()), kind: "a number"}, true
		case l.kind == parquet.Int64:
			x := v.Int64()
			if x > 1<<53 || x < -(1<<53) {
				return value{isNum: true, num: math.Inf(1), kind: "a number"}, true
			}
			return value{isNum: true, num: float64(x), kind: "a number"}, true
		case l.kind == parquet.Float:
			return value{isNum: true, num: float64(v.Float()), kind: "a number"}, true
		case l.kind == parquet.Double:
			return value{isNum: true, num: v.Double(), kind: "a number"}, true
		}
		return value{kind: "a " + l.kind.String() + " value"}, true
	})
}

// Call returns the current row.
func (r *ParquetReader) Call() *Call { return r.call }

// Err returns the I/O error that ended the stream, if any.
func (r *ParquetReader) Err() error { return r.err }
