package tracegen

import (
	"encoding/json"
	"time"
)

// VercelCall is one call of the Vercel AI SDK (generateText): the
// ai.generateText span and the ai.generateText.doGenerate span of each
// step below it.
type VercelCall struct {
	TraceID    string
	FunctionID string // ai.telemetry.functionId; "" for none
	Session    string // ai.telemetry.metadata.sessionId
	Steps      []Span // one doGenerate per step: Model, Provider, Input, Output, tokens, times, ids
	// Stream names the spans ai.streamText / ai.streamText.doStream.
	Stream bool
}

// VercelSpans writes calls as the AI SDK's telemetry spans in the
// OpenTelemetry JS ReadableSpan JSON an exporter prints: an array of
// spans with spanContext, parentSpanId, startTime and endTime as
// [seconds, nanoseconds], and flat attributes (ai.prompt.messages a JSON
// string, ai.response.toolCalls too). Spans are listed in the order they
// end, children first, as exporters see them. Embeddings (embed) add an
// ai.embed span with its ai.embed.doEmbed.
func VercelSpans(calls []VercelCall, embeds []Span) []byte {
	var out []any
	for _, c := range calls {
		op := "ai.generateText"
		inner := "ai.generateText.doGenerate"
		if c.Stream {
			op, inner = "ai.streamText", "ai.streamText.doStream"
		}
		first, last := c.Steps[0], c.Steps[len(c.Steps)-1]
		rootID := first.ParentID
		meta := func(a map[string]any) {
			if c.FunctionID != "" {
				a["ai.telemetry.functionId"] = c.FunctionID
				a["resource.name"] = c.FunctionID
			}
			if c.Session != "" {
				a["ai.telemetry.metadata.sessionId"] = c.Session
			}
		}
		for _, s := range c.Steps {
			a := map[string]any{
				"operation.name": inner, "ai.operationId": inner,
				"ai.model.id": s.Model, "ai.model.provider": s.Provider,
				"ai.prompt.messages":   vercelPrompt(s.Input),
				"gen_ai.system":        s.Provider,
				"gen_ai.request.model": s.Model, "gen_ai.response.model": s.Model,
				"ai.response.finishReason": "stop",
			}
			meta(a)
			if s.Params != nil {
				if t, ok := s.Params["temperature"]; ok {
					a["ai.settings.temperature"] = t
					a["gen_ai.request.temperature"] = t
				}
			}
			var text string
			var calls []any
			for _, m := range s.Output {
				text += m.Content
				for _, tc := range m.ToolCalls {
					calls = append(calls, map[string]any{"toolCallType": "function", "toolCallId": tc.ID, "toolName": tc.Name, "args": tc.Arguments})
				}
			}
			if text != "" {
				a["ai.response.text"] = text
			}
			if len(calls) > 0 {
				b, _ := json.Marshal(calls)
				a["ai.response.toolCalls"] = string(b)
				a["ai.response.finishReason"] = "tool-calls"
			}
			if s.TokensIn > 0 || s.TokensOut > 0 {
				a["ai.usage.promptTokens"] = s.TokensIn
				a["ai.usage.completionTokens"] = s.TokensOut
				a["gen_ai.usage.input_tokens"] = s.TokensIn
				a["gen_ai.usage.output_tokens"] = s.TokensOut
			}
			out = append(out, readable(s.Name, c.TraceID, s.SpanID, rootID, s.Start, s.End, s.Error, a))
		}
		a := map[string]any{"operation.name": op, "ai.operationId": op, "ai.model.id": first.Model, "ai.model.provider": first.Provider,
			"ai.prompt": vercelTopPrompt(first.Input)}
		meta(a)
		out = append(out, readable(op, c.TraceID, rootID, "", first.Start.Add(-time.Millisecond), last.End.Add(time.Millisecond), false, a))
	}
	for _, e := range embeds {
		a := map[string]any{"operation.name": "ai.embed.doEmbed", "ai.operationId": "ai.embed.doEmbed", "ai.model.id": e.Model,
			"ai.values": `["` + e.InputValue + `"]`, "ai.usage.tokens": e.TokensIn}
		out = append(out, readable("ai.embed.doEmbed", e.TraceID, e.SpanID, e.ParentID, e.Start, e.End, false, a))
		a = map[string]any{"operation.name": "ai.embed", "ai.operationId": "ai.embed", "ai.model.id": e.Model, "ai.value": `"` + e.InputValue + `"`}
		out = append(out, readable("ai.embed", e.TraceID, e.ParentID, "", e.Start.Add(-time.Millisecond), e.End.Add(time.Millisecond), false, a))
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}

// hrTime is OpenTelemetry JS's HrTime: [seconds, nanoseconds].
func hrTime(t time.Time) []int64 { return []int64{t.Unix(), int64(t.Nanosecond())} }

func readable(name, trace, id, parent string, start, end time.Time, failed bool, attrs map[string]any) map[string]any {
	status := map[string]any{"code": 0}
	if failed {
		status = map[string]any{"code": 2, "message": "API call error"}
	}
	o := map[string]any{
		"name": name, "kind": 0,
		"spanContext": map[string]any{"traceId": trace, "spanId": id, "traceFlags": 1},
		"startTime":   hrTime(start), "endTime": hrTime(end), "duration": hrTime(time.Unix(0, 0).Add(end.Sub(start))),
		"status": status, "attributes": attrs, "events": []any{}, "links": []any{}, "ended": true,
		"instrumentationLibrary": map[string]any{"name": "ai"},
	}
	if parent != "" {
		o["parentSpanId"] = parent
	}
	return o
}

// vercelPrompt writes messages as ai.prompt.messages holds them: the
// language model prompt, user and assistant content as parts.
func vercelPrompt(msgs []Message) string {
	var out []any
	for _, m := range msgs {
		switch m.Role {
		case "system":
			out = append(out, map[string]any{"role": "system", "content": m.Content})
		case "tool":
			out = append(out, map[string]any{"role": "tool", "content": []any{map[string]any{
				"type": "tool-result", "toolCallId": m.ToolCallID, "toolName": "", "result": m.Content}}})
		default:
			var parts []any
			if m.Content != "" {
				parts = append(parts, map[string]any{"type": "text", "text": m.Content})
			}
			for _, c := range m.ToolCalls {
				var args any = map[string]any{}
				json.Unmarshal([]byte(c.Arguments), &args)
				parts = append(parts, map[string]any{"type": "tool-call", "toolCallId": c.ID, "toolName": c.Name, "args": args})
			}
			out = append(out, map[string]any{"role": m.Role, "content": parts})
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// vercelTopPrompt is the outer span's ai.prompt: {"system", "messages"}.
func vercelTopPrompt(msgs []Message) string {
	p := map[string]any{}
	var rest []any
	for _, m := range msgs {
		if m.Role == "system" {
			p["system"] = m.Content
			continue
		}
		rest = append(rest, map[string]any{"role": m.Role, "content": m.Content})
	}
	p["messages"] = rest
	b, _ := json.Marshal(p)
	return string(b)
}
