package breaker

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/internal/jsontree"
	"github.com/killswitch/killswitch/policy"
	"github.com/killswitch/killswitch/report"
	"github.com/killswitch/killswitch/store/redis"
)

// replayFlags are the breaker's replay flags.
type replayFlags struct {
	rate             float64
	window, recover  time.Duration
	minSamples       int
	ttl, errorStatus string
	fs               *pflag.FlagSet
}

func newReplay(fs *pflag.FlagSet) policy.Replayer {
	f := &replayFlags{fs: fs}
	d := breaker.DefaultRules
	fs.Float64Var(&f.rate, "error-rate", d.Rate, "breaker: open when errors / samples reach this rate (kill_on_error_rate)")
	fs.DurationVar(&f.window, "error-window", d.Window, "breaker: the counters' window (error_window_minutes)")
	fs.IntVar(&f.minSamples, "min-samples", d.MinSamples, "breaker: fewer outcomes never open it (min_samples)")
	fs.DurationVar(&f.recover, "auto-recover", d.Recover, "breaker: how long it stays open (auto_recover_after_minutes)")
	fs.StringVar(&f.ttl, "counter-ttl", "refresh", "breaker: how counters expire: refresh (INCR+EXPIRE), fixed (TTL at creation) or sliding (exact trailing window)")
	fs.StringVar(&f.errorStatus, "error-status", "4xx,5xx", "breaker: the statuses that count as errors (an error body always does)")
	return f
}

func (f *replayFlags) config() (breaker.Config, error) {
	cfg := breaker.NewConfig()
	cfg.Default = breaker.Rules{Enabled: true, Rate: f.rate, Window: f.window, MinSamples: f.minSamples, Recover: f.recover}
	var err error
	if cfg.TTL, err = breaker.ParseCounterTTL(f.ttl); err != nil {
		return cfg, err
	}
	if cfg.Errors, err = breaker.ParseStatusSet(f.errorStatus); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// Replay is `replay --policy breaker`: the breaker's decisions or its
// per-scope report, and its Redis state.
func (f *replayFlags) Replay(e *policy.Env, o *policy.ReplayOptions) (*policy.Outcome, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, fmt.Errorf("--policy breaker: %v", err)
	}
	if err := applyBreakerSettings(&cfg, o.Settings, f); err != nil {
		return nil, fmt.Errorf("--policy breaker: %v", err)
	}
	if o.Writes != "" && o.Writes != "-" && !strings.HasSuffix(o.Writes, ".redis") && !strings.HasSuffix(o.Writes, ".jsonl") {
		return nil, fmt.Errorf("--policy breaker: --writes %s: want FILE.redis (the end-of-capture Redis state, for redis-cli < FILE), - (the same on standard output) or FILE.jsonl (every Redis write, at its capture time)", o.Writes)
	}
	if o.Writes != "" && strings.HasSuffix(o.Writes, ".jsonl") && cfg.TTL == breaker.TTLSliding {
		return nil, fmt.Errorf("--policy breaker: --writes %s: a sliding count has no Redis command log (it is not a key with a TTL)", o.Writes)
	}
	if o.Apply != "" && !strings.HasPrefix(o.Apply, "redis://") && !strings.HasPrefix(o.Apply, "rediss://") && !strings.HasPrefix(o.Apply, "unix://") {
		return nil, fmt.Errorf("--policy breaker: --apply: want redis://HOST:PORT/DB or unix:///PATH")
	}
	pol, err := breaker.NewPolicy(cfg)
	if err != nil {
		return nil, err
	}
	var cmds []breaker.Cmd
	if strings.HasSuffix(o.Writes, ".jsonl") {
		pol.SetLog(func(c breaker.Cmd) { cmds = append(cmds, c) })
	}
	acfg := analyze.NewConfig()
	acfg.Profile = analyze.ProfileUsage // no loop detector in the stack: only the usage is extracted
	acfg.Policies = []analyze.Policy{pol}
	var sum *analyze.Summary
	err = e.Output(func(w io.Writer) error {
		var err error
		if sum, err = e.Replay(acfg, analyze.Hooks{}); err != nil {
			return err
		}
		if !o.AllowEmpty {
			if err := policy.NoRequests(sum.Totals.Requests, sum.Malformed, sum.Skips); err != nil {
				return err
			}
		}
		switch o.Format {
		case report.FormatJSONL:
			return DecisionsJSONL(w, pol.Decisions())
		case report.FormatMarkdown:
			return Text(w, pol.Result(), report.TextOptions{Markdown: true})
		case report.FormatJSON:
			return JSON(w, pol.Result())
		case report.FormatCSV:
			return CSV(w, pol.Result())
		case report.FormatHTML:
			return HTML(w, pol.Result(), pol.Decisions())
		}
		return Text(w, pol.Result(), report.TextOptions{Width: e.Width})
	})
	if err != nil {
		return nil, err
	}
	keys := RedisState(pol.Result())
	if o.Writes != "" {
		err := e.WriteFile(o.Writes, func(w io.Writer) error {
			if !strings.HasSuffix(o.Writes, ".jsonl") {
				return redis.WriteScript(w, keys)
			}
			var b []byte
			for i := range cmds {
				b = append(redis.AppendCmd(b, (*redis.Cmd)(&cmds[i])), '\n')
			}
			_, err := w.Write(b)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("--writes: %v", err)
		}
	}
	out := &policy.Outcome{Summary: sum, Found: pol.Result().Trips > 0}
	if o.Apply != "" {
		if err := redis.Apply(context.Background(), o.Apply, keys); err != nil {
			return nil, err
		}
		n := 0
		for _, ks := range keys {
			n += len(ks)
		}
		out.Notes = append(out.Notes, fmt.Sprintf("--apply: wrote %s of %s to %s (one transaction per scope)",
			report.Plural(n, "key"), report.Plural(len(keys), "scope"), redis.RedactURL(o.Apply)))
	}
	for _, f := range pol.Result().NoStatus {
		what := "requests"
		if f.N == 1 {
			what = "request"
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%s: %d %s without a status: counted as neither success nor error by the breaker", f.File, f.N, what))
	}
	for _, sh := range pol.Result().Shared {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: scope %s has the Redis keys of scope %s (%s:*): the live handler counts them as one breaker, and so does the replay, under %s",
			sh.Source, report.Printable(sh.Scope.String()), report.Printable(sh.With.String()), report.Printable(sh.Key), report.Printable(sh.With.String())))
	}
	return out, nil
}

// applyBreakerSettings reads the settings file's "breaker" object (the
// default rules) and "agents": {ID: {"breaker": {…}}} (per-agent rules).
// Precedence: built-in defaults < the file's "breaker" < flags given on the
// command line < the file's per-agent entries. Unknown keys, values of the
// wrong type and out of range are errors naming file:line:column and the
// key; the parts of other policies (policy.OtherSettings: the loop
// detector's "default" and an agent's kill-switch keys, the gateway's
// "gateway") may sit in the same file and are left to them.
func applyBreakerSettings(cfg *breaker.Config, path string, flags *replayFlags) error {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return applySettingsData(cfg, path, data, flags)
}

// applySettingsData is applyBreakerSettings on the file's content; flags
// nil only checks the file (the flags given do not matter then).
func applySettingsData(cfg *breaker.Config, path string, data []byte, flags *replayFlags) error {
	d, root, perr := jsontree.Parse(path, data, 8, "a settings file")
	if perr != nil {
		return perr
	}
	var def *breaker.Patch
	type agentPatch struct {
		name  string
		patch breaker.Patch
	}
	var agents []agentPatch
	others := policy.OtherSettings(name)
	for _, m := range d.Object(root, "", slices.Concat([]string{"breaker", policy.AgentsKey}, others.Top)...) {
		switch m.Key {
		case "breaker":
			p := breaker.ParsePatch(d, m.Val, "breaker")
			def = &p
		case policy.AgentsKey:
			for _, a := range d.Object(m.Val, "agents") {
				for _, k := range d.Object(a.Val, "agents."+a.Key, slices.Concat([]string{"breaker"}, others.Agent)...) {
					if k.Key == "breaker" {
						agents = append(agents, agentPatch{a.Key, breaker.ParsePatch(d, k.Val, "agents."+a.Key+".breaker")})
					}
				}
			}
		}
	}
	if err := d.Err(); err != nil {
		return err
	}
	if def != nil && flags == nil { // checking the file only
		cfg.Default = def.Apply(breaker.DefaultRules)
	} else if def != nil {
		r := def.Apply(breaker.DefaultRules)
		// Flags given on the command line win over the file's default.
		fl := flags.fs
		if fl.Changed("error-rate") {
			r.Rate = flags.rate
		}
		if fl.Changed("error-window") {
			r.Window = flags.window
		}
		if fl.Changed("min-samples") {
			r.MinSamples = flags.minSamples
		}
		if fl.Changed("auto-recover") {
			r.Recover = flags.recover
		}
		cfg.Default = r
	}
	slices.SortStableFunc(agents, func(a, b agentPatch) int { return strings.Compare(a.name, b.name) })
	for _, a := range agents {
		if cfg.Agents == nil {
			cfg.Agents = map[string]breaker.Rules{}
		}
		cfg.Agents[a.name] = a.patch.Apply(cfg.Default)
	}
	return cfg.Validate()
}
