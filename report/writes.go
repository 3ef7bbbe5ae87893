package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/ingest"
)

// State writes (state.Write) rendered as JSONL. The SQLite script and
// statements are store/sqlite's.

// WritesJSONL writes one JSON object per state write:
//
//	{"ts": capture time, "store": "sqlite"|"webhook", "op": "insert"|"update"|"post",
//	 "table": name (sqlite only), "key": {column: value} (updates only),
//	 "values": {column: value, …} in the table's column order,
//	 "source": "file:line" or null}
//
// Values are JSON strings, integers, reals (always with a fraction or an
// exponent, so they read back as reals) or null. Text that is not UTF-8
// cannot be JSON: its invalid bytes become U+FFFD here (the SQL renderings
// keep every byte).
type WritesJSONL = JSONLWriter[*state.Write]

// NewWritesJSONL returns a writer to w. Call Flush at the end.
func NewWritesJSONL(w io.Writer) *WritesJSONL { return NewJSONLWriter(w, AppendWriteJSON) }

// AppendWriteJSON appends wr as the JSON object WritesJSONL describes.
func AppendWriteJSON(b []byte, wr *state.Write) []byte {
	b = append(b, `{"ts":"`...)
	b = ingest.AppendTime(b, wr.TS)
	b = append(b, `","store":`...)
	b = AppendString(b, wr.Store.String())
	b = append(b, `,"op":`...)
	b = AppendString(b, wr.Op.String())
	if wr.Store == state.StoreSQLite {
		b = append(b, `,"table":`...)
		b = AppendString(b, wr.Table)
	}
	if wr.Op == state.OpUpdate {
		b = append(b, `,"key":`...)
		b = appendColumnsJSON(b, wr.Key)
	}
	b = append(b, `,"values":`...)
	b = appendColumnsJSON(b, wr.Values)
	b = append(b, `,"source":`...)
	if wr.Source.File == "" {
		b = append(b, "null"...)
	} else {
		b = AppendString(b, wr.Source.String())
	}
	return append(b, '}')
}

func appendColumnsJSON(b []byte, cols []state.Column) []byte {
	b = append(b, '{')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, c.Name)
		b = append(b, ':')
		switch v := c.Value; v.Kind {
		case state.KindNull:
			b = append(b, "null"...)
		case state.KindInt:
			b = strconv.AppendInt(b, v.Int, 10)
		case state.KindReal:
			b = AppendReal(b, v.Real)
		case state.KindText:
			b = AppendString(b, v.Text)
		}
	}
	return append(b, '}')
}

// AppendReal appends f so that both JSON and SQL read it back as the same
// real: the shortest round-tripping form, with ".0" added to integers.
// Non-finite values (never written: settings are validated) become NULL in
// SQL terms and null in JSON.
func AppendReal(b []byte, f float64) []byte {
	if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		return append(b, "null"...)
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[n:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

// WritesFormat returns the rendering a --writes path asks for by its
// extension: FormatJSONL (.jsonl) or "sql" (.sql).
func WritesFormat(path string) (string, error) {
	switch {
	case strings.HasSuffix(path, ".jsonl"):
		return FormatJSONL, nil
	case strings.HasSuffix(path, ".sql"):
		return FormatSQL, nil
	}
	return "", fmt.Errorf("--writes %s: want FILE.sql (the SQLite state script, for sqlite3 < FILE), - (the same on standard output) or FILE.jsonl (every state write, at its capture time)", path)
}

// FormatSQL names the SQLite script rendering of state writes.
const FormatSQL = "sql"
