package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/killswitch/killswitch/internal/testsrv"
)

// #28: a Redis user whose ACL allows only tenant acme's keys. The outage
// capture has scopes of acme and of globex: --apply must write none of
// them, and say which key Redis refused and why (NOPERM), not only
// EXECABORT.
func TestBreakerApplyACLWritesNothing(t *testing.T) {
	sock := testsrv.Redis(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
	defer c.Close()
	if err := c.Do(ctx, "ACL", "SETUSER", "limited", "on", ">pw", "~tenant:acme:*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "-f", "jsonl",
		"--apply", "unix://limited:pw@"+sock, "fixtures/breaker/outage.jsonl")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{"NOPERM", `SET "tenant:globex:`, "nothing written"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, ":pw@") {
		t.Errorf("the password is in the message:\n%s", stderr)
	}
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 0 {
		t.Errorf("%d keys written, want none: %v", len(keys), keys)
	}
}

const storeCall = `{"ts":"2026-03-01T10:00:00Z","agent":"support","tenant":"acme","api_key_id":"k1","request":{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]},"status":200}`

// #28 item 2: a NUL byte in a tenant (a call's, or a freeze's reason)
// cannot be PostgreSQL text: the script and --apply are refused before
// anything is written, naming file:line and the record's field.
func TestGatewayRefusesTextPostgresCannotHold(t *testing.T) {
	dsn := testsrv.Postgres(t)
	ctx := context.Background()
	for _, c := range []struct{ name, line, want string }{
		{"call-tenant", strings.Replace(storeCall, `"acme"`, `"ten\u0000ant"`, 1), `:2: "tenant" holds a NUL byte (at byte 3)`},
		{"freeze-reason", `{"ts":"2026-03-01T10:00:01Z","event":"freeze","entity":"tenant","tenant":"acme","by":"ops","reason":"r\u0000"}`, `:2: "reason" holds a NUL byte (at byte 1)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			capture := writeCapture(t, t.TempDir(), "c.jsonl", []string{storeCall, c.line})
			script := filepath.Join(t.TempDir(), "state.sql")
			_, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "--writes", script, capture)
			if code != exitUsage || !strings.Contains(stderr, capture+c.want) || !strings.Contains(stderr, "nothing written") {
				t.Errorf("--writes: exit %d, stderr %q; want exit 2 and %q", code, stderr, capture+c.want)
			}
			if _, err := os.Stat(script); !os.IsNotExist(err) {
				t.Errorf("--writes left %s (%v)", script, err)
			}
			_, stderr, code = runCLI(t, "", "replay", "--policy", "gateway", "--apply", dsn, capture)
			if code != exitUsage || !strings.Contains(stderr, capture+c.want) {
				t.Errorf("--apply: exit %d, stderr %q; want exit 2 and %q", code, stderr, capture+c.want)
			}
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var table *string
			if err := conn.QueryRow(ctx, "SELECT to_regclass('proxy_calls')::text").Scan(&table); err != nil || table != nil {
				t.Errorf("--apply created proxy_calls (%v)", err)
			}
		})
	}
}

// #28 item 2, Redis: keys are binary-safe, so a NUL in a tenant is kept
// as given, by the script (redis-cli reads \x00) and by --apply alike.
func TestBreakerRedisKeepsNUL(t *testing.T) {
	sock := testsrv.Redis(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
	defer c.Close()
	capture := writeCapture(t, t.TempDir(), "c.jsonl", []string{storeCall, strings.Replace(storeCall, `"acme"`, `"ten\u0000ant"`, 1)})
	script := filepath.Join(t.TempDir(), "state.redis")
	if _, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "--writes", script, capture); code != 0 {
		t.Fatalf("--writes: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(script)
	want := []string{"tenant:acme:stats:support:default:success", "tenant:ten\x00ant:stats:support:default:success"}
	keys := func(how string) {
		t.Helper()
		got, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: keys %q, want %q", how, got, want)
		}
	}
	cli := exec.Command("redis-cli", "-s", sock)
	cli.Stdin = strings.NewReader(string(b))
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("redis-cli < script: %v\n%s", err, out)
	}
	keys("redis-cli < script")
	c.FlushAll(ctx)
	if _, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "--apply", "unix://"+sock, capture); code != 0 {
		t.Fatalf("--apply: exit %d: %s", code, stderr)
	}
	keys("--apply")
}

// #28 item 3: no --apply target echoes a secret, whatever its form and
// whichever policy it is given to.
func TestApplyTargetsNeverEchoSecrets(t *testing.T) {
	gw, br, loop := "fixtures/gateway/m22.jsonl", "fixtures/breaker/outage.jsonl", "fixtures/examples/traffic.jsonl"
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct{ policy, target, capture, shown string }{
		{"gateway", "host=" + missing + " user=u password=hunter2 dbname=ks", gw, "password=xxxxx"},
		{"gateway", "host=" + missing + " password = 'hunter2 \\' x' dbname=ks", gw, ""},
		{"gateway", "postgres://u:hunter2@/ks?host=" + missing, gw, "u:xxxxx@"},
		{"gateway", "postgres://u@/ks?host=" + missing + "&password=hunter2", gw, "password=xxxxx"},
		{"gateway", "redis://u:hunter2@localhost/0", gw, "u:xxxxx@"},
		{"breaker", "unix://" + missing + "?password=hunter2", br, "password=xxxxx"},
		{"breaker", "unix://u:hunter2@" + missing, br, "u:xxxxx@"},
		{"breaker", "redis://:hunter2@" + missing, br, ""},
		{"loop", "host=/tmp user=u password=hunter2", loop, "password=xxxxx"},
		{"loop", "postgres://u:hunter2@h/db?sslpassword=hunter2", loop, "u:xxxxx@"},
		{"loop", "sqlite:" + missing + "/a.db?password=hunter2", loop, "password=xxxxx"},
	} {
		stdout, stderr, code := runCLI(t, "", "replay", "--policy", c.policy, "--apply", c.target, c.capture)
		if code != exitUsage {
			t.Errorf("%s --apply %s: exit %d, want %d: %s", c.policy, c.target, code, exitUsage, stderr)
		}
		if strings.Contains(stdout+stderr, "hunter2") {
			t.Errorf("%s --apply %s: the secret is shown:\n%s", c.policy, c.target, stderr)
		}
		if !strings.Contains(stderr, c.shown) {
			t.Errorf("%s --apply %s: stderr lacks %q:\n%s", c.policy, c.target, c.shown, stderr)
		}
	}
}

// libpq's key=value form is a target --apply takes, as pgx does.
func TestGatewayApplyKeyValueDSN(t *testing.T) {
	u, err := url.Parse(testsrv.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	target := "host=" + u.Query().Get("host") + " user=postgres dbname=postgres sslmode=disable"
	if _, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "--apply", target, "fixtures/gateway/m22.jsonl"); code != 0 {
		t.Fatalf("--apply %s: exit %d: %s", target, code, stderr)
	}
	conn, err := pgx.Connect(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM proxy_calls").Scan(&n); err != nil || n != 8 {
		t.Errorf("proxy_calls: %d rows (%v), want the fixture's 8 calls", n, err)
	}
}

// #28 item 4: two scopes under one Redis key are one breaker in the
// replay as in the --writes state, and the user is told once.
func TestBreakerScopesSharingKeys(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 6; i++ {
		for _, s := range []string{`"agent":"a:b","workflow":"c"`, `"agent":"a","workflow":"b:c"`} {
			lines = append(lines, `{"ts":"2026-03-01T10:00:`+string(rune('0'+i))+`0Z","tenant":"t",`+s+`,"request":{"model":"m","messages":[{"role":"user","content":"x"}]},"status":500}`)
		}
	}
	capture := writeCapture(t, dir, "shared.jsonl", lines)
	script := filepath.Join(dir, "state.redis")
	stdout, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "-f", "csv", "--writes", script, capture)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	note := capture + ":2: scope t/a/b:c has the Redis keys of scope t/a:b/c (tenant:t:stats:a:b:c:*)"
	if strings.Count(stderr, "has the Redis keys of") != 1 || !strings.Contains(stderr, note) {
		t.Errorf("stderr %q, want once %q", stderr, note)
	}
	// By hand: 12 errors alternating; the 11th request sees 10 errors of
	// 10 samples and trips; the 12th is refused. One breaker, one row.
	if rows := strings.Count(stdout, "\n"); rows != 2 || !strings.Contains(stdout, "a:b") {
		t.Errorf("csv: %d lines, want a header and one trip:\n%s", rows, stdout)
	}
	b, _ := os.ReadFile(script)
	if got := strings.Count(string(b), "MULTI"); got != 1 || strings.Count(string(b), "stats:a:b:c:error\" \"10\"") != 1 {
		t.Errorf("state: %d scopes, want one with 10 errors:\n%s", got, b)
	}
}

// #28 item 5: the gateway keys on tenant and API key, so its calls need
// no agent; a typo'd control event is an unknown event that lists
// freeze and unfreeze.
func TestGatewayCallsNeedNoAgent(t *testing.T) {
	dir := t.TempDir()
	call := strings.Replace(storeCall, `"agent":"support",`, "", 1)
	capture := writeCapture(t, dir, "c.jsonl", []string{
		call,
		`{"ts":"2026-03-01T10:00:01Z","event":"freeze","entity":"tenant","tenant":"acme","by":"ops","reason":"r"}`,
		strings.Replace(call, "10:00:00", "10:00:02", 1),
		`{"ts":"2026-03-01T10:00:03Z","event":"freez","entity":"tenant","tenant":"acme"}`,
	})
	stdout, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "-f", "jsonl", capture)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// By hand: the first call is forwarded (200), the freeze refuses the
	// second (423); line 4 is reported, not replayed.
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); len(lines) != 2 || !strings.Contains(lines[0], `"http_status":200`) || !strings.Contains(lines[1], `"http_status":423`) {
		t.Errorf("decisions:\n%s\nwant a 200 and a 423", stdout)
	}
	want := capture + `:4: "event": unknown event: a string of 5 characters is not one of activate, deactivate, config, kill_switch, breaker_open, breaker_close, freeze, unfreeze`
	if !strings.Contains(stderr, want) || strings.Contains(stderr, `"agent"`) {
		t.Errorf("stderr %q, want %q and nothing about an agent", stderr, want)
	}
}

// #28 item 6: the gateway's state is per tenant (and its keys), so a
// record earlier than one already replayed for its tenant is out of
// order even when the agents differ; a record the engine already warned
// about (same agent) is warned about once.
func TestGatewayControlOutOfOrder(t *testing.T) {
	dir := t.TempDir()
	call := func(ts, agent string) string {
		return strings.Replace(strings.Replace(storeCall, "10:00:00", ts, 1), `"support"`, `"`+agent+`"`, 1)
	}
	capture := writeCapture(t, dir, "c.jsonl", []string{
		`{"ts":"2026-03-01T10:00:00Z","event":"freeze","entity":"tenant","tenant":"acme","by":"ops","reason":"r"}`,
		call("09:00:00", "support"), // before the freeze at line 1: out of order for tenant acme
		call("10:00:05", "support"),
		call("10:00:01", "support"), // out of order for agent support too: one warning
		`{"ts":"2026-03-01T10:00:02Z","event":"unfreeze","entity":"tenant","tenant":"acme"}`, // before line 3's call
	})
	_, stderr, code := runCLI(t, "", "replay", "--policy", "gateway", "-f", "jsonl", capture)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		capture + `:2: warning: out of time order: 2026-03-01T09:00:00.000Z is before 2026-03-01T10:00:00.000Z at ` + capture + `:1 (tenant "acme"); replayed in input order`,
		capture + `:4: warning: out of time order: 2026-03-01T10:00:01.000Z is before 2026-03-01T10:00:05.000Z at ` + capture + `:3 (agent "support"); replayed in input order`,
		capture + `:5: warning: out of time order: 2026-03-01T10:00:02.000Z is before 2026-03-01T10:00:05.000Z at ` + capture + `:3 (tenant "acme"); replayed in input order`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks\n%s\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "out of time order"); n != 3 {
		t.Errorf("%d out-of-order warnings, want 3:\n%s", n, stderr)
	}
}
