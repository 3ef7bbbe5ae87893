package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/golden"
)

// oddAgent holds every byte class the SQL rendering must keep: a quote, a
// backslash, NUL, a newline, a statement terminator with a comment, a
// non-ASCII letter and a byte that is not UTF-8.
const oddAgent = "o'brien\\\x00\n; DROP TABLE agents; --é\xff"

// sampleWrites is a small hand-made replay: support-bot is configured,
// forwarded once, killed (deactivate mode), refused once, re-activated by an
// operator, deactivated by hand and refused again; oddAgent is killed and
// re-activated by --reactivate-after.
func sampleWrites(t testing.TB) []state.Write {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	pos := func(n int64) ingest.Pos { return ingest.Pos{File: "captures/day1.jsonl", N: n} }
	cfg := analyze.NewConfig()
	var out []state.Write
	sw := state.NewLoopWriter(cfg, func(w *state.Write) error { out = append(out, *w); return nil })
	h := sw.Hooks(analyze.Hooks{})
	bot := analyze.Settings{Enabled: true, WindowSize: 5, Threshold: 12}
	steps := []any{
		&analyze.Transition{Kind: analyze.TransitionConfig, TS: at(0), Agent: "support-bot", Settings: bot, Source: pos(1)},
		&analyze.Decision{Seq: 1, AgentN: 1, TS: at(1), Agent: "support-bot", Source: pos(2), Threshold: 12, Window: 5, Action: analyze.ActionForward},
		&analyze.Transition{Kind: analyze.TransitionKill, TS: at(2), Agent: "support-bot", By: "kill_switch", Seq: 2, Settings: bot, Source: pos(3)},
		&analyze.Decision{Seq: 2, AgentN: 2, TS: at(2), Agent: "support-bot", Source: pos(3), Threshold: 12, Window: 5,
			Counts: analyze.Counts{SimilarPrompts: 4, SimilarResponses: 3, RepeatedToolCalls: 2}, Score: 13, Action: analyze.ActionKill, Status: 403},
		&analyze.Decision{Seq: 3, AgentN: 3, TS: at(3), Agent: "support-bot", Source: pos(4), Threshold: 12, Window: 5, Action: analyze.ActionBlocked, Status: 403},
		&analyze.Transition{Kind: analyze.TransitionActivate, TS: at(4), Agent: "support-bot", By: "operator", Settings: bot, Source: pos(5)},
		&analyze.Transition{Kind: analyze.TransitionDeactivate, TS: at(5), Agent: "support-bot", By: "manual", Settings: bot, Source: pos(6)},
		&analyze.Decision{Seq: 4, AgentN: 4, TS: at(6), Agent: "support-bot", Source: pos(7), Threshold: 12, Window: 5, Action: analyze.ActionBlocked, Status: 403},
		&analyze.Decision{Seq: 5, AgentN: 1, TS: at(7).Add(250 * time.Millisecond), Agent: oddAgent, Source: pos(8), Threshold: 10, Window: 20,
			Counts: analyze.Counts{SimilarPrompts: 5, SimilarResponses: 2, RepeatedToolCalls: 1}, Score: 10.5, Action: analyze.ActionKill, Status: 403},
		&analyze.Transition{Kind: analyze.TransitionActivate, TS: at(67).Add(250 * time.Millisecond), Agent: oddAgent, By: "reactivate-after", Settings: cfg.Default},
	}
	for _, s := range steps {
		var err error
		switch s := s.(type) {
		case *analyze.Decision:
			err = h.Decision(s)
		case *analyze.Transition:
			err = h.Transition(s)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func render(t *testing.T, ws []state.Write) (jsonl, sql []byte) {
	var jb, sb bytes.Buffer
	j, s := NewWritesJSONL(&jb), NewWritesSQL(&sb)
	for i := range ws {
		if err := j.Write(&ws[i]); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(&ws[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return jb.Bytes(), sb.Bytes()
}

func TestWritesGolden(t *testing.T) {
	jsonl, sql := render(t, sampleWrites(t))
	golden.Check(t, "testdata/writes.jsonl", jsonl)
	golden.Check(t, "testdata/writes.sql", sql)

	// Every JSONL line is a JSON object whose values re-read as written.
	lines := strings.Split(strings.TrimSuffix(string(jsonl), "\n"), "\n")
	ws := sampleWrites(t)
	if len(lines) != len(ws) {
		t.Fatalf("%d lines for %d writes", len(lines), len(ws))
	}
	for i, line := range lines {
		var obj struct {
			TS     string         `json:"ts"`
			Store  string         `json:"store"`
			Values map[string]any `json:"values"`
		}
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if obj.TS != ingest.FormatTime(ws[i].TS) || obj.Store != ws[i].Store.String() || len(obj.Values) != len(ws[i].Values) {
			t.Errorf("line %d does not match its write: %s", i+1, line)
		}
	}
	if bytes.IndexByte(sql, 0) >= 0 {
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
		if got := string(AppendSQLText(nil, tt.in)); got != tt.want {
			t.Errorf("AppendSQLText(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSQLStatement(t *testing.T) {
	ws := sampleWrites(t)
	q, args, ok, err := SQLStatement(&ws[1]) // the config update
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	wantQ := "UPDATE agents SET kill_switch_enabled = ?, kill_switch_window_size = ?, kill_switch_threshold = ?, updated_at = ? WHERE agent_id = ?"
	if q != wantQ || len(args) != 5 || args[2] != 12.0 || args[4] != "support-bot" {
		t.Errorf("SQLStatement = %q %v", q, args)
	}
	for i := range ws {
		if ws[i].Store == state.StoreWebhook {
			if _, _, ok, _ := SQLStatement(&ws[i]); ok {
				t.Error("a webhook post rendered as SQL")
			}
		}
	}
	bad := state.Write{Store: state.StoreSQLite, Op: state.OpInsert, Table: "agents; DROP", Values: ws[0].Values}
	if _, _, _, err := SQLStatement(&bad); err == nil {
		t.Error("a table name that needs quoting was accepted")
	}
}

func TestWritesFormat(t *testing.T) {
	for _, tt := range []struct{ path, want string }{{"a.jsonl", "jsonl"}, {"dir/a.sql", "sql"}, {"a.json", ""}} {
		got, err := WritesFormat(tt.path)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("WritesFormat(%q) = %q, %v", tt.path, got, err)
		}
	}
}

// BenchmarkWritesRender renders the sample writes as JSONL and as SQL;
// MB/s counts the bytes written.
func BenchmarkWritesRender(b *testing.B) {
	ws := sampleWrites(b)
	for _, format := range []string{"jsonl", "sql"} {
		b.Run(format, func(b *testing.B) {
			var buf bytes.Buffer
			n := 0
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if format == "jsonl" {
					j := NewWritesJSONL(&buf)
					for k := range ws {
						j.Write(&ws[k])
					}
					j.Flush()
				} else {
					s := NewWritesSQL(&buf)
					for k := range ws {
						s.Write(&ws[k])
					}
					s.Close()
				}
				n = buf.Len()
			}
			b.SetBytes(int64(n))
			b.ReportMetric(float64(len(ws))*float64(b.N)/b.Elapsed().Seconds(), "writes/s")
		})
	}
}
