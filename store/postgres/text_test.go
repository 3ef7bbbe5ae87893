package postgres

import (
	"strings"
	"testing"
)

func TestTextProblem(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"acme", ""},
		{"Ünïcödé 🤖 \uFFFD", ""},
		{"", ""},
		{"ten\x00ant", "holds a NUL byte (at byte 3)"},
		{"a\xffb", "is not UTF-8 (byte 0xff at byte 1)"},
		{"é\xc3", "is not UTF-8 (byte 0xc3 at byte 2)"},
		{"\xed\xa0\x80", "is not UTF-8 (byte 0xed at byte 0)"}, // a lone surrogate in CESU form
	} {
		got := TextProblem(c.in)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("TextProblem(%q) = %q, want prefix %q", c.in, got, c.want)
		}
	}
}

func TestCheckStatements(t *testing.T) {
	ok := Statement{SQL: "INSERT INTO t (a, b) VALUES ($1, $2)", Args: []any{"x", int64(1)}}
	bad := Statement{SQL: "INSERT INTO proxy_calls (id, tenant_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", Args: []any{"id", "a\x00"}}
	odd := Statement{SQL: "UPDATE t SET a = $1", Args: []any{"\xff"}}
	if err := CheckStatements([]Statement{ok}); err != nil {
		t.Errorf("ok: %v", err)
	}
	for _, c := range []struct {
		stmts []Statement
		want  string
	}{
		{[]Statement{ok, bad}, "statement 2: proxy_calls.tenant_id holds a NUL byte (at byte 1)"},
		{[]Statement{odd}, "statement 1: $1 is not UTF-8"},
	} {
		err := CheckStatements(c.stmts)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !strings.HasSuffix(err.Error(), "nothing written") {
			t.Errorf("got %v, want %q… nothing written", err, c.want)
		}
	}
}
