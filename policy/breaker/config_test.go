package breaker

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze/breaker"
)

// Config is the configuration a split replay (Split) runs with, given the
// breaker's flags as on its command line and a settings file's name and
// content.
func Config(args []string, settings string, data []byte) (breaker.Config, error) {
	fs := pflag.NewFlagSet("breaker", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	r := newReplay(fs)
	if err := fs.Parse(args); err != nil {
		return breaker.Config{}, err
	}
	sp, err := r.(*replayFlags).Split(settings, data)
	if err != nil {
		return breaker.Config{}, err
	}
	return sp.(*splitter).cfg, nil
}

// TestConfig: the breaker's configuration for a split replay is the
// replay's: flags over the built-in defaults, the settings file's default
// under the flags and its agents over both; errors name the flag, or the
// file's position and key.
func TestConfig(t *testing.T) {
	cfg, err := Config([]string{"--error-rate=0.3", "--auto-recover=2m"}, "s.json",
		[]byte(`{"breaker": {"kill_on_error_rate": 0.9, "min_samples": 4}, "agents": {"a": {"breaker": {"min_samples": 7}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Default.Rate != 0.3 || cfg.Default.MinSamples != 4 || cfg.Default.Recover != 2*time.Minute || cfg.Agents["a"].MinSamples != 7 || cfg.Agents["a"].Rate != 0.3 {
		t.Errorf("config %+v, agents %+v", cfg.Default, cfg.Agents)
	}
	for _, c := range []struct {
		args     []string
		settings string
		want     string
	}{
		{[]string{"--error-rate=x"}, "", "error-rate"},
		{[]string{"--counter-ttl=weekly"}, "", "weekly"},
		{[]string{"--window=3"}, "", "unknown flag: --window"},
		{nil, "{\n \"breaker\": {\"rate\": 1}}", "s.json:2:"},
	} {
		_, err := Config(c.args, "s.json", []byte(c.settings))
		if c.settings == "" {
			_, err = Config(c.args, "", nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q: error %v, want one naming %q", c.args, c.settings, err, c.want)
		}
	}
}
