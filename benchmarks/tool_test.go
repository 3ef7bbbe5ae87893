package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"
)

// The tool-agent corpus (#30): few, long records, as a customer-service
// agent with a dozen tools writes them (the shape of the airline-agent
// traffic of #30: 2,454 calls of ~13 KB from 200 agents, ~30 MB; this one
// has 2,454 calls of ~12 KB, 29 MB). Each
// record carries the tool schemas, a system policy and the conversation so
// far; the last user message rarely changes while tool results pile up, so
// the JSON around the hashed text weighs more than in the chat corpora, and
// there are ten times fewer records a megabyte than in the short corpus.
const (
	toolAgents = 200
	toolCalls  = 2454
)

type toolCorpus struct {
	data []byte
	recs int
}

// benchTool returns the tool-agent corpus, generated once. Set
// KILLSWITCH_BENCH_TOOL=FILE to write it out (e.g. to time `killswitch
// replay` on it from outside).
var benchTool = generatedOnce("KILLSWITCH_BENCH_TOOL", toolCapture)

// generatedOnce returns a function that returns gen's corpus, generated on
// its first call and, when the environment variable env names a file,
// written to it.
func generatedOnce(env string, gen func() toolCorpus) func() toolCorpus {
	return sync.OnceValue(func() toolCorpus {
		c := gen()
		if f := os.Getenv(env); f != "" {
			os.WriteFile(f, c.data, 0o644)
		}
		return c
	})
}

// toolCapture generates the tool-agent corpus, the same bytes on every run
// (a PCG with a fixed seed, times counted from a fixed instant). 200 agents
// share 14 tool schemas (~4 KB) and a 1.5 KB policy; each makes 4 to 20 calls
// (2,454 in all). A call sends the conversation so far: the user's opening
// request (60–200 words), then per earlier call the assistant's tool call
// and the tool's JSON result (10–60 words), or a user reply (10–60 words)
// after a text answer. One answer in four is text, the rest tool calls.
// Every 20th agent loops: it repeats one tool call with the same arguments
// and gets the same result. Calls of all agents are interleaved at random,
// 40 ms apart.
func toolCapture() toolCorpus {
	rng := rand.New(rand.NewPCG(30, 2454))
	names := []string{"get_user_details", "get_reservation_details", "search_direct_flight", "search_onestop_flight",
		"book_reservation", "cancel_reservation", "update_reservation_flights", "update_reservation_passengers",
		"update_reservation_baggages", "send_certificate", "calculate", "list_all_airports", "think", "transfer_to_human_agents"}
	var tools []any
	for _, n := range names {
		props := map[string]any{}
		for k := range 1 + rng.IntN(2) {
			props[fmt.Sprintf("%s_arg%d", n[:4], k)] = map[string]any{"type": "string", "description": prose(rng, 3+rng.IntN(4))}
		}
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": n, "description": prose(rng, 6+rng.IntN(7)),
			"parameters": map[string]any{"type": "object", "properties": props, "required": []string{}}}})
	}
	policy := sized(rng, 1536)

	type agent struct {
		name       string
		calls      int
		loop       bool
		msgs       []any
		loopCall   map[string]any
		loopResult string
	}
	agents := make([]agent, toolAgents)
	var schedule []int
	left := toolCalls
	for i := range agents {
		a := &agents[i]
		a.name = fmt.Sprintf("airline-%03d", i)
		a.loop = i%20 == 3
		a.calls = 4 + rng.IntN(17)
		if i == len(agents)-1 {
			a.calls = left
		} else if a.calls > left-4*(len(agents)-1-i) {
			a.calls = left - 4*(len(agents)-1-i)
		}
		left -= a.calls
		a.msgs = []any{map[string]any{"role": "system", "content": policy},
			map[string]any{"role": "user", "content": prose(rng, 60+rng.IntN(141))}}
		if a.loop {
			args, _ := json.Marshal(map[string]any{"reservation_id": fmt.Sprintf("R%05d", rng.IntN(100000))})
			a.loopCall = map[string]any{"name": "get_reservation_details", "arguments": string(args)}
			a.loopResult = prose(rng, 60)
		}
		for range a.calls {
			schedule = append(schedule, i)
		}
	}
	rng.Shuffle(len(schedule), func(i, j int) { schedule[i], schedule[j] = schedule[j], schedule[i] })

	t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	for n, ai := range schedule {
		a := &agents[ai]
		var message map[string]any
		var result string
		finish := "tool_calls"
		switch {
		case a.loop && len(a.msgs) > 3:
			message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": fmt.Sprintf("call_%d", n), "type": "function", "function": a.loopCall}}}
			result = a.loopResult
		case rng.IntN(4) == 0:
			message = map[string]any{"role": "assistant", "content": prose(rng, 20+rng.IntN(80))}
			finish = "stop"
		default:
			args, _ := json.Marshal(map[string]any{"reservation_id": fmt.Sprintf("R%05d", rng.IntN(100000)), "user_id": a.name})
			message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": fmt.Sprintf("call_%d", n), "type": "function",
				"function": map[string]any{"name": names[rng.IntN(len(names))], "arguments": string(args)}}}}
			result = prose(rng, 10+rng.IntN(51))
		}
		rec := map[string]any{
			"ts":      t0.Add(time.Duration(n) * 40 * time.Millisecond).Format(time.RFC3339Nano),
			"agent":   a.name,
			"request": map[string]any{"model": "gpt-4o", "messages": a.msgs, "tools": tools, "temperature": 0},
			"response": map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion",
				"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
				"usage":   map[string]int{"prompt_tokens": 3000 + 40*len(a.msgs), "completion_tokens": 40}},
			"cost_usd": 0.01,
		}
		line, _ := json.Marshal(rec)
		buf.Write(line)
		buf.WriteByte('\n')
		a.msgs = append(a.msgs, message)
		if finish == "stop" {
			a.msgs = append(a.msgs, map[string]any{"role": "user", "content": prose(rng, 10+rng.IntN(51))})
		} else {
			id := message["tool_calls"].([]any)[0].(map[string]any)["id"]
			r, _ := json.Marshal(map[string]any{"status": "ok", "detail": result})
			a.msgs = append(a.msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": string(r)})
		}
	}
	return toolCorpus{data: buf.Bytes(), recs: len(schedule)}
}

// BenchmarkToolReplay: a whole replay of the tool-agent corpus (spec
// profile) at 1 and 2 workers; cpu-MB/s is per CPU second of all
// goroutines. The default --workers must be at least as fast as one here.
func BenchmarkToolReplay(b *testing.B) {
	c := benchTool()
	replayAtWorkers(b, c.data, c.recs, "tool.jsonl")
}
