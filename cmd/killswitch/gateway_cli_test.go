package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/killswitch/killswitch/internal/golden"
	"github.com/killswitch/killswitch/internal/testsrv"
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
		{"gateway-spec.txt", []string{"replay", "--policy", "gateway", "--profile", "spec", capture}},
		{"gateway-spec.md", []string{"replay", "--policy", "gateway", "--profile", "spec", "-f", "markdown", capture}},
	} {
		stdout, stderr, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		golden.Check(t, filepath.Join(goldenDir, c.golden), []byte(stdout))
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
		{"replay", "--policy", "gateway", "-f", "csv", capture},
		{"replay", "--policy", "gateway", "--profile", "nope", capture},
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
		if _, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "-f", "jsonl", "--apply", dsn, "fixtures/gateway/m22.jsonl"); code != 0 {
			t.Fatalf("--apply (run %d): exit %d: %s", i+1, code, stderr)
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
