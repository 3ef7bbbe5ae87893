package gatewaylog

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// CSVReader reads proxy_calls rows from CSV with a header row, as
// PostgreSQL's COPY … TO STDOUT WITH (FORMAT csv, HEADER) writes it: an
// empty unquoted field is NULL, booleans are t or f. Rows are positioned
// name:row N, N counted from 1 after the header. A header without a
// required column is not a proxy_calls export: Err says so; a row with
// the wrong number of fields is bad, and reading goes on.
type CSVReader struct {
	cr     *csv.Reader
	name   string
	row    int64
	header map[string]int
	hdrErr error
	call   *Call
	err    error
}

// NewCSV returns a reader of r whose rows are positioned name:row N.
func NewCSV(r io.Reader, name string) *CSVReader {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return &CSVReader{cr: cr, name: name}
}

// Scan advances to the next row.
func (r *CSVReader) Scan() bool {
	if r.err != nil {
		return false
	}
	if r.header == nil {
		fields, err := r.cr.Read()
		if err != nil {
			if err != io.EOF {
				r.err = fmt.Errorf("%s: header: %w", r.name, err)
			}
			return false
		}
		r.header = map[string]int{}
		for i, f := range fields {
			f = strings.TrimPrefix(strings.TrimSpace(f), "\uFEFF")
			if _, dup := r.header[f]; dup {
				r.hdrErr = fmt.Errorf("header: column %q given twice", f)
			}
			r.header[f] = i
		}
		var missing []string
		for _, c := range required {
			if _, ok := r.header[c]; !ok {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			// The whole file is something else: one error, not one per
			// row. The header's own names are not echoed (a file without
			// a header has data there).
			r.err = fmt.Errorf("%s: not a proxy_calls export: a CSV whose first row (%d columns) lacks %s; a proxy_calls export needs the columns %s",
				r.name, len(fields), strings.Join(missing, ", "), strings.Join(required, ", "))
			return false
		}
	}
	fields, err := r.cr.Read()
	if err == io.EOF {
		return false
	}
	r.row++
	pos := ingest.Pos{File: r.name, Kind: ingest.PosRow, N: r.row}
	if err != nil {
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			r.err = fmt.Errorf("%s: %w", pos, err)
			return false
		}
		r.call = &Call{Pos: pos, Err: ingest.Errorf(pos, "not CSV: %v", pe.Err)}
		return true
	}
	switch {
	case r.hdrErr != nil:
		r.call = &Call{Pos: pos, Err: ingest.Errorf(pos, "%v", r.hdrErr)}
	case len(fields) != len(r.header):
		r.call = &Call{Pos: pos, Err: ingest.Errorf(pos, "%d fields, the header has %d", len(fields), len(r.header))}
	default:
		r.call = build(pos, func(col string) (value, bool) {
			i, ok := r.header[col]
			if !ok {
				return value{}, false
			}
			if fields[i] == "" {
				return value{null: true}, true
			}
			return value{isText: true, text: fields[i], kind: "text"}, true
		})
	}
	return true
}

// Call returns the current row.
func (r *CSVReader) Call() *Call { return r.call }

// Err returns the I/O error that ended the stream, if any.
func (r *CSVReader) Err() error { return r.err }
