package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/killswitch/killswitch/analyze"
	kbreaker "github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/ingest"
	pbreaker "github.com/killswitch/killswitch/policy/breaker"
	"github.com/killswitch/killswitch/store/redis"
)

// breakerOutputs are what `killswitch replay --policy breaker` writes:
// the decision records (sorted lines), the -f json report and the Redis
// state of --writes FILE.redis.
type breakerOutputs struct {
	decisions   []string
	doc, script []byte
}

// replayBreakerOne is the reference: the policy's replay over the
// time-ordered merge of the files, as policy/breaker's Replay runs it.
func replayBreakerOne(t *testing.T, args []string, files []string) breakerOutputs {
	t.Helper()
	bcfg, err := pbreaker.Config(args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := kbreaker.NewPolicy(bcfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := analyze.NewConfig()
	cfg.Profile = analyze.ProfileUsage
	cfg.Policies = []analyze.Policy{pol}
	var readers []ingest.Reader
	for _, f := range files {
		r, done, err := openCapture(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		readers = append(readers, r)
	}
	if _, err := analyze.Replay(ingest.Merge(readers...), cfg, 2, analyze.Hooks{}); err != nil {
		t.Fatal(err)
	}
	var out breakerOutputs
	var d, doc, script bytes.Buffer
	if err := pbreaker.DecisionsJSONL(&d, pol.Decisions()); err != nil {
		t.Fatal(err)
	}
	out.decisions = strings.SplitAfter(d.String(), "\n")
	sort.Strings(out.decisions)
	if err := pbreaker.JSON(&doc, pol.Result()); err != nil {
		t.Fatal(err)
	}
	if err := redis.WriteScript(&script, pbreaker.RedisState(pol.Result())); err != nil {
		t.Fatal(err)
	}
	out.doc, out.script = doc.Bytes(), script.Bytes()
	return out
}

func runPrismBreaker(t *testing.T, args []string, files []string, shards int) breakerOutputs {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "out")
	p, s := beam.NewPipelineWithRoot()
	cfg := analyze.NewConfig()
	build(s, options{Config: encodeConfig(cfg), Policy: policyOptions{Name: "breaker", Args: args}, Inputs: files, Output: prefix, Shards: shards})
	if _, err := prism.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var out breakerOutputs
	shardFiles, _ := filepath.Glob(prefix + "-decisions-*.jsonl")
	for _, sh := range shardFiles {
		b, err := os.ReadFile(sh)
		if err != nil {
			t.Fatal(err)
		}
		out.decisions = append(out.decisions, strings.SplitAfter(string(b), "\n")...)
	}
	sort.Strings(out.decisions)
	var err error
	if out.doc, err = os.ReadFile(prefix + "-timelines.json"); err != nil {
		t.Fatal(err)
	}
	if out.script, err = os.ReadFile(prefix + "-state.redis"); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPrismBreakerEqualsReplay: --policy breaker on the pipeline writes
// the decision records, the report and the Redis state of `killswitch
// replay --policy breaker`, byte for byte: every breaker fixture alone and
// all of them together (files interleaved in time), with the default
// flags and others, split into shards by scope.
func TestPrismBreakerEqualsReplay(t *testing.T) {
	files := glob(t, filepath.Join("..", "..", "fixtures", "breaker", "*.jsonl"))
	type tc struct {
		name  string
		args  []string
		files []string
	}
	cases := []tc{
		{"all", nil, files},
		{"all-sliding-min3-rate0.3", []string{"--counter-ttl=sliding", "--min-samples=3", "--error-rate=0.3"}, files},
		{"all-fixed-5xx", []string{"--counter-ttl=fixed", "--error-status=5xx", "--auto-recover=1m"}, files},
	}
	for _, f := range files {
		cases = append(cases, tc{filepath.Base(f), nil, []string{f}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := replayBreakerOne(t, c.args, c.files)
			if len(want.decisions) < 2 || !bytes.Contains(want.doc, []byte(`"trips"`)) {
				t.Fatalf("reference has %d decisions: the comparison would prove nothing", len(want.decisions))
			}
			got := runPrismBreaker(t, c.args, c.files, 3)
			if strings.Join(got.decisions, "") != strings.Join(want.decisions, "") {
				t.Errorf("decision records differ (%d vs %d lines)", len(got.decisions), len(want.decisions))
				for i := range min(len(got.decisions), len(want.decisions)) {
					if got.decisions[i] != want.decisions[i] {
						t.Errorf("first difference:\n got %s want %s", got.decisions[i], want.decisions[i])
						break
					}
				}
			}
			if !bytes.Equal(got.doc, want.doc) {
				t.Errorf("report differs:\n got %s\nwant %s", got.doc, want.doc)
			}
			if !bytes.Equal(got.script, want.script) {
				t.Errorf("Redis state differs:\n got %s\nwant %s", got.script, want.script)
			}
		})
	}
}
