package tracegen

import (
	"bytes"
	"encoding/json"
	"time"
)

// BedrockConverse writes calls as Amazon Bedrock model invocation logs of
// Converse calls, one record per line as the S3 delivery writes them:
// schemaType, timestamp, identity.arn, requestId, operation, modelId,
// input.inputBodyJson (system, messages of content blocks text / toolUse /
// toolResult, toolConfig), output.outputBodyJson (output.message,
// stopReason, usage) and the token counts. A call's Session becomes
// requestMetadata.agent; its User, when there is no Session, the role
// session name of an assumed-role identity. An Error call has
// errorCode ThrottlingException and no output. Times keep their
// sub-second digits (Bedrock writes whole seconds; the replay orders by
// them).
func BedrockConverse(calls []Span) []byte {
	var b bytes.Buffer
	for _, s := range calls {
		session := "worker"
		if s.Session == "" && s.User != "" {
			session = s.User
		}
		rec := map[string]any{
			"schemaType": "ModelInvocationLog", "schemaVersion": "1.0",
			"timestamp": s.Start.UTC().Format(time.RFC3339Nano), "accountId": "111122223333",
			"identity": map[string]any{"arn": "arn:aws:sts::111122223333:assumed-role/Agents/" + session},
			"region":   "us-east-1", "requestId": s.SpanID, "operation": "Converse", "modelId": s.Model,
			"input": map[string]any{"inputContentType": "application/json", "inputBodyJson": converseRequest(s),
				"inputTokenCount": s.TokensIn},
		}
		if s.Session != "" {
			rec["requestMetadata"] = map[string]any{"agent": s.Session}
		}
		if s.Error {
			rec["errorCode"] = "ThrottlingException"
		} else if len(s.Output) > 0 {
			rec["output"] = map[string]any{"outputContentType": "application/json", "outputTokenCount": s.TokensOut,
				"outputBodyJson": map[string]any{
					"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": converseBlocks(s.Output[0])}},
					"stopReason": "end_turn",
					"usage":      map[string]any{"inputTokens": s.TokensIn, "outputTokens": s.TokensOut},
					"metrics":    map[string]any{"latencyMs": s.End.Sub(s.Start).Milliseconds()},
				}}
		}
		line, _ := json.Marshal(rec) // map keys are sorted
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// converseRequest is the Converse request body of s: system messages in
// "system", the others as messages whose consecutive turns of one role
// are merged (Converse alternates user and assistant; tool results travel
// in user turns).
func converseRequest(s Span) map[string]any {
	body := map[string]any{}
	var system, msgs []any
	lastRole := ""
	for _, m := range s.Input {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, map[string]any{"text": m.Content})
			continue
		}
		role := "user"
		if m.Role == "assistant" {
			role = "assistant"
		}
		blocks := converseBlocks(m)
		if role == lastRole {
			last := msgs[len(msgs)-1].(map[string]any)
			last["content"] = append(last["content"].([]any), blocks...)
			continue
		}
		msgs = append(msgs, map[string]any{"role": role, "content": blocks})
		lastRole = role
	}
	if system != nil {
		body["system"] = system
	}
	body["messages"] = msgs
	var tools []any
	for _, t := range s.Tools {
		var def struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if json.Unmarshal([]byte(t), &def) != nil || def.Function.Name == "" {
			continue
		}
		spec := map[string]any{"name": def.Function.Name}
		if def.Function.Description != "" {
			spec["description"] = def.Function.Description
		}
		if len(def.Function.Parameters) > 0 {
			spec["inputSchema"] = map[string]any{"json": def.Function.Parameters}
		}
		tools = append(tools, map[string]any{"toolSpec": spec})
	}
	if tools != nil {
		body["toolConfig"] = map[string]any{"tools": tools}
	}
	return body
}

// converseBlocks is the content of one message: a tool message is a
// toolResult block; otherwise its text (when there is some, or when it
// calls no tool), then a toolUse block per tool call (arguments that are
// JSON as the JSON value, else as the text).
func converseBlocks(m Message) []any {
	if m.Role == "tool" {
		return []any{map[string]any{"toolResult": map[string]any{"toolUseId": m.ToolCallID,
			"content": []any{map[string]any{"text": m.Content}}, "status": "success"}}}
	}
	var blocks []any
	if m.Content != "" || len(m.ToolCalls) == 0 {
		blocks = append(blocks, map[string]any{"text": m.Content})
	}
	for _, c := range m.ToolCalls {
		var input any = c.Arguments
		if json.Valid([]byte(c.Arguments)) {
			input = json.RawMessage(c.Arguments)
		}
		blocks = append(blocks, map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name, "input": input}})
	}
	return blocks
}
