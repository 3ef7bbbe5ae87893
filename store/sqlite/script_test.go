package sqlite

import (
	"bytes"
	"testing"

	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/analyze/state/statetest"
	"github.com/killswitch/killswitch/internal/golden"
)

// TestScriptGolden: the script of the hand-made replay (statetest.Writes)
// is the reviewed golden file, and holds no NUL byte.
func TestScriptGolden(t *testing.T) {
	var b bytes.Buffer
	s := NewScript(&b)
	ws := statetest.Writes(t)
	for i := range ws {
		if err := s.Write(&ws[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/writes.sql", b.Bytes())
	if bytes.IndexByte(b.Bytes(), 0) >= 0 {
		t.Error("the SQL script holds a NUL byte")
	}
}

func TestAppendSQLText(t *testing.T) {
	// Expected literals written by hand from SQLite's rules: '' inside a
	// quoted string is one quote; char(N) is the code point N; X'..' is a
	// blob, CAST to TEXT keeps its bytes.
	tests := []struct{ in, want string }{
		{"", "''"},
		{"plain", "'plain'"},
		{"o'brien", "'o''brien'"},
		{`back\slash`, `'back\slash'`},
		{"a\x00b", "('a'||char(0)||'b')"},
		{"\n\r", "char(10,13)"},
		{"x\x7f", "('x'||char(127))"},
		{"\xff\xfeok", "(CAST(X'FFFE' AS TEXT)||'ok')"},
		{"é\u2028", "'é\u2028'"},
		{"; DROP TABLE agents; --", "'; DROP TABLE agents; --'"},
	}
	for _, tt := range tests {
		if got := string(AppendText(nil, tt.in)); got != tt.want {
			t.Errorf("AppendText(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSQLStatement(t *testing.T) {
	ws := statetest.Writes(t)
	q, args, ok, err := Statement(&ws[1]) // the config update
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	wantQ := "UPDATE agents SET kill_switch_enabled = ?, kill_switch_window_size = ?, kill_switch_threshold = ?, updated_at = ? WHERE agent_id = ?"
	if q != wantQ || len(args) != 5 || args[2] != 12.0 || args[4] != "support-bot" {
		t.Errorf("Statement = %q %v", q, args)
	}
	for i := range ws {
		if ws[i].Store == state.StoreWebhook {
			if _, _, ok, _ := Statement(&ws[i]); ok {
				t.Error("a webhook post rendered as SQL")
			}
		}
	}
	bad := state.Write{Store: state.StoreSQLite, Op: state.OpInsert, Table: "agents; DROP", Values: ws[0].Values}
	if _, _, _, err := Statement(&bad); err == nil {
		t.Error("a table name that needs quoting was accepted")
	}
}

func BenchmarkScript(b *testing.B) {
	ws := statetest.Writes(b)
	var buf bytes.Buffer
	n := 0
	for i := 0; i < b.N; i++ {
		buf.Reset()
		s := NewScript(&buf)
		for k := range ws {
			s.Write(&ws[k])
		}
		s.Close()
		n = buf.Len()
	}
	b.SetBytes(int64(n))
	b.ReportMetric(float64(len(ws))*float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}
