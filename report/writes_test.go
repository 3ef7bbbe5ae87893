package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/analyze/state"
	"github.com/killswitch/killswitch/analyze/state/statetest"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/golden"
)

func render(t *testing.T, ws []state.Write) []byte {
	var jb bytes.Buffer
	j := NewWritesJSONL(&jb)
	for i := range ws {
		if err := j.Write(&ws[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	return jb.Bytes()
}

func TestWritesGolden(t *testing.T) {
	jsonl := render(t, statetest.Writes(t))
	golden.Check(t, "testdata/writes.jsonl", jsonl)

	// Every JSONL line is a JSON object whose values re-read as written.
	lines := strings.Split(strings.TrimSuffix(string(jsonl), "\n"), "\n")
	ws := statetest.Writes(t)
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
	ws := statetest.Writes(b)
	var buf bytes.Buffer
	n := 0
	for i := 0; i < b.N; i++ {
		buf.Reset()
		j := NewWritesJSONL(&buf)
		for k := range ws {
			j.Write(&ws[k])
		}
		j.Flush()
		n = buf.Len()
	}
	b.SetBytes(int64(n))
	b.ReportMetric(float64(len(ws))*float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}
