// Command killswitch-beam runs `killswitch replay` as an Apache Beam
// pipeline: captures are read and their features extracted in parallel,
// each agent is replayed in order on one worker, and the outputs are the
// replay's own: SPEC §5 decision records and the timelines document.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/policy"
)

// globs is a repeatable --input flag.
type globs []string

func (g *globs) String() string     { return strings.Join(*g, ",") }
func (g *globs) Set(s string) error { *g = append(*g, s); return nil }

var (
	inputs     globs
	profile    = flag.String("profile", "spec", "detector profile: spec or agentgazer")
	window     = flag.Int("window", 20, "sliding window size N (per agent)")
	threshold  = flag.Float64("threshold", 10, "kill when the score passes this threshold")
	mode       = flag.String("mode", "deactivate", "enforcement: deactivate or block")
	policyName = flag.String("policy", policy.Default().Name, policyHelp())
	settings   = flag.String("settings", "", "the settings file, as killswitch replay reads it for the policy (the loop detector's {\"default\": {…}, \"agents\": {ID: {…}}}, the breaker's {\"breaker\": {…}}, the gateway's {\"gateway\": {…}})")
	output     = flag.String("output", "", "output PREFIX: PREFIX-decisions-S-of-N.jsonl, a policy's PREFIX-state.EXT and, with --timelines, PREFIX-timelines.json (local path, gs:// or s3://)")
	shards     = flag.Int("shards", 4, "how many shards of agents: replayed in parallel, one decision file each (1 to 65536)")
	verbose    = flag.Bool("v", false, "also log each skipped (non-LLM) input item")
	withTL     = flag.Bool("timelines", false, "also write PREFIX-timelines.json, the document of killswitch replay -f json (with --policy NAME, its -f json report)")
	doSweep    = flag.Bool("sweep", false, "also evaluate the sweep grid (--windows × --thresholds) into PREFIX-sweep.json, as killswitch sweep -f json")
	windows    = flag.String("windows", "10,20,40", "sweep: window sizes, a list or start:stop:step")
	thresh     = flag.String("thresholds", "4:16:0.5", "sweep: thresholds, start:stop:step or a list")
	maxFP      = flag.Int("max-false-positives", 0, "sweep: the recommended setting kills at most this many agents outside a loop")
)

// maxShards bounds --shards: a reader holds a batch per shard.
const maxShards = 1 << 16

func init() {
	flag.Var(&inputs, "input", "capture file or glob (local, gs://, s3://); repeatable")
	registerPolicyFlags()
}

func main() {
	flag.Parse()
	beam.Init() // on a worker, this runs the worker and never returns
	// The Beam SDK's loopback runner leaves an empty beamloopbackworker-*
	// file in the temporary directory at every run (runnerlib never
	// removes it): the run gets a temporary directory of its own,
	// removed when it ends.
	tmp, err := os.MkdirTemp("", "killswitch-beam-")
	if err == nil {
		os.Setenv("TMPDIR", tmp)
	}
	err = run(context.Background())
	if tmp != "" {
		os.RemoveAll(tmp)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "killswitch-beam:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context) error {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	opt, err := pipelineOptions(ctx, set)
	if err != nil {
		return err
	}
	if *runners.Runner == "" {
		*runners.Runner = "prism"
	}
	p, s := beam.NewPipelineWithRoot()
	build(s, opt)
	_, err = beam.Run(ctx, *runners.Runner, p)
	return err
}

// pipelineOptions checks the flags and matches the inputs; set names the
// flags given on the command line.
func pipelineOptions(ctx context.Context, set map[string]bool) (options, error) {
	if len(inputs) == 0 || *output == "" {
		return options{}, errors.New("want --input GLOB (repeatable) and --output PREFIX")
	}
	pol := policyOptions{Name: *policyName, Args: policyArgs}
	if err := readSettings(&pol, *settings); err != nil {
		return options{}, err
	}
	if err := checkPolicy(&pol, set, *doSweep); err != nil {
		return options{}, err
	}
	if *shards < 1 || *shards > maxShards {
		return options{}, fmt.Errorf("--shards %d: want 1 to %d", *shards, maxShards)
	}
	var w *int
	var t *float64
	if set["window"] {
		w = window
	}
	if set["threshold"] {
		t = threshold
	}
	loopSettings := *settings
	if !pol.isDefault() {
		loopSettings = "" // the file's section is the policy's
	}
	cfg, err := configFromFlags(*profile, *mode, w, t, loopSettings, os.ReadFile)
	if err != nil {
		return options{}, err
	}
	files, err := expandInputs(ctx, inputs)
	if err != nil {
		return options{}, err
	}
	opt := options{Config: encodeConfig(cfg), Policy: pol, Inputs: files, Output: *output, Shards: *shards, Verbose: *verbose, Timelines: *withTL}
	if *doSweep {
		scfg := sweep.Config{Profile: cfg.Profile, Mode: cfg.Mode, RetryAfter: cfg.RetryAfter,
			MaxFalsePositives: *maxFP, LateAfter: sweep.DefaultLateAfter}
		if scfg.Windows, err = sweep.ParseWindows(*windows); err != nil {
			return options{}, err
		}
		if scfg.Thresholds, err = sweep.ParseThresholds(*thresh); err != nil {
			return options{}, err
		}
		opt.Sweep = encodeSweep(scfg)
	}
	return opt, nil
}
