package body

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

// prose returns about n bytes of agent-like text: sentences with numbers,
// paths, quotes and newlines (which JSON escapes), deterministic in seed.
func prose(seed, n int) string {
	words := strings.Fields(`the agent reads file config yaml and runs the test suite again because
		the previous attempt failed with exit code status error "timeout" while waiting for
		the database migration to finish; check /var/log/app.log line order id retry later`)
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		sb.WriteString(words[(seed*7+i*13)%len(words)])
		switch {
		case i%17 == 16:
			fmt.Fprintf(&sb, " #%d.\n", seed*1000+i)
		case i%5 == 4:
			sb.WriteString(", ")
		default:
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// chatRequest20 builds a realistic OpenAI chat request of an agent in a
// tool loop: a system prompt, then 19 messages of user text, assistant tool
// calls and tool results, ~30 KB in all.
func chatRequest20() []byte {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	type msg struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCalls  []call `json:"tool_calls,omitempty"`
		ToolCallID string `json:"tool_call_id,omitempty"`
	}
	msgs := []msg{{Role: "system", Content: prose(0, 5000)}}
	for i := 1; len(msgs) < 20; i++ {
		switch i % 3 {
		case 1:
			msgs = append(msgs, msg{Role: "user", Content: []map[string]string{{"type": "text", "text": prose(i, 1500)}}})
		case 2:
			args, _ := json.Marshal(map[string]any{"command": "pytest -x tests/test_" + fmt.Sprint(i) + ".py", "timeout": 120, "cwd": "/workspace/repo"})
			msgs = append(msgs, msg{Role: "assistant", Content: prose(i, 300), ToolCalls: []call{
				{ID: fmt.Sprintf("call_%04d", i), Type: "function", Function: fn{Name: "execute_bash", Arguments: string(args)}},
			}})
		default:
			msgs = append(msgs, msg{Role: "tool", ToolCallID: fmt.Sprintf("call_%04d", i-1), Content: prose(i, 1800)})
		}
	}
	b, err := json.Marshal(map[string]any{"model": "gpt-4o", "stream": true, "temperature": 0, "messages": msgs})
	if err != nil {
		panic(err)
	}
	return b
}

// words returns about n bytes of prose without characters JSON escapes, as
// the short-record corpus of ../../benchmarks has it.
func words(seed, n int) string {
	return strings.NewReplacer("\n", " ", `"`, "'").Replace(prose(seed, n))
}

// shortMix returns n distinct requests and n responses of the short-record
// corpus's shapes (prompts of 50-300 words, a tool turn in a third of the
// requests, a tool call in an eighth of the answers), ~1 MB of each for
// n = 400: parsing them in turn, as a replay does, neither the caches nor
// the branch predictor see one body again and again.
func shortMix(n int) (reqs, resps [][]byte) {
	for i := range n {
		user := words(i, 350+i*7919%1800)
		msgs := []any{map[string]any{"role": "system", "content": words(i%16, 1024)}}
		if i%3 == 0 {
			args, _ := json.Marshal(map[string]any{"query": words(i, 20), "limit": 10 * (1 + i%5)})
			result, _ := json.Marshal(map[string]any{"status": "ok", "rows": i % 40, "summary": words(i+1, 120+i%240)})
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
					"id": fmt.Sprint("call_", i), "type": "function", "function": map[string]any{"name": "lookup", "arguments": string(args)}}}},
				map[string]any{"role": "tool", "tool_call_id": fmt.Sprint("call_", i), "content": string(result)})
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": user})
		req, _ := json.Marshal(map[string]any{"model": "gpt-4o-mini", "messages": msgs})
		message := map[string]any{"role": "assistant", "content": words(i+2, 140+i*104729%1200)}
		if i%8 == 0 {
			args, _ := json.Marshal(map[string]any{"id": i * 7})
			message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": fmt.Sprint("call_r", i), "type": "function", "function": map[string]any{"name": "get_invoice", "arguments": string(args)}}}}
		}
		resp, _ := json.Marshal(map[string]any{"id": fmt.Sprint("chatcmpl-", i), "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 400 + len(user)/4, "completion_tokens": 100}})
		reqs, resps = append(reqs, req), append(resps, resp)
	}
	return reqs, resps
}

// shortRequest builds a request of the short-record corpus
// (benchmarks/short_test.go): a 1 KB system prompt, with tool an assistant
// tool call and its JSON result, then a user message of ~170 words. Members
// are in encoding/json's order, as there.
func shortRequest(tool bool) []byte {
	msgs := []any{map[string]any{"role": "system", "content": words(1, 1024)}}
	if tool {
		args, _ := json.Marshal(map[string]any{"query": "billing index margin", "limit": 20})
		result, _ := json.Marshal(map[string]any{"status": "ok", "rows": 18, "summary": words(2, 200)})
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": "call_agent-03748_0", "type": "function", "function": map[string]any{"name": "lookup", "arguments": string(args)}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_agent-03748_0", "content": string(result)})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": words(3, 1200)})
	b, err := json.Marshal(map[string]any{"model": "gpt-4o-mini", "messages": msgs})
	if err != nil {
		panic(err)
	}
	return b
}

// shortResponse builds a response of the short-record corpus: one choice
// holding an answer of ~110 words, or a tool call, and usage.
func shortResponse(tool bool) []byte {
	message := map[string]any{"role": "assistant", "content": words(4, 700)}
	finish := "stop"
	if tool {
		message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": "call_r17", "type": "function",
			"function": map[string]any{"name": "get_invoice", "arguments": `{"id":48213}`}}}}
		finish = "tool_calls"
	}
	b, err := json.Marshal(map[string]any{"id": "chatcmpl-17", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 700, "completion_tokens": 185}})
	if err != nil {
		panic(err)
	}
	return b
}

// chatResponse builds a chat completion of ~2 KB of text with escapes and a
// tool call.
func chatResponse() []byte {
	return []byte(`{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":` +
		mustJSON(prose(5, 2000)) + `,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"execute_bash","arguments":"{\"command\":\"pytest -x tests/test_7.py\",\"timeout\":120}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9000,"completion_tokens":500}}`)
}

// benchBody is a named body of the benchmarks.
type benchBody struct {
	name string
	body []byte
}

// benchBodies returns the request and response bodies the benchmarks parse
// as JSON documents.
func benchBodies() []benchBody {
	return []benchBody{
		{"chat-20msg", chatRequest20()},
		{"short", shortRequest(false)},
		{"short-tool-turn", shortRequest(true)},
		{"chat-json", chatResponse()},
		{"short-text", shortResponse(false)},
		{"short-tool-call", shortResponse(true)},
	}
}

// BenchmarkParseRequest measures the replay hot path on a realistic 20-message
// chat request (~30 KB) and on the requests of the short-record corpus (~2.5
// KB). "fastjson-only" is the tree path's floor: parsing the 20-message body
// with fastjson and nothing else.
func BenchmarkParseRequest(b *testing.B) {
	for _, bc := range benchBodies()[:3] {
		b.Run(bc.name, func(b *testing.B) { benchParse(b, parseRequest, bc.body) })
	}
	b.Run("short-mix", func(b *testing.B) {
		reqs, _ := shortMix(400)
		benchParse(b, parseRequest, reqs...)
	})
	b.Run("fastjson-only", func(b *testing.B) {
		body := chatRequest20()
		var p Parser
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		cpu0, _ := cputime.Used()
		for b.Loop() {
			if _, err := p.doc.ParseBytes(body); err != nil {
				b.Fatal(err)
			}
		}
		cputimetest.Report(b, cpu0, int64(len(body)))
	})
}

// anthropicStream builds a streamed Anthropic answer of ~8 KB of text in
// small deltas, plus a tool call, as real captures have them.
func anthropicStream() []byte {
	var sb strings.Builder
	sb.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4\",\"usage\":{\"input_tokens\":900,\"output_tokens\":1}}}\n\n")
	sb.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	text := prose(3, 8000)
	for i := 0; i < len(text); i += 24 {
		piece, _ := json.Marshal(text[i:min(i+24, len(text))])
		fmt.Fprintf(&sb, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}   \n\n", piece)
	}
	sb.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"name\":\"bash\",\"input\":{}}}\n\n")
	sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"ls -la\\\"}\"}}\n\n")
	sb.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":2000}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return []byte(sb.String())
}

func BenchmarkParseResponse(b *testing.B) {
	b.Run("short-mix", func(b *testing.B) {
		_, resps := shortMix(400)
		benchParse(b, parseResponse, resps...)
	})
	for _, bc := range append(benchBodies()[3:], benchBody{"anthropic-sse", anthropicStream()}) {
		b.Run(bc.name, func(b *testing.B) { benchParse(b, parseResponse, bc.body) })
	}
}

func parseRequest(p *Parser, body []byte) error {
	_, err := p.ParseRequest(body)
	return err
}

func parseResponse(p *Parser, body []byte) error {
	_, err := p.ParseResponse(body)
	return err
}

// benchParse measures parse with one Parser on each body in turn, which
// must succeed; ns/op and MB/s are per body.
func benchParse(b *testing.B, parse func(*Parser, []byte) error, bodies ...[]byte) {
	var p Parser
	size := 0
	for _, body := range bodies {
		if err := parse(&p, body); err != nil {
			b.Fatalf("bad benchmark body: %v", err)
		}
		size += len(body)
	}
	size /= len(bodies)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpu0, _ := cputime.Used()
	i := 0
	for b.Loop() {
		if err := parse(&p, bodies[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(bodies) {
			i = 0
		}
	}
	cputimetest.Report(b, cpu0, int64(size))
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func mustJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
