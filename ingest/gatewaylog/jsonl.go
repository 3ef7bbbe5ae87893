package gatewaylog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/ingest"
)

// JSONLReader reads one proxy_calls row per line, as PostgreSQL's
// row_to_json writes it: {"created_at": "2026-03-01T10:00:00+00:00",
// "tenant_id": "acme", "request_json": "{…}", "status_code": 200, …}.
// Blank lines are ignored; a line longer than ingest.DefaultMaxLine is a
// bad row.
type JSONLReader struct {
	br   *bufio.Reader
	name string
	line int64
	seen bool // a row was read: the first decides what the file is
	call *Call
	err  error
}

// NewJSONL returns a reader of r whose rows are positioned name:line.
func NewJSONL(r io.Reader, name string) *JSONLReader {
	return &JSONLReader{br: bufio.NewReaderSize(r, 1<<16), name: name}
}

// Scan advances to the next row.
func (r *JSONLReader) Scan() bool {
	for r.err == nil {
		line, long, err := readLine(r.br, ingest.DefaultMaxLine)
		if err != nil {
			if err != io.EOF {
				r.err = fmt.Errorf("%s:%d: %w", r.name, r.line+1, err)
			}
			return false
		}
		r.line++
		pos := ingest.Pos{File: r.name, Kind: ingest.PosLine, N: r.line}
		if long > 0 {
			r.call = &Call{Pos: pos, Err: ingest.Errorf(pos, "line of %d bytes is longer than %d", long, ingest.DefaultMaxLine)}
			return true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !r.seen {
			r.seen = true
			if what := notAnExport(line); what != "" {
				r.err = fmt.Errorf("%s: not a proxy_calls export: %s; a proxy_calls export (row_to_json, one row per line) needs %s",
					pos, what, strings.Join(required, ", "))
				return false
			}
		}
		r.call = parseJSONRow(pos, line)
		return true
	}
	return false
}

// Call returns the current row.
func (r *JSONLReader) Call() *Call { return r.call }

// Err returns the I/O error that ended the stream, if any.
func (r *JSONLReader) Err() error { return r.err }

// notAnExport says what a first row is when it is a JSON object with none
// of proxy_calls' columns ("a killswitch capture record"), else "". Only
// key names it looks for are named, never the row's values.
func notAnExport(line []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return "" // the row's own error says what is wrong with it
	}
	for _, c := range required {
		if _, ok := m[c]; ok {
			return ""
		}
	}
	_, ts := m["ts"]
	_, req := m["request"]
	_, ev := m["event"]
	if ts && (req || ev) {
		return `its first line is a killswitch capture record ("ts" and "request" or "event": killswitch replay reads it)`
	}
	return fmt.Sprintf("its first line is a JSON object of %d keys, none of them a proxy_calls column", len(m))
}

// readLine returns the next line without its end; a line longer than max
// is read past and its length returned as long.
func readLine(br *bufio.Reader, max int) (line []byte, long int64, err error) {
	for {
		frag, e := br.ReadSlice('\n')
		if long == 0 && len(line)+len(frag) <= max {
			line = append(line, frag...)
		} else {
			if long == 0 {
				long = int64(len(line))
				line = nil
			}
			long += int64(len(frag))
		}
		switch e {
		case nil:
			return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), long, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(line) == 0 && long == 0 {
				return nil, 0, io.EOF
			}
			return line, long, nil
		default:
			return nil, 0, e
		}
	}
}

func parseJSONRow(pos ingest.Pos, line []byte) *Call {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		what := "not a JSON object"
		if err != nil {
			what = "not JSON: " + err.Error()
		}
		return &Call{Pos: pos, Err: ingest.Errorf(pos, "%s", what)}
	}
	if dec.More() {
		return &Call{Pos: pos, Err: ingest.Errorf(pos, "more than one JSON value on the line")}
	}
	return build(pos, func(col string) (value, bool) {
		raw, ok := m[col]
		if !ok {
			return value{}, false
		}
		return jsonValue(raw), true
	})
}

func jsonValue(raw json.RawMessage) value {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return value{null: true}
	}
	switch raw[0] {
	case 'n':
		return value{null: true}
	case 't', 'f':
		return value{isBool: true, b: raw[0] == 't', kind: "a boolean"}
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return value{kind: "a malformed string"}
		}
		return value{isText: true, text: s, kind: "text"}
	case '{':
		return value{raw: append([]byte(nil), raw...), kind: "an object"}
	case '[':
		return value{raw: append([]byte(nil), raw...), kind: "a list"}
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return value{kind: "a malformed number"}
	}
	return value{isNum: true, num: f, kind: "a number"}
}
