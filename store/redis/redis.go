// Package redis is the Redis store of the error-rate breaker's state (its
// counters and open flags per scope): Apply sets them on a server, all in
// one MULTI/EXEC. The script form (--writes FILE.redis) is rendered
// by WriteScript from the same keys.
package redis

import (
	"context"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/killswitch/killswitch/store/internal/dsn"
)

// Apply writes the breaker's end-of-capture state to the Redis server
// at target (redis://HOST:PORT/DB, or unix:///PATH?db=N): it checks the
// server answers before any write, then applies every scope's keys in one
// MULTI/EXEC, so that either all of them are written or none is. Redis
// checks each queued command (the user's ACL, the command's arguments)
// before EXEC runs any: a key the user may not write (NOPERM) discards the
// whole transaction, and the error names that key (quoted as Go does: a
// key may hold any byte), the server's own words and that nothing was
// written.
func Apply(ctx context.Context, target string, scopes [][]Key) error {
	goredis.SetLogger(quietLogger{}) // its pool logs dial retries on standard error; the error says it once
	opt, err := goredis.ParseURL(target)
	if err != nil {
		return fmt.Errorf("--apply %s: %v", RedactURL(target), redactErr(err, target))
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 5*time.Second, 10*time.Second, 10*time.Second
	c := goredis.NewClient(opt)
	defer c.Close()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("--apply %s: the server does not answer: %v (nothing written)", RedactURL(target), redactErr(err, target))
	}
	if len(scopes) == 0 {
		return nil
	}
	var cmds []*goredis.StatusCmd
	_, err = c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		for _, keys := range scopes {
			for _, k := range keys {
				cmds = append(cmds, p.Set(ctx, k.Key, k.Value, time.Duration(k.TTL)*time.Second))
			}
		}
		return nil
	})
	if err == nil {
		return nil
	}
	// The transaction's error is EXECABORT; the refused command holds the
	// reason.
	for _, c := range cmds {
		if cerr := c.Err(); cerr != nil && !strings.HasPrefix(cerr.Error(), "EXECABORT") {
			return fmt.Errorf("--apply %s: SET %q: %v; the transaction of %d keys (%d scopes) was discarded: nothing written",
				RedactURL(target), c.Args()[1].(string), redactErr(cerr, target), len(cmds), len(scopes))
		}
	}
	if strings.HasPrefix(err.Error(), "EXECABORT") {
		return fmt.Errorf("--apply %s: %v: nothing written", RedactURL(target), redactErr(err, target))
	}
	return fmt.Errorf("--apply %s: %v (the keys of one MULTI/EXEC: all or none written)", RedactURL(target), redactErr(err, target))
}

// RedactURL is target (redis://, rediss:// or unix://) as messages show
// it: the user-info password and every secret query parameter
// (?password=…) masked, parsed or not.
func RedactURL(target string) string { return dsn.URL(target) }

// redactErr masks in err's text the secrets of target.
func redactErr(err error, target string) error { return dsn.Err(err, target, RedactURL) }

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
