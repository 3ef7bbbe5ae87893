package logs

import "strings"

// Tracing tools (Langfuse, OpenTelemetry) record what a framework passed to
// and got from the model in the framework's own shapes. This file maps them
// to an OpenAI chat completions request {"model", "messages"} and an OpenAI
// chat completion {"choices":[{"message"}]}, so that the analyzer finds the
// last user message, the tool calls of the agent's latest turn and the
// answer as it does for a captured body.
//
// Input shapes (after a string holding JSON is decoded) map as follows:
//
//   - a list: each element is a message (see toMessage);
//   - an object with "messages" (crewai, agno, LiteLLM): its list, after a
//     top-level "system" string, with "tools" kept as the tool definitions;
//   - an object with "contents" (Gemini, google-adk): each content a message,
//     role "model" → assistant, after config.system_instruction;
//   - an object with "prompt" (Vercel AI SDK, legacy completions): a system
//     message from "system", then the prompt as the user message;
//   - an object with "input" (OpenAI Responses): its string or item list
//     (function_call items are assistant tool calls, function_call_output
//     items tool messages);
//   - a single message object (role, parts, content or LangChain type);
//   - a string: a transcript when its first line starts with a role and
//     ": " ("user: hi", agno), split at each line that does; else the user
//     message;
//   - anything else: its JSON text (secrets scrubbed) as the user message,
//     so that identical inputs still hash alike.
//
// A message (toMessage) is an OpenAI/Anthropic message (role, content as a
// string or a list of parts, tool_calls, tool_call_id), an OpenTelemetry
// GenAI message (role, parts of type text / tool_call /
// tool_call_response), a Gemini content (role, parts with text /
// function_call / function_response), a LangChain message (type
// human/ai/system/tool, or its serialized constructor, with
// additional_kwargs.tool_calls), a choice {"message": …}, or agno's Python
// repr "role='user' content='…' …" (role and content only). Roles human →
// user and ai, model → assistant. Texts of a content list are joined with
// "\n"; images, files, audio and reasoning parts are dropped; a user
// message whose parts are only tool results becomes a "tool" message, so
// that it is not taken for the user's prompt; what the results returned
// (a part's response, content, output or result) is that message's
// content. Request bodies hold the
// messages only (and an input's tool definitions): model parameters and
// framework settings are not carried.

// message is an OpenAI chat message as the rebuilt bodies hold it.
type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatRequest is an OpenAI chat request. Messages is a []message, or a
// list kept as the log holds it (already OpenAI messages).
type chatRequest struct {
	Model      string `json:"model,omitempty"`
	Messages   any    `json:"messages"`
	Tools      any    `json:"tools,omitempty"`
	Functions  any    `json:"functions,omitempty"`
	ToolChoice any    `json:"tool_choice,omitempty"`
}

type chatResponse struct {
	Object  string       `json:"object"`
	Model   string       `json:"model,omitempty"`
	Choices []chatChoice `json:"choices"`
}

type chatChoice struct {
	Index        int     `json:"index"`
	Message      message `json:"message"`
	FinishReason string  `json:"finish_reason,omitempty"`
}

// requestBody writes an OpenAI chat request. tools is kept only when it is
// a non-empty list.
func requestBody(model string, msgs []message, tools any) []byte {
	if msgs == nil {
		msgs = []message{}
	}
	req := chatRequest{Model: model, Messages: msgs}
	if t, ok := tools.([]any); ok && len(t) > 0 {
		req.Tools = scrub(t, false)
	}
	return marshal(req)
}

// responseBody writes an OpenAI chat completion holding one assistant
// message.
func responseBody(model string, m message, finish string) []byte {
	m.Role = "assistant"
	return marshal(chatResponse{Object: "chat.completion", Model: model,
		Choices: []chatChoice{{Message: m, FinishReason: finish}}})
}

// inputMessages maps an input value of any shape to chat messages (see the
// file comment) and returns the tool definitions found beside them.
func inputMessages(v any) (msgs []message, tools any) {
	v = maybeJSON(v)
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return textMessages(x), nil
	case []any:
		for _, e := range x {
			msgs = append(msgs, elementMessages(e)...)
		}
		return msgs, nil
	case obj:
		switch {
		case x["messages"] != nil:
			if s := str(x["system"]); s != "" {
				msgs = append(msgs, textMessage("system", s))
			}
			m, _ := inputMessages(listOrText(x["messages"]))
			return append(msgs, m...), x["tools"]
		case x["contents"] != nil:
			if s := systemText(get(x, "config", "system_instruction"), x["system_instruction"], x["systemInstruction"]); s != "" {
				msgs = append(msgs, textMessage("system", s))
			}
			m, _ := inputMessages(listOrText(x["contents"]))
			return append(msgs, m...), nil
		case x["prompt"] != nil:
			if s := str(x["system"]); s != "" {
				msgs = append(msgs, textMessage("system", s))
			}
			if p, ok := x["prompt"].([]any); ok {
				m, _ := inputMessages(p)
				return append(msgs, m...), x["tools"]
			}
			return append(msgs, userText(x["prompt"])...), x["tools"]
		case x["input"] != nil:
			return inputMessages(x["input"])
		case isMessage(x):
			return []message{toMessage(x)}, nil
		case isObj(x["message"]):
			return []message{toMessage(x["message"].(obj))}, nil
		}
		return []message{textMessage("user", string(marshal(scrub(x, false))))}, nil
	}
	return []message{textMessage("user", string(marshal(v)))}, nil
}

// listOrText returns v decoded when it is a string holding JSON; a plain
// string stays a string (a prompt).
func listOrText(v any) any { return maybeJSON(v) }

// userText is a prompt given as a string or any other value.
func userText(v any) []message {
	if s, ok := v.(string); ok {
		return []message{textMessage("user", s)}
	}
	return []message{textMessage("user", string(marshal(scrub(v, false))))}
}

// systemText reads a system instruction: a string, or a content with
// parts, or a list of parts.
func systemText(vs ...any) string {
	for _, v := range vs {
		switch x := maybeJSON(v).(type) {
		case string:
			if x != "" {
				return x
			}
		case obj, []any:
			c := contentOf(x)
			if c.hasText {
				return *c.text()
			}
		}
	}
	return ""
}

func isObj(v any) bool { _, ok := v.(obj); return ok }

// elementMessages maps one element of a message list.
func elementMessages(e any) []message {
	switch x := e.(type) {
	case obj:
		if isMessage(x) {
			return []message{toMessage(x)}
		}
		if m, ok := x["message"].(obj); ok {
			return []message{toMessage(m)}
		}
		if isToolResult(str(x["type"])) {
			// A Responses function_call_output item, or a lone result part.
			return []message{{Role: "tool", ToolCallID: firstStr(x["call_id"], x["id"], x["tool_use_id"], x["toolCallId"])}}
		}
		if c := callOf(x, false); c != nil {
			return []message{{Role: "assistant", ToolCalls: []toolCall{*c}}}
		}
		return []message{textMessage("user", string(marshal(scrub(x, false))))}
	case string:
		if m, ok := pyReprMessage(x); ok {
			return []message{m}
		}
		return []message{textMessage("user", x)}
	case nil:
		return nil
	case []any:
		// A nested list (a batch of conversations): its messages in order.
		m, _ := inputMessages(x)
		return m
	}
	return []message{textMessage("user", string(marshal(e)))}
}

// isMessage reports whether o looks like one chat message.
func isMessage(o obj) bool {
	if _, ok := o["role"].(string); ok {
		return true
	}
	if o["parts"] != nil || o["content"] != nil || o["additional_kwargs"] != nil {
		return true
	}
	if langchainRole(str(o["type"])) != "" {
		return true
	}
	return o["lc"] != nil && o["kwargs"] != nil
}

// langchainRole maps a LangChain message type to a chat role.
func langchainRole(t string) string {
	switch strings.ToLower(t) {
	case "human", "humanmessage", "humanmessagechunk":
		return "user"
	case "ai", "aimessage", "aimessagechunk":
		return "assistant"
	case "system", "systemmessage":
		return "system"
	case "tool", "toolmessage", "function", "functionmessage":
		return "tool"
	}
	return ""
}

// normRole maps framework role names to chat roles.
func normRole(r string) string {
	switch strings.ToLower(r) {
	case "human", "user":
		return "user"
	case "ai", "model", "assistant", "bot", "chatbot":
		return "assistant"
	case "":
		return ""
	}
	return strings.ToLower(r)
}

func textMessage(role, text string) message {
	return message{Role: role, Content: &text}
}

// toMessage maps one message object of any framework (see the file
// comment).
func toMessage(o obj) message {
	// LangChain's serialized form: {"lc":1,"type":"constructor","id":[…,"HumanMessage"],"kwargs":{…}}.
	if kw, ok := o["kwargs"].(obj); ok && o["lc"] != nil {
		role := ""
		if id, ok := o["id"].([]any); ok && len(id) > 0 {
			role = langchainRole(str(id[len(id)-1]))
		}
		m := toMessage(kw)
		if role != "" {
			m.Role = role
		}
		return m
	}
	role := normRole(str(o["role"]))
	if role == "" {
		role = langchainRole(str(o["type"]))
	}
	var m message
	c := contentOf(o["content"])
	p := contentOf(o["parts"])
	c.merge(p)
	m.Content = c.text()
	m.ToolCalls = c.calls
	m.ToolCalls = append(m.ToolCalls, callsOf(o["tool_calls"])...)
	if ak, ok := o["additional_kwargs"].(obj); ok {
		m.ToolCalls = append(m.ToolCalls, callsOf(ak["tool_calls"])...)
	}
	if fc, ok := o["function_call"].(obj); ok {
		if call := callOf(fc, true); call != nil {
			m.ToolCalls = append(m.ToolCalls, *call)
		}
	}
	m.ToolCallID = firstStr(o["tool_call_id"], c.toolCallID)
	switch {
	case role == "" && c.toolOutput:
		role = "tool"
	case role == "":
		role = "user"
	case role == "user" && c.toolOutput && !c.hasText:
		role = "tool"
	}
	m.Role = role
	if role == "tool" && m.Content == nil && c.toolResult != nil {
		s := string(c.toolResult)
		m.Content = &s
	}
	return m
}

// content is what a message's content or parts hold.
type content struct {
	one        string // the text, while there is one (not copied)
	buf        []byte // the texts joined with "\n", once there are two
	hasText    bool
	calls      []toolCall
	toolOutput bool // a tool result part and no text
	toolCallID string
	// toolResult is what the tool result parts returned (their response,
	// content, output or result: text, or JSON text), joined with "\n";
	// the content of a tool message that has no text of its own.
	toolResult []byte
}

// addToolResult appends what a tool result part returned.
func (c *content) addToolResult(v any) {
	if v == nil {
		return
	}
	s, ok := v.(string)
	if !ok {
		s = string(marshal(scrub(v, false)))
	}
	if c.toolResult != nil {
		c.toolResult = append(c.toolResult, '\n')
	}
	c.toolResult = append(c.toolResult, s...)
}

func (c *content) addText(s string) {
	switch {
	case !c.hasText:
		c.one, c.hasText = s, true
		return
	case c.buf == nil:
		c.buf = append(make([]byte, 0, len(c.one)+1+len(s)), c.one...)
	}
	c.buf = append(c.buf, '\n')
	c.buf = append(c.buf, s...)
}

// joined returns the joined texts.
func (c *content) joined() string {
	if c.buf == nil {
		return c.one
	}
	return string(c.buf)
}

// text returns the joined texts.
func (c *content) text() *string {
	if !c.hasText {
		return nil
	}
	s := c.joined()
	return &s
}

func (c *content) merge(d content) {
	if d.hasText {
		c.addText(d.joined())
	}
	c.calls = append(c.calls, d.calls...)
	c.toolOutput = (c.toolOutput || d.toolOutput) && !c.hasText
	if d.toolResult != nil {
		c.addToolResult(string(d.toolResult))
	}
	if c.toolCallID == "" {
		c.toolCallID = d.toolCallID
	}
}

// contentOf reads a content value: a string, a list of parts, or an object
// (a Gemini content with parts, or any other value, taken as its JSON text).
func contentOf(v any) content {
	var c content
	switch x := v.(type) {
	case nil:
	case string:
		c.addText(x)
	case []any:
		tools := 0
		for _, p := range x {
			if c.part(p) {
				tools++
			}
		}
		c.toolOutput = tools > 0 && !c.hasText
	case obj:
		if parts, ok := x["parts"].([]any); ok {
			return contentOf(parts)
		}
		if c.part(x) {
			c.toolOutput = !c.hasText
			return c
		}
		if !c.hasText && len(c.calls) == 0 {
			c.addText(string(marshal(scrub(x, false))))
		}
	default:
		c.addText(string(marshal(x)))
	}
	return c
}

// part reads one content part into c and reports whether it is a tool
// result.
func (c *content) part(p any) (toolResult bool) {
	o, ok := p.(obj)
	if !ok {
		if s, ok := p.(string); ok {
			c.addText(s)
		}
		return false
	}
	switch t := str(o["type"]); t {
	case "text", "input_text", "output_text":
		if s, ok := o["text"].(string); ok {
			c.addText(s)
		} else if s, ok := o["content"].(string); ok {
			c.addText(s)
		}
		return false
	case "tool_call", "tool_use", "tool-call", "function_call":
		if call := callOf(o, true); call != nil {
			c.calls = append(c.calls, *call)
		}
		return false
	case "tool_call_response", "tool_result", "tool-result", "function_call_output", "function_response":
		c.toolCallID = firstStr(o["id"], o["tool_use_id"], o["toolCallId"], o["call_id"])
		c.addToolResult(firstNonNil(o["response"], o["content"], o["output"], o["result"]))
		return true
	case "":
	default:
		return false // images, files, audio, reasoning, thinking: not text
	}
	// Gemini parts have no type.
	for _, k := range [...]string{"function_call", "functionCall"} {
		if fc, ok := o[k].(obj); ok {
			if call := callOf(fc, true); call != nil {
				c.calls = append(c.calls, *call)
			}
			return false
		}
	}
	if o["function_response"] != nil || o["functionResponse"] != nil {
		return true
	}
	if s, ok := o["text"].(string); ok && o["thought"] != true {
		c.addText(s)
	}
	return false
}

// isToolResult reports whether a part or item type is a tool's result.
func isToolResult(t string) bool {
	switch t {
	case "tool_call_response", "tool_result", "tool-result", "function_call_output", "function_response":
		return true
	}
	return false
}

// callsOf reads a list of tool calls in any of the shapes callOf knows.
func callsOf(v any) []toolCall {
	list, ok := maybeJSON(v).([]any)
	if !ok {
		return nil
	}
	var calls []toolCall
	for _, e := range list {
		if o, ok := e.(obj); ok {
			if c := callOf(o, true); c != nil {
				calls = append(calls, *c)
			}
		}
	}
	return calls
}

// callOf reads one tool call: OpenAI {id, function:{name, arguments}},
// LangChain {name, args, id}, OpenTelemetry {type:"tool_call", id, name,
// arguments}, Anthropic {type:"tool_use", id, name, input}, Vercel
// {toolCallId, toolName, input|args}, Gemini {name, args}, Responses
// {type:"function_call", call_id, name, arguments}. Arguments given as an
// object are written as JSON text; nil when o names no tool. Unless known
// says the context holds calls, an object is a call only when it has
// arguments or Vercel's names: {"name":"Alice","age":28} is data.
func callOf(o obj, known bool) *toolCall {
	if f, ok := o["function"].(obj); ok {
		name := str(f["name"])
		if name == "" {
			return nil
		}
		return &toolCall{ID: firstStr(o["id"]), Type: "function",
			Function: toolFunction{Name: name, Arguments: argsText(f["arguments"])}}
	}
	name := firstStr(o["name"], o["toolName"])
	if name == "" {
		return nil
	}
	if !known && o["arguments"] == nil && o["args"] == nil && o["input"] == nil && o["toolName"] == nil {
		return nil
	}
	var args any
	for _, k := range [...]string{"arguments", "args", "input"} {
		if a, ok := o[k]; ok {
			args = a
			break
		}
	}
	return &toolCall{ID: firstStr(o["id"], o["toolCallId"], o["call_id"]), Type: "function",
		Function: toolFunction{Name: name, Arguments: argsText(args)}}
}

// argsText writes tool-call arguments as the JSON text OpenAI sends: a
// string is kept as is, anything else is marshaled; none is "{}".
func argsText(v any) string {
	switch x := v.(type) {
	case nil:
		return "{}"
	case string:
		return x
	}
	return string(marshal(scrub(v, false)))
}

// transcriptRoles are the line prefixes that make a string a transcript.
var transcriptRoles = [...]string{"system", "developer", "user", "assistant", "tool", "human", "ai"}

// transcriptRole returns the role a transcript line starts with, and the
// rest of the line.
func transcriptRole(line string) (role, rest string, ok bool) {
	for _, r := range transcriptRoles {
		if len(line) > len(r)+1 && line[:len(r)] == r && line[len(r)] == ':' && line[len(r)+1] == ' ' {
			return normRole(r), line[len(r)+2:], true
		}
		if line == r+":" {
			return normRole(r), "", true
		}
	}
	return "", "", false
}

// textMessages maps a string input: a transcript, or one user message.
func textMessages(s string) []message {
	first, _, _ := strings.Cut(s, "\n")
	if _, _, ok := transcriptRole(first); !ok {
		return []message{textMessage("user", s)}
	}
	var msgs []message
	var role string
	var buf strings.Builder
	flush := func() {
		if role != "" {
			msgs = append(msgs, textMessage(role, buf.String()))
		}
		buf.Reset()
	}
	for line := range strings.SplitSeq(s, "\n") {
		if r, rest, ok := transcriptRole(line); ok {
			flush()
			role = r
			buf.WriteString(rest)
			continue
		}
		buf.WriteByte('\n')
		buf.WriteString(line)
	}
	flush()
	return msgs
}

// pyReprMessage reads agno's Python repr of a message, "role='user'
// content='…' name=None …": the role and the content only (a string
// literal in single or double quotes, or None).
func pyReprMessage(s string) (message, bool) {
	rest, ok := strings.CutPrefix(s, "role=")
	if !ok {
		return message{}, false
	}
	role, rest, ok := pyString(rest)
	if !ok {
		return message{}, false
	}
	m := message{Role: normRole(role)}
	rest, ok = strings.CutPrefix(rest, " content=")
	if !ok {
		return m, true
	}
	if text, _, ok := pyString(rest); ok {
		m.Content = &text
	}
	return m, true
}

// pyString decodes a Python string literal at the start of s ('…' or
// "…", with backslash escapes) and returns it with the rest of s.
func pyString(s string) (val, rest string, ok bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), s[i+1:], true
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if r, ok := hexRune(s[i+1:], n); ok {
					b.WriteRune(r)
					i += n
				} else {
					b.WriteByte('\\')
					b.WriteByte(e)
				}
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", s, false
}

func hexRune(s string, n int) (rune, bool) {
	if len(s) < n {
		return 0, false
	}
	var r rune
	for i := 0; i < n; i++ {
		c := s[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, r <= 0x10FFFF
}

// outputBody maps an output value of any shape to a response body; nil when
// there is no output. Provider bodies (OpenAI chat or Responses, Anthropic
// message, Gemini response) are kept as they are; everything else becomes
// one assistant message: a message object, a choice {"message"}, a Gemini
// LlmResponse {"content":{"parts"}}, a list of messages or tool calls
// (koog, pydantic-ai, Vercel), or text. Python's "None" (agno's output of
// a turn with no text) is no output.
func outputBody(v any, model string) []byte {
	v = maybeJSON(v)
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if t := strings.TrimSpace(x); t == "" || t == "None" || t == "null" {
			return nil
		}
		return responseBody(model, textMessage("assistant", x), "")
	case obj:
		if len(x) == 0 {
			return nil
		}
		if providerBody(x) {
			return marshal(scrub(x, false))
		}
		m, finish := outputMessage(x)
		return responseBody(model, m, finish)
	case []any:
		var acc content
		finish := ""
		for _, e := range x {
			switch y := e.(type) {
			case obj:
				m, f := outputMessage(y)
				acc.merge(contentFromMessage(m))
				finish = firstStr(finish, f)
			case string:
				acc.addText(y)
			case nil:
			default:
				acc.addText(string(marshal(y)))
			}
		}
		if !acc.hasText && len(acc.calls) == 0 {
			return nil
		}
		m := message{ToolCalls: acc.calls}
		m.Content = acc.text()
		return responseBody(model, m, finish)
	}
	return responseBody(model, textMessage("assistant", string(marshal(v))), "")
}

// providerBody reports whether o is already a provider response body.
func providerBody(o obj) bool {
	switch {
	case o["choices"] != nil, o["candidates"] != nil:
		return true
	case str(o["type"]) == "message" && o["content"] != nil:
		return true
	case str(o["object"]) == "response", isList(o["output"]) && o["id"] != nil:
		return true
	}
	return false
}

func isList(v any) bool { _, ok := v.([]any); return ok }

// outputMessage maps one object of an output to a message and its finish
// reason.
func outputMessage(o obj) (message, string) {
	finish := firstStr(o["finish_reason"], o["finishReason"])
	switch {
	case isObj(o["message"]):
		return toMessage(o["message"].(obj)), finish
	case isObj(o["content"]) && get(o, "content", "parts") != nil:
		return toMessage(o["content"].(obj)), finish
	case isMessage(o):
		return toMessage(o), finish
	}
	if c := callOf(o, false); c != nil {
		return message{ToolCalls: []toolCall{*c}}, finish
	}
	if s, ok := o["text"].(string); ok {
		return textMessage("assistant", s), finish
	}
	return textMessage("assistant", string(marshal(scrub(o, false)))), finish
}

func contentFromMessage(m message) content {
	var c content
	if m.Content != nil {
		c.addText(*m.Content)
	}
	c.calls = m.ToolCalls
	return c
}
