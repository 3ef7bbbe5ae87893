// Package redis is the Redis store of the error-rate breaker's state (its
// counters and open flags per scope): Apply sets them on a server, one
// MULTI/EXEC per scope. The script form (--writes FILE.redis) is rendered
// by WriteScript from the same keys.
package redis

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Apply writes the breaker's end-of-capture state to the Redis server
// at target (redis://HOST:PORT/DB, or unix:///PATH?db=N): it checks the
// server answers before any write, then applies each scope's keys in one
// MULTI/EXEC, so that no scope is ever half-written.
func Apply(ctx context.Context, target string, scopes [][]Key) error {
	goredis.SetLogger(quietLogger{}) // its pool logs dial retries on standard error; the error says it once
	opt, err := goredis.ParseURL(target)
	if err != nil {
		return fmt.Errorf("--apply %s: %v", RedactURL(target), err)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 5*time.Second, 10*time.Second, 10*time.Second
	c := goredis.NewClient(opt)
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("--apply %s: the server does not answer: %v (nothing written)", RedactURL(target), err)
	}
	for _, keys := range scopes {
		_, err := c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			for _, k := range keys {
				p.Set(ctx, k.Key, k.Value, time.Duration(k.TTL)*time.Second)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("--apply %s: %v", RedactURL(target), err)
		}
	}
	return nil
}

// RedactURL drops a password from a URL for messages.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if i := strings.Index(s, "@"); i >= 0 {
			return "…" + s[i:]
		}
		return s
	}
	return u.Redacted()
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
