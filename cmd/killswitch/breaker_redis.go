package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/killswitch/killswitch/analyze/breaker"
)

// applyRedis writes the breaker's end-of-capture state to the Redis server
// at target (redis://HOST:PORT/DB, or unix:///PATH?db=N): it checks the
// server answers before any write, then applies each scope's keys in one
// MULTI/EXEC, so that no scope is ever half-written.
func applyRedis(ctx context.Context, target string, scopes [][]breaker.RedisKey) error {
	redis.SetLogger(quietLogger{}) // its pool logs dial retries on standard error; the error says it once
	opt, err := redis.ParseURL(target)
	if err != nil {
		return fmt.Errorf("--apply %s: %v", redactURL(target), err)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 5*time.Second, 10*time.Second, 10*time.Second
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("--apply %s: the server does not answer: %v (nothing written)", redactURL(target), err)
	}
	for _, keys := range scopes {
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				p.Set(ctx, k.Key, k.Value, time.Duration(k.TTL)*time.Second)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("--apply %s: %v", redactURL(target), err)
		}
	}
	return nil
}

// redactURL drops a password from a URL for messages.
func redactURL(s string) string {
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
