package breaker

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/store/redis"
)

// Config returns the configuration `replay --policy breaker` runs with,
// given the breaker's flags as on its command line (args: "--error-rate=0.5",
// …) and a settings file's name and content (none when settings is ""),
// for a front end that is not cmd/killswitch (the Beam pipeline): the same
// flags, defaults, precedence and errors.
func Config(args []string, settings string, data []byte) (breaker.Config, error) {
	fs := pflag.NewFlagSet("breaker", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := newReplay(fs).(*replayFlags)
	if err := fs.Parse(args); err != nil {
		return breaker.Config{}, fmt.Errorf("--policy breaker: %v", err)
	}
	if fs.NArg() > 0 {
		return breaker.Config{}, fmt.Errorf("--policy breaker: unexpected argument %q", fs.Arg(0))
	}
	cfg, err := f.config()
	if err == nil && settings != "" {
		err = applySettingsData(&cfg, settings, data, f)
	}
	if err != nil {
		return cfg, fmt.Errorf("--policy breaker: %v", err)
	}
	return cfg, nil
}

// FlagNames are the breaker's replay flags, for a front end that passes
// them on to Config.
var FlagNames = []string{"error-rate", "error-window", "min-samples", "auto-recover", "counter-ttl", "error-status"}

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
