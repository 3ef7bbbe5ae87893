package body

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/valyala/fastjson"
)

// ParseRequest extracts the prompt, tool-call signature, model and stream
// flag of a provider request body (a JSON document). The Prompt slice is valid
// while raw is (it may point into it) and until p's next call. The error says what is wrong with the body; callers
// prefix the record position.
func (p *Parser) ParseRequest(raw []byte) (Request, error) {
	if !p.treeOnly {
		if req, ok := p.fastRequest(raw); ok {
			return req, nil
		}
	}
	return p.parseRequestTree(raw)
}

// parseRequestTree is ParseRequest on fastjson's tree of the whole body: the
// reference for the fast path, and the path of every shape it leaves.
func (p *Parser) parseRequestTree(raw []byte) (Request, error) {
	v, err := p.doc.ParseBytes(raw)
	if err != nil {
		return Request{}, notJSON("request body", raw)
	}
	if v.Type() != fastjson.TypeObject {
		return Request{}, fmt.Errorf("unknown request body shape: JSON %s", v.Type())
	}
	var req Request
	req.Model = p.intern(v.GetStringBytes("model"))
	req.Stream = v.GetBool("stream")
	p.calls.reset()

	switch {
	case present(v, "messages"):
		msgs, err := arrayField(v, "messages")
		if err != nil {
			return Request{}, err
		}
		p.chatRequest(&req, v, msgs)
	case present(v, "contents"):
		contents, err := arrayField(v, "contents")
		if err != nil {
			return Request{}, err
		}
		p.geminiRequest(&req, contents)
	case isLegacyPrompt(v.Get("prompt")):
		req.API = APILegacy
		req.Prompt = p.legacyText(v.Get("prompt"))
	case present(v, "input"):
		p.inputRequest(&req, v.Get("input"))
	default:
		return Request{}, fmt.Errorf("unknown request body shape: %s", describe(v))
	}
	p.finishRequest(&req)
	return req, nil
}

// finishRequest sets HasPrompt and the signature of the calls collected.
func (p *Parser) finishRequest(req *Request) {
	req.HasPrompt = len(req.Prompt) > 0
	if !req.HasPrompt {
		req.Prompt = nil
	}
	if !p.calls.empty() {
		p.sig = p.calls.appendTo(p.sig[:0], '\n')
		req.ToolSig = p.intern(p.sig)
	}
}

// present reports whether v has the field key with a non-null value.
func present(v *fastjson.Value, key string) bool {
	f := v.Get(key)
	return f != nil && f.Type() != fastjson.TypeNull
}

// arrayField returns the array field key of v, or an error naming its type.
func arrayField(v *fastjson.Value, key string) ([]*fastjson.Value, error) {
	a, err := v.Get(key).Array()
	if err != nil {
		return nil, fmt.Errorf("request body field %q is a JSON %s, want an array", key, v.Get(key).Type())
	}
	return a, nil
}

// describe names the shape of v for an error message: its JSON type, and for
// an object its keys, sorted (at most 12).
func describe(v *fastjson.Value) string {
	if v.Type() != fastjson.TypeObject {
		return "JSON " + v.Type().String()
	}
	var keys []string
	v.GetObject().Visit(func(k []byte, _ *fastjson.Value) {
		keys = append(keys, string(k))
	})
	slices.Sort(keys)
	more := ""
	if len(keys) > 12 {
		more = fmt.Sprintf(" …(%d more)", len(keys)-12)
		keys = keys[:12]
	}
	return "object with keys [" + strings.Join(keys, " ") + more + "]"
}

// role returns the "role" field of a message or item (nil when absent).
func role(m *fastjson.Value) []byte { return m.GetStringBytes("role") }

// chatRequest reads an OpenAI chat completions or Anthropic Messages request.
// Both are handled by one walk: the constructs of each never occur in the
// other, so only the API label needs to tell them apart.
func (p *Parser) chatRequest(req *Request, v *fastjson.Value, msgs []*fastjson.Value) {
	anthropic := false
	// Prompt: the last user message that is not only tool output.
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if string(role(m)) != "user" {
			continue
		}
		text, toolOutput := p.contentText(m.Get("content"), "tool_result")
		if toolOutput {
			anthropic = true
			continue
		}
		req.Prompt = text
		break
	}
	// Tool calls: the last run of consecutive assistant messages.
	end := len(msgs) - 1
	for end >= 0 && string(role(msgs[end])) != "assistant" {
		end--
	}
	for i := end; i >= 0 && string(role(msgs[i])) == "assistant"; i-- {
		if p.chatCalls(msgs[i]) {
			anthropic = true
		}
	}
	req.API = chatAPI(v, msgs, anthropic)
}

// chatCalls adds the tool calls of one assistant message: OpenAI tool_calls
// and legacy function_call, Anthropic tool_use content blocks. It reports
// whether it saw an Anthropic block.
func (p *Parser) chatCalls(m *fastjson.Value) (anthropic bool) {
	for _, tc := range m.GetArray("tool_calls") {
		if f := tc.Get("function"); f != nil {
			p.addCall(f.GetStringBytes("name"), f.Get("arguments"))
		}
	}
	if f := m.Get("function_call"); f != nil && f.Type() == fastjson.TypeObject {
		p.addCall(f.GetStringBytes("name"), f.Get("arguments"))
	}
	for _, b := range m.GetArray("content") {
		if string(b.GetStringBytes("type")) == "tool_use" {
			p.addCall(b.GetStringBytes("name"), b.Get("input"))
			anthropic = true
		}
	}
	return anthropic
}

// chatAPI labels a messages request: Anthropic when it carries a construct
// only Anthropic has (tool_use/tool_result blocks, a top-level system or
// anthropic_version, tools with input_schema); otherwise OpenAI when it
// carries one only OpenAI has (system/developer/tool/function roles,
// tool_calls); otherwise by the model name ("claude…" is Anthropic).
func chatAPI(v *fastjson.Value, msgs []*fastjson.Value, anthropic bool) API {
	if anthropic || present(v, "system") || v.Exists("anthropic_version") ||
		v.Exists("tools", "0", "input_schema") {
		return APIAnthropic
	}
	for _, m := range msgs {
		switch string(role(m)) {
		case "system", "developer", "tool", "function":
			return APIOpenAIChat
		}
		if m.Exists("tool_calls") {
			return APIOpenAIChat
		}
	}
	if bytes.HasPrefix(v.GetStringBytes("model"), []byte("claude")) {
		return APIAnthropic
	}
	return APIOpenAIChat
}

// contentText returns the text of a message content: a string, or the text
// parts of a content array joined with "\n". toolOutput is true when the
// array holds no text part but at least one part of type toolType: the
// message is tool output, not user text.
func (p *Parser) contentText(c *fastjson.Value, toolType string) (text []byte, toolOutput bool) {
	if c == nil {
		return nil, false
	}
	switch c.Type() {
	case fastjson.TypeString:
		s, _ := c.StringBytes()
		return s, false
	case fastjson.TypeArray:
	default:
		return nil, false
	}
	parts, _ := c.Array()
	n, tools := 0, 0
	var first []byte
	for _, part := range parts {
		s, isText, isTool := partText(part, toolType)
		if isTool {
			tools++
		}
		if !isText {
			continue
		}
		switch n {
		case 0:
			first = s
		case 1:
			p.prompt = append(p.prompt[:0], first...)
			fallthrough
		default:
			p.prompt = append(p.prompt, '\n')
			p.prompt = append(p.prompt, s...)
		}
		n++
	}
	switch n {
	case 0:
		return nil, tools > 0
	case 1:
		return first, false
	}
	return p.prompt, false
}

// partText returns the text of one content part: a string, or an object with
// a string "text" and a type of "text", "input_text", "output_text" or none
// (Gemini parts have no type). Gemini thought parts are not text. isTool
// reports a part of type toolType, or one holding the Gemini field toolType.
func partText(part *fastjson.Value, toolType string) (text []byte, isText, isTool bool) {
	if part.Type() == fastjson.TypeString {
		s, _ := part.StringBytes()
		return s, true, false
	}
	if part.Type() != fastjson.TypeObject {
		return nil, false, false
	}
	typ := part.Get("type")
	if typ == nil {
		if toolType != "" && part.Exists(toolType) {
			return nil, false, true
		}
		t := part.Get("text")
		if t == nil || t.Type() != fastjson.TypeString || part.GetBool("thought") {
			return nil, false, false
		}
		s, _ := t.StringBytes()
		return s, true, false
	}
	switch ts, _ := typ.StringBytes(); string(ts) {
	case "text", "input_text", "output_text":
		t := part.Get("text")
		if t == nil || t.Type() != fastjson.TypeString {
			return nil, false, false
		}
		s, _ := t.StringBytes()
		return s, true, false
	case toolType:
		return nil, false, toolType != ""
	}
	return nil, false, false
}

// geminiRequest reads a Gemini generateContent request: contents[] with role
// "user" (or no role) and "model", parts[] with text / functionCall /
// functionResponse.
func (p *Parser) geminiRequest(req *Request, contents []*fastjson.Value) {
	req.API = APIGemini
	for i := len(contents) - 1; i >= 0; i-- {
		c := contents[i]
		if r := role(c); r != nil && string(r) != "user" {
			continue
		}
		text, toolOutput := p.contentText(c.Get("parts"), "functionResponse")
		if toolOutput {
			continue
		}
		req.Prompt = text
		break
	}
	end := len(contents) - 1
	for end >= 0 && string(role(contents[end])) != "model" {
		end--
	}
	for i := end; i >= 0 && string(role(contents[i])) == "model"; i-- {
		for _, part := range contents[i].GetArray("parts") {
			if fc := part.Get("functionCall"); fc != nil {
				p.addCall(fc.GetStringBytes("name"), fc.Get("args"))
			}
		}
	}
}

// isLegacyPrompt reports whether a "prompt" field is a legacy completions
// prompt (a string or an array). The Responses API's "prompt" is an object
// (a prompt template reference) and is not one.
func isLegacyPrompt(v *fastjson.Value) bool {
	return v != nil && (v.Type() == fastjson.TypeString || v.Type() == fastjson.TypeArray)
}

// legacyText returns the text of a legacy prompt or input: a string, or the
// strings of an array joined with "\n" (token-id arrays have no text).
func (p *Parser) legacyText(v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeString:
		s, _ := v.StringBytes()
		return s
	case fastjson.TypeArray:
		a, _ := v.Array()
		p.prompt = p.prompt[:0]
		n := 0
		var first []byte
		for _, e := range a {
			if e.Type() != fastjson.TypeString {
				continue
			}
			s, _ := e.StringBytes()
			if n == 1 {
				p.prompt = append(p.prompt, first...)
			}
			if n >= 1 {
				p.prompt = append(p.prompt, '\n')
				p.prompt = append(p.prompt, s...)
			} else {
				first = s
			}
			n++
		}
		if n <= 1 {
			return first
		}
		return p.prompt
	}
	return nil
}

// inputRequest reads a request whose text is in "input": the OpenAI
// Responses API (a string, or a list of items holding objects), or a legacy
// input (an array of strings or token ids).
func (p *Parser) inputRequest(req *Request, in *fastjson.Value) {
	if in.Type() != fastjson.TypeArray {
		req.API = APIOpenAIResponses
		req.Prompt = p.legacyText(in)
		return
	}
	items, _ := in.Array()
	objects := false
	for _, it := range items {
		if it.Type() == fastjson.TypeObject {
			objects = true
			break
		}
	}
	if !objects {
		req.API = APILegacy
		req.Prompt = p.legacyText(in)
		return
	}
	req.API = APIOpenAIResponses
	for i := len(items) - 1; i >= 0; i-- {
		if string(role(items[i])) != "user" {
			continue
		}
		text, _ := p.contentText(items[i].Get("content"), "")
		req.Prompt = text
		break
	}
	end := len(items) - 1
	for end >= 0 && !assistantItem(items[end]) {
		end--
	}
	for i := end; i >= 0 && assistantItem(items[i]); i-- {
		it := items[i]
		if string(it.GetStringBytes("type")) == "function_call" {
			p.addCall(it.GetStringBytes("name"), it.Get("arguments"))
		}
	}
}

// assistantItem reports whether a Responses input item is the assistant's:
// an assistant message, a reasoning item or a *_call item (function_call,
// web_search_call, …). Tool outputs (*_call_output) and other roles are not.
func assistantItem(it *fastjson.Value) bool {
	if string(role(it)) == "assistant" {
		return true
	}
	t := it.GetStringBytes("type")
	return string(t) == "reasoning" || bytes.HasSuffix(t, []byte("_call"))
}
