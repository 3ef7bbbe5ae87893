package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The long-context corpus (#30 goal 1): coding agents whose every call
// resends files they have read, so a call carries hundreds of kilobytes
// of history: 8 agents × 10 calls, each call adding a file of 40–110 KB
// (a tool result) to the conversation, from ~1 KB at an agent's first
// call to up to ~1 MB at its last (~340 KB on average); ~27 MB in 80
// records, a hundred times fewer records a megabyte than the short
// corpus. Extraction here is mostly a scan past
// the history for the last user message, so the replay is bound by
// memory, not by hashing.
const (
	longAgents = 8
	longCalls  = 10 // per agent
)

// benchLong returns the long-context corpus, generated once. Set
// KILLSWITCH_BENCH_LONG=FILE to write it out (e.g. to time `killswitch
// replay` on it from outside: benchmarks/workers.sh).
var benchLong = generatedOnce("KILLSWITCH_BENCH_LONG", longCapture)

// longCapture generates the long-context corpus, the same bytes on every
// run (a PCG with a fixed seed, times counted from a fixed instant). Each
// agent opens with a task (60–200 words); each call's answer asks to read
// a file, whose content (40–110 KB of prose, in lines) comes back as a
// tool result, followed by a user note of 10–40 words that is the next
// call's last user message. Calls of all agents are interleaved at random,
// one second apart. Agent 3 loops: from its third call on it reads the
// same file and gets the same note.
func longCapture() toolCorpus {
	rng := rand.New(rand.NewPCG(30, 64))
	type agent struct {
		name string
		msgs []any
		left int
	}
	agents := make([]agent, longAgents)
	for i := range agents {
		agents[i] = agent{name: fmt.Sprintf("coder-%d", i), left: longCalls,
			msgs: []any{map[string]any{"role": "user", "content": prose(rng, 60+rng.IntN(141))}}}
	}
	var schedule []int
	for i := range agents {
		for range longCalls {
			schedule = append(schedule, i)
		}
	}
	rng.Shuffle(len(schedule), func(i, j int) { schedule[i], schedule[j] = schedule[j], schedule[i] })
	loopFile, loopNote := file(rng, 80<<10), prose(rng, 20)
	t0 := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	for k, i := range schedule {
		a := &agents[i]
		call := longCalls - a.left
		a.left--
		content, note := file(rng, 40<<10+rng.IntN(70<<10)), prose(rng, 10+rng.IntN(31))
		if i == 3 && call >= 2 {
			content, note = loopFile, loopNote
		}
		id := fmt.Sprintf("call_%d_%d", i, call)
		message := map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": id, "type": "function", "function": map[string]any{"name": "read_file", "arguments": fmt.Sprintf(`{"path":"src/file%d.go"}`, call)}}}}
		rec := map[string]any{
			"ts":    t0.Add(time.Duration(k) * time.Second).Format(time.RFC3339Nano),
			"agent": a.name,
			"request": map[string]any{"model": "gpt-4o", "messages": a.msgs,
				"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_file", "description": "Read a file of the repository."}}}},
			"response": map[string]any{"choices": []any{map[string]any{"message": message, "finish_reason": "tool_calls"}},
				"usage": map[string]any{"prompt_tokens": 1000 * (call + 1), "completion_tokens": 20}},
		}
		line, err := json.Marshal(rec)
		if err != nil {
			panic(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		a.msgs = append(a.msgs, message,
			map[string]any{"role": "tool", "tool_call_id": id, "content": content},
			map[string]any{"role": "user", "content": note})
	}
	return toolCorpus{data: buf.Bytes(), recs: len(schedule)}
}

// file returns about n bytes of prose in lines of 8–16 words, as a source
// file read back to a model.
func file(rng *rand.Rand, n int) string {
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(prose(rng, 8+rng.IntN(9)))
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkLongReplay: a whole replay of the long-context corpus (spec
// profile) at 1 worker, the default and 2 workers; the default must be at
// least as fast as one worker here.
func BenchmarkLongReplay(b *testing.B) {
	c := benchLong()
	replayAtWorkers(b, c.data, c.recs, "long.jsonl")
}
