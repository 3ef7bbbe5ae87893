package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/killswitch/killswitch/internal/golden"
	"github.com/killswitch/killswitch/internal/testsrv"
	"github.com/killswitch/killswitch/store/postgres"
)

// The gateway policy from the command line, on a capture whose outcomes
// are derived by hand in fixtures/gateway/README.md: golden decision
// records, reports for both profiles, and the PostgreSQL script.
func TestGatewayReplay(t *testing.T) {
	const capture = "fixtures/gateway/m22.jsonl"
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"gateway-m22.jsonl", []string{"replay", "--policy", "gateway", "-f", "jsonl", capture}},
		{"gateway-m22.txt", []string{"replay", "--policy", "gateway", capture}},
		{"gateway-spec.txt", []string{"replay", "--policy", "gateway", "--variant", "spec", capture}},
		{"gateway-spec.md", []string{"replay", "--policy", "gateway", "--variant", "spec", "-f", "markdown", capture}},
		{"gateway-spec.json", []string{"replay", "--policy", "gateway", "--variant", "spec", "-f", "json", capture}},
		{"gateway-m22.csv", []string{"replay", "--policy", "gateway", "-f", "csv", capture}},
	} {
		stdout, stderr, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		golden.Check(t, filepath.Join(goldenDir, c.golden), []byte(stdout))
	}
	// The page's charts are checked against hand-computed positions in
	// report/gateway_export_test.go; here: it is written, with both
	// tenants' lanes (each froze or refused something).
	stdout, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "-f", "html", capture)
	if code != 0 || !strings.Contains(stdout, `<g data-tenant="acme">`) || !strings.Contains(stdout, `<g data-tenant="globex">`) {
		t.Errorf("-f html: exit %d: %s", code, stderr)
	}
	sql := filepath.Join(t.TempDir(), "state.sql")
	if _, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "-f", "jsonl", "--writes", sql, capture); code != 0 {
		t.Fatalf("--writes: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(sql)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(goldenDir, "gateway-m22.sql"), []byte(string(b)))
	for _, args := range [][]string{
		{"replay", "--policy", "gateway", "-f", "xml", capture},
		{"replay", "--policy", "gateway", "--variant", "nope", capture},
		{"replay", "--policy", "gateway", "--writes", "x.jsonl", capture},
		{"replay", "--policy", "gateway", "--apply", "sqlite:x.db", capture},
		{"replay", "--policy", "nope", capture},
	} {
		if _, _, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// replay --policy gateway --apply postgres://… writes the gateway's state
// into a real PostgreSQL server, and applying it again changes nothing.
func TestGatewayApplyPostgres(t *testing.T) {
	dsn := testsrv.Postgres(t)
	for i := 0; i < 2; i++ {
		_, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "-f", "jsonl", "--apply", dsn, "fixtures/gateway/m22.jsonl")
		if code != 0 {
			t.Fatalf("--apply (run %d): exit %d: %s", i+1, code, stderr)
		}
		// On success it says what it applied where.
		if want := " statements to " + postgres.RedactDSN(dsn) + " (one transaction)\n"; !strings.Contains(stderr, "--apply: applied ") || !strings.Contains(stderr, want) {
			t.Errorf("--apply: stderr does not say what was applied where (%q): %q", want, stderr)
		}
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// By hand (fixtures/gateway/README.md): 8 calls, 5 refused; two
	// entities were frozen (tenant acme, then unfrozen; key k3).
	for q, want := range map[string]int{
		"SELECT count(*) FROM proxy_calls":                                   8,
		"SELECT count(*) FROM proxy_calls WHERE was_blocked":                 5,
		"SELECT count(*) FROM proxy_calls WHERE status_code = 423":           2,
		"SELECT count(*) FROM killswitch_state":                              2,
		"SELECT count(*) FROM killswitch_state WHERE is_frozen":              1,
		"SELECT count(*) FROM proxy_calls WHERE block_reason = 'killswitch'": 2,
	} {
		var got int
		if err := conn.QueryRow(ctx, q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
}

// Bodies M22 refuses before deciding (fixtures/gateway/README.md,
// invalid.jsonl): each is reported with its position and the status the
// live gateway answers — on standard error as it is met, and in the
// report — and the control record with an unknown entity is malformed
// (exit 2 under --strict).
func TestGatewayReplayInvalid(t *testing.T) {
	const capture = "fixtures/gateway/invalid.jsonl"
	stdout, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", capture)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.Check(t, filepath.Join(goldenDir, "gateway-invalid.txt"), []byte(stdout))
	for _, w := range []string{
		capture + ":1: warning: the live gateway answers 422: messages[0].content: want a string, got a list\n",
		capture + ":2: warning: the live gateway answers 500: max_tokens is null: M22's cost estimate raises TypeError (None / 1_000_000)\n",
		capture + ":3: warning: the live gateway answers 422: messages: missing\n",
		capture + `:4: "entity": a string of 7 characters is neither "tenant" nor "key"` + "\n",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("no %q in stderr\n%s", w, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "--strict", capture); code != exitUsage ||
		!strings.Contains(stderr, "stopped at the first malformed input item (--strict)") {
		t.Errorf("--strict: exit %d: %s", code, stderr)
	}
}

// Freezing a frozen tenant (409 live) and unfreezing a key never frozen
// (404 live) change nothing and are warnings with their positions on
// standard error, as well as in the report.
func TestGatewayReplayControlWarnings(t *testing.T) {
	capture := filepath.Join(t.TempDir(), "dup.jsonl")
	err := os.WriteFile(capture, []byte(`{"ts":"2026-03-01T10:00:00Z","event":"freeze","entity":"tenant","tenant":"acme","by":"a","reason":"r"}
{"ts":"2026-03-01T10:00:01Z","event":"freeze","entity":"tenant","tenant":"acme","by":"a","reason":"r"}
{"ts":"2026-03-01T10:00:02Z","event":"unfreeze","entity":"key","tenant":"acme","api_key_id":"k9","by":"a","reason":"r"}
{"ts":"2026-03-01T10:00:04Z","agent":"support","tenant":"acme","api_key_id":"k1","request":{"messages":[{"role":"user","content":"hi"}]},"status":200}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", capture)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{
		capture + ":2: warning: tenant acme is already frozen (the live API answers 409); nothing changes\n",
		capture + ":3: warning: key k9 is not frozen (the live API answers 404); nothing changes\n",
	} {
		// The report wraps its lines to 100 columns.
		if !strings.Contains(stderr, w) || !strings.Contains(oneSpaced(stdout), oneSpaced("- "+strings.Replace(w, ": warning", "", 1))) {
			t.Errorf("no %q in stderr and the report\n%s%s", w, stderr, stdout)
		}
	}
	if !strings.Contains(stdout, "1×423") {
		t.Errorf("the tenant stays frozen: want its call refused 423\n%s", stdout)
	}
}
