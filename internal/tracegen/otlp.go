package tracegen

import (
	"encoding/json"
	"strconv"
)

// OpenInferenceOTLP writes spans as one OTLP JSON trace document
// (opentelemetry-proto's JSON mapping: lowerCamelCase names, 64-bit
// integers as decimal strings) with OpenInference attributes flattened
// ("llm.input_messages.0.message.role"), as Phoenix and the OpenInference
// collectors export them. The document is indented, as exports are.
func OpenInferenceOTLP(spans []Span) []byte {
	out := make([]any, 0, len(spans))
	for _, s := range spans {
		out = append(out, otlpSpan(s))
	}
	doc := map[string]any{"resourceSpans": []any{map[string]any{
		"resource": map[string]any{"attributes": []any{kv("openinference.project.name", "default")}},
		"scopeSpans": []any{map[string]any{
			"scope": map[string]any{"name": "openinference.instrumentation.openai"},
			"spans": out,
		}},
	}}}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n')
}

func otlpSpan(s Span) map[string]any {
	var attrs []any
	oiAttributes(s, func(k string, v any) { attrs = append(attrs, kv(k, v)) })
	status := map[string]any{"code": 1}
	if s.Error {
		status = map[string]any{"code": 2, "message": "upstream error"}
	}
	o := map[string]any{
		"traceId": s.TraceID, "spanId": s.SpanID, "name": s.Name, "kind": 1,
		"startTimeUnixNano": strconv.FormatInt(s.Start.UnixNano(), 10),
		"endTimeUnixNano":   strconv.FormatInt(s.End.UnixNano(), 10),
		"attributes":        attrs, "status": status,
	}
	if s.ParentID != "" {
		o["parentSpanId"] = s.ParentID
	}
	return o
}

// oiAttributes calls set with each OpenInference attribute of s, flat
// ("llm.input_messages.0.message.role"), leaving out empty strings and
// zero counts.
func oiAttributes(s Span, set func(k string, v any)) {
	add := func(k string, v any) {
		switch x := v.(type) {
		case string:
			if x == "" {
				return
			}
		case int64:
			if x == 0 {
				return
			}
		}
		set(k, v)
	}
	add("openinference.span.kind", s.Kind)
	add("session.id", s.Session)
	add("user.id", s.User)
	add("input.value", s.InputValue)
	add("output.value", s.OutputValue)
	add("llm.model_name", s.Model)
	add("llm.provider", s.Provider)
	add("llm.invocation_parameters", s.paramsJSON())
	for i, t := range s.Tools {
		add("llm.tools."+strconv.Itoa(i)+".tool.json_schema", t)
	}
	for i, m := range s.Input {
		flatMessage(add, "llm.input_messages."+strconv.Itoa(i)+".message.", m)
	}
	for i, m := range s.Output {
		flatMessage(add, "llm.output_messages."+strconv.Itoa(i)+".message.", m)
	}
	add("llm.token_count.prompt", s.TokensIn)
	add("llm.token_count.completion", s.TokensOut)
	if s.TokensIn+s.TokensOut > 0 {
		add("llm.token_count.total", s.TokensIn+s.TokensOut)
	}
}

func flatMessage(add func(string, any), p string, m Message) {
	add(p+"role", m.Role)
	add(p+"content", m.Content)
	add(p+"tool_call_id", m.ToolCallID)
	for j, c := range m.ToolCalls {
		q := p + "tool_calls." + strconv.Itoa(j) + ".tool_call."
		add(q+"id", c.ID)
		add(q+"function.name", c.Name)
		add(q+"function.arguments", c.Arguments)
	}
}

// kv is an OTLP KeyValue.
func kv(k string, v any) map[string]any {
	var val map[string]any
	switch x := v.(type) {
	case string:
		val = map[string]any{"stringValue": x}
	case int64:
		val = map[string]any{"intValue": strconv.FormatInt(x, 10)}
	case float64:
		val = map[string]any{"doubleValue": x}
	case bool:
		val = map[string]any{"boolValue": x}
	}
	return map[string]any{"key": k, "value": val}
}
