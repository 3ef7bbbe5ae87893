package breaker

import (
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/store/redis"
)

// RedisState is the Redis keys the breakers hold at the end of the
// replay, in the store's terms: one transaction per scope.
func RedisState(res *breaker.Result) [][]redis.Key {
	var keys [][]redis.Key
	for _, scope := range res.RedisKeys() {
		ks := make([]redis.Key, len(scope))
		for i, k := range scope {
			ks[i] = redis.Key(k)
		}
		keys = append(keys, ks)
	}
	return keys
}
