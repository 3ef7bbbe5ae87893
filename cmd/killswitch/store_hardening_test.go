package main

import (
	"context"
	"strings"
	"testing"

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
	for _, want := range []string{"NOPERM", "SET tenant:globex:", "nothing written"} {
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
