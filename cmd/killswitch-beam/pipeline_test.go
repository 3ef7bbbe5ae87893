package main

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/report"
)

// runPrism runs the pipeline over files on the in-process Prism runner and
// returns the decision lines (all shards, sorted) and the timelines
// document.
func runPrism(t *testing.T, cfg analyze.Config, files []string) (decisions []string, timelines []byte, err error) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "out")
	p, s := beam.NewPipelineWithRoot()
	build(s, options{Config: encodeConfig(cfg), Inputs: files, Output: prefix, Shards: 3, Timelines: true})
	if _, err := prism.Execute(context.Background(), p); err != nil {
		return nil, nil, err
	}
	shards, _ := filepath.Glob(prefix + "-decisions-*.jsonl")
	for _, sh := range shards {
		b, err := os.ReadFile(sh)
		if err != nil {
			t.Fatal(err)
		}
		decisions = append(decisions, strings.SplitAfter(string(b), "\n")...)
	}
	timelines, err = os.ReadFile(prefix + "-timelines.json")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(decisions)
	return decisions, timelines, nil
}

// replayOne is the reference: the single-process replay (analyze.Replay over
// the time-ordered merge of the files), rendered as `killswitch replay -f
// jsonl` and `-f json` render it.
func replayOne(t *testing.T, cfg analyze.Config, files []string) (decisions []string, timelines []byte) {
	t.Helper()
	var readers []ingest.Reader
	for _, f := range files {
		r, done, err := openCapture(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		readers = append(readers, r)
	}
	var buf []byte
	sum, err := analyze.Replay(ingest.Merge(readers...), cfg, 2, analyze.Hooks{Decision: func(d *analyze.Decision) error {
		buf = report.AppendDecision(buf[:0], d)
		decisions = append(decisions, string(buf)+"\n")
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var tl bytes.Buffer
	if err := report.TimelineJSON(&tl, sum); err != nil {
		t.Fatal(err)
	}
	sort.Strings(decisions)
	return decisions, tl.Bytes()
}

func compare(t *testing.T, cfg analyze.Config, files []string) {
	t.Helper()
	wantD, wantT := replayOne(t, cfg, files)
	gotD, gotT, err := runPrism(t, cfg, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantD) == 0 {
		t.Fatalf("%v: no decisions: the comparison would prove nothing", files)
	}
	if strings.Join(gotD, "") != strings.Join(wantD, "") {
		t.Errorf("decision records differ from analyze.Replay's (%d vs %d lines)", len(gotD), len(wantD))
		for i := range min(len(gotD), len(wantD)) {
			if gotD[i] != wantD[i] {
				t.Errorf("first difference:\n got %s want %s", gotD[i], wantD[i])
				break
			}
		}
	}
	if !bytes.Equal(gotT, wantT) {
		t.Errorf("timelines differ:\n got %s\nwant %s", gotT, wantT)
	}
}

func glob(t *testing.T, pattern string) []string {
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: no files", pattern)
	}
	return m
}

// TestPrismEqualsReplay: over every fixture set, each agent's decisions
// (every record, byte for byte: seq, action, score, reason) and the
// timelines document equal the single-process replay's.
func TestPrismEqualsReplay(t *testing.T) {
	for _, set := range []string{"scenarios", "library", "sweep"} {
		t.Run(set, func(t *testing.T) {
			compare(t, analyze.NewConfig(), glob(t, filepath.Join("..", "..", "fixtures", set, "*.jsonl")))
		})
	}
	t.Run("agentgazer-block-small-window", func(t *testing.T) {
		cfg := analyze.NewConfig()
		cfg.Profile, cfg.Mode = analyze.ProfileAgentGazer, analyze.ModeBlock
		cfg.Default.WindowSize, cfg.Default.Threshold = 5, 3
		compare(t, cfg, glob(t, filepath.Join("..", "..", "fixtures", "scenarios", "*.jsonl")))
	})
}

// TestPrismEqualsReplayCaptures does the same over the real captures in
// ../shared/captures, one directory at a time.
func TestPrismEqualsReplayCaptures(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "captures")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Skipf("no captures: %v", err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			var files []string
			ents, _ := os.ReadDir(filepath.Join(root, d.Name()))
			for _, e := range ents {
				n := e.Name()
				if e.IsDir() || strings.HasSuffix(n, ".md") || strings.HasSuffix(n, ".txt") {
					continue
				}
				files = append(files, filepath.Join(root, d.Name(), n))
			}
			compare(t, analyze.NewConfig(), files)
		})
	}
}

// TestPrismOutOfOrder: records out of time order within a file, with
// agents split across files and equal times across files, are numbered and
// warned about as the merge of the single-process replay does. The
// expected values are checked by hand below.
func TestPrismOutOfOrder(t *testing.T) {
	dir := t.TempDir()
	rec := func(ts, agent, prompt string) string {
		return `{"ts":"2026-01-02T03:` + ts + `Z","agent":"` + agent + `","request":{"messages":[{"role":"user","content":"` + prompt + `"}]}}` + "\n"
	}
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(rec("00:05", "x", "p")+rec("00:01", "y", "p")+rec("02:00", "x", "p")+"{bad\n"+rec("01:30", "y", "p")), 0o644)
	os.WriteFile(b, []byte(rec("00:03", "y", "p")+rec("00:05", "x", "q")+rec("01:00", "y", "p")+rec("02:00", "y", "p")), 0o644)
	cfg := analyze.NewConfig()
	cfg.Default.Threshold = 1
	compare(t, cfg, []string{a, b})
	// By hand: the merge replays b:1 (y 03:00:03), a:1 (x :05), a:2 (y :01,
	// before y's b:1: out of order), b:2 (x :05), b:3 (y 01:00), a:3 (x
	// 02:00), a:5 (y 01:30, after y's 01:00: in order for its agent), b:4
	// (y 02:00); a:4 is malformed.
	_, tl, err := runPrism(t, cfg, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		a + `:2: out of time order: 2026-01-02T03:00:01.000Z is before 2026-01-02T03:00:03.000Z at ` + b + `:1 (agent \"y\")`,
		`"malformed": 1`,
	} {
		if !bytes.Contains(tl, []byte(want)) {
			t.Errorf("timelines lack %q:\n%s", want, tl)
		}
	}
	if n := bytes.Count(tl, []byte("out of time order")); n != 1 {
		t.Errorf("%d out-of-order warnings, want 1:\n%s", n, tl)
	}
}

// TestPrismWithoutTimelines: without --timelines the pipeline writes the
// decision records alone (replay -f jsonl's), and the warnings the
// timelines document would have held are logged as replay prints them:
// the first analyze.KeptWarnings of each kind in replay order, then how
// many more. Agent x goes back in time 12 times in a.jsonl, agent y
// twice in b.jsonl; with 3 shards they replay apart.
func TestPrismWithoutTimelines(t *testing.T) {
	dir := t.TempDir()
	rec := func(sec int, agent string) string {
		return fmt.Sprintf(`{"ts":"2026-01-02T03:00:%02dZ","agent":"%s","request":{"messages":[{"role":"user","content":"p"}]}}`+"\n", sec, agent)
	}
	var a, b strings.Builder
	for i := range 13 {
		a.WriteString(rec(50-i, "x")) // 50, 49, …: 12 records out of order
	}
	b.WriteString(rec(10, "y") + rec(5, "y") + rec(20, "y") + rec(1, "y"))
	files := []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")}
	os.WriteFile(files[0], []byte(a.String()), 0o644)
	os.WriteFile(files[1], []byte(b.String()), 0o644)
	if shardOf("x", 3) == shardOf("y", 3) {
		t.Fatal("x and y in one shard: the test would not merge shards' warnings")
	}
	var logged bytes.Buffer
	log.SetOutput(&logged)
	flags := log.Flags()
	log.SetFlags(0)
	defer func() { log.SetOutput(os.Stderr); log.SetFlags(flags) }()

	cfg := analyze.NewConfig()
	prefix := filepath.Join(dir, "out")
	p, s := beam.NewPipelineWithRoot()
	build(s, options{Config: encodeConfig(cfg), Inputs: files, Output: prefix, Shards: 3})
	if _, err := prism.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(prefix + "-timelines.json"); !os.IsNotExist(err) {
		t.Errorf("PREFIX-timelines.json written without --timelines (%v)", err)
	}
	var got []string
	shards, _ := filepath.Glob(prefix + "-decisions-*.jsonl")
	for _, sh := range shards {
		b, _ := os.ReadFile(sh)
		got = append(got, strings.SplitAfter(string(b), "\n")...)
	}
	sort.Strings(got)
	want, _ := replayOne(t, cfg, files)
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Errorf("decision records differ from analyze.Replay's:\n%s\nwant:\n%s", strings.Join(got, ""), strings.Join(want, ""))
	}
	// By hand: the merge replays by running maximum, file, index: a:1 (x
	// :50) and every later line of a (running maximum 50) come after b:1
	// (y :10), b:2 (y :05, out of order), b:3 (y :20) and b:4 (y :01, out
	// of order), all with running maxima ≤ 20. Then a:2…a:13: x's 12
	// warnings, of which the first 10 are shown.
	var lines []string
	for _, l := range strings.Split(logged.String(), "\n") {
		if strings.Contains(l, "warning") {
			lines = append(lines, l)
		}
	}
	wantLines := []string{
		files[1] + ":2: warning: out of time order",
		files[1] + ":4: warning: out of time order",
	}
	for i := 2; i <= 9; i++ {
		wantLines = append(wantLines, fmt.Sprintf("%s:%d: warning: out of time order", files[0], i))
	}
	wantLines = append(wantLines, "4 more out-of-order warnings not shown (14 in all)")
	if len(lines) != len(wantLines) {
		t.Fatalf("logged %d warning lines, want %d:\n%s", len(lines), len(wantLines), strings.Join(lines, "\n"))
	}
	for i, w := range wantLines {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("warning line %d: got %q, want it to begin %q", i+1, lines[i], w)
		}
	}
}

// TestPrismUnreadable: a file that is no capture fails the job, named.
func TestPrismUnreadable(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "doc.json")
	os.WriteFile(bad, []byte("{\n \"not\": \"a capture\"\n}\n"), 0o644)
	_, _, err := runPrism(t, analyze.NewConfig(), []string{bad})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("want the job to fail naming %s, got %v", bad, err)
	}
}

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// TestPrismSweep: with --sweep the pipeline writes PREFIX-sweep.json, byte
// for byte the document `killswitch sweep -f json` writes for the same
// captures and grid (both profiles, with ground truth from the capture's
// labels, without it, and with live kills).
func TestPrismSweep(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile *analyze.Profile
		files   []string
	}{
		{"labelled", analyze.ProfileSpec, []string{"../../fixtures/sweep/labelled.jsonl"}},
		{"heuristic+live", analyze.ProfileSpec, []string{"../../fixtures/sweep/heuristic.jsonl", "../../fixtures/sweep/live.jsonl"}},
		{"library-agentgazer", analyze.ProfileAgentGazer, []string{"../../fixtures/library/ab-alternation.jsonl", "../../fixtures/library/mixed-agents.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := analyze.NewConfig()
			cfg.Profile = tc.profile
			scfg := sweep.Config{Profile: tc.profile, Mode: cfg.Mode, RetryAfter: cfg.RetryAfter,
				Windows: []int{5, 10, 20}, Thresholds: []float64{4, 6, 8, 10, 12}, LateAfter: sweep.DefaultLateAfter}
			prefix := filepath.Join(t.TempDir(), "out")
			p, s := beam.NewPipelineWithRoot()
			build(s, options{Config: encodeConfig(cfg), Sweep: encodeSweep(scfg), Inputs: tc.files, Output: prefix, Shards: 2})
			if _, err := prism.Execute(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(prefix + "-sweep.json")
			if err != nil {
				t.Fatal(err)
			}
			var readers []ingest.Reader
			for _, f := range tc.files {
				fh, err := os.Open(f)
				if err != nil {
					t.Fatal(err)
				}
				defer fh.Close()
				readers = append(readers, ingest.NewJSONL(fh, f, ingest.JSONLOptions{}))
			}
			res, err := sweep.Run(ingest.Merge(readers...), scfg, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := report.SweepJSON(&want, res); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("PREFIX-sweep.json differs from killswitch sweep -f json:\n%s\nwant:\n%s", got, want.Bytes())
			}
		})
	}
}
