package breaker

import (
	"math"
	"time"
)

// The live breaker keeps its state in Redis, one namespace per tenant:
//
//	[tenant:<tenant>:]killswitch:<agent>:<workflow>:active   "1", TTL = time left open
//	[tenant:<tenant>:]stats:<agent>:<workflow>:success       count, TTL = the counter's
//	[tenant:<tenant>:]stats:<agent>:<workflow>:error         count, TTL = the counter's
//
// (no prefix for records without a tenant). RedisKeys gives what those keys
// hold at the capture's last timestamp, each with the TTL it would have
// left then; keys that have expired by then are absent. A sliding count
// has no single-key equivalent in the live system: its key holds the count
// with the TTL of its newest outcome.

// RedisKey is one key at the end of the capture.
type RedisKey struct {
	Key, Value string
	TTL        int64 // seconds, ≥ 1
}

// Namespace is the key prefix of a tenant.
func Namespace(tenant string) string {
	if tenant == "" {
		return ""
	}
	return "tenant:" + tenant + ":"
}

// RedisKeys returns, per scope (in the result's order, scopes without any
// live key left out), the keys it holds at the end of the capture.
func (r *Result) RedisKeys() [][]RedisKey {
	var out [][]RedisKey
	for _, s := range r.Scopes {
		ns := Namespace(s.Scope.Tenant)
		base := s.Scope.Agent + ":" + s.Scope.Workflow
		var keys []RedisKey
		add := func(key string, value int, until time.Time) {
			if value <= 0 || !until.After(r.End) {
				return
			}
			ttl := int64(math.Ceil(until.Sub(r.End).Seconds()))
			keys = append(keys, RedisKey{Key: key, Value: itoa(value), TTL: max(ttl, 1)})
		}
		if s.Open {
			add(ns+"killswitch:"+base+":active", 1, s.OpenUntil)
		}
		add(ns+"stats:"+base+":success", s.Successes, s.SuccessExpires)
		add(ns+"stats:"+base+":error", s.ErrorCount, s.ErrorExpires)
		if len(keys) > 0 {
			out = append(out, keys)
		}
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
