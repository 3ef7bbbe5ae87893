// Package tracegen writes LLM traffic as the trace exports killswitch
// reads — OpenInference span tables in Parquet (as Arize Phoenix saves a
// TraceDataset through pandas and pyarrow), OpenInference spans in OTLP
// JSON, and Vercel AI SDK ReadableSpan JSON — for fixtures and tests. It
// is deterministic: the same spans give the same bytes.
//
// It is the writer side of ingest/logs' trace readers and deliberately
// shares no code with them.
package tracegen

import (
	"encoding/json"
	"fmt"
	"time"
)

// Span is one span of a trace, in the terms every export shares.
type Span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	// Kind is the OpenInference span kind: LLM, CHAIN, AGENT, TOOL,
	// RETRIEVER, EMBEDDING, RERANKER, …
	Kind       string
	Start, End time.Time
	Error      bool // the span's status is an error

	Session, User string
	Model         string
	Provider      string
	// Params are the invocation parameters (temperature, …), written as a
	// JSON object; nil: none.
	Params map[string]any
	// Tools are the tool definitions offered, each a JSON object as the
	// request's "tools" holds it (llm.tools.N.tool.json_schema).
	Tools []string
	// Input and Output are the messages sent and received (LLM spans).
	Input, Output []Message
	// TokensIn and TokensOut: 0 is written as absent.
	TokensIn, TokensOut int64
	// InputValue and OutputValue are input.value and output.value
	// (non-LLM spans: a chain's question and answer).
	InputValue, OutputValue string
}

// Message is a chat message.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
}

// ToolCall is a tool call an assistant message asks for.
type ToolCall struct {
	ID, Name, Arguments string
}

// FromChat reads an OpenAI chat completions request and its response
// (either may be nil) into the model, parameters and messages of an LLM
// span. Content given as a list of parts keeps its text parts, joined with
// "\n".
func FromChat(s *Span, request, response []byte) error {
	var req struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(request, &req); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	var all map[string]any
	json.Unmarshal(request, &all)
	var tools struct {
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(request, &tools)
	for _, t := range tools.Tools {
		s.Tools = append(s.Tools, string(t))
	}
	s.Model = req.Model
	for k, v := range all {
		switch k {
		case "model", "messages", "tools":
		default:
			if s.Params == nil {
				s.Params = map[string]any{}
			}
			s.Params[k] = v
		}
	}
	for _, m := range req.Messages {
		s.Input = append(s.Input, m.message())
	}
	if len(response) == 0 {
		return nil
	}
	var resp struct {
		Choices []struct {
			Message chatMessage `json:"message"`
		} `json:"choices"`
		Usage struct {
			Prompt     int64 `json:"prompt_tokens"`
			Completion int64 `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(response, &resp); err != nil {
		return fmt.Errorf("response: %w", err)
	}
	for _, c := range resp.Choices {
		s.Output = append(s.Output, c.Message.message())
	}
	s.TokensIn, s.TokensOut = resp.Usage.Prompt, resp.Usage.Completion
	return nil
}

type chatMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

func (c chatMessage) message() Message {
	m := Message{Role: c.Role, ToolCallID: c.ToolCallID}
	var s string
	if json.Unmarshal(c.Content, &s) == nil {
		m.Content = s
	} else {
		var parts []struct{ Type, Text string }
		json.Unmarshal(c.Content, &parts)
		for i, p := range parts {
			if p.Type == "text" {
				if i > 0 {
					m.Content += "\n"
				}
				m.Content += p.Text
			}
		}
	}
	for _, tc := range c.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return m
}

// paramsJSON is the invocation parameters as JSON text; "" when none.
func (s *Span) paramsJSON() string {
	if s.Params == nil {
		return ""
	}
	b, _ := json.Marshal(s.Params) // map keys are sorted
	return string(b)
}
