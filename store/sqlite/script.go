package sqlite

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/report"
)

// Schema of the tables the writes go to: agents and agent_events exactly as
// SPEC §4.2 gives AgentGazer's, and the replay's alerts table
// (state.TableAlerts). CREATE TABLE IF NOT EXISTS leaves an existing
// AgentGazer database's tables as they are.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS agents (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL UNIQUE,
  name TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  deactivated_by TEXT,
  budget_limit REAL,
  allowed_hours_start INTEGER,
  allowed_hours_end INTEGER,
  kill_switch_enabled INTEGER NOT NULL DEFAULT 0,
  kill_switch_window_size INTEGER NOT NULL DEFAULT 20,
  kill_switch_threshold REAL NOT NULL DEFAULT 10.0,
  created_at TEXT,
  updated_at TEXT
)`,
	`CREATE TABLE IF NOT EXISTS agent_events (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  provider TEXT,
  model TEXT,
  requested_model TEXT,
  tokens_in INTEGER,
  tokens_out INTEGER,
  tokens_total INTEGER,
  cost_usd REAL,
  latency_ms INTEGER,
  ttft_ms INTEGER,
  status_code INTEGER,
  error_message TEXT,
  tags TEXT DEFAULT '{}',
  source TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  trace_id TEXT,
  span_id TEXT,
  parent_span_id TEXT,
  created_at TEXT
)`,
	`CREATE TABLE IF NOT EXISTS alerts (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  rule_type TEXT NOT NULL,
  message TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  body TEXT NOT NULL
)`,
}

// Schema returns the CREATE TABLE IF NOT EXISTS statements of the tables
// state writes go to (without semicolons). The caller owns the slice.
func Schema() []string { return append([]string(nil), schema...) }

const scriptHeader = `-- killswitch state writes (SPEC §4.2), in replay order, times from the capture.
-- Applies to a fresh SQLite database or to an existing AgentGazer database, in one
-- transaction; applying it twice leaves the same state (events and alerts have
-- deterministic ids and are inserted only if absent). Webhook posts are not SQL:
-- the alerts table records them.
`

// Script writes state writes as one SQLite script: a header, BEGIN, the
// schema, one statement per write of StoreSQLite (webhook posts are left
// out: the alerts table holds them), COMMIT at Close. Every value is a
// literal that reads back byte for byte (see AppendValue).
type Script struct {
	w   *bufio.Writer
	buf []byte
}

// NewScript returns a writer to w and buffers the script's preamble.
func NewScript(w io.Writer) *Script {
	s := &Script{w: bufio.NewWriterSize(w, 1<<16)}
	s.w.WriteString(scriptHeader)
	s.w.WriteString("BEGIN;\n")
	for _, stmt := range schema {
		s.w.WriteString(stmt)
		s.w.WriteString(";\n")
	}
	return s
}

// Write appends the statement of one write; webhook posts write nothing.
func (s *Script) Write(wr *state.Write) error {
	if wr.Store != state.StoreSQLite {
		return nil
	}
	var err error
	if s.buf, err = appendStatement(s.buf[:0], wr, AppendValue); err != nil {
		return err
	}
	s.buf = append(s.buf, ";\n"...)
	_, err = s.w.Write(s.buf)
	return err
}

// Close ends the transaction and flushes. It does not close the underlying
// writer.
func (s *Script) Close() error {
	s.w.WriteString("COMMIT;\n")
	return s.w.Flush()
}

// Statement returns the parameterized statement of a StoreSQLite write
// (placeholders ?) and its arguments (nil, int64, float64 or string), for
// database/sql. ok is false for writes that are not SQL (webhook posts).
func Statement(wr *state.Write) (query string, args []any, ok bool, err error) {
	if wr.Store != state.StoreSQLite {
		return "", nil, false, nil
	}
	b, err := appendStatement(nil, wr, func(b []byte, v state.Value) []byte {
		switch v.Kind {
		case state.KindInt:
			args = append(args, v.Int)
		case state.KindReal:
			args = append(args, v.Real)
		case state.KindText:
			args = append(args, v.Text)
		default:
			args = append(args, nil)
		}
		return append(b, '?')
	})
	if err != nil {
		return "", nil, false, err
	}
	return string(b), args, true, nil
}

// appendStatement appends the SQL statement of wr, each value appended by
// val: INSERT OR IGNORE INTO t (cols) VALUES (vals), or UPDATE t SET c = v,
// … WHERE k = v AND ….
func appendStatement(b []byte, wr *state.Write, val func([]byte, state.Value) []byte) ([]byte, error) {
	if err := checkIdent(wr.Table); err != nil {
		return b, err
	}
	for _, c := range wr.Values {
		if err := checkIdent(c.Name); err != nil {
			return b, err
		}
	}
	for _, c := range wr.Key {
		if err := checkIdent(c.Name); err != nil {
			return b, err
		}
	}
	if len(wr.Values) == 0 {
		return b, fmt.Errorf("%s of table %s sets no columns", wr.Op, wr.Table)
	}
	switch wr.Op {
	case state.OpInsert:
		b = append(b, "INSERT OR IGNORE INTO "...)
		b = append(b, wr.Table...)
		b = append(b, " ("...)
		for i, c := range wr.Values {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, c.Name...)
		}
		b = append(b, ") VALUES ("...)
		for i, c := range wr.Values {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = val(b, c.Value)
		}
		return append(b, ')'), nil
	case state.OpUpdate:
		if len(wr.Key) == 0 {
			return b, fmt.Errorf("update of table %s has no key", wr.Table)
		}
		b = append(b, "UPDATE "...)
		b = append(b, wr.Table...)
		b = append(b, " SET "...)
		for i, c := range wr.Values {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, c.Name...)
			b = append(b, " = "...)
			b = val(b, c.Value)
		}
		b = append(b, " WHERE "...)
		for i, c := range wr.Key {
			if i > 0 {
				b = append(b, " AND "...)
			}
			b = append(b, c.Name...)
			b = append(b, " = "...)
			b = val(b, c.Value)
		}
		return b, nil
	}
	return b, fmt.Errorf("operation %s is not SQL", wr.Op)
}

// checkIdent accepts the plain lower-case identifiers writes use, so that
// a table or column name never needs quoting.
func checkIdent(s string) error {
	if s == "" {
		return fmt.Errorf("empty SQL identifier")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return fmt.Errorf("SQL identifier %q is not [a-z_][a-z0-9_]*", s)
	}
	return nil
}

// AppendValue appends v as a SQLite literal: NULL, an integer, a real
// (see report.AppendReal), or text (see AppendText).
func AppendValue(b []byte, v state.Value) []byte {
	switch v.Kind {
	case state.KindInt:
		return strconv.AppendInt(b, v.Int, 10)
	case state.KindReal:
		r := report.AppendReal(nil, v.Real)
		if string(r) == "null" {
			return append(b, "NULL"...)
		}
		return append(b, r...)
	case state.KindText:
		return AppendText(b, v.Text)
	}
	return append(b, "NULL"...)
}

// AppendText appends s as a SQLite text expression that evaluates to
// exactly the bytes of s: printable UTF-8 between single quotes (quotes
// doubled), control bytes (NUL, newlines, DEL…) as char(N, …), bytes that
// are not UTF-8 as CAST(X'…' AS TEXT), the pieces joined with || inside
// parentheses. The script therefore holds no NUL byte, no line break inside
// a literal and nothing a string could end early with.
func AppendText(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	if s == "" {
		return append(b, "''"...)
	}
	start := len(b)
	pieces := 0
	piece := func() {
		if pieces > 0 {
			b = append(b, "||"...)
		}
		pieces++
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch r, size := utf8.DecodeRuneInString(s[i:]); {
		case c < 0x20 || c == 0x7f:
			piece()
			b = append(b, "char("...)
			for first := i; i < len(s) && (s[i] < 0x20 || s[i] == 0x7f); i++ {
				if i > first {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(s[i]), 10)
			}
			b = append(b, ')')
		case r == utf8.RuneError && size == 1:
			piece()
			b = append(b, "CAST(X'"...)
			for i < len(s) {
				if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
					break
				}
				b = append(b, hex[s[i]>>4], hex[s[i]&0xf])
				i++
			}
			b = append(b, "' AS TEXT)"...)
		default:
			piece()
			b = append(b, '\'')
			for i < len(s) {
				c := s[i]
				if c < 0x20 || c == 0x7f {
					break
				}
				r, size := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && size == 1 {
					break
				}
				if c == '\'' {
					b = append(b, '\'')
				}
				b = append(b, s[i:i+size]...)
				i += size
			}
			b = append(b, '\'')
		}
	}
	if pieces > 1 {
		b = append(b[:start], append([]byte{'('}, b[start:]...)...)
		b = append(b, ')')
	}
	return b
}
