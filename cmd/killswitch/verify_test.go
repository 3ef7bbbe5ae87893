package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/killswitch/killswitch/internal/golden"
	"github.com/killswitch/killswitch/internal/testsrv"
)

// proxyCallsColumns are the columns a verification reads, as a user's
// export selects them.
const proxyCallsColumns = "created_at, tenant_id, api_key_id, request_json, response_json, status_code, was_blocked, block_reason, policy_decisions_json, input_tokens, output_tokens"

// exportProxyCalls writes proxy_calls as PostgreSQL's COPY writes it: CSV
// with a header, and JSONL (row_to_json, copied as CSV with a quote and a
// delimiter that never occur, so that the JSON is not escaped again).
func exportProxyCalls(t *testing.T, ctx context.Context, conn *pgx.Conn, dir string) (csvPath, jsonlPath string) {
	t.Helper()
	var csvb, jb bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &csvb, "COPY (SELECT "+proxyCallsColumns+" FROM proxy_calls ORDER BY created_at, id) TO STDOUT WITH (FORMAT csv, HEADER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().CopyTo(ctx, &jb, "COPY (SELECT row_to_json(c) FROM (SELECT "+proxyCallsColumns+" FROM proxy_calls ORDER BY created_at, id) c) TO STDOUT WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')"); err != nil {
		t.Fatal(err)
	}
	csvPath, jsonlPath = filepath.Join(dir, "calls.csv"), filepath.Join(dir, "calls.jsonl")
	if err := os.WriteFile(csvPath, csvb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jsonlPath, jb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return csvPath, jsonlPath
}

// TestVerifyRoundTripPostgres: our own --apply output, exported back from
// a real PostgreSQL server as CSV and as JSON, verifies clean under both
// profiles; one tampered row is reported with its position, and
// --fail-on-diff exits 1.
func TestVerifyRoundTripPostgres(t *testing.T) {
	const capture = "fixtures/gateway/m22.jsonl"
	dsn := testsrv.Postgres(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, profile := range []string{"m22", "spec"} {
		t.Run(profile, func(t *testing.T) {
			if _, err := admin.Exec(ctx, "CREATE DATABASE rt_"+profile); err != nil {
				t.Fatal(err)
			}
			db := strings.Replace(dsn, "@/postgres?", "@/rt_"+profile+"?", 1)
			if _, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "--variant", profile, "-f", "jsonl", "--apply", db, capture); code != 0 {
				t.Fatalf("--apply: exit %d: %s", code, stderr)
			}
			conn, err := pgx.Connect(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			dir := t.TempDir()
			csvPath, jsonlPath := exportProxyCalls(t, ctx, conn, dir)
			// json_agg's one array (#28), as psql -At prints it.
			var agg string
			if err := conn.QueryRow(ctx, "SELECT json_agg(c)::text FROM (SELECT "+proxyCallsColumns+" FROM proxy_calls ORDER BY created_at, id) c").Scan(&agg); err != nil {
				t.Fatal(err)
			}
			jsonPath := filepath.Join(dir, "calls.json")
			if err := os.WriteFile(jsonPath, []byte(agg+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, export := range []string{csvPath, jsonlPath, jsonPath} {
				stdout, stderr, code := runCLI(t, "", "verify", "--variant", profile, "--controls", capture, "--fail-on-diff", export)
				if code != 0 || !strings.Contains(stdout, "8 calls, 8 verified, 0 differ, 0 bad rows") {
					t.Errorf("verify %s: exit %d\n%s%s", filepath.Base(export), code, stdout, stderr)
				}
			}
			// Without the freeze records the two 423s cannot be re-derived.
			stdout, _, code := runCLI(t, "", "verify", "--variant", profile, "--fail-on-diff", csvPath)
			// The table wraps its verdicts to 100 columns, where a break
			// falls depending on the temporary directory's name.
			if code != exitFound || !strings.Contains(stdout, "6 verified, 2 differ") || !strings.Contains(oneSpaced(stdout), "give the freeze records with --controls") {
				t.Errorf("verify without --controls: exit %d\n%s", code, stdout)
			}
			// Tamper: the claude-opus call (112.5¢) recorded as forwarded.
			if _, err := conn.Exec(ctx, "UPDATE proxy_calls SET status_code = 200, was_blocked = false, block_reason = NULL, policy_decisions_json = replace(policy_decisions_json, '\"passed\": false', '\"passed\": true') WHERE block_reason = 'max_cost_per_request'"); err != nil {
				t.Fatal(err)
			}
			csvPath, jsonlPath = exportProxyCalls(t, ctx, conn, t.TempDir())
			for _, export := range []string{csvPath, jsonlPath} {
				stdout, stderr, code := runCLI(t, "", "verify", "--variant", profile, "--controls", capture, "--fail-on-diff", export)
				pos := "calls.csv:row 4"
				if strings.HasSuffix(export, ".jsonl") {
					pos = "calls.jsonl:4"
				}
				for _, want := range []string{"8 calls, 7 verified, 1 differ", pos, "recorded 200, replayed 400 max_cost_per_request (cost 112.5255¢, max 100¢)",
					`policy_decisions[2] max_cost_per_request: passed recorded true, replayed false`} {
					// The table wraps its verdicts to 100 columns.
					if !strings.Contains(oneSpaced(stdout), want) {
						t.Errorf("tampered %s: no %q in\n%s", filepath.Base(export), want, stdout)
					}
				}
				if code != exitFound {
					t.Errorf("tampered %s: exit %d, want 1: %s", filepath.Base(export), code, stderr)
				}
			}
		})
	}
}

// TestVerifyFixture: the hand-made export of fixtures/gateway/verify,
// whose verdicts fixtures/gateway/README.md derives by hand: 4 verified,
// 3 differ (a max-cost refusal let through, a list content M22 answers
// 422, a null max_tokens it answers 500), 1 unreadable row.
func TestVerifyFixture(t *testing.T) {
	const dir = "fixtures/gateway/verify/"
	for _, c := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"verify.txt", []string{"verify", "--controls", dir + "controls.jsonl", dir + "proxy_calls.csv"}, 0},
		{"verify.md", []string{"verify", "-f", "markdown", "--controls", dir + "controls.jsonl", dir + "proxy_calls.csv"}, 0},
		{"verify.jsonl", []string{"verify", "-f", "jsonl", "--fail-on-diff", "--controls", dir + "controls.jsonl", dir + "proxy_calls.csv"}, exitFound},
	} {
		stdout, stderr, code := runCLI(t, "", c.args...)
		if code != c.code {
			t.Fatalf("%v: exit %d, want %d: %s", c.args, code, c.code, stderr)
		}
		if !strings.Contains(stderr, "proxy_calls.csv:row 6: status_code: a text of 3 bytes is not a whole number") ||
			!strings.Contains(stderr, "7 calls, 4 verified, 3 differ, 1 bad row") {
			t.Errorf("%v: stderr lacks the bad row or the counts:\n%s", c.args, stderr)
		}
		golden.Check(t, filepath.Join(goldenDir, c.golden), []byte(stdout))
	}
	// --strict: the bad row is unusable input.
	if _, stderr, code := runCLI(t, "", "verify", "--strict", dir+"proxy_calls.csv"); code != exitUsage || !strings.Contains(stderr, "row 6") {
		t.Errorf("--strict: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"verify"},
		{"verify", "-f", "csv", dir + "proxy_calls.csv"},
		{"verify", "--variant", "nope", dir + "proxy_calls.csv"},
		{"verify", "--input-format", "har", dir + "proxy_calls.csv"},
		{"verify", "fixtures/gateway/nope.csv"},
		{"verify", "fixtures/gateway"},
	} {
		if _, _, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
