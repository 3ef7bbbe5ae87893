package main

// policy_glue.go runs a registered policy other than the default one (the
// loop detector, which engine_glue.go runs) through its split replay
// (policy.SplitReplayer): its flags are the registry's, passed on as
// given; a record's shard is its policy's key; each shard is one Part, and
// the parts' results are merged by the policy into the documents
// `killswitch replay --policy NAME` writes: the decision records (-f
// jsonl), the report (-f json) and the state writes. No policy is named
// here (scripts/policy-names.sh).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/policy"
	_ "github.com/killswitch/killswitch/policy/all" // every built-in policy, as killswitch replay has them
)

// policyArgs are the policies' flags given, as killswitch replay takes
// them ("--error-rate=0.5"): the chosen policy parses them.
var policyArgs []string

// passFlag is a policy's flag handed on as given.
type passFlag struct{ name string }

func (f passFlag) String() string { return "" }
func (f passFlag) Set(s string) error {
	policyArgs = append(policyArgs, "--"+f.name+"="+s)
	return nil
}

// policyFlags registers, on a flag set named for messages, the replay
// flags of every registered policy but the default one (whose flags are
// the pipeline's own: --profile, --window, …) and returns each policy's
// replayer.
func policyFlags() (*pflag.FlagSet, map[string]policy.Replayer) {
	fs := pflag.NewFlagSet("killswitch-beam", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	replayers := map[string]policy.Replayer{}
	policy.RegisterFlags(fs, func(p *policy.Policy) bool {
		if p == policy.Default() {
			return false
		}
		replayers[p.Name] = p.Replay(fs)
		return true
	})
	return fs, replayers
}

// registerPolicyFlags adds the policies' flags to the command line.
func registerPolicyFlags() {
	fs, _ := policyFlags()
	fs.VisitAll(func(f *pflag.Flag) {
		if flag.Lookup(f.Name) != nil {
			panic("killswitch-beam: --" + f.Name + " of --policy " + policy.Owner(f) + " is a flag of the pipeline too") // found by the tests
		}
		flag.Var(passFlag{f.Name}, f.Name, "--policy "+policy.Owner(f)+": "+f.Usage)
	})
}

// policyHelp is --policy's help: the policies the pipeline runs.
func policyHelp() string {
	var names []string
	_, replayers := policyFlags()
	for _, p := range policy.All() {
		if _, ok := replayers[p.Name].(policy.SplitReplayer); ok || p == policy.Default() {
			names = append(names, p.Name+" ("+p.Help+")")
		}
	}
	return "kill-switch policy: " + policy.List(names)
}

// isDefault reports whether opt names the default policy, which the
// pipeline replays itself.
func (opt *policyOptions) isDefault() bool {
	return opt.Name == "" || opt.Name == policy.Default().Name
}

// splitter returns the split replay of the policy opt names, configured
// by its flags and settings file as `killswitch replay --policy NAME`
// configures it, or why there is none: an unknown policy, a flag of
// another policy, a policy whose replay cannot be split, its flags' and
// settings' errors.
func splitter(opt *policyOptions) (policy.Splitter, error) {
	p := policy.Lookup(opt.Name)
	if p == nil {
		return nil, policy.Unknown(opt.Name)
	}
	fs, replayers := policyFlags()
	if err := fs.Parse(opt.Args); err != nil {
		return nil, err
	}
	if err := policy.CheckFlags(fs, p); err != nil {
		return nil, err
	}
	if p == policy.Default() {
		return nil, nil
	}
	sr, ok := replayers[p.Name].(policy.SplitReplayer)
	if !ok {
		return nil, fmt.Errorf("--policy %s: the pipeline cannot run it (its replay cannot be split into shards: no policy.SplitReplayer); run killswitch replay --policy %s", p.Name, p.Name)
	}
	return sr.Split(opt.SettingsName, opt.SettingsData)
}

// checkPolicy checks the policy's options where the pipeline is launched,
// where it can still say what is wrong: set names the pipeline's own
// flags given, which are the default policy's.
func checkPolicy(opt *policyOptions, set map[string]bool, sweep bool) error {
	if _, err := splitter(opt); err != nil {
		return err
	}
	if opt.isDefault() {
		return nil
	}
	for _, name := range []string{"profile", "window", "threshold", "mode"} {
		if set[name] {
			return fmt.Errorf("--%s is a setting of --policy %s: this killswitch-beam runs the %s policy", name, policy.Default().Name, opt.Name)
		}
	}
	if sweep {
		return fmt.Errorf("--sweep: the pipeline sweeps the %s policy only", policy.Default().Name)
	}
	return nil
}

// readSettings reads the settings file for a policy other than the
// default one (which reads it where the configuration is built).
func readSettings(opt *policyOptions, path string) error {
	if path == "" || opt.isDefault() {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	opt.SettingsName, opt.SettingsData = path, data
	return nil
}

// replayPart replays a shard's records (in replay order) as one part of
// the policy's split replay and writes its decision records to w; end is
// the capture's end (policy.Splitter.Ends).
func replayPart(sp policy.Splitter, recs *batchMerge, seq func(*featRec) (int64, error), end time.Time, w io.Writer) (agentResult, error) {
	var res agentResult
	part, err := sp.NewPart()
	if err != nil {
		return res, err
	}
	cfg := analyze.NewConfig()
	cfg.Profile = sp.Profile()
	cfg.Policies = part.Policies()
	eng, err := analyze.NewEngine(cfg)
	if err != nil {
		return res, err
	}
	see := func(fr *featRec, rec *ingest.Record) {
		part.See(rec, policy.Order{Clock: fr.PMax, File: fr.File, Idx: fr.Idx})
	}
	seqs, err := stepShard(eng, recs, seq, &res, see, func(*analyze.Decision, []int64) error { return nil })
	if err != nil {
		return res, err
	}
	global := func(local int64) (int64, error) {
		if local < 1 || local > int64(len(seqs)) {
			return 0, fmt.Errorf("the policy numbered a request %d of %d", local, len(seqs))
		}
		return seqs[local-1], nil
	}
	if res.Summary, err = part.Finish(w, global, end); err != nil {
		return res, err
	}
	res.pack()
	return res, nil
}

// stateName is the state writes' file: PREFIX-state.EXT.
func stateName(prefix string, sp policy.Splitter) string {
	return prefix + "-state" + sp.StateExt()
}

// errNoPolicy is a worker asked to run the default policy as a split one:
// a programming error.
var errNoPolicy = errors.New("no split replay for the default policy")

// workerSplitter is splitter on a worker, where the options were checked
// at launch.
func workerSplitter(opt *policyOptions) (policy.Splitter, error) {
	sp, err := splitter(opt)
	if err == nil && sp == nil {
		err = errNoPolicy
	}
	return sp, err
}
