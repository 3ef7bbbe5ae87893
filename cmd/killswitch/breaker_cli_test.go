package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/killswitch/killswitch/internal/golden"
	"github.com/killswitch/killswitch/internal/testsrv"
)

// The breaker from the command line on a capture whose outcomes are
// derived by hand in fixtures/breaker/README.md.
func TestBreakerReplay(t *testing.T) {
	const capture = "fixtures/breaker/outage.jsonl"
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"breaker-outage.jsonl", []string{"replay", "--policy", "breaker", "-f", "jsonl", capture}},
		{"breaker-outage.txt", []string{"replay", "--policy", "breaker", capture}},
		{"breaker-outage.json", []string{"replay", "--policy", "breaker", "-f", "json", capture}},
		{"breaker-outage.csv", []string{"replay", "--policy", "breaker", "-f", "csv", capture}},
		{"breaker-outage-sliding.md", []string{"replay", "--policy", "breaker", "--counter-ttl", "sliding", "-f", "markdown", capture}},
		{"breaker-drip-refresh.txt", []string{"replay", "--policy", "breaker", "fixtures/breaker/slow-drip.jsonl"}},
		{"breaker-drip-sliding.txt", []string{"replay", "--policy", "breaker", "--counter-ttl", "sliding", "fixtures/breaker/slow-drip.jsonl"}},
		{"breaker-drip-fixed.txt", []string{"replay", "--policy", "breaker", "--counter-ttl", "fixed", "fixtures/breaker/slow-drip.jsonl"}},
		{"breaker-manual.txt", []string{"replay", "--policy", "breaker", "fixtures/breaker/manual.jsonl"}},
	} {
		stdout, stderr, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		golden.Check(t, filepath.Join(goldenDir, c.golden), []byte(stdout))
	}
	// The command log: one INCR per counted outcome (135 requests − 25
	// refused = 110), each followed by an EXPIRE (refresh), and one SET …
	// EX 1800 per trip (4).
	cmds := filepath.Join(t.TempDir(), "cmds.jsonl")
	if _, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "-f", "jsonl", "--writes", cmds, capture); code != 0 {
		t.Fatalf("--writes .jsonl: exit %d: %s", code, stderr)
	}
	log, _ := os.ReadFile(cmds)
	if n, m, k := strings.Count(string(log), `"cmd":"INCR"`), strings.Count(string(log), `"cmd":"EXPIRE"`), strings.Count(string(log), `"cmd":"SET"`); n != 110 || m != 110 || k != 4 {
		t.Errorf("command log: %d INCR, %d EXPIRE, %d SET; want 110, 110, 4", n, m, k)
	}
	golden.Check(t, filepath.Join(goldenDir, "breaker-outage-cmds.jsonl"), []byte(string(log)))
	if _, _, code := runCLI(t, "", "replay", "--policy", "breaker", "--fail-on-kill", capture); code != exitFound {
		t.Errorf("--fail-on-kill: exit %d, want 1", code)
	}
	for _, args := range [][]string{
		{"replay", "--policy", "breaker", "--error-rate", "0", capture},
		{"replay", "--policy", "breaker", "--error-rate", "1.5", capture},
		{"replay", "--policy", "breaker", "--min-samples", "0", capture},
		{"replay", "--policy", "breaker", "--error-window", "-5m", capture},
		{"replay", "--policy", "breaker", "--counter-ttl", "forever", capture},
		{"replay", "--policy", "breaker", "--error-status", "teapot", capture},
		{"replay", "--policy", "breaker", "-f", "sql", capture},
	} {
		if _, _, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// The breaker's end-of-capture Redis state, as a redis-cli script and
// through --apply, loaded into a real redis-server and read back: every
// key with its value and TTL, derived by hand in fixtures/breaker/README.md.
func TestBreakerRedis(t *testing.T) {
	sock := testsrv.Redis(t)
	const capture = "fixtures/breaker/outage.jsonl"
	script := filepath.Join(t.TempDir(), "state.redis")
	if _, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "-f", "jsonl", "--writes", script, capture); code != 0 {
		t.Fatalf("--writes: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(script)
	golden.Check(t, filepath.Join(goldenDir, "breaker-outage.redis"), []byte(string(b)))
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
	defer c.Close()
	// The capture ends at 09:04:51 (acme/billing's last call).
	// acme/billing/refund: open until 09:33:20 → 1709 s; 10 successes
	// (last counted at 09:01:30, refreshed TTL 5 min → 09:06:30: 99 s), 10
	// errors (last counted at 09:03:10 → 09:08:10: 199 s; the refused ones
	// are not counted). globex/*: open until 09:33:22 (1711 s); successes
	// last at 09:01:32 (101 s), errors at 09:03:12 (201 s).
	// acme/billing/default: 30 successes, last at 09:04:51 → 300 s.
	want := map[string][2]int64{
		"tenant:acme:killswitch:billing:refund:active":       {1, 1709},
		"tenant:acme:stats:billing:refund:error":             {10, 199},
		"tenant:acme:stats:billing:refund:success":           {10, 99},
		"tenant:globex:stats:crawler:default:success":        {10, 101},
		"tenant:globex:stats:summarizer:default:success":     {10, 101},
		"tenant:globex:stats:tagger:default:success":         {10, 101},
		"tenant:acme:stats:billing:default:success":          {30, 300},
		"tenant:globex:killswitch:crawler:default:active":    {1, 1711},
		"tenant:globex:stats:crawler:default:error":          {10, 201},
		"tenant:globex:killswitch:summarizer:default:active": {1, 1711},
		"tenant:globex:stats:summarizer:default:error":       {10, 201},
		"tenant:globex:killswitch:tagger:default:active":     {1, 1711},
		"tenant:globex:stats:tagger:default:error":           {10, 201},
	}
	check := func(how string) {
		t.Helper()
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != len(want) {
			t.Errorf("%s: %d keys, want %d: %v", how, len(keys), len(want), keys)
		}
		for k, w := range want {
			v, err := c.Get(ctx, k).Int64()
			ttl := c.TTL(ctx, k).Val()
			// A TTL counts down while the test runs: allow 5 s.
			if err != nil || v != w[0] || ttl > time.Duration(w[1])*time.Second || ttl < time.Duration(w[1]-5)*time.Second {
				t.Errorf("%s: %s = %d (%v), TTL %v; want %d, TTL %d s", how, k, v, err, ttl, w[0], w[1])
			}
		}
	}
	cli := exec.Command("redis-cli", "-s", sock)
	cli.Stdin = strings.NewReader(string(b))
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("redis-cli < script: %v\n%s", err, out)
	}
	check("redis-cli < script")
	c.FlushAll(ctx)
	for i := 0; i < 2; i++ {
		_, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "-f", "jsonl", "--apply", "unix://"+sock, capture)
		if code != 0 {
			t.Fatalf("--apply: exit %d: %s", code, stderr)
		}
		// On success it says what it wrote where.
		if !regexp.MustCompile(`(?m)^--apply: wrote [0-9]+ keys of [0-9]+ scopes to unix://` + regexp.QuoteMeta(sock) + ` \(one transaction per scope\)$`).MatchString(stderr) {
			t.Errorf("--apply: stderr does not say what was written where: %q", stderr)
		}
	}
	check("--apply (twice)")
	// A server that does not answer: exit 2, nothing written.
	_, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "-f", "jsonl", "--apply", "unix://"+sock+".missing", capture)
	if code != exitUsage || !strings.Contains(stderr, "nothing written") {
		t.Errorf("unreachable server: exit %d, %q", code, stderr)
	}
}

// sweep --policy breaker on the outage fixture: at rate 0.5 every failing
// scope trips at its 21st request (inside its labelled failure episode:
// 4 trips in incidents, none outside, 3 of them correlated); at 0.7 none
// ever does ((r−11)/(r−1) ≥ 0.7 needs r ≥ 35, and no scope has 35
// requests). Ties go to fewer refusals, then the higher min_samples.
func TestBreakerSweep(t *testing.T) {
	args := []string{"sweep", "--policy", "breaker", "--error-rates", "0.5,0.7", "--min-samples", "10,20", "--error-windows", "5m", "fixtures/breaker/outage.jsonl"}
	stdout, stderr, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.Check(t, filepath.Join(goldenDir, "breaker-sweep.txt"), []byte(stdout))
	stdout, _, _ = runCLI(t, "", append(args, "-f", "json")...)
	golden.Check(t, filepath.Join(goldenDir, "breaker-sweep.json"), []byte(stdout))
	stdout, _, _ = runCLI(t, "", append(args, "-f", "csv")...)
	golden.Check(t, filepath.Join(goldenDir, "breaker-sweep.csv"), []byte(stdout))
	stdout, _, _ = runCLI(t, "", append(args, "-f", "markdown")...)
	golden.Check(t, filepath.Join(goldenDir, "breaker-sweep.md"), []byte(stdout))
	stdout, _, _ = runCLI(t, "", append(args, "-f", "html")...)
	// The header row and three settings are plain rows; the fourth is the
	// recommended one.
	if strings.Count(stdout, `<tr class="recommended">`) != 1 || strings.Count(stdout, "<tr>") != 4 {
		t.Errorf("html: want 4 setting rows, one recommended:\n%s", stdout)
	}
}

// Settings file key "breaker" and per-agent overrides, derived by hand on
// the outage fixture: min_samples 25 lets only acme's refund workflow (30
// requests) trip, at request 26 (15 errors of 25: 60 %); the globex agents
// have 25 requests and never reach 25 samples before one. Disabling the
// crawler's breaker leaves 3 trips.
func TestBreakerSettingsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	const capture = "fixtures/breaker/outage.jsonl"
	for _, c := range []struct {
		settings string
		trips    string
	}{
		{`{"breaker": {"min_samples": 25}}`, "1 trip,"},
		{`{"default": {"threshold": 12}, "agents": {"crawler": {"breaker": {"enabled": false}}}}`, "3 trips"},
	} {
		stdout, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "--settings", write("s.json", c.settings), capture)
		if code != 0 || !strings.Contains(stdout, c.trips) {
			t.Errorf("%s: exit %d, %s\n%s", c.settings, code, stderr, stdout)
		}
	}
	for _, bad := range []string{`{"breaker": {"min_sample": 25}}`, `{"breaker": {"kill_on_error_rate": 2}}`, `{"brake": {}}`} {
		if _, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "--settings", write("bad.json", bad), capture); code != exitUsage {
			t.Errorf("%s: exit %d, %q", bad, code, stderr)
		}
	} // #28: a number out of range says the range and what was given.
	_, stderr, code := runCLI(t, "", "replay", "--policy", "breaker", "--settings", write("big.json", `{"breaker": {"error_window_minutes": 1e300}}`), capture)
	if want := "big.json:1:38: breaker.error_window_minutes: want minutes above 0, at most 1e9, got 1e+300"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("error_window_minutes 1e300: exit %d, %q, want %q", code, stderr, want)
	}
}

// TestBreakerCheckScopes: per-scope expectations fail with the scope's
// position, --update rewrites them (and writes no loop settings for the
// breaker), and scopes without the breaker policy are refused.
func TestBreakerCheckScopes(t *testing.T) {
	dir := t.TempDir()
	capture, err := os.ReadFile("fixtures/breaker/outage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	exp, err := os.ReadFile("fixtures/breaker/outage.expect.json")
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Replace(string(exp), `"acme/billing/refund": {"tripped": true, "at_request": 21`, `"acme/billing/refund": {"tripped": true, "at_request": 25`, 1)
	if wrong == string(exp) {
		t.Fatal("fixture changed: no acme/billing/refund scope at request 21")
	}
	os.WriteFile(filepath.Join(dir, "outage.jsonl"), capture, 0o644)
	ef := filepath.Join(dir, "outage.expect.json")
	os.WriteFile(ef, []byte(wrong), 0o644)
	out, _, code := runCLI(t, "", "check", dir)
	if code != 1 || !strings.Contains(out, "outage.expect.json:8: scopes.acme/billing/refund: tripped at request 21, expected 25") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, errs, code := runCLI(t, "", "check", "--update", dir); code != 0 {
		t.Fatalf("--update: exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(ef)
	if strings.Contains(string(got), "profile") || !strings.Contains(string(got), `"at_request": 21`) {
		t.Errorf("--update wrote:\n%s", got)
	}
	if out, _, code := runCLI(t, "", "check", dir); code != 0 {
		t.Errorf("after --update: exit %d:\n%s", code, out)
	}

	os.WriteFile(ef, []byte(`{"scopes": {"acme/billing/refund": {"tripped": true}}}`), 0o644)
	if out, _, code := runCLI(t, "", "check", dir); code != 2 || !strings.Contains(out, `"scopes" is the breaker's: it needs "settings": {"policy": "breaker"}`) {
		t.Errorf("scopes without the breaker: exit %d:\n%s", code, out)
	}
}

// check's loop-detector overrides (--window, --threshold, --mode, and
// --profile for the breaker) make a breaker or gateway expectation
// unusable with a message, instead of being listed as overrides and
// ignored.
func TestCheckLoopOverridesRefusedForPolicies(t *testing.T) {
	for _, c := range []struct {
		file string
		args []string
		want string
	}{
		{"fixtures/breaker/outage.expect.json", []string{"--window", "5"}, "--window is a loop detector setting: this file replays the breaker"},
		{"fixtures/breaker/outage.expect.json", []string{"--profile", "progress"}, "--profile progress is a loop detector setting: this file replays the breaker"},
		{"fixtures/gateway/m22.expect.json", []string{"--threshold", "3"}, "--threshold is a loop detector setting: this file replays the gateway"},
		{"fixtures/gateway/m22.expect.json", []string{"--mode", "block"}, "--mode is a loop detector setting: this file replays the gateway"},
	} {
		stdout, stderr, code := runCLI(t, "", append(append([]string{"check"}, c.args...), c.file)...)
		if code != exitUsage || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("check %v %s: exit %d, want 2 and %q:\n%s%s", c.args, c.file, code, c.want, stdout, stderr)
		}
	}
}
