package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/simhash"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

// The short-record corpus (#16): the traffic of many agents making small
// calls, where the per-record costs (JSON framing, extraction, the engine)
// weigh more than in the 24 KB corpus of chatCapture.
const (
	shortAgents  = 10000
	shortLooping = 500 // 5% of the agents loop
	shortLoopLen = 12  // requests of a looping agent
)

// shortCorpus is the short-record capture and the texts a replay hashes
// (every last user message and every answer), built once.
type shortCorpus struct {
	data  []byte   // JSONL, about 4 KB per record
	recs  int      // records in data
	texts [][]byte // the prompts and answers, in record order
	words int      // words of the texts
}

var (
	shortOnce sync.Once
	short     shortCorpus
)

// benchShort returns the short-record corpus. Set
// KILLSWITCH_BENCH_SHORT=FILE to write it out (e.g. to time `wc -w` by hand).
func benchShort() *shortCorpus {
	shortOnce.Do(func() {
		short = shortCapture()
		if f := os.Getenv("KILLSWITCH_BENCH_SHORT"); f != "" {
			os.WriteFile(f, short.data, 0o644)
		}
	})
	return &short
}

// shortCapture generates the short-record corpus, the same bytes on every
// run (a PCG with a fixed seed, times counted from a fixed instant):
// OpenAI chat records of 10,000 agents, each with a 1 KB system prompt (one
// of 16), a last user message of 50–300 words and an answer of 20–200
// words. About a third of the requests carry a tool turn (an assistant
// tool call and its JSON result) before the user message, and about one
// answer in eight is a tool call instead of text. 500 agents (5%) loop:
// 12 requests repeating one prompt and one answer, with a changing number
// in the prompt. The others make 1 to 6 requests. Requests of all agents
// are interleaved at random, 10 ms apart.
func shortCapture() shortCorpus {
	rng := rand.New(rand.NewPCG(16, 4096))
	systems := make([]string, 16)
	for i := range systems {
		systems[i] = sized(rng, 1024)
	}
	tools := []string{"lookup", "search_orders", "read_file", "run_query", "send_email", "get_invoice"}

	// Each agent's number of requests; the schedule interleaves them.
	type agent struct {
		name         string
		system       string
		loop         bool
		prompt, ans  string // a looping agent's repeated prompt and answer
		left, made   int
		tool, answer string
	}
	agents := make([]agent, shortAgents)
	var schedule []int
	for i := range agents {
		a := &agents[i]
		a.name = fmt.Sprintf("agent-%05d", i)
		a.system = systems[rng.IntN(len(systems))]
		a.loop = i%(shortAgents/shortLooping) == 7
		a.left = 1 + rng.IntN(6)
		if a.loop {
			a.left = shortLoopLen
			a.prompt, a.ans = prose(rng, 50+rng.IntN(251)), prose(rng, 20+rng.IntN(181))
			a.tool = tools[rng.IntN(len(tools))]
		}
		for range a.left {
			schedule = append(schedule, i)
		}
	}
	rng.Shuffle(len(schedule), func(i, j int) { schedule[i], schedule[j] = schedule[j], schedule[i] })

	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var c shortCorpus
	var buf bytes.Buffer
	for n, ai := range schedule {
		a := &agents[ai]
		prompt, answer := a.prompt, a.ans
		if a.loop {
			prompt = fmt.Sprintf("%s (attempt %d)", prompt, a.made+1)
		} else {
			prompt, answer = prose(rng, 50+rng.IntN(251)), prose(rng, 20+rng.IntN(181))
		}
		msgs := []any{map[string]any{"role": "system", "content": a.system}}
		if a.loop || rng.IntN(3) == 0 {
			tool := a.tool
			if tool == "" {
				tool = tools[rng.IntN(len(tools))]
			}
			id := fmt.Sprintf("call_%s_%d", a.name, a.made)
			args, _ := json.Marshal(map[string]any{"query": prose(rng, 3), "limit": 10 * (1 + rng.IntN(5))})
			result, _ := json.Marshal(map[string]any{"status": "ok", "rows": 1 + rng.IntN(40), "summary": prose(rng, 20+rng.IntN(40))})
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
					"id": id, "type": "function", "function": map[string]any{"name": tool, "arguments": string(args)}}}},
				map[string]any{"role": "tool", "tool_call_id": id, "content": string(result)})
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": prompt})
		c.texts = append(c.texts, []byte(prompt))
		message := map[string]any{"role": "assistant", "content": answer}
		finish := "stop"
		if !a.loop && rng.IntN(8) == 0 {
			args, _ := json.Marshal(map[string]any{"id": rng.IntN(100000)})
			message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": fmt.Sprintf("call_r%d", n), "type": "function",
				"function": map[string]any{"name": tools[rng.IntN(len(tools))], "arguments": string(args)}}}}
			finish = "tool_calls"
		} else {
			c.texts = append(c.texts, []byte(answer))
		}
		rec := map[string]any{
			"ts":      t0.Add(time.Duration(n) * 10 * time.Millisecond).Format(time.RFC3339Nano),
			"agent":   a.name,
			"request": map[string]any{"model": "gpt-4o-mini", "messages": msgs},
			"response": map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion",
				"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
				"usage":   map[string]int{"prompt_tokens": 400 + len(prompt)/4, "completion_tokens": 10 + len(answer)/4}},
			"cost_usd": 0.0001,
		}
		line, _ := json.Marshal(rec)
		buf.Write(line)
		buf.WriteByte('\n')
		a.made++
	}
	c.data, c.recs = buf.Bytes(), len(schedule)
	for _, t := range c.texts {
		c.words += len(bytes.Fields(t))
	}
	return c
}

// sized returns prose of at least n bytes.
func sized(rng *rand.Rand, n int) string {
	s := prose(rng, n/7)
	for len(s) < n {
		s += " " + prose(rng, 8)
	}
	return s
}

// BenchmarkShortReplay: a whole replay of the short-record corpus (spec
// profile) at 1 and 2 workers. cpu-MB/s is per CPU second of all workers,
// which a shared machine disturbs less than wall time.
func BenchmarkShortReplay(b *testing.B) {
	c := benchShort()
	replayAtWorkers(b, c.data, c.recs, "short.jsonl")
}

// replayAtWorkers runs a whole replay (spec profile) of a JSONL capture of
// recs requests at 1 worker, the default (workers=default: 0, the input
// sized as a file) and 2 workers, as sub-benchmarks: MB/s and records/s,
// and cpu-MB/s per CPU second of all goroutines.
func replayAtWorkers(b *testing.B, data []byte, recs int, name string) {
	for _, workers := range []int{1, 0, 2} {
		label := strconv.Itoa(workers)
		if workers == 0 {
			label = "default"
		}
		b.Run("workers="+label, func(b *testing.B) {
			cfg := analyze.NewConfig()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0, _ := cputime.Used()
			for b.Loop() {
				// Sized as a file is, so that the default sees what it
				// sees in `killswitch replay FILE`.
				r := ingest.NewJSONL(bytes.NewReader(data), name, ingest.JSONLOptions{Size: int64(len(data))})
				sum, err := analyze.Replay(r, cfg, workers, analyze.Hooks{})
				if err != nil || sum.Totals.Requests != recs {
					b.Fatalf("%v %d", err, sum.Totals.Requests)
				}
			}
			cputimetest.Report(b, cpu0, int64(len(data)))
			reportRecords(b, recs)
		})
	}
}

// BenchmarkShortHash: simhash.Hash alone over the texts a replay of the
// short-record corpus hashes (prompts of 50–300 words, answers of 20–200);
// MB/s of text, records/s counting one record per text.
func BenchmarkShortHash(b *testing.B) {
	c := benchShort()
	var size int64
	for _, t := range c.texts {
		size += int64(len(t))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0, _ := cputime.Used()
	for b.Loop() {
		for _, t := range c.texts {
			simhash.Hash(t)
		}
	}
	cputimetest.Report(b, cpu0, size)
	reportRecords(b, len(c.texts))
}

// BenchmarkShortWC runs `wc -w` over the short-record corpus written to a
// temporary file, for scale: the replay's goal is a multiple of its speed.
// The words counted are checked against the corpus, so wc cannot skip work.
func BenchmarkShortWC(b *testing.B) {
	wc, err := exec.LookPath("wc")
	if err != nil {
		b.Skip("no wc")
	}
	c := benchShort()
	path := filepath.Join(b.TempDir(), "short.jsonl")
	if err := os.WriteFile(path, c.data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(c.data)))
	for b.Loop() {
		out, err := exec.Command(wc, "-w", path).Output()
		if err != nil {
			b.Fatal(err)
		}
		if n, _ := strconv.Atoi(string(bytes.Fields(out)[0])); n < c.words {
			b.Fatalf("wc -w counted %d words, the texts alone have %d", n, c.words)
		}
	}
	reportRecords(b, c.recs)
}

// TestShortCorpus checks the corpus's shape: record size, agents, loops.
func TestShortCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 100+ MB")
	}
	c := benchShort()
	per := len(c.data) / c.recs
	t.Logf("%d records, %d bytes (%d per record), %d texts, %d words", c.recs, len(c.data), per, len(c.texts), c.words)
	if per < 3000 || per > 5000 {
		t.Errorf("%d bytes per record, want about 4 KB", per)
	}
	r := ingest.NewJSONL(bytes.NewReader(c.data), "short.jsonl", ingest.JSONLOptions{})
	sum, err := analyze.Replay(r, analyze.NewConfig(), 2, analyze.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Totals.Requests != c.recs {
		t.Errorf("replayed %d requests, want %d", sum.Totals.Requests, c.recs)
	}
	t.Logf("totals: %+v", sum.Totals)
}
