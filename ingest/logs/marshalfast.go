package logs

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/killswitch/killswitch/ingest"
)

// appendJSON appends v as encoding/json (HTML escaping off) writes it,
// for the values marshal meets: trees (obj, []any, string, json.Number,
// bool, nil) and the chat bodies (chatRequest, chatResponse, message and
// what they hold). false, with b unspecified, for any other value (or a
// json.Number encoding/json would reject or rewrite): marshal then asks
// encoding/json.
func appendJSON(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case json.Number:
		if x == "" || strictNumber([]byte(x), 0) != len(x) {
			return b, false
		}
		return append(b, x...), true
	case obj:
		if x == nil {
			return append(b, "null"...), true
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, k), ':')
			var ok bool
			if b, ok = appendJSON(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case []message:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, m := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMessage(b, m)
		}
		return append(b, ']'), true
	case message:
		return appendMessage(b, x), true
	case chatRequest:
		b = append(b, '{')
		if x.Model != "" {
			b = append(appendJSONString(append(b, `"model":`...), x.Model), ',')
		}
		b = append(b, `"messages":`...)
		var ok bool
		if b, ok = appendJSON(b, x.Messages); !ok {
			return b, false
		}
		for _, f := range [...]struct {
			name string
			v    any
		}{{"tools", x.Tools}, {"functions", x.Functions}, {"tool_choice", x.ToolChoice}} {
			if f.v != nil {
				b = append(appendJSONString(append(b, ','), f.name), ':')
				if b, ok = appendJSON(b, f.v); !ok {
					return b, false
				}
			}
		}
		return append(b, '}'), true
	case chatResponse:
		b = appendJSONString(append(b, `{"object":`...), x.Object)
		if x.Model != "" {
			b = appendJSONString(append(b, `,"model":`...), x.Model)
		}
		b = append(b, `,"choices":`...)
		if x.Choices == nil {
			return append(b, "null}"...), true
		}
		b = append(b, '[')
		for i, c := range x.Choices {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, `{"index":`...), int64(c.Index), 10)
			b = appendMessage(append(b, `,"message":`...), c.Message)
			if c.FinishReason != "" {
				b = appendJSONString(append(b, `,"finish_reason":`...), c.FinishReason)
			}
			b = append(b, '}')
		}
		return append(b, "]}"...), true
	}
	return b, false
}

// appendMessage writes a message as its struct tags say.
func appendMessage(b []byte, m message) []byte {
	b = appendJSONString(append(b, `{"role":`...), m.Role)
	b = append(b, `,"content":`...)
	if m.Content == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *m.Content)
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i, c := range m.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if c.ID != "" {
				b = append(appendJSONString(append(b, `"id":`...), c.ID), ',')
			}
			b = appendJSONString(append(b, `"type":`...), c.Type)
			b = appendJSONString(append(b, `,"function":{"name":`...), c.Function.Name)
			b = appendJSONString(append(b, `,"arguments":`...), c.Function.Arguments)
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	if m.ToolCallID != "" {
		b = appendJSONString(append(b, `,"tool_call_id":`...), m.ToolCallID)
	}
	return append(b, '}')
}

// appendJSONString writes s as encoding/json does without HTML escaping
// (the bodies these readers wrote with encoding/json must not change by a
// byte).
func appendJSONString(b []byte, s string) []byte { return ingest.AppendJSONStringStd(b, s) }
