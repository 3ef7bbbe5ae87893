package gatewaylog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// JSONArrayReader reads proxy_calls rows from one JSON array of row
// objects, as PostgreSQL's json_agg writes it (`SELECT json_agg(p) FROM
// proxy_calls p`): each element as a JSONL row. Rows are positioned
// name:row N, N counted from 1. A value that is not an array, or JSON
// broken inside the array (after which no element can be found), ends the
// stream with an error naming the row.
type JSONArrayReader struct {
	dec     *json.Decoder
	name    string
	row     int64
	started bool
	call    *Call
	err     error
}

// NewJSONArray returns a reader of r whose rows are positioned name:row N.
func NewJSONArray(r io.Reader, name string) *JSONArrayReader {
	return &JSONArrayReader{dec: json.NewDecoder(r), name: name}
}

// Scan advances to the next row.
func (r *JSONArrayReader) Scan() bool {
	if r.err != nil {
		return false
	}
	if !r.started {
		r.started = true
		if tok, err := r.dec.Token(); err != nil || tok != json.Delim('[') {
			r.err = fmt.Errorf("%s: not a JSON array of proxy_calls rows", r.name)
			return false
		}
	}
	if !r.dec.More() {
		if _, err := r.dec.Token(); err != nil { // the closing bracket
			r.err = fmt.Errorf("%s: after row %d: %v", r.name, r.row, err)
		} else if _, err := r.dec.Token(); !errors.Is(err, io.EOF) {
			r.err = fmt.Errorf("%s: data after the array's end", r.name)
		}
		return false
	}
	r.row++
	pos := ingest.Pos{File: r.name, Kind: ingest.PosRow, N: r.row}
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		r.err = fmt.Errorf("%s: not JSON: %v", pos, err)
		return false
	}
	if r.row == 1 {
		if what := notAnExport(raw); what != "" {
			r.err = fmt.Errorf("%s: not a proxy_calls export: %s; a proxy_calls row needs %s",
				pos, strings.Replace(what, "first line", "first element", 1), strings.Join(required, ", "))
			return false
		}
	}
	r.call = parseJSONRow(pos, raw)
	return true
}

// Call returns the current row.
func (r *JSONArrayReader) Call() *Call { return r.call }

// Err returns the error that ended the stream, if any.
func (r *JSONArrayReader) Err() error { return r.err }
