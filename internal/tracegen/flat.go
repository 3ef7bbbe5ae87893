package tracegen

import (
	"bytes"
	"encoding/json"
	"time"
)

// PhoenixSpans writes spans as a page of Arize Phoenix's span JSON (its
// REST API's span listing): {"data": [span], "next_cursor": null}, each
// span with context.trace_id / span_id, span_kind, parent_id, start_time
// and end_time in ISO 8601 with +00:00, status_code, and the OpenInference
// attributes flat.
func PhoenixSpans(spans []Span) []byte {
	out := make([]any, 0, len(spans))
	for _, s := range spans {
		attrs := map[string]any{}
		oiAttributes(s, func(k string, v any) { attrs[k] = v })
		status := "OK"
		if s.Error {
			status = "ERROR"
		}
		var parent any
		if s.ParentID != "" {
			parent = s.ParentID
		}
		out = append(out, map[string]any{
			"name": s.Name, "context": map[string]any{"trace_id": s.TraceID, "span_id": s.SpanID},
			"span_kind": s.Kind, "parent_id": parent,
			"start_time":  s.Start.UTC().Format("2006-01-02T15:04:05.999999-07:00"),
			"end_time":    s.End.UTC().Format("2006-01-02T15:04:05.999999-07:00"),
			"status_code": status, "status_message": "", "attributes": attrs, "events": []any{},
		})
	}
	b, _ := json.MarshalIndent(map[string]any{"data": out, "next_cursor": nil}, "", "  ")
	return append(b, '\n')
}

// ConsoleGenAI writes calls as OpenTelemetry Python's ConsoleSpanExporter
// prints them, by the GenAI semantic conventions: per call an
// invoke_agent span (gen_ai.agent.id from Session; user.id from User)
// over a chat span holding gen_ai.input.messages and
// gen_ai.output.messages as JSON strings of {role, parts}, the model and
// the token counts; each span a pretty-printed JSON document (ids as 0x
// hex, times in ISO 8601 with microseconds), children first. With twice
// set every chat span is printed twice, as a program that added the
// exporter twice prints it.
func ConsoleGenAI(calls []Span, twice bool) []byte {
	var b bytes.Buffer
	for _, s := range calls {
		chat := map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": s.Model,
			"gen_ai.input.messages": genAIMessages(s.Input), "gen_ai.usage.input_tokens": s.TokensIn,
			"gen_ai.usage.output_tokens": s.TokensOut}
		if len(s.Output) > 0 {
			chat["gen_ai.output.messages"] = genAIMessages(s.Output)
		}
		agent := map[string]any{"gen_ai.operation.name": "invoke_agent"}
		if s.Session != "" {
			agent["gen_ai.agent.id"] = s.Session
		} else if s.User != "" {
			agent["user.id"] = s.User
		}
		status := "UNSET"
		if s.Error {
			status = "ERROR"
		}
		c := consoleSpan("chat "+s.Model, s.TraceID, s.SpanID, s.ParentID, "SpanKind.CLIENT", s.Start, s.End, status, chat)
		b.Write(c)
		if twice {
			b.Write(c)
		}
		b.Write(consoleSpan("invoke_agent", s.TraceID, s.ParentID, "", "SpanKind.INTERNAL", s.Start, s.End, "UNSET", agent))
	}
	return b.Bytes()
}

func consoleSpan(name, trace, id, parent, kind string, start, end time.Time, status string, attrs map[string]any) []byte {
	var p any
	if parent != "" {
		p = "0x" + parent
	}
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }
	span := map[string]any{
		"name": name, "context": map[string]any{"trace_id": "0x" + trace, "span_id": "0x" + id, "trace_state": "[]"},
		"kind": kind, "parent_id": p, "start_time": iso(start), "end_time": iso(end),
		"status": map[string]any{"status_code": status}, "attributes": attrs, "events": []any{}, "links": []any{},
		"resource": map[string]any{"attributes": map[string]any{"service.name": "unknown_service"}, "schema_url": ""},
	}
	out, _ := json.MarshalIndent(span, "", "    ")
	return append(out, '\n')
}

// genAIMessages writes messages as the GenAI conventions' JSON: {role,
// parts: [{type: "text", content} | {type: "tool_call", id, name,
// arguments} | {type: "tool_call_response", id, response}]}.
func genAIMessages(msgs []Message) string {
	var out []any
	for _, m := range msgs {
		var parts []any
		switch {
		case m.Role == "tool":
			parts = append(parts, map[string]any{"type": "tool_call_response", "id": m.ToolCallID, "response": m.Content})
		default:
			if m.Content != "" || len(m.ToolCalls) == 0 {
				parts = append(parts, map[string]any{"type": "text", "content": m.Content})
			}
			for _, c := range m.ToolCalls {
				var args any = c.Arguments
				if json.Valid([]byte(c.Arguments)) {
					args = json.RawMessage(c.Arguments)
				}
				parts = append(parts, map[string]any{"type": "tool_call", "id": c.ID, "name": c.Name, "arguments": args})
			}
		}
		out = append(out, map[string]any{"role": m.Role, "parts": parts})
	}
	b, _ := json.Marshal(out)
	return string(b)
}
