package tracegen

import (
	"encoding/json"
	"strconv"
)

// DatadogTraces writes calls as Datadog APM traces ([[span, …], …], the
// trace agent's payload) with the tags dd-trace's OpenAI integration sets
// on an openai.request span (createChatCompletion): per request message
// its role, name and content; choice 0's role, content, finish reason and
// tool calls (name and arguments); the usage in metrics. Each call's
// openai.request span sits under a langchain.request span, as the
// LangChain integration writes it. service is the call's Session, else
// its User. Texts are cut to limit characters and "..." (dd-trace's
// DD_OPENAI_SPAN_CHAR_LIMIT; 0: not cut). The request's tool calls are
// not tagged: dd-trace does not tag them.
func DatadogTraces(calls []Span, limit int) []byte {
	trunc := func(s string) string {
		if limit > 0 && len(s) > limit {
			return s[:limit] + "..."
		}
		return s
	}
	var traces []any
	for i, s := range calls {
		tid, root, id := 1000+i, (1000+i)*10+1, (1000+i)*10+2
		service := s.Session
		if service == "" {
			service = s.User
		}
		meta := map[string]string{"component": "openai", "span.kind": "client", "openai.request.model": s.Model,
			"openai.request.endpoint": "/v1/chat/completions", "openai.request.method": "POST"}
		for j, m := range s.Input {
			p := "openai.request.messages." + strconv.Itoa(j) + "."
			meta[p+"role"], meta[p+"name"], meta[p+"content"] = m.Role, "", trunc(m.Content)
		}
		metrics := map[string]any{"_dd.measured": 1}
		errFlag := 0
		if s.Error {
			errFlag = 1
			meta["error.type"] = "openai.APIError"
		} else if len(s.Output) > 0 {
			o := s.Output[0]
			meta["openai.response.model"] = s.Model
			meta["openai.response.choices.0.finish_reason"] = "stop"
			meta["openai.response.choices.0.message.role"] = "assistant"
			meta["openai.response.choices.0.message.content"] = trunc(o.Content)
			for k, c := range o.ToolCalls {
				p := "openai.response.choices.0.message.tool_calls." + strconv.Itoa(k) + "."
				meta[p+"name"], meta[p+"arguments"] = c.Name, trunc(c.Arguments)
			}
			metrics["openai.response.usage.prompt_tokens"] = s.TokensIn
			metrics["openai.response.usage.completion_tokens"] = s.TokensOut
		}
		start, dur := s.Start.UnixNano(), s.End.Sub(s.Start).Nanoseconds()
		traces = append(traces, []any{
			map[string]any{"trace_id": tid, "span_id": root, "parent_id": 0, "name": "langchain.request", "resource": "ChatOpenAI",
				"service": service, "type": "llm", "start": start, "duration": dur, "error": 0,
				"meta": map[string]string{"langchain.request.type": "chat_model"}, "metrics": map[string]any{}},
			map[string]any{"trace_id": tid, "span_id": id, "parent_id": root, "name": "openai.request", "resource": "createChatCompletion",
				"service": service, "type": "llm", "start": start, "duration": dur, "error": errFlag, "meta": meta, "metrics": metrics},
		})
	}
	b, _ := json.Marshal(traces)
	return append(b, '\n')
}
