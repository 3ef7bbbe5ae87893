package tracegen

import (
	"bytes"
	"encoding/json"
	"time"
)

// LangSmithRuns writes calls as the LangSmith SDK sends their runs, one
// payload per line: per call a chain run (extra.metadata.thread_id from
// Session; without one, the run is named after User) posted, then an llm
// run posted with its inputs (OpenAI messages) and patched with its
// outputs (the chat completion) and end time, then the chain's patch.
// Times are written as the Python SDK writes them: zone-less UTC with
// microseconds.
func LangSmithRuns(calls []Span) []byte {
	var b bytes.Buffer
	line := func(v map[string]any) {
		out, _ := json.Marshal(v)
		b.Write(out)
		b.WriteByte('\n')
	}
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000") }
	for _, s := range calls {
		root, llm := s.TraceID, s.SpanID
		meta := map[string]any{}
		name := "agent"
		if s.Session != "" {
			meta["thread_id"] = s.Session
		} else if s.User != "" {
			name = s.User
		}
		line(map[string]any{"id": root, "trace_id": root, "parent_run_id": nil, "name": name, "run_type": "chain",
			"start_time": ts(s.Start), "inputs": map[string]any{}, "extra": map[string]any{"metadata": meta}})
		var msgs []any
		for _, m := range s.Input {
			msgs = append(msgs, chatJSON(m))
		}
		line(map[string]any{"id": llm, "trace_id": root, "parent_run_id": root, "name": "ChatOpenAI", "run_type": "llm",
			"start_time": ts(s.Start), "inputs": map[string]any{"messages": msgs, "model": s.Model},
			"extra": map[string]any{"metadata": map[string]any{"ls_provider": "openai", "ls_model_name": s.Model}}})
		patch := map[string]any{"id": llm, "trace_id": root, "end_time": ts(s.End)}
		if s.Error {
			patch["error"] = "APIError: upstream error"
		} else if len(s.Output) > 0 {
			patch["outputs"] = map[string]any{"object": "chat.completion", "model": s.Model,
				"choices": []any{map[string]any{"index": 0, "message": chatJSON(s.Output[0]), "finish_reason": "stop"}},
				"usage":   map[string]any{"prompt_tokens": s.TokensIn, "completion_tokens": s.TokensOut}}
		}
		line(patch)
		line(map[string]any{"id": root, "trace_id": root, "end_time": ts(s.End)})
	}
	return b.Bytes()
}

// chatJSON is m as an OpenAI chat message.
func chatJSON(m Message) map[string]any {
	o := map[string]any{"role": m.Role, "content": m.Content}
	if m.Content == "" && len(m.ToolCalls) > 0 {
		o["content"] = nil
	}
	var calls []any
	for _, c := range m.ToolCalls {
		calls = append(calls, map[string]any{"id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	if calls != nil {
		o["tool_calls"] = calls
	}
	if m.ToolCallID != "" {
		o["tool_call_id"] = m.ToolCallID
	}
	return o
}
